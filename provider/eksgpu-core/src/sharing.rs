//! GPU sharing pools: how the GPUs of a set of nodes are shared (whole GPUs,
//! time-slicing, MPS, MIG, DRA, HAMi), what their nodes must be labelled, what
//! a container requests, and the in-cluster objects that configure it.

pub(crate) mod counts;
pub mod handover;
mod readback;
mod render;
mod rules;

use std::collections::BTreeMap;

pub use readback::{from_record, overlay_live};
pub use render::{
    DEFAULT_CONFIG_MAP, DEFAULT_CONFIG_NAMESPACE, RECORD_CONFIG_MAP, device_plugin_config, hami_values, manifests,
    node_labels, record, resource_requests,
};
pub use render::{RESOURCE_CLAIM, SHARING_POOL_LABEL};
pub use rules::check_sharing_pool;

use crate::catalog::{self, InstanceType};
use crate::model::Capacity;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    Exclusive,
    TimeSlicing,
    Mps,
    Mig,
    Dra,
    Hami,
}

impl Strategy {
    pub const ALL: [Strategy; 6] = [
        Strategy::Exclusive,
        Strategy::TimeSlicing,
        Strategy::Mps,
        Strategy::Mig,
        Strategy::Dra,
        Strategy::Hami,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::Exclusive => "exclusive",
            Strategy::TimeSlicing => "time_slicing",
            Strategy::Mps => "mps",
            Strategy::Mig => "mig",
            Strategy::Dra => "dra",
            Strategy::Hami => "hami",
        }
    }

    pub fn parse(s: &str) -> Option<Strategy> {
        Strategy::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

/// Device-plugin time-slicing or MPS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slicing {
    pub replicas: i64,
    pub rename_by_default: bool,
    pub fail_requests_greater_than_one: bool,
}

impl Slicing {
    /// Upstream's `failRequestsGreaterThanOne`: `false` for time-slicing, `true` for MPS —
    /// since k8s-device-plugin v0.15.0 api/config/v1/config.go sets it to true whenever MPS
    /// is configured (a request for several MPS shares has no clear meaning).
    pub fn default_fail_requests_greater_than_one(strategy: Strategy) -> bool {
        strategy == Strategy::Mps
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mig {
    /// `single` or `mixed`.
    pub strategy: String,
    /// Profile → instances per GPU, e.g. `{"1g.18gb": 7}`.
    pub profiles: BTreeMap<String, i64>,
    /// A mig-parted config name (`all-balanced`, `all-<profile>`), instead of `profiles`.
    pub config: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dra {
    pub namespace: String,
    pub claim_name: String,
    pub device_class: String,
    pub count: i64,
    /// `exclusive`, `time_slicing` or `mps`.
    pub sharing: String,
    /// Create (and on destroy delete) the namespace too.
    pub create_namespace: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Hami {
    pub split_count: i64,
    pub memory_mib: Option<i64>,
    pub cores_percent: Option<i64>,
    pub memory_scaling: f64,
    pub core_policy: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workload {
    pub name: String,
    pub memory_mib: i64,
    /// Where the workload runs (DRA claims are shared within one namespace only).
    pub namespace: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SharingPool {
    pub cluster_name: String,
    pub name: String,
    pub instance_type: Option<String>,
    pub gpu_model: Option<String>,
    pub capacity: Option<Capacity>,
    pub strategy: Strategy,
    /// Where the device-plugin config ConfigMap (and the pools' record) live.
    pub config_namespace: String,
    pub config_map: String,
    pub time_slicing: Option<Slicing>,
    pub mps: Option<Slicing>,
    pub mig: Option<Mig>,
    pub dra: Option<Dra>,
    pub hami: Option<Hami>,
    pub workloads: Vec<Workload>,
}

impl SharingPool {
    /// The catalog rows the pool is validated against: its instance type, or
    /// every type with its GPU model.
    pub fn gpus(&self) -> Vec<&'static InstanceType> {
        match (&self.instance_type, &self.gpu_model) {
            (Some(t), _) => catalog::instance_type(t).into_iter().collect(),
            (None, Some(m)) => catalog::instance_types()
                .iter()
                .filter(|t| t.gpu_model.eq_ignore_ascii_case(m))
                .collect(),
            (None, None) => Vec::new(),
        }
    }

    /// The mig-parted config name the pool's nodes select.
    pub fn mig_config_name(&self) -> Option<String> {
        let mig = self.mig.as_ref()?;
        if let Some(c) = &mig.config {
            return Some(c.clone());
        }
        let mut profiles = mig.profiles.iter().filter(|(_, n)| **n > 0);
        let (first, _) = profiles.next()?;
        if profiles.next().is_none() {
            // One profile filling every GPU: the generated `all-<profile>` config ('+' written as '.').
            return Some(
                catalog::MigProfileName::parse(first)
                    .map_or_else(|| format!("all-{}", first.replace('+', ".")), |p| p.config_name()),
            );
        }
        let balanced = self.gpus().first().and_then(|t| t.mig).is_some_and(|m| {
            m.balanced.len() == mig.profiles.len()
                && m.balanced
                    .iter()
                    .all(|(p, n)| mig.profiles.get(*p) == Some(&i64::from(*n)))
        });
        balanced.then(|| "all-balanced".to_owned())
    }
}

#[cfg(test)]
mod tests;
