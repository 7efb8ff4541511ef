//! The inputs of a pool's `node_class` block: a Karpenter EC2NodeClass (karpenter-provider-aws
//! v1.14.1 CRD `pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml`) or the subset an EKS Auto
//! Mode NodeClass (`eks.amazonaws.com/v1`, EKS user guide "Create a Node Class for Amazon EKS")
//! takes. Paths are under the node class's `spec`.

use super::engine::{
    Decl,
    Object::{AutoModeNodeClass, Ec2NodeClass},
    at,
};
use super::{Attr, Check, IN_CLUSTER, KARPENTER, Kinds, List, One, ReadBack, Ty, attr, lens};
use crate::model::{
    BlockDeviceMapping, CapacityReservationTerm, Kubelet, MetadataOptions, NetworkInterface, NodeClass, Pool,
    RootVolume, SelectorTerm,
};
use crate::rules::Code;
use crate::validate;

const NAME: Attr<NodeClass> = attr(
    "name",
    Ty::String,
    "Name of the node class object (EC2NodeClass or Auto Mode NodeClass), which the pool's NodePool refers to. \
     Default: the pool's name. Two pools may not render node classes of one name (EKSGPU166); a pool that uses a \
     node class another pool or tool writes sets `node_class_ref` instead.",
    lens!(NodeClass, name),
)
// metadata.name of a cluster-scoped custom resource (an RFC 1123 subdomain).
.checks(&[Check::Str("A Kubernetes object name.", validate::object_name)])
// The object's name and the NodePool's nodeClassRef.name (render::karpenter), read back from them.
.custom();

const AMI_FAMILY: Attr<NodeClass> = attr(
    "ami_family",
    Ty::String,
    "EC2NodeClass `amiFamily`: `AL2023`, `Bottlerocket`, `AL2`, `Custom`, `Windows2019`, `Windows2022` or \
     `Windows2025`. Optional beside an alias (it must then be the alias's family or `Custom`, EKSGPU167). \
     Karpenter only (EKSGPU124).",
    lens!(NodeClass, ami_family),
)
// EC2NodeClass spec.amiFamily enum (karpenter-provider-aws v1.14.1 CRD).
.checks(&[Check::OneOf(&[
    "AL2",
    "AL2023",
    "Bottlerocket",
    "Custom",
    "Windows2019",
    "Windows2022",
    "Windows2025",
])])
.only(KARPENTER, Code::EKSGPU124)
.renders(&[at(Ec2NodeClass, &["amiFamily"])]);

const AMI_ALIAS: Attr<NodeClass> = attr(
    "ami_alias",
    Ty::String,
    "Karpenter AMI alias `family@version`. Default `al2023@latest`, which picks the NVIDIA AMI variant for GPU types. Not for `auto_mode` (EKSGPU103).",
    lens!(NodeClass, ami_alias),
)
.only(KARPENTER, Code::EKSGPU103)
// A `bottlerocket` alias brings Bottlerocket's own device plugin, which the standalone one keeps
// off (render::device_plugin::serves).
.feeds(&[crate::node_strategy::outputs::Output::DevicePluginValues])
// `amiSelectorTerms: [{alias}]`, rendered with the default alias (render::karpenter).
.custom();

const ROLE: Attr<NodeClass> = attr(
    "role",
    Ty::String,
    "IAM role name of the nodes. Required for `karpenter` pools unless `instance_profile` is set, never with it \
     (EKSGPU104), and for an `auto_mode` pool's own NodeClass (EKSGPU120).",
    lens!(NodeClass, role),
)
// EC2NodeClass `spec.role` and the Auto Mode NodeClass `role` take a role name, not an ARN.
.checks(&[Check::Str("An IAM role name.", validate::iam_role_name)])
.renders(&[at(Ec2NodeClass, &["role"]), at(AutoModeNodeClass, &["role"])]);

const SUBNET_SELECTOR_TAGS: Attr<NodeClass> = attr(
    "subnet_selector_tags",
    Ty::StringMap,
    "Tags selecting the nodes' subnets. Default `karpenter.sh/discovery = <cluster_name>`.",
    lens!(NodeClass, subnet_selector_tags),
)
.checks(&[Check::SelectorTags])
// `subnetSelectorTerms: [{tags}]` with the discovery-tag default (render::karpenter).
.custom();

