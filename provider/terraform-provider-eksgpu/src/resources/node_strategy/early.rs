//! Outputs known early: a pool's `node_selector`, `tolerations`, `accelerator`,
//! `gpu_resource_name` and `matched_instance_types` are planned as soon as the inputs feeding
//! them are known, and `gpu_operator_values_yaml` / `neuron_values_yaml` as soon as those of
//! every pool are. A node role, subnets or tags made in the same apply then leave them known.
//! What feeds what is declared on the inputs (`eksgpu_core::model::outputs`), not here.

use eksgpu_core::model::outputs::Output;
use eksgpu_core::model::{Capacity, NodeStrategy, Pool};
use eksgpu_core::{render, yaml};
use eksgpu_framework::partial::Partial;
use eksgpu_tfplugin::diag::Step;
use eksgpu_tfplugin::{Type, Value};

use super::{model, plan};

/// What stands in for an unknown input when a pool is read for its outputs: a value of the
/// input's type. Only outputs the input does not feed are taken from such a pool.
fn filled(v: &Value, ty: &Type) -> Value {
    match (v, ty) {
        (Value::Unknown, Type::String) => Value::String("<unknown>".into()),
        (Value::Unknown, Type::Number) => Value::from(0),
        (Value::Unknown, Type::Bool) => Value::Bool(false),
        (Value::Unknown, Type::Map(_) | Type::Object(_)) => Value::Map(Default::default()),
        (Value::Unknown, _) => Value::List(Vec::new()),
        (Value::Object(m), Type::Object(types)) => Value::Object(
            m.iter()
                .map(|(k, x)| (k.clone(), types.get(k).map_or_else(|| x.clone(), |t| filled(x, t))))
                .collect(),
        ),
        (Value::List(l), Type::List(t)) => Value::List(l.iter().map(|x| filled(x, t)).collect()),
        (Value::Map(m), Type::Map(t)) => Value::Map(m.iter().map(|(k, x)| (k.clone(), filled(x, t))).collect()),
        _ => v.clone(),
    }
}

/// Every pool of the plan by name, read for its outputs: as the rules read it (unknowns as
/// null), or, when that fails (an unknown required input), with placeholders. `None`: it does
/// not read (an unknown entry).
pub(super) fn pools(planned: &Value, partial: &Partial, pool_type: &Type) -> Vec<(String, Option<Pool>)> {
    let nulled = model::pool_values(&partial.value);
    model::pool_values(planned)
        .into_iter()
        .map(|(name, v)| {
            let pool = nulled
                .get(&name)
                .and_then(|n| model::pool_of(&name, n).ok())
                .or_else(|| model::pool_of(&name, &filled(&v, pool_type)).ok());
            (name, pool)
        })
        .collect()
}

/// Whether output `o` of `pool` is known: no input it reads is unknown.
pub(super) fn known(partial: &Partial, pool: &Pool, o: Output) -> bool {
    let at = plan::pool_at(&pool.name);
    let pool_inputs = partial.unknowns_below(&at).all(|rel| {
        let names: Vec<&str> = rel
            .iter()
            .filter_map(|s| match s {
                Step::Attribute(n) => Some(n.as_str()),
                _ => None,
            })
            .collect();
        !o.reads(&names)
    });
    pool_inputs && strategy_inputs_known(partial, o, pool.capacity)
}

fn strategy_inputs_known(partial: &Partial, o: Output, capacity: Capacity) -> bool {
    o.strategy_inputs(capacity)
        .iter()
        .all(|a| !partial.touches_unknown(&[Step::Attribute((*a).to_owned())]))
}

/// A pool output's value.
pub(super) fn value(o: Output, s: &NodeStrategy, pool: &Pool) -> Value {
    match o {
        Output::NodeSelector => plan::node_selector(s, pool),
        Output::Tolerations => plan::tolerations(pool),
        Output::Accelerator => pool.vendor().as_str().into(),
        Output::GpuResourceName => render::gpu_resource_name(s, pool).into(),
        Output::MatchedInstanceTypes => plan::matched_instance_types(pool),
        Output::GpuOperatorValues => gpu_operator_values_yaml(s),
        Output::NeuronValues => plan::neuron_values_yaml(s),
        Output::ComputeDomainClaimTemplate => render::compute_domain_claim_template(pool).into(),
        Output::CliqueTopologyKey => pool.multi_node_nvlink.then_some(render::CLIQUE_LABEL).into(),
        Output::DraDriverValues => plan::dra_driver_values_yaml(s),
        Output::DevicePluginValues => plan::device_plugin_values_yaml(s),
    }
}

/// `gpu_operator_values_yaml`: null without a `gpu_operator` block.
pub(super) fn gpu_operator_values_yaml(s: &NodeStrategy) -> Value {
    render::gpu_operator_values(s).map_or(Value::Null, |v| yaml::to_yaml(&v).into())
}

/// A strategy output (one that reads every pool), or unknown: the pools map itself is unknown,
/// a pool does not read, or an input the output reads is unknown in some pool.
pub(super) fn strategy_value(
    o: Output,
    s: &NodeStrategy,
    partial: &Partial,
    pools: &[(String, Option<Pool>)],
) -> Value {
    let pool_list = [Step::Attribute("pools".into())];
    // The strategy-level inputs of these outputs are the same whatever the capacity kind.
    if partial.unknowns_below(&pool_list).any(<[Step]>::is_empty)
        || !strategy_inputs_known(partial, o, Capacity::Karpenter)
    {
        return Value::Unknown;
    }
    let mut read = Vec::new();
    for (_, p) in pools {
        match p {
            Some(p) if known(partial, p, o) => read.push(p.clone()),
            _ => return Value::Unknown,
        }
    }
    value(
        o,
        &NodeStrategy {
            pools: read,
            ..s.clone()
        },
        &Pool::default(),
    )
}
