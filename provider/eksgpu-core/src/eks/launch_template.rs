//! The EC2 launch template a node group pool owns when EKS can give its nodes what the pool asks
//! for only through one: EFA network interfaces (EKS user guide, Manage EFA devices on Amazon EKS,
//! https://docs.aws.amazon.com/eks/latest/userguide/device-management-efa.html) and a Capacity
//! Block for ML ("managed node groups with Capacity Blocks can only be created with custom launch
//! templates", EKS user guide, Create a managed node group with Capacity Blocks for ML,
//! https://docs.aws.amazon.com/eks/latest/userguide/capacity-blocks-mng.html). Pure data: the
//! cloud adapter sends it (EC2 CreateLaunchTemplate / CreateLaunchTemplateVersion), plans show it.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::catalog;
use crate::model::{NetworkInterface, NodeGroupVolume, NodeStrategy, Pool, TemplateMetadata};

/// EC2 `InstanceMarketOptions.MarketType` of a Capacity Block (EKS user guide, capacity-blocks-mng).
pub const CAPACITY_BLOCK_MARKET: &str = "capacity-block";

/// EKS `capacityType` of a node group on a Capacity Block (EKS API CreateNodegroup `capacityType`).
pub const CAPACITY_BLOCK: &str = "CAPACITY_BLOCK";

/// The pool's `capacity_types` value for a Capacity Block (Karpenter's and this provider's spelling).
pub const CAPACITY_BLOCK_TYPE: &str = "capacity-block";

/// A launch template as the provider wants it (or, read back, the version a node group uses).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchTemplate {
    /// `<cluster>-<pool>`, as the node group.
    pub name: String,
    pub data: LaunchTemplateData,
    /// The pool's tags (ownership included), on the template itself.
    pub tags: BTreeMap<String, String>,
    /// Live only: `lt-…`.
    pub id: Option<String>,
    /// Live only: the version the node group uses.
    pub version: Option<i64>,
}

/// What goes in `LaunchTemplateData`: only what the pool needs; EKS adds the AMI, its own
/// bootstrap user data and the security groups of a managed node group itself (EKS user guide,
/// Customize managed nodes with launch templates,
/// https://docs.aws.amazon.com/eks/latest/userguide/launch-templates.html).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchTemplateData {
    /// A Capacity Block's instance type: the EKS user guide (capacity-blocks-mng) sets
    /// `InstanceType` in the template, so the node group sends no `instanceTypes`.
    pub instance_type: Option<String>,
    pub network_interfaces: Vec<TemplateInterface>,
    /// `CapacityReservationSpecification.CapacityReservationTarget.CapacityReservationId`.
    pub capacity_reservation_id: Option<String>,
    /// `…CapacityReservationTarget.CapacityReservationResourceGroupArn`.
    pub capacity_reservation_resource_group_arn: Option<String>,
    /// `InstanceMarketOptions.MarketType = capacity-block`.
    pub capacity_block: bool,
    /// `BlockDeviceMappings`: the pool's `disk_size` as the root device's size first (EKS refuses
    /// `diskSize` next to a launch template, EKS API CreateNodegroup `diskSize`), then the pool's
    /// `block_device_mappings`.
    pub block_device_mappings: Vec<TemplateVolume>,
    /// `EbsOptimized` (the pool's `ebs_optimized`); `None` is the instance type's default.
    pub ebs_optimized: Option<bool>,
    /// `UserData` as text (the API takes and returns it base64-encoded).
    pub user_data: Option<String>,
    /// `Placement.GroupName`.
    pub placement_group: Option<String>,
    /// `TagSpecifications` of the instances, volumes and network interfaces launched.
    pub instance_tags: BTreeMap<String, String>,
    /// `MetadataOptions` (the fields set).
    pub metadata_options: Option<TemplateMetadata>,
    /// `Monitoring.Enabled`.
    pub detailed_monitoring: Option<bool>,
    /// `Groups` of every network interface that names none of its own, or `SecurityGroupIds`
    /// without interfaces (EC2 refuses both in one template).
    pub security_group_ids: Vec<String>,
    /// The version's `VersionDescription` (beside `LaunchTemplateData` in the request, but one per
    /// version as the data is, so a change is a new version).
    pub version_description: Option<String>,
}

