//! The rules `terraform validate` runs: at validate the provider is not configured (Terraform
//! calls `ValidateResourceConfig` before `ConfigureProvider`), so a finding reported there must
//! hold whatever the provider's `karpenter_version` and `karpenter_feature_gates` are. Those
//! that depend on them (and the cluster's facts, read at apply) wait for the plan.
//!
//! Only errors are reported at validate. Terraform stops at a validation error, so the plan never
//! repeats one; warnings would be shown once per `ValidateResourceConfig` call (a `terraform plan`
//! validates twice) and once more by the plan, so they stay at plan.

use super::{Context, check_node_strategy};
use crate::karpenter_gates::FeatureGates;
use crate::model::NodeStrategy;
use crate::rules::{Severity, Violation};

/// The Karpenter releases the rules are run against: every v1 minor up to some beyond the newest
/// the rules know of (their thresholds are all v1 minors).
const KARPENTER_MINORS: std::ops::RangeInclusive<u32> = 0..=20;

/// The errors `check_node_strategy` reports for `s` under every provider setting: every Karpenter
/// v1 minor, with and without each feature gate the rules read. A strategy without errors costs
/// one run: the intersection stops as soon as it is empty.
pub fn check_at_validate(s: &NodeStrategy) -> Vec<Violation> {
    let gates = [
        FeatureGates::default(),
        FeatureGates {
            static_capacity: true,
            node_overlay: false,
        },
        FeatureGates {
            static_capacity: false,
            node_overlay: true,
        },
        FeatureGates {
            static_capacity: true,
            node_overlay: true,
        },
    ];
    let mut kept: Option<Vec<Violation>> = None;
    for minor in KARPENTER_MINORS {
        for g in gates {
            let strategy = NodeStrategy {
                karpenter_gates: g,
                ..s.clone()
            };
            let found: Vec<Violation> = check_node_strategy(
                &strategy,
                &Context {
                    karpenter_version: (1, minor),
                },
            )
            .into_iter()
            .filter(|v| v.severity == Severity::Error)
            .collect();
            let next = match kept {
                None => found,
                Some(k) => k.into_iter().filter(|v| found.contains(v)).collect(),
            };
            if next.is_empty() {
                return next;
            }
            kept = Some(next);
        }
    }
    kept.unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture;
    use crate::model::{Capacity, NodeClass, Pool};
    use crate::rules::Code;

    fn strategy(pool: Pool) -> NodeStrategy {
        NodeStrategy {
            cluster_name: "gpu".into(),
            name: "genai".into(),
            kubernetes_version: None,
            gpu_operator: None,
            device_plugin: None,
            pools: vec![pool],
            default_tags: Default::default(),
            karpenter_gates: Default::default(),
        }
    }

    fn valid() -> Pool {
        fixture::valid_pool("p", Capacity::Karpenter, &["g6e.xlarge"])
    }

    fn codes(s: &NodeStrategy) -> Vec<Code> {
        check_at_validate(s).iter().map(|v| v.code).collect()
    }

    #[test]
    fn configuration_errors_are_found_without_the_provider() {
        let unknown_type = Pool {
            instance_types: vec!["m5.xlarge".into()],
            ..valid()
        };
        assert!(codes(&strategy(unknown_type)).contains(&Code::EKSGPU016));
        let no_role = Pool {
            node_class: Some(NodeClass {
                role: None,
                ..fixture::karpenter_node_class()
            }),
            ..valid()
        };
        assert_eq!(codes(&strategy(no_role)), vec![Code::EKSGPU104]);
    }

    #[test]
    fn findings_a_provider_setting_answers_wait_for_the_plan() {
        // `replicas` needs Karpenter 1.8 and the staticCapacity gate (EKSGPU164): with both in the
        // provider block the pool is valid, so validate says nothing.
        let static_pool = Pool {
            replicas: Some(2),
            ..valid()
        };
        let s = strategy(static_pool);
        let at_plan = check_node_strategy(
            &s,
            &Context {
                karpenter_version: (1, 14),
            },
        );
        assert!(
            at_plan.iter().any(|v| v.severity == Severity::Error),
            "without the gate the plan refuses it: {at_plan:?}"
        );
        assert!(codes(&s).is_empty(), "{:?}", check_at_validate(&s));
        assert!(codes(&strategy(valid())).is_empty());
    }
}
