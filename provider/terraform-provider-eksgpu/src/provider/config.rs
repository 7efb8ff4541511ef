//! Reading and checking the provider block.

use std::collections::BTreeMap;
use std::fmt;

use std::sync::Arc;

use eksgpu_cloud::kube::{Access, Clusters};
use eksgpu_cloud::{AwsClients, AwsSettings, Endpoints};
use eksgpu_tfplugin::{AttributePath, Diagnostics, Value};

pub const DEFAULT_FIELD_MANAGER: &str = "terraform-provider-eksgpu";
/// The Karpenter release whose CRDs the tests vendor in acceptance-tests/kube-emulator/crds (v1.14.1).
pub const DEFAULT_KARPENTER_VERSION: KarpenterVersion = KarpenterVersion::new(1, 14);
/// Kubernetes rejects longer field managers (apimachinery `validateFieldManager`).
const MAX_FIELD_MANAGER_LEN: usize = 128;

/// A value that must never reach a log line or a diagnostic.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// The `kubernetes` block.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KubernetesSettings {
    pub host: Option<String>,
    pub cluster_ca_certificate: Option<String>,
    pub token: Option<Secret>,
    pub insecure: bool,
    pub config_path: Option<String>,
    pub config_context: Option<String>,
}

/// The Karpenter release validation may assume: the one version type (a patch
/// part is accepted and ignored: API features change with minors).
pub type KarpenterVersion = eksgpu_core::version::Version;

/// Everything configured in the provider block.
pub struct Configured {
    pub aws: Arc<AwsClients>,
    /// Connections to cluster APIs, made on first use.
    pub clusters: Clusters,
    pub kubernetes: Option<KubernetesSettings>,
    pub karpenter_version: KarpenterVersion,
    /// `karpenter_feature_gates`: what the rules accept and what is rendered (NodeOverlays).
    pub karpenter_gates: eksgpu_core::karpenter_gates::FeatureGates,
    pub field_manager: String,
    /// `default_tags { tags }`: on every AWS object the provider creates (node groups, access entries).
    pub default_tags: BTreeMap<String, String>,
    /// Whether every setting a plan's computed outputs read (`karpenter_version`,
    /// `karpenter_feature_gates`, `default_tags`) is known: while one is unknown at plan (it comes
    /// from a resource not yet created), outputs rendered from it plan unknown, or apply would
    /// produce another value than the plan showed.
    pub settings_known: bool,
}

/// Whether `karpenter_version`, `karpenter_feature_gates` and `default_tags` hold no unknown value.
fn settings_known(config: &Value) -> bool {
    ["karpenter_version", "karpenter_feature_gates", "default_tags"]
        .iter()
        .all(|k| eksgpu_framework::path::unknowns(config.get(k)).is_empty())
}

/// The keys listed in `karpenter_feature_gates` (unknown elements are left out: checked once known).
fn feature_gates(config: &Value) -> Vec<String> {
    config
        .get("karpenter_feature_gates")
        .elements()
        .iter()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
}

/// Each gate exists in the configured Karpenter release (the chart's `settings.featureGates`).
fn validate_feature_gates(config: &Value, diags: &mut Diagnostics) {
    let karpenter = config
        .get("karpenter_version")
        .as_str()
        .and_then(|s| KarpenterVersion::parse(s.trim()).ok())
        .unwrap_or(DEFAULT_KARPENTER_VERSION)
        .as_tuple();
    for gate in feature_gates(config) {
        if let Err(e) = eksgpu_core::karpenter_gates::karpenter_feature_gate(&gate, karpenter) {
            diags.error_at(
                AttributePath::attr("karpenter_feature_gates"),
                "Invalid Karpenter feature gate",
                e.to_string(),
            );
        }
    }
}

pub(super) fn string(v: &Value, name: &str) -> Option<String> {
    v.get(name).as_str().map(str::to_owned)
}

/// The single nested block `name`, if present (Terraform sends null when absent).
pub(super) fn block<'a>(v: &'a Value, name: &str) -> Option<&'a Value> {
    Some(v.get(name)).filter(|b| matches!(b, Value::Object(_)))
}

/// The `tags` of the `default_tags` block; unknown or absent: none.
fn default_tags(config: &Value) -> BTreeMap<String, String> {
    match block(config, "default_tags").map_or(&Value::Null, |b| b.get("tags")) {
        Value::Map(m) => m
            .iter()
            .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
            .collect(),
        _ => BTreeMap::new(),
    }
}

