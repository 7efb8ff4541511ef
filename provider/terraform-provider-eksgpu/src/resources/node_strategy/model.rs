//! `eksgpu_node_strategy` values ↔ the domain model, exactly: a fractional
//! limit, a null label or an unknown value is an error at its path, never a
//! silent default. Writing gives every collection its empty value rather than
//! null (the framework keeps the spelling state had when reading back).

use eksgpu_core::model::{
    Budget, Capacity, CapacityReservationTerm, Disruption, GpuOperator, Hybrid, Kubelet, ManagedNodeGroup,
    MetadataOptions, NodeClass, NodeStrategy, Pool, RootVolume, Scaling, Taint,
};
use eksgpu_framework::model::{ModelError, Obj, ObjBuilder};
use eksgpu_tfplugin::Value;

fn capacity(s: &str) -> Result<Capacity, String> {
    Capacity::parse(s).ok_or_else(|| format!("{s:?} is not a capacity kind"))
}

/// One pool block.
pub(crate) fn pool(o: &Obj<'_>) -> Result<Pool, ModelError> {
    Ok(Pool {
        name: o.get("name")?,
        capacity: o.parse("capacity", capacity)?,
        instance_types: o.get("instance_types")?,
        capacity_types: o.get("capacity_types")?,
        zones: o.get("zones")?,
        gpu_limit: o.get("gpu_limit")?,
        cpu_limit: o.get("cpu_limit")?,
        memory_limit: o.get("memory_limit")?,
        weight: o.get("weight")?,
        expire_after: o.get("expire_after")?,
        labels: o.get("labels")?,
        gpu_taint: o.get::<Option<bool>>("gpu_taint")?.unwrap_or(true),
        taints: o.blocks("taint", |t| {
            Ok(Taint {
                key: t.get("key")?,
                // An empty taint value is legal and means "no value" (Kubernetes core/v1 Taint).
                value: t.get::<Option<String>>("value")?.filter(|v| !v.is_empty()),
                effect: t.get("effect")?,
            })
        })?,
        disruption: o
            .block("disruption")?
            .map(|d| {
                Ok::<_, ModelError>(Disruption {
                    consolidation_policy: d.get("consolidation_policy")?,
                    consolidate_after: d.get("consolidate_after")?,
                    budgets: d.blocks("budget", |b| {
                        Ok(Budget {
                            nodes: b.get("nodes")?,
                            schedule: b.get("schedule")?,
                            duration: b.get("duration")?,
                            reasons: b.get("reasons")?,
                        })
                    })?,
                })
            })
            .transpose()?,
        dra: o.get::<Option<bool>>("dra")?.unwrap_or(false),
        efa: o.get::<Option<bool>>("efa")?.unwrap_or(false),
        node_class: o.block("node_class")?.map(|nc| node_class(&nc)).transpose()?,
        managed_node_group: o
            .block("managed_node_group")?
            .map(|m| {
                let sc = m
                    .block("scaling")?
                    .ok_or_else(|| ModelError::invalid("a `scaling { min, max, desired }` block is required"))?;
                Ok::<_, ModelError>(ManagedNodeGroup {
                    node_role_arn: m.get("node_role_arn")?,
                    subnet_ids: m.get("subnet_ids")?,
                    ami_type: m.get("ami_type")?,
                    scaling: Scaling {
                        min: sc.get("min")?,
                        max: sc.get("max")?,
                        desired: sc.get("desired")?,
                    },
                    max_unavailable: match m.block("update")? {
                        Some(u) => u.get("max_unavailable")?,
                        None => None,
                    },
                    max_unavailable_percentage: match m.block("update")? {
                        Some(u) => u.get("max_unavailable_percentage")?,
                        None => None,
                    },
                    release_version: m.get("release_version")?,
                    disk_size: m.get("disk_size")?,
                    node_repair: match m.block("node_repair_config")? {
                        Some(r) => Some(r.get("enabled")?),
                        None => None,
                    },
                })
            })
            .transpose()?,
        hybrid: o
            .block("hybrid")?
            .map(|h| {
                Ok::<_, ModelError>(Hybrid {
                    remote_node_networks: h.get("remote_node_networks")?,
                    remote_pod_networks: h.get("remote_pod_networks")?,
                    node_role_arn: h.get("node_role_arn")?,
                })
            })
            .transpose()?,
        tags: o.get("tags")?,
    })
}

