//! The node strategy as the domain sees it: plain data, built by the provider
//! from a fully known configuration. No Terraform or Kubernetes types here.

pub mod accelerator;
pub mod cluster_managers;
pub mod inputs;
pub mod matching;
pub mod outputs;
pub mod readback;
pub mod render;
pub mod rules;

use std::collections::BTreeMap;

/// Where a pool's nodes come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capacity {
    AutoMode,
    Karpenter,
    ManagedNodeGroup,
    Hybrid,
}

/// The HCL spelling of every capacity kind.
pub const CAPACITY_KINDS: &[&str] = &["auto_mode", "karpenter", "managed_node_group", "hybrid"];

/// Only so a pool can be read into a blank one; `capacity` is required.
impl Default for Capacity {
    fn default() -> Self {
        Capacity::Karpenter
    }
}

impl Capacity {
    pub const ALL: [Capacity; 4] = [
        Capacity::AutoMode,
        Capacity::Karpenter,
        Capacity::ManagedNodeGroup,
        Capacity::Hybrid,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Capacity::AutoMode => "auto_mode",
            Capacity::Karpenter => "karpenter",
            Capacity::ManagedNodeGroup => "managed_node_group",
            Capacity::Hybrid => "hybrid",
        }
    }

    pub fn parse(s: &str) -> Option<Capacity> {
        Capacity::ALL.into_iter().find(|c| c.as_str() == s)
    }

    pub fn is_aws_api(self) -> bool {
        !self.is_in_cluster()
    }

    /// Capacity whose nodes Karpenter (or Auto Mode's managed Karpenter) provisions.
    pub fn is_in_cluster(self) -> bool {
        matches!(self, Capacity::AutoMode | Capacity::Karpenter)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Taint {
    pub key: String,
    pub value: Option<String>,
    /// Kubernetes spelling: `NoSchedule`, `PreferNoSchedule`, `NoExecute`.
    pub effect: String,
}

impl Taint {
    /// `nvidia.com/gpu=true:NoSchedule`, the default on GPU pools.
    pub fn default_gpu() -> Taint {
        Taint {
            key: "nvidia.com/gpu".into(),
            value: Some("true".into()),
            effect: "NoSchedule".into(),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Disruption {
    pub consolidation_policy: Option<String>,
    pub consolidate_after: Option<String>,
    /// `disruption.budgets`; empty leaves Karpenter's default (`[{nodes: 10%}]`).
    pub budgets: Vec<Budget>,
}

/// A NodePool disruption budget (karpenter.sh/v1 NodePool `spec.disruption.budgets[]`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Budget {
    /// A node count (`0`, `2`) or a percentage (`10%`).
    pub nodes: String,
    /// Cron schedule when the budget starts being active; set together with `duration`.
    pub schedule: Option<String>,
    /// How long it stays active after each schedule hit (`8h`, `30m`).
    pub duration: Option<String>,
    /// `Underutilized`, `Empty`, `Drifted`; empty means every reason.
    pub reasons: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RootVolume {
    /// Kubernetes quantity, e.g. `200Gi`.
    pub size: Option<String>,
    pub volume_type: Option<String>,
    pub iops: Option<i64>,
    pub throughput: Option<i64>,
    pub encrypted: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Kubelet {
    pub max_pods: Option<i64>,
    pub eviction_hard: BTreeMap<String, String>,
}

/// EC2NodeClass `metadataOptions` (instance metadata service of the nodes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MetadataOptions {
    /// `required` (IMDSv2 only, rendered when unset) or `optional`.
    pub http_tokens: Option<String>,
    /// 1–64; 2 lets pods without host networking reach IMDS through the extra hop.
    pub http_put_response_hop_limit: Option<i64>,
}

/// One `capacityReservationSelectorTerms` term: a reservation by `id`, or by `tags` (and owner)
/// or `instance_match_criteria` (EC2NodeClass and Auto Mode NodeClass).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CapacityReservationTerm {
    /// `cr-…`; exclusive with the other fields.
    pub id: Option<String>,
    pub tags: BTreeMap<String, String>,
    /// 12-digit account ID owning the reservation (shared reservations).
    pub owner_id: Option<String>,
    /// `open` or `targeted`.
    pub instance_match_criteria: Option<String>,
}

/// One NodePool requirement on a node label (karpenter.sh/v1 NodePool
/// `spec.template.spec.requirements[]`), rendered as written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Requirement {
    /// A well-known label (`karpenter.k8s.aws/instance-gpu-count`) or a custom one.
    pub key: String,
    /// `In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`, `Gte`, `Lte`.
    pub operator: String,
    pub values: Vec<String>,
}

/// One EC2NodeClass `blockDeviceMappings[]` entry, rendered as written (beside or instead of
/// the provider's root-volume mapping).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlockDeviceMapping {
    pub device_name: String,
    /// `ebs.volumeSize` (`100Gi`); required unless `snapshot_id` is set (CEL rule).
    pub volume_size: Option<String>,
    pub volume_type: Option<String>,
    pub iops: Option<i64>,
    pub throughput: Option<i64>,
    pub encrypted: Option<bool>,
    pub delete_on_termination: Option<bool>,
    pub snapshot_id: Option<String>,
    pub kms_key_id: Option<String>,
}

/// One explicit network interface: an EC2NodeClass `networkInterfaces[]` entry, or one of a node
/// group launch template's `NetworkInterfaces`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NetworkInterface {
    pub network_card_index: i64,
    pub device_index: i64,
    /// `interface` (ENA), `efa-only` (an EFA device without ENA), and in a node group's launch
    /// template also `efa` (EFA with ENA).
    pub interface_type: String,
    /// Node group launch templates only: `AssociatePublicIpAddress`.
    pub associate_public_ip_address: Option<bool>,
    /// Node group launch templates only: `DeleteOnTermination`.
    pub delete_on_termination: Option<bool>,
    /// Node group launch templates only: `Description`.
    pub description: Option<String>,
    /// Node group launch templates only: `Groups` (security group IDs).
    pub security_group_ids: Vec<String>,
}

