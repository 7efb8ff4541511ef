//! Checks of the two sites (EKSGPU240-247), from what KEDA v2.20.2 does with a `prometheus`
//! trigger and its `authenticationRef` (kedacore/keda@68a5b502: pkg/scalers/prometheus_scaler.go,
//! pkg/scalers/authentication/, pkg/scalers/aws/, pkg/scaling/resolver/scale_resolvers.go).
//! KEDA builds every trigger of a ScaledObject before it scales, and one that cannot be built
//! fails the whole object (pkg/scaling/scalers_builder.go L91-107): so each site is checked
//! here, before anything is applied.

use super::{BurstScaler, CLUSTER_TRIGGER_AUTHENTICATION, Site, SiteId, mode_parameters};
use crate::rules::{Code, Step, Violation};

/// The plan-time checks of both sites.
pub fn check_sites(b: &BurstScaler) -> Vec<Violation> {
    let mut out = Vec::new();
    for id in SiteId::BOTH {
        if b.address(id).is_none() {
            out.push(Violation::new(
                Code::EKSGPU240,
                vec![Step::Attr("prometheus_address")],
                format!(
                    "The {} has no address: `prometheus_address` is not set and `{}` gives no `address`.",
                    id.words(),
                    id.block()
                ),
            ));
        }
        let Some(site) = b.site(id) else { continue };
        let at = |rest: &[Step]| {
            let mut p = vec![Step::Attr(id.block()), Step::Index(0)];
            p.extend_from_slice(rest);
            p
        };
        secret_keys(id, site, &at, &mut out);
        auth_modes(id, site, &at, &mut out);
        one_authentication(id, site, &at, &mut out);
        unsafe_ssl(id, site, &at, &mut out);
        aws(b, id, site, &at, &mut out);
        keda_version(b, id, site, &at, &mut out);
    }
    out
}

type At<'a> = dyn Fn(&[Step]) -> Vec<Step> + 'a;

/// EKSGPU240: `keys` of `secret_auth` give what the mode needs and nothing it does not read
/// (authentication_types.go `Validate` L125-137: e.g. `bearer token=<empty> is required when
/// bearer auth is enabled`).
fn secret_keys(id: SiteId, site: &Site, at: &At<'_>, out: &mut Vec<Violation>) {
    let Some(a) = &site.secret_auth else { return };
    let Some((required, optional)) = mode_parameters(&a.mode) else {
        return; // The schema's validator refuses the mode.
    };
    let path = at(&[Step::Attr("secret_auth"), Step::Index(0), Step::Attr("keys")]);
    let missing: Vec<&str> = required.iter().filter(|p| !a.keys.contains_key(**p)).copied().collect();
    if !missing.is_empty() {
        out.push(Violation::new(
            Code::EKSGPU240,
            path.clone(),
            format!(
                "The {} authenticates with mode {:?}, which needs {}: `keys` has no {}.",
                id.words(),
                a.mode,
                required.join(" and "),
                missing.join(" or ")
            ),
        ));
    }
    for k in a.keys.keys() {
        if !required.contains(&k.as_str()) && !optional.contains(&k.as_str()) {
            let mut p = path.clone();
            p.push(Step::Key(k.clone()));
            let all: Vec<&str> = required.iter().chain(optional).copied().collect();
            out.push(Violation::new(
                Code::EKSGPU240,
                p,
                format!(
                    "KEDA's Prometheus scaler reads no {k:?} in mode {:?}; it reads {}.",
                    a.mode,
                    all.join(", ")
                ),
            ));
        }
    }
}

/// EKSGPU240: at most one of bearer, basic (and oauth) per trigger (authentication_types.go
/// L76, `excludes` in typed_config.go L304); each mode once.
fn auth_modes(id: SiteId, site: &Site, at: &At<'_>, out: &mut Vec<Violation>) {
    let Some(r) = &site.authentication_ref else { return };
    let headers = r.auth_modes.iter().filter(|m| *m == "bearer" || *m == "basic").count();
    let mut sorted = r.auth_modes.clone();
    sorted.sort();
    sorted.dedup();
    if headers > 1 || sorted.len() != r.auth_modes.len() {
        out.push(Violation::new(
            Code::EKSGPU240,
            at(&[
                Step::Attr("authentication_ref"),
                Step::Index(0),
                Step::Attr("auth_modes"),
            ]),
            format!(
                "The {} lists auth_modes {:?}: KEDA allows each mode once and at most one of bearer and basic.",
                id.words(),
                r.auth_modes
            ),
        ));
    }
}

