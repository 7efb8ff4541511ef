//! Managed node groups: the state asked of EKS, the in-place update that gets
//! a live node group there (or the fields that force a new one), and reading a
//! live node group back into a pool.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{eks_effect, pool_tags};
use crate::catalog::{self, Arch};
use crate::model::{Capacity, NodeStrategy, Pool, Scaling, Taint};
use crate::readback::{split_gpu_taint, user_labels};
use crate::render::{effective_labels, effective_taints};

/// A node group as the provider wants it (or, read back, as it is).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeGroup {
    /// `<cluster>-<pool>`.
    pub name: String,
    pub ami_type: String,
    /// `ON_DEMAND` or `SPOT`.
    pub capacity_type: String,
    pub instance_types: Vec<String>,
    pub labels: BTreeMap<String, String>,
    /// Kubernetes spelling; the adapter maps effects to the EKS API's.
    pub taints: Vec<Taint>,
    pub scaling: Scaling,
    pub max_unavailable: Option<i64>,
    pub max_unavailable_percentage: Option<i64>,
    /// `None`: EKS picks (create), or not reported (live).
    pub release_version: Option<String>,
    /// GiB; `None`: EKS's default (create), or not reported (live).
    pub disk_size: Option<i64>,
    /// `nodeRepairConfig.enabled`; `None`: not sent (create), or not reported (live).
    pub node_repair: Option<bool>,
    pub subnet_ids: Vec<String>,
    pub node_role_arn: String,
    pub tags: BTreeMap<String, String>,
    /// Live only: the node group's ARN (what `TagResource` takes).
    pub arn: Option<String>,
    /// Live only: `CREATING`, `ACTIVE`, ….
    pub status: Option<super::NodeGroupStatus>,
    /// Live only: what EKS reports wrong with the node group.
    pub health_issues: Vec<String>,
}

/// EKS's disk size of a node group without a launch template, GiB (EKS API CreateNodegroup
/// `diskSize`: 20 GiB for Linux and Bottlerocket).
pub const DEFAULT_DISK_SIZE_GIB: i64 = 20;

/// The AL2023 NVIDIA AMI for the pool's architecture: it carries the driver
/// and container toolkit (EKS user guide, accelerated AMIs).
pub fn default_ami_type(pool: &Pool) -> &'static str {
    let arm = pool
        .instance_types
        .iter()
        .filter_map(|t| catalog::instance_type(t))
        .any(|t| t.architecture == Arch::Arm64);
    if arm {
        "AL2023_ARM_64_NVIDIA"
    } else {
        "AL2023_x86_64_NVIDIA"
    }
}

/// `<cluster>-<pool>`: the node group of a pool.
pub fn node_group_name(strategy: &NodeStrategy, pool: &Pool) -> String {
    format!("{}-{}", strategy.cluster_name, pool.name)
}

/// The node group of pool number `index`, or `None` if it is not a complete managed node group pool.
pub fn node_group(strategy: &NodeStrategy, index: usize, pool: &Pool) -> Option<NodeGroup> {
    let m = pool
        .managed_node_group
        .as_ref()
        .filter(|_| pool.capacity == Capacity::ManagedNodeGroup)?;
    Some(NodeGroup {
        name: node_group_name(strategy, pool),
        ami_type: m.ami_type.clone().unwrap_or_else(|| default_ami_type(pool).to_owned()),
        capacity_type: if pool.capacity_types.iter().any(|c| c == "spot") {
            "SPOT".to_owned()
        } else {
            "ON_DEMAND".to_owned()
        },
        instance_types: pool.instance_types.clone(),
        labels: effective_labels(strategy, pool),
        taints: effective_taints(pool),
        scaling: m.scaling,
        max_unavailable: m.max_unavailable,
        max_unavailable_percentage: m.max_unavailable_percentage,
        release_version: m.release_version.clone(),
        disk_size: m.disk_size,
        node_repair: m.node_repair,
        subnet_ids: m.subnet_ids.clone(),
        node_role_arn: m.node_role_arn.clone(),
        tags: pool_tags(strategy, index, pool),
        arn: None,
        status: None,
        health_issues: Vec::new(),
    })
}

/// Fields of a node group EKS cannot change in place: a change means a new node group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    pub fields: Vec<&'static str>,
}

