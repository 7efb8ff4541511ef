//! Reading a pool back from its live objects, cut down to the provider's own
//! fields (see `fields`). Where the live value is what the prior pool renders
//! to — defaults included — the prior spelling is kept, so an unchanged object
//! reads back as exactly the prior pool and only real drift shows in a plan.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::catalog::Vendor;
use crate::kinds;
use crate::model::{Capacity, NodeClass, NodeStrategy, Pool, RootVolume, Taint};
use crate::node_strategy::inputs::{self, Object};
use crate::render::{self, effective_labels, selection};

/// The pool as its live NodePool (and node class, if any) say, both already
/// projected to the provider's fields. It starts from a blank pool: every declared input reads
/// back from where it renders (`inputs`), the rest from the hand-rendered fields below, and only
/// the name and what no object carries come from `prior`.
pub fn read_back_pool(strategy: &NodeStrategy, prior: &Pool, node_pool: &Value, node_class: Option<&Value>) -> Pool {
    let mut pool = Pool {
        name: prior.name.clone(),
        ..Pool::default()
    };
    inputs::read_back_all(inputs::POOL, Object::NodePool, node_pool, Some(prior), &mut pool);
    let spec = &node_pool["spec"];
    let template = &spec["template"];
    pool.capacity = match template["spec"]["nodeClassRef"]["group"].as_str() {
        Some(group) if group == kinds::AUTO_MODE_NODE_CLASS.group => Capacity::AutoMode,
        Some(_) => Capacity::Karpenter,
        None => prior.capacity,
    };
    // What the pool annotation records, or (without one) what the prior said.
    pool.dra = pool_annotation(node_pool).unwrap_or(prior.dra);

    // The provider's own requirements by key, then the pool's `requirements` as written.
    let mut live = selection::split_requirements(&template["spec"]["requirements"], pool.capacity);
    pool.instance_types = live.own.remove(selection::INSTANCE_TYPE).unwrap_or_default();
    let capacity_types = live.own.remove(selection::CAPACITY_TYPE).unwrap_or_default();
    pool.capacity_types = if prior.capacity_types.is_empty() && capacity_types == ["on-demand"] {
        Vec::new()
    } else {
        capacity_types
    };
    pool.zones = live.own.remove(selection::ZONE).unwrap_or_default();
    pool.requirements = live.requirements;
    // `gpu_limit` is the limit on the vendor's device resource (render/karpenter.rs).
    // A quantity: the server may report it as a number or as a string.
    let limit = &spec["limits"][pool.vendor().device_resource()];
    pool.gpu_limit = limit.as_i64().or_else(|| limit.as_str().and_then(|s| s.parse().ok()));

    let live_labels = string_map(&template["metadata"]["labels"]);

    let taints: Vec<Taint> = template["spec"]["taints"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| Taint {
            key: t["key"].as_str().unwrap_or_default().to_owned(),
            value: t["value"].as_str().map(str::to_owned),
            effect: t["effect"].as_str().unwrap_or_default().to_owned(),
        })
        .collect();
    let (taints, gpu_taint) = split_gpu_taint(prior, pool.vendor(), taints);
    pool.taints = taints;
    pool.gpu_taint = gpu_taint;

    pool.node_class = match pool.capacity {
        Capacity::Karpenter => node_class.map(|nc| ec2_node_class(strategy, prior, nc)),
        _ => node_class.map(|nc| auto_mode_node_class(strategy, prior, nc)),
    };
    // Which labels the provider added depends on the live node class too (a Bottlerocket
    // alias adds the device-plugin label), which an import's prior does not know yet.
    let basis = Pool {
        node_class: pool.node_class.clone(),
        capacity: pool.capacity,
        ..prior.clone()
    };
    pool.labels = user_labels(strategy, &basis, live_labels);
    // The node class the NodePool refers to when the pool renders none (another pool's or tool's).
    let ref_name = template["spec"]["nodeClassRef"]["name"].as_str().map(str::to_owned);
    pool.node_class_ref = match (&pool.node_class, pool.capacity) {
        (Some(_), _) => None,
        // Auto Mode's own `default` is what an unset ref renders; written out, it reads back so.
        (None, Capacity::AutoMode) => ref_name
            .clone()
            .filter(|n| n != "default" || prior.node_class_ref.as_ref() == Some(n)),
        (None, _) => ref_name
            .clone()
            .filter(|n| *n != pool.name || prior.node_class_ref.as_ref() == Some(n)),
    };
    // The rendered node class's name is the one the NodePool refers to (a field we own: the live
    // node class comes back projected onto our fields, without its metadata).
    if let Some(nc) = pool.node_class.as_mut() {
        let prior_name = prior.node_class.as_ref().and_then(|nc| nc.name.as_deref());
        nc.name = ref_name
            .as_deref()
            .filter(|n| !n.is_empty() && (*n != pool.name || prior_name == Some(*n)))
            .map(str::to_owned);
    }
    // Hand-written overlays are objects of their own, read back beside the pool: their drift shows
    // in `manifests_yaml` (as the provider's own overlays'), so the input stays as the prior's.
    pool.node_overlays = prior.node_overlays.clone();
    pool
}