/// `default_tags`: tags EKS accepts, none of the provider's identifying tags (EKSGPU125).
fn validate_default_tags(config: &Value, diags: &mut Diagnostics) {
    let tags = default_tags(config);
    let at = |k: &str| AttributePath::attr("default_tags").attribute("tags").key(k.to_owned());
    for (k, v) in &tags {
        let checked = eksgpu_core::validate::aws_tag_key(k).and_then(|()| eksgpu_core::validate::aws_tag_value(v));
        if let Err(e) = checked {
            diags.error_at(at(k), "Invalid default tag", e.to_string());
        }
    }
    for v in eksgpu_core::model::rules::check_default_tags(&tags) {
        diags.push(crate::diagnostics::violation(&v));
    }
}

pub(super) fn validate(config: &Value, diags: &mut Diagnostics) {
    validate_default_tags(config, diags);
    validate_feature_gates(config, diags);
    if let Some(s) = config.get("karpenter_version").as_str()
        && KarpenterVersion::parse(s.trim()).map_or(true, |v| v.major < 1)
    {
        diags.error_at(
            AttributePath::attr("karpenter_version"),
            "Invalid Karpenter version",
            format!(
                "{s:?} is not a Karpenter v1 release. Write MAJOR.MINOR, e.g. \"{DEFAULT_KARPENTER_VERSION}\"; \
                 this provider renders the karpenter.sh/v1 API, which needs Karpenter 1.0 or later."
            ),
        );
    }
    if let Some(s) = config.get("field_manager").as_str()
        && (s.is_empty() || s.len() > MAX_FIELD_MANAGER_LEN || s.chars().any(char::is_control))
    {
        diags.error_at(
            AttributePath::attr("field_manager"),
            "Invalid field manager",
            format!("The field manager must be 1 to {MAX_FIELD_MANAGER_LEN} printable characters."),
        );
    }
    if let Some(endpoints) = block(config, "endpoints") {
        for service in ["eks", "ec2", "sts"] {
            if let Some(url) = endpoints.get(service).as_str()
                && !(url.starts_with("https://") || url.starts_with("http://"))
            {
                diags.error_at(
                    AttributePath::attr("endpoints").attribute(service),
                    "Invalid endpoint URL",
                    format!("{url:?} is not a URL. Write it with its scheme, e.g. \"https://{service}.us-west-2.amazonaws.com\"."),
                );
            }
        }
    }
    super::auth::validate(config, diags);
    if let Some(k) = block(config, "kubernetes") {
        super::auth::validate_kubernetes(k, diags);
        let path = AttributePath::attr("kubernetes");
        if let Some(host) = k.get("host").as_str()
            && !(host.starts_with("https://") || host.starts_with("http://"))
        {
            diags.error_at(
                path.clone().attribute("host"),
                "Invalid Kubernetes host",
                format!("{host:?} is not a URL; write https://…"),
            );
        }
        if !k.get("host").is_null() && !k.get("config_path").is_null() {
            diags.error_at(
                path.clone().attribute("config_path"),
                "Conflicting cluster settings",
                "Set either `host` (with `token` and `cluster_ca_certificate`) or `config_path` (a kubeconfig), \
                 not both: one would silently win over the other.",
            );
        }
        if !k.get("config_context").is_null() && k.get("config_path").is_null() && !k.get("config_context").is_unknown()
        {
            diags.error_at(
                path.clone().attribute("config_context"),
                "Context without a kubeconfig",
                "`config_context` picks a context of the kubeconfig in `config_path`: set `config_path` too.",
            );
        }
        if k.get("insecure").as_bool() == Some(true) && !k.get("cluster_ca_certificate").is_null() {
            diags.error_at(
                path.attribute("insecure"),
                "Conflicting TLS settings",
                "Set either insecure = true or cluster_ca_certificate, not both.",
            );
        }
    }
}

/// Settings that work but expose credentials: warnings at ConfigureProvider
/// only, so `terraform validate` and each plan step do not repeat them.
pub(super) fn warnings(config: &Value, diags: &mut Diagnostics) {
    let Some(k) = block(config, "kubernetes") else { return };
    let path = AttributePath::attr("kubernetes");
    if k.get("insecure").as_bool() == Some(true) {
        diags.warning_at(
            path.clone().attribute("insecure"),
            "TLS verification of the cluster API is off",
            "With insecure = true the provider does not check the API server's certificate: anyone on the network \
             path can pose as the cluster and receive the bearer token the provider sends. Use it for throwaway \
             test clusters only; set cluster_ca_certificate instead.",
        );
    }
    if let Some(host) = k.get("host").as_str()
        && host.get(..7).is_some_and(|p| p.eq_ignore_ascii_case("http://"))
    {
        let token = if !k.get("token").is_null() {
            "the kubernetes block's token"
        } else if block(k, "exec").is_some() {
            "the credential kubernetes.exec prints"
        } else {
            "the EKS IAM token the provider makes from your AWS credentials"
        };
        diags.warning_at(
            path.attribute("host"),
            "Bearer token sent over plain HTTP",
            format!(
                "{host} is plain HTTP: {token} crosses the network unencrypted, readable by anyone on the path. \
                 Use the API server's https:// URL."
            ),
        );
    }
}

