//! Reading a pool back from its live objects, cut down to the provider's own
//! fields (see `fields`). Where the live value is what the prior pool renders
//! to — defaults included — the prior spelling is kept, so an unchanged object
//! reads back as exactly the prior pool and only real drift shows in a plan.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::kinds;
use crate::model::{
    Budget, Capacity, CapacityReservationTerm, Disruption, Kubelet, MetadataOptions, NodeClass, NodeStrategy, Pool,
    RootVolume, Taint,
};
use crate::render::{self, effective_labels};

/// The pool as its live NodePool (and node class, if any) say, both already
/// projected to the provider's fields.
pub fn read_back_pool(strategy: &NodeStrategy, prior: &Pool, node_pool: &Value, node_class: Option<&Value>) -> Pool {
    let mut pool = prior.clone();
    let spec = &node_pool["spec"];
    let template = &spec["template"];
    if let Some(group) = template["spec"]["nodeClassRef"]["group"].as_str() {
        pool.capacity = if group == kinds::AUTO_MODE_NODE_CLASS.group {
            Capacity::AutoMode
        } else {
            Capacity::Karpenter
        };
    }

    let requirement = |key: &str| -> Option<Vec<String>> {
        template["spec"]["requirements"]
            .as_array()?
            .iter()
            .find(|r| r["key"] == key)
            .map(|r| strings(&r["values"]))
    };
    pool.instance_types = requirement("node.kubernetes.io/instance-type").unwrap_or_default();
    let capacity_types = requirement("karpenter.sh/capacity-type").unwrap_or_default();
    pool.capacity_types = if prior.capacity_types.is_empty() && capacity_types == ["on-demand"] {
        Vec::new()
    } else {
        capacity_types
    };
    pool.zones = requirement("topology.kubernetes.io/zone").unwrap_or_default();
    pool.gpu_limit = quantity(&spec["limits"]["nvidia.com/gpu"]);
    pool.cpu_limit = scalar_string(&spec["limits"]["cpu"]);
    pool.memory_limit = scalar_string(&spec["limits"]["memory"]);
    pool.weight = spec["weight"].as_i64();
    pool.expire_after = template["spec"]["expireAfter"].as_str().map(str::to_owned);

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
    let (taints, gpu_taint) = split_gpu_taint(prior, taints);
    pool.taints = taints;
    pool.gpu_taint = gpu_taint;

    pool.disruption = spec.get("disruption").filter(|d| d.is_object()).map(|d| {
        let after = d["consolidateAfter"].as_str().map(str::to_owned);
        let prior_after = prior.disruption.as_ref().and_then(|p| p.consolidate_after.clone());
        Disruption {
            consolidation_policy: d["consolidationPolicy"].as_str().map(str::to_owned),
            consolidate_after: if prior_after.is_none() && after.as_deref() == Some("0s") {
                None
            } else {
                after
            },
            budgets: d["budgets"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|b| Budget {
                    nodes: scalar_string(&b["nodes"]).unwrap_or_default(),
                    schedule: b["schedule"].as_str().map(str::to_owned),
                    duration: b["duration"].as_str().map(str::to_owned),
                    reasons: strings(&b["reasons"]),
                })
                .collect(),
        }
    });

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
    let alias = spec["amiSelectorTerms"][0]["alias"].as_str().map(str::to_owned);
    let root = spec["blockDeviceMappings"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|b| b["rootVolume"] == true)
        .map(|b| {
            let ebs = &b["ebs"];
            let vt = ebs["volumeType"].as_str().map(str::to_owned);
            let prior_vt = p.root_volume.as_ref().and_then(|r| r.volume_type.clone());
            let size = scalar_string(&ebs["volumeSize"]);
            let prior_size = p.root_volume.as_ref().and_then(|r| r.size.clone());
            RootVolume {
                // The default the provider renders for a root volume without a size is not drift.
                size: if prior_size.is_none() && size.as_deref() == Some(render::KARPENTER_DEFAULT_VOLUME_SIZE) {
                    None
                } else {
                    size
                },
                volume_type: if prior_vt.is_none() && vt.as_deref() == Some("gp3") {
                    None
                } else {
                    vt
                },
                iops: ebs["iops"].as_i64(),
                throughput: ebs["throughput"].as_i64(),
                encrypted: ebs["encrypted"].as_bool(),
            }
        });
    let kubelet = spec.get("kubelet").filter(|k| k.is_object()).map(|k| Kubelet {
        max_pods: k["maxPods"].as_i64(),
        eviction_hard: string_map(&k["evictionHard"]),
    });
    NodeClass {
        ami_alias: if p.ami_alias.is_none() && alias.as_deref() == Some(render::DEFAULT_AMI_ALIAS) {
            None
        } else {
            alias
        },
        role: spec["role"].as_str().map(str::to_owned),
        subnet_selector_tags: selector_tags(strategy, &p.subnet_selector_tags, &spec["subnetSelectorTerms"]),
        security_group_selector_tags: selector_tags(
            strategy,
            &p.security_group_selector_tags,
            &spec["securityGroupSelectorTerms"],
        ),
        root_volume: root,
        kubelet,
        tags: string_map(&spec["tags"]),
        metadata_options: spec.get("metadataOptions").filter(|m| m.is_object()).map(|m| {
            let tokens = m["httpTokens"].as_str().map(str::to_owned);
            let prior_tokens = p.metadata_options.as_ref().and_then(|o| o.http_tokens.clone());
            MetadataOptions {
                http_tokens: if prior_tokens.is_none() && tokens.as_deref() == Some("required") {
                    None
                } else {
                    tokens
                },
                http_put_response_hop_limit: m["httpPutResponseHopLimit"].as_i64(),
            }
        }),
        instance_store_policy: spec["instanceStorePolicy"].as_str().map(str::to_owned),
        capacity_reservations: capacity_reservations(&spec["capacityReservationSelectorTerms"]),
    }
}