/// EKSGPU241: one trigger has one `authenticationRef`, and a pod identity (`aws_sigv4`) excludes
/// `authModes` (prometheus_scaler.go L178: `pod identity cannot be enabled with other auth types`).
fn one_authentication(id: SiteId, site: &Site, at: &At<'_>, out: &mut Vec<Violation>) {
    let blocks = site.auth_blocks();
    if blocks.len() > 1 {
        out.push(Violation::new(
            Code::EKSGPU241,
            at(&[Step::Attr(blocks[1])]),
            format!(
                "The {} sets {}: a trigger has one authenticationRef.",
                id.words(),
                blocks.join(" and ")
            ),
        ));
    }
}

/// EKSGPU242: `unsafe_ssl` where KEDA ignores it: a CA or TLS client auth rebuilds the
/// transport with `unsafeSsl := false` (authentication_helpers.go L29), and so does SigV4's next
/// hop (aws_sigv4.go L104).
fn unsafe_ssl(id: SiteId, site: &Site, at: &At<'_>, out: &mut Vec<Violation>) {
    if !site.unsafe_ssl {
        return;
    }
    let why = if site.aws_sigv4.is_some() {
        Some("aws_sigv4 signs through a transport that always verifies certificates")
    } else if site.secret_auth.as_ref().is_some_and(|a| a.mode == "tls") || site.auth_modes().iter().any(|m| m == "tls")
    {
        Some("TLS client authentication builds a transport that always verifies certificates")
    } else if site.secret_auth.as_ref().is_some_and(|a| a.keys.contains_key("ca")) {
        Some("a `ca` builds a transport that always verifies certificates")
    } else {
        None
    };
    if let Some(why) = why {
        out.push(Violation::new(
            Code::EKSGPU242,
            at(&[Step::Attr("unsafe_ssl")]),
            format!("The {} sets unsafe_ssl, which KEDA ignores here: {why}.", id.words()),
        ));
    }
}

/// The region of an Amazon Managed Service for Prometheus workspace query endpoint:
/// `https://aps-workspaces[-fips].<region>.amazonaws.com/workspaces/<id>` (or `.api.aws`,
/// dual-stack), or a VPC endpoint name holding `aps-workspaces.<region>` (AMP user guide, "Use
/// awscurl to query with Prometheus-compatible APIs",
/// https://docs.aws.amazon.com/prometheus/latest/userguide/AMP-compatible-APIs.html; AWS General
/// Reference, Amazon Managed Service for Prometheus endpoints,
/// https://docs.aws.amazon.com/general/latest/gr/prometheus-service.html).
pub(crate) fn amp_region(address: &str) -> Option<&str> {
    let rest = address.strip_prefix("https://")?;
    let host_end = rest.find(['/', ':']).unwrap_or(rest.len());
    let host = &rest[..host_end];
    let at = host.find("aps-workspaces")?;
    let after = &host[at + "aps-workspaces".len()..];
    let after = after.strip_prefix("-fips").unwrap_or(after).strip_prefix('.')?;
    let region = after.split('.').next()?;
    let domain = after.ends_with(".amazonaws.com") || after.ends_with(".api.aws");
    let path = rest[host_end..].trim_start_matches(|c: char| c == ':' || c.is_ascii_digit());
    (domain && path.starts_with("/workspaces/") && !region.is_empty()).then_some(region)
}

/// EKSGPU243 (operator credentials), EKSGPU244 (not an AMP endpoint), EKSGPU245 (region),
/// EKSGPU240 (role_arn with identity_owner workload, refused by KEDA's webhook,
/// apis/keda/v1alpha1/triggerauthentication_webhook.go L177).
fn aws(b: &BurstScaler, id: SiteId, site: &Site, at: &At<'_>, out: &mut Vec<Violation>) {
    let Some(a) = &site.aws_sigv4 else { return };
    let here = |attr: &'static str| at(&[Step::Attr("aws_sigv4"), Step::Index(0), Step::Attr(attr)]);
    let workload = a.identity_owner.as_deref() == Some("workload");
    if workload && a.role_arn.is_some() {
        out.push(Violation::new(
            Code::EKSGPU240,
            here("role_arn"),
            format!(
                "The {} sets role_arn with identity_owner \"workload\", which KEDA's admission webhook refuses.",
                id.words()
            ),
        ));
    }
    let Some(address) = b.address(id) else {
        return; // EKSGPU240 says so.
    };
    if a.role_arn.is_none() && !workload {
        // aws_common.go `GetAwsAuthorization` L88 and aws_config_cache.go: identityOwner keda
        // (the default) without roleArn signs with the keda-operator pod's own credentials.
        out.push(Violation::new(
            Code::EKSGPU243,
            here("role_arn"),
            format!(
                "The {} ({address}) is queried with the KEDA operator's own AWS credentials.",
                id.words()
            ),
        ));
    }
    let address_path = if site.address.is_some() {
        at(&[Step::Attr("address")])
    } else {
        vec![Step::Attr("prometheus_address")]
    };
    match amp_region(address) {
        None => out.push(Violation::new(
            Code::EKSGPU244,
            address_path,
            format!(
                "The {} signs every query with AWS credentials and sends it to {address:?}, which is not an Amazon \
                 Managed Service for Prometheus workspace endpoint.",
                id.words()
            ),
        )),
        Some(region) if region != a.region => out.push(Violation::new(
            Code::EKSGPU245,
            here("region"),
            format!(
                "The {} signs for region {:?}, but its workspace endpoint {address:?} is in {region:?}.",
                id.words(),
                a.region
            ),
        )),
        Some(_) => {}
    }
}

