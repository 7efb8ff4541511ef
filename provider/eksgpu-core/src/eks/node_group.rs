//! Managed node groups: the state asked of EKS, the in-place update that gets
//! a live node group there (or the fields that force a new one), and reading a
//! live node group back into a pool.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::autoscaler::{autoscaler_tags, is_autoscaler_tag};
use super::launch_template::{self, CAPACITY_BLOCK, LaunchTemplate, LaunchTemplateData};
use super::{eks_effect, pool_tags};
use crate::catalog::{self, Arch};
use crate::model::{
    Capacity, ManagedNodeGroup, NetworkInterface, NodeGroupVolume, NodeRepairConfig, NodeStrategy, Pool, Scaling,
    Taint, UpdateConfig,
};
use crate::node_strategy::inputs::{self, Object};
use crate::readback::{split_gpu_taint, user_labels};
use crate::render::{effective_labels, effective_taints};

/// A node group as the provider wants it (or, read back, as it is).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeGroup {
    /// `<cluster>-<pool>`.
    pub name: String,
    /// The pool's `ami_type`, or the default for its instance types.
    pub ami_type: String,
    /// `ON_DEMAND` or `SPOT`.
    pub capacity_type: String,
    pub instance_types: Vec<String>,
    pub labels: BTreeMap<String, String>,
    /// Kubernetes spelling; the adapter maps effects to the EKS API's.
    pub taints: Vec<Taint>,
    /// The pool's `managed_node_group` settings as declared (`crate::node_strategy::inputs`):
    /// role, subnets, scaling, update, release, disk, repair. Live: what EKS reports (`None`
    /// where it reports nothing).
    pub config: ManagedNodeGroup,
    pub tags: BTreeMap<String, String>,
    /// The launch template the pool owns (`eks::launch_template`), or `None`. Live: the version
    /// the node group uses, read from EC2.
    pub launch_template: Option<LaunchTemplate>,
    /// The cluster placement group the pool owns (`cluster_placement_group`), or `None`.
    pub placement_group: Option<launch_template::PlacementGroup>,
    /// Live only: the node group's ARN (what `TagResource` takes).
    pub arn: Option<String>,
    /// Live only: `CREATING`, `ACTIVE`, ….
    pub status: Option<super::NodeGroupStatus>,
    /// Live only: what EKS reports wrong with the node group.
    pub health_issues: Vec<String>,
}

/// The order of a `CreateNodegroup` request's keys in plans made before its inputs were
/// declared; `manifests_yaml` keeps it, so states written then plan no change.
static CREATE_ORDER: std::sync::LazyLock<Value> = std::sync::LazyLock::new(|| {
    let keys = [
        "clusterName",
        "nodegroupName",
        "amiType",
        "capacityType",
        "instanceTypes",
        "labels",
        "taints",
        "scalingConfig",
        "subnets",
        "nodeRole",
        "tags",
        "updateConfig",
        "releaseVersion",
        "version",
        "diskSize",
        "nodeRepairConfig",
    ];
    Value::Object(keys.iter().map(|k| ((*k).to_owned(), Value::Null)).collect())
});

/// EKS's disk size of a node group without a launch template, GiB (EKS API CreateNodegroup
/// `diskSize`: 20 GiB for Linux and Bottlerocket).
pub const DEFAULT_DISK_SIZE_GIB: i64 = 20;

/// The AL2023 NVIDIA AMI for the pool's architecture: it carries the driver
/// and container toolkit (EKS user guide, accelerated AMIs). Neuron pools get the AL2023 Neuron
/// AMI, which carries the Neuron driver and is x86_64 only (EKS API `amiType`
/// `AL2023_x86_64_NEURON`; karpenter-provider-aws v1.14.1 pkg/providers/amifamily/al2023.go:
/// no arm64 Neuron variant).
pub fn default_ami_type(pool: &Pool) -> &'static str {
    if pool.is_neuron() {
        return NEURON_AMI_TYPE;
    }
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

