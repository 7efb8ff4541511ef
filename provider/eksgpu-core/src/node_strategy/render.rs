//! Renderers: the Kubernetes objects and Helm values a node strategy stands
//! for, computed from the model alone (no cluster contact), so `terraform plan`
//! can show them before anything exists.

mod compute_domain;
pub mod device_plugin;
mod dra_driver;
mod gpu_operator;
mod karpenter;
mod neuron;
mod node_overlay;
pub mod selection;

use std::collections::BTreeMap;

use serde_json::{Value, json};

pub use compute_domain::{
    CLIQUE_LABEL, DEFAULT_COMPUTE_DOMAIN_NAMESPACE, compute_domain_claim_template, compute_domain_namespace,
    compute_domains,
};
pub use device_plugin::device_plugin_values;
pub use dra_driver::{HOST_DRIVER_ROOT, OPERATOR_DRIVER_ROOT, dra_driver_values, driver_pools, driver_root};
pub use gpu_operator::{
    DEFAULT_DEVICE_PLUGIN_CONFIG_MAP, gpu_operator_values, gpu_operator_values_with_config, uses_device_plugin_sharing,
};
pub(crate) use karpenter::bottlerocket_os_volume;
pub use karpenter::{
    DEFAULT_AMI_ALIAS, DISCOVERY_TAG, KARPENTER_DEFAULT_VOLUME_SIZE, efa_interfaces, node_class_name,
    node_class_ref_name,
};
pub use neuron::neuron_values;
pub use node_overlay::{overlay_capacity, overlay_name, renders_overlays, shared_count};
pub use selection::AUTO_MODE_INSTANCE_FAMILY;

use crate::catalog::MigLayout;
use crate::kinds::{self, Kind};
use crate::model::{Capacity, NodeStrategy, Pool, Taint};

/// One object to apply: its kind and name, and the full body to send.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    pub kind: Kind,
    pub name: String,
    pub namespace: Option<String>,
    pub body: Value,
}

/// The GPU Operator labels that switch one component off on a node.
pub const DEPLOY_DEVICE_PLUGIN: &str = "nvidia.com/gpu.deploy.device-plugin";
pub const DEPLOY_DRIVER: &str = "nvidia.com/gpu.deploy.driver";
pub const DEPLOY_TOOLKIT: &str = "nvidia.com/gpu.deploy.container-toolkit";
pub const MIG_CONFIG: &str = "nvidia.com/mig.config";
pub const DEVICE_PLUGIN_CONFIG: &str = "nvidia.com/device-plugin.config";

/// Node labels of a pool: the user's, plus what the GPU stack needs.
/// On Auto Mode the AWS-managed device plugin serves GPUs, so the GPU
/// Operator's own plugin must stay off (EKSGPU010); where the operator installs
/// drivers (hybrid pools present) the NVIDIA AMIs' preinstalled ones must win.
pub fn effective_labels(strategy: &NodeStrategy, pool: &Pool) -> BTreeMap<String, String> {
    let mut labels = pool.labels.clone();
    // Neuron nodes carry no NVIDIA device: the GPU Operator's labels mean nothing there
    // (its operands land only on nodes NFD finds NVIDIA PCI devices on).
    if pool.is_neuron() {
        return labels;
    }
    // A node group's GPU nodes carry the Cluster Autoscaler's GPU label from boot, so the
    // autoscaler waits for their GPUs instead of launching more nodes (`eks::autoscaler`).
    if pool.capacity == Capacity::ManagedNodeGroup
        && let Some(gpu) = crate::eks::autoscaler::accelerator_label(strategy, pool)
    {
        labels
            .entry(crate::eks::autoscaler::ACCELERATOR_LABEL.to_owned())
            .or_insert(gpu);
    }
    let mut default = |k: &str| {
        labels.entry(k.to_owned()).or_insert_with(|| "false".to_owned());
    };
    // A DRA pool is served by the NVIDIA DRA driver, never the device plugin (EKSGPU017): the
    // label is rendered with or without this strategy's `gpu_operator`, since an operator
    // installed by other means reads it too (gpu-operator v26.7.0: a pre-set "false" wins).
    if pool.dra_serves_gpus() {
        default(DEPLOY_DEVICE_PLUGIN);
    }
    // Bottlerocket's NVIDIA variants run their own device plugin (EKS user guide, "Use
    // Bottlerocket with NVIDIA GPUs"; bottlerocket.dev settings.kubelet-device-plugins, v1.54):
    // a second one from the operator would fight it for `nvidia.com/gpu`.
    if pool.bottlerocket() {
        default(DEPLOY_DEVICE_PLUGIN);
    }
    if strategy.gpu_operator.is_some() {
        if pool.capacity == Capacity::AutoMode {
            default(DEPLOY_DEVICE_PLUGIN);
        }
        if gpu_operator::installs_driver(strategy) && pool.capacity != Capacity::Hybrid {
            default(DEPLOY_DRIVER);
            default(DEPLOY_TOOLKIT);
        }
    }
    labels
}

