//! Cluster Autoscaler tags on a managed node group, so the autoscaler finds the group and can
//! scale it up from zero nodes (when no node shows it the labels, taints and resources a new
//! node would have). Keys and values as kubernetes/autoscaler cluster-autoscaler-1.33.0
//! `cluster-autoscaler/cloudprovider/aws/README.md` documents them ("Auto-Discovery Setup",
//! "Scaling a node group to 0"); for an EKS managed node group the autoscaler reads the node
//! group's own tags with `eks:DescribeNodegroup` (`cloudprovider/aws/managed_nodegroup_cache.go`,
//! `getManagedNodegroupTags`).

use std::collections::BTreeMap;

use crate::catalog::{self, MigLayout, Vendor};
use crate::model::{NodeStrategy, Pool, Taint};
use crate::render::{MIG_CONFIG, overlay_capacity};
use crate::sharing::handover::GPU_RESOURCE;

/// The device plugin's GPU resource (NVIDIA k8s-device-plugin).
const GPU: &str = "nvidia.com/gpu";

/// `--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/<cluster>`.
pub const ENABLED: &str = "k8s.io/cluster-autoscaler/enabled";
const PREFIX: &str = "k8s.io/cluster-autoscaler/";
const LABEL: &str = "k8s.io/cluster-autoscaler/node-template/label/";
const TAINT: &str = "k8s.io/cluster-autoscaler/node-template/taint/";
const RESOURCES: &str = "k8s.io/cluster-autoscaler/node-template/resources/";

/// The EFA device plugin's resource (aws-efa-k8s-device-plugin, EKS user guide, Manage EFA devices).
pub const EFA_RESOURCE: &str = "vpc.amazonaws.com/efa";

/// The autoscaler's tags of a node group with these labels and taints: discovery, then one
/// node-template tag per label, taint and extended resource.
pub fn autoscaler_tags(
    strategy: &NodeStrategy,
    pool: &Pool,
    labels: &BTreeMap<String, String>,
    taints: &[Taint],
) -> BTreeMap<String, String> {
    let mut t = BTreeMap::from([
        (ENABLED.to_owned(), "true".to_owned()),
        (format!("{PREFIX}{}", strategy.cluster_name), "owned".to_owned()),
    ]);
    for (k, v) in labels {
        t.insert(format!("{LABEL}{k}"), v.clone());
    }
    // `<value>:<effect>`, the value empty for a taint without one (README, taint tags).
    for taint in taints {
        t.insert(
            format!("{TAINT}{}", taint.key),
            format!("{}:{}", taint.value.as_deref().unwrap_or(""), taint.effect),
        );
    }
    for (name, count) in resources(strategy, pool) {
        t.insert(format!("{RESOURCES}{name}"), count.to_string());
    }
    t
}

/// Extended resources a node of the pool advertises, the fewest of its types (the autoscaler
/// plans one template node per group from these tags when the group has no node, README
/// "Scaling a node group to 0"): see [`advertised`]. A resource some type lacks is left out.
fn resources(strategy: &NodeStrategy, pool: &Pool) -> BTreeMap<String, i64> {
    let per_type: Vec<BTreeMap<String, i64>> = pool
        .instance_types
        .iter()
        .filter_map(|t| catalog::instance_type(t))
        .map(|t| advertised(strategy, pool, t))
        .collect();
    let Some((first, rest)) = per_type.split_first() else {
        return BTreeMap::new();
    };
    first
        .iter()
        .filter_map(|(name, n)| {
            let fewest = rest
                .iter()
                .try_fold(*n, |m, other| other.get(name).map(|o| m.min(*o)))?;
            Some((name.clone(), fewest))
        })
        .filter(|(_, n)| *n > 0)
        .collect()
}

