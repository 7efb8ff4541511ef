use std::collections::BTreeMap;

use serde_json::json;

use super::*;
use crate::rules::Code;

fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
}

fn pool(capacity: Capacity, types: &[&str]) -> PoolFacts {
    PoolFacts {
        capacity: Some(capacity),
        instance_types: types.iter().map(|t| (*t).to_owned()).collect(),
        node_selector: map(&[("karpenter.sh/nodepool", "gpu")]),
        tolerations: vec![map(&[
            ("key", "nvidia.com/gpu"),
            ("operator", "Exists"),
            ("effect", "NoSchedule"),
        ])],
        gpu_resource_name: Some("nvidia.com/gpu".into()),
        ..PoolFacts::default()
    }
}

fn request(pool: PoolFacts, replicas: i64, per_replica: i64) -> Request {
    Request {
        pool,
        share: None,
        name: "vllm".into(),
        namespace: "inference".into(),
        pod_labels: map(&[("app.kubernetes.io/name", "vllm")]),
        replicas,
        accelerators_per_replica: per_replica,
        neuron_cores_per_replica: None,
        load_balanced: true,
    }
}

fn share(strategy: Strategy, requests: &[(&str, &str)], labels: &[(&str, &str)]) -> ShareFacts {
    ShareFacts {
        name: "small".into(),
        strategy,
        node_labels: map(labels),
        resource_requests: map(requests),
        resource_claim_name: None,
        dra_namespace: None,
        dra_count: None,
        shares_per_gpu: None,
        one_share_only: false,
        mig_profiles: BTreeMap::new(),
        mig_config: None,
        hami_split_count: None,
    }
}

/// A node group of four L40S whose device plugin config `small` time-slices each GPU, and the
/// sharing pool that names it.
fn time_sliced_l40s() -> (PoolFacts, ShareFacts) {
    let mut p = pool(Capacity::ManagedNodeGroup, &["g6e.12xlarge"]);
    p.labels = map(&[("nvidia.com/device-plugin.config", "small")]);
    let s = share(
        Strategy::TimeSlicing,
        &[("nvidia.com/gpu.shared", "1")],
        &[("nvidia.com/device-plugin.config", "small")],
    );
    (p, s)
}

fn codes(r: &Request) -> Vec<Code> {
    rules::check(r).into_iter().map(|v| v.code).collect()
}

#[test]
fn whole_gpus_two_replicas_get_a_budget_and_a_spread_and_no_warning() {
    let r = request(pool(Capacity::Karpenter, &["g6e.12xlarge"]), 2, 4);
    let p = place(&r);
    assert_eq!(p.resources["limits"], map(&[("nvidia.com/gpu", "4")]));
    assert_eq!(p.resources["requests"], p.resources["limits"]);
    assert_eq!(p.pod_disruption_budget.as_ref().unwrap()["spec"]["minAvailable"], 1);
    assert_eq!(
        p.topology_spread_constraints[0]["topologyKey"],
        "kubernetes.io/hostname"
    );
    assert!(p.pod_annotations.is_empty());
    assert_eq!(p.pod_spec()["nodeSelector"], json!({"karpenter.sh/nodepool": "gpu"}));
    assert!(p.pod_spec().get("resourceClaims").is_none());
    assert!(codes(&r).is_empty(), "{:?}", codes(&r));
    // Five GPUs: no g6e.12xlarge has them.
    assert_eq!(
        codes(&request(pool(Capacity::Karpenter, &["g6e.12xlarge"]), 2, 5)),
        [Code::EKSGPU193]
    );
}