/// The node group AMI type of Neuron pools.
pub const NEURON_AMI_TYPE: &str = "AL2023_x86_64_NEURON";

/// The node group of a pool: its `name`, its `name_prefix` and a suffix, or `<cluster>-<pool>`.
pub fn node_group_name(strategy: &NodeStrategy, pool: &Pool) -> String {
    let m = pool.managed_node_group.as_ref();
    if let Some(name) = m.and_then(|m| m.name.as_ref()) {
        return name.clone();
    }
    if let Some(prefix) = m.and_then(|m| m.name_prefix.as_deref()) {
        return format!("{prefix}{}", name_suffix(strategy, pool));
    }
    format!("{}-{}", strategy.cluster_name, pool.name)
}

/// Eight hex digits of a hash of the cluster and pool names: the same for the pool on every plan
/// (so its node selector is known at plan), different for pools that share a prefix. terraform-aws
/// `node_group_name_prefix` appends a time-based id instead (hashicorp/terraform-provider-aws
/// `id.PrefixedUniqueId`), which no plan could show.
fn name_suffix(strategy: &NodeStrategy, pool: &Pool) -> String {
    // FNV-1a, 32 bits: small, stable across Rust releases (std's hashers promise neither).
    let mut h: u32 = 0x811c_9dc5;
    for b in strategy.cluster_name.bytes().chain([0]).chain(pool.name.bytes()) {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    format!("{h:08x}")
}

/// The node group of pool number `index`, or `None` if it is not a complete managed node group pool.
pub fn node_group(strategy: &NodeStrategy, pool: &Pool) -> Option<NodeGroup> {
    let m = pool
        .managed_node_group
        .as_ref()
        .filter(|_| pool.capacity == Capacity::ManagedNodeGroup)?;
    let ami_type = m.ami_type.clone().unwrap_or_else(|| default_ami_type(pool).to_owned());
    let labels = effective_labels(strategy, pool);
    let taints = effective_taints(pool);
    // The autoscaler's tags under the pool's: a tag the user sets wins (and reads back as theirs).
    let mut tags = autoscaler_tags(strategy, pool, &labels, &taints);
    tags.extend(pool_tags(strategy, pool));
    Some(NodeGroup {
        name: node_group_name(strategy, pool),
        capacity_type: if launch_template::capacity_block(pool) {
            CAPACITY_BLOCK.to_owned()
        } else if pool.capacity_types.iter().any(|c| c == "spot") {
            "SPOT".to_owned()
        } else {
            "ON_DEMAND".to_owned()
        },
        instance_types: pool.instance_types.clone(),
        launch_template: launch_template::launch_template(strategy, pool, &ami_type, &pool_tags(strategy, pool)),
        placement_group: launch_template::placement_group(strategy, pool, &pool_tags(strategy, pool)),
        ami_type,
        labels,
        taints,
        config: m.clone(),
        tags,
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
    pub update: Option<UpdateConfig>,
    /// The whole `nodeRepairConfig` to set (EKS API UpdateNodegroupConfig `nodeRepairConfig`).
    pub node_repair: Option<NodeRepairConfig>,
    /// An `UpdateNodegroupVersion` to this release, apart from the config update.
    pub release_version: Option<String>,
    /// An `UpdateNodegroupVersion` to this Kubernetes minor (with `release_version` when both change).
    pub kubernetes_version: Option<String>,
    /// `TagResource` / `UntagResource` on the node group (tags are not node group config).
    pub tags_add: BTreeMap<String, String>,
    pub tags_remove: Vec<String>,
    /// A new version of the node group's launch template with this data, then an
    /// `UpdateNodegroupVersion` to it (a rolling update of the nodes).
    pub launch_template: Option<LaunchTemplateData>,
}

impl NodeGroupUpdate {
    /// Whether an `UpdateNodegroupConfig` is needed (a release change alone is an `UpdateNodegroupVersion`).
    pub fn changes_config(&self) -> bool {
        NodeGroupUpdate {
            release_version: None,
            kubernetes_version: None,
            tags_add: BTreeMap::new(),
            tags_remove: Vec::new(),
            launch_template: None,
            ..self.clone()
        } != NodeGroupUpdate::default()
    }
}

impl NodeGroup {
    /// The `CreateNodegroup` request, as plans show it: the pool-level fields here, the
    /// `managed_node_group` block as declared.
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
            "tags": self.tags,
        });
        inputs::render_all(inputs::MANAGED_NODE_GROUP, &self.config, Object::NodeGroup, &mut body);
        inputs::order_like(&mut body, &CREATE_ORDER);
        if let (Some(lt), Some(b)) = (&self.launch_template, body.as_object_mut()) {
            // EKS takes the disk from the template, and the instance type from it when the
            // template sets one (EKS API CreateNodegroup `diskSize`, `instanceTypes`); the id and
            // version are known once EC2 made the template.
            b.remove("diskSize");
            if lt.data.instance_type.is_some() {
                b.remove("instanceTypes");
            }
            let mut spec = json!({"name": lt.name});
            if let Some(v) = lt.version {
                spec["version"] = json!(v.to_string());
            }
            b.insert("launchTemplate".into(), spec);
        }
        json!({ "CreateNodegroup": body })
    }

    /// The live node group with the launch template version it uses: a template's instance
    /// type is the node group's.
    pub fn with_template(mut self, lt: Option<LaunchTemplate>) -> NodeGroup {
        if let Some(t) = lt.as_ref().and_then(|lt| lt.data.instance_type.clone()) {
            self.instance_types = vec![t];
        }
        self.launch_template = lt;
        self
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
        if self.config.subnet_ids != live.config.subnet_ids {
            fields.push("subnet_ids");
        }
        if self.config.node_role_arn != live.config.node_role_arn {
            fields.push("node_role_arn");
        }
        // "You can only update a node group using a launch template if the node group was originally
        // deployed with a launch template" (EKS API UpdateNodegroupVersion `launchTemplate`), nor drop one.
        if self.launch_template.is_some() != live.launch_template.is_some() {
            fields.push("launch_template");
        }
        // EKS sets the disk size at creation only (CreateNodegroup diskSize; UpdateNodegroupConfig has none).
        // A node group made without one has EKS's default, so setting it later replaces the node group too.
        // With a launch template the disk is the template's: a new version changes it in place.
        if let Some(want) = self.config.disk_size
            && self.launch_template.is_none()
            && want != live.config.disk_size.unwrap_or(DEFAULT_DISK_SIZE_GIB)
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
        let (want, was) = (&self.config, &live.config);
        if (want.scaling.min, want.scaling.max) != (was.scaling.min, was.scaling.max) {
            u.scaling = Some(Scaling {
                desired: was
                    .scaling
                    .desired
                    .clamp(want.scaling.min, want.scaling.max.max(want.scaling.min)),
                ..want.scaling
            });
        }
        // `updateConfig` is sent whole (one of its fields); an unset block leaves EKS's.
        if want.update.is_some() && want.update != was.update {
            u.update = want.update;
        }
        // A node group created without repair reports none or `false`: either is "off".
        let off = NodeRepairConfig::default();
        if let Some(r) = &want.node_repair_config
            && r != was.node_repair_config.as_ref().unwrap_or(&off)
        {
            u.node_repair = Some(r.clone());
        }
        // UpdateNodegroupVersion moves the nodes to another AMI release in place (rolling update).
        if want.release_version.is_some() && want.release_version != was.release_version {
            u.release_version = want.release_version.clone();
        }
        // And to another Kubernetes minor (EKS API UpdateNodegroupVersion `version`).
        if want.kubernetes_version.is_some() && want.kubernetes_version != was.kubernetes_version {
            u.kubernetes_version = want.kubernetes_version.clone();
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
        if let (Some(want), Some(was)) = (&self.launch_template, &live.launch_template)
            && want.data != was.data
        {
            u.launch_template = Some(want.data.clone());
        }
        (u != NodeGroupUpdate::default()).then_some(u)
    }
}

/// The pool as a live node group says. The prior pool's spelling is kept where
/// the live value is what it renders to (defaults, labels the provider adds),
/// and the desired size is the prior one: autoscalers change it, which is not
/// drift. On import (`import = true`) the live desired size is taken.
pub fn read_back_node_group(strategy: &NodeStrategy, prior: &Pool, live: &NodeGroup, import: bool) -> Pool {
    let live_request = live.create_request("")["CreateNodegroup"].clone();
    // From a blank pool, as `readback::read_back_pool` does: declared inputs from where they
    // render, the name and what no object carries from `prior`.
    let mut pool = Pool {
        name: prior.name.clone(),
        ..Pool::default()
    };
    inputs::read_back_all(inputs::POOL, Object::NodeGroup, &live_request, Some(prior), &mut pool);
    pool.capacity = Capacity::ManagedNodeGroup;
    // First: a template's instance type decides the vendor (its taint) and the default AMI type.
    read_back_template(&mut pool, prior, live.launch_template.as_ref(), &live.ami_type);
    // A template naming a placement group that is gone places no node: the group reads as unset.
    if live.placement_group.is_none()
        && let Some(m) = pool.managed_node_group.as_mut()
    {
        m.cluster_placement_group = false;
    }
    pool.dra = live.tags.get(super::tags::DRA).map_or(prior.dra, |d| d == "true");
    pool.capacity_types = match live.capacity_type.as_str() {
        "SPOT" => vec!["spot".to_owned()],
        CAPACITY_BLOCK => vec![launch_template::CAPACITY_BLOCK_TYPE.to_owned()],
        _ if prior.capacity_types.is_empty() => Vec::new(),
        _ => vec!["on-demand".to_owned()],
    };
    let (taints, gpu_taint) = split_gpu_taint(prior, pool.vendor(), live.taints.clone());
    pool.taints = taints;
    pool.gpu_taint = gpu_taint;

    let prior_mng = prior.managed_node_group.as_ref();
    // The declared inputs read back above from the request the live node group amounts to,
    // with EKS's defaults reading as unset; what is not a projection follows.
    let mut m = pool.managed_node_group.take().unwrap_or_default();
    m.ami_type = match prior_mng.and_then(|m| m.ami_type.clone()) {
        None if live.ami_type == default_ami_type(&pool) => None,
        _ => Some(live.ami_type.clone()),
    };
    // Autoscalers own the live desired size: not drift, except on import.
    if let Some(prior) = prior_mng.filter(|_| !import) {
        m.scaling.desired = prior.scaling.desired;
    }
    // What EKS chose is not drift unless the pool asked for a release.
    if prior_mng.is_none_or(|p| p.release_version.is_none()) {
        m.release_version = None;
    }
    // Nor is the cluster's version, EKS's default, unless the pool asked for one.
    if prior_mng.is_none_or(|p| p.kubernetes_version.is_none()) {
        m.kubernetes_version = None;
    }
    // Repair off, as EKS reports a node group made without it, is the pool's "unset".
    if prior_mng.is_none_or(|p| p.node_repair_config.is_none())
        && m.node_repair_config
            .as_ref()
            .is_none_or(|r| *r == NodeRepairConfig::default())
    {
        m.node_repair_config = None;
    }
    read_back_name(strategy, &pool, prior_mng, live, &mut m);
    pool.managed_node_group = Some(m);
    // Provider-added labels depend on the live AMI type (Bottlerocket adds the device-plugin
    // label) and instance types (the autoscaler's GPU label), which an import's prior does not
    // know yet.
    let basis = Pool {
        managed_node_group: pool.managed_node_group.clone(),
        capacity: pool.capacity,
        instance_types: if import {
            pool.instance_types.clone()
        } else {
            prior.instance_types.clone()
        },
        ..prior.clone()
    };
    let worlds = import_worlds(&pool, basis, import);
    pool.labels = worlds
        .iter()
        .fold(live.labels.clone(), |labels, b| user_labels(strategy, b, labels));
    let expected = expected_autoscaler_tags(strategy, prior, &pool, live, &worlds, import);
    let live_tags: BTreeMap<String, String> = live
        .tags
        .iter()
        .filter(|(k, v)| prior.tags.contains_key(*k) || !is_autoscaler_tag(k) || expected.get(*k) != Some(*v))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    pool.tags = super::user_tags(strategy, &prior.tags, &live_tags);
    read_back_template_tags(strategy, prior, live, import, &mut pool);
    pool
}

/// The name as the pool writes it: the default and a prefix's name read as unset and as the
/// prefix (on import, a name that is not the default reads as `name`).
fn read_back_name(
    strategy: &NodeStrategy,
    pool: &Pool,
    prior_mng: Option<&ManagedNodeGroup>,
    live: &NodeGroup,
    m: &mut ManagedNodeGroup,
) {
    m.name = None;
    m.name_prefix = None;
    let named = |m: &ManagedNodeGroup| Pool {
        managed_node_group: Some(m.clone()),
        ..pool.clone()
    };
    let prior_naming = prior_mng.map(|p| (p.name.clone(), p.name_prefix.clone()));
    if let Some((name, prefix)) = prior_naming {
        m.name = name;
        m.name_prefix = prefix;
    }
    if node_group_name(strategy, &named(m)) != live.name {
        m.name_prefix = None;
        m.name = Some(live.name.clone());
        if node_group_name(
            strategy,
            &named(&ManagedNodeGroup {
                name: None,
                ..m.clone()
            }),
        ) == live.name
        {
            m.name = None;
        }
    }
}

/// The template's own tags are `launch_template_tags` where the pool set them, or on import
/// where they are not the pool's `tags`; else they are the pool's, read from the node group
/// (and retagged at apply when they are not: `eks_templates`).
fn read_back_template_tags(strategy: &NodeStrategy, prior: &Pool, live: &NodeGroup, import: bool, pool: &mut Pool) {
    let prior_template_tags = prior
        .managed_node_group
        .as_ref()
        .map(|m| m.launch_template_tags.clone())
        .unwrap_or_default();
    if let (Some(lt), Some(m)) = (live.launch_template.as_ref(), pool.managed_node_group.as_mut()) {
        let basis = if prior_template_tags.is_empty() {
            &prior.tags
        } else {
            &prior_template_tags
        };
        let template_tags = super::user_tags(strategy, basis, &lt.tags);
        if !prior_template_tags.is_empty() || (import && template_tags != pool.tags) {
            m.launch_template_tags = template_tags;
        }
    }
}

/// The pools the provider's labels and tags of a node group are judged against: the prior's
/// `basis`, or on import both `multi_node_nvlink` worlds. The node group cannot tell whether the
/// pool is `multi_node_nvlink` (its ComputeDomain says so, in-cluster), on which the GPUs it
/// advertises depend (a DRA pool's device plugin serves them only then): the provider's labels
/// and tags of either are its own.
fn import_worlds(read: &Pool, basis: Pool, import: bool) -> Vec<Pool> {
    if !import {
        return vec![basis];
    }
    [false, true]
        .into_iter()
        .map(|multi_node_nvlink| Pool {
            dra: read.dra,
            multi_node_nvlink,
            ..basis.clone()
        })
        .collect()
}

/// The autoscaler's tags as the provider sets them, which are not the pool's own: those the
/// labels and taints rendered before imply; on import, the live ones in either world. Another
/// value is drift it restores.
fn expected_autoscaler_tags(
    strategy: &NodeStrategy,
    prior: &Pool,
    read: &Pool,
    live: &NodeGroup,
    worlds: &[Pool],
    import: bool,
) -> BTreeMap<String, String> {
    if !import {
        return autoscaler_tags(
            strategy,
            prior,
            &effective_labels(strategy, prior),
            &effective_taints(prior),
        );
    }
    let mut expected = BTreeMap::new();
    for w in worlds {
        let imported = Pool {
            multi_node_nvlink: w.multi_node_nvlink,
            ..read.clone()
        };
        for (k, v) in autoscaler_tags(strategy, &imported, &live.labels, &live.taints) {
            // A key both worlds tag alike is the provider's; one they tag differently is the
            // provider's if the live value is either.
            if live.tags.get(&k) == Some(&v) || !expected.contains_key(&k) {
                expected.insert(k, v);
            }
        }
    }
    expected
}

/// What the launch template version a node group uses says of the pool: its network interfaces
/// (the EFA layout `efa` renders, or the pool's own), its capacity reservation, disk, volumes, EBS
/// optimization, user data, placement group, instance tags, metadata options and monitoring. Without a template, the pool has none of them.
fn read_back_template(pool: &mut Pool, prior: &Pool, lt: Option<&LaunchTemplate>, ami_type: &str) {
    let prior_m = prior.managed_node_group.clone().unwrap_or_default();
    let Some(lt) = lt else {
        pool.efa = false;
        pool.managed_node_group
            .get_or_insert_with(ManagedNodeGroup::default)
            .capacity_reservation_id = None;
        return;
    };
    if let Some(t) = &lt.data.instance_type {
        pool.instance_types = vec![t.clone()];
    }
    let layout = launch_template::efa_layout(pool);
    let m = pool.managed_node_group.get_or_insert_with(ManagedNodeGroup::default);
    let d = &lt.data;
    m.capacity_reservation_id = d.capacity_reservation_id.clone();
    m.capacity_reservation_resource_group_arn = d.capacity_reservation_resource_group_arn.clone();
    m.cluster_placement_group = d.placement_group.is_some();
    m.ebs_optimized = d.ebs_optimized;
    m.instance_tags = d.instance_tags.clone();
    m.security_group_ids = d.security_group_ids.clone();
    m.metadata_options = d.metadata_options.clone();
    m.detailed_monitoring = d.detailed_monitoring;
    m.launch_template_description = d.version_description.clone();
    m.user_data = d
        .user_data
        .as_deref()
        .map(|u| super::user_data::unwrapped(u, prior_m.user_data.as_deref(), ami_type));
    // `disk_size` is a size-only mapping of the root device, unless the pool maps that device itself.
    let root = launch_template::root_device(ami_type);
    let prior_maps_root = prior_m.block_device_mappings.iter().any(|v| v.device_name == root);
    let mut volumes = d.block_device_mappings.clone();
    m.disk_size = None;
    if !prior_maps_root && let Some(i) = volumes.iter().position(|v| v.device_name == root && v.size_only()) {
        m.disk_size = volumes.remove(i).volume_size;
    }
    m.block_device_mappings = volumes.iter().map(NodeGroupVolume::from).collect();
    // The pool's `security_group_ids` are written on every interface (`Groups`): read back, an
    // interface with exactly those names none of its own. Without them in the prior pool, the
    // groups on interfaces are the interfaces' own.
    let mut live_interfaces = d.network_interfaces.clone();
    if !prior_m.security_group_ids.is_empty() {
        for n in &mut live_interfaces {
            if n.security_group_ids == d.security_group_ids {
                n.security_group_ids.clear();
            }
        }
    } else if !live_interfaces.is_empty() {
        m.security_group_ids = Vec::new();
    }
    let interfaces: Vec<NetworkInterface> = live_interfaces.iter().map(NetworkInterface::from).collect();
    if interfaces.is_empty() {
        m.network_interfaces = Vec::new();
        pool.efa = false;
    } else if prior_m.network_interfaces.is_empty() && live_interfaces == layout {
        pool.efa = true;
        m.network_interfaces = Vec::new();
    } else {
        pool.efa = interfaces.iter().any(NetworkInterface::is_efa);
        m.network_interfaces = interfaces;
    }
}