/// What one node of the pool on type `t` advertises, as its device plugins do:
/// - NVIDIA: `nvidia.com/gpu` per GPU (a fractional GPU is one), replaced by what the sharing
///   config makes of it — the same figures a Karpenter pool's NodeOverlay states
///   ([`overlay_capacity`]): time-slicing / MPS replicas × GPUs, under `nvidia.com/gpu.shared`
///   and with no `nvidia.com/gpu` when renamed (k8s-device-plugin v0.20.0 README,
///   "renameByDefault"); MIG `mixed` one `nvidia.com/mig-<profile>` per profile and no
///   `nvidia.com/gpu`; MIG `single` its instances as `nvidia.com/gpu` (k8s-device-plugin v0.20.0
///   README, "MIG strategies"); HAMi its split count, memory and cores.
/// - Neuron: `aws.amazon.com/neuron` per device and `aws.amazon.com/neuroncore` per core (the
///   Neuron device plugin advertises both: awsdocs-neuron, "Neuron device plugin").
/// - Nothing on a pool whose devices the DRA driver serves (claims, not extended resources).
/// - `vpc.amazonaws.com/efa` per EFA interface on an EFA pool.
pub fn advertised(strategy: &NodeStrategy, pool: &Pool, t: &catalog::InstanceType) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    if !pool.dra_serves_gpus() {
        match pool.vendor() {
            Vendor::Neuron => {
                if let Some(n) = t.neuron_devices() {
                    out.insert(Vendor::Neuron.device_resource().to_owned(), i64::from(n));
                }
                if let Some(c) = t.neuron_cores() {
                    out.insert(catalog::NEURON_CORE_RESOURCE.to_owned(), i64::from(c));
                }
            }
            Vendor::Nvidia => {
                let gpus = if t.fractional { 1 } else { i64::from(t.gpu_count) };
                out.insert(GPU.to_owned(), gpus);
                let sharing = overlay_capacity(strategy, pool, t);
                let label = |k: &str| pool.labels.get(k).map(String::as_str);
                let replaced =
                    label(GPU_RESOURCE).is_some() || sharing.keys().any(|k| k.starts_with("nvidia.com/mig-"));
                if replaced {
                    out.remove(GPU);
                }
                out.extend(sharing);
                if strategy.mig_strategy() == Some("single")
                    && let Some(config) = label(MIG_CONFIG)
                    && let (MigLayout::All(p), Some(mig)) = (MigLayout::parse(config), t.mig)
                    && let Some(m) = mig.profile(&p.to_string())
                {
                    out.insert(GPU.to_owned(), i64::from(m.max_instances).saturating_mul(gpus));
                }
            }
        }
    }
    if pool.efa
        && let Some(n) = t.efa_interfaces.filter(|n| *n > 0)
    {
        out.insert(EFA_RESOURCE.to_owned(), i64::from(n));
    }
    out
}

/// The Cluster Autoscaler's GPU label (README, "Special note on GPU instances", since
/// autoscaler 1.15): on a node that has it, the autoscaler waits for `nvidia.com/gpu` to become
/// allocatable instead of launching another node while the device plugin starts.
pub const ACCELERATOR_LABEL: &str = "k8s.amazonaws.com/accelerator";

/// The accelerator label's value for a node group pool, or `None` where the label must not be:
/// only on NVIDIA nodes whose device plugin advertises `nvidia.com/gpu`. A node with the label
/// and no allocatable `nvidia.com/gpu` counts as unready forever (cluster-autoscaler-1.33.0
/// `processors/customresources/gpu_processor.go`, `FilterOutNodesWithUnreadyResources`), so
/// Neuron, DRA, renamed-sharing and MIG `mixed` groups go without. The value names the GPU
/// (`nvidia-<model>`, as the README's `nvidia-tesla-k80`); the autoscaler reads only its presence.
pub fn accelerator_label(strategy: &NodeStrategy, pool: &Pool) -> Option<String> {
    let first = pool.instance_types.iter().find_map(|t| catalog::instance_type(t))?;
    let gpus = resources(strategy, pool);
    (pool.vendor() == Vendor::Nvidia && gpus.get(GPU).is_some_and(|n| *n > 0))
        .then(|| format!("nvidia-{}", first.gpu_model.to_ascii_lowercase().replace(' ', "-")))
}

/// Whether a tag key is one of the autoscaler's (`k8s.io/cluster-autoscaler/…`).
pub fn is_autoscaler_tag(key: &str) -> bool {
    key.starts_with(PREFIX)
}
