use eksgpu_tfplugin::Type;
use eksgpu_tfplugin::schema::{Attribute, NestedBlock};

use super::*;

fn schema() -> Block {
    Block::new("r")
        .attribute(Attribute::computed("id", Type::String, "i").use_state_for_unknown())
        .attribute(Attribute::computed("digest", Type::String, "d"))
        .attribute(Attribute::required("cluster_name", Type::String, "c").forces_replacement())
        .attribute(Attribute::optional("force", Type::Bool, "f").default(false))
        .block(NestedBlock::list(
            "pool",
            Block::new("p")
                .attribute(Attribute::required("name", Type::String, "n"))
                .attribute(Attribute::optional("taint", Type::Bool, "t").default(true))
                .attribute(Attribute::computed("selector", Type::map(Type::String), "s")),
        ))
        .block(
            NestedBlock::single(
                "claim",
                Block::new("c").attribute(Attribute::optional("n", Type::Number, "n")),
            )
            .forces_replacement(),
        )
}

fn pool(name: &str, taint: Value, selector: Value) -> Value {
    Value::object([("name", name.into()), ("taint", taint), ("selector", selector)])
}

fn state(cluster: &str, pools: Vec<Value>) -> Value {
    Value::object([
        ("id", "x".into()),
        ("digest", "d".into()),
        ("cluster_name", cluster.into()),
        ("force", false.into()),
        ("pool", Value::List(pools)),
        ("claim", Value::Null),
    ])
}

#[test]
fn defaults_are_planned_where_the_configuration_is_silent_also_in_blocks() {
    let config = Value::object([
        ("cluster_name", "c".into()),
        ("force", Value::Null),
        (
            "pool",
            Value::List(vec![
                pool("a", Value::Null, Value::Null),
                pool("b", false.into(), Value::Null),
            ]),
        ),
    ]);
    // Terraform proposes the prior (drifted) value of an optional+computed attribute.
    let proposed = state(
        "c",
        vec![
            pool("a", false.into(), Value::Null),
            pool("b", false.into(), Value::Null),
        ],
    );
    let p = plan(&schema(), &Value::Null, &config, proposed);
    let pools = p.planned.get("pool").elements();
    assert_eq!(pools[0].get("taint"), &Value::Bool(true));
    assert_eq!(pools[1].get("taint"), &Value::Bool(false), "a configured value wins");
    assert_eq!(p.planned.get("force"), &Value::Bool(false));
}

#[test]
fn an_unknown_block_list_stays_unknown() {
    let config = Value::object([("cluster_name", "c".into()), ("pool", Value::Unknown)]);
    let mut proposed = state("c", vec![]);
    path::set(&mut proposed, "pool", Value::Unknown);
    let p = plan(&schema(), &Value::Null, &config, proposed);
    assert_eq!(p.planned.get("pool"), &Value::Unknown);
}

#[test]
fn computed_values_are_unknown_only_when_something_changed() {
    let prior = state("c", vec![pool("a", true.into(), Value::Map(Default::default()))]);
    let config = Value::object([
        ("cluster_name", "c".into()),
        ("pool", Value::List(vec![pool("a", Value::Null, Value::Null)])),
    ]);
    let same = plan(&schema(), &prior, &config, prior.clone());
    assert_eq!(same.planned, prior, "no change, no unknowns");
    assert!(same.requires_replace.is_empty());

    let mut proposed = prior.clone();
    path::set(
        &mut proposed,
        "pool",
        Value::List(vec![pool("a", false.into(), Value::Map(Default::default()))]),
    );
    let config = Value::object([
        ("cluster_name", "c".into()),
        ("pool", Value::List(vec![pool("a", false.into(), Value::Null)])),
    ]);
    let changed = plan(&schema(), &prior, &config, proposed);
    assert_eq!(changed.planned.get("digest"), &Value::Unknown);
    assert_eq!(
        changed.planned.get("id"),
        &Value::from("x"),
        "use_state_for_unknown keeps it"
    );
    assert_eq!(
        changed.planned.get("pool").elements()[0].get("selector"),
        &Value::Unknown
    );
}

#[test]
fn forces_replacement_is_honoured_for_attributes_and_blocks() {
    let prior = state("c", vec![]);
    let mut proposed = state("d", vec![]);
    path::set(&mut proposed, "claim", Value::object([("n", Value::from(1))]));
    let empty = Value::object([]);
    let p = plan(&schema(), &prior, &empty, proposed);
    let paths: Vec<String> = p.requires_replace.iter().map(ToString::to_string).collect();
    assert_eq!(paths, vec!["cluster_name", "claim"]);
    // Creating replaces nothing.
    let p = plan(&schema(), &Value::Null, &empty, state("d", vec![]));
    assert!(p.requires_replace.is_empty());
}

mod same_inputs_property {
    use proptest::prelude::*;

    use super::*;

    fn pick(options: Vec<Value>) -> impl Strategy<Value = Value> {
        proptest::sample::select(options)
    }

    fn pool_value() -> impl Strategy<Value = Value> {
        (
            pick(vec!["a".into(), "b".into()]),
            pick(vec![Value::Null, true.into(), false.into()]),
            pick(vec![
                Value::Null,
                Value::Unknown,
                Value::Map([("k".to_owned(), Value::from("v"))].into()),
            ]),
        )
            .prop_map(|(n, t, s)| pool(n.as_str().unwrap_or("a"), t, s))
    }

    /// Values of `schema()`'s shape over small domains, so equal inputs are common.
    fn value() -> impl Strategy<Value = Value> {
        let strings = || pick(vec![Value::Null, Value::Unknown, "x".into()]);
        (
            strings(),
            strings(),
            pick(vec!["c".into(), "d".into()]),
            pick(vec![Value::Null, true.into()]),
            prop_oneof![
                proptest::collection::vec(pool_value(), 0..3).prop_map(Value::List),
                proptest::collection::vec(pool_value(), 0..2).prop_map(Value::Set),
                Just(Value::Unknown),
                Just(Value::Null),
            ],
            pick(vec![
                Value::Null,
                Value::object([("n", Value::Null)]),
                Value::object([("n", Value::from(1))]),
            ]),
        )
            .prop_map(|(id, digest, cluster, force, pools, claim)| {
                Value::object([
                    ("id", id),
                    ("digest", digest),
                    ("cluster_name", cluster),
                    ("force", force),
                    ("pool", pools),
                    ("claim", claim),
                ])
            })
    }

    proptest! {
        #[test]
        fn same_inputs_is_equality_without_computed_values(a in value(), b in value()) {
            let block = schema();
            prop_assert_eq!(
                same_inputs(&block, &a, &b),
                strip_computed(&block, &a) == strip_computed(&block, &b)
            );
            prop_assert!(same_inputs(&block, &a, &a.clone()));
        }
    }
}