fn node_class(nc: &Obj<'_>) -> Result<NodeClass, ModelError> {
    Ok(NodeClass {
        ami_alias: nc.get("ami_alias")?,
        role: nc.get("role")?,
        subnet_selector_tags: nc.get("subnet_selector_tags")?,
        security_group_selector_tags: nc.get("security_group_selector_tags")?,
        root_volume: nc
            .block("root_volume")?
            .map(|r| {
                Ok::<_, ModelError>(RootVolume {
                    size: r.get("size")?,
                    volume_type: r.get("volume_type")?,
                    iops: r.get("iops")?,
                    throughput: r.get("throughput")?,
                    encrypted: r.get("encrypted")?,
                })
            })
            .transpose()?,
        kubelet: nc
            .block("kubelet")?
            .map(|k| {
                Ok::<_, ModelError>(Kubelet {
                    max_pods: k.get("max_pods")?,
                    eviction_hard: k.get("eviction_hard")?,
                })
            })
            .transpose()?,
        tags: nc.get("tags")?,
        metadata_options: nc
            .block("metadata_options")?
            .map(|m| {
                Ok::<_, ModelError>(MetadataOptions {
                    http_tokens: m.get("http_tokens")?,
                    http_put_response_hop_limit: m.get("http_put_response_hop_limit")?,
                })
            })
            .transpose()?,
        instance_store_policy: nc.get("instance_store_policy")?,
        capacity_reservations: nc.blocks("capacity_reservation", |t| {
            Ok(CapacityReservationTerm {
                id: t.get("id")?,
                tags: t.get("tags")?,
                owner_id: t.get("owner_id")?,
                instance_match_criteria: t.get("instance_match_criteria")?,
            })
        })?,
    })
}

/// A pool value.
pub(crate) fn pool_of(v: &Value) -> Result<Pool, ModelError> {
    pool(&Obj::new(v)?)
}

/// The `gpu_operator` block of a list of at most one.
pub(crate) fn gpu_operator(v: &Value) -> Result<Option<GpuOperator>, ModelError> {
    let v = eksgpu_framework::path::one(v);
    if v.is_null() {
        return Ok(None);
    }
    let b = Obj::new(v)?;
    Ok(Some(GpuOperator {
        mig_strategy: b
            .get::<Option<String>>("mig_strategy")?
            .unwrap_or_else(|| "single".to_owned()),
        dcgm_exporter: b.get::<Option<bool>>("dcgm_exporter")?.unwrap_or(true),
        service_monitor: b.get::<Option<bool>>("service_monitor")?.unwrap_or(false),
    }))
}

/// The strategy of a planned or stored value, every pool included.
pub(crate) fn strategy(v: &Value) -> Result<NodeStrategy, ModelError> {
    let o = Obj::new(v)?;
    Ok(NodeStrategy {
        cluster_name: o.get("cluster_name")?,
        name: o.get("name")?,
        kubernetes_version: o.computed("kubernetes_version")?,
        gpu_operator: gpu_operator(o.raw("gpu_operator"))
            .map_err(|e| e.within(eksgpu_tfplugin::diag::Step::Attribute("gpu_operator".into())))?,
        pools: o.blocks("pool", |p| pool(&p))?,
        // Provider configuration, not the resource's: the caller sets them.
        default_tags: Default::default(),
    })
}

fn opt_map(m: &std::collections::BTreeMap<String, String>) -> Option<std::collections::BTreeMap<String, String>> {
    Some(m.clone()).filter(|m| !m.is_empty())
}

fn opt_list(l: &[String]) -> Option<Vec<String>> {
    Some(l.to_vec()).filter(|l| !l.is_empty())
}

