//! On-prem first, burst to cloud with KEDA alone: a ScaledObject
//! whose `advanced.scalingModifiers` formula turns two Prometheus signals into
//! scale out / hold / scale in, with a fallback that holds the size when
//! Prometheus cannot be queried — the job of a hand-written metrics exporter.
//!
//! KEDA facts are from kedacore/keda @8b4f083c (v2.20.x): formula evaluation
//! since v2.12.0, fallback `behavior` since v2.17.0, fallback for `Value`
//! metrics since v2.18.0 (CHANGELOG.md); fallback with scaling modifiers and a
//! `Value` metric divides by ready replicas (pkg/fallback/fallback.go).

mod day;
mod readback;
mod render;
mod rules;
mod simulate;
mod site;
mod site_rules;

pub use day::{Day, Moment, Outage, simulate_day, synthetic_day};
pub use readback::read_back;
pub use render::{
    ANNOTATION, CLUSTER_TRIGGER_AUTHENTICATION_KIND, SCALED_OBJECT, TRIGGER_AUTHENTICATION_KIND, formula, manifest,
    manifests, trigger_authentication, trigger_authentication_name,
};
pub use rules::check_burst_scaler;
pub use simulate::{
    Decision, Failing, Sample, Scaling, seed_004_load_curve, seed_004_scaler, seed_004_two_site_morning, simulate,
};
pub use site::{
    AuthenticationRef, AwsSigV4, CLUSTER_TRIGGER_AUTHENTICATION, MODES, SecretAuth, Site, SiteId,
    TRIGGER_AUTHENTICATION, mode_parameters,
};
pub use site_rules::{check_referenced, check_sites};

/// A cron window that keeps one cloud replica warm.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreWarm {
    /// IANA time zone, e.g. `Asia/Seoul`.
    pub timezone: String,
    /// 5-field cron expressions.
    pub start: String,
    pub end: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BurstScaler {
    pub cluster_name: String,
    pub namespace: String,
    pub name: String,
    pub target_kind: String,
    pub target_name: String,
    pub target_api_version: String,
    pub min_replicas: i64,
    pub max_replicas: i64,
    pub polling_interval: i64,
    pub cooldown_period: i64,
    /// The Prometheus of both sites unless a site block gives its own `address`.
    pub prometheus_address: Option<String>,
    /// `on_prem_prometheus {}`: `None` when the block is left out (the default site).
    pub on_prem: Option<Site>,
    /// `cloud_prometheus {}`.
    pub cloud: Option<Site>,
    pub on_prem_waiting_query: String,
    pub scale_out_threshold: f64,
    pub cloud_running_query: String,
    pub hold_threshold: f64,
    pub scale_in_threshold: f64,
    pub pre_warm: Vec<PreWarm>,
    /// `(major, minor)` of the cluster's KEDA.
    pub keda_version: (u32, u32),
    /// Capacity types of the pool the target runs on, when known.
    pub target_capacity_types: Vec<String>,
    pub spot_interruption_handling: bool,
}

impl BurstScaler {
    /// The site block as written (`None` when left out).
    pub fn site(&self, id: SiteId) -> Option<&Site> {
        match id {
            SiteId::OnPrem => self.on_prem.as_ref(),
            SiteId::Cloud => self.cloud.as_ref(),
        }
    }

    /// The site block to fill (read back), made when missing.
    pub fn site_mut(&mut self, id: SiteId) -> &mut Option<Site> {
        match id {
            SiteId::OnPrem => &mut self.on_prem,
            SiteId::Cloud => &mut self.cloud,
        }
    }

    /// Where KEDA queries the site: its block's `address`, else `prometheus_address`
    /// (`None` when neither is set, which EKSGPU240 refuses).
    pub fn address(&self, id: SiteId) -> Option<&str> {
        self.site(id)
            .and_then(|s| s.address.as_deref())
            .or(self.prometheus_address.as_deref())
    }
}