const SECURITY_GROUP_SELECTOR_TAGS: Attr<NodeClass> = attr(
    "security_group_selector_tags",
    Ty::StringMap,
    "Tags selecting the nodes' security groups. Default `karpenter.sh/discovery = <cluster_name>`.",
    lens!(NodeClass, security_group_selector_tags),
)
.checks(&[Check::SelectorTags])
.custom();

const TAGS: Attr<NodeClass> = attr(
    "tags",
    Ty::StringMap,
    "Tags on the EC2 resources the node class launches.",
    lens!(NodeClass, tags),
)
.checks(&[
    Check::Keys(
        "Tag keys Karpenter lets a node class set.",
        validate::node_class_tag_key,
    ),
    Check::Each("Tag values.", validate::node_class_tag_value),
])
.renders(&[at(Ec2NodeClass, &["tags"]), at(AutoModeNodeClass, &["tags"])]);

const INSTANCE_STORE_POLICY: Attr<NodeClass> = attr(
    "instance_store_policy",
    Ty::String,
    "`RAID0`: the instance-store NVMe disks (p4d, p5, g6e, …) become one array for kubelet, images and containers, \
     so large images do not need a large root volume. Karpenter only (EKSGPU124).",
    lens!(NodeClass, instance_store_policy),
)
// EC2NodeClass spec.instanceStorePolicy: enum [RAID0] (karpenter-provider-aws v1.14.1 CRD).
.checks(&[Check::OneOf(&["RAID0"])])
.only(KARPENTER, Code::EKSGPU124)
.renders(&[at(Ec2NodeClass, &["instanceStorePolicy"])]);

const RESERVATION_ID: Attr<CapacityReservationTerm> = attr(
    "id",
    Ty::String,
    "Reservation ID, `cr-…`.",
    lens!(CapacityReservationTerm, id),
)
.checks(&[Check::Str(
    "A capacity reservation ID.",
    validate::capacity_reservation_id,
)])
.renders(&[at(Ec2NodeClass, &["id"]), at(AutoModeNodeClass, &["id"])]);

const RESERVATION_TAGS: Attr<CapacityReservationTerm> = attr(
    "tags",
    Ty::StringMap,
    "Tags selecting reservations (`*` matches any value).",
    lens!(CapacityReservationTerm, tags),
)
.checks(&[Check::SelectorTags])
.renders(&[at(Ec2NodeClass, &["tags"]), at(AutoModeNodeClass, &["tags"])]);

const RESERVATION_OWNER: Attr<CapacityReservationTerm> = attr(
    "owner_id",
    Ty::String,
    "12-digit account ID owning shared reservations.",
    lens!(CapacityReservationTerm, owner_id),
)
.checks(&[Check::Str("An AWS account ID.", validate::aws_account_id)])
// EC2NodeClass `ownerID` (v1.14.1 CRD); the Auto Mode NodeClass spells it `owner` (EKS user guide,
// Control deployment of workloads into Capacity Reservations with EKS Auto Mode,
// https://docs.aws.amazon.com/eks/latest/userguide/auto-odcr.html).
.renders(&[at(Ec2NodeClass, &["ownerID"]), at(AutoModeNodeClass, &["owner"])]);

const RESERVATION_MATCH: Attr<CapacityReservationTerm> = attr(
    "instance_match_criteria",
    Ty::String,
    "`open` or `targeted`.",
    lens!(CapacityReservationTerm, instance_match_criteria),
)
.checks(&[Check::OneOf(&["open", "targeted"])])
.renders(&[
    at(Ec2NodeClass, &["instanceMatchCriteria"]),
    at(AutoModeNodeClass, &["instanceMatchCriteria"]),
]);

