//! Cluster Autoscaler tags on a managed node group, so the autoscaler finds the group and can
//! scale it up from zero nodes (when no node shows it the labels, taints and resources a new
//! node would have). Keys and values as kubernetes/autoscaler cluster-autoscaler-1.33.0
//! `cluster-autoscaler/cloudprovider/aws/README.md` documents them ("Auto-Discovery Setup",
//! "Scaling a node group to 0"); for an EKS managed node group the autoscaler reads the node
//! group's own tags with `eks:DescribeNodegroup` (`cloudprovider/aws/managed_nodegroup_cache.go`,
//! `getManagedNodegroupTags`).

use std::collections::BTreeMap;

use crate::catalog::{self, Vendor};
use crate::model::{NodeStrategy, Pool, Taint};

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
    for (name, count) in resources(pool) {
        t.insert(format!("{RESOURCES}{name}"), count.to_string());
    }
    t
}

/// Extended resources a node of the pool advertises, the fewest of its types (the autoscaler
/// plans one template node per group): the device plugin's GPUs or Neuron devices (not on DRA
/// pools, whose devices are claims, not resources) and the EFA interfaces of an EFA pool.
fn resources(pool: &Pool) -> Vec<(&'static str, u32)> {
    let types: Vec<&catalog::InstanceType> = pool
        .instance_types
        .iter()
        .filter_map(|t| catalog::instance_type(t))
        .collect();
    let mut out = Vec::new();
    if !pool.dra {
        let vendor = pool.vendor();
        let devices = types
            .iter()
            .map(|t| match vendor {
                Vendor::Neuron => t.neuron_devices().unwrap_or(0),
                Vendor::Nvidia => t.gpu_count,
            })
            .min();
        if let Some(n) = devices.filter(|n| *n > 0) {
            out.push((vendor.device_resource(), n));
        }
    }
    if pool.efa
        && let Some(n) = types.iter().filter_map(|t| t.efa_interfaces).min().filter(|n| *n > 0)
    {
        out.push((EFA_RESOURCE, n));
    }
    out
}

/// Whether a tag key is one of the autoscaler's (`k8s.io/cluster-autoscaler/…`).
pub fn is_autoscaler_tag(key: &str) -> bool {
    key.starts_with(PREFIX)
}
