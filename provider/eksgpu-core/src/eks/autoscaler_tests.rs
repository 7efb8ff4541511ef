//! The Cluster Autoscaler's view of a node group: the resources its node-template tags say a
//! new node advertises (shared, renamed, MIG, Neuron) and the GPU label it waits on.

use std::collections::BTreeMap;

use super::autoscaler::{ACCELERATOR_LABEL, accelerator_label};
use super::*;
use crate::catalog;
use crate::fixture;
use crate::model::{Capacity, GpuOperator, NodeStrategy, Pool};
use crate::node_strategy::render::{DEVICE_PLUGIN_CONFIG, MIG_CONFIG};
use crate::sharing::handover::{GPU_REPLICAS, GPU_RESOURCE};

const RESOURCES: &str = "k8s.io/cluster-autoscaler/node-template/resources/";
const LABEL: &str = "k8s.io/cluster-autoscaler/node-template/label/";

fn strategy(pool: Pool, mig_strategy: &str) -> NodeStrategy {
    NodeStrategy {
        gpu_operator: Some(GpuOperator {
            mig_strategy: mig_strategy.into(),
            dcgm_exporter: true,
            service_monitor: false,
        }),
        ..fixture::strategy("gpu-prod", vec![pool])
    }
}

fn group(types: &[&str], labels: &[(&str, &str)]) -> Pool {
    Pool {
        labels: labels.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(),
        ..fixture::valid_pool("shared", Capacity::ManagedNodeGroup, types)
    }
}

/// The node-template resource tags of the node group: resource → count.
fn resources(s: &NodeStrategy) -> BTreeMap<String, String> {
    let ng = node_group(s, &s.pools[0]).expect("a node group");
    ng.tags
        .iter()
        .filter_map(|(k, v)| k.strip_prefix(RESOURCES).map(|r| (r.to_owned(), v.clone())))
        .collect()
}

fn gpus(t: &str) -> i64 {
    i64::from(catalog::instance_type(t).expect("in the catalog").gpu_count)
}

#[test]
fn a_time_sliced_group_advertises_its_replicas_and_carries_the_gpu_label() {
    let s = strategy(
        group(
            &["g5.12xlarge"],
            &[(DEVICE_PLUGIN_CONFIG, "shared"), (GPU_REPLICAS, "4")],
        ),
        "single",
    );
    let r = resources(&s);
    assert_eq!(r.get("nvidia.com/gpu"), Some(&(4 * gpus("g5.12xlarge")).to_string()));
    let ng = node_group(&s, &s.pools[0]).expect("a node group");
    assert_eq!(
        ng.labels.get(ACCELERATOR_LABEL).map(String::as_str),
        Some("nvidia-a10g")
    );
    assert_eq!(
        ng.tags.get(&format!("{LABEL}{ACCELERATOR_LABEL}")).map(String::as_str),
        Some("nvidia-a10g"),
        "the label and its node-template tag"
    );
    // The label is the provider's: reading the group back shows no drift in the pool's labels.
    let back = read_back_node_group(&s, &s.pools[0], &ng, false);
    assert_eq!(back.labels, s.pools[0].labels);
    // Nor on import, whose prior knows no instance type yet.
    let imported = read_back_node_group(&s, &Pool::named("shared", Capacity::ManagedNodeGroup), &ng, true);
    assert!(
        !imported.labels.contains_key(ACCELERATOR_LABEL),
        "{:?}",
        imported.labels
    );
}

#[test]
fn a_renamed_time_sliced_group_advertises_only_the_shared_resource_and_no_gpu_label() {
    let s = strategy(
        group(
            &["g5.12xlarge"],
            &[
                (DEVICE_PLUGIN_CONFIG, "shared"),
                (GPU_REPLICAS, "4"),
                (GPU_RESOURCE, "gpu.shared"),
            ],
        ),
        "single",
    );
    let r = resources(&s);
    assert_eq!(
        r.get("nvidia.com/gpu.shared"),
        Some(&(4 * gpus("g5.12xlarge")).to_string())
    );
    assert!(!r.contains_key("nvidia.com/gpu"), "{r:?}");
    // With the label and no allocatable nvidia.com/gpu the autoscaler would wait forever.
    assert_eq!(accelerator_label(&s, &s.pools[0]), None);
}

