//! The provider's own cost per `eksgpu_node_strategy` in a `terraform plan`,
//! in process: the calls Terraform makes for a new resource (validate, plan)
//! and for one in state (upgrade, plan with a prior state), each from the
//! msgpack or JSON bytes Terraform sends to the bytes sent back, on the same
//! strategy as `acceptance-tests/benches/provider.rs` (one Karpenter pool and
//! the GPU operator). gRPC transport and Terraform itself are not included;
//! that benchmark measures them. Run with
//! `cargo bench -p terraform-provider-eksgpu --bench plan_cost`.

#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use eksgpu_tfplugin::schema::{Block, Nesting};
use eksgpu_tfplugin::value::{decode_json_value, decode_msgpack, encode_msgpack};
use eksgpu_tfplugin::{Context, Diagnostics, PlanRequest, Provider, Type, Value};

/// A block as Terraform decodes an empty configuration of it: attributes
/// null, list blocks empty, single blocks null.
fn empty(block: &Block) -> Value {
    let mut m = std::collections::BTreeMap::new();
    for a in &block.attributes {
        m.insert(a.name.clone(), Value::Null);
    }
    for b in &block.blocks {
        let v = match b.nesting {
            Nesting::Single => Value::Null,
            Nesting::List => Value::List(Vec::new()),
            Nesting::Set => Value::Set(Vec::new()),
        };
        m.insert(b.name.clone(), v);
    }
    Value::Object(m)
}

fn nested<'a>(block: &'a Block, name: &str) -> &'a Block {
    &block.blocks.iter().find(|b| b.name == name).expect(name).block
}

/// The objects' block of a nested attribute (`pools`, `node_class`).
fn nested_attribute<'a>(block: &'a Block, name: &str) -> &'a Block {
    let a = block.attributes.iter().find(|a| a.name == name).expect(name);
    &a.nested.as_ref().expect(name).object
}

fn set(v: &mut Value, name: &str, x: Value) {
    let Value::Object(m) = v else { unreachable!() };
    m.insert(name.to_owned(), x);
}

/// The benchmark's strategy `s<i>`: `gpu_operator {}` and one Karpenter pool.
fn config(block: &Block, i: usize) -> Value {
    let mut c = empty(block);
    set(&mut c, "cluster_name", "gpu".into());
    set(&mut c, "name", format!("s{i}").into());
    set(
        &mut c,
        "gpu_operator",
        Value::List(vec![empty(nested(block, "gpu_operator"))]),
    );
    let pool_block = nested_attribute(block, "pools");
    let mut pool = empty(pool_block);
    set(&mut pool, "capacity", "karpenter".into());
    set(
        &mut pool,
        "instance_types",
        Value::List(vec!["p5.48xlarge".into(), "g6e.12xlarge".into()]),
    );
    set(&mut pool, "gpu_limit", Value::from(32));
    let mut node_class = empty(nested_attribute(pool_block, "node_class"));
    set(&mut node_class, "role", "KarpenterNodeRole".into());
    set(&mut pool, "node_class", node_class);
    let pools = std::iter::once((format!("p{i}"), pool)).collect();
    set(&mut c, "pools", Value::Map(pools));
    c
}

fn msgpack(v: &Value, ty: &Type) -> Vec<u8> {
    encode_msgpack(v, ty).unwrap()
}

/// JSON of a known value, as Terraform stores state.
fn json(v: &Value) -> serde_json::Value {
    match v {
        Value::Null | Value::Unknown => serde_json::Value::Null,
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => serde_json::from_str(&n.to_string()).unwrap(),
        Value::String(s) => s.as_str().into(),
        Value::List(l) | Value::Set(l) | Value::Tuple(l) => l.iter().map(json).collect(),
        Value::Map(m) | Value::Object(m) => m.iter().map(|(k, x)| (k.clone(), json(x))).collect(),
    }
}

fn report(what: &str, n: usize, took: Duration) {
    println!(
        "{what:<44} {:>9.1} µs per resource",
        took.as_secs_f64() * 1e6 / n as f64
    );
}

