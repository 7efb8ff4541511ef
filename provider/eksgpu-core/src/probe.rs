//! A capacity probe: proof that an accelerated instance type launches in the user's account,
//! region and cluster before workloads depend on it. `kubectl apply --dry-run=server` proves
//! nothing about provisioning; only a launched node does (EKS Auto Mode's support for the newest
//! GPU types "needs re-validation": in 2026-04 p5en failed with `NoCompatibleInstanceTypes`
//! although EKS documents the family).
//!
//! The probe is one tainted NodePool limited to one node of the given types and one pause pod
//! that requests one accelerator and tolerates the taint (`render`); the NodeClaim Karpenter (or
//! Auto Mode, which runs Karpenter) makes for it, and the events about the pod and the claim,
//! decide the outcome (`outcome`). Pure: the provider applies, watches and deletes.

mod outcome;
mod render;
mod rules;

use std::collections::BTreeMap;
use std::time::Duration;

pub use outcome::{Failure, Observation, Outcome, ProbeResult, Watched, answers, is_claim_of, observe, timed_out};
pub use render::{PAUSE_IMAGE, PROBE_LABEL, cost, manifests, max_cost, node_pool, object_name, pod, safety_margin};
pub use rules::check_probe;

/// Where the probe's node comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeCapacity {
    /// EKS Auto Mode's Karpenter, with an `eks.amazonaws.com` NodeClass.
    AutoMode,
    /// Self-managed Karpenter, with an EC2NodeClass.
    Karpenter,
}

impl ProbeCapacity {
    pub const ALL: [&'static str; 2] = ["auto_mode", "karpenter"];

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "auto_mode" => Some(ProbeCapacity::AutoMode),
            "karpenter" => Some(ProbeCapacity::Karpenter),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ProbeCapacity::AutoMode => "auto_mode",
            ProbeCapacity::Karpenter => "karpenter",
        }
    }
}

/// One probe, as configured.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    pub cluster_name: String,
    /// The probe's name; its objects are `eksgpu-probe-<name>` ([`object_name`]).
    pub name: String,
    /// Namespace of the pause pod.
    pub namespace: String,
    pub capacity: ProbeCapacity,
    /// Karpenter picks one of them (`node.kubernetes.io/instance-type In …`).
    pub instance_types: Vec<String>,
    /// `karpenter.sh/capacity-type` values.
    pub capacity_types: Vec<String>,
    /// `topology.kubernetes.io/zone` values; empty: any zone of the node class's subnets.
    pub zones: Vec<String>,
    /// How long to wait for a ready node before the result is `timeout`.
    pub timeout: Duration,
    /// The node class the NodePool uses: an EC2NodeClass (`karpenter`, required) or an Auto
    /// Mode NodeClass (`auto_mode`, default `default`, the one Auto Mode creates). The probe
    /// never writes it.
    pub node_class: Option<String>,
    /// USD per hour by instance type: an input, never a built-in price.
    pub price_per_hour: BTreeMap<String, f64>,
}

impl Probe {
    /// One instance type in one zone (see [`Watched::single_offering`]).
    pub fn single_offering(&self) -> bool {
        self.instance_types.len() == 1 && self.zones.len() == 1
    }

    /// The node class the NodePool refers to.
    pub fn node_class_name(&self) -> &str {
        match (&self.node_class, self.capacity) {
            (Some(n), _) => n,
            // EKS user guide, Create a Node Class: Auto Mode's built-in NodeClass is `default`.
            (None, ProbeCapacity::AutoMode) => "default",
            (None, ProbeCapacity::Karpenter) => "",
        }
    }
}

#[cfg(test)]
mod tests;
