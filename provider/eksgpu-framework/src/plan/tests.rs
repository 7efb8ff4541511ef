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

/// A map nested attribute `pools` whose objects hold a default, a computed value kept with
/// `use_state_for_unknown`, one that is not, a replacing input and a single nested object.
mod nested_attributes {
    use eksgpu_tfplugin::schema::{Mode, NestedType, ObjectNesting};

    use super::*;

    fn schema() -> Block {
        let class = Block::new("n").attribute(Attribute::optional("role", Type::String, "r").forces_replacement());
        let pool = Block::new("p")
            .attribute(Attribute::optional("gpu_limit", Type::Number, "g"))
            .attribute(Attribute::optional("efa", Type::Bool, "e").default(false))
            .attribute(Attribute::computed("selector", Type::String, "s"))
            .attribute(Attribute::computed("token", Type::String, "t").use_state_for_unknown())
            .attribute(Attribute::nested(
                "node_class",
                Mode::Optional,
                NestedType::new(ObjectNesting::Single, class),
                "n",
            ));
        Block::new("r").attribute(Attribute::nested(
            "pools",
            Mode::Required,
            NestedType::new(ObjectNesting::Map, pool),
            "p",
        ))
    }

    fn pool(limit: i64, efa: Value, selector: Value, token: Value, role: &str) -> Value {
        Value::object([
            ("gpu_limit", limit.into()),
            ("efa", efa),
            ("selector", selector),
            ("token", token),
            ("node_class", Value::object([("role", role.into())])),
        ])
    }

    fn pools(entries: Vec<(&str, Value)>) -> Value {
        Value::object([(
            "pools",
            Value::Map(entries.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()),
        )])
    }

    fn entry<'v>(v: &'v Value, key: &str) -> &'v Value {
        v.get("pools").entries().and_then(|m| m.get(key)).unwrap_or(&NULL)
    }

    #[test]
    fn defaults_and_computed_values_are_planned_per_key() {
        let config = pools(vec![("gpu", pool(8, Value::Null, Value::Null, Value::Null, "r"))]);
        let p = plan(&schema(), &Value::Null, &config, config.clone());
        let gpu = entry(&p.planned, "gpu");
        assert_eq!(gpu.get("efa"), &Value::Bool(false), "the default inside the entry");
        assert_eq!(gpu.get("selector"), &Value::Unknown);
        assert_eq!(gpu.get("token"), &Value::Unknown, "nothing to keep on create");
    }

    #[test]
    fn an_unchanged_map_keeps_every_computed_value_and_a_change_is_paired_by_key() {
        let prior = pools(vec![
            ("a", pool(8, false.into(), "sa".into(), "ta".into(), "r")),
            ("c", pool(8, false.into(), "sc".into(), "tc".into(), "r")),
        ]);
        // Proposed with computed values null, as a Terraform that does not merge them sends it.
        let bare = |l| pool(l, false.into(), Value::Null, Value::Null, "r");
        let config = pools(vec![("a", bare(8)), ("c", bare(8))]);
        let same = plan(&schema(), &prior, &config, config.clone());
        assert_eq!(same.planned, prior, "no change, no unknowns, nothing lost");

        // A pool inserted before `c`: `c` keeps its own token, not `a`'s or the new pool's.
        let config = pools(vec![("a", bare(8)), ("b", bare(4)), ("c", bare(8))]);
        let changed = plan(&schema(), &prior, &config, config.clone());
        assert_eq!(entry(&changed.planned, "c").get("token"), &Value::from("tc"));
        assert_eq!(entry(&changed.planned, "b").get("token"), &Value::Unknown);
        assert_eq!(entry(&changed.planned, "c").get("selector"), &Value::Unknown);
        assert!(changed.requires_replace.is_empty(), "adding a pool replaces nothing");
    }

    #[test]
    fn a_replacing_input_is_named_at_its_key() {
        let prior = pools(vec![("a", pool(8, false.into(), "s".into(), "t".into(), "r"))]);
        let config = pools(vec![("a", pool(8, Value::Null, Value::Null, Value::Null, "other"))]);
        let p = plan(&schema(), &prior, &config, config.clone());
        let paths: Vec<String> = p.requires_replace.iter().map(ToString::to_string).collect();
        assert_eq!(paths, vec![r#"pools["a"].node_class.role"#]);
    }

    #[test]
    fn unknown_maps_and_entries_stay_unknown() {
        let config = Value::object([("pools", Value::Unknown)]);
        let p = plan(&schema(), &Value::Null, &config, config.clone());
        assert_eq!(p.planned.get("pools"), &Value::Unknown);
        let config = pools(vec![
            ("a", Value::Unknown),
            ("b", pool(1, Value::Unknown, Value::Null, Value::Null, "r")),
        ]);
        let p = plan(&schema(), &Value::Null, &config, config.clone());
        assert_eq!(entry(&p.planned, "a"), &Value::Unknown);
        assert_eq!(
            entry(&p.planned, "b").get("efa"),
            &Value::Unknown,
            "an unknown input is not defaulted"
        );
    }

    mod property {
        use proptest::prelude::*;

        use super::*;

        fn pick(options: Vec<Value>) -> impl Strategy<Value = Value> {
            proptest::sample::select(options)
        }

        fn entry_value() -> impl Strategy<Value = Value> {
            (
                pick(vec![Value::from(1), Value::from(2), Value::Unknown]),
                pick(vec![Value::Null, "x".into(), Value::Unknown]),
                pick(vec![Value::Null, "t".into()]),
                pick(vec![
                    Value::Null,
                    Value::object([("role", "r".into())]),
                    Value::object([("role", Value::Unknown)]),
                ]),
            )
                .prop_map(|(limit, selector, token, class)| {
                    Value::object([
                        ("gpu_limit", limit),
                        ("efa", Value::Bool(false)),
                        ("selector", selector),
                        ("token", token),
                        ("node_class", class),
                    ])
                })
        }

        fn value() -> impl Strategy<Value = Value> {
            prop_oneof![
                proptest::collection::btree_map(
                    proptest::sample::select(vec!["a".to_owned(), "b".to_owned()]),
                    prop_oneof![entry_value(), Just(Value::Unknown)],
                    0..3
                )
                .prop_map(|m| Value::object([("pools", Value::Map(m))])),
                Just(Value::object([("pools", Value::Unknown)])),
                Just(Value::object([("pools", Value::Null)])),
            ]
        }

        proptest! {
            #[test]
            fn same_inputs_is_equality_without_computed_values(a in value(), b in value()) {
                let block = schema();
                prop_assert_eq!(
                    same_inputs(&block, &a, &b),
                    strip_computed(&block, &a) == strip_computed(&block, &b)
                );
            }
        }
    }
}