/// `NetworkInterfaces[]` of the template.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TemplateInterface {
    pub network_card_index: i64,
    pub device_index: i64,
    /// `interface` (ENA), `efa` (EFA with ENA) or `efa-only`.
    pub interface_type: String,
    /// `AssociatePublicIpAddress`, when the pool sets it.
    pub associate_public_ip_address: Option<bool>,
    /// `DeleteOnTermination`, when the pool sets it.
    pub delete_on_termination: Option<bool>,
    /// `Description`, when the pool sets it.
    pub description: Option<String>,
    /// `Groups`: the interface's security groups, when the pool sets them.
    pub security_group_ids: Vec<String>,
}

impl From<&NetworkInterface> for TemplateInterface {
    fn from(n: &NetworkInterface) -> Self {
        TemplateInterface {
            network_card_index: n.network_card_index,
            device_index: n.device_index,
            interface_type: n.interface_type.clone(),
            associate_public_ip_address: n.associate_public_ip_address,
            delete_on_termination: n.delete_on_termination,
            description: n.description.clone(),
            security_group_ids: n.security_group_ids.clone(),
        }
    }
}

impl From<&TemplateInterface> for NetworkInterface {
    fn from(n: &TemplateInterface) -> Self {
        NetworkInterface {
            network_card_index: n.network_card_index,
            device_index: n.device_index,
            interface_type: n.interface_type.clone(),
            associate_public_ip_address: n.associate_public_ip_address,
            delete_on_termination: n.delete_on_termination,
            description: n.description.clone(),
            security_group_ids: n.security_group_ids.clone(),
        }
    }
}

/// `BlockDeviceMappings[]` entry with its `Ebs` (EC2 LaunchTemplateBlockDeviceMappingRequest).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TemplateVolume {
    pub device_name: String,
    pub volume_size: Option<i64>,
    pub volume_type: Option<String>,
    pub iops: Option<i64>,
    pub throughput: Option<i64>,
    pub encrypted: Option<bool>,
    pub delete_on_termination: Option<bool>,
    pub snapshot_id: Option<String>,
    pub kms_key_id: Option<String>,
}

impl TemplateVolume {
    /// A volume of this size alone, as `disk_size` renders the root.
    pub fn sized(device_name: &str, size: i64) -> TemplateVolume {
        TemplateVolume {
            device_name: device_name.to_owned(),
            volume_size: Some(size),
            ..TemplateVolume::default()
        }
    }

    /// Whether the mapping has a size and nothing else (what `disk_size` renders).
    pub fn size_only(&self) -> bool {
        self.volume_size.is_some()
            && TemplateVolume {
                device_name: self.device_name.clone(),
                volume_size: self.volume_size,
                ..TemplateVolume::default()
            } == *self
    }
}

impl From<&NodeGroupVolume> for TemplateVolume {
    fn from(v: &NodeGroupVolume) -> Self {
        TemplateVolume {
            device_name: v.device_name.clone(),
            volume_size: v.volume_size,
            volume_type: v.volume_type.clone(),
            iops: v.iops,
            throughput: v.throughput,
            encrypted: v.encrypted,
            delete_on_termination: v.delete_on_termination,
            snapshot_id: v.snapshot_id.clone(),
            kms_key_id: v.kms_key_id.clone(),
        }
    }
}

impl From<&TemplateVolume> for NodeGroupVolume {
    fn from(v: &TemplateVolume) -> Self {
        NodeGroupVolume {
            device_name: v.device_name.clone(),
            volume_size: v.volume_size,
            volume_type: v.volume_type.clone(),
            iops: v.iops,
            throughput: v.throughput,
            encrypted: v.encrypted,
            delete_on_termination: v.delete_on_termination,
            snapshot_id: v.snapshot_id.clone(),
            kms_key_id: v.kms_key_id.clone(),
        }
    }
}

