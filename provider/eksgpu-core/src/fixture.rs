//! Test fixtures for node strategies: defaults a test overrides with struct update syntax,
//! `Pool { gpu_limit: Some(8), ..fixture::pool("p", Capacity::Karpenter, &["p5.48xlarge"]) }`,
//! as karpenter-provider-aws `pkg/test` builds its objects from defaults plus overrides.
//! Tests name only the fields they are about, so a new `Pool` field is one edit in
//! `Pool::named`, not one per test.

use crate::model::{Capacity, Hybrid, ManagedNodeGroup, NodeClass, NodeStrategy, Pool, RootVolume, Scaling};

/// An IAM role ARN of the right shape for node groups and hybrid nodes.
pub(crate) const ROLE_ARN: &str = "arn:aws:iam::123456789012:role/gpu-nodes";

/// Strategy `genai` of cluster `cluster` on Kubernetes 1.34 with `pools`, no GPU Operator, no
/// default tags or Karpenter gates.
pub(crate) fn strategy(cluster: &str, pools: Vec<Pool>) -> NodeStrategy {
    NodeStrategy {
        cluster_name: cluster.into(),
        name: "genai".into(),
        kubernetes_version: Some("1.34".into()),
        gpu_operator: None,
        device_plugin: None,
        pools,
        default_tags: Default::default(),
        karpenter_gates: Default::default(),
    }
}

/// A pool of `capacity` on `instance_types`, with the GPU taint on (the HCL default) and
/// nothing else set.
pub(crate) fn pool(name: &str, capacity: Capacity, instance_types: &[&str]) -> Pool {
    Pool {
        instance_types: instance_types.iter().map(|t| (*t).to_owned()).collect(),
        gpu_taint: true,
        ..Pool::named(name, capacity)
    }
}

/// [`pool`] with the block its capacity kind needs to pass the rules: a Karpenter node class
/// ([`karpenter_node_class`]), a node group ([`managed_node_group`]), a hybrid block ([`hybrid`]).
pub(crate) fn valid_pool(name: &str, capacity: Capacity, instance_types: &[&str]) -> Pool {
    Pool {
        node_class: (capacity == Capacity::Karpenter).then(karpenter_node_class),
        managed_node_group: (capacity == Capacity::ManagedNodeGroup).then(managed_node_group),
        hybrid: (capacity == Capacity::Hybrid).then(hybrid),
        ..pool(name, capacity, instance_types)
    }
}

/// The EC2NodeClass settings a Karpenter pool needs to pass the rules: the nodes' role
/// (EKSGPU104) and room for inference images (EKSGPU123).
pub(crate) fn karpenter_node_class() -> NodeClass {
    NodeClass {
        role: Some("KarpenterNodeRole".into()),
        root_volume: Some(RootVolume {
            size: Some("200Gi".into()),
            ..RootVolume::default()
        }),
        ..NodeClass::default()
    }
}

/// A node group that passes the rules: a role, one subnet, 0–2 nodes and a 200 GiB disk
/// (EKSGPU123); every optional EKS setting unset.
pub(crate) fn managed_node_group() -> ManagedNodeGroup {
    ManagedNodeGroup {
        node_role_arn: ROLE_ARN.into(),
        subnet_ids: vec!["subnet-1".into()],
        ami_type: None,
        scaling: Scaling {
            min: 0,
            max: 2,
            desired: 0,
        },
        update: None,
        release_version: None,
        disk_size: Some(200),
        node_repair_config: None,
        capacity_reservation_id: None,
        ..ManagedNodeGroup::default()
    }
}

/// Hybrid Nodes with one private remote node network and one pod network.
pub(crate) fn hybrid() -> Hybrid {
    Hybrid {
        remote_node_networks: vec!["10.80.0.0/16".into()],
        remote_pod_networks: vec!["10.85.0.0/16".into()],
        node_role_arn: ROLE_ARN.into(),
    }
}