/// A pool found in a cluster with no prior state (`terraform import`).
pub fn import_pool(
    strategy: &NodeStrategy,
    name: &str,
    dra: bool,
    node_pool: &Value,
    node_class: Option<&Value>,
) -> Pool {
    let blank = Pool {
        dra,
        ..Pool::named(name, Capacity::Karpenter)
    };
    // Read once to learn the capacity kind, then again so defaults compare against the right kind.
    let first = read_back_pool(strategy, &blank, node_pool, node_class);
    let prior = Pool {
        capacity: first.capacity,
        ..blank
    };
    read_back_pool(strategy, &prior, node_pool, node_class)
}

fn ec2_node_class(strategy: &NodeStrategy, prior: &Pool, live: &Value) -> NodeClass {
    let p = prior.node_class.clone().unwrap_or_default();
    let spec = &live["spec"];
    let mut nc = NodeClass::default();
    inputs::read_back_all(inputs::NODE_CLASS, Object::Ec2NodeClass, spec, Some(&p), &mut nc);
    // The layout an `efa` pool renders on ENA-only-card-0 types is the provider's, not the pool's.
    if p.network_interfaces.is_empty()
        && render::efa_interfaces(prior).is_some_and(|layout| layout == spec["networkInterfaces"])
    {
        nc.network_interfaces.clear();
    }
    let alias = spec["amiSelectorTerms"][0]["alias"].as_str().map(str::to_owned);
    nc.ami_alias = if p.ami_alias.is_none() && alias.as_deref() == Some(render::DEFAULT_AMI_ALIAS) {
        None
    } else {
        alias
    };
    selectors(strategy, &p, spec, &mut nc);
    nc.root_volume = spec["blockDeviceMappings"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|b| b["rootVolume"] == true)
        .map(|b| {
            let ebs = &b["ebs"];
            let prior = p.root_volume.clone().unwrap_or_default();
            // The defaults the provider renders for a root volume (size, type) are not drift.
            let unless_default = |v: Option<String>, prior: &Option<String>, default: &str| {
                if prior.is_none() && v.as_deref() == Some(default) {
                    None
                } else {
                    v
                }
            };
            RootVolume {
                size: unless_default(
                    scalar_string(&ebs["volumeSize"]),
                    &prior.size,
                    render::KARPENTER_DEFAULT_VOLUME_SIZE,
                ),
                volume_type: unless_default(ebs["volumeType"].as_str().map(str::to_owned), &prior.volume_type, "gp3"),
                iops: ebs["iops"].as_i64(),
                throughput: ebs["throughput"].as_i64(),
                encrypted: ebs["encrypted"].as_bool(),
            }
        });
    // The pool's own mappings: the rest, less the Bottlerocket OS volume the root volume brings.
    let os_default = (nc.root_volume.is_some() && bottlerocket_alias(nc.ami_alias.as_deref()))
        .then(|| render::bottlerocket_os_volume(nc.root_volume.as_ref().and_then(|r| r.encrypted)));
    nc.block_device_mappings = selection::user_mappings(&spec["blockDeviceMappings"], os_default.as_ref(), &p);
    nc
}

fn bottlerocket_alias(alias: Option<&str>) -> bool {
    alias.is_some_and(|a| a.split('@').next() == Some("bottlerocket"))
}

fn auto_mode_node_class(strategy: &NodeStrategy, prior: &Pool, live: &Value) -> NodeClass {
    let p = prior.node_class.clone().unwrap_or_default();
    let spec = &live["spec"];
    let mut nc = NodeClass::default();
    inputs::read_back_all(inputs::NODE_CLASS, Object::AutoModeNodeClass, spec, Some(&p), &mut nc);
    selectors(strategy, &p, spec, &mut nc);
    nc.root_volume = match spec.get("ephemeralStorage").filter(|s| s.is_object()) {
        Some(s) => Some(RootVolume {
            size: scalar_string(&s["size"]),
            volume_type: None,
            iops: s["iops"].as_i64(),
            throughput: s["throughput"].as_i64(),
            encrypted: None,
        }),
        // An empty `root_volume {}` renders nothing (Auto Mode's defaults apply): not drift.
        None => p
            .root_volume
            .filter(|r| r.size.is_none() && r.iops.is_none() && r.throughput.is_none()),
    };
    nc
}

