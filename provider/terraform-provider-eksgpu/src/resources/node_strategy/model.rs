//! `eksgpu_node_strategy` values ↔ the domain model, exactly: a fractional
//! limit, a null label or an unknown value is an error at its path, never a
//! silent default. Writing gives every collection its empty value rather than
//! null (the framework keeps the spelling state had when reading back).

use eksgpu_core::model::inputs::POOL;
use eksgpu_core::model::{DevicePlugin, GpuOperator, NodeStrategy, Pool};
use eksgpu_framework::model::{ModelError, Obj, ObjBuilder};
use eksgpu_tfplugin::{Type, Value};

use crate::resources::inputs;

/// Pool `name` (its key in `pools`), through its declared inputs.
pub(crate) fn pool(name: &str, o: &Obj<'_>) -> Result<Pool, ModelError> {
    let mut p: Pool = inputs::read(POOL, o.value()).map_err(|e| o.within(e))?;
    p.name = name.to_owned();
    Ok(p)
}

/// The value of pool `name`.
pub(crate) fn pool_of(name: &str, v: &Value) -> Result<Pool, ModelError> {
    pool(name, &Obj::new(v)?)
}

/// The pool values of a state or plan, by name (none while `pools` is null or unknown).
pub(crate) fn pool_values(v: &Value) -> std::collections::BTreeMap<String, Value> {
    match v.get("pools") {
        Value::Map(m) => m.clone(),
        _ => Default::default(),
    }
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

/// The `device_plugin` block of a list of at most one.
pub(crate) fn device_plugin(v: &Value) -> Result<Option<DevicePlugin>, ModelError> {
    let v = eksgpu_framework::path::one(v);
    if v.is_null() {
        return Ok(None);
    }
    let b = Obj::new(v)?;
    Ok(Some(DevicePlugin {
        mig_strategy: b
            .get::<Option<String>>("mig_strategy")?
            .unwrap_or_else(|| "single".to_owned()),
    }))
}

/// The strategy of a planned or stored value, every pool included.
pub(crate) fn strategy(v: &Value) -> Result<NodeStrategy, ModelError> {
    let o = Obj::new(v)?;
    Ok(NodeStrategy {
        cluster_name: o.get("cluster_name")?,
        name: o.get("name")?,
        kubernetes_version: o.computed("kubernetes_version")?,
        gpu_operator: gpu_operator(o.field("gpu_operator")?)
            .map_err(|e| e.within(eksgpu_tfplugin::diag::Step::Attribute("gpu_operator".into())))?,
        device_plugin: device_plugin(o.field("device_plugin")?)
            .map_err(|e| e.within(eksgpu_tfplugin::diag::Step::Attribute("device_plugin".into())))?,
        // In key order: the order apply goes through them.
        pools: o.entries("pools", |name, p| pool(name, &p))?,
        // Provider configuration, not the resource's: the caller sets them.
        default_tags: Default::default(),
        karpenter_gates: Default::default(),
    })
}

/// The type of a pool's object, from the schema.
pub(super) fn pool_type() -> &'static Type {
    static TYPE: std::sync::LazyLock<Type> = std::sync::LazyLock::new(|| {
        super::schema::cached()
            .block
            .find_attribute("pools")
            .and_then(|a| a.nested.as_ref())
            .map_or_else(|| Type::object([]), |n| n.object.implied_type())
    });
    &TYPE
}

/// The user-facing attributes of a pool (computed ones are added by the plan).
pub(crate) fn write_pool(p: &Pool) -> Value {
    inputs::write(POOL, p, pool_type())
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

/// The `device_plugin` block, as the list of at most one Terraform holds.
pub(crate) fn write_device_plugin(dp: Option<&DevicePlugin>) -> Value {
    Value::List(
        dp.map(|dp| ObjBuilder::new().set("mig_strategy", dp.mig_strategy.clone()).build())
            .into_iter()
            .collect(),
    )
}

#[cfg(test)]
mod tests;
