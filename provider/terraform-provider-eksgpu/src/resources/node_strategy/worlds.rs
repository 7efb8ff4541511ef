//! Judging pools whose inputs are partly unknown at plan. A rule must judge only what is known:
//! each unknown input is completed in a few representative ways ("worlds": a bool both ways,
//! instance types of each accelerator family and none, each capacity type, free strings and
//! numbers of several values), the rules run in every world, and a finding is kept only when
//! every world has it (same rule, same severity, same place). So a finding that depends on the
//! unknown waits for apply (where the rules run again on the known plan), and one that does not
//! (a CPU-only type beside an unknown requirement key) still fires at plan. A pool that does not
//! read in some world (the completion is not valid there) has no finding in that world, so its
//! findings wait: the worlds can only hold findings back, never invent one.

use eksgpu_core::model::{NodeStrategy, Pool};
use eksgpu_core::rules::Violation;
use eksgpu_tfplugin::{Type, Value};

use super::model;

/// How many worlds each unknown input is completed in.
pub(super) const WORLDS: usize = 4;

/// Instance types standing for the catalog's families: NVIDIA, AWS Neuron, CPU only, a large
/// NVIDIA type (EFA, several GPUs). Any catalog type works here; these are in it.
const INSTANCE_TYPES: [&str; WORLDS] = ["g6.xlarge", "inf2.xlarge", "m5.large", "p5.48xlarge"];
/// Karpenter's and EKS's capacity types (`karpenter.sh/capacity-type` values).
const CAPACITY_TYPES: [&str; WORLDS] = ["on-demand", "spot", "reserved", "on-demand"];

/// `v` with each unknown value below it completed as world `w` does, typed by `ty`; `name` is
/// the attribute the value is at (its completions for `instance_types` and `capacity_types`).
pub(super) fn completed(v: &Value, ty: &Type, name: &str, w: usize) -> Value {
    let pick = |xs: [&str; WORLDS]| Value::String(xs[w % WORLDS].into());
    match (v, ty) {
        (Value::Unknown, Type::Bool) => Value::Bool(w % 2 == 1),
        (Value::Unknown, Type::Number) => Value::from([1_i64, 2, 16, 100][w % WORLDS]),
        (Value::Unknown, Type::String) => match name {
            "instance_types" => pick(INSTANCE_TYPES),
            "capacity_types" => pick(CAPACITY_TYPES),
            _ => Value::String(format!("unknown-{w}")),
        },
        (Value::Unknown, Type::List(t) | Type::Set(t)) => {
            // None in one world, one element (itself completed) in the others.
            let items = if w == 0 {
                Vec::new()
            } else {
                vec![completed(&Value::Unknown, t, name, w)]
            };
            if matches!(ty, Type::Set(_)) {
                Value::Set(items)
            } else {
                Value::List(items)
            }
        }
        (Value::Unknown, Type::Map(_)) => Value::Map(Default::default()),
        (Value::Unknown, Type::Object(types)) => Value::Object(
            types
                .iter()
                .map(|(k, t)| (k.clone(), completed(&Value::Unknown, t, k, w)))
                .collect(),
        ),
        (Value::Object(m), Type::Object(types)) => Value::Object(
            m.iter()
                .map(|(k, x)| {
                    let x = types.get(k).map_or_else(|| x.clone(), |t| completed(x, t, k, w));
                    (k.clone(), x)
                })
                .collect(),
        ),
        (Value::List(l), Type::List(t)) => Value::List(l.iter().map(|x| completed(x, t, name, w)).collect()),
        (Value::Set(l), Type::Set(t)) => Value::Set(l.iter().map(|x| completed(x, t, name, w)).collect()),
        (Value::Map(m), Type::Map(t)) => {
            Value::Map(m.iter().map(|(k, x)| (k.clone(), completed(x, t, name, w))).collect())
        }
        _ => v.clone(),
    }
}

/// The pools of `inputs` (the planned inputs, unknowns in place) as world `w` completes them;
/// a pool that does not read there is left out.
fn pools(inputs: &Value, w: usize) -> Vec<Pool> {
    model::pool_values(inputs)
        .iter()
        .filter_map(|(name, v)| model::pool_of(name, &completed(v, model::pool_type(), "", w)).ok())
        .collect()
}

/// The findings of `check` that every world has, the strategy's pools completed in each.
pub(super) fn in_every_world(
    inputs: &Value,
    s: &NodeStrategy,
    check: impl Fn(&NodeStrategy) -> Vec<Violation>,
) -> Vec<Violation> {
    let worlds: Vec<Vec<Violation>> = (0..WORLDS)
        .map(|w| {
            check(&NodeStrategy {
                pools: pools(inputs, w),
                ..s.clone()
            })
        })
        .collect();
    common(worlds)
}

/// The findings of the first list that each other list has too (rule, severity and place).
pub(super) fn common(worlds: Vec<Vec<Violation>>) -> Vec<Violation> {
    let Some((first, rest)) = worlds.split_first() else {
        return Vec::new();
    };
    first
        .iter()
        .filter(|v| {
            rest.iter().all(|w| {
                w.iter()
                    .any(|x| x.code == v.code && x.severity == v.severity && x.path == v.path)
            })
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests;