fn main() {
    let n: usize = std::env::var("PLAN_COST_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    let provider = eksgpu_provider::new();
    let r = provider
        .resources()
        .into_iter()
        .find(|r| r.type_name() == "eksgpu_node_strategy")
        .unwrap();
    let schema = r.schema();
    let ty = schema.value_type();
    let ctx = Context::new();
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let configs: Vec<Vec<u8>> = (0..n).map(|i| msgpack(&config(&schema.block, i), &ty)).collect();
    let null = msgpack(&Value::Null, &ty);

    let plan = |prior: &[u8], proposed: &[u8], config: &[u8]| {
        let req = PlanRequest {
            prior_state: decode_msgpack(prior, &ty).unwrap(),
            proposed_new_state: decode_msgpack(proposed, &ty).unwrap(),
            config: decode_msgpack(config, &ty).unwrap(),
            prior_private: Vec::new(),
        };
        let mut d = Diagnostics::new();
        let resp = rt.block_on(r.plan(&ctx, req, &mut d));
        assert!(!d.has_errors(), "{d:?}");
        (msgpack(&resp.planned_state, &ty), resp.planned_state)
    };

    // Warm up (lazy schema, catalog tables).
    for c in configs.iter().take(20) {
        black_box(plan(&null, c, c));
    }

    let t = Instant::now();
    for c in &configs {
        let v = decode_msgpack(c, &ty).unwrap();
        let mut d = Diagnostics::new();
        r.validate(&v, &mut d);
        assert!(!d.has_errors(), "{d:?}");
        black_box(d);
    }
    let validate = t.elapsed();

    // A create: no prior state; Terraform proposes the configuration.
    let t = Instant::now();
    let planned: Vec<Value> = configs.iter().map(|c| plan(&null, c, c).1).collect();
    let create = t.elapsed();

    // What apply would store: the plan with its unknowns (only `kubernetes_version` here) known.
    let states: Vec<Value> = planned
        .into_iter()
        .map(|mut p| {
            if let Value::Object(m) = &mut p {
                for v in m.values_mut() {
                    if v.is_unknown() {
                        *v = "1.33".into();
                    }
                }
            }
            assert!(p.is_wholly_known(), "{p:?}");
            p
        })
        .collect();
    let state_json: Vec<Vec<u8>> = states.iter().map(|s| serde_json::to_vec(&json(s)).unwrap()).collect();
    let state_msgpack: Vec<Vec<u8>> = states.iter().map(|s| msgpack(s, &ty)).collect();

    // UpgradeResourceState as the server runs it: JSON parsed, reshaped, decoded, upgraded, encoded.
    let t = Instant::now();
    for raw in &state_json {
        let mut j: serde_json::Value = serde_json::from_slice(raw).unwrap();
        r.upgrade_json(0, &mut j);
        let v = decode_json_value(&j, &ty).unwrap();
        let mut d = Diagnostics::new();
        let v = r.upgrade(0, v, &mut d);
        black_box(msgpack(&v, &ty));
    }
    let upgrade = t.elapsed();

    // A resource in state with no change: prior = proposed = stored state.
    let t = Instant::now();
    for (s, c) in state_msgpack.iter().zip(&configs) {
        black_box(plan(s, s, c));
    }
    let unchanged = t.elapsed();

    // Parts of a create's plan: the codec, the framework's planning, reading what is known.
    let t = Instant::now();
    for (c, p) in configs.iter().zip(&states) {
        for _ in 0..3 {
            black_box(decode_msgpack(c, &ty).unwrap());
        }
        black_box(msgpack(p, &ty));
    }
    let codec = t.elapsed();
    let decoded: Vec<Value> = configs.iter().map(|c| decode_msgpack(c, &ty).unwrap()).collect();
    let t = Instant::now();
    for c in &decoded {
        black_box(eksgpu_framework::plan::plan(&schema.block, &Value::Null, c, c.clone()));
    }
    let framework = t.elapsed();
    let t = Instant::now();
    for c in &decoded {
        black_box(eksgpu_framework::partial::Partial::of_inputs(&schema.block, c));
    }
    let partial = t.elapsed();

    // scripts/test runs it in a debug build (a smoke run: its times are not judged).
    let build = if cfg!(debug_assertions) { "debug" } else { "release" };
    println!("eksgpu_node_strategy, {n} resources ({build} build, one thread)");
    report("ValidateResourceConfig", n, validate);
    report("PlanResourceChange (create)", n, create);
    report("  of which msgpack: 3 decodes, 1 encode", n, codec);
    report("  of which framework plan::plan", n, framework);
    report("  of which Partial::of_inputs (once)", n, partial);
    report("UpgradeResourceState", n, upgrade);
    report("PlanResourceChange (in state, no change)", n, unchanged);
}