/// `capacityReservationSelectorTerms`: ODCRs and Capacity Blocks for ML that `reserved` capacity
/// may use (EC2NodeClass v1.14.1; the Auto Mode NodeClass has the same field).
const CAPACITY_RESERVATION: List<NodeClass, CapacityReservationTerm> = List {
    name: "capacity_reservations",
    doc: "A term of `capacityReservationSelectorTerms`: On-Demand Capacity Reservations or Capacity Blocks for ML \
          that `reserved` capacity launches into (Karpenter 1.3+, Auto Mode). Select one by `id` alone, or several by \
          `tags` (and `owner_id`) or `instance_match_criteria` (EKSGPU129); allow `reserved` in `capacity_types` \
          (EKSGPU119, EKSGPU128).",
    kinds: Kinds::All,
    min_items: None,
    // EC2NodeClass spec.capacityReservationSelectorTerms: maxItems 30 (validate::SELECTOR_TERMS_MAX).
    max_items: Some(crate::validate::SELECTOR_TERMS_MAX as i64),
    renders: &[
        at(Ec2NodeClass, &["capacityReservationSelectorTerms"]),
        at(AutoModeNodeClass, &["capacityReservationSelectorTerms"]),
    ],
    read_back: ReadBack::Live,
    children: &[
        &RESERVATION_ID,
        &RESERVATION_TAGS,
        &RESERVATION_OWNER,
        &RESERVATION_MATCH,
    ],
    get: |nc| &nc.capacity_reservations,
    put: |nc, t| nc.capacity_reservations = t,
};

const HTTP_TOKENS: Attr<MetadataOptions> = attr(
    "http_tokens",
    Ty::String,
    "`required` (IMDSv2 only) or `optional`. Default `required`.",
    lens!(MetadataOptions, http_tokens),
)
.checks(&[Check::OneOf(&["required", "optional"])])
// IMDSv2 stays required unless the user says otherwise.
.renders(&[at(Ec2NodeClass, &["httpTokens"])])
.unset(super::Lit::Str("required"));

const HOP_LIMIT: Attr<MetadataOptions> = attr(
    "http_put_response_hop_limit",
    Ty::Number,
    "IMDS PUT response hop limit, 1–64. Set `2` when pods (e.g. ones using the node role or IMDS for the region) must reach IMDS. Default Karpenter's `1`.",
    lens!(MetadataOptions, http_put_response_hop_limit),
)
// EC2NodeClass metadataOptions.httpPutResponseHopLimit: minimum 1, maximum 64.
.checks(&[Check::Int(1, 64, "EC2NodeClass `metadataOptions.httpPutResponseHopLimit`")])
.renders(&[at(Ec2NodeClass, &["httpPutResponseHopLimit"])]);

/// EC2NodeClass `metadataOptions` (v1.14.1 CRD: httpTokens required|optional, hop limit 1–64).
const METADATA_OPTIONS: One<NodeClass, MetadataOptions> = One {
    name: "metadata_options",
    doc: "Instance metadata (IMDS) of the nodes: EC2NodeClass `metadataOptions`. Without it Karpenter's default \
          applies (IMDSv2 required, hop limit 1, so pods without host networking cannot reach IMDS). Karpenter only (EKSGPU124).",
    kinds: Kinds::Only(KARPENTER, Code::EKSGPU124),
    renders: &[at(Ec2NodeClass, &["metadataOptions"])],
    read_back: ReadBack::Live,
    children: &[&HTTP_TOKENS, &HOP_LIMIT],
    get: |nc| nc.metadata_options.as_ref(),
    put: |nc, m| {
        nc.metadata_options = m;
        Ok(())
    },
};

const SIZE: Attr<RootVolume> = attr(
    "size",
    Ty::String,
    "Size as a Kubernetes quantity, e.g. `200Gi`. Default on Karpenter `20Gi`, on Auto Mode `80Gi`; under `30Gi` a GPU pool warns (EKSGPU123).",
    lens!(RootVolume, size),
)
.checks(&[Check::Str("A Kubernetes quantity.", validate::quantity)])
// What each node class takes (the EC2NodeClass volumeSize pattern, EC2's sizes per volume type,
// Auto Mode's ephemeralStorage ranges) is EKSGPU133 (node_strategy::rules::root_volume).
.custom();

const VOLUME_TYPE: Attr<RootVolume> = attr(
    "volume_type",
    Ty::String,
    "EBS volume type. Default `gp3`. Karpenter only (EKSGPU124).",
    lens!(RootVolume, volume_type),
)
.checks(&[Check::Str("An EBS volume type.", validate::ebs_volume_type)])
// Auto Mode's ephemeralStorage has no volume type: it is gp3 (EKS user guide, Create a Node Class).
.only(KARPENTER, Code::EKSGPU124)
.custom();