impl NetworkInterface {
    /// Whether the interface carries an EFA device.
    pub fn is_efa(&self) -> bool {
        self.interface_type == "efa" || self.interface_type == "efa-only"
    }
}

/// One `securityGroupSelectorTerms` term: by tags, by ID or by name. Terms are ORed (a group
/// matching any term is selected); the fields of one term are ANDed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SelectorTerm {
    pub tags: BTreeMap<String, String>,
    /// `sg-…`; exclusive with the other fields (EC2NodeClass CEL rule).
    pub id: Option<String>,
    /// The group's name (EC2 `group-name`).
    pub name: Option<String>,
}

/// A Karpenter NodeOverlay written by hand (`karpenter.sh/v1alpha1`), e.g. the extended resource
/// of fractional GPUs EC2 reports as none, or the time-sliced count of a Bottlerocket node.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeOverlay {
    /// The object's name.
    pub name: String,
    /// Higher weights win when overlays match the same instance type.
    pub weight: Option<i64>,
    /// Which instance types it applies to (NodePool requirement syntax).
    pub requirements: Vec<Requirement>,
    /// Extended resources the matching types advertise (resource name → quantity).
    pub capacity: BTreeMap<String, String>,
    /// An absolute price; exclusive with `price_adjustment`.
    pub price: Option<String>,
    /// `+10%`, `-0.50`.
    pub price_adjustment: Option<String>,
}