#[test]
fn a_mixed_mig_group_advertises_each_profile_and_no_whole_gpu() {
    let t = "p4d.24xlarge";
    let mig = catalog::instance_type(t).and_then(|t| t.mig).expect("a MIG GPU");
    let profile = mig.profile("1g.5gb").expect("the A100 40GB's smallest profile");
    let s = strategy(group(&[t], &[(MIG_CONFIG, "all-1g.5gb")]), "mixed");
    let r = resources(&s);
    assert_eq!(
        r.get("nvidia.com/mig-1g.5gb"),
        Some(&(i64::from(profile.max_instances) * gpus(t)).to_string())
    );
    assert!(!r.contains_key("nvidia.com/gpu"), "{r:?}");
    assert_eq!(accelerator_label(&s, &s.pools[0]), None);
}

#[test]
fn a_single_mig_group_advertises_its_instances_as_gpus() {
    let t = "p4d.24xlarge";
    let mig = catalog::instance_type(t).and_then(|t| t.mig).expect("a MIG GPU");
    let profile = mig.profile("1g.5gb").expect("the A100 40GB's smallest profile");
    let s = strategy(group(&[t], &[(MIG_CONFIG, "all-1g.5gb")]), "single");
    assert_eq!(
        resources(&s).get("nvidia.com/gpu"),
        Some(&(i64::from(profile.max_instances) * gpus(t)).to_string())
    );
}

#[test]
fn a_neuron_group_advertises_devices_and_cores_and_no_gpu_label() {
    let t = catalog::instance_type("trn1.32xlarge").expect("in the catalog");
    let s = strategy(group(&["trn1.32xlarge"], &[]), "single");
    let r = resources(&s);
    assert_eq!(
        r.get("aws.amazon.com/neuron"),
        t.neuron_devices().map(|n| n.to_string()).as_ref()
    );
    assert_eq!(
        r.get("aws.amazon.com/neuroncore"),
        t.neuron_cores().map(|n| n.to_string()).as_ref()
    );
    let ng = node_group(&s, &s.pools[0]).expect("a node group");
    assert!(!ng.labels.contains_key(ACCELERATOR_LABEL));
}

#[test]
fn the_fewest_of_mixed_types_is_advertised_and_a_users_label_wins() {
    let mut p = group(&["g5.12xlarge", "g5.48xlarge"], &[(ACCELERATOR_LABEL, "a10g")]);
    p.labels.insert("team".into(), "ml".into());
    let s = strategy(p, "single");
    assert_eq!(
        resources(&s).get("nvidia.com/gpu"),
        Some(&gpus("g5.12xlarge").min(gpus("g5.48xlarge")).to_string())
    );
    let ng = node_group(&s, &s.pools[0]).expect("a node group");
    assert_eq!(ng.labels[ACCELERATOR_LABEL], "a10g");
}

#[test]
fn a_multi_node_nvlink_group_reads_back_its_autoscaler_label_and_tags_as_the_providers() {
    let p = Pool {
        dra: true,
        multi_node_nvlink: true,
        capacity_types: vec!["capacity-block".into()],
        ..group(&["p6e-gb200.36xlarge"], &[])
    };
    let s = strategy(p, "single");
    let ng = node_group(&s, &s.pools[0]).expect("a node group");
    assert!(
        ng.labels.contains_key(ACCELERATOR_LABEL),
        "the device plugin serves its GPUs"
    );
    let back = read_back_node_group(&s, &s.pools[0], &ng, false);
    assert_eq!(back.labels, s.pools[0].labels);
    assert_eq!(back.tags, s.pools[0].tags);
    // On import the node group cannot say it is multi-node NVLink: its GPUs' label and tags are
    // still the provider's, not the pool's own.
    let imported = read_back_node_group(&s, &Pool::named("shared", Capacity::ManagedNodeGroup), &ng, true);
    assert!(imported.labels.is_empty(), "{:?}", imported.labels);
    assert!(
        !imported
            .tags
            .keys()
            .any(|k| k.starts_with("k8s.io/cluster-autoscaler/")),
        "{:?}",
        imported.tags
    );
}
