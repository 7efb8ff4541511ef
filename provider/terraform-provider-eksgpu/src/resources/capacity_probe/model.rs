//! `eksgpu_capacity_probe` values ↔ the domain's [`Probe`], and the outputs a finished probe
//! writes into its state.

use eksgpu_core::probe::{self, Outcome, Probe, ProbeCapacity};
use eksgpu_framework::model::{IntoValue, ModelError, Obj};
use eksgpu_framework::path;
use eksgpu_tfplugin::Value;

/// The probe of a planned or stored value (defaults planned by the framework).
pub(crate) fn read(v: &Value) -> Result<Probe, ModelError> {
    let o = Obj::new(v)?;
    let capacity = o.parse_opt("capacity", |s| {
        ProbeCapacity::parse(s).ok_or_else(|| format!("{s:?} is neither auto_mode nor karpenter"))
    })?;
    let timeout = o
        .parse_opt("timeout", |s| {
            eksgpu_core::duration::parse(s).map_err(|e| e.to_string())
        })?
        .unwrap_or(std::time::Duration::from_secs(20 * 60));
    Ok(Probe {
        cluster_name: o.get("cluster_name")?,
        name: o.get("name")?,
        namespace: o
            .get::<Option<String>>("namespace")?
            .unwrap_or_else(|| "default".into()),
        capacity: capacity.ok_or_else(|| ModelError::invalid("`capacity` is required"))?,
        instance_types: o.get("instance_types")?,
        capacity_types: o
            .get::<Option<Vec<String>>>("capacity_types")?
            .unwrap_or_else(|| vec!["on-demand".into()]),
        zones: o.get("zones")?,
        timeout,
        node_class: o.get("node_class")?,
        price_per_hour: o.get("price_per_hour")?,
    })
}

/// What the plan knows of a probe: its objects and what it costs.
pub(crate) fn set_planned(v: &mut Value, p: &Probe) {
    path::set(
        v,
        "manifests_yaml",
        eksgpu_core::yaml::to_yaml_stream(&probe::manifests(p)).into(),
    );
    path::set(v, "cost", probe::cost(p).into());
    path::set(v, "max_cost", probe::max_cost(p).into_value());
}

/// The state of a finished probe: the planned value with its outcome.
pub(crate) fn finished(
    planned: &Value,
    p: &Probe,
    o: &Outcome,
    ready_after: Option<std::time::Duration>,
    token: &str,
) -> Value {
    let mut v = planned.clone();
    set_planned(&mut v, p);
    let text = |s: &Option<String>| s.clone().map_or(Value::Null, Value::from);
    path::set(&mut v, "result", o.result.as_str().into());
    path::set(&mut v, "instance_type", text(&o.instance_type));
    path::set(&mut v, "zone", text(&o.zone));
    path::set(
        &mut v,
        "ready_after",
        ready_after.map_or(Value::Null, |d| eksgpu_core::duration::format(d).into()),
    );
    path::set(&mut v, "message", o.message.clone().into());
    let answers = probe::answers(p, o)
        .into_iter()
        .map(|c| Value::from(c.as_str()))
        .collect();
    path::set(&mut v, "answers", Value::List(answers));
    path::set(&mut v, "owner_token", token.into());
    v
}