/// Karpenter EC2NodeClass, or the subset an Auto Mode NodeClass takes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeClass {
    /// The node class object's name; `None` is the pool's name.
    pub name: Option<String>,
    /// EC2NodeClass `amiFamily` (`AL2023`, `Bottlerocket`, …), beside the alias; Karpenter only.
    pub ami_family: Option<String>,
    /// `securityGroupSelectorTerms` written term by term (ORed), instead of the tags / IDs forms.
    pub security_group_selector_terms: Vec<SelectorTerm>,
    pub ami_alias: Option<String>,
    pub role: Option<String>,
    pub subnet_selector_tags: BTreeMap<String, String>,
    pub security_group_selector_tags: BTreeMap<String, String>,
    pub root_volume: Option<RootVolume>,
    pub kubelet: Option<Kubelet>,
    pub tags: BTreeMap<String, String>,
    /// EC2NodeClass `metadataOptions`; Karpenter only.
    pub metadata_options: Option<MetadataOptions>,
    /// EC2NodeClass `instanceStorePolicy` (`RAID0`); Karpenter only.
    pub instance_store_policy: Option<String>,
    /// `capacityReservationSelectorTerms`: the On-Demand Capacity Reservations and Capacity
    /// Blocks for ML that `reserved` capacity launches into.
    pub capacity_reservations: Vec<CapacityReservationTerm>,
    /// EC2NodeClass `instanceProfile`, instead of `role` (exactly one of them); Karpenter only.
    pub instance_profile: Option<String>,
    /// EC2NodeClass `userData` (merged by Karpenter with what it generates); Karpenter only.
    pub user_data: Option<String>,
    /// EC2NodeClass `detailedMonitoring`; Karpenter only.
    pub detailed_monitoring: Option<bool>,
    /// `associatePublicIPAddress` (Auto Mode: `advancedNetworking.associatePublicIPAddress`).
    pub associate_public_ip_address: Option<bool>,
    /// Subnets by ID: one `subnetSelectorTerms` term each.
    pub subnet_selector_ids: Vec<String>,
    /// Security groups by ID: one `securityGroupSelectorTerms` term each.
    pub security_group_selector_ids: Vec<String>,
    /// `blockDeviceMappings` beside or instead of `root_volume`; Karpenter only.
    pub block_device_mappings: Vec<BlockDeviceMapping>,
    /// `networkInterfaces`; Karpenter only.
    pub network_interfaces: Vec<NetworkInterface>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pool {
    pub name: String,
    pub capacity: Capacity,
    pub instance_types: Vec<String>,
    /// NodePool requirements as written (in-cluster pools); with them `instance_types` is optional.
    pub requirements: Vec<Requirement>,
    /// NodePool `template.spec.terminationGracePeriod` (a duration, no `Never`).
    pub termination_grace_period: Option<String>,
    /// Karpenter spelling (`on-demand`, `spot`, `reserved`); empty means on-demand.
    pub capacity_types: Vec<String>,
    pub zones: Vec<String>,
    pub gpu_limit: Option<i64>,
    /// NodePool `limits.cpu` (a quantity).
    pub cpu_limit: Option<String>,
    /// NodePool `limits.memory` (a quantity).
    pub memory_limit: Option<String>,
    /// NodePool `weight` (1–100): higher weights are tried first.
    pub weight: Option<i64>,
    /// NodePool `spec.replicas`: a static NodePool of this many nodes (Karpenter 1.8+, Auto Mode).
    pub replicas: Option<i64>,
    /// NodePool `limits.nodes`: the most nodes the pool may hold.
    pub node_limit: Option<i64>,
    /// NodePool `template.spec.expireAfter` (a Karpenter duration or `Never`).
    pub expire_after: Option<String>,
    /// Labels the user asked for, before the provider adds its own.
    pub labels: BTreeMap<String, String>,
    /// Add the vendor's default taint (`nvidia.com/gpu=true:NoSchedule`, `aws.amazon.com/neuron:NoSchedule`)
    /// unless a taint on its key is given (default true).
    pub gpu_taint: bool,
    pub taints: Vec<Taint>,
    pub disruption: Option<Disruption>,
    pub dra: bool,
    /// The pool runs multi-node training over EFA (pods request `vpc.amazonaws.com/efa`).
    pub efa: bool,
    /// Multi-node NVLink (GB200-class UltraServers): a DRA ComputeDomain for the pool's workloads.
    pub multi_node_nvlink: bool,
    /// The namespace of the pool's ComputeDomain (and so of the ResourceClaimTemplate the DRA
    /// driver makes for it); `None` is `default`.
    pub compute_domain_namespace: Option<String>,
    pub node_class: Option<NodeClass>,
    /// For `managed_node_group` pools.
    pub managed_node_group: Option<ManagedNodeGroup>,
    /// For `hybrid` pools.
    pub hybrid: Option<Hybrid>,
    /// User tags on the pool's AWS objects (node group, access entry), over the provider's `default_tags`.
    pub tags: BTreeMap<String, String>,
    /// The node class the NodePool uses when the pool renders none: another pool's or another
    /// tool's (never written by this pool).
    pub node_class_ref: Option<String>,
    /// NodeOverlays written by hand, beside those the provider derives (Karpenter only).
    pub node_overlays: Vec<NodeOverlay>,
}