#[test]
fn one_replica_on_a_consolidating_pool_warns_and_is_kept_where_it_is() {
    let r = request(pool(Capacity::AutoMode, &["g6e.12xlarge"]), 1, 1);
    assert_eq!(codes(&r), [Code::EKSGPU196]);
    let p = place(&r);
    assert_eq!(p.pod_annotations, map(&[(DO_NOT_DISRUPT, "true")]));
    assert!(p.pod_disruption_budget.is_none() && p.topology_spread_constraints.is_empty());
    // A pool that consolidates only empty nodes, a static NodePool or a node group: nothing.
    let mut empty = pool(Capacity::Karpenter, &["g6e.12xlarge"]);
    empty.consolidation_policy = Some("WhenEmpty".into());
    let mut fixed = pool(Capacity::Karpenter, &["g6e.12xlarge"]);
    fixed.static_replicas = Some(2);
    for p in [empty, fixed, pool(Capacity::ManagedNodeGroup, &["g6e.12xlarge"])] {
        let r = request(p, 1, 1);
        assert!(codes(&r).is_empty(), "{:?}", codes(&r));
        assert!(place(&r).pod_annotations.is_empty());
    }
}

#[test]
fn a_mig_share_is_its_profile_counted_from_the_layout_and_must_be_offered() {
    let mut p = pool(Capacity::ManagedNodeGroup, &["p5.48xlarge"]);
    p.labels = map(&[("nvidia.com/mig.config", "all-1g.10gb")]);
    let mut s = share(
        Strategy::Mig,
        &[("nvidia.com/mig-1g.10gb", "1")],
        &[("nvidia.com/mig.config", "all-1g.10gb")],
    );
    s.mig_config = Some("all-1g.10gb".into());
    let mut r = request(p, 2, 2);
    r.share = Some(s);
    assert_eq!(place(&r).resources["limits"], map(&[("nvidia.com/mig-1g.10gb", "2")]));
    assert!(codes(&r).is_empty(), "{:?}", codes(&r));
    // 8 H100s × 7 instances of 1g.10gb.
    r.accelerators_per_replica = 57;
    let found = rules::check(&r);
    assert_eq!(found.len(), 1);
    assert!(found[0].detail.contains("has 56 MIG instances"), "{}", found[0].detail);
    // The pool without the sharing pool's label.
    r.accelerators_per_replica = 1;
    r.pool.labels.clear();
    assert_eq!(codes(&r), [Code::EKSGPU194]);
}

#[test]
fn time_sliced_shares_count_per_gpu_and_mps_takes_one() {
    let (p, mut s) = time_sliced_l40s();
    s.shares_per_gpu = Some(4);
    let mut r = request(p, 3, 16);
    r.share = Some(s.clone());
    assert_eq!(place(&r).resources["limits"], map(&[("nvidia.com/gpu.shared", "16")]));
    assert!(codes(&r).is_empty(), "{:?}", codes(&r));
    r.accelerators_per_replica = 17;
    assert_eq!(codes(&r), [Code::EKSGPU193]);
    s.strategy = Strategy::Mps;
    s.one_share_only = true;
    r.share = Some(s);
    r.accelerators_per_replica = 2;
    assert_eq!(codes(&r), [Code::EKSGPU197]);
}

#[test]
fn a_dra_share_is_a_claim_of_the_pods_namespace_on_a_dra_pool() {
    let mut p = pool(Capacity::ManagedNodeGroup, &["p5.48xlarge"]);
    p.dra = true;
    p.gpu_resource_name = None;
    p.labels = map(&[("nvidia.com/gpu.deploy.device-plugin", "false")]);
    let mut s = share(Strategy::Dra, &[], &[("nvidia.com/gpu.deploy.device-plugin", "false")]);
    s.resource_claim_name = Some("shared-h100".into());
    s.dra_namespace = Some("inference".into());
    s.dra_count = Some(1);
    let mut r = request(p, 2, 0);
    r.share = Some(s.clone());
    let placed = place(&r);
    assert!(placed.resources.is_empty());
    assert_eq!(
        placed.resource_claims,
        [json!({"name": "gpu", "resourceClaimName": "shared-h100"})]
    );
    assert_eq!(placed.container_resources, json!({"claims": [{"name": "gpu"}]}));
    // One claim, one node: no spread and no budget that could not be met; a node group does
    // not consolidate.
    assert!(placed.topology_spread_constraints.is_empty() && placed.pod_disruption_budget.is_none());
    assert!(codes(&r).is_empty(), "{:?}", codes(&r));
    r.namespace = "other".into();
    assert_eq!(codes(&r), [Code::EKSGPU195]);
    r.namespace = "inference".into();
    s.dra_count = Some(9);
    r.share = Some(s.clone());
    assert_eq!(codes(&r), [Code::EKSGPU193]);
    // Not a DRA pool; and a DRA pool without the claim.
    s.dra_count = Some(1);
    r.share = Some(s);
    r.pool.dra = false;
    assert_eq!(codes(&r), [Code::EKSGPU194]);
    r.pool.dra = true;
    r.share = None;
    r.accelerators_per_replica = 1;
    assert_eq!(codes(&r), [Code::EKSGPU197]);
}

