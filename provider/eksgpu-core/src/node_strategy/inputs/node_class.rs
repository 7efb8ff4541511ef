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
use crate::model::{CapacityReservationTerm, Kubelet, MetadataOptions, NodeClass, Pool, RootVolume};
use crate::rules::Code;
use crate::validate;

const AMI_ALIAS: Attr<NodeClass> = attr(
    "ami_alias",
    Ty::String,
    "Karpenter AMI alias `family@version`. Default `al2023@latest`, which picks the NVIDIA AMI variant for GPU types. Not for `auto_mode` (EKSGPU103).",
    lens!(NodeClass, ami_alias),
)
.only(KARPENTER, Code::EKSGPU103)
// `amiSelectorTerms: [{alias}]`, rendered with the default alias (render::karpenter).
.custom();

const ROLE: Attr<NodeClass> = attr(
    "role",
    Ty::String,
    "IAM role name of the nodes. Required for `karpenter` pools (EKSGPU104) and for an `auto_mode` pool's own NodeClass (EKSGPU120).",
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
    name: "capacity_reservation",
    doc: "A term of `capacityReservationSelectorTerms`: On-Demand Capacity Reservations or Capacity Blocks for ML \
          that `reserved` capacity launches into (Karpenter 1.3+, Auto Mode). Select one by `id` alone, or several by \
          `tags` (and `owner_id`) or `instance_match_criteria` (EKSGPU129); allow `reserved` in `capacity_types` \
          (EKSGPU119, EKSGPU128).",
    kinds: Kinds::All,
    min_items: None,
    // EC2NodeClass spec.capacityReservationSelectorTerms: maxItems 30 (v1.14.1 CRD).
    max_items: Some(30),
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
    doc: "Instance metadata (IMDS) of the nodes: EC2NodeClass `metadataOptions`. Without this block Karpenter's default \
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

/// The node class's inputs, in schema order.
pub const NODE_CLASS: &[&dyn Decl<NodeClass>] = &[
    &AMI_ALIAS,
    &ROLE,
    &SUBNET_SELECTOR_TAGS,
    &SECURITY_GROUP_SELECTOR_TAGS,
    &TAGS,
    &INSTANCE_STORE_POLICY,
    &CAPACITY_RESERVATION,
    &METADATA_OPTIONS,
    &ROOT_VOLUME,
    &KUBELET,
];

/// The pool's `node_class` block: rendered as its own object, which the renderers build with
/// [`NODE_CLASS`] (and read back from the live node class).
pub(super) const NODE_CLASS_BLOCK: One<Pool, NodeClass> = One {
    name: "node_class",
    doc: "The node class of the pool: a Karpenter `EC2NodeClass` (named like the pool) for `karpenter` pools, or an \
          `eks.amazonaws.com/v1` NodeClass for `auto_mode` pools (without this block, Auto Mode's built-in `default`).",
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