impl Default for Pool {
    fn default() -> Self {
        Pool::named("", Capacity::Karpenter)
    }
}

impl Pool {
    /// A pool with only a name and a capacity kind, everything else empty or
    /// off: what is known of a pool found in a cluster before reading it back.
    pub fn named(name: &str, capacity: Capacity) -> Pool {
        Pool {
            name: name.to_owned(),
            capacity,
            instance_types: Vec::new(),
            requirements: Vec::new(),
            termination_grace_period: None,
            capacity_types: Vec::new(),
            zones: Vec::new(),
            gpu_limit: None,
            cpu_limit: None,
            memory_limit: None,
            weight: None,
            replicas: None,
            node_limit: None,
            expire_after: None,
            labels: BTreeMap::new(),
            gpu_taint: false,
            taints: Vec::new(),
            disruption: None,
            dra: false,
            efa: false,
            multi_node_nvlink: false,
            compute_domain_namespace: None,
            node_class: None,
            managed_node_group: None,
            hybrid: None,
            tags: BTreeMap::new(),
            node_class_ref: None,
            node_overlays: Vec::new(),
        }
    }
}

impl Pool {
    /// The pool's nodes run Bottlerocket, whose NVIDIA variants ship their own
    /// device plugin: a node group with a `BOTTLEROCKET_*` AMI type (EKS API
    /// `amiType`), or a Karpenter alias of the `bottlerocket` family.
    pub fn bottlerocket(&self) -> bool {
        let node_group = self
            .managed_node_group
            .as_ref()
            .and_then(|m| m.ami_type.as_deref())
            .is_some_and(|t| t.starts_with("BOTTLEROCKET_"));
        let alias = self.capacity == Capacity::Karpenter
            && self
                .node_class
                .as_ref()
                .and_then(|nc| nc.ami_alias.as_deref())
                .is_some_and(|a| a.split('@').next() == Some("bottlerocket"));
        node_group || alias
    }

    /// The NVIDIA DRA driver serves this pool's GPUs (`dra = true`), so the device plugin stays
    /// off its nodes. Not on a `multi_node_nvlink` pool: as the EKS user guide documents
    /// P6e-GB200, the device plugin keeps serving its GPUs and the DRA driver serves only its
    /// ComputeDomains (`resources.gpus.enabled: false`).
    pub fn dra_serves_gpus(&self) -> bool {
        self.dra && !self.multi_node_nvlink
    }
}

/// `scalingConfig` of a node group.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scaling {
    pub min: i64,
    pub max: i64,
    /// Set at creation; later changes by autoscalers are not drift.
    pub desired: i64,
}

