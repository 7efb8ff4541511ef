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
mod render;
mod rules;
mod simulate;

pub use day::{Day, Moment, simulate_day, synthetic_day};
pub use render::{ANNOTATION, SCALED_OBJECT, formula, manifest, read_back};
pub use rules::check_burst_scaler;
pub use simulate::{Decision, Sample, Scaling, seed_004_load_curve, seed_004_scaler, simulate};

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
    pub prometheus_address: String,
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
