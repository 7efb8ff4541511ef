//! Karpenter's feature gates as the provider's `karpenter_feature_gates` names them: the keys of
//! the Helm chart's `settings.featureGates` (aws/karpenter-provider-aws `charts/karpenter/values.yaml`,
//! each gate with the first chart tag that has it). The gates that change what the provider renders
//! or accepts are read into [`FeatureGates`]; the others are accepted so that the whole list the
//! cluster runs with can be written down.

use crate::validate::{Validation, ValidationError, Version};

/// One gate: its Helm key, the first Karpenter release whose chart has it, and whether it is on
/// without being listed (its chart default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gate {
    pub key: &'static str,
    pub since: Version,
    pub default_on: bool,
}

const SOURCE: &str = "aws/karpenter-provider-aws charts/karpenter/values.yaml settings.featureGates (v1.0.0–v1.14.1)";

/// The chart's gates at v1.14.1, with the tag each first appears in.
pub const GATES: &[Gate] = &[
    // v1.0.0: spotToSpotConsolidation: false.
    Gate {
        key: "spotToSpotConsolidation",
        since: (1, 0),
        default_on: false,
    },
    // v1.1.0: nodeRepair: false.
    Gate {
        key: "nodeRepair",
        since: (1, 1),
        default_on: false,
    },
    // v1.3.0: reservedCapacity: false; true by default from v1.6.0.
    Gate {
        key: "reservedCapacity",
        since: (1, 3),
        default_on: true,
    },
    // v1.7.0: nodeOverlay: false (karpenter.sh/v1alpha1 NodeOverlay).
    Gate {
        key: "nodeOverlay",
        since: (1, 7),
        default_on: false,
    },
    // v1.8.1: staticCapacity: false (NodePool spec.replicas, kubernetes-sigs/karpenter v1.8.0).
    Gate {
        key: "staticCapacity",
        since: (1, 8),
        default_on: false,
    },
    // v1.14.0: capacityBuffer: false (autoscaling.x-k8s.io/v1beta1 CapacityBuffer).
    Gate {
        key: "capacityBuffer",
        since: (1, 14),
        default_on: false,
    },
];

pub const STATIC_CAPACITY: &str = "staticCapacity";
pub const NODE_OVERLAY: &str = "nodeOverlay";

/// The gates the provider acts on, as the clusters' Karpenter runs them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FeatureGates {
    /// `staticCapacity`: Karpenter provisions NodePools with `spec.replicas`.
    pub static_capacity: bool,
    /// `nodeOverlay`: Karpenter applies NodeOverlays to its instance types.
    pub node_overlay: bool,
}

impl FeatureGates {
    /// From the keys listed in `karpenter_feature_gates` (unknown keys are refused by
    /// [`karpenter_feature_gate`] at configuration and ignored here).
    pub fn of<'a>(keys: impl IntoIterator<Item = &'a str>) -> FeatureGates {
        let mut g = FeatureGates::default();
        for k in keys {
            match k {
                STATIC_CAPACITY => g.static_capacity = true,
                NODE_OVERLAY => g.node_overlay = true,
                _ => {}
            }
        }
        g
    }
}

/// A `karpenter_feature_gates` entry: a gate the configured Karpenter release's chart has.
pub fn karpenter_feature_gate(key: &str, karpenter: Version) -> Validation {
    let accepted = || {
        GATES
            .iter()
            .filter(|g| g.since <= karpenter)
            .map(|g| g.key)
            .collect::<Vec<_>>()
            .join(", ")
    };
    match GATES.iter().find(|g| g.key == key) {
        Some(g) if g.since <= karpenter => Ok(()),
        Some(g) => Err(ValidationError::new(
            format!(
                "Karpenter {}.{} has no feature gate {key:?} (it arrived in {}.{}).",
                karpenter.0, karpenter.1, g.since.0, g.since.1
            ),
            accepted(),
            SOURCE,
        )),
        None => Err(ValidationError::new(
            format!("{key:?} is not a Karpenter feature gate (the chart's settings.featureGates keys)."),
            accepted(),
            SOURCE,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates_are_known_from_their_release() {
        assert!(karpenter_feature_gate("staticCapacity", (1, 8)).is_ok());
        let e = karpenter_feature_gate("staticCapacity", (1, 7)).expect_err("1.7 has no staticCapacity");
        assert!(e.message.contains("arrived in 1.8"), "{e}");
        assert!(e.accepted.contains("nodeOverlay") && !e.accepted.contains("capacityBuffer"));
        assert!(karpenter_feature_gate("nodeOverlay", (1, 6)).is_err());
        assert!(
            karpenter_feature_gate("NodeOverlay", (1, 14)).is_err(),
            "Helm keys are camelCase"
        );
    }

    #[test]
    fn only_listed_gates_are_on() {
        let g = FeatureGates::of(["nodeOverlay", "nodeRepair"]);
        assert!(g.node_overlay && !g.static_capacity);
        assert_eq!(FeatureGates::of([]), FeatureGates::default());
    }
}