/// An EKS managed node group (EKS API CreateNodegroup).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ManagedNodeGroup {
    pub node_role_arn: String,
    pub subnet_ids: Vec<String>,
    /// EKS `amiType`; `None` picks the AL2023 NVIDIA AMI for the pool's architecture.
    pub ami_type: Option<String>,
    pub scaling: Scaling,
    /// `updateConfig`.
    pub update: Option<UpdateConfig>,
    /// `releaseVersion`: the AMI release; `None` lets EKS pick the latest at creation.
    pub release_version: Option<String>,
    /// `version`: the nodes' Kubernetes minor; `None` is the cluster's (EKS's default).
    pub kubernetes_version: Option<String>,
    /// `diskSize` in GiB (no launch template): EKS's default is 20.
    pub disk_size: Option<i64>,
    /// `EbsOptimized` in the pool's launch template; `None` leaves it to the instance type.
    pub ebs_optimized: Option<bool>,
    /// `nodeRepairConfig`.
    pub node_repair_config: Option<NodeRepairConfig>,
    /// The capacity reservation (`cr-…`) the nodes launch into, through the launch template the
    /// provider owns (`eks::launch_template`): the Capacity Block of a `capacity-block` node group,
    /// or a targeted On-Demand Capacity Reservation.
    pub capacity_reservation_id: Option<String>,
    /// A resource group of On-Demand Capacity Reservations to launch into (its ARN).
    pub capacity_reservation_resource_group_arn: Option<String>,
    /// The node group's name; `None` is `<cluster>-<pool>`. Exclusive with `name_prefix`.
    pub name: Option<String>,
    /// The node group's name starts with this (the rest is derived, see `eks::node_group_name`).
    pub name_prefix: Option<String>,
    /// User data in the pool's launch template: a nodeadm `NodeConfig` or a MIME multi-part
    /// document (AL2023), a shell script (AL2), Bottlerocket TOML settings.
    pub user_data: Option<String>,
    /// Extra EBS volumes (and the root volume, unless `disk_size` sizes it) in the launch template.
    pub block_device_mappings: Vec<NodeGroupVolume>,
    /// Explicit network interfaces in the launch template (`interface`, `efa`, `efa-only`).
    pub network_interfaces: Vec<NetworkInterface>,
    /// A cluster placement group the pool owns, named like its launch template.
    pub cluster_placement_group: bool,
    /// Tags on the instances, volumes and network interfaces the node group launches.
    pub instance_tags: BTreeMap<String, String>,
    /// Launch template `MetadataOptions`: the nodes' instance metadata service.
    pub metadata_options: Option<TemplateMetadata>,
    /// Launch template `Monitoring.Enabled`: CloudWatch detailed (one-minute) monitoring.
    pub detailed_monitoring: Option<bool>,
    /// Security groups of the nodes in the launch template (on each of its network interfaces).
    pub security_group_ids: Vec<String>,
    /// The launch template version's `VersionDescription`.
    pub launch_template_description: Option<String>,
    /// Tags on the launch template itself in place of the pool's `tags` (the provider's
    /// identifying tags stay); empty: the pool's.
    pub launch_template_tags: BTreeMap<String, String>,
}

/// A node group launch template's `MetadataOptions` (EC2 API reference,
/// LaunchTemplateInstanceMetadataOptionsRequest); unset fields are EC2's defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TemplateMetadata {
    /// `HttpEndpoint`: `enabled` or `disabled`.
    pub http_endpoint: Option<String>,
    /// `HttpTokens`: `required` (IMDSv2 only) or `optional`.
    pub http_tokens: Option<String>,
    /// `HttpPutResponseHopLimit`: 1–64.
    pub http_put_response_hop_limit: Option<i64>,
}

/// One EBS volume of a node group's launch template (EC2 `LaunchTemplateBlockDeviceMappingRequest`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeGroupVolume {
    pub device_name: String,
    /// GiB; EC2 takes the snapshot's size without it.
    pub volume_size: Option<i64>,
    pub volume_type: Option<String>,
    pub iops: Option<i64>,
    pub throughput: Option<i64>,
    pub encrypted: Option<bool>,
    pub delete_on_termination: Option<bool>,
    pub snapshot_id: Option<String>,
    pub kms_key_id: Option<String>,
}

/// `updateConfig` of a node group: how many nodes an update takes down at once.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UpdateConfig {
    pub max_unavailable: Option<i64>,
    /// Exclusive with `max_unavailable` (EKSGPU117).
    pub max_unavailable_percentage: Option<i64>,
}

