//! The inputs of a pool's `managed_node_group` and `hybrid` objects. Node group paths are those of
//! the EKS API `CreateNodegroup` request (EKS API reference, CreateNodegroup), which plans show
//! and the cloud adapter sends field by field.

use super::List;
use super::engine::{Decl, Object::NodeGroup, at};
use super::{Attr, Check, HYBRID_ONLY, Kinds, Lit, NODE_GROUP, One, ReadBack, Required, Ty, attr, lens};
use crate::model::{
    Hybrid, ManagedNodeGroup, NetworkInterface, NodeGroupVolume, NodeRepairConfig, Pool, RepairOverride, Scaling,
    TemplateMetadata, UpdateConfig,
};
use crate::node_strategy::outputs::Output;
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

const KUBERNETES_VERSION: Attr<ManagedNodeGroup> = attr(
    "kubernetes_version",
    Ty::String,
    "Kubernetes minor of the nodes (`MAJOR.MINOR`, e.g. `1.33`): at most the cluster's and at most three minors \
     older (EKSGPU307). Default: the cluster's at creation, then kept (not drift). A change rolls the nodes to it in \
     place (`UpdateNodegroupVersion`).",
    lens!(ManagedNodeGroup, kubernetes_version),
)
// EKS API CreateNodegroup `version` ("defaults to the cluster's Kubernetes version"), written as
// the cluster's `version` is.
.checks(&[Check::Str("A Kubernetes version.", validate::kubernetes_version)])
// Read back only when the pool asked for a version: the cluster's, chosen by EKS, is not drift.
.renders(&[at(NodeGroup, &["version"])]);

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

const EBS_OPTIMIZED: Attr<ManagedNodeGroup> = attr(
    "ebs_optimized",
    Ty::Bool,
    "`EbsOptimized` in the pool's launch template, as terraform-aws-modules/eks `ebs_optimized` sets it: dedicated \
     bandwidth to EBS. GPU and Neuron instance types are EBS-optimized by default, where `true` changes nothing and \
     `false` has no effect. Default: unset (the instance type's default). A change makes a new template version the \
     nodes roll to.",
    lens!(ManagedNodeGroup, ebs_optimized),
)
// EC2 RequestLaunchTemplateData.EbsOptimized (EC2 API reference); "For instance types that are
// EBS-optimized by default, there is no need to enable EBS optimization, and there is no effect if
// you disable EBS optimization" (EC2 user guide, ebs-optimized.html). Rendered in the launch
// template and read back from it (eks::launch_template).
.custom();