pub(super) fn parse(config: &Value) -> Configured {
    let endpoints = block(config, "endpoints").map_or_else(Endpoints::default, |e| Endpoints {
        eks: string(e, "eks"),
        ec2: string(e, "ec2"),
        sts: string(e, "sts"),
    });
    let kubernetes = block(config, "kubernetes").map(|k| KubernetesSettings {
        host: string(k, "host"),
        cluster_ca_certificate: string(k, "cluster_ca_certificate"),
        token: string(k, "token").map(Secret),
        insecure: k.get("insecure").as_bool().unwrap_or(false),
        config_path: string(k, "config_path"),
        config_context: string(k, "config_context"),
    });
    let settings = AwsSettings {
        region: string(config, "region"),
        profile: string(config, "profile"),
        assume_role: super::auth::assume_role(config),
        assume_role_with_web_identity: super::auth::web_identity(config),
        endpoints,
    };
    let aws = Arc::new(AwsClients::new(settings));
    let access = match &kubernetes {
        Some(KubernetesSettings {
            config_path: Some(path),
            config_context,
            ..
        }) => Access::Kubeconfig {
            path: path.clone(),
            context: config_context.clone(),
        },
        Some(KubernetesSettings {
            host: Some(host),
            cluster_ca_certificate,
            insecure,
            ..
        }) => Access::Static {
            host: host.clone(),
            ca_pem: cluster_ca_certificate.clone(),
            insecure: *insecure,
            credentials: block(config, "kubernetes")
                .map(super::auth::static_credentials)
                .unwrap_or_default(),
        },
        _ => Access::Eks,
    };
    Configured {
        clusters: Clusters::new(access, aws.clone()),
        aws,
        kubernetes,
        karpenter_version: config
            .get("karpenter_version")
            .as_str()
            .and_then(|s| KarpenterVersion::parse(s.trim()).ok())
            .unwrap_or(DEFAULT_KARPENTER_VERSION),
        karpenter_gates: eksgpu_core::karpenter_gates::FeatureGates::of(
            feature_gates(config).iter().map(String::as_str),
        ),
        field_manager: string(config, "field_manager").unwrap_or_else(|| DEFAULT_FIELD_MANAGER.to_owned()),
        default_tags: default_tags(config),
        settings_known: settings_known(config),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: Vec<(&str, Value)>) -> Value {
        Value::object(pairs)
    }

    #[test]
    fn conflicting_settings_are_reported_where_they_are() {
        let k = |pairs: Vec<(&str, Value)>| config(vec![("kubernetes", Value::object(pairs))]);
        let mut d = Diagnostics::new();
        validate(
            &k(vec![("host", "https://x".into()), ("config_path", "/k".into())]),
            &mut d,
        );
        validate(&k(vec![("config_context", "prod".into())]), &mut d);
        let at: Vec<String> = d.iter().map(|d| d.path.clone().unwrap().to_string()).collect();
        assert_eq!(at, ["kubernetes.config_path", "kubernetes.config_context"]);
        // Each alone is fine.
        let mut d = Diagnostics::new();
        validate(
            &k(vec![("config_path", "/k".into()), ("config_context", "prod".into())]),
            &mut d,
        );
        validate(&k(vec![("host", "https://x".into())]), &mut d);
        assert!(d.is_empty(), "{d:?}");
    }

    #[test]
    fn karpenter_versions() {
        assert_eq!(KarpenterVersion::parse("1.14"), Ok(KarpenterVersion::new(1, 14)));
        assert_eq!(KarpenterVersion::parse("v1.9.2"), Ok(KarpenterVersion::new(1, 9)));
        assert!(KarpenterVersion::parse("1").is_err());
        assert!(KarpenterVersion::parse("latest").is_err());
        assert!(KarpenterVersion::parse("1.2.3.4").is_err());
        let mut d = Diagnostics::new();
        validate(&config(vec![("karpenter_version", "0.37".into())]), &mut d);
        assert_eq!(
            d.iter().next().unwrap().path,
            Some(AttributePath::attr("karpenter_version"))
        );
    }

    #[test]
    fn feature_gates_are_checked_against_the_karpenter_release() {
        let gates = |v: &str, g: &[&str]| {
            let set = Value::Set(g.iter().map(|g| (*g).into()).collect());
            let mut d = Diagnostics::new();
            validate(
                &config(vec![("karpenter_version", v.into()), ("karpenter_feature_gates", set)]),
                &mut d,
            );
            d.iter().map(|d| d.detail.clone()).collect::<Vec<_>>()
        };
        assert_eq!(gates("1.8", &["staticCapacity", "nodeOverlay"]), Vec::<String>::new());
        let found = gates("1.7", &["staticCapacity"]);
        assert!(found.len() == 1 && found[0].contains("arrived in 1.8"), "{found:?}");
        assert_eq!(gates("1.14", &["StaticCapacity"]).len(), 1, "Helm keys are camelCase");
    }

    #[test]
    fn bad_endpoints_and_roles_point_at_their_attribute() {
        let mut d = Diagnostics::new();
        let endpoints = Value::object([("ec2", "localhost:5000".into())]);
        let role = Value::object([("role_arn", "admin".into())]);
        validate(&config(vec![("endpoints", endpoints), ("assume_role", role)]), &mut d);
        let paths: Vec<_> = d.iter().map(|d| d.path.clone().unwrap().to_string()).collect();
        assert_eq!(paths, ["endpoints.ec2", "assume_role.role_arn"]);
    }

    #[test]
    fn unknown_values_are_not_validated() {
        let mut d = Diagnostics::new();
        validate(
            &config(vec![
                ("karpenter_version", Value::Unknown),
                ("field_manager", Value::Unknown),
            ]),
            &mut d,
        );
        assert!(d.is_empty());
    }

    #[test]
    fn insecure_and_plain_http_warn_without_echoing_the_token() {
        let k = Value::object([
            ("host", "http://10.0.0.1:8080".into()),
            ("token", "s3cr3t".into()),
            ("insecure", true.into()),
        ]);
        let mut d = Diagnostics::new();
        warnings(&config(vec![("kubernetes", k)]), &mut d);
        let paths: Vec<_> = d.iter().map(|d| d.path.clone().unwrap().to_string()).collect();
        assert_eq!(paths, ["kubernetes.insecure", "kubernetes.host"]);
        assert!(!d.has_errors());
        assert!(d.iter().all(|d| !format!("{d:?}").contains("s3cr3t")));
        let mut d = Diagnostics::new();
        let k = Value::object([("host", "https://10.0.0.1".into())]);
        warnings(&config(vec![("kubernetes", k)]), &mut d);
        assert!(d.is_empty());
    }

    #[test]
    fn defaults_apply_and_tokens_stay_secret() {
        let k = Value::object([("token", "s3cr3t".into())]);
        let c = parse(&config(vec![("region", "us-west-2".into()), ("kubernetes", k)]));
        assert_eq!(c.field_manager, DEFAULT_FIELD_MANAGER);
        assert_eq!(c.karpenter_version, DEFAULT_KARPENTER_VERSION);
        assert_eq!(c.aws.settings().region.as_deref(), Some("us-west-2"));
        let k = c.kubernetes.unwrap();
        assert!(!format!("{k:?}").contains("s3cr3t"));
        assert_eq!(k.token.unwrap().expose(), "s3cr3t");
    }
}

