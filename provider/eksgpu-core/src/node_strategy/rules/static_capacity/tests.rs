//! The static NodePool rules: each fires on the CRD's refusal and stays quiet on a pool the CRD
//! accepts.

use std::collections::BTreeMap;

use crate::fixture;
use crate::karpenter_gates::FeatureGates;
use crate::model::{Capacity, Disruption, GpuOperator, NodeStrategy, Pool};
use crate::node_strategy::rules::{Context, check_node_strategy};
use crate::rules::Code;

fn strategy(pool: Pool, gates: FeatureGates) -> NodeStrategy {
    NodeStrategy {
        cluster_name: "gpu".into(),
        name: "genai".into(),
        kubernetes_version: Some("1.34".into()),
        device_plugin: None,
        gpu_operator: Some(GpuOperator {
            mig_strategy: "single".into(),
            dcgm_exporter: true,
            service_monitor: false,
        }),
        pools: vec![pool],
        default_tags: BTreeMap::new(),
        karpenter_gates: gates,
    }
}

const GATED: FeatureGates = FeatureGates {
    static_capacity: true,
    node_overlay: false,
};

fn static_pool(capacity: Capacity) -> Pool {
    Pool {
        replicas: Some(2),
        node_limit: Some(3),
        ..fixture::valid_pool("warm", capacity, &["g6e.xlarge"])
    }
}

fn codes(s: &NodeStrategy, karpenter: (u32, u32)) -> Vec<Code> {
    check_node_strategy(
        s,
        &Context {
            karpenter_version: karpenter,
        },
    )
    .into_iter()
    .map(|v| v.code)
    .collect()
}

#[test]
fn a_static_pool_with_a_node_limit_is_clean() {
    assert_eq!(
        codes(&strategy(static_pool(Capacity::Karpenter), GATED), (1, 8)),
        Vec::<Code>::new()
    );
    // Auto Mode takes static NodePools with no gate.
    let auto = strategy(static_pool(Capacity::AutoMode), FeatureGates::default());
    assert_eq!(codes(&auto, (1, 8)), Vec::<Code>::new());
}

#[test]
fn eksgpu154_karpenter_needs_1_8_and_the_gate() {
    assert_eq!(
        codes(&strategy(static_pool(Capacity::Karpenter), GATED), (1, 7)),
        [Code::EKSGPU164]
    );
    let ungated = strategy(static_pool(Capacity::Karpenter), FeatureGates::default());
    let v = check_node_strategy(
        &ungated,
        &Context {
            karpenter_version: (1, 14),
        },
    );
    assert_eq!(v.iter().map(|v| v.code).collect::<Vec<_>>(), [Code::EKSGPU164]);
    assert!(v[0].detail.contains("staticCapacity"), "{v:?}");
}

#[test]
fn eksgpu150_only_limits_nodes() {
    let p = Pool {
        gpu_limit: Some(8),
        cpu_limit: Some("100".into()),
        ..static_pool(Capacity::Karpenter)
    };
    let v = check_node_strategy(
        &strategy(p, GATED),
        &Context {
            karpenter_version: (1, 8),
        },
    );
    let found: Vec<_> = v.iter().map(|v| (v.code, v.path.last().cloned())).collect();
    use crate::rules::Step::Attr;
    assert_eq!(
        found,
        [
            (Code::EKSGPU160, Some(Attr("gpu_limit"))),
            (Code::EKSGPU160, Some(Attr("cpu_limit")))
        ]
    );
    // The same limits on a dynamic pool are fine.
    let dynamic = Pool {
        replicas: None,
        gpu_limit: Some(8),
        ..static_pool(Capacity::Karpenter)
    };
    assert_eq!(codes(&strategy(dynamic, GATED), (1, 8)), Vec::<Code>::new());
}

#[test]
fn eksgpu151_no_weight() {
    let p = Pool {
        weight: Some(10),
        ..static_pool(Capacity::AutoMode)
    };
    assert_eq!(codes(&strategy(p, GATED), (1, 8)), [Code::EKSGPU161]);
}

#[test]
fn eksgpu152_consolidation_is_ignored() {
    let p = Pool {
        disruption: Some(Disruption {
            consolidation_policy: Some("WhenEmpty".into()),
            consolidate_after: Some("5m".into()),
            budgets: Vec::new(),
        }),
        ..static_pool(Capacity::Karpenter)
    };
    let v = check_node_strategy(
        &strategy(p, GATED),
        &Context {
            karpenter_version: (1, 8),
        },
    );
    assert_eq!(v.iter().map(|v| v.code).collect::<Vec<_>>(), [Code::EKSGPU162]);
    assert!(
        v[0].detail.contains("consolidation_policy and consolidate_after"),
        "{v:?}"
    );
    // Budgets alone still apply to drift and expiry: no warning.
    let p = Pool {
        disruption: Some(Disruption::default()),
        ..static_pool(Capacity::Karpenter)
    };
    assert_eq!(codes(&strategy(p, GATED), (1, 8)), Vec::<Code>::new());
}

#[test]
fn eksgpu153_room_to_replace() {
    let p = Pool {
        node_limit: Some(2),
        ..static_pool(Capacity::Karpenter)
    };
    assert_eq!(codes(&strategy(p, GATED), (1, 8)), [Code::EKSGPU163]);
    let p = Pool {
        node_limit: None,
        ..static_pool(Capacity::Karpenter)
    };
    assert_eq!(codes(&strategy(p, GATED), (1, 8)), Vec::<Code>::new());
}
