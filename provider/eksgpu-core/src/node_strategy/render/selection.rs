//! The hand-rendered inputs that share a list with the provider's own entries, and how each
//! reads back: NodePool `requirements` (the provider's instance-type, capacity-type and zone
//! requirements, then the pool's `requirements` as written), selector terms (the tags
//! term, then one term per ID), and `blockDeviceMappings` (the root volume's mappings, then
//! the pool's `block_device_mappings`).
//!
//! Sources: karpenter.sh/v1 NodePool and karpenter.k8s.aws/v1 EC2NodeClass CRDs
//! (aws/karpenter-provider-aws v1.14.1 `pkg/apis/crds/`): `requirements` is an atomic list
//! Karpenter reads as a conjunction; a selector term with `id` takes no other field (CEL);
//! at most one mapping is the `rootVolume`.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::model::{BlockDeviceMapping, Capacity, NodeClass, Pool, Requirement, SelectorTerm};
use crate::node_strategy::inputs::{self, Object};

/// The requirement keys the provider renders from its own inputs with `In`, in order:
/// `instance_types`, `capacity_types`, `zones`.
pub const INSTANCE_TYPE: &str = "node.kubernetes.io/instance-type";
pub const CAPACITY_TYPE: &str = "karpenter.sh/capacity-type";
pub const ZONE: &str = "topology.kubernetes.io/zone";

/// One requirement as the NodePool writes it (`values` left out when empty, as upstream
/// NodePools write `Exists`).
pub fn requirement_json(key: &str, operator: &str, values: &[String]) -> Value {
    let mut m = Map::new();
    m.insert("key".into(), key.into());
    m.insert("operator".into(), operator.into());
    if !values.is_empty() {
        m.insert("values".into(), values.into());
    }
    Value::Object(m)
}

/// Every requirement of the pool's NodePool: the provider's, then the pool's own as written.
/// Without `instance_types`, requirements select the instances and no instance-type
/// requirement is rendered (a pool with neither keeps the empty one EKSGPU115 refuses).
pub fn node_pool_requirements(pool: &Pool) -> Vec<Value> {
    let mut out = Vec::new();
    if !pool.instance_types.is_empty() || pool.requirements.is_empty() {
        out.push(json!({"key": INSTANCE_TYPE, "operator": "In", "values": pool.instance_types}));
    }
    let capacity_types = if pool.capacity_types.is_empty() {
        vec!["on-demand".to_owned()]
    } else {
        pool.capacity_types.clone()
    };
    out.push(json!({"key": CAPACITY_TYPE, "operator": "In", "values": capacity_types}));
    if !pool.zones.is_empty() {
        out.push(json!({"key": ZONE, "operator": "In", "values": pool.zones}));
    }
    if let Some(r) = auto_mode_family_requirement(pool) {
        out.push(r);
    }
    out.extend(
        pool.requirements
            .iter()
            .map(|r| requirement_json(&r.key, &r.operator, &r.values)),
    );
    out
}

/// The key of Auto Mode's instance-family label (EKS user guide, Create a Node Pool for EKS Auto
/// Mode, supported labels: https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html).
pub const AUTO_MODE_INSTANCE_FAMILY: &str = "eks.amazonaws.com/instance-family";

/// Auto Mode Neuron pools also select their families by `eks.amazonaws.com/instance-family`, the
/// label Auto Mode NodePools take for them (awsdocs/amazon-eks-user-guide
/// latest/ug/automode/create-node-pool.adoc @01385604; awslabs/ai-on-eks
/// infra/base/terraform/karpenter-resources/auto-mode/neuron.yaml @886fe01b); the instance-type
/// requirement stays. Derived from `instance_types`, so read back as the provider's own.
fn auto_mode_family_requirement(pool: &Pool) -> Option<Value> {
    // Without listed types the pool's own requirements select the families (an `In` of no value
    // would match nothing).
    if pool.capacity != Capacity::AutoMode || !pool.is_neuron() || pool.instance_types.is_empty() {
        return None;
    }
    let mut families: Vec<&str> = pool
        .instance_types
        .iter()
        .map(|t| crate::catalog::instance_family(t))
        .collect();
    families.sort_unstable();
    families.dedup();
    Some(json!({"key": AUTO_MODE_INSTANCE_FAMILY, "operator": "In", "values": families}))
}

/// Whether the pool renders the Auto Mode family requirement (`auto_mode_family_requirement`),
/// judged from what reads back before the rest of the pool: its capacity and instance types.
pub fn renders_family_requirement(capacity: Capacity, instance_types: &[String]) -> bool {
    let probe = Pool {
        capacity,
        instance_types: instance_types.to_vec(),
        ..Pool::default()
    };
    auto_mode_family_requirement(&probe).is_some()
}

/// Live requirements split into the provider's (by key, the first `In` on each of its keys)
/// and the pool's own, in order. EKSGPU171 keeps a pool's own requirements off `In` on those
/// keys, so the split is exact. On an Auto Mode Neuron pool the first `In` on
/// `eks.amazonaws.com/instance-family` is the provider's too (rendered before the pool's own).
pub struct LiveRequirements {
    pub own: BTreeMap<&'static str, Vec<String>>,
    pub requirements: Vec<Requirement>,
}