/// EKSGPU246: settings newer than the cluster's KEDA (CHANGELOG v2.13.0: `queryParameters`
/// #4962, Amazon Managed Prometheus #2214 and `podIdentity.provider: aws` #4134).
fn keda_version(b: &BurstScaler, id: SiteId, site: &Site, at: &At<'_>, out: &mut Vec<Violation>) {
    if b.keda_version >= (2, 13) {
        return;
    }
    let (major, minor) = b.keda_version;
    for (set, attr) in [
        (!site.query_parameters.is_empty(), "query_parameters"),
        (site.aws_sigv4.is_some(), "aws_sigv4"),
    ] {
        if set {
            out.push(Violation::new(
                Code::EKSGPU246,
                at(&[Step::Attr(attr)]),
                format!(
                    "The {} sets {attr}, which KEDA {major}.{minor} does not have (added in 2.13).",
                    id.words()
                ),
            ));
        }
    }
}

/// Parameters that carry credentials in a TriggerAuthentication (authentication_types.go).
const CREDENTIALS: &[&str] = &[
    "bearerToken",
    "token",
    "username",
    "password",
    "cert",
    "key",
    "customAuthValue",
];

/// The checks of an `authentication_ref` against the object it names, at apply before any change
/// (the plan cannot read the cluster): `found` is the live TriggerAuthentication (in the scaler's
/// namespace) or ClusterTriggerAuthentication, `None` when there is none.
/// EKSGPU247: KEDA logs a reference it cannot read and builds the trigger with no credentials
/// (scale_resolvers.go L297-299). EKSGPU241: the object has a pod identity and `auth_modes` is set.
/// EKSGPU240 (a warning's worth is not enough: KEDA sends nothing): credentials with no mode on.
pub fn check_referenced(b: &BurstScaler, id: SiteId, found: Option<&serde_json::Value>) -> Vec<Violation> {
    let Some(r) = b.site(id).and_then(|s| s.authentication_ref.as_ref()) else {
        return Vec::new();
    };
    let at = |attr: &'static str| {
        vec![
            Step::Attr(id.block()),
            Step::Index(0),
            Step::Attr("authentication_ref"),
            Step::Index(0),
            Step::Attr(attr),
        ]
    };
    let what = if r.kind == CLUSTER_TRIGGER_AUTHENTICATION {
        format!("ClusterTriggerAuthentication {}", r.name)
    } else {
        format!("TriggerAuthentication {}/{}", b.namespace, r.name)
    };
    let Some(o) = found else {
        return vec![Violation::new(
            Code::EKSGPU247,
            at("name"),
            format!("The {} references {what}, which does not exist.", id.words()),
        )];
    };
    let spec = &o["spec"];
    let provider = spec["podIdentity"]["provider"].as_str().unwrap_or_default();
    let pod_identity = !provider.is_empty() && provider != "none";
    if pod_identity && !r.auth_modes.is_empty() {
        return vec![Violation::new(
            Code::EKSGPU241,
            at("auth_modes"),
            format!(
                "{what} has pod identity {provider:?} and the {} sets auth_modes {:?}.",
                id.words(),
                r.auth_modes
            ),
        )];
    }
    let parameters: Vec<&str> = ["secretTargetRef", "configMapTargetRef", "env"]
        .iter()
        .flat_map(|k| spec[*k].as_array().into_iter().flatten())
        .filter_map(|p| p["parameter"].as_str())
        .collect();
    let credentials: Vec<&str> = parameters.iter().filter(|p| CREDENTIALS.contains(p)).copied().collect();
    // `authModes` may come from the object itself (read from metadata, then authParams).
    if !pod_identity && r.auth_modes.is_empty() && !credentials.is_empty() && !parameters.contains(&"authModes") {
        return vec![Violation::new(
            Code::EKSGPU240,
            at("auth_modes"),
            format!(
                "{what} gives {} but no auth mode is on, so KEDA sends none of it to the {}.",
                credentials.join(", "),
                id.words()
            ),
        )];
    }
    Vec::new()
}

#[cfg(test)]
pub(crate) mod tests;