const IOPS: Attr<RootVolume> = attr("iops", Ty::Number, "Provisioned IOPS.", lens!(RootVolume, iops))
    // EC2NodeClass blockDeviceMappings[].ebs.iops is int64; EBS allows 100–256000 (io2 Block Express).
    .checks(&[Check::Int(100, 256_000, "EBS `iops`")])
    .custom();

const THROUGHPUT: Attr<RootVolume> = attr(
    "throughput",
    Ty::Number,
    "Throughput in MiB/s.",
    lens!(RootVolume, throughput),
)
// gp3 throughput is 125–2000 MiB/s (EBS volume types, AWS docs).
.checks(&[Check::Int(125, 2000, "EBS gp3 `throughput`, MiB/s")])
.custom();

const ENCRYPTED: Attr<RootVolume> = attr(
    "encrypted",
    Ty::Bool,
    "Encrypt the volume. Karpenter only (EKSGPU124).",
    lens!(RootVolume, encrypted),
)
// Auto Mode's ephemeralStorage is always encrypted and has no flag (EKS user guide, Create a Node Class).
.only(KARPENTER, Code::EKSGPU124)
.custom();

/// Rendered by hand: `blockDeviceMappings` (one volume on AL2023, OS and data volumes on
/// Bottlerocket) or Auto Mode's `ephemeralStorage` (render::karpenter, readback).
const ROOT_VOLUME: One<NodeClass, RootVolume> = One {
    name: "root_volume",
    doc: "Root volume (`blockDeviceMappings` on Karpenter, `ephemeralStorage` on Auto Mode). With a `bottlerocket@…` alias it is Bottlerocket's data volume `/dev/xvdb` (kubelet, images, containers); the OS volume `/dev/xvda` keeps 4Gi.",
    kinds: Kinds::All,
    renders: &[],
    read_back: ReadBack::Custom,
    children: &[&SIZE, &VOLUME_TYPE, &IOPS, &THROUGHPUT, &ENCRYPTED],
    get: |nc| nc.root_volume.as_ref(),
    put: |nc, r| {
        nc.root_volume = r;
        Ok(())
    },
};

const MAX_PODS: Attr<Kubelet> = attr("max_pods", Ty::Number, "Most pods per node.", lens!(Kubelet, max_pods))
    // EC2NodeClass spec.kubelet.maxPods is int32, minimum 0 (karpenter-provider-aws v1.14.1 CRD).
    .checks(&[Check::Int32(0, i32::MAX, "EC2NodeClass `kubelet.maxPods`")])
    .renders(&[at(Ec2NodeClass, &["maxPods"])]);

const EVICTION_HARD: Attr<Kubelet> = attr(
    "eviction_hard",
    Ty::StringMap,
    "Hard eviction thresholds, e.g. `{\"memory.available\" = \"5%\"}`.",
    lens!(Kubelet, eviction_hard),
)
.checks(&[
    Check::Keys("Kubelet eviction signals.", validate::eviction_signal),
    Check::Each(
        "Eviction thresholds (a percentage or a quantity).",
        validate::eviction_threshold,
    ),
])
.renders(&[at(Ec2NodeClass, &["evictionHard"])]);

/// Kubelet settings live on the EC2NodeClass in Karpenter v1 (the NodePool has none).
const KUBELET: One<NodeClass, Kubelet> = One {
    name: "kubelet",
    doc: "Kubelet settings, rendered on the EC2NodeClass (Karpenter v1 has no NodePool kubelet). Not for `auto_mode` (EKSGPU006).",
    kinds: Kinds::Only(KARPENTER, Code::EKSGPU006),
    renders: &[at(Ec2NodeClass, &["kubelet"])],
    read_back: ReadBack::Live,
    children: &[&MAX_PODS, &EVICTION_HARD],
    get: |nc| nc.kubelet.as_ref(),
    put: |nc, k| {
        nc.kubelet = k;
        Ok(())
    },
};

