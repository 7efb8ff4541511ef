//! The provider block's credentials: `assume_role`, `assume_role_with_web_identity`
//! (hashicorp/aws v6) and the `kubernetes` block's `token`, `exec` and client
//! certificate (hashicorp/kubernetes v2): offline checks and parsing.

use std::time::Duration;

use eksgpu_cloud::kube::{ClientCertificate, ExecConfig, StaticCredentials, exec};
use eksgpu_cloud::{AssumeRole, WebIdentity};
use eksgpu_tfplugin::{AttributePath, Diagnostics, Value};

use super::config::{block, string};

/// hashicorp/aws `validAssumeRoleDuration`: 15 minutes to 12 hours, inclusive
/// (internal/conns/config.go, v6); STS's own bounds for `DurationSeconds` (API_AssumeRole).
const MIN_DURATION: Duration = Duration::from_secs(15 * 60);
const MAX_DURATION: Duration = Duration::from_secs(12 * 60 * 60);
/// STS `AssumeRole` `Tags`: at most 50 (API_AssumeRole, "Array Members: Maximum number of 50 items").
const MAX_SESSION_TAGS: usize = 50;

fn duration(v: &Value) -> Option<Duration> {
    let nanos = eksgpu_core::duration::go::parse_duration(v.as_str()?.trim()).ok()?;
    Some(Duration::from_nanos(u64::try_from(nanos).ok()?))
}

fn strings(v: &Value) -> Vec<String> {
    v.elements()
        .iter()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
}

fn map(v: &Value) -> std::collections::BTreeMap<String, String> {
    match v {
        Value::Map(m) => m
            .iter()
            .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
            .collect(),
        _ => Default::default(),
    }
}

pub(super) fn assume_role(config: &Value) -> Option<AssumeRole> {
    let r = block(config, "assume_role")?;
    Some(AssumeRole {
        role_arn: string(r, "role_arn")?,
        session_name: string(r, "session_name"),
        external_id: string(r, "external_id"),
        duration: duration(r.get("duration")),
        tags: map(r.get("tags")),
        transitive_tag_keys: strings(r.get("transitive_tag_keys")),
        source_identity: string(r, "source_identity"),
    })
}

pub(super) fn web_identity(config: &Value) -> Option<WebIdentity> {
    let r = block(config, "assume_role_with_web_identity")?;
    Some(WebIdentity {
        role_arn: string(r, "role_arn")?,
        session_name: string(r, "session_name"),
        web_identity_token: string(r, "web_identity_token"),
        web_identity_token_file: string(r, "web_identity_token_file"),
        duration: duration(r.get("duration")),
    })
}

/// The credentials of a `kubernetes` block with `host`.
pub(super) fn static_credentials(k: &Value) -> StaticCredentials {
    let exec = block(k, "exec").and_then(|e| {
        Some(ExecConfig {
            api_version: string(e, "api_version")?,
            command: string(e, "command")?,
            args: strings(e.get("args")),
            env: map(e.get("env")),
        })
    });
    let client_certificate = match (string(k, "client_certificate"), string(k, "client_key")) {
        (Some(certificate_pem), Some(key_pem)) => Some(ClientCertificate {
            certificate_pem,
            key_pem,
        }),
        _ => None,
    };
    StaticCredentials {
        token: string(k, "token"),
        exec,
        client_certificate,
    }
}

/// STS `RoleSessionName` and `SourceIdentity`: 2 to 64 of `[\w+=,.@-]` (API_AssumeRole).
fn sts_name(s: &str) -> bool {
    (2..=64).contains(&s.len()) && s.chars().all(|c| c.is_ascii_alphanumeric() || "_+=,.@-".contains(c))
}

fn check_role_arn(block: &Value, at: &AttributePath, diags: &mut Diagnostics) {
    if let Some(arn) = block.get("role_arn").as_str()
        && !(arn.starts_with("arn:") && arn.contains(":role/"))
    {
        diags.error_at(
            at.clone().attribute("role_arn"),
            "Invalid role ARN",
            format!("{arn:?} is not an IAM role ARN (arn:aws:iam::<account>:role/<name>)."),
        );
    }
}

fn check_session(block: &Value, at: &AttributePath, diags: &mut Diagnostics) {
    if let Some(name) = block.get("session_name").as_str()
        && !sts_name(name)
    {
        diags.error_at(
            at.clone().attribute("session_name"),
            "Invalid session name",
            format!("{name:?} is not an STS session name: 2 to 64 letters, digits or `_+=,.@-`."),
        );
    }
    if let Some(text) = block.get("duration").as_str()
        && !duration(block.get("duration")).is_some_and(|d| (MIN_DURATION..=MAX_DURATION).contains(&d))
    {
        diags.error_at(
            at.clone().attribute("duration"),
            "Invalid session duration",
            format!(
                "{text:?} is not a duration from 15 minutes to 12 hours; write a Go duration such as \"1h\" or \"90m\"."
            ),
        );
    }
}