/// Subnet and security-group selector tags and IDs (hand-rendered with the discovery-tag default),
/// or security-group terms as written: when the prior wrote them, or when the live terms are no
/// tags term and ID terms (two tags terms, a name term).
fn selectors(strategy: &NodeStrategy, prior: &NodeClass, spec: &Value, nc: &mut NodeClass) {
    let (tags, ids) = selection::split_selector_terms(&spec["subnetSelectorTerms"]);
    nc.subnet_selector_tags = selector_tags(strategy, &prior.subnet_selector_tags, tags);
    nc.subnet_selector_ids = ids;
    let terms = &spec["securityGroupSelectorTerms"];
    if !prior.security_group_selector_terms.is_empty() || !selection::tags_and_ids_form(terms) {
        nc.security_group_selector_terms = selection::read_selector_terms(terms, &prior.security_group_selector_terms);
        nc.security_group_selector_tags = BTreeMap::new();
        nc.security_group_selector_ids = Vec::new();
        return;
    }
    nc.security_group_selector_terms = Vec::new();
    let (tags, ids) = selection::split_selector_terms(terms);
    nc.security_group_selector_tags = selector_tags(strategy, &prior.security_group_selector_tags, tags);
    nc.security_group_selector_ids = ids;
}

/// Selector tags; the discovery-tag default reads back as "not set".
fn selector_tags(
    strategy: &NodeStrategy,
    prior: &BTreeMap<String, String>,
    tags: BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    let default = BTreeMap::from([(render::DISCOVERY_TAG.to_owned(), strategy.cluster_name.clone())]);
    if prior.is_empty() && tags == default {
        BTreeMap::new()
    } else {
        tags
    }
}

fn string_map(v: &Value) -> BTreeMap<String, String> {
    v.as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_owned())))
        .collect()
}

fn scalar_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests;

/// Live node labels without those the provider adds on its own (they are not the user's).
pub fn user_labels(strategy: &NodeStrategy, prior: &Pool, live: BTreeMap<String, String>) -> BTreeMap<String, String> {
    let added: BTreeMap<String, String> = effective_labels(strategy, prior)
        .into_iter()
        .filter(|(k, _)| !prior.labels.contains_key(k))
        .collect();
    live.into_iter().filter(|(k, v)| added.get(k) != Some(v)).collect()
}

/// Live taints as `(taints, gpu_taint)`: the default taint of `vendor` (the read-back pool's)
/// counts as `gpu_taint = true` unless the user wrote their own taint on its key.
pub fn split_gpu_taint(prior: &Pool, vendor: Vendor, mut taints: Vec<Taint>) -> (Vec<Taint>, bool) {
    let default = Taint::default_for(vendor);
    if prior.taints.iter().any(|t| t.key == default.key) {
        return (taints, prior.gpu_taint);
    }
    match taints.iter().position(|t| *t == default) {
        Some(i) => {
            taints.remove(i);
            (taints, true)
        }
        None => (taints, false),
    }
}

/// `dra` from a NodePool's pool annotation.
pub fn pool_annotation(node_pool: &Value) -> Option<bool> {
    let raw = node_pool["metadata"]["annotations"][kinds::annotations::POOL].as_str()?;
    let v: Value = serde_json::from_str(raw).ok()?;
    v.is_object().then(|| v["dra"].as_bool().unwrap_or(false))
}

/// The strategy's `gpu_operator` settings recorded on a NodePool.
pub fn gpu_operator_annotation(node_pool: &Value) -> Option<crate::model::GpuOperator> {
    let raw = node_pool["metadata"]["annotations"][kinds::annotations::GPU_OPERATOR].as_str()?;
    let v: Value = serde_json::from_str(raw).ok()?;
    Some(crate::model::GpuOperator {
        mig_strategy: v["mig_strategy"].as_str()?.to_owned(),
        dcgm_exporter: v["dcgm_exporter"].as_bool()?,
        service_monitor: v["service_monitor"].as_bool()?,
    })
}

/// The strategy's `device_plugin` settings recorded on a NodePool.
pub fn device_plugin_annotation(node_pool: &Value) -> Option<crate::model::DevicePlugin> {
    let raw = node_pool["metadata"]["annotations"][kinds::annotations::DEVICE_PLUGIN].as_str()?;
    let v: Value = serde_json::from_str(raw).ok()?;
    Some(crate::model::DevicePlugin {
        mig_strategy: v["mig_strategy"].as_str()?.to_owned(),
    })
}

/// The strategy's GPU stack blocks recorded on a NodePool.
pub fn stack_blocks_annotation(node_pool: &Value) -> crate::model::StackBlocks {
    crate::model::StackBlocks {
        gpu_operator: gpu_operator_annotation(node_pool),
        device_plugin: device_plugin_annotation(node_pool),
    }
}