fn auto_mode_node_class(strategy: &NodeStrategy, prior: &Pool, live: &Value) -> NodeClass {
    let p = prior.node_class.clone().unwrap_or_default();
    let spec = &live["spec"];
    let storage = spec.get("ephemeralStorage").filter(|s| s.is_object());
    NodeClass {
        ami_alias: None,
        role: spec["role"].as_str().map(str::to_owned),
        subnet_selector_tags: selector_tags(strategy, &p.subnet_selector_tags, &spec["subnetSelectorTerms"]),
        security_group_selector_tags: selector_tags(
            strategy,
            &p.security_group_selector_tags,
            &spec["securityGroupSelectorTerms"],
        ),
        root_volume: storage.map(|s| RootVolume {
            size: scalar_string(&s["size"]),
            volume_type: None,
            iops: s["iops"].as_i64(),
            throughput: s["throughput"].as_i64(),
            encrypted: None,
        }),
        kubelet: None,
        tags: string_map(&spec["tags"]),
        metadata_options: None,
        instance_store_policy: None,
        capacity_reservations: capacity_reservations(&spec["capacityReservationSelectorTerms"]),
    }
}

fn capacity_reservations(terms: &Value) -> Vec<CapacityReservationTerm> {
    terms
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| CapacityReservationTerm {
            id: t["id"].as_str().map(str::to_owned),
            tags: string_map(&t["tags"]),
            owner_id: t["ownerID"].as_str().map(str::to_owned),
            instance_match_criteria: t["instanceMatchCriteria"].as_str().map(str::to_owned),
        })
        .collect()
}

/// Selector tags; the discovery-tag default reads back as "not set".
fn selector_tags(strategy: &NodeStrategy, prior: &BTreeMap<String, String>, terms: &Value) -> BTreeMap<String, String> {
    let tags = string_map(&terms[0]["tags"]);
    let default = BTreeMap::from([(render::DISCOVERY_TAG.to_owned(), strategy.cluster_name.clone())]);
    if prior.is_empty() && tags == default {
        BTreeMap::new()
    } else {
        tags
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_owned))
        .collect()
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

/// An integer resource quantity, written as a number or a plain decimal string.
fn quantity(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.parse().ok(),
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

/// Live taints as `(taints, gpu_taint)`: the default GPU taint counts as
/// `gpu_taint = true` unless the user wrote their own `nvidia.com/gpu` taint.
pub fn split_gpu_taint(prior: &Pool, mut taints: Vec<Taint>) -> (Vec<Taint>, bool) {
    if prior.taints.iter().any(|t| t.key == "nvidia.com/gpu") {
        return (taints, prior.gpu_taint);
    }
    match taints.iter().position(|t| *t == Taint::default_gpu()) {
        Some(i) => {
            taints.remove(i);
            (taints, true)
        }
        None => (taints, false),
    }
}

/// `(index, dra)` from a NodePool's pool annotation.
pub fn pool_annotation(node_pool: &Value) -> Option<(usize, bool)> {
    let raw = node_pool["metadata"]["annotations"][kinds::annotations::POOL].as_str()?;
    let v: Value = serde_json::from_str(raw).ok()?;
    Some((
        usize::try_from(v["index"].as_u64()?).ok()?,
        v["dra"].as_bool().unwrap_or(false),
    ))
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