#[cfg(test)]
mod default_tags_tests {
    use super::*;

    fn with_tags(tags: Vec<(&str, &str)>) -> Value {
        let tags = Value::Map(tags.into_iter().map(|(k, v)| (k.to_owned(), Value::from(v))).collect());
        Value::object(vec![("default_tags", Value::object(vec![("tags", tags)]))])
    }

    #[test]
    fn default_tags_are_read_and_the_providers_own_are_refused() {
        let config = with_tags(vec![("cost-center", "ml"), ("team", "gpu")]);
        let mut d = Diagnostics::new();
        validate(&config, &mut d);
        assert!(!d.has_errors());
        assert_eq!(default_tags(&config).len(), 2);
        assert!(default_tags(&Value::object(vec![("default_tags", Value::Null)])).is_empty());

        let mut d = Diagnostics::new();
        validate(
            &with_tags(vec![("eksgpu.terraform.io/pool", "x"), ("aws:owner", "y")]),
            &mut d,
        );
        let found: Vec<_> = d
            .iter()
            .map(|d| (d.summary.clone(), d.path.clone().map(|p| p.to_string())))
            .collect();
        assert!(
            found.iter().any(|(s, p)| s.starts_with("EKSGPU125")
                && p.as_deref() == Some("default_tags.tags[\"eksgpu.terraform.io/pool\"]")),
            "{found:?}"
        );
        assert!(found.iter().any(|(s, _)| s == "Invalid default tag"), "{found:?}");
    }
}
