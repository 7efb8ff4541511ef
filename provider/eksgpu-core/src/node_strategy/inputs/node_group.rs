//! The inputs of a pool's `managed_node_group` and `hybrid` objects. Node group paths are those of
//! the EKS API `CreateNodegroup` request (EKS API reference, CreateNodegroup), which plans show
//! and the cloud adapter sends field by field.

use super::engine::{Decl, Object::NodeGroup, at};
use super::{Attr, Check, HYBRID_ONLY, Kinds, Lit, NODE_GROUP, One, ReadBack, Required, Ty, attr, lens};
use crate::model::{Hybrid, ManagedNodeGroup, NodeRepairConfig, Pool, Scaling, UpdateConfig};
use crate::rules::{Code, Step, Violation};
use crate::validate;

const NODE_ROLE_ARN: Attr<ManagedNodeGroup> = attr(
    "node_role_arn",
    Ty::String,
    "IAM role ARN of the nodes.",
    lens!(ManagedNodeGroup, node_role_arn),
)
.required()
// EKS API CreateNodegroup `nodeRole`: an IAM role ARN (the name at most 64 characters).
.checks(&[Check::Str("An IAM role ARN.", validate::iam_role_arn)])
.renders(&[at(NodeGroup, &["nodeRole"])]);

const SUBNET_IDS: Attr<ManagedNodeGroup> = attr(
    "subnet_ids",
    Ty::StringList,
    "Subnets of the nodes (they decide the zones).",
    lens!(ManagedNodeGroup, subnet_ids),
)
.required()
.checks(&[Check::Distinct])
.renders(&[at(NodeGroup, &["subnets"])]);

const AMI_TYPE: Attr<ManagedNodeGroup> = attr(
    "ami_type",
    Ty::String,
    "EKS AMI type. Default `AL2023_x86_64_NVIDIA`, or `AL2023_ARM_64_NVIDIA` for arm64 GPUs (EKSGPU013).",
    lens!(ManagedNodeGroup, ami_type),
)
// A `BOTTLEROCKET_*` type brings Bottlerocket's own device plugin, which the standalone one keeps
// off (render::device_plugin::serves).
.feeds(&[crate::node_strategy::outputs::Output::DevicePluginValues])
// The default depends on the instance types' architecture (eks::default_ami_type).
.custom();

const RELEASE_VERSION: Attr<ManagedNodeGroup> = attr(
    "release_version",
    Ty::String,
    "AMI release of the nodes, e.g. `1.34.0-20260801` (AL2023) or `1.42.0-4f5d8ea2` (Bottlerocket). Default: the \
     latest at creation, then kept (not drift). A change rolls the nodes to it in place (`UpdateNodegroupVersion`).",
    lens!(ManagedNodeGroup, release_version),
)
.checks(&[Check::Str(
    "An EKS AMI release version.",
    validate::node_group_release_version,
)])
// Read back only when the pool asked for a release: what EKS chose is not drift (eks::node_group).
.renders(&[at(NodeGroup, &["releaseVersion"])]);

const DISK_SIZE: Attr<ManagedNodeGroup> = attr(
    "disk_size",
    Ty::Number,
    "Root disk of each node in GiB. Default EKS's 20 GiB, which inference images outgrow (EKSGPU123). A change \
     replaces the node group, unless the pool has a launch template (`efa` or `capacity-block`): there the disk is \
     the template's block device mapping and a change makes a new template version.",
    lens!(ManagedNodeGroup, disk_size),
)
// EKS API CreateNodegroup diskSize (Integer, GiB); EBS gp2/gp3 volumes hold at most 16384 GiB.
.checks(&[Check::Int(1, 16_384, "node group `diskSize`, GiB")])
.renders(&[at(NodeGroup, &["diskSize"])])
// EKS's disk size of a node group without a launch template: 20 GiB for Linux and Bottlerocket.
.server_default(Lit::Int(crate::eks::DEFAULT_DISK_SIZE_GIB));

const CAPACITY_RESERVATION_ID: Attr<ManagedNodeGroup> = attr(
    "capacity_reservation_id",
    Ty::String,
    "The Capacity Block for ML (`cr-…`) of a `capacity_types = [\"capacity-block\"]` node group (required there, \
     EKSGPU181). It goes in the launch template the provider makes for the pool (`CapacityReservationSpecification` \
     and `InstanceMarketOptions` `capacity-block`); a change makes a new template version and rolls the nodes.",
    lens!(ManagedNodeGroup, capacity_reservation_id),
)
// EC2 CapacityReservationTarget.CapacityReservationId: `cr-` and lower-case hex (EC2 API reference).
.checks(&[Check::Str(
    "A capacity reservation ID.",
    validate::capacity_reservation_id,
)])
// Rendered in the launch template and read back from its live version (eks::launch_template).
.custom();

