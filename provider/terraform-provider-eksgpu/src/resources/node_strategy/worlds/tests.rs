//! The property of the class (issue 33, class 1): making any one input unknown at plan adds no
//! error, loses no error that holds whatever the input turns out to be (and is not at it), and
//! leaves every computed output unknown or equal to what the known configuration plans.

use eksgpu_core::model::{Capacity, ManagedNodeGroup, NodeClass, Pool, Requirement, Scaling};
use eksgpu_tfplugin::schema::Mode;
use eksgpu_tfplugin::{Diagnostics, Severity, Type, Value};

use super::super::{model, plan, schema};
use super::{WORLDS, completed};
use eksgpu_core::karpenter_gates::FeatureGates;

const ROLE: &str = "arn:aws:iam::123456789012:role/gpu-nodes";

fn karpenter(name: &str, types: &[&str]) -> Pool {
    Pool {
        instance_types: types.iter().map(|t| (*t).to_owned()).collect(),
        gpu_taint: true,
        node_class: Some(NodeClass {
            role: Some("KarpenterNodeRole-gpu".into()),
            ..NodeClass::default()
        }),
        ..Pool::named(name, Capacity::Karpenter)
    }
}

fn node_group(name: &str, types: &[&str], ami_type: Option<&str>) -> Pool {
    Pool {
        instance_types: types.iter().map(|t| (*t).to_owned()).collect(),
        gpu_taint: true,
        managed_node_group: Some(ManagedNodeGroup {
            node_role_arn: ROLE.into(),
            subnet_ids: vec!["subnet-0123456789abcdef0".into()],
            ami_type: ami_type.map(str::to_owned),
            scaling: Scaling {
                min: 0,
                max: 2,
                desired: 0,
            },
            ..ManagedNodeGroup::default()
        }),
        ..Pool::named(name, Capacity::ManagedNodeGroup)
    }
}

/// Configurations whose rules read across attributes: a Neuron pool with DRA, Neuron and NVIDIA
/// node groups, a CPU-only type beside requirements, MIG on Auto Mode, a spot time-sliced pool.
fn cases() -> Vec<Vec<Pool>> {
    let neuron_dra = Pool {
        dra: true,
        ..karpenter("neuron", &["inf2.xlarge"])
    };
    let cpu_beside_requirements = Pool {
        requirements: vec![Requirement {
            key: "karpenter.k8s.aws/instance-gpu-count".into(),
            operator: "Gt".into(),
            values: vec!["0".into()],
        }],
        ..karpenter("mixed", &["g6.xlarge", "m5.large"])
    };
    let mig_on_auto_mode = Pool {
        labels: [("nvidia.com/mig.config".to_owned(), "all-1g.18gb".to_owned())].into(),
        ..Pool {
            instance_types: vec!["p5.48xlarge".into()],
            gpu_taint: true,
            ..Pool::named("auto", Capacity::AutoMode)
        }
    };
    let spot_shared = Pool {
        capacity_types: vec!["spot".into()],
        labels: [
            ("nvidia.com/device-plugin.config".to_owned(), "shared".to_owned()),
            ("eksgpu.terraform.io/gpu-replicas".to_owned(), "4".to_owned()),
        ]
        .into(),
        ..karpenter("shared", &["g6.xlarge"])
    };
    vec![
        vec![neuron_dra, karpenter("gpu", &["g6.xlarge"])],
        vec![
            node_group("neuron", &["inf2.xlarge"], Some("AL2023_x86_64_NEURON")),
            node_group("cpu", &["m5.large"], None),
        ],
        vec![cpu_beside_requirements],
        vec![mig_on_auto_mode],
        vec![spot_shared],
    ]
}

/// The resource's configuration holding `pools`.
fn config(pools: &[Pool]) -> Value {
    let pools = pools.iter().map(|p| (p.name.clone(), model::write_pool(p))).collect();
    Value::Object(
        [
            ("cluster_name".to_owned(), Value::String("gpu".into())),
            ("name".to_owned(), Value::String("genai".into())),
            ("kubernetes_version".to_owned(), Value::String("1.34".into())),
            ("pools".to_owned(), Value::Map(pools)),
        ]
        .into(),
    )
}

/// What the plan of `config` makes: the planned value and the diagnostics.
fn planned(config: &Value, settings_known: bool) -> (Value, Diagnostics) {
    let block = &schema::cached().block;
    let mut p = eksgpu_framework::plan::plan(block, &Value::Null, config, config.clone());
    let mut diags = Diagnostics::new();
    let gates = FeatureGates {
        static_capacity: true,
        node_overlay: true,
    };
    plan::modify(&mut p, (1, 14), gates, &Default::default(), settings_known, &mut diags);
    (p.planned, diags)
}

/// An error as the property compares it: its rule code (the summary up to `:`) and its place.
fn errors(d: &Diagnostics) -> Vec<(String, String)> {
    d.iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| {
            let code = d.summary.split(':').next().unwrap_or_default().to_owned();
            (code, d.path.as_ref().map(ToString::to_string).unwrap_or_default())
        })
        .collect()
}

/// Where a pool's input is, as a path of attribute names, and its type.
fn inputs_of(v: &Value, ty: &Type, at: &mut Vec<String>, out: &mut Vec<(Vec<String>, Type)>) {
    let (Value::Object(m), Type::Object(types)) = (v, ty) else {
        return;
    };
    for (k, x) in m {
        let Some(t) = types.get(k) else { continue };
        if x.is_null() {
            continue;
        }
        at.push(k.clone());
        out.push((at.clone(), t.clone()));
        inputs_of(x, t, at, out);
        at.pop();
    }
}

