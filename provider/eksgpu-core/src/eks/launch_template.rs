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
use crate::model::{NodeStrategy, Pool};

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

/// What goes in `LaunchTemplateData`: only what the pool needs; EKS adds the AMI, user data and
/// security groups of a managed node group itself (EKS user guide, Customize managed nodes with
/// launch templates, https://docs.aws.amazon.com/eks/latest/userguide/launch-templates.html).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchTemplateData {
    /// A Capacity Block's instance type: the EKS user guide (capacity-blocks-mng) sets
    /// `InstanceType` in the template, so the node group sends no `instanceTypes`.
    pub instance_type: Option<String>,
    pub network_interfaces: Vec<TemplateInterface>,
    /// `CapacityReservationSpecification.CapacityReservationTarget.CapacityReservationId`.
    pub capacity_reservation_id: Option<String>,
    /// `InstanceMarketOptions.MarketType = capacity-block`.
    pub capacity_block: bool,
    /// The pool's `disk_size`: EKS refuses `diskSize` next to a launch template ("Disk size must be
    /// specified within the launch template", EKS API CreateNodegroup `diskSize`).
    pub root_volume: Option<TemplateVolume>,
}

/// `NetworkInterfaces[]` of the template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateInterface {
    pub network_card_index: i64,
    pub device_index: i64,
    /// `efa`: an EFA with ENA.
    pub interface_type: String,
}

/// `BlockDeviceMappings[]` entry of the root (AL2023) or data (Bottlerocket) volume.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateVolume {
    pub device_name: String,
    pub volume_size: i64,
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

/// Whether a node group pool needs a launch template: EFA or a Capacity Block.
pub fn needs_launch_template(pool: &Pool) -> bool {
    pool.efa || capacity_block(pool)
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
        })
        .collect()
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
    Some(LaunchTemplate {
        name: super::node_group_name(strategy, pool),
        data: LaunchTemplateData {
            instance_type: if cb { pool.instance_types.first().cloned() } else { None },
            network_interfaces: if pool.efa {
                efa_interfaces(efa_interface_count(pool))
            } else {
                Vec::new()
            },
            capacity_reservation_id: m.capacity_reservation_id.clone(),
            capacity_block: cb,
            root_volume: m.disk_size.map(|volume_size| TemplateVolume {
                device_name: root_device(ami_type).to_owned(),
                volume_size,
            }),
        },
        tags: tags.clone(),
        id: None,
        version: None,
    })
}

impl LaunchTemplateData {
    /// `LaunchTemplateData` as the EC2 API spells it (EC2 API reference, RequestLaunchTemplateData).
    pub fn to_json(&self) -> Value {
        let mut d = serde_json::Map::new();
        if let Some(t) = &self.instance_type {
            d.insert("InstanceType".into(), json!(t));
        }
        if let Some(v) = &self.root_volume {
            d.insert(
                "BlockDeviceMappings".into(),
                json!([{"DeviceName": v.device_name, "Ebs": {"VolumeSize": v.volume_size}}]),
            );
        }
        if !self.network_interfaces.is_empty() {
            let nics: Vec<Value> = self
                .network_interfaces
                .iter()
                .map(|n| {
                    json!({
                        "NetworkCardIndex": n.network_card_index,
                        "DeviceIndex": n.device_index,
                        "InterfaceType": n.interface_type,
                    })
                })
                .collect();
            d.insert("NetworkInterfaces".into(), Value::Array(nics));
        }
        if self.capacity_block {
            d.insert(
                "InstanceMarketOptions".into(),
                json!({"MarketType": CAPACITY_BLOCK_MARKET}),
            );
        }
        if let Some(id) = &self.capacity_reservation_id {
            d.insert(
                "CapacityReservationSpecification".into(),
                json!({"CapacityReservationTarget": {"CapacityReservationId": id}}),
            );
        }
        Value::Object(d)
    }
}

impl LaunchTemplate {
    /// The `CreateLaunchTemplate` request, as plans show it (an update sends the same data as
    /// `CreateLaunchTemplateVersion`).
    pub fn create_request(&self) -> Value {
        let tags: Vec<Value> = self.tags.iter().map(|(k, v)| json!({"Key": k, "Value": v})).collect();
        json!({"CreateLaunchTemplate": {
            "LaunchTemplateName": self.name,
            "LaunchTemplateData": self.data.to_json(),
            "TagSpecifications": [{"ResourceType": "launch-template", "Tags": tags}],
        }})
    }
}