const REPAIR_ENABLED: Attr<NodeRepairConfig> = attr(
    "enabled",
    Ty::Bool,
    "Turn node auto repair on or off.",
    lens!(NodeRepairConfig, enabled),
)
.required()
.renders(&[at(NodeGroup, &["enabled"])]);

const NODE_REPAIR_CONFIG: One<ManagedNodeGroup, NodeRepairConfig> = One {
    name: "node_repair_config",
    doc: "EKS node auto repair: EKS replaces or reboots nodes it finds unhealthy, GPU failures included (`nodeRepairConfig`).",
    kinds: Kinds::All,
    renders: &[at(NodeGroup, &["nodeRepairConfig"])],
    read_back: ReadBack::Live,
    children: &[&REPAIR_ENABLED],
    get: |m| m.node_repair_config.as_ref(),
    put: |m, r| {
        m.node_repair_config = r;
        Ok(())
    },
};

// EKS API NodegroupScalingConfig: minSize ≥ 0, maxSize ≥ 1, desiredSize ≥ 0 (Integer).
const MIN: Attr<Scaling> = attr("min", Ty::Number, "Fewest nodes.", lens!(Scaling, min))
    .required()
    .checks(&[Check::Int32(0, i32::MAX, "node group `minSize`")])
    .renders(&[at(NodeGroup, &["minSize"])]);

const MAX: Attr<Scaling> = attr("max", Ty::Number, "Most nodes.", lens!(Scaling, max))
    .required()
    .checks(&[Check::Int32(1, i32::MAX, "node group `maxSize`")])
    .renders(&[at(NodeGroup, &["maxSize"])]);

const DESIRED: Attr<Scaling> = attr(
    "desired",
    Ty::Number,
    "Nodes at creation. Autoscaler changes are not drift; a new value applies only when the node group is created.",
    lens!(Scaling, desired),
)
.required()
.checks(&[Check::Int32(0, i32::MAX, "node group `desiredSize`")])
// Read back as the prior value: autoscalers own the live one (eks::read_back_node_group).
.renders(&[at(NodeGroup, &["desiredSize"])]);

const SCALING: One<ManagedNodeGroup, Scaling> = One {
    name: "scaling",
    doc: "Node group size: EKS `scalingConfig`.",
    kinds: Kinds::All,
    renders: &[at(NodeGroup, &["scalingConfig"])],
    read_back: ReadBack::Live,
    children: &[&MIN, &MAX, &DESIRED],
    get: |m| Some(&m.scaling),
    put: |m, s| {
        m.scaling = s.ok_or("`scaling = { min, max, desired }` is required")?;
        Ok(())
    },
};

const MAX_UNAVAILABLE: Attr<UpdateConfig> = attr(
    "max_unavailable",
    Ty::Number,
    "Most nodes updated at once (1–100). Not with `max_unavailable_percentage` (EKSGPU117).",
    lens!(UpdateConfig, max_unavailable),
)
// EKS API NodegroupUpdateConfig.maxUnavailable: 1–100.
.checks(&[Check::Int(1, 100, "node group `updateConfig.maxUnavailable`")])
.renders(&[at(NodeGroup, &["maxUnavailable"])]);

const MAX_UNAVAILABLE_PERCENTAGE: Attr<UpdateConfig> = attr(
    "max_unavailable_percentage",
    Ty::Number,
    "Most nodes updated at once, as a percentage of the node group (1–100). Not with `max_unavailable` (EKSGPU117).",
    lens!(UpdateConfig, max_unavailable_percentage),
)
// EKS API NodegroupUpdateConfig.maxUnavailablePercentage: 1–100.
.checks(&[Check::Int(1, 100, "node group `updateConfig.maxUnavailablePercentage`")])
.renders(&[at(NodeGroup, &["maxUnavailablePercentage"])]);

const UPDATE: One<ManagedNodeGroup, UpdateConfig> = One {
    name: "update",
    doc: "How node updates roll.",
    kinds: Kinds::All,
    renders: &[at(NodeGroup, &["updateConfig"])],
    read_back: ReadBack::Live,
    children: &[&MAX_UNAVAILABLE, &MAX_UNAVAILABLE_PERCENTAGE],
    get: |m| m.update.as_ref(),
    put: |m, u| {
        m.update = u;
        Ok(())
    },
};

/// EKSGPU117: `NodegroupUpdateConfig` takes `maxUnavailable` or `maxUnavailablePercentage`, each
/// 1–100, not both (EKS API reference, NodegroupUpdateConfig).
pub fn check_update(u: &UpdateConfig, path: &[Step], out: &mut Vec<Violation>) {
    let at = |name: &'static str| {
        let mut p = path.to_vec();
        p.push(Step::Attr(name));
        p
    };
    if let Some(n) = u.max_unavailable
        && !(1..=100).contains(&n)
    {
        out.push(Violation::new(
            Code::EKSGPU117,
            at(MAX_UNAVAILABLE.name),
            format!("{n} is outside 1–100."),
        ));
    }
    if let Some(p) = u.max_unavailable_percentage {
        let path = at(MAX_UNAVAILABLE_PERCENTAGE.name);
        if u.max_unavailable.is_some() {
            let detail = format!(
                "`{}` and `{}` are both set; EKS takes one of them.",
                MAX_UNAVAILABLE.name, MAX_UNAVAILABLE_PERCENTAGE.name
            );
            out.push(Violation::new(Code::EKSGPU117, path, detail));
        } else if !(1..=100).contains(&p) {
            out.push(Violation::new(Code::EKSGPU117, path, format!("{p} is outside 1–100.")));
        }
    }
}