const INSTANCE_PROFILE: Attr<NodeClass> = attr(
    "instance_profile",
    Ty::String,
    "IAM instance profile of the nodes, instead of `role` (the EC2NodeClass takes exactly one of them, EKSGPU104): \
     for profiles managed outside Karpenter. Karpenter only (EKSGPU124).",
    lens!(NodeClass, instance_profile),
)
// EC2NodeClass spec.instanceProfile: CEL `self != ''`; exactly one of role and instanceProfile.
.checks(&[Check::Str(
    "An IAM instance profile name.",
    validate::instance_profile_name,
)])
.only(KARPENTER, Code::EKSGPU124)
.renders(&[at(Ec2NodeClass, &["instanceProfile"])]);

const SUBNET_SELECTOR_IDS: Attr<NodeClass> = attr(
    "subnet_selector_ids",
    Ty::StringList,
    "Subnets by ID (`subnet-…`), each its own `subnetSelectorTerms` term, beside any `subnet_selector_tags`. \
     Without tags, the discovery-tag default is not added.",
    lens!(NodeClass, subnet_selector_ids),
)
.checks(&[Check::Each("Subnet IDs.", validate::subnet_id), Check::Distinct])
// `subnetSelectorTerms: [{id}]` beside the tags term (render::karpenter): an `id` term takes no tags (CEL rule).
.custom();

const SECURITY_GROUP_SELECTOR_IDS: Attr<NodeClass> = attr(
    "security_group_selector_ids",
    Ty::StringList,
    "Security groups by ID (`sg-…`), each its own `securityGroupSelectorTerms` term, beside any \
     `security_group_selector_tags`. Without tags, the discovery-tag default is not added.",
    lens!(NodeClass, security_group_selector_ids),
)
.checks(&[
    Check::Each("Security group IDs.", validate::security_group_id),
    Check::Distinct,
])
.custom();

const SG_TERM_TAGS: Attr<SelectorTerm> = attr(
    "tags",
    Ty::StringMap,
    "Tags a security group must all carry (`*` matches any value).",
    lens!(SelectorTerm, tags),
)
.checks(&[Check::SelectorTags])
.renders(&[at(Ec2NodeClass, &["tags"]), at(AutoModeNodeClass, &["tags"])]);

const SG_TERM_ID: Attr<SelectorTerm> = attr(
    "id",
    Ty::String,
    "A security group by ID (`sg-…`); alone in its term (EKSGPU324).",
    lens!(SelectorTerm, id),
)
.checks(&[Check::Str("A security group ID.", validate::security_group_id)])
.renders(&[at(Ec2NodeClass, &["id"]), at(AutoModeNodeClass, &["id"])]);

const SG_TERM_NAME: Attr<SelectorTerm> = attr(
    "name",
    Ty::String,
    "A security group by its EC2 name (not its Name tag); alone in its term (EKSGPU324).",
    lens!(SelectorTerm, name),
)
.renders(&[at(Ec2NodeClass, &["name"]), at(AutoModeNodeClass, &["name"])]);

/// `securityGroupSelectorTerms` term by term (EC2NodeClass v1.14.1 CRD: maxItems 30, terms ORed).
const SECURITY_GROUP_SELECTOR_TERMS: List<NodeClass, SelectorTerm> = List {
    name: "security_group_selector_terms",
    doc: "A `securityGroupSelectorTerms` term, written as Karpenter takes it: the terms are ORed (a group matching any \
          of them is used), the fields of one term ANDed; `id` and `name` stand alone in their term. Instead of \
          `security_group_selector_tags` and `security_group_selector_ids` (EKSGPU324), e.g. two tag terms for the \
          cluster's and the workload's groups.",
    kinds: Kinds::All,
    min_items: None,
    // EC2NodeClass spec.securityGroupSelectorTerms: maxItems 30 (validate::SELECTOR_TERMS_MAX).
    max_items: Some(crate::validate::SELECTOR_TERMS_MAX as i64),
    renders: &[
        at(Ec2NodeClass, &["securityGroupSelectorTerms"]),
        at(AutoModeNodeClass, &["securityGroupSelectorTerms"]),
    ],
    // Beside the tags and ids forms, which render into the same list (readback splits them).
    read_back: ReadBack::Custom,
    children: &[&SG_TERM_TAGS, &SG_TERM_ID, &SG_TERM_NAME],
    get: |nc| &nc.security_group_selector_terms,
    put: |nc, t| nc.security_group_selector_terms = t,
};