/// The user-facing attributes of a pool (computed ones are added by the plan).
pub(crate) fn write_pool(p: &Pool) -> Value {
    ObjBuilder::new()
        .set("name", p.name.clone())
        .set("capacity", p.capacity.as_str())
        .set("instance_types", opt_list(&p.instance_types))
        .set("capacity_types", opt_list(&p.capacity_types))
        .set("zones", opt_list(&p.zones))
        .set("gpu_limit", p.gpu_limit)
        .set("cpu_limit", p.cpu_limit.clone())
        .set("memory_limit", p.memory_limit.clone())
        .set("weight", p.weight)
        .set("expire_after", p.expire_after.clone())
        // `labels` defaults to `{}`: always a map in state, so `labels = {}` and no labels plan alike.
        .set("labels", p.labels.clone())
        .set("gpu_taint", p.gpu_taint)
        .set("dra", p.dra)
        // Not part of the model: a setting of the apply, read from the plan; unset reads as `false`.
        .raw("adopt", Value::Null)
        .set("efa", p.efa)
        .set("tags", opt_map(&p.tags))
        .raw(
            "taint",
            Value::List(
                p.taints
                    .iter()
                    .map(|t| {
                        ObjBuilder::new()
                            .set("key", t.key.clone())
                            .set("value", t.value.clone())
                            .set("effect", t.effect.clone())
                            .build()
                    })
                    .collect(),
            ),
        )
        .one(
            "disruption",
            p.disruption.as_ref().map(|d| {
                ObjBuilder::new()
                    .set("consolidation_policy", d.consolidation_policy.clone())
                    .set("consolidate_after", d.consolidate_after.clone())
                    .raw(
                        "budget",
                        Value::List(
                            d.budgets
                                .iter()
                                .map(|b| {
                                    ObjBuilder::new()
                                        .set("nodes", b.nodes.clone())
                                        .set("schedule", b.schedule.clone())
                                        .set("duration", b.duration.clone())
                                        .set("reasons", opt_list(&b.reasons))
                                        .build()
                                })
                                .collect(),
                        ),
                    )
                    .build()
            }),
        )
        .one("node_class", p.node_class.as_ref().map(write_node_class))
        .one(
            "managed_node_group",
            p.managed_node_group.as_ref().map(|m| {
                ObjBuilder::new()
                    .set("node_role_arn", m.node_role_arn.clone())
                    .set("subnet_ids", m.subnet_ids.clone())
                    .set("ami_type", m.ami_type.clone())
                    .one(
                        "scaling",
                        Some(
                            ObjBuilder::new()
                                .set("min", m.scaling.min)
                                .set("max", m.scaling.max)
                                .set("desired", m.scaling.desired)
                                .build(),
                        ),
                    )
                    .set("release_version", m.release_version.clone())
                    .set("disk_size", m.disk_size)
                    .one(
                        "node_repair_config",
                        m.node_repair.map(|e| ObjBuilder::new().set("enabled", e).build()),
                    )
                    .one(
                        "update",
                        (m.max_unavailable.is_some() || m.max_unavailable_percentage.is_some()).then(|| {
                            ObjBuilder::new()
                                .set("max_unavailable", m.max_unavailable)
                                .set("max_unavailable_percentage", m.max_unavailable_percentage)
                                .build()
                        }),
                    )
                    .build()
            }),
        )
        .one(
            "hybrid",
            p.hybrid.as_ref().map(|h| {
                ObjBuilder::new()
                    .set("remote_node_networks", h.remote_node_networks.clone())
                    .set("remote_pod_networks", opt_list(&h.remote_pod_networks))
                    .set("node_role_arn", h.node_role_arn.clone())
                    .build()
            }),
        )
        .build()
}

fn write_node_class(nc: &NodeClass) -> Value {
    ObjBuilder::new()
        .set("ami_alias", nc.ami_alias.clone())
        .set("role", nc.role.clone())
        .set("subnet_selector_tags", opt_map(&nc.subnet_selector_tags))
        .set(
            "security_group_selector_tags",
            opt_map(&nc.security_group_selector_tags),
        )
        .set("tags", opt_map(&nc.tags))
        .set("instance_store_policy", nc.instance_store_policy.clone())
        .raw(
            "capacity_reservation",
            Value::List(
                nc.capacity_reservations
                    .iter()
                    .map(|t| {
                        ObjBuilder::new()
                            .set("id", t.id.clone())
                            .set("tags", opt_map(&t.tags))
                            .set("owner_id", t.owner_id.clone())
                            .set("instance_match_criteria", t.instance_match_criteria.clone())
                            .build()
                    })
                    .collect(),
            ),
        )
        .one(
            "metadata_options",
            nc.metadata_options.as_ref().map(|m| {
                ObjBuilder::new()
                    .set("http_tokens", m.http_tokens.clone())
                    .set("http_put_response_hop_limit", m.http_put_response_hop_limit)
                    .build()
            }),
        )
        .one(
            "root_volume",
            nc.root_volume.as_ref().map(|r| {
                ObjBuilder::new()
                    .set("size", r.size.clone())
                    .set("volume_type", r.volume_type.clone())
                    .set("iops", r.iops)
                    .set("throughput", r.throughput)
                    .set("encrypted", r.encrypted)
                    .build()
            }),
        )
        .one(
            "kubelet",
            nc.kubelet.as_ref().map(|k| {
                ObjBuilder::new()
                    .set("max_pods", k.max_pods)
                    .set("eviction_hard", opt_map(&k.eviction_hard))
                    .build()
            }),
        )
        .build()
}

/// The `gpu_operator` block, as the list of at most one Terraform holds.
pub(crate) fn write_gpu_operator(op: Option<&GpuOperator>) -> Value {
    Value::List(
        op.map(|op| {
            ObjBuilder::new()
                .set("mig_strategy", op.mig_strategy.clone())
                .set("dcgm_exporter", op.dcgm_exporter)
                .set("service_monitor", op.service_monitor)
                .build()
        })
        .into_iter()
        .collect(),
    )
}

#[cfg(test)]
mod tests;