/// The `managed_node_group` block's inputs, in schema order.
pub const MANAGED_NODE_GROUP: &[&dyn Decl<ManagedNodeGroup>] = &[
    &NODE_ROLE_ARN,
    &SUBNET_IDS,
    &AMI_TYPE,
    &RELEASE_VERSION,
    &DISK_SIZE,
    &CAPACITY_RESERVATION_ID,
    &NODE_REPAIR_CONFIG,
    &Required(&SCALING),
    &UPDATE,
];

pub(super) const MANAGED_NODE_GROUP_BLOCK: One<Pool, ManagedNodeGroup> = One {
    name: "managed_node_group",
    doc: "For `capacity = \"managed_node_group\"`: an EKS managed node group named `<cluster_name>-<pool name>`. \
          Labels, taints, scaling and update settings change in place; instance types, capacity type, AMI type, \
          subnets and node role need a new node group, which the provider creates after deleting the old one \
          (the plan warns). The desired size is set at creation; later changes by autoscalers are not drift. \
          With `efa = true` or `capacity_types = [\"capacity-block\"]` the pool owns an EC2 launch template \
          `<cluster_name>-<pool name>` (EFA interfaces, the Capacity Block, the disk); a change to it is a new \
          template version the node group rolls to. The node group carries the Cluster Autoscaler's tags \
          (`k8s.io/cluster-autoscaler/enabled`, `k8s.io/cluster-autoscaler/<cluster_name>`, node-template tags \
          per label, taint and resource): run the autoscaler with \
          `--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/<cluster_name>` \
          and `eks:DescribeNodegroup` to scale a group up from zero; a pool tag on the same key wins.",
    kinds: Kinds::Only(NODE_GROUP, Code::EKSGPU115),
    renders: &[at(NodeGroup, &[])],
    read_back: ReadBack::Live,
    children: MANAGED_NODE_GROUP,
    get: |p| p.managed_node_group.as_ref(),
    put: |p, m| {
        p.managed_node_group = m;
        Ok(())
    },
};

const REMOTE_NODE_NETWORKS: Attr<Hybrid> = attr(
    "remote_node_networks",
    Ty::StringList,
    "CIDRs of the on-prem nodes (RFC 1918, /8–/32, at most 15).",
    lens!(Hybrid, remote_node_networks),
)
.required()
.custom();

const REMOTE_POD_NETWORKS: Attr<Hybrid> = attr(
    "remote_pod_networks",
    Ty::StringList,
    "CIDRs of the pods on hybrid nodes, needed when the CNI does not SNAT pod traffic or webhooks run there.",
    lens!(Hybrid, remote_pod_networks),
)
.custom();

const HYBRID_NODE_ROLE_ARN: Attr<Hybrid> = attr(
    "node_role_arn",
    Ty::String,
    "IAM role the hybrid nodes use (SSM or IAM Roles Anywhere).",
    lens!(Hybrid, node_role_arn),
)
.required()
// EKS API CreateAccessEntry `principalArn` of a HYBRID_LINUX entry: an IAM role ARN.
.checks(&[Check::Str("An IAM role ARN.", validate::iam_role_arn)])
.custom();

/// The `hybrid` block's inputs: `UpdateClusterConfig` remote networks and a `CreateAccessEntry`
/// (eks::hybrid_requests), read back from the cluster and the access entry.
pub const HYBRID: &[&dyn Decl<Hybrid>] = &[&REMOTE_NODE_NETWORKS, &REMOTE_POD_NETWORKS, &HYBRID_NODE_ROLE_ARN];

pub(super) const HYBRID_BLOCK: One<Pool, Hybrid> = One {
    name: "hybrid",
    doc: "For `capacity = \"hybrid\"`: the cluster's remote networks (`remoteNetworkConfig`, which this pool owns) \
          and a `HYBRID_LINUX` access entry for the nodes' role. CIDRs are checked against each other at plan \
          and against the cluster's VPC and service CIDRs at apply, before any change (EKSGPU007).",
    kinds: Kinds::Only(HYBRID_ONLY, Code::EKSGPU115),
    renders: &[],
    read_back: ReadBack::Custom,
    children: HYBRID,
    get: |p| p.hybrid.as_ref(),
    put: |p, h| {
        p.hybrid = h;
        Ok(())
    },
};