/// The tags to set and to remove to bring a pool's launch template from `live` to `want`. Every
/// tag of the template is the provider's to set (the template is the pool's own, as its node
/// group's tags are: `NodeGroup::update`), except the `aws:` tags EC2 reserves, which no caller
/// may delete (EC2 API reference, DeleteTags: "you can't delete tags that have the aws: prefix").
pub fn retag(
    live: &BTreeMap<String, String>,
    want: &BTreeMap<String, String>,
) -> (BTreeMap<String, String>, Vec<String>) {
    let add = want
        .iter()
        .filter(|(k, v)| live.get(*k) != Some(*v))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let remove = live
        .keys()
        .filter(|k| !want.contains_key(*k) && !k.starts_with("aws:"))
        .cloned()
        .collect();
    (add, remove)
}

/// Whether a node group pool needs a launch template: EFA, a Capacity Block, a capacity
/// reservation, or anything else only a template carries (user data, volumes, EBS optimization,
/// interfaces, placement, instance tags, metadata options, monitoring, security groups, the
/// template's description or tags).
pub fn needs_launch_template(pool: &Pool) -> bool {
    let template_only = pool.managed_node_group.as_ref().is_some_and(|m| {
        m.capacity_reservation_id.is_some()
            || m.capacity_reservation_resource_group_arn.is_some()
            || m.user_data.is_some()
            || !m.block_device_mappings.is_empty()
            || m.ebs_optimized.is_some()
            || !m.network_interfaces.is_empty()
            || m.cluster_placement_group
            || !m.instance_tags.is_empty()
            || m.metadata_options.is_some()
            || !m.security_group_ids.is_empty()
            || m.detailed_monitoring.is_some()
            || m.launch_template_description.is_some()
            || !m.launch_template_tags.is_empty()
    });
    pool.efa || capacity_block(pool) || template_only
}

/// The pool runs on a Capacity Block (`capacity_types = ["capacity-block"]`).
pub fn capacity_block(pool: &Pool) -> bool {
    pool.capacity_types.iter().any(|c| c == CAPACITY_BLOCK_TYPE)
}

/// EFA interfaces per node: the fewest any of the pool's types has (the catalog's
/// `efa_interfaces`), so every type can attach them; one when the catalog knows none.
pub fn efa_interface_count(pool: &Pool) -> i64 {
    pool.instance_types
        .iter()
        .filter_map(|t| catalog::instance_type(t))
        .filter_map(|t| t.efa_interfaces)
        .filter(|n| *n > 0)
        .min()
        .map_or(1, i64::from)
}

/// One EFA per network card, card 0 at device index 0 (the primary interface) and the others at
/// device index 1, as Karpenter launches EFA nodes (karpenter-provider-aws v1.14.1
/// pkg/providers/launchtemplate/launchtemplate.go, generateNetworkInterfaces:
/// `DeviceIndex: lo.Ternary(i == 0, 0, 1)`, `InterfaceType: efa`).
pub fn efa_interfaces(count: i64) -> Vec<TemplateInterface> {
    (0..count)
        .map(|i| TemplateInterface {
            network_card_index: i,
            device_index: i64::from(i != 0),
            interface_type: "efa".to_owned(),
            ..TemplateInterface::default()
        })
        .collect()
}

/// The EFA interfaces of a pool's nodes, one per network card that takes EFA. Where card 0 takes
/// EFA (every EFA type but P6-B300 and P6e-GB200), as Karpenter launches EFA nodes (above). Where
/// card 0 is ENA-only, the primary interface is an ENA `interface` and EFA-only interfaces go on
/// the cards that take them, at device index 0, as the EC2 user guide's basic configuration lays
/// them out ("For each additional network interface, use the next unused network card index,
/// device index 0, for EFA-only network interface", efa-acc-inst-types; P6-B300: "the primary network
/// card supports only an ENA network interface"; P6e-GB200: EFA-only on cards 1, 3, …, 15). The
/// card layout is that of the first type whose card 0 is ENA-only, wherever it is listed (as the
/// Karpenter pools', `render::efa_interfaces`): a node group listing `p5.48xlarge` before
/// `p6-b300.48xlarge` must not get an `efa` on card 0 of its P6-B300 nodes. The other types are
/// checked against that layout (EKSGPU177).
pub fn efa_layout(pool: &Pool) -> Vec<TemplateInterface> {
    let cards = pool
        .instance_types
        .iter()
        .filter_map(|t| catalog::network_cards(t))
        .find(|n| n.card0_ena_only());
    match cards {
        Some(n) => {
            let mut out = vec![TemplateInterface {
                network_card_index: 0,
                device_index: 0,
                interface_type: "interface".to_owned(),
                ..TemplateInterface::default()
            }];
            out.extend(
                n.efa_cards()
                    .unwrap_or_default()
                    .into_iter()
                    .map(|c| TemplateInterface {
                        network_card_index: c,
                        device_index: 0,
                        interface_type: "efa-only".to_owned(),
                        ..TemplateInterface::default()
                    }),
            );
            out
        }
        _ => efa_interfaces(efa_interface_count(pool)),
    }
}