/// `nodeRepairConfig` of a node group (EKS API NodeRepairConfig).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeRepairConfig {
    pub enabled: bool,
    /// Repair stops while more nodes than this are unhealthy (a count or a percentage, not both).
    pub max_unhealthy_node_threshold_count: Option<i64>,
    pub max_unhealthy_node_threshold_percentage: Option<i64>,
    /// Most nodes repaired at once (a count or a percentage, not both).
    pub max_parallel_nodes_repaired_count: Option<i64>,
    pub max_parallel_nodes_repaired_percentage: Option<i64>,
    /// Per-condition repair actions and delays.
    pub node_repair_config_overrides: Vec<RepairOverride>,
}

/// One `nodeRepairConfigOverrides` entry (EKS API NodeRepairConfigOverrides).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RepairOverride {
    /// A condition the node monitoring agent reports (`AcceleratedHardwareReady`, …).
    pub node_monitoring_condition: String,
    /// A reason it reports with it (`NvidiaXID13Error`, …).
    pub node_unhealthy_reason: String,
    pub min_repair_wait_time_mins: i64,
    /// `Replace`, `Reboot` or `NoAction`.
    pub repair_action: String,
}

/// EKS Hybrid Nodes: the cluster's remote networks and the nodes' IAM role (EKS API RemoteNetworkConfigRequest).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hybrid {
    pub remote_node_networks: Vec<String>,
    pub remote_pod_networks: Vec<String>,
    pub node_role_arn: String,
}

/// Helm values of the NVIDIA GPU Operator the strategy computes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuOperator {
    /// `single` or `mixed` (the operator's `mig.strategy`).
    pub mig_strategy: String,
    pub dcgm_exporter: bool,
    pub service_monitor: bool,
}

/// NVIDIA's device plugin installed on its own (chart `nvidia-device-plugin`), without the GPU
/// Operator: the strategy computes its Helm values (`render::device_plugin_values`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DevicePlugin {
    /// `single` or `mixed`: the plugin's `flags.migStrategy` where GPUs are split by MIG.
    pub mig_strategy: String,
}

/// The strategy's GPU stack blocks as its objects record them (a NodePool annotation, node group
/// tags), so `terraform import` can write them back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StackBlocks {
    pub gpu_operator: Option<GpuOperator>,
    pub device_plugin: Option<DevicePlugin>,
}

impl StackBlocks {
    /// What `self` records, else what `other` does.
    pub fn or(self, other: StackBlocks) -> StackBlocks {
        StackBlocks {
            gpu_operator: self.gpu_operator.or(other.gpu_operator),
            device_plugin: self.device_plugin.or(other.device_plugin),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeStrategy {
    pub cluster_name: String,
    pub name: String,
    pub kubernetes_version: Option<String>,
    pub gpu_operator: Option<GpuOperator>,
    /// Exclusive with `gpu_operator` (EKSGPU183): which of the two manages the NVIDIA pools' GPUs.
    pub device_plugin: Option<DevicePlugin>,
    pub pools: Vec<Pool>,
    /// The provider's `default_tags`, on every AWS object the strategy creates (not part of the
    /// resource's own values: the provider configuration sets them).
    pub default_tags: BTreeMap<String, String>,
    /// The provider's `karpenter_feature_gates`: what the clusters' Karpenter runs with, which
    /// decides what is rendered (a NodeOverlay needs `nodeOverlay`) and what the rules accept.
    pub karpenter_gates: crate::karpenter_gates::FeatureGates,
}

impl NodeStrategy {
    /// The MIG strategy the strategy's device plugin runs with: the GPU Operator's `mig.strategy`
    /// or the standalone plugin's `flags.migStrategy`; `None` without either.
    pub fn mig_strategy(&self) -> Option<&str> {
        self.gpu_operator
            .as_ref()
            .map(|g| g.mig_strategy.as_str())
            .or_else(|| self.device_plugin.as_ref().map(|d| d.mig_strategy.as_str()))
    }
}
