//! Between Terraform values of `eksgpu_node_strategy` and the domain model.
//! A pool with any unknown value is not converted: its outputs stay unknown.

use std::collections::BTreeMap;

use eksgpu_core::model::{
    Capacity, Disruption, GpuOperator, Hybrid, Kubelet, ManagedNodeGroup, NodeClass, Pool, RootVolume, Scaling, Taint,
};
use eksgpu_tfplugin::{Number, Value};

fn string(v: &Value) -> Option<String> {
    v.as_str().map(str::to_owned)
}

fn strings(v: &Value) -> Vec<String> {
    v.elements()
        .iter()
        .filter_map(|s| s.as_str().map(str::to_owned))
        .collect()
}

fn string_map(v: &Value) -> BTreeMap<String, String> {
    v.entries()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_owned())))
        .collect()
}

fn int(v: &Value) -> Option<i64> {
    v.as_number().and_then(Number::as_i64)
}

fn block(v: &Value) -> Option<&Value> {
    Some(v).filter(|b| matches!(b, Value::Object(_)))
}

/// The pool, or `None` while any of its values is unknown or its capacity is not one this resource knows.
pub(crate) fn pool(v: &Value) -> Option<Pool> {
    if !v.is_wholly_known() {
        return None;
    }
    Some(Pool {
        name: string(v.get("name"))?,
        capacity: Capacity::parse(v.get("capacity").as_str()?)?,
        instance_types: strings(v.get("instance_types")),
        capacity_types: strings(v.get("capacity_types")),
        zones: strings(v.get("zones")),
        gpu_limit: int(v.get("gpu_limit")),
        labels: string_map(v.get("labels")),
        gpu_taint: v.get("gpu_taint").as_bool().unwrap_or(true),
        taints: v
            .get("taint")
            .elements()
            .iter()
            .map(|t| Taint {
                key: string(t.get("key")).unwrap_or_default(),
                value: string(t.get("value")),
                effect: string(t.get("effect")).unwrap_or_default(),
            })
            .collect(),
        disruption: block(v.get("disruption")).map(|d| Disruption {
            consolidation_policy: string(d.get("consolidation_policy")),
            consolidate_after: string(d.get("consolidate_after")),
        }),
        dra: v.get("dra").as_bool().unwrap_or(false),
        node_class: block(v.get("node_class")).map(|nc| NodeClass {
            ami_alias: string(nc.get("ami_alias")),
            role: string(nc.get("role")),
            subnet_selector_tags: string_map(nc.get("subnet_selector_tags")),
            security_group_selector_tags: string_map(nc.get("security_group_selector_tags")),
            root_volume: block(nc.get("root_volume")).map(|r| RootVolume {
                size: string(r.get("size")),
                volume_type: string(r.get("volume_type")),
                iops: int(r.get("iops")),
                throughput: int(r.get("throughput")),
                encrypted: r.get("encrypted").as_bool(),
            }),
            kubelet: block(nc.get("kubelet")).map(|k| Kubelet {
                max_pods: int(k.get("max_pods")),
                eviction_hard: string_map(k.get("eviction_hard")),
            }),
            tags: string_map(nc.get("tags")),
        }),
        managed_node_group: block(v.get("managed_node_group")).map(|m| {
            let sc = m.get("scaling");
            ManagedNodeGroup {
                node_role_arn: string(m.get("node_role_arn")).unwrap_or_default(),
                subnet_ids: strings(m.get("subnet_ids")),
                ami_type: string(m.get("ami_type")),
                // Validation requires the block; a missing value fails EKSGPU117's bounds.
                scaling: Scaling {
                    min: int(sc.get("min")).unwrap_or(-1),
                    max: int(sc.get("max")).unwrap_or(0),
                    desired: int(sc.get("desired")).unwrap_or(-1),
                },
                max_unavailable: int(m.get("update").get("max_unavailable")),
            }
        }),
        hybrid: block(v.get("hybrid")).map(|h| Hybrid {
            remote_node_networks: strings(h.get("remote_node_networks")),
            remote_pod_networks: strings(h.get("remote_pod_networks")),
            node_role_arn: string(h.get("node_role_arn")).unwrap_or_default(),
        }),
    })
}

pub(crate) fn gpu_operator(v: &Value) -> Option<GpuOperator> {
    let b = block(v)?;
    Some(GpuOperator {
        mig_strategy: string(b.get("mig_strategy")).unwrap_or_else(|| "single".to_owned()),
        dcgm_exporter: b.get("dcgm_exporter").as_bool().unwrap_or(true),
        service_monitor: b.get("service_monitor").as_bool().unwrap_or(false),
    })
}