/// The fields of one `security_group_selector_terms` entry (rendered and read back by hand).
pub const SELECTOR_TERM_FIELDS: &[&dyn Decl<SelectorTerm>] = &[&SG_TERM_TAGS, &SG_TERM_ID, &SG_TERM_NAME];

const ASSOCIATE_PUBLIC_IP_ADDRESS: Attr<NodeClass> = attr(
    "associate_public_ip_address",
    Ty::Bool,
    "Whether nodes get a public IPv4 address (EC2NodeClass `associatePublicIPAddress`; Auto Mode \
     `advancedNetworking.associatePublicIPAddress`). Default: the subnet's setting.",
    lens!(NodeClass, associate_public_ip_address),
)
// EKS user guide, Create a Node Class (Auto Mode `spec.advancedNetworking.associatePublicIPAddress`, 2025-08-06).
.renders(&[
    at(Ec2NodeClass, &["associatePublicIPAddress"]),
    at(AutoModeNodeClass, &["advancedNetworking", "associatePublicIPAddress"]),
]);

const DETAILED_MONITORING: Attr<NodeClass> = attr(
    "detailed_monitoring",
    Ty::Bool,
    "EC2 detailed (1-minute) CloudWatch monitoring of the nodes: EC2NodeClass `detailedMonitoring`. Karpenter only \
     (EKSGPU124). Default `false`.",
    lens!(NodeClass, detailed_monitoring),
)
.only(KARPENTER, Code::EKSGPU124)
.renders(&[at(Ec2NodeClass, &["detailedMonitoring"])]);

const USER_DATA: Attr<NodeClass> = attr(
    "user_data",
    Ty::String,
    "EC2NodeClass `userData`, which Karpenter merges with what it generates: a MIME multi-part document with a \
     nodeadm `NodeConfig` on AL2023, TOML settings on Bottlerocket. Kubelet settings the provider also renders \
     (`kubelet.max_pods`, `kubelet.eviction_hard`) must be set in one place only (EKSGPU174). Karpenter only (EKSGPU124).",
    lens!(NodeClass, user_data),
)
.only(KARPENTER, Code::EKSGPU124)
.renders(&[at(Ec2NodeClass, &["userData"])]);

const BDM_DEVICE_NAME: Attr<BlockDeviceMapping> = attr(
    "device_name",
    Ty::String,
    "Device name, e.g. `/dev/xvda` (AL2023 root, Bottlerocket OS volume) or `/dev/xvdb` (Bottlerocket data volume).",
    lens!(BlockDeviceMapping, device_name),
)
.required()
.renders(&[at(Ec2NodeClass, &["deviceName"])]);

const BDM_VOLUME_SIZE: Attr<BlockDeviceMapping> = attr(
    "volume_size",
    Ty::String,
    "Size in `Gi`, `G`, `Ti` or `T`, e.g. `100Gi`. Required unless `snapshot_id` is set (EKSGPU175).",
    lens!(BlockDeviceMapping, volume_size),
)
.checks(&[Check::Str(
    "A volume size the EC2NodeClass accepts.",
    validate::ec2_node_class_volume_size,
)])
.renders(&[at(Ec2NodeClass, &["ebs", "volumeSize"])]);

const BDM_VOLUME_TYPE: Attr<BlockDeviceMapping> = attr(
    "volume_type",
    Ty::String,
    "EBS volume type (`gp3`, `gp2`, `io1`, `io2`, `sc1`, `st1`, `standard`).",
    lens!(BlockDeviceMapping, volume_type),
)
.checks(&[Check::Str("An EBS volume type.", validate::ebs_volume_type)])
.renders(&[at(Ec2NodeClass, &["ebs", "volumeType"])]);

const BDM_IOPS: Attr<BlockDeviceMapping> =
    attr("iops", Ty::Number, "Provisioned IOPS.", lens!(BlockDeviceMapping, iops))
        // ebs.iops is int64; EBS allows 100–256000 (io2 Block Express).
        .checks(&[Check::Int(100, 256_000, "EBS `iops`")])
        .renders(&[at(Ec2NodeClass, &["ebs", "iops"])]);

