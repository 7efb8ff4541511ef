//! P6e-GB200 truths: Capacity Blocks only (EKSGPU300).

use std::collections::BTreeMap;

use crate::fixture;
use crate::node_strategy::rules::*;
use crate::rules::Code;

const CTX: Context = Context {
    karpenter_version: (1, 15),
};

fn codes(pool: Pool) -> Vec<Code> {
    let s = NodeStrategy {
        cluster_name: "gpu".into(),
        name: "training".into(),
        kubernetes_version: Some("1.34".into()),
        gpu_operator: None,
        device_plugin: None,
        pools: vec![pool],
        default_tags: BTreeMap::new(),
        karpenter_gates: Default::default(),
    };
    check_node_strategy(&s, &CTX)
        .into_iter()
        .map(|v| v.code)
        .filter(|c| *c == Code::EKSGPU300)
        .collect()
}

fn gb200(capacity: Capacity, capacity_types: &[&str]) -> Pool {
    let mut p = fixture::valid_pool("nvl72", capacity, &["p6e-gb200.36xlarge"]);
    if capacity == Capacity::Karpenter {
        p.managed_node_group = None;
        p.node_class = Some(fixture::karpenter_node_class());
    }
    p.capacity_types = capacity_types.iter().map(|c| (*c).to_owned()).collect();
    p
}

#[test]
fn an_on_demand_gb200_pool_is_refused() {
    // Unset capacity types mean on-demand.
    assert_eq!(codes(gb200(Capacity::ManagedNodeGroup, &[])), [Code::EKSGPU300]);
    assert_eq!(
        codes(gb200(Capacity::ManagedNodeGroup, &["on-demand"])),
        [Code::EKSGPU300]
    );
    assert_eq!(codes(gb200(Capacity::ManagedNodeGroup, &["spot"])), [Code::EKSGPU300]);
    assert_eq!(
        codes(gb200(Capacity::Karpenter, &["reserved", "on-demand"])),
        [Code::EKSGPU300]
    );
}

#[test]
fn a_capacity_block_gb200_pool_passes() {
    assert!(codes(gb200(Capacity::ManagedNodeGroup, &["capacity-block"])).is_empty());
    assert!(codes(gb200(Capacity::Karpenter, &["reserved"])).is_empty());
    // Other types are not restricted.
    let p5 = fixture::valid_pool("p5", Capacity::ManagedNodeGroup, &["p5.48xlarge"]);
    assert!(codes(p5).is_empty());
}

fn mig_codes(pool: Pool) -> Vec<Code> {
    let s = NodeStrategy {
        cluster_name: "gpu".into(),
        name: "training".into(),
        kubernetes_version: Some("1.34".into()),
        gpu_operator: None,
        device_plugin: None,
        pools: vec![pool],
        default_tags: BTreeMap::new(),
        karpenter_gates: Default::default(),
    };
    check_node_strategy(&s, &CTX)
        .into_iter()
        .filter(|v| v.code == Code::EKSGPU301)
        .map(|v| {
            assert_eq!(v.severity, crate::rules::Severity::Warning);
            v.code
        })
        .collect()
}

#[test]
fn mig_on_gb200_warns_about_cdmm() {
    let mut p = gb200(Capacity::ManagedNodeGroup, &["capacity-block"]);
    assert!(mig_codes(p.clone()).is_empty());
    p.labels
        .insert(crate::render::MIG_CONFIG.to_owned(), "all-1g.23gb".to_owned());
    assert_eq!(mig_codes(p.clone()), [Code::EKSGPU301]);
    // Turning MIG off is what CDMM asks for.
    p.labels
        .insert(crate::render::MIG_CONFIG.to_owned(), "all-disabled".to_owned());
    assert!(mig_codes(p).is_empty());
    // Other MIG GPUs are not concerned.
    let mut b200 = fixture::valid_pool("b", Capacity::ManagedNodeGroup, &["p6-b200.48xlarge"]);
    b200.labels
        .insert(crate::render::MIG_CONFIG.to_owned(), "all-1g.23gb".to_owned());
    assert!(mig_codes(b200).is_empty());
}