pub(super) fn validate(config: &Value, diags: &mut Diagnostics) {
    if let Some(r) = block(config, "assume_role") {
        let at = AttributePath::attr("assume_role");
        check_role_arn(r, &at, diags);
        check_session(r, &at, diags);
        let tags = map(r.get("tags"));
        if tags.len() > MAX_SESSION_TAGS {
            diags.error_at(
                at.clone().attribute("tags"),
                "Too many session tags",
                format!(
                    "STS accepts at most {MAX_SESSION_TAGS} session tags; {} are set.",
                    tags.len()
                ),
            );
        }
        for (k, v) in &tags {
            let checked = eksgpu_core::validate::aws_tag_key(k).and_then(|()| eksgpu_core::validate::aws_tag_value(v));
            if let Err(e) = checked {
                diags.error_at(
                    at.clone().attribute("tags").key(k.clone()),
                    "Invalid session tag",
                    e.to_string(),
                );
            }
        }
        if let Some(id) = r.get("source_identity").as_str()
            && (!sts_name(id) || id.starts_with("aws:"))
        {
            diags.error_at(
                at.attribute("source_identity"),
                "Invalid source identity",
                format!("{id:?} is not an STS source identity: 2 to 64 letters, digits or `_+=,.@-`, not starting with `aws:`."),
            );
        }
    }
    if let Some(r) = block(config, "assume_role_with_web_identity") {
        let at = AttributePath::attr("assume_role_with_web_identity");
        check_role_arn(r, &at, diags);
        check_session(r, &at, diags);
        let (token, file) = (r.get("web_identity_token"), r.get("web_identity_token_file"));
        // hashicorp/aws: exactly one of the two.
        if !token.is_unknown() && !file.is_unknown() && token.is_null() == file.is_null() {
            diags.error_at(
                at.attribute(if token.is_null() { "web_identity_token" } else { "web_identity_token_file" }),
                "Web identity token",
                "Set exactly one of `web_identity_token` (the token) and `web_identity_token_file` (a file holding it).",
            );
        }
    }
}

/// The `kubernetes` block's credentials agree with each other and with `host`.
pub(super) fn validate_kubernetes(k: &Value, diags: &mut Diagnostics) {
    let path = AttributePath::attr("kubernetes");
    let set = |name: &str| !k.get(name).is_null();
    let exec = block(k, "exec");
    if let Some(e) = exec {
        if let Some(v) = e.get("api_version").as_str()
            && !exec::API_VERSIONS.contains(&v)
        {
            diags.error_at(
                path.clone().attribute("exec").attribute("api_version"),
                "Unsupported ExecCredential version",
                format!(
                    "{v:?} is not an ExecCredential apiVersion client-go reads; write \"{}\" (or \"{}\").",
                    exec::API_VERSIONS[0],
                    exec::API_VERSIONS[1]
                ),
            );
        }
        if e.get("command").as_str().is_some_and(|c| c.trim().is_empty()) {
            diags.error_at(
                path.clone().attribute("exec").attribute("command"),
                "Empty exec command",
                "Name the credential command, e.g. \"aws\" with args [\"eks\", \"get-token\", \"--cluster-name\", …].",
            );
        }
        if set("token") {
            diags.error_at(
                path.clone().attribute("exec"),
                "Conflicting credentials",
                "Set either `token` or `exec`, not both: the token would silently win.",
            );
        }
    }
    let own = [
        ("exec", exec.is_some()),
        ("client_certificate", set("client_certificate")),
        ("client_key", set("client_key")),
    ];
    for (name, present) in own {
        if !present {
            continue;
        }
        if set("config_path") {
            diags.error_at(
                path.clone().attribute(name),
                "Conflicting cluster settings",
                format!(
                    "`{name}` goes with `host`; with `config_path` the kubeconfig's user says how to authenticate."
                ),
            );
        } else if !set("host") {
            diags.error_at(
                path.clone().attribute(name),
                "Credential without a host",
                format!("`{name}` is for the API server in `host`: set `host` (and `cluster_ca_certificate`) too."),
            );
        }
    }
    for (name, other) in [
        ("client_certificate", "client_key"),
        ("client_key", "client_certificate"),
    ] {
        if set(name) && k.get(other).is_null() {
            diags.error_at(
                path.clone().attribute(name),
                "Incomplete client certificate",
                format!("`{name}` needs `{other}`: TLS client authentication takes the certificate and its key."),
            );
        }
    }
}

#[cfg(test)]
mod tests;