const BDM_THROUGHPUT: Attr<BlockDeviceMapping> = attr(
    "throughput",
    Ty::Number,
    "Throughput in MiB/s (gp3).",
    lens!(BlockDeviceMapping, throughput),
)
.checks(&[Check::Int(125, 2000, "EBS gp3 `throughput`, MiB/s")])
.renders(&[at(Ec2NodeClass, &["ebs", "throughput"])]);

const BDM_ENCRYPTED: Attr<BlockDeviceMapping> = attr(
    "encrypted",
    Ty::Bool,
    "Encrypt the volume.",
    lens!(BlockDeviceMapping, encrypted),
)
.renders(&[at(Ec2NodeClass, &["ebs", "encrypted"])]);

const BDM_DELETE_ON_TERMINATION: Attr<BlockDeviceMapping> = attr(
    "delete_on_termination",
    Ty::Bool,
    "Delete the volume when the node terminates. Default EC2's `true`.",
    lens!(BlockDeviceMapping, delete_on_termination),
)
.renders(&[at(Ec2NodeClass, &["ebs", "deleteOnTermination"])]);

const BDM_SNAPSHOT_ID: Attr<BlockDeviceMapping> = attr(
    "snapshot_id",
    Ty::String,
    "EBS snapshot to create the volume from (`snap-…`), e.g. one with pre-pulled model images.",
    lens!(BlockDeviceMapping, snapshot_id),
)
.checks(&[Check::Str("An EBS snapshot ID.", validate::ebs_snapshot_id)])
.renders(&[at(Ec2NodeClass, &["ebs", "snapshotID"])]);

const BDM_KMS_KEY_ID: Attr<BlockDeviceMapping> = attr(
    "kms_key_id",
    Ty::String,
    "KMS key (ID or ARN) that encrypts the volume.",
    lens!(BlockDeviceMapping, kms_key_id),
)
.renders(&[at(Ec2NodeClass, &["ebs", "kmsKeyID"])]);

/// The fields of one `block_device_mappings` entry, each a projection onto its mapping; the list is
/// rendered by hand beside the root volume's mappings (render::karpenter, readback).
pub const BLOCK_DEVICE_MAPPING_FIELDS: &[&dyn Decl<BlockDeviceMapping>] = &[
    &BDM_DEVICE_NAME,
    &BDM_VOLUME_SIZE,
    &BDM_VOLUME_TYPE,
    &BDM_IOPS,
    &BDM_THROUGHPUT,
    &BDM_ENCRYPTED,
    &BDM_DELETE_ON_TERMINATION,
    &BDM_SNAPSHOT_ID,
    &BDM_KMS_KEY_ID,
];

const BLOCK_DEVICE_MAPPING: List<NodeClass, BlockDeviceMapping> = List {
    name: "block_device_mappings",
    doc: "An EC2NodeClass `blockDeviceMappings` entry, rendered as written, beside or instead of `root_volume`: on \
          Bottlerocket, `/dev/xvda` sizes the OS volume (the provider's 4Gi otherwise) while `root_volume` sizes the \
          data volume `/dev/xvdb`; a mapping may not repeat a device `root_volume` renders (EKSGPU175). Karpenter \
          only (EKSGPU124).",
    kinds: Kinds::Only(KARPENTER, Code::EKSGPU124),
    min_items: None,
    // EC2NodeClass spec.blockDeviceMappings: maxItems 50 (validate::BLOCK_DEVICE_MAPPINGS_MAX); EKSGPU142
    // counts them with the root volume's.
    max_items: Some(crate::validate::BLOCK_DEVICE_MAPPINGS_MAX as i64),
    renders: &[],
    read_back: ReadBack::Custom,
    children: BLOCK_DEVICE_MAPPING_FIELDS,
    get: |nc| &nc.block_device_mappings,
    put: |nc, b| nc.block_device_mappings = b,
};

const NI_CARD: Attr<NetworkInterface> = attr(
    "network_card_index",
    Ty::Number,
    "Network card of the interface (0 is the primary card).",
    lens!(NetworkInterface, network_card_index),
)
.required()
// networkInterfaces[].networkCardIndex: int32, minimum 0.
.checks(&[Check::Int32(
    0,
    i32::MAX,
    "EC2NodeClass `networkInterfaces[].networkCardIndex`",
)])
.renders(&[at(Ec2NodeClass, &["networkCardIndex"])]);

