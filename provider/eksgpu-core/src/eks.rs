//! The AWS side of a node strategy — managed node groups and Hybrid Nodes — as
//! the EKS API state the provider asks for (EKS API CreateNodegroup, UpdateClusterConfig). Pure data: the
//! cloud adapter sends it, plans show it, refresh compares against it.

pub mod autoscaler;
pub mod cidr;
pub mod launch_template;
mod node_group;
mod status;
pub mod user_data;

use std::collections::BTreeMap;

pub use status::{ClusterStatus, NodeGroupStatus};

use serde_json::{Value, json};

pub use node_group::{
    DEFAULT_DISK_SIZE_GIB, NEURON_AMI_TYPE, NodeGroup, NodeGroupUpdate, Replacement, default_ami_type, node_group,
    node_group_name, read_back_node_group,
};

use crate::kinds::labels;
use crate::model::{Capacity, DevicePlugin, GpuOperator, NodeStrategy, Pool, StackBlocks};

/// Tags on every node group and access entry the provider creates, so an
/// operator (and `terraform import`) can find them. AWS tag values allow no
/// JSON, hence one tag per fact.
pub mod tags {
    pub use crate::kinds::labels::{CLUSTER, MANAGED_BY, MANAGED_BY_VALUE, STRATEGY};
    pub const POOL: &str = "eksgpu.terraform.io/pool";
    pub const DRA: &str = "eksgpu.terraform.io/dra";
    /// `mig_strategy=<s> dcgm_exporter=<b> service_monitor=<b>`, or absent.
    pub const GPU_OPERATOR: &str = "eksgpu.terraform.io/gpu-operator";
    /// `mig_strategy=<s>`, or absent.
    pub const DEVICE_PLUGIN: &str = "eksgpu.terraform.io/device-plugin";
    /// On the cluster: the strategy whose hybrid pool set its remote networks.
    pub const REMOTE_NETWORKS: &str = "eksgpu.terraform.io/remote-networks";
    /// On the cluster: the `owner_token` of the strategy instance that set them (see
    /// `kinds::labels::OWNER_TOKEN`): a replaced instance's destroy leaves its successor's networks.
    pub const REMOTE_NETWORKS_TOKEN: &str = "eksgpu.terraform.io/remote-networks-owner-token";
}

/// Whether a tag key is one of the provider's identifying tags (`app.kubernetes.io/managed-by`,
/// `eksgpu.terraform.io/…`), which users cannot set (EKSGPU125).
pub fn is_provider_tag(key: &str) -> bool {
    key == tags::MANAGED_BY || key.starts_with("eksgpu.terraform.io/")
}

/// The tags of a strategy's pool: the provider's `default_tags`, the pool's
/// `tags` over them, and the identifying tags over both.
pub fn pool_tags(strategy: &NodeStrategy, pool: &Pool) -> BTreeMap<String, String> {
    let mut t = strategy.default_tags.clone();
    t.extend(pool.tags.clone());
    t.extend([
        (tags::MANAGED_BY.to_owned(), tags::MANAGED_BY_VALUE.to_owned()),
        (tags::STRATEGY.to_owned(), strategy.name.clone()),
        (tags::CLUSTER.to_owned(), strategy.cluster_name.clone()),
        (tags::POOL.to_owned(), pool.name.clone()),
        (tags::DRA.to_owned(), pool.dra.to_string()),
    ]);
    if let Some(op) = &strategy.gpu_operator {
        t.insert(
            tags::GPU_OPERATOR.to_owned(),
            format!(
                "mig_strategy={} dcgm_exporter={} service_monitor={}",
                op.mig_strategy, op.dcgm_exporter, op.service_monitor
            ),
        );
    }
    if let Some(dp) = &strategy.device_plugin {
        t.insert(
            tags::DEVICE_PLUGIN.to_owned(),
            format!("mig_strategy={}", dp.mig_strategy),
        );
    }
    t
}

/// The pool's own `tags` among a live object's: not the provider's identifying tags, nor a
/// default tag with its default value, unless the prior pool set that key itself.
pub fn user_tags(
    strategy: &NodeStrategy,
    prior: &BTreeMap<String, String>,
    live: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    live.iter()
        .filter(|(k, v)| prior.contains_key(*k) || !(is_provider_tag(k) || strategy.default_tags.get(*k) == Some(*v)))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The `gpu_operator` settings recorded in a tag by [`pool_tags`].
pub fn gpu_operator_from_tag(tag: &str) -> Option<GpuOperator> {
    let fields: BTreeMap<&str, &str> = tag.split(' ').filter_map(|kv| kv.split_once('=')).collect();
    Some(GpuOperator {
        mig_strategy: (*fields.get("mig_strategy")?).to_owned(),
        dcgm_exporter: fields.get("dcgm_exporter")?.parse().ok()?,
        service_monitor: fields.get("service_monitor")?.parse().ok()?,
    })
}

/// The `device_plugin` settings recorded in a tag by [`pool_tags`].
pub fn device_plugin_from_tag(tag: &str) -> Option<DevicePlugin> {
    let fields: BTreeMap<&str, &str> = tag.split(' ').filter_map(|kv| kv.split_once('=')).collect();
    Some(DevicePlugin {
        mig_strategy: (*fields.get("mig_strategy")?).to_owned(),
    })
}

/// The strategy's GPU stack blocks recorded in an object's tags.
pub fn stack_blocks_from_tags(t: &BTreeMap<String, String>) -> StackBlocks {
    StackBlocks {
        gpu_operator: t.get(tags::GPU_OPERATOR).and_then(|v| gpu_operator_from_tag(v)),
        device_plugin: t.get(tags::DEVICE_PLUGIN).and_then(|v| device_plugin_from_tag(v)),
    }
}

/// Whether tags mark an object of strategy `name` on cluster `cluster`.
pub fn tagged_for(t: &BTreeMap<String, String>, cluster: &str, name: &str) -> bool {
    t.get(labels::MANAGED_BY).map(String::as_str) == Some(labels::MANAGED_BY_VALUE)
        && t.get(labels::STRATEGY).map(String::as_str) == Some(name)
        && t.get(labels::CLUSTER).map(String::as_str) == Some(cluster)
}

/// Kubernetes taint effect → EKS API spelling.
pub fn eks_effect(k8s: &str) -> Option<&'static str> {
    match k8s {
        "NoSchedule" => Some("NO_SCHEDULE"),
        "NoExecute" => Some("NO_EXECUTE"),
        "PreferNoSchedule" => Some("PREFER_NO_SCHEDULE"),
        _ => None,
    }
}