#[test]
fn neuron_devices_or_cores_never_both() {
    let mut p = pool(Capacity::Karpenter, &["trn2.48xlarge"]);
    p.neuron = true;
    p.gpu_resource_name = Some("aws.amazon.com/neuron".into());
    p.consolidation_policy = Some("WhenEmpty".into());
    let mut r = request(p.clone(), 2, 0);
    r.neuron_cores_per_replica = Some(8);
    assert_eq!(
        place(&r).resources["limits"],
        map(&[("aws.amazon.com/neuroncore", "8")])
    );
    assert!(codes(&r).is_empty(), "{:?}", codes(&r));
    r.neuron_cores_per_replica = Some(1000);
    assert_eq!(codes(&r), [Code::EKSGPU193]);
    r.accelerators_per_replica = 1;
    r.neuron_cores_per_replica = Some(2);
    assert_eq!(codes(&r), [Code::EKSGPU197]);
    let devices = request(p, 2, 16);
    assert_eq!(
        place(&devices).resources["limits"],
        map(&[("aws.amazon.com/neuron", "16")])
    );
    assert!(codes(&devices).is_empty(), "{:?}", codes(&devices));
    // NeuronCores on NVIDIA GPUs.
    let mut nvidia = request(pool(Capacity::ManagedNodeGroup, &["g6e.12xlarge"]), 2, 0);
    nvidia.neuron_cores_per_replica = Some(2);
    assert_eq!(codes(&nvidia), [Code::EKSGPU197]);
}

#[test]
fn a_multi_node_nvlink_pool_joins_its_channel_in_one_clique() {
    let mut p = pool(Capacity::ManagedNodeGroup, &["p6e-gb200.36xlarge"]);
    p.dra = true;
    p.multi_node_nvlink = true;
    p.compute_domain_claim_template = Some("nvl72-channel".into());
    p.compute_domain_namespace = Some("training".into());
    p.clique_topology_key = Some("nvidia.com/gpu.clique".into());
    let mut r = request(p, 4, 4);
    r.namespace = "training".into();
    let placed = place(&r);
    assert_eq!(placed.resources["limits"], map(&[("nvidia.com/gpu", "4")]));
    assert_eq!(
        placed.resource_claims,
        [json!({"name": "channel", "resourceClaimTemplateName": "nvl72-channel"})]
    );
    assert_eq!(
        placed.affinity["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]["topologyKey"],
        "nvidia.com/gpu.clique"
    );
    assert_eq!(placed.topology_spread_constraints.len(), 1, "over nodes, not zones");
    assert!(codes(&r).is_empty(), "{:?}", codes(&r));
    r.namespace = "inference".into();
    assert_eq!(codes(&r), [Code::EKSGPU195]);
}

#[test]
fn a_share_count_near_i64_max_saturates_instead_of_overflowing() {
    // `shares_per_gpu` comes from a sharing pool's user input: a node's shares (GPUs × replicas)
    // must not wrap into a negative count that refuses every placement.
    let (p, mut s) = time_sliced_l40s();
    s.shares_per_gpu = Some(i64::MAX);
    let mut r = request(p, 1, 1_000_000);
    r.share = Some(s);
    assert!(codes(&r).is_empty(), "{:?}", codes(&r));
}