/// An `UpdateNodegroupConfig` request. Scaling keeps the live desired size
/// (autoscalers own it) clamped into the new bounds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeGroupUpdate {
    pub labels_add: BTreeMap<String, String>,
    pub labels_remove: Vec<String>,
    pub taints_add: Vec<Taint>,
    pub taints_remove: Vec<Taint>,
    pub scaling: Option<Scaling>,
    pub max_unavailable: Option<i64>,
    pub max_unavailable_percentage: Option<i64>,
    pub node_repair: Option<bool>,
    /// An `UpdateNodegroupVersion` to this release, apart from the config update.
    pub release_version: Option<String>,
    /// `TagResource` / `UntagResource` on the node group (tags are not node group config).
    pub tags_add: BTreeMap<String, String>,
    pub tags_remove: Vec<String>,
}

impl NodeGroupUpdate {
    /// Whether an `UpdateNodegroupConfig` is needed (a release change alone is an `UpdateNodegroupVersion`).
    pub fn changes_config(&self) -> bool {
        NodeGroupUpdate {
            release_version: None,
            tags_add: BTreeMap::new(),
            tags_remove: Vec::new(),
            ..self.clone()
        } != NodeGroupUpdate::default()
    }
}

impl NodeGroup {
    /// The `CreateNodegroup` request, as plans show it.
    pub fn create_request(&self, cluster: &str) -> Value {
        let mut body = json!({
            "clusterName": cluster,
            "nodegroupName": self.name,
            "amiType": self.ami_type,
            "capacityType": self.capacity_type,
            "instanceTypes": self.instance_types,
            "labels": self.labels,
            "taints": self.taints.iter().map(|t| json!({
                "key": t.key,
                "value": t.value,
                "effect": eks_effect(&t.effect).unwrap_or(&t.effect),
            })).collect::<Vec<_>>(),
            "scalingConfig": {
                "minSize": self.scaling.min,
                "maxSize": self.scaling.max,
                "desiredSize": self.scaling.desired,
            },
            "subnets": self.subnet_ids,
            "nodeRole": self.node_role_arn,
            "tags": self.tags,
        });
        if let Some(n) = self.max_unavailable {
            body["updateConfig"] = json!({"maxUnavailable": n});
        } else if let Some(p) = self.max_unavailable_percentage {
            body["updateConfig"] = json!({"maxUnavailablePercentage": p});
        }
        if let Some(v) = &self.release_version {
            body["releaseVersion"] = json!(v);
        }
        if let Some(d) = self.disk_size {
            body["diskSize"] = json!(d);
        }
        if let Some(r) = self.node_repair {
            body["nodeRepairConfig"] = json!({"enabled": r});
        }
        json!({ "CreateNodegroup": body })
    }

    /// What differs from `live` that only a new node group can change.
    pub fn replacement(&self, live: &NodeGroup) -> Option<Replacement> {
        let mut fields = Vec::new();
        if self.ami_type != live.ami_type {
            fields.push("ami_type");
        }
        if self.capacity_type != live.capacity_type {
            fields.push("capacity_types");
        }
        if self.instance_types != live.instance_types {
            fields.push("instance_types");
        }
        if self.subnet_ids != live.subnet_ids {
            fields.push("subnet_ids");
        }
        if self.node_role_arn != live.node_role_arn {
            fields.push("node_role_arn");
        }
        // EKS sets the disk size at creation only (CreateNodegroup diskSize; UpdateNodegroupConfig has none).
        // A node group made without one has EKS's default, so setting it later replaces the node group too.
        if let Some(want) = self.disk_size
            && want != live.disk_size.unwrap_or(DEFAULT_DISK_SIZE_GIB)
        {
            fields.push("disk_size");
        }
        (!fields.is_empty()).then_some(Replacement { fields })
    }