/// EKS API taint effect → Kubernetes spelling.
pub fn k8s_effect(eks: &str) -> Option<&'static str> {
    match eks {
        "NO_SCHEDULE" => Some("NoSchedule"),
        "NO_EXECUTE" => Some("NoExecute"),
        "PREFER_NO_SCHEDULE" => Some("PreferNoSchedule"),
        _ => None,
    }
}

/// Access entry type of Hybrid Nodes' IAM role.
pub const HYBRID_ACCESS_ENTRY_TYPE: &str = "HYBRID_LINUX";

/// The EKS requests of a pool as plans show them: `CreateNodegroup`
/// for a managed node group, `UpdateClusterConfig` and `CreateAccessEntry` for
/// a hybrid pool, nothing for in-cluster pools.
pub fn aws_requests(strategy: &NodeStrategy, pool: &Pool) -> Vec<Value> {
    match pool.capacity {
        // The launch template first: the node group names it.
        // The placement group first, the launch template (which names it) next, then the node group.
        Capacity::ManagedNodeGroup => node_group(strategy, pool)
            .map(|ng| {
                let pg = ng
                    .placement_group
                    .as_ref()
                    .map(launch_template::PlacementGroup::create_request);
                let lt = ng
                    .launch_template
                    .as_ref()
                    .map(launch_template::LaunchTemplate::create_request);
                pg.into_iter()
                    .chain(lt)
                    .chain([ng.create_request(&strategy.cluster_name)])
                    .collect()
            })
            .unwrap_or_default(),
        Capacity::Hybrid => hybrid_requests(strategy, pool),
        Capacity::AutoMode | Capacity::Karpenter => Vec::new(),
    }
}

/// The `UpdateClusterConfig` and `CreateAccessEntry` requests of a hybrid pool, for plans.
pub fn hybrid_requests(strategy: &NodeStrategy, pool: &Pool) -> Vec<Value> {
    let Some(h) = &pool.hybrid else {
        return Vec::new();
    };
    let networks = |cidrs: &[String]| {
        if cidrs.is_empty() {
            json!([])
        } else {
            json!([{"cidrs": cidrs}])
        }
    };
    vec![
        json!({"UpdateClusterConfig": {
            "name": strategy.cluster_name,
            "remoteNetworkConfig": {
                "remoteNodeNetworks": networks(&h.remote_node_networks),
                "remotePodNetworks": networks(&h.remote_pod_networks),
            },
        }}),
        json!({"CreateAccessEntry": {
            "clusterName": strategy.cluster_name,
            "principalArn": h.node_role_arn,
            "type": HYBRID_ACCESS_ENTRY_TYPE,
            "tags": pool_tags(strategy, pool),
        }}),
    ]
}

/// Facts about an existing cluster (`DescribeCluster`, `DescribeVpcs`), for
/// `data.eksgpu_cluster` and the checks made at apply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClusterFacts {
    pub name: String,
    pub arn: Option<String>,
    pub status: Option<ClusterStatus>,
    pub version: Option<String>,
    pub endpoint: Option<String>,
    /// Base64 of the PEM CA bundle.
    pub certificate_authority: Option<String>,
    pub auto_mode: AutoModeFlags,
    pub remote_node_networks: Vec<String>,
    pub remote_pod_networks: Vec<String>,
    pub vpc_id: Option<String>,
    pub subnet_ids: Vec<String>,
    /// Filled from `ec2:DescribeVpcs` when asked for.
    pub vpc_cidrs: Vec<String>,
    pub service_cidr: Option<String>,
    /// The cluster's tags (`eks::tags::REMOTE_NETWORKS` says which strategy set its remote networks).
    pub tags: BTreeMap<String, String>,
}

/// Auto Mode's three capability flags (`None`: not reported).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AutoModeFlags {
    pub compute: Option<bool>,
    pub block_storage: Option<bool>,
    pub load_balancing: Option<bool>,
}

impl AutoModeFlags {
    /// Auto Mode is on only when all three capabilities are.
    pub fn enabled(self) -> bool {
        self.compute == Some(true) && self.block_storage == Some(true) && self.load_balancing == Some(true)
    }

    /// EKS requires the three to be equal (EKSGPU018).
    pub fn consistent(self) -> bool {
        let v = [self.compute, self.block_storage, self.load_balancing].map(|f| f.unwrap_or(false));
        v.iter().all(|x| *x == v[0])
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod autoscaler_tests;
#[cfg(test)]
mod launch_template_tests;