/// Taints of a pool: the user's, plus the vendor's default taint unless one on its key is given
/// or the pool opts out.
pub fn effective_taints(pool: &Pool) -> Vec<Taint> {
    let mut taints = pool.taints.clone();
    let default = pool.default_taint();
    if pool.gpu_taint && !taints.iter().any(|t| t.key == default.key) {
        taints.insert(0, default);
    }
    taints
}

/// The in-cluster objects of one pool, in apply order (node classes first, the NodePool, then
/// the NodeOverlays that tell Karpenter what its nodes advertise).
/// Managed node groups and hybrid pools live on the AWS side and render none.
pub fn pool_manifests(strategy: &NodeStrategy, pool: &Pool) -> Vec<Manifest> {
    match pool.capacity {
        Capacity::Karpenter => {
            // A pool that uses another pool's or tool's EC2NodeClass (`node_class_ref`) writes none.
            let mut out = Vec::new();
            if pool.node_class.is_some() || pool.node_class_ref.is_none() {
                out.push(karpenter::ec2_node_class(strategy, pool));
            }
            out.push(karpenter::node_pool(strategy, pool));
            out.extend(node_overlay::node_overlays(strategy, pool));
            out
        }
        Capacity::AutoMode => {
            let mut out = Vec::new();
            if pool.node_class.is_some() {
                out.push(karpenter::auto_mode_node_class(strategy, pool));
            }
            out.push(karpenter::node_pool(strategy, pool));
            out
        }
        Capacity::ManagedNodeGroup | Capacity::Hybrid => Vec::new(),
    }
}

/// What a pod needs to land on the pool: `node_selector`.
pub fn node_selector(strategy: &NodeStrategy, pool: &Pool) -> BTreeMap<String, String> {
    let (k, v) = match pool.capacity {
        Capacity::AutoMode | Capacity::Karpenter => ("karpenter.sh/nodepool", pool.name.clone()),
        Capacity::ManagedNodeGroup => (
            "eks.amazonaws.com/nodegroup",
            crate::eks::node_group_name(strategy, pool),
        ),
        Capacity::Hybrid => ("eks.amazonaws.com/compute-type", "hybrid".to_owned()),
    };
    BTreeMap::from([(k.to_owned(), v)])
}

/// A toleration for each taint of the pool, as a pod spec writes it.
pub fn tolerations(pool: &Pool) -> Vec<BTreeMap<&'static str, String>> {
    effective_taints(pool)
        .into_iter()
        .map(|t| {
            let mut m = BTreeMap::from([("key", t.key), ("effect", t.effect)]);
            match t.value {
                Some(v) => {
                    m.insert("operator", "Equal".to_owned());
                    m.insert("value", v);
                }
                None => {
                    m.insert("operator", "Exists".to_owned());
                }
            }
            m
        })
        .collect()
}

/// The extended resource a container requests to get a GPU (or a Neuron device) of this pool;
/// `None` for DRA pools, whose devices are claimed through ResourceClaims (a `multi_node_nvlink`
/// pool's GPUs stay the device plugin's; only its IMEX channel is claimed).
pub fn gpu_resource_name(strategy: &NodeStrategy, pool: &Pool) -> Option<String> {
    if pool.dra_serves_gpus() {
        return None;
    }
    // Neuron pools: whole devices, as the Neuron device plugin and Karpenter name them.
    if pool.is_neuron() {
        return Some(crate::catalog::NEURON_DEVICE_RESOURCE.to_owned());
    }
    let mixed = strategy.mig_strategy() == Some("mixed");
    match pool.labels.get(MIG_CONFIG).map(|c| MigLayout::parse(c)) {
        // Under `mixed`, each profile is its own resource, written with '.' for '+'
        // (`nvidia.com/mig-1g.18gb.me`; k8s-device-plugin v0.20.0 internal/rm/rm.go).
        Some(MigLayout::All(profile)) if mixed => Some(profile.resource_name()),
        // A renamed time-slicing / MPS config advertises `nvidia.com/gpu.shared` instead of
        // `nvidia.com/gpu` (NVIDIA k8s-device-plugin v0.20.0 README, `renameByDefault`), as the
        // sharing pool's `resource_requests` says.
        _ if pool.labels.contains_key(DEVICE_PLUGIN_CONFIG)
            && pool
                .labels
                .get(crate::sharing::handover::GPU_RESOURCE)
                .map(String::as_str)
                == Some("gpu.shared") =>
        {
            Some("nvidia.com/gpu.shared".to_owned())
        }
        _ => Some("nvidia.com/gpu".to_owned()),
    }
}

/// Standard metadata of every object the strategy owns.
fn metadata(strategy: &NodeStrategy, name: &str) -> Value {
    json!({
        "name": name,
        "labels": {
            kinds::labels::MANAGED_BY: kinds::labels::MANAGED_BY_VALUE,
            kinds::labels::STRATEGY: strategy.name,
            kinds::labels::CLUSTER: kinds::labels::cluster_value(&strategy.cluster_name),
        },
    })
}

fn string_map(m: &BTreeMap<String, String>) -> Value {
    Value::Object(m.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect())
}

#[cfg(test)]
mod tests;