    /// The in-place update from `live` to this, or `None` when nothing differs.
    pub fn update(&self, live: &NodeGroup) -> Option<NodeGroupUpdate> {
        let mut u = NodeGroupUpdate {
            labels_add: self
                .labels
                .iter()
                .filter(|(k, v)| live.labels.get(*k) != Some(*v))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            labels_remove: live
                .labels
                .keys()
                .filter(|k| !self.labels.contains_key(*k))
                .cloned()
                .collect(),
            // EKS updates a taint with the same key in place; remove only keys no longer wanted.
            taints_add: self
                .taints
                .iter()
                .filter(|t| !live.taints.contains(t))
                .cloned()
                .collect(),
            taints_remove: live
                .taints
                .iter()
                .filter(|t| !self.taints.iter().any(|d| d.key == t.key))
                .cloned()
                .collect(),
            ..NodeGroupUpdate::default()
        };
        if (self.scaling.min, self.scaling.max) != (live.scaling.min, live.scaling.max) {
            u.scaling = Some(Scaling {
                desired: live
                    .scaling
                    .desired
                    .clamp(self.scaling.min, self.scaling.max.max(self.scaling.min)),
                ..self.scaling
            });
        }
        if self.max_unavailable.is_some() && self.max_unavailable != live.max_unavailable {
            u.max_unavailable = self.max_unavailable;
        }
        if self.max_unavailable_percentage.is_some()
            && self.max_unavailable_percentage != live.max_unavailable_percentage
        {
            u.max_unavailable_percentage = self.max_unavailable_percentage;
        }
        // A node group created without repair reports none or `false`: either is "off".
        if let Some(want) = self.node_repair
            && want != live.node_repair.unwrap_or(false)
        {
            u.node_repair = Some(want);
        }
        // UpdateNodegroupVersion moves the nodes to another AMI release in place (rolling update).
        if self.release_version.is_some() && self.release_version != live.release_version {
            u.release_version = self.release_version.clone();
        }
        // Every tag of the node group is the provider's to set, as refresh reports them.
        u.tags_add = self
            .tags
            .iter()
            .filter(|(k, v)| live.tags.get(*k) != Some(*v))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        u.tags_remove = live
            .tags
            .keys()
            .filter(|k| !self.tags.contains_key(*k))
            .cloned()
            .collect();
        (u != NodeGroupUpdate::default()).then_some(u)
    }
}

/// The pool as a live node group says. The prior pool's spelling is kept where
/// the live value is what it renders to (defaults, labels the provider adds),
/// and the desired size is the prior one: autoscalers change it, which is not
/// drift. On import (`import = true`) the live desired size is taken.
pub fn read_back_node_group(strategy: &NodeStrategy, prior: &Pool, live: &NodeGroup, import: bool) -> Pool {
    let mut pool = prior.clone();
    pool.capacity = Capacity::ManagedNodeGroup;
    pool.instance_types = live.instance_types.clone();
    pool.capacity_types = match live.capacity_type.as_str() {
        "SPOT" => vec!["spot".to_owned()],
        _ if prior.capacity_types.is_empty() => Vec::new(),
        _ => vec!["on-demand".to_owned()],
    };
    let (taints, gpu_taint) = split_gpu_taint(prior, live.taints.clone());
    pool.taints = taints;
    pool.gpu_taint = gpu_taint;

    let prior_mng = prior.managed_node_group.clone();
    let ami_type = match prior_mng.as_ref().and_then(|m| m.ami_type.clone()) {
        None if live.ami_type == default_ami_type(&pool) => None,
        _ => Some(live.ami_type.clone()),
    };
    pool.managed_node_group = Some(crate::model::ManagedNodeGroup {
        node_role_arn: live.node_role_arn.clone(),
        subnet_ids: live.subnet_ids.clone(),
        ami_type,
        scaling: Scaling {
            desired: match &prior_mng {
                Some(m) if !import => m.scaling.desired,
                _ => live.scaling.desired,
            },
            ..live.scaling
        },
        max_unavailable: live.max_unavailable,
        max_unavailable_percentage: live.max_unavailable_percentage,
        // What EKS chose is not drift unless the pool asked for a release.
        release_version: prior_mng
            .as_ref()
            .and_then(|m| m.release_version.as_ref())
            .and(live.release_version.clone()),
        disk_size: match prior_mng.as_ref().and_then(|m| m.disk_size) {
            None if live.disk_size.is_none_or(|d| d == DEFAULT_DISK_SIZE_GIB) => None,
            _ => live.disk_size,
        },
        node_repair: match prior_mng.as_ref().and_then(|m| m.node_repair) {
            None if !live.node_repair.unwrap_or(false) => None,
            _ => Some(live.node_repair.unwrap_or(false)),
        },
    });
    // Provider-added labels depend on the live AMI type (Bottlerocket adds the device-plugin
    // label), which an import's prior does not know yet.
    let basis = Pool {
        managed_node_group: pool.managed_node_group.clone(),
        capacity: pool.capacity,
        ..prior.clone()
    };
    pool.labels = user_labels(strategy, &basis, live.labels.clone());
    pool.tags = super::user_tags(strategy, &prior.tags, &live.tags);
    pool
}
