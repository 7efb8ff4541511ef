//! `kubernetes { exec { … } }`: a client-go credential plugin, run as client-go
//! runs it (k8s.io/client-go v0.33 `plugin/pkg/client/auth/exec/exec.go`): the
//! command with the provider's environment plus `env` and `KUBERNETES_EXEC_INFO`,
//! its stdout one `ExecCredential` of the configured `apiVersion`
//! (client.authentication.k8s.io/v1 or v1beta1, `pkg/apis/clientauthentication`),
//! whose `status` holds a bearer token or a client certificate and key, kept
//! until `status.expirationTimestamp`.
//!
//! Nothing the command prints reaches a log or an error: errors name the
//! command and what is wrong, never a value.

use std::collections::BTreeMap;
use std::fmt;
use std::process::Stdio;
use std::time::{Duration, SystemTime};

use serde_json::Value;

/// The `apiVersion`s client-go accepts from an exec plugin (v1alpha1 went in Kubernetes 1.24).
pub const API_VERSIONS: [&str; 2] = [
    "client.authentication.k8s.io/v1",
    "client.authentication.k8s.io/v1beta1",
];

/// A command that hangs (waiting for a browser login, say) must not hang the run.
const RUN_TIMEOUT: Duration = Duration::from_secs(120);
/// How much of the command's stderr an error quotes (its last characters).
const STDERR_TAIL: usize = 600;

/// `exec { api_version, command, args, env }` as hashicorp/kubernetes writes it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExecConfig {
    pub api_version: String,
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
}

/// What the command printed: a token, or a client certificate and key (PEM), or both.
#[derive(Clone, PartialEq, Eq)]
pub struct ExecCredential {
    pub token: Option<String>,
    pub client_certificate_pem: Option<String>,
    pub client_key_pem: Option<String>,
    /// `status.expirationTimestamp`; `None`: valid for the provider process.
    pub expires: Option<SystemTime>,
}

impl fmt::Debug for ExecCredential {
    // Credentials never reach a log line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExecCredential")
            .field("token", &self.token.as_ref().map(|_| "***"))
            .field("client_certificate", &self.client_certificate_pem.is_some())
            .field("client_key", &self.client_key_pem.as_ref().map(|_| "***"))
            .field("expires", &self.expires)
            .finish()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("the kubernetes.exec command {command:?} could not be started: {cause}")]
    Start { command: String, cause: String },
    #[error("the kubernetes.exec command {command:?} failed ({status}){stderr}")]
    Failed {
        command: String,
        status: String,
        /// The tail of its stderr, as `: …`, or empty.
        stderr: String,
    },
    #[error("the kubernetes.exec command {command:?} did not finish within {} s", RUN_TIMEOUT.as_secs())]
    Timeout { command: String },
    #[error("the kubernetes.exec command {command:?} printed no usable ExecCredential: {reason}")]
    Invalid { command: String, reason: String },
}

/// Parses the command's stdout. The reason names the field at fault, never its value.
pub fn parse(api_version: &str, stdout: &[u8], now: SystemTime) -> Result<ExecCredential, String> {
    let doc: Value = serde_json::from_slice(stdout).map_err(|e| {
        // serde_json's syntax errors give a position only; the text is not quoted.
        format!(
            "stdout is not JSON ({} at line {} column {})",
            category(&e),
            e.line(),
            e.column()
        )
    })?;
    let field = |name: &str| doc.get(name).and_then(Value::as_str);
    if field("kind") != Some("ExecCredential") {
        return Err("`kind` is not \"ExecCredential\"".into());
    }
    match field("apiVersion") {
        Some(v) if v == api_version => {}
        Some(v) if API_VERSIONS.contains(&v) => {
            return Err(format!(
                "`apiVersion` is {v:?}, but kubernetes.exec.api_version is {api_version:?}"
            ));
        }
        _ => return Err(format!("`apiVersion` is not {api_version:?}")),
    }
    let status = doc
        .get("status")
        .and_then(Value::as_object)
        .ok_or("there is no `status` object")?;
    let text = |name: &str| -> Result<Option<String>, String> {
        match status.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("`status.{name}` is not a string")),
        }
    };
    let token = text("token")?;
    let cert = text("clientCertificateData")?;
    let key = text("clientKeyData")?;
    match (&token, &cert, &key) {
        (None, None, None) => return Err("`status` holds neither `token` nor `clientCertificateData`".into()),
        (_, Some(_), None) => return Err("`status.clientCertificateData` comes without `clientKeyData`".into()),
        (_, None, Some(_)) => return Err("`status.clientKeyData` comes without `clientCertificateData`".into()),
        _ => {}
    }
    let expires = match text("expirationTimestamp")? {
        None => None,
        Some(ts) => {
            let t = ts
                .parse::<k8s_openapi::jiff::Timestamp>()
                .map_err(|_| "`status.expirationTimestamp` is not an RFC 3339 time".to_owned())?;
            Some(SystemTime::from(t))
        }
    };
    if expires.is_some_and(|e| e <= now) {
        return Err("`status.expirationTimestamp` has already passed".into());
    }
    Ok(ExecCredential {
        token,
        client_certificate_pem: cert,
        client_key_pem: key,
        expires,
    })
}

fn category(e: &serde_json::Error) -> &'static str {
    match e.classify() {
        serde_json::error::Category::Eof => "it ends early",
        serde_json::error::Category::Syntax => "a syntax error",
        serde_json::error::Category::Data | serde_json::error::Category::Io => "unreadable",
    }
}

/// Runs the command and parses what it prints.
pub async fn run(config: &ExecConfig) -> Result<ExecCredential, ExecError> {
    let command = config.command.clone();
    // client-go passes the cluster-independent part of the request in
    // KUBERNETES_EXEC_INFO; the provider never prompts (`interactive: false`).
    let info = serde_json::json!({
        "apiVersion": config.api_version,
        "kind": "ExecCredential",
        "spec": {"interactive": false},
    });
    let child = tokio::process::Command::new(&config.command)
        .args(&config.args)
        .envs(&config.env)
        .env("KUBERNETES_EXEC_INFO", info.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| ExecError::Start {
            command: command.clone(),
            cause: e.to_string(),
        })?;
    let output = tokio::time::timeout(RUN_TIMEOUT, child.wait_with_output())
        .await
        .map_err(|_| ExecError::Timeout {
            command: command.clone(),
        })?
        .map_err(|e| ExecError::Start {
            command: command.clone(),
            cause: e.to_string(),
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stderr = stderr.trim();
        let tail: String = {
            let skip = stderr.chars().count().saturating_sub(STDERR_TAIL);
            stderr.chars().skip(skip).collect()
        };
        return Err(ExecError::Failed {
            command,
            status: output.status.to_string(),
            stderr: if tail.is_empty() {
                String::new()
            } else {
                format!(": {tail}")
            },
        });
    }
    parse(&config.api_version, &output.stdout, SystemTime::now())
        .map_err(|reason| ExecError::Invalid { command, reason })
}

#[cfg(test)]
mod tests;