/// The template's interfaces: the pool's own `network_interfaces` when it lists them, else the
/// EFA layout of an `efa` pool, else none.
pub fn template_interfaces(pool: &Pool) -> Vec<TemplateInterface> {
    let explicit = pool
        .managed_node_group
        .as_ref()
        .map(|m| m.network_interfaces.as_slice())
        .unwrap_or_default();
    if !explicit.is_empty() {
        return explicit.iter().map(TemplateInterface::from).collect();
    }
    if pool.efa { efa_layout(pool) } else { Vec::new() }
}

/// The EFA devices of a node: the template's `efa` and `efa-only` interfaces.
pub fn efa_devices(pool: &Pool) -> usize {
    template_interfaces(pool)
        .iter()
        .filter(|n| n.interface_type == "efa" || n.interface_type == "efa-only")
        .count()
}

/// The root volume's device: the data volume `/dev/xvdb` on Bottlerocket (its images and
/// containers live there), `/dev/xvda` otherwise (Bottlerocket docs, "Bottlerocket has two
/// volumes"; AL2023 EKS AMIs boot from /dev/xvda).
pub fn root_device(ami_type: &str) -> &'static str {
    if ami_type.starts_with("BOTTLEROCKET") {
        "/dev/xvdb"
    } else {
        "/dev/xvda"
    }
}

/// The launch template (and placement group) name of a node group pool: `<cluster>-<pool>`,
/// whatever the node group is named (names of both are unique per account and Region).
pub fn template_name(strategy: &NodeStrategy, pool: &Pool) -> String {
    format!("{}-{}", strategy.cluster_name, pool.name)
}

/// The EC2 placement group strategy of `cluster_placement_group`: instances close together in one
/// Availability Zone, for low-latency EFA traffic (EC2 user guide, Placement strategies,
/// https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/placement-strategies.html).
pub const CLUSTER_STRATEGY: &str = "cluster";

/// A cluster placement group a node group pool owns (EC2 CreatePlacementGroup).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacementGroup {
    /// `<cluster>-<pool>`, as the pool's launch template.
    pub name: String,
    pub strategy: String,
    /// The pool's tags (ownership included).
    pub tags: BTreeMap<String, String>,
}

impl PlacementGroup {
    /// The `CreatePlacementGroup` request, as plans show it.
    pub fn create_request(&self) -> Value {
        let tags: Vec<Value> = self.tags.iter().map(|(k, v)| json!({"Key": k, "Value": v})).collect();
        json!({"CreatePlacementGroup": {
            "GroupName": self.name,
            "Strategy": self.strategy,
            "TagSpecifications": [{"ResourceType": "placement-group", "Tags": tags}],
        }})
    }
}

/// The placement group of a node group pool, or `None` unless it asks for one.
pub fn placement_group(
    strategy: &NodeStrategy,
    pool: &Pool,
    tags: &BTreeMap<String, String>,
) -> Option<PlacementGroup> {
    pool.managed_node_group
        .as_ref()
        .filter(|m| m.cluster_placement_group)
        .map(|_| PlacementGroup {
            name: template_name(strategy, pool),
            strategy: CLUSTER_STRATEGY.to_owned(),
            tags: tags.clone(),
        })
}