const CAPACITY_RESERVATION_ID: Attr<ManagedNodeGroup> = attr(
    "capacity_reservation_id",
    Ty::String,
    "The capacity reservation (`cr-…`) the nodes launch into: the Capacity Block for ML of a \
     `capacity_types = [\"capacity-block\"]` node group (required there, EKSGPU181; with `InstanceMarketOptions` \
     `capacity-block`), or a targeted On-Demand Capacity Reservation of an on-demand one. It goes in the launch \
     template the provider makes for the pool (`CapacityReservationSpecification`); a change makes a new template \
     version and rolls the nodes.",
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

// EKS API NodeRepairConfig (2025-12): the thresholds are Integers, a count or a percentage of
// each, not both (EKSGPU321); percentages 1–100.
const MAX_UNHEALTHY_COUNT: Attr<NodeRepairConfig> = attr(
    "max_unhealthy_node_threshold_count",
    Ty::Number,
    "Repair stops while more than this many nodes are unhealthy. Not with the percentage (EKSGPU321).",
    lens!(NodeRepairConfig, max_unhealthy_node_threshold_count),
)
.checks(&[Check::Int32(1, i32::MAX, "`maxUnhealthyNodeThresholdCount`")])
.renders(&[at(NodeGroup, &["maxUnhealthyNodeThresholdCount"])]);

const MAX_UNHEALTHY_PERCENTAGE: Attr<NodeRepairConfig> = attr(
    "max_unhealthy_node_threshold_percentage",
    Ty::Number,
    "Repair stops while more than this percentage of the nodes are unhealthy (1–100).",
    lens!(NodeRepairConfig, max_unhealthy_node_threshold_percentage),
)
.checks(&[Check::Int(1, 100, "`maxUnhealthyNodeThresholdPercentage`")])
.renders(&[at(NodeGroup, &["maxUnhealthyNodeThresholdPercentage"])]);

const MAX_PARALLEL_COUNT: Attr<NodeRepairConfig> = attr(
    "max_parallel_nodes_repaired_count",
    Ty::Number,
    "Most nodes repaired at once. Not with the percentage (EKSGPU321).",
    lens!(NodeRepairConfig, max_parallel_nodes_repaired_count),
)
.checks(&[Check::Int32(1, i32::MAX, "`maxParallelNodesRepairedCount`")])
.renders(&[at(NodeGroup, &["maxParallelNodesRepairedCount"])]);

const MAX_PARALLEL_PERCENTAGE: Attr<NodeRepairConfig> = attr(
    "max_parallel_nodes_repaired_percentage",
    Ty::Number,
    "Most nodes repaired at once, as a percentage of the node group (1–100).",
    lens!(NodeRepairConfig, max_parallel_nodes_repaired_percentage),
)
.checks(&[Check::Int(1, 100, "`maxParallelNodesRepairedPercentage`")])
.renders(&[at(NodeGroup, &["maxParallelNodesRepairedPercentage"])]);

const OVERRIDE_CONDITION: Attr<RepairOverride> = attr(
    "node_monitoring_condition",
    Ty::String,
    "The unhealthy condition the node monitoring agent reports, e.g. `AcceleratedHardwareReady`.",
    lens!(RepairOverride, node_monitoring_condition),
)
.required()
.renders(&[at(NodeGroup, &["nodeMonitoringCondition"])]);

const OVERRIDE_REASON: Attr<RepairOverride> = attr(
    "node_unhealthy_reason",
    Ty::String,
    "The reason the agent reports with it, e.g. `NvidiaXID13Error`.",
    lens!(RepairOverride, node_unhealthy_reason),
)
.required()
.renders(&[at(NodeGroup, &["nodeUnhealthyReason"])]);

const OVERRIDE_WAIT: Attr<RepairOverride> = attr(
    "min_repair_wait_time_mins",
    Ty::Number,
    "Minutes to wait before repairing a node with this condition and reason.",
    lens!(RepairOverride, min_repair_wait_time_mins),
)
.required()
.checks(&[Check::Int32(0, i32::MAX, "`minRepairWaitTimeMins`")])
.renders(&[at(NodeGroup, &["minRepairWaitTimeMins"])]);

const OVERRIDE_ACTION: Attr<RepairOverride> = attr(
    "repair_action",
    Ty::String,
    "`Replace`, `Reboot` or `NoAction` (EKSGPU321).",
    lens!(RepairOverride, repair_action),
)
.required()
// The EKS API enum (RepairAction: Replace | Reboot | NoAction) is EKSGPU321's, which says why
// another value (eksctl's example writes `Terminate`, `Restart`) cannot work.
.renders(&[at(NodeGroup, &["repairAction"])]);

/// EKS API NodeRepairConfig `nodeRepairConfigOverrides` ("If you use this, you must specify all
/// the values").
const REPAIR_OVERRIDES: List<NodeRepairConfig, RepairOverride> = List {
    name: "node_repair_config_overrides",
    doc: "A per-condition override of what repair does: for nodes the node monitoring agent reports with this \
          condition and reason, wait this long, then take this action.",
    kinds: Kinds::All,
    min_items: None,
    max_items: None,
    renders: &[at(NodeGroup, &["nodeRepairConfigOverrides"])],
    read_back: ReadBack::Live,
    children: &[&OVERRIDE_CONDITION, &OVERRIDE_REASON, &OVERRIDE_WAIT, &OVERRIDE_ACTION],
    get: |r| &r.node_repair_config_overrides,
    put: |r, o| r.node_repair_config_overrides = o,
};

const NODE_REPAIR_CONFIG: One<ManagedNodeGroup, NodeRepairConfig> = One {
    name: "node_repair_config",
    doc: "EKS node auto repair: EKS replaces or reboots nodes it finds unhealthy, GPU failures included \
          (`nodeRepairConfig`), with thresholds that stop or pace repairs and per-condition overrides.",
    kinds: Kinds::All,
    renders: &[at(NodeGroup, &["nodeRepairConfig"])],
    read_back: ReadBack::Live,
    children: &[
        &REPAIR_ENABLED,
        &MAX_UNHEALTHY_COUNT,
        &MAX_UNHEALTHY_PERCENTAGE,
        &MAX_PARALLEL_COUNT,
        &MAX_PARALLEL_PERCENTAGE,
        &REPAIR_OVERRIDES,
    ],
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

const NAME: Attr<ManagedNodeGroup> = attr(
    "name",
    Ty::String,
    "The node group's name, as another tool named it (eksctl's `name`, `aws eks create-nodegroup \
     --nodegroup-name`). Default `<cluster_name>-<pool name>`. Not with `name_prefix` (EKSGPU157). A change makes a \
     new node group, created before the old one is deleted.",
    lens!(ManagedNodeGroup, name),
)
// EKS API CreateNodegroup `nodegroupName`: 1–63 characters, `[0-9A-Za-z][A-Za-z0-9\-_]*`.
.checks(&[Check::Str("An EKS node group name.", validate::node_group_name)])
.feeds(&[Output::NodeSelector, Output::DraDriverValues])
// `nodegroupName` with the default and the prefix's suffix (eks::node_group_name).
.custom();

const NAME_PREFIX: Attr<ManagedNodeGroup> = attr(
    "name_prefix",
    Ty::String,
    "The node group's name starts with this, as terraform-aws-modules/eks names node groups (`<name>-` and a \
     suffix): the provider appends eight hex digits derived from the cluster, the pool and the settings EKS cannot \
     change in place, so a change of those creates the new node group (a new name) before it deletes the old one. At \
     most 55 characters; not with `name` (EKSGPU157).",
    lens!(ManagedNodeGroup, name_prefix),
)
.checks(&[Check::Str(
    "An EKS node group name prefix.",
    validate::node_group_name_prefix,
)])
.feeds(&[Output::NodeSelector, Output::DraDriverValues])
.custom();

const CAPACITY_RESERVATION_RESOURCE_GROUP_ARN: Attr<ManagedNodeGroup> = attr(
    "capacity_reservation_resource_group_arn",
    Ty::String,
    "A resource group of On-Demand Capacity Reservations the nodes launch into (EC2 `CapacityReservationTarget` \
     `CapacityReservationResourceGroupArn`), instead of one reservation by `capacity_reservation_id` (EKSGPU322). In \
     the pool's launch template.",
    lens!(ManagedNodeGroup, capacity_reservation_resource_group_arn),
)
.checks(&[Check::Str("A resource group ARN.", validate::resource_group_arn)])
// Rendered in the launch template and read back from it (eks::launch_template).
.custom();

const USER_DATA: Attr<ManagedNodeGroup> = attr(
    "user_data",
    Ty::String,
    "User data in the pool's launch template, which EKS merges with its own bootstrap: on AL2023 a nodeadm \
     `NodeConfig` (or a MIME multi-part document of them and scripts), on AL2 a shell script, on Bottlerocket TOML \
     settings. A `NodeConfig` or a script alone is put in a MIME multi-part document as EKS requires (content types \
     `application/node.eks.aws`, `text/x-shellscript`). EKS sets the cluster, node labels and taints: user data that \
     sets them too is refused (EKSGPU159), as is a format the AMI type does not read (EKSGPU158). A change makes a \
     new template version the nodes roll to.",
    lens!(ManagedNodeGroup, user_data),
)
.custom();

const VOL_DEVICE: Attr<NodeGroupVolume> = attr(
    "device_name",
    Ty::String,
    "Device name, e.g. `/dev/xvdb` for a second volume (`/dev/xvda` is the AL2/AL2023 root).",
    lens!(NodeGroupVolume, device_name),
)
.required()
.custom();

const VOL_SIZE: Attr<NodeGroupVolume> = attr(
    "volume_size",
    Ty::Number,
    "Size in GiB; without it, the snapshot's size (EKSGPU169).",
    lens!(NodeGroupVolume, volume_size),
)
// EC2 LaunchTemplateEbsBlockDeviceRequest.VolumeSize: GiB, at most 65536 (io2 Block Express).
.checks(&[Check::Int(1, 65_536, "EBS `VolumeSize`, GiB")])
.custom();

const VOL_TYPE: Attr<NodeGroupVolume> = attr(
    "volume_type",
    Ty::String,
    "EBS volume type (`gp3`, `gp2`, `io1`, `io2`, `sc1`, `st1`, `standard`).",
    lens!(NodeGroupVolume, volume_type),
)
.checks(&[Check::Str("An EBS volume type.", validate::ebs_volume_type)])
.custom();

const VOL_IOPS: Attr<NodeGroupVolume> = attr("iops", Ty::Number, "Provisioned IOPS.", lens!(NodeGroupVolume, iops))
    .checks(&[Check::Int(100, 256_000, "EBS `Iops`")])
    .custom();

const VOL_THROUGHPUT: Attr<NodeGroupVolume> = attr(
    "throughput",
    Ty::Number,
    "Throughput in MiB/s (gp3).",
    lens!(NodeGroupVolume, throughput),
)
.checks(&[Check::Int(125, 2000, "EBS gp3 `Throughput`, MiB/s")])
.custom();

const VOL_ENCRYPTED: Attr<NodeGroupVolume> = attr(
    "encrypted",
    Ty::Bool,
    "Encrypt the volume.",
    lens!(NodeGroupVolume, encrypted),
)
.custom();

const VOL_DELETE: Attr<NodeGroupVolume> = attr(
    "delete_on_termination",
    Ty::Bool,
    "Delete the volume when the node terminates. Default EC2's `true`.",
    lens!(NodeGroupVolume, delete_on_termination),
)
.custom();

const VOL_SNAPSHOT: Attr<NodeGroupVolume> = attr(
    "snapshot_id",
    Ty::String,
    "EBS snapshot the volume is created from (`snap-…`), e.g. one of pre-pulled container images.",
    lens!(NodeGroupVolume, snapshot_id),
)
.checks(&[Check::Str("An EBS snapshot ID.", validate::ebs_snapshot_id)])
.custom();

const VOL_KMS: Attr<NodeGroupVolume> = attr(
    "kms_key_id",
    Ty::String,
    "KMS key (ID or ARN) that encrypts the volume.",
    lens!(NodeGroupVolume, kms_key_id),
)
.custom();

/// EC2 `LaunchTemplateBlockDeviceMappingRequest` with its `Ebs` (EC2 API reference).
const BLOCK_DEVICE_MAPPINGS: List<ManagedNodeGroup, NodeGroupVolume> = List {
    name: "block_device_mappings",
    doc: "An EBS volume of the nodes, in the pool's launch template: a second volume (from a snapshot of cached \
          images, say) or the root volume with more than a size (`disk_size` sizes the root alone; not both for one \
          device, EKSGPU169). Sizes in GiB, as EC2 takes them.",
    kinds: Kinds::All,
    min_items: None,
    // EC2 allows at most a few dozen EBS mappings per instance; the launch template refuses more.
    max_items: Some(40),
    renders: &[],
    read_back: ReadBack::Custom,
    children: &[
        &VOL_DEVICE,
        &VOL_SIZE,
        &VOL_TYPE,
        &VOL_IOPS,
        &VOL_THROUGHPUT,
        &VOL_ENCRYPTED,
        &VOL_DELETE,
        &VOL_SNAPSHOT,
        &VOL_KMS,
    ],
    get: |m| &m.block_device_mappings,
    put: |m, b| m.block_device_mappings = b,
};

const NI_CARD: Attr<NetworkInterface> = attr(
    "network_card_index",
    Ty::Number,
    "Network card of the interface (0 is the primary card).",
    lens!(NetworkInterface, network_card_index),
)
.required()
.checks(&[Check::Int32(0, i32::MAX, "`NetworkCardIndex`")])
.custom();

const NI_DEVICE: Attr<NetworkInterface> = attr(
    "device_index",
    Ty::Number,
    "Device index on the card (card 0, device 0 is the primary interface).",
    lens!(NetworkInterface, device_index),
)
.required()
.checks(&[Check::Int32(0, i32::MAX, "`DeviceIndex`")])
.custom();

const NI_TYPE: Attr<NetworkInterface> = attr(
    "interface_type",
    Ty::String,
    "`interface` (ENA), `efa` (EFA with ENA) or `efa-only` (EFA without ENA, no IP address).",
    lens!(NetworkInterface, interface_type),
)
.required()
// EC2 LaunchTemplateInstanceNetworkInterfaceSpecificationRequest.InterfaceType: interface, efa, efa-only.
.checks(&[Check::OneOf(&["interface", "efa", "efa-only"])])
.custom();

const NI_PUBLIC_IP: Attr<NetworkInterface> = attr(
    "associate_public_ip_address",
    Ty::Bool,
    "Give the interface a public IPv4 address (`AssociatePublicIpAddress`); terraform-aws-modules/eks sets `false` \
     on its EFA interfaces. Default the subnet's setting.",
    lens!(NetworkInterface, associate_public_ip_address),
)
.custom();

const NI_DELETE: Attr<NetworkInterface> = attr(
    "delete_on_termination",
    Ty::Bool,
    "Delete the interface when the node terminates (`DeleteOnTermination`). Default EC2's `true` for interfaces \
     it creates at launch.",
    lens!(NetworkInterface, delete_on_termination),
)
.custom();

const NI_DESCRIPTION: Attr<NetworkInterface> = attr(
    "description",
    Ty::String,
    "The interface's description (`Description`).",
    lens!(NetworkInterface, description),
)
// EC2 NetworkInterface Description: at most 255 characters.
.checks(&[Check::Str("At most 255 characters.", validate::ec2_description)])
.custom();

const NI_GROUPS: Attr<NetworkInterface> = attr(
    "security_group_ids",
    Ty::StringList,
    "Security groups of the interface (`Groups`), e.g. the node security group and one that allows EFA traffic \
     between the nodes (all traffic to and from itself, EC2 user guide, EFA security group). Without them EKS \
     gives the interface the cluster security group.",
    lens!(NetworkInterface, security_group_ids),
)
.checks(&[Check::Each("Security group IDs.", validate::security_group_id)])
.custom();

/// EC2 `LaunchTemplateInstanceNetworkInterfaceSpecificationRequest` (EC2 API reference).
const NETWORK_INTERFACES: List<ManagedNodeGroup, NetworkInterface> = List {
    name: "network_interfaces",
    doc: "An explicit network interface of the nodes, in the pool's launch template, instead of the EFA layout \
          `efa = true` renders: e.g. `efa` on card 0 and `efa-only` on the other cards, as terraform-aws-modules/eks \
          `enable_efa_only` writes them. Checked against the instance types' network cards (EKSGPU177): the primary \
          interface (card 0, device 0) with ENA, cards and devices within the type's, at most one EFA per card and \
          no more than the type has, none on card 0 of P6-B300 and P6e-GB200. EFA interfaces need `efa = true` \
          (EKSGPU323).",
    kinds: Kinds::All,
    min_items: None,
    // EC2 network interfaces of one instance: p5.48xlarge's 64 is the catalog's most.
    max_items: Some(100),
    renders: &[],
    read_back: ReadBack::Custom,
    children: &[
        &NI_CARD,
        &NI_DEVICE,
        &NI_TYPE,
        &NI_PUBLIC_IP,
        &NI_DELETE,
        &NI_DESCRIPTION,
        &NI_GROUPS,
    ],
    get: |m| &m.network_interfaces,
    put: |m, n| m.network_interfaces = n,
};

const CLUSTER_PLACEMENT_GROUP: Attr<ManagedNodeGroup> = attr(
    "cluster_placement_group",
    Ty::Bool,
    "Launch the nodes into a cluster placement group (EC2 `Placement.GroupName`) that the pool owns, named like its \
     launch template (`<cluster_name>-<pool name>`, as terraform-aws-modules/eks names its EFA groups): EFA \
     training nodes close together. The provider creates it before the launch template and deletes it after the node \
     group. Default `false`.",
    lens!(ManagedNodeGroup, cluster_placement_group),
)
.default(Lit::Bool(false))
// The group is its own EC2 object; the template names it (eks::launch_template).
.custom();

const INSTANCE_TAGS: Attr<ManagedNodeGroup> = attr(
    "instance_tags",
    Ty::StringMap,
    "Tags on the instances, volumes and network interfaces the node group launches (launch template \
     `TagSpecifications`), e.g. a `Name`; the node group's own tags are `tags`.",
    lens!(ManagedNodeGroup, instance_tags),
)
.checks(&[
    Check::Keys("EC2 tag keys.", validate::aws_tag_key),
    Check::Each("EC2 tag values.", validate::aws_tag_value),
])
.custom();

const MD_ENDPOINT: Attr<TemplateMetadata> = attr(
    "http_endpoint",
    Ty::String,
    "`enabled` or `disabled` (no instance metadata at all). Default EC2's `enabled`.",
    lens!(TemplateMetadata, http_endpoint),
)
// EC2 LaunchTemplateInstanceMetadataOptionsRequest.HttpEndpoint: enabled | disabled.
.checks(&[Check::OneOf(&["enabled", "disabled"])])
.custom();

const MD_TOKENS: Attr<TemplateMetadata> = attr(
    "http_tokens",
    Ty::String,
    "`required` (IMDSv2 only) or `optional`. Default EC2's for the AMI (`required` on AL2023).",
    lens!(TemplateMetadata, http_tokens),
)
// EC2 LaunchTemplateInstanceMetadataOptionsRequest.HttpTokens: optional | required.
.checks(&[Check::OneOf(&["required", "optional"])])
.custom();

const MD_HOP_LIMIT: Attr<TemplateMetadata> = attr(
    "http_put_response_hop_limit",
    Ty::Number,
    "IMDS PUT response hop limit, 1–64: `2` lets pods without host networking reach IMDS (terraform-aws-modules/eks \
     v20 sets `2`, v21 `1`). Default EC2's `1`.",
    lens!(TemplateMetadata, http_put_response_hop_limit),
)
// EC2 LaunchTemplateInstanceMetadataOptionsRequest.HttpPutResponseHopLimit: 1–64.
.checks(&[Check::Int(
    1,
    64,
    "launch template `MetadataOptions.HttpPutResponseHopLimit`",
)])
.custom();

/// EC2 `LaunchTemplateInstanceMetadataOptionsRequest` (EC2 API reference).
const METADATA_OPTIONS: One<ManagedNodeGroup, TemplateMetadata> = One {
    name: "metadata_options",
    doc: "Instance metadata (IMDS) of the nodes, in the pool's launch template (`MetadataOptions`), as \
          terraform-aws-modules/eks sets it on every node group (`http_endpoint = \"enabled\"`, `http_tokens = \
          \"required\"`, a hop limit). Without it the template sets none and EC2's defaults apply.",
    kinds: Kinds::All,
    renders: &[],
    read_back: ReadBack::Custom,
    children: &[&MD_ENDPOINT, &MD_TOKENS, &MD_HOP_LIMIT],
    get: |m| m.metadata_options.as_ref(),
    put: |m, o| {
        m.metadata_options = o;
        Ok(())
    },
};

const SECURITY_GROUP_IDS: Attr<ManagedNodeGroup> = attr(
    "security_group_ids",
    Ty::StringList,
    "Security groups of the nodes (`sg-…`), in the pool's launch template: on each network interface it lays out \
     that names no `security_group_ids` of its own (`Groups`, as eksctl writes its EFA interfaces), or as \
     `SecurityGroupIds` when it has none. With them EKS adds \
     no cluster security group of its own (EKS user guide, Customize managed nodes with launch templates): list it \
     here too (`aws eks describe-cluster`, `resourcesVpcConfig.clusterSecurityGroupId`), and for EFA a group that \
     allows all traffic to and from itself. A change makes a new template version the nodes roll to.",
    lens!(ManagedNodeGroup, security_group_ids),
)
.checks(&[
    Check::Each("Security group IDs.", validate::security_group_id),
    Check::Distinct,
])
// Rendered in the launch template and read back from it (eks::launch_template).
.custom();

const DETAILED_MONITORING: Attr<ManagedNodeGroup> = attr(
    "detailed_monitoring",
    Ty::Bool,
    "CloudWatch detailed (one-minute) monitoring of the nodes, in the pool's launch template (`Monitoring.Enabled`), \
     as terraform-aws-modules/eks v20 turns on by default (`enable_monitoring`). Without it the template sets none \
     (EC2's five-minute basic monitoring).",
    lens!(ManagedNodeGroup, detailed_monitoring),
)
// Rendered in the launch template and read back from it (eks::launch_template).
.custom();

const LAUNCH_TEMPLATE_DESCRIPTION: Attr<ManagedNodeGroup> = attr(
    "launch_template_description",
    Ty::String,
    "Description of the pool's launch template version (`VersionDescription`), e.g. what \
     terraform-aws-modules/eks writes (`Custom launch template for <name> EKS managed node group`). A change makes a \
     new template version the node group rolls to. Without it the versions have none.",
    lens!(ManagedNodeGroup, launch_template_description),
)
.checks(&[Check::Str("At most 255 characters.", validate::ec2_description)])
// Rendered on the template version and read back from it (eks::launch_template).
.custom();

const LAUNCH_TEMPLATE_TAGS: Attr<ManagedNodeGroup> = attr(
    "launch_template_tags",
    Ty::StringMap,
    "Tags on the pool's launch template itself (`ResourceType = launch-template`) in place of the pool's `tags`, \
     e.g. the pool's tags without a `Name` the node group carries, as terraform-aws-modules/eks tags its templates. \
     The provider's identifying tags (`eksgpu.terraform.io/…`) are on the template either way. Unset or empty: the \
     pool's `tags`.",
    lens!(ManagedNodeGroup, launch_template_tags),
)
.checks(&[
    Check::Keys("EC2 tag keys.", validate::aws_tag_key),
    Check::Each("EC2 tag values.", validate::aws_tag_value),
])
.custom();

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
    &KUBERNETES_VERSION,
    &DISK_SIZE,
    &EBS_OPTIMIZED,
    &CAPACITY_RESERVATION_ID,
    &NODE_REPAIR_CONFIG,
    &Required(&SCALING),
    &UPDATE,
    &NAME,
    &NAME_PREFIX,
    &CAPACITY_RESERVATION_RESOURCE_GROUP_ARN,
    &USER_DATA,
    &BLOCK_DEVICE_MAPPINGS,
    &NETWORK_INTERFACES,
    &CLUSTER_PLACEMENT_GROUP,
    &INSTANCE_TAGS,
    &METADATA_OPTIONS,
    &SECURITY_GROUP_IDS,
    &DETAILED_MONITORING,
    &LAUNCH_TEMPLATE_DESCRIPTION,
    &LAUNCH_TEMPLATE_TAGS,
];

pub(super) const MANAGED_NODE_GROUP_BLOCK: One<Pool, ManagedNodeGroup> = One {
    name: "managed_node_group",
    doc: "For `capacity = \"managed_node_group\"`: an EKS managed node group named `<cluster_name>-<pool name>` \
          (or its `name`, or `name_prefix` and a suffix). \
          Labels, taints, scaling and update settings change in place; instance types, capacity type, AMI type, \
          subnets and node role need a new node group, which the provider creates after deleting the old one \
          (the plan warns). The desired size is set at creation; later changes by autoscalers are not drift. \
          With `efa = true`, `capacity_types = [\"capacity-block\"]`, a capacity reservation, user data, block device \
          mappings, network interfaces, instance tags, `ebs_optimized`, metadata options, detailed monitoring, security groups, a launch template description or tags, or a cluster placement group the pool owns an EC2 launch template \
          `<cluster_name>-<pool name>` (EFA interfaces, the Capacity Block, the disk); a change to it is a new \
          template version the node group rolls to. The node group carries the Cluster Autoscaler's tags \
          (`k8s.io/cluster-autoscaler/enabled`, `k8s.io/cluster-autoscaler/<cluster_name>`, node-template tags \
          per label, taint and resource): run the autoscaler with \
          `--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/<cluster_name>` \
          and `eks:DescribeNodegroup` to scale a group up from zero; a pool tag on the same key wins. \
          The resource tags say what a new node will advertise, the fewest of the group's types: `nvidia.com/gpu` \
          times the time-slicing or MPS replicas (`nvidia.com/gpu.shared` instead when renamed), each \
          `nvidia.com/mig-<profile>` and no `nvidia.com/gpu` under MIG `mixed`, `aws.amazon.com/neuron` and \
          `aws.amazon.com/neuroncore` on Neuron, `vpc.amazonaws.com/efa` with `efa`. Nodes that advertise \
          `nvidia.com/gpu` carry the autoscaler's GPU label `k8s.amazonaws.com/accelerator = nvidia-<gpu>` (and its \
          tag), so it waits for their GPUs instead of launching more nodes; a label of your own on that key wins.",
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