const NI_DEVICE: Attr<NetworkInterface> = attr(
    "device_index",
    Ty::Number,
    "Device index on the card (0 for the primary interface).",
    lens!(NetworkInterface, device_index),
)
.required()
.checks(&[Check::Int32(
    0,
    i32::MAX,
    "EC2NodeClass `networkInterfaces[].deviceIndex`",
)])
.renders(&[at(Ec2NodeClass, &["deviceIndex"])]);

const NI_TYPE: Attr<NetworkInterface> = attr(
    "interface_type",
    Ty::String,
    "`interface` (an ENA interface, EFA-capable on EFA types) or `efa-only`.",
    lens!(NetworkInterface, interface_type),
)
.required()
// networkInterfaces[].interfaceType enum [interface, efa-only].
.checks(&[Check::OneOf(&["interface", "efa-only"])])
.renders(&[at(Ec2NodeClass, &["interfaceType"])]);

/// EC2NodeClass `networkInterfaces` (v1.14.1 CRD, maxItems 150).
const NETWORK_INTERFACE: List<NodeClass, NetworkInterface> = List {
    name: "network_interfaces",
    doc: "An EC2NodeClass `networkInterfaces` entry: explicit ENA and EFA interfaces per network card, as multi-node \
          training pools on p4d/p5 write them. The list needs the primary interface (card 0, device 0, `interface`), \
          no card/device pair twice and at most one `efa-only` per card (EKSGPU176); `efa-only` needs EFA types with \
          enough EFA interfaces (EKSGPU126). Karpenter only (EKSGPU124).",
    kinds: Kinds::Only(KARPENTER, Code::EKSGPU124),
    min_items: None,
    max_items: Some(crate::validate::NETWORK_INTERFACES_MAX as i64),
    renders: &[at(Ec2NodeClass, &["networkInterfaces"])],
    read_back: ReadBack::Live,
    children: &[&NI_CARD, &NI_DEVICE, &NI_TYPE],
    get: |nc| &nc.network_interfaces,
    put: |nc, n| nc.network_interfaces = n,
};

/// The node class's inputs, in schema order.
pub const NODE_CLASS: &[&dyn Decl<NodeClass>] = &[
    &NAME,
    &AMI_FAMILY,
    &AMI_ALIAS,
    &ROLE,
    &SUBNET_SELECTOR_TAGS,
    &SECURITY_GROUP_SELECTOR_TAGS,
    &TAGS,
    &INSTANCE_STORE_POLICY,
    &CAPACITY_RESERVATION,
    &METADATA_OPTIONS,
    &INSTANCE_PROFILE,
    &SUBNET_SELECTOR_IDS,
    &SECURITY_GROUP_SELECTOR_IDS,
    &SECURITY_GROUP_SELECTOR_TERMS,
    &ASSOCIATE_PUBLIC_IP_ADDRESS,
    &DETAILED_MONITORING,
    &USER_DATA,
    &ROOT_VOLUME,
    &KUBELET,
    &BLOCK_DEVICE_MAPPING,
    &NETWORK_INTERFACE,
];

/// The pool's `node_class` block: rendered as its own object, which the renderers build with
/// [`NODE_CLASS`] (and read back from the live node class).
pub(super) const NODE_CLASS_BLOCK: One<Pool, NodeClass> = One {
    name: "node_class",
    doc: "The node class of the pool: a Karpenter `EC2NodeClass` (named like the pool unless `name` says otherwise) \
          for `karpenter` pools, or an `eks.amazonaws.com/v1` NodeClass for `auto_mode` pools (without it, Auto Mode's \
          built-in `default`, or the node class `node_class_ref` names).",
    kinds: Kinds::Only(IN_CLUSTER, Code::EKSGPU115),
    renders: &[],
    read_back: ReadBack::Custom,
    children: NODE_CLASS,
    get: |p| p.node_class.as_ref(),
    put: |p, nc| {
        p.node_class = nc;
        Ok(())
    },
};