/// Writes `pool` into the Terraform value `prior` (or a fresh one), touching
/// only attributes whose model value changed, so the user's spelling (null
/// versus empty, omitted defaults) survives a refresh that found no drift.
pub(crate) fn pool_value(pool: &Pool, prior: Option<&Value>) -> Value {
    let prior_model = prior.and_then(self::pool);
    let mut out = match prior {
        Some(Value::Object(m)) => m.clone(),
        _ => BTreeMap::new(),
    };
    let same = |f: &dyn Fn(&Pool) -> bool| prior_model.as_ref().is_some_and(f);
    let list = |xs: &[String]| {
        if xs.is_empty() {
            Value::Null
        } else {
            Value::List(xs.iter().map(|s| Value::from(s.as_str())).collect())
        }
    };
    let map = |m: &BTreeMap<String, String>| {
        if m.is_empty() {
            Value::Null
        } else {
            Value::Map(m.iter().map(|(k, v)| (k.clone(), Value::from(v.as_str()))).collect())
        }
    };
    let mut set = |k: &str, v: Value| {
        out.insert(k.to_owned(), v);
    };
    set("name", pool.name.as_str().into());
    set("capacity", pool.capacity.as_str().into());
    if !same(&|p| p.instance_types == pool.instance_types) {
        set("instance_types", list(&pool.instance_types));
    }
    if !same(&|p| p.capacity_types == pool.capacity_types) {
        set("capacity_types", list(&pool.capacity_types));
    }
    if !same(&|p| p.zones == pool.zones) {
        set("zones", list(&pool.zones));
    }
    if !same(&|p| p.gpu_limit == pool.gpu_limit) {
        set("gpu_limit", pool.gpu_limit.map_or(Value::Null, Value::from));
    }
    if !same(&|p| p.labels == pool.labels) {
        set("labels", map(&pool.labels));
    }
    // Optional attributes with defaults are planned to their concrete value, so state always holds one.
    set("gpu_taint", pool.gpu_taint.into());
    set("dra", pool.dra.into());
    if !same(&|p| p.taints == pool.taints) {
        let taints = pool
            .taints
            .iter()
            .map(|t| {
                Value::object([
                    ("key", t.key.as_str().into()),
                    ("value", t.value.as_deref().map_or(Value::Null, Value::from)),
                    ("effect", t.effect.as_str().into()),
                ])
            })
            .collect();
        set("taint", Value::List(taints));
    }
    if !same(&|p| p.disruption == pool.disruption) {
        let d = pool.disruption.as_ref().map_or(Value::Null, |d| {
            Value::object([
                (
                    "consolidation_policy",
                    d.consolidation_policy.as_deref().map_or(Value::Null, Value::from),
                ),
                (
                    "consolidate_after",
                    d.consolidate_after.as_deref().map_or(Value::Null, Value::from),
                ),
            ])
        });
        set("disruption", d);
    }
    if !same(&|p| p.node_class == pool.node_class) {
        let nc = pool.node_class.as_ref().map_or(Value::Null, |nc| {
            Value::object([
                ("ami_alias", nc.ami_alias.as_deref().map_or(Value::Null, Value::from)),
                ("role", nc.role.as_deref().map_or(Value::Null, Value::from)),
                ("subnet_selector_tags", map(&nc.subnet_selector_tags)),
                ("security_group_selector_tags", map(&nc.security_group_selector_tags)),
                ("tags", map(&nc.tags)),
                (
                    "root_volume",
                    nc.root_volume.as_ref().map_or(Value::Null, |r| {
                        Value::object([
                            ("size", r.size.as_deref().map_or(Value::Null, Value::from)),
                            ("volume_type", r.volume_type.as_deref().map_or(Value::Null, Value::from)),
                            ("iops", r.iops.map_or(Value::Null, Value::from)),
                            ("throughput", r.throughput.map_or(Value::Null, Value::from)),
                            ("encrypted", r.encrypted.map_or(Value::Null, Value::from)),
                        ])
                    }),
                ),
                (
                    "kubelet",
                    nc.kubelet.as_ref().map_or(Value::Null, |k| {
                        Value::object([
                            ("max_pods", k.max_pods.map_or(Value::Null, Value::from)),
                            ("eviction_hard", map(&k.eviction_hard)),
                        ])
                    }),
                ),
            ])
        });
        set("node_class", nc);
    }
    if !same(&|p| p.managed_node_group == pool.managed_node_group) {
        let m = pool.managed_node_group.as_ref().map_or(Value::Null, |m| {
            Value::object([
                ("node_role_arn", m.node_role_arn.as_str().into()),
                (
                    "subnet_ids",
                    Value::List(m.subnet_ids.iter().map(|s| Value::from(s.as_str())).collect()),
                ),
                ("ami_type", m.ami_type.as_deref().map_or(Value::Null, Value::from)),
                (
                    "scaling",
                    Value::object([
                        ("min", m.scaling.min.into()),
                        ("max", m.scaling.max.into()),
                        ("desired", m.scaling.desired.into()),
                    ]),
                ),
                (
                    "update",
                    m.max_unavailable
                        .map_or(Value::Null, |n| Value::object([("max_unavailable", n.into())])),
                ),
            ])
        });
        set("managed_node_group", m);
    }
    if !same(&|p| p.hybrid == pool.hybrid) {
        let h = pool.hybrid.as_ref().map_or(Value::Null, |h| {
            Value::object([
                (
                    "remote_node_networks",
                    Value::List(h.remote_node_networks.iter().map(|s| Value::from(s.as_str())).collect()),
                ),
                ("remote_pod_networks", list(&h.remote_pod_networks)),
                ("node_role_arn", h.node_role_arn.as_str().into()),
            ])
        });
        set("hybrid", h);
    }
    Value::Object(out)
}

pub(crate) fn gpu_operator_value(op: Option<&GpuOperator>) -> Value {
    op.map_or(Value::Null, |op| {
        Value::object([
            ("mig_strategy", op.mig_strategy.as_str().into()),
            ("dcgm_exporter", op.dcgm_exporter.into()),
            ("service_monitor", op.service_monitor.into()),
        ])
    })
}
