//! The two Prometheus servers of a burst scaler, one per site: where KEDA
//! queries the on-prem queue and the cloud load, and how it authenticates to
//! each. Each site is one `prometheus` trigger of the ScaledObject; KEDA
//! resolves every trigger's `authenticationRef` on its own (kedacore/keda
//! v2.20.2 pkg/scaling/scalers_builder.go `buildScalers`), so the two sites may
//! authenticate differently.

use std::collections::BTreeMap;

/// Which site a trigger queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SiteId {
    OnPrem,
    Cloud,
}

impl SiteId {
    pub const BOTH: [SiteId; 2] = [SiteId::OnPrem, SiteId::Cloud];

    /// The HCL block of the site.
    pub const fn block(self) -> &'static str {
        match self {
            SiteId::OnPrem => "on_prem_prometheus",
            SiteId::Cloud => "cloud_prometheus",
        }
    }

    /// The trigger's `name`, which the formula refers to.
    pub const fn trigger(self) -> &'static str {
        match self {
            SiteId::OnPrem => "onprem_waiting",
            SiteId::Cloud => "cloud_running",
        }
    }

    /// The trigger's index in `spec.triggers`: KEDA names its metric
    /// `s<index>-prometheus` (pkg/scalers/prometheus_scaler.go
    /// `GenerateMetricNameWithIndex`), the key of `status.health`.
    pub const fn index(self) -> usize {
        match self {
            SiteId::OnPrem => 0,
            SiteId::Cloud => 1,
        }
    }

    /// The suffix of the TriggerAuthentication the provider renders for the site.
    pub const fn suffix(self) -> &'static str {
        match self {
            SiteId::OnPrem => "onprem",
            SiteId::Cloud => "cloud",
        }
    }

    /// In words, for diagnostics.
    pub const fn words(self) -> &'static str {
        match self {
            SiteId::OnPrem => "on-prem Prometheus",
            SiteId::Cloud => "cloud Prometheus",
        }
    }
}

/// One site's Prometheus, as its `on_prem_prometheus {}` / `cloud_prometheus {}` block says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Site {
    /// `serverAddress`; `None`: the scaler's `prometheus_address`.
    pub address: Option<String>,
    /// `namespace` (Thanos-style tenancy, appended as `&namespace=`).
    pub namespace: Option<String>,
    /// `customHeaders`, rendered `k1=v1,k2=v2`.
    pub custom_headers: BTreeMap<String, String>,
    /// `queryParameters`, rendered `k1=v1,k2=v2`.
    pub query_parameters: BTreeMap<String, String>,
    /// `unsafeSsl`.
    pub unsafe_ssl: bool,
    pub authentication_ref: Option<AuthenticationRef>,
    pub secret_auth: Option<SecretAuth>,
    pub aws_sigv4: Option<AwsSigV4>,
}

impl Site {
    /// The authentication blocks it sets, by block name (a site takes at most one).
    pub fn auth_blocks(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.authentication_ref.is_some() {
            out.push("authentication_ref");
        }
        if self.secret_auth.is_some() {
            out.push("secret_auth");
        }
        if self.aws_sigv4.is_some() {
            out.push("aws_sigv4");
        }
        out
    }

    /// Whether the provider renders a TriggerAuthentication for this site.
    pub fn renders_trigger_authentication(&self) -> bool {
        self.authentication_ref.is_none() && (self.secret_auth.is_some() || self.aws_sigv4.is_some())
    }

    /// KEDA's `authModes` for the trigger (empty: none).
    pub fn auth_modes(&self) -> Vec<String> {
        if let Some(r) = &self.authentication_ref {
            return r.auth_modes.clone();
        }
        self.secret_auth.iter().map(|s| s.mode.clone()).collect()
    }
}

/// `kind` of an `authenticationRef` (ScaledObject CRD v2.20.2: enum, default TriggerAuthentication).
pub const TRIGGER_AUTHENTICATION: &str = "TriggerAuthentication";
pub const CLUSTER_TRIGGER_AUTHENTICATION: &str = "ClusterTriggerAuthentication";

/// A TriggerAuthentication or ClusterTriggerAuthentication that exists already.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthenticationRef {
    pub name: String,
    /// [`TRIGGER_AUTHENTICATION`] or [`CLUSTER_TRIGGER_AUTHENTICATION`].
    pub kind: String,
    /// KEDA's `authModes` for what the object resolves (bearer, basic, tls, custom): KEDA sends
    /// no credential unless a mode is on.
    pub auth_modes: Vec<String>,
}

/// A TriggerAuthentication the provider renders: KEDA parameters read from keys of one Secret
/// in the scaler's namespace (`secretTargetRef`), switched on by `authModes: <mode>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SecretAuth {
    /// `bearer`, `basic`, `tls` or `custom`.
    pub mode: String,
    pub secret_name: String,
    /// KEDA parameter name → key of the Secret's `data`.
    pub keys: BTreeMap<String, String>,
}

/// Amazon Managed Service for Prometheus: SigV4-signed queries through KEDA's `aws` pod
/// identity (a TriggerAuthentication with `podIdentity.provider: aws` the provider renders).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwsSigV4 {
    /// The signing region, `awsRegion` on the trigger.
    pub region: String,
    /// `podIdentity.roleArn`: the role KEDA assumes.
    pub role_arn: Option<String>,
    /// `podIdentity.identityOwner`: `keda` (KEDA's default) or `workload`.
    pub identity_owner: Option<String>,
}

/// The `authModes` a `secret_auth` may set (the Prometheus scaler applies these four;
/// `oauth` and `apiKey` parse but send nothing: kedacore/keda v2.20.2
/// pkg/scalers/prometheus_scaler.go L232-236).
pub const MODES: &[&str] = &["bearer", "basic", "tls", "custom"];

/// What each mode reads from `authParams`: (required, optional) parameter names
/// (kedacore/keda v2.20.2 pkg/scalers/authentication/authentication_types.go, tags L41-78
/// and `Validate` L125-137). `ca` is honoured only with an auth mode on
/// (prometheus_scaler.go L97-98).
pub fn mode_parameters(mode: &str) -> Option<(&'static [&'static str], &'static [&'static str])> {
    Some(match mode {
        "bearer" => (&["bearerToken"], &["ca"]),
        "basic" => (&["username"], &["password", "ca"]),
        "tls" => (&["cert", "key"], &["ca"]),
        "custom" => (&["customAuthHeader", "customAuthValue"], &["ca"]),
        _ => return None,
    })
}