/// Whether `planned` (with unknowns) can become `known`: unknown, or equal where known.
fn consistent(planned: &Value, known: &Value) -> bool {
    match (planned, known) {
        (Value::Unknown, _) => true,
        (Value::Object(a), Value::Object(b)) | (Value::Map(a), Value::Map(b)) => {
            a.len() == b.len() && a.iter().all(|(k, x)| b.get(k).is_some_and(|y| consistent(x, y)))
        }
        (Value::List(a), Value::List(b)) | (Value::Set(a), Value::Set(b)) | (Value::Tuple(a), Value::Tuple(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| consistent(x, y))
        }
        _ => planned == known,
    }
}

/// `config` with the value at pool `pool`'s `at` replaced.
fn with(config: &Value, pool: &str, at: &[String], v: Value) -> Value {
    let mut c = config.clone();
    if let Value::Object(top) = &mut c
        && let Some(Value::Map(pools)) = top.get_mut("pools")
        && let Some(p) = pools.get_mut(pool)
    {
        set_at(p, at, v);
    }
    c
}

fn set_at(v: &mut Value, at: &[String], x: Value) {
    match at {
        [] => *v = x,
        [first, rest @ ..] => {
            if let Value::Object(m) = v
                && let Some(inner) = m.get_mut(first)
            {
                set_at(inner, rest, x);
            }
        }
    }
}

#[test]
fn an_unknown_input_adds_no_error_loses_none_that_holds_and_outputs_stay_consistent() {
    let (mut checked, mut held) = (0, 0);
    for pools in cases() {
        let known_config = config(&pools);
        let (known_plan, known_diags) = planned(&known_config, true);
        let known_errors = errors(&known_diags);
        for p in &pools {
            let mut inputs = Vec::new();
            inputs_of(&model::write_pool(p), model::pool_type(), &mut Vec::new(), &mut inputs);
            for (at, ty) in inputs {
                let what = format!("pools[{:?}].{} unknown", p.name, at.join("."));
                let (u_plan, u_diags) = planned(&with(&known_config, &p.name, &at, Value::Unknown), true);
                let u_errors = errors(&u_diags);
                for e in &u_errors {
                    assert!(
                        known_errors.contains(e),
                        "{what}: new error {e:?} (known: {known_errors:?})"
                    );
                }
                // An error not at the input that every value of it keeps must not wait.
                let name = at.last().cloned().unwrap_or_default();
                let holds = |e: &(String, String)| {
                    (0..WORLDS).all(|w| {
                        let c = with(&known_config, &p.name, &at, completed(&Value::Unknown, &ty, &name, w));
                        errors(&planned(&c, true).1).contains(e)
                    })
                };
                let prefix = format!("pools[{:?}].{}", p.name, at.join("."));
                for e in known_errors.iter().filter(|e| !e.1.starts_with(&prefix)) {
                    if holds(e) {
                        held += 1;
                        assert!(u_errors.contains(e), "{what}: lost error {e:?} (now {u_errors:?})");
                    }
                }
                let (u_out, k_out) = (strip_inputs(&u_plan), strip_inputs(&known_plan));
                assert!(
                    consistent(&u_out, &k_out),
                    "{what}: an output planned known differs from the known plan's at {}",
                    first_difference(&u_out, &k_out)
                );
                checked += 1;
            }
        }
        // The provider's settings unknown (feature gates, default tags): no new error, outputs wait.
        let (s_plan, s_diags) = planned(&known_config, false);
        for e in errors(&s_diags) {
            assert!(known_errors.contains(&e), "settings unknown: new error {e:?}");
        }
        assert!(consistent(&strip_inputs(&s_plan), &strip_inputs(&known_plan)));
    }
    // Not vacuous: every input of the cases was made unknown, and errors were kept through them.
    assert!(checked >= 70, "only {checked} inputs were made unknown");
    assert!(held >= 20, "only {held} errors were checked to be kept");
}

/// The computed outputs of a plan: the strategy's and each pool's (`Mode::Computed` attributes).
fn strip_inputs(planned: &Value) -> Value {
    let block = &schema::cached().block;
    let computed = |attrs: &[eksgpu_tfplugin::schema::Attribute]| -> Vec<String> {
        attrs
            .iter()
            .filter(|a| a.mode == Mode::Computed)
            .map(|a| a.name.clone())
            .collect()
    };
    let pool_outputs = block
        .find_attribute("pools")
        .and_then(|a| a.nested.as_ref())
        .map(|n| computed(&n.object.attributes))
        .unwrap_or_default();
    let mut out: std::collections::BTreeMap<String, Value> = computed(&block.attributes)
        .into_iter()
        .map(|k| {
            let v = planned.get(&k).clone();
            (k, v)
        })
        .collect();
    let pools = model::pool_values(planned)
        .into_iter()
        .map(|(name, p)| {
            let o = pool_outputs.iter().map(|k| (k.clone(), p.get(k).clone())).collect();
            (name, Value::Object(o))
        })
        .collect();
    out.insert("pools".into(), Value::Map(pools));
    Value::Object(out)
}

/// Where `planned` first disagrees with `known`, for the failure message.
fn first_difference(planned: &Value, known: &Value) -> String {
    match (planned, known) {
        (Value::Object(a), Value::Object(b)) | (Value::Map(a), Value::Map(b)) => {
            for (k, x) in a {
                match b.get(k) {
                    Some(y) if consistent(x, y) => {}
                    Some(y) => return format!("{k}.{}", first_difference(x, y)),
                    None => return format!("{k} (only planned: {x:?})"),
                }
            }
            let missing: Vec<&String> = b.keys().filter(|k| !a.contains_key(*k)).collect();
            format!("missing {missing:?}")
        }
        _ => format!("{planned:?} vs {known:?}"),
    }
}