/// The launch template of a node group pool, or `None` when it needs none.
pub fn launch_template(
    strategy: &NodeStrategy,
    pool: &Pool,
    ami_type: &str,
    tags: &BTreeMap<String, String>,
) -> Option<LaunchTemplate> {
    if !needs_launch_template(pool) {
        return None;
    }
    let m = pool.managed_node_group.as_ref()?;
    let cb = capacity_block(pool);
    let mut volumes: Vec<TemplateVolume> = m
        .disk_size
        .map(|size| TemplateVolume::sized(root_device(ami_type), size))
        .into_iter()
        .collect();
    volumes.extend(m.block_device_mappings.iter().map(TemplateVolume::from));
    let name = template_name(strategy, pool);
    Some(LaunchTemplate {
        data: LaunchTemplateData {
            instance_type: if cb { pool.instance_types.first().cloned() } else { None },
            network_interfaces: template_interfaces(pool),
            capacity_reservation_id: m.capacity_reservation_id.clone(),
            capacity_reservation_resource_group_arn: m.capacity_reservation_resource_group_arn.clone(),
            capacity_block: cb,
            block_device_mappings: volumes,
            ebs_optimized: m.ebs_optimized,
            user_data: m.user_data.as_deref().map(|u| super::user_data::rendered(u, ami_type)),
            placement_group: m.cluster_placement_group.then(|| name.clone()),
            instance_tags: m.instance_tags.clone(),
            metadata_options: m.metadata_options.clone(),
            detailed_monitoring: m.detailed_monitoring,
            security_group_ids: m.security_group_ids.clone(),
            version_description: m.launch_template_description.clone(),
        },
        name,
        tags: template_tags(m, tags),
        id: None,
        version: None,
    })
}