pub fn split_requirements(live: &Value, capacity: Capacity) -> LiveRequirements {
    let live = live.as_array().map(Vec::as_slice).unwrap_or_default();
    let instance_types = live
        .iter()
        .find(|r| r["key"] == INSTANCE_TYPE && r["operator"] == "In")
        .map(|r| strings(&r["values"]))
        .unwrap_or_default();
    let mut keys = vec![INSTANCE_TYPE, CAPACITY_TYPE, ZONE];
    if renders_family_requirement(capacity, &instance_types) {
        keys.push(AUTO_MODE_INSTANCE_FAMILY);
    }
    let mut own = BTreeMap::new();
    let mut requirements = Vec::new();
    for r in live {
        let key = r["key"].as_str().unwrap_or_default();
        let operator = r["operator"].as_str().unwrap_or_default();
        let values = strings(&r["values"]);
        let slot = keys
            .iter()
            .copied()
            .find(|k| *k == key && operator == "In" && !own.contains_key(k));
        match slot {
            Some(k) => {
                own.insert(k, values);
            }
            None => requirements.push(Requirement {
                key: key.to_owned(),
                operator: operator.to_owned(),
                values,
            }),
        }
    }
    LiveRequirements { own, requirements }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_owned))
        .collect()
}

/// Selector terms: a tags term (the discovery tag when neither tags nor IDs are set), then one
/// term per ID.
pub fn selector_terms(tags: &BTreeMap<String, String>, ids: &[String], discovery: (&str, &str)) -> Value {
    let mut terms = Vec::new();
    if !tags.is_empty() {
        terms.push(json!({ "tags": tags }));
    } else if ids.is_empty() {
        terms.push(json!({ "tags": { discovery.0: discovery.1 } }));
    }
    terms.extend(ids.iter().map(|id| json!({ "id": id })));
    Value::Array(terms)
}

/// `(tags, ids)` of live selector terms.
pub fn split_selector_terms(terms: &Value) -> (BTreeMap<String, String>, Vec<String>) {
    let mut tags = BTreeMap::new();
    let mut ids = Vec::new();
    for t in terms.as_array().into_iter().flatten() {
        if let Some(id) = t["id"].as_str() {
            ids.push(id.to_owned());
        }
        for (k, v) in t["tags"].as_object().into_iter().flatten() {
            if let Some(v) = v.as_str() {
                tags.insert(k.clone(), v.to_owned());
            }
        }
    }
    (tags, ids)
}

/// Whether live selector terms are what `selector_terms` renders: at most one tags term, first,
/// then terms of an `id` alone.
pub fn tags_and_ids_form(terms: &Value) -> bool {
    let terms = terms.as_array().map(Vec::as_slice).unwrap_or_default();
    terms.iter().enumerate().all(|(i, t)| {
        let keys: Vec<&String> = t.as_object().map(|o| o.keys().collect()).unwrap_or_default();
        match keys.as_slice() {
            [k] if *k == "tags" => i == 0,
            [k] if *k == "id" => true,
            _ => false,
        }
    })
}

/// Live terms as the pool's `security_group_selector_terms`.
pub fn read_selector_terms(terms: &Value, prior: &[SelectorTerm]) -> Vec<SelectorTerm> {
    terms
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, t)| {
            let mut term = SelectorTerm::default();
            inputs::read_back_all(
                inputs::SELECTOR_TERM_FIELDS,
                Object::Ec2NodeClass,
                t,
                prior.get(i),
                &mut term,
            );
            term
        })
        .collect()
}

/// Bottlerocket's OS volume as the provider renders it beside a `root_volume` data volume.
pub const BOTTLEROCKET_OS_DEVICE: &str = "/dev/xvda";

/// One `block_device_mappings` entry as written, through its fields' declarations.
pub fn block_device_mapping_json(m: &BlockDeviceMapping) -> Value {
    let mut v = Value::Object(Map::new());
    inputs::render_all(inputs::BLOCK_DEVICE_MAPPING_FIELDS, m, Object::Ec2NodeClass, &mut v);
    v
}

/// The pool's mappings after the root volume's: `provider` is what the root volume renders;
/// a user mapping of Bottlerocket's OS device replaces the provider's 4Gi OS volume.
pub fn with_user_mappings(nc: &NodeClass, provider: Vec<Value>) -> Vec<Value> {
    let user_os = nc
        .block_device_mappings
        .iter()
        .any(|m| m.device_name == BOTTLEROCKET_OS_DEVICE);
    let mut out: Vec<Value> = provider
        .into_iter()
        .filter(|m| !(user_os && m["deviceName"] == BOTTLEROCKET_OS_DEVICE && m["rootVolume"] != true))
        .collect();
    out.extend(nc.block_device_mappings.iter().map(block_device_mapping_json));
    out
}

/// The user's mappings among live ones: all but the root volume's (`rootVolume: true`) and, when
/// `os_default` is given, a mapping equal to the provider's Bottlerocket OS volume the prior did
/// not map itself.
pub fn user_mappings(live: &Value, os_default: Option<&Value>, prior: &NodeClass) -> Vec<BlockDeviceMapping> {
    let prior_maps_os = prior
        .block_device_mappings
        .iter()
        .any(|m| m.device_name == BOTTLEROCKET_OS_DEVICE);
    live.as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["rootVolume"] != true)
        .filter(|m| prior_maps_os || os_default.is_none_or(|d| *m != d))
        .enumerate()
        .map(|(i, m)| {
            let mut b = BlockDeviceMapping::default();
            inputs::read_back_all(
                inputs::BLOCK_DEVICE_MAPPING_FIELDS,
                Object::Ec2NodeClass,
                m,
                prior.block_device_mappings.get(i),
                &mut b,
            );
            b
        })
        .collect()
}