/// The template's own tags: the pool's (`tags`, ownership included), or with
/// `launch_template_tags` those in place of the pool's user tags, the provider's identifying tags
/// kept (they say whose the template is: `eks::is_provider_tag`).
fn template_tags(
    m: &crate::node_strategy::ManagedNodeGroup,
    pool_tags: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    if m.launch_template_tags.is_empty() {
        return pool_tags.clone();
    }
    let mut t: BTreeMap<String, String> = pool_tags
        .iter()
        .filter(|(k, _)| super::is_provider_tag(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    t.extend(m.launch_template_tags.clone());
    t
}

/// The resources the template's `instance_tags` tag at launch, as eksctl and
/// terraform-aws-modules/eks tag them (eksctl pkg/cfn/builder/managed_launch_template.go `makeTags`;
/// terraform-aws-eks v20.37.2 modules/eks-managed-node-group `tag_specifications`).
/// In lexical order, the order terraform-aws-modules/eks sends them in: its `tag_specifications`
/// blocks come from `toset(var.tag_specifications)`, a set of strings, which Terraform iterates
/// in lexical order (EC2 reads the list as a set either way).
pub const INSTANCE_TAG_RESOURCES: [&str; 3] = ["instance", "network-interface", "volume"];

impl TemplateVolume {
    /// One `BlockDeviceMappings` entry as the EC2 API spells it.
    pub fn to_json(&self) -> Value {
        let mut ebs = serde_json::Map::new();
        let mut put = |k: &str, v: Option<Value>| {
            if let Some(v) = v {
                ebs.insert(k.into(), v);
            }
        };
        put("VolumeSize", self.volume_size.map(Value::from));
        put("VolumeType", self.volume_type.clone().map(Value::from));
        put("Iops", self.iops.map(Value::from));
        put("Throughput", self.throughput.map(Value::from));
        put("Encrypted", self.encrypted.map(Value::from));
        put("DeleteOnTermination", self.delete_on_termination.map(Value::from));
        put("SnapshotId", self.snapshot_id.clone().map(Value::from));
        put("KmsKeyId", self.kms_key_id.clone().map(Value::from));
        json!({"DeviceName": self.device_name, "Ebs": Value::Object(ebs)})
    }
}

impl LaunchTemplateData {
    /// `LaunchTemplateData` as the EC2 API spells it (EC2 API reference, RequestLaunchTemplateData);
    /// `UserData` base64-encoded, as the API takes it.
    pub fn to_json(&self) -> Value {
        let mut d = serde_json::Map::new();
        if let Some(t) = &self.instance_type {
            d.insert("InstanceType".into(), json!(t));
        }
        if !self.block_device_mappings.is_empty() {
            let v: Vec<Value> = self.block_device_mappings.iter().map(TemplateVolume::to_json).collect();
            d.insert("BlockDeviceMappings".into(), Value::Array(v));
        }
        if let Some(e) = self.ebs_optimized {
            d.insert("EbsOptimized".into(), json!(e));
        }
        if !self.network_interfaces.is_empty() {
            let nics: Vec<Value> = self
                .network_interfaces
                .iter()
                .map(|n| {
                    let mut o = json!({
                        "NetworkCardIndex": n.network_card_index,
                        "DeviceIndex": n.device_index,
                        "InterfaceType": n.interface_type,
                    });
                    if let Some(m) = o.as_object_mut() {
                        if let Some(p) = n.associate_public_ip_address {
                            m.insert("AssociatePublicIpAddress".into(), json!(p));
                        }
                        if let Some(d) = n.delete_on_termination {
                            m.insert("DeleteOnTermination".into(), json!(d));
                        }
                        if let Some(d) = &n.description {
                            m.insert("Description".into(), json!(d));
                        }
                        // An interface's own groups, else the pool's (`security_group_ids`).
                        if !n.security_group_ids.is_empty() {
                            m.insert("Groups".into(), json!(n.security_group_ids));
                        } else if !self.security_group_ids.is_empty() {
                            m.insert("Groups".into(), json!(self.security_group_ids));
                        }
                    }
                    o
                })
                .collect();
            d.insert("NetworkInterfaces".into(), Value::Array(nics));
        } else if !self.security_group_ids.is_empty() {
            d.insert("SecurityGroupIds".into(), json!(self.security_group_ids));
        }
        if self.capacity_block {
            d.insert(
                "InstanceMarketOptions".into(),
                json!({"MarketType": CAPACITY_BLOCK_MARKET}),
            );
        }
        let mut target = serde_json::Map::new();
        if let Some(id) = &self.capacity_reservation_id {
            target.insert("CapacityReservationId".into(), json!(id));
        }
        if let Some(arn) = &self.capacity_reservation_resource_group_arn {
            target.insert("CapacityReservationResourceGroupArn".into(), json!(arn));
        }
        if !target.is_empty() {
            d.insert(
                "CapacityReservationSpecification".into(),
                json!({"CapacityReservationTarget": Value::Object(target)}),
            );
        }
        if let Some(group) = &self.placement_group {
            d.insert("Placement".into(), json!({"GroupName": group}));
        }
        if !self.instance_tags.is_empty() {
            let tags: Vec<Value> = self
                .instance_tags
                .iter()
                .map(|(k, v)| json!({"Key": k, "Value": v}))
                .collect();
            let specs: Vec<Value> = INSTANCE_TAG_RESOURCES
                .iter()
                .map(|r| json!({"ResourceType": r, "Tags": tags}))
                .collect();
            d.insert("TagSpecifications".into(), Value::Array(specs));
        }
        if let Some(m) = &self.metadata_options {
            let mut o = serde_json::Map::new();
            if let Some(e) = &m.http_endpoint {
                o.insert("HttpEndpoint".into(), json!(e));
            }
            if let Some(t) = &m.http_tokens {
                o.insert("HttpTokens".into(), json!(t));
            }
            if let Some(h) = m.http_put_response_hop_limit {
                o.insert("HttpPutResponseHopLimit".into(), json!(h));
            }
            d.insert("MetadataOptions".into(), Value::Object(o));
        }
        if let Some(on) = self.detailed_monitoring {
            d.insert("Monitoring".into(), json!({"Enabled": on}));
        }
        if let Some(u) = &self.user_data {
            d.insert("UserData".into(), json!(super::user_data::base64(u)));
        }
        Value::Object(d)
    }
}

impl LaunchTemplate {
    /// The `CreateLaunchTemplate` request, as plans show it (an update sends the same data as
    /// `CreateLaunchTemplateVersion`).
    pub fn create_request(&self) -> Value {
        let tags: Vec<Value> = self.tags.iter().map(|(k, v)| json!({"Key": k, "Value": v})).collect();
        let mut req = json!({
            "LaunchTemplateName": self.name,
            "LaunchTemplateData": self.data.to_json(),
            "TagSpecifications": [{"ResourceType": "launch-template", "Tags": tags}],
        });
        if let (Some(d), Some(o)) = (&self.data.version_description, req.as_object_mut()) {
            o.insert("VersionDescription".into(), json!(d));
        }
        json!({ "CreateLaunchTemplate": req })
    }
}
