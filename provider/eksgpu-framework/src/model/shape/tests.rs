use eksgpu_tfplugin::schema::{Attribute, NestedBlock};
use eksgpu_tfplugin::{Number, Type, Value};

use super::*;
use crate::model::{ModelErrorKind, Obj, ObjBuilder};

fn schema() -> Block {
    Block::new("r")
        .attribute(Attribute::computed("id", Type::String, "i"))
        .attribute(Attribute::required("name", Type::String, "n"))
        .attribute(Attribute::optional("adopt", Type::Bool, "a"))
        .attribute(Attribute::computed(
            "claims",
            Type::list(Type::object([("name", Type::String), ("claim", Type::String)])),
            "c",
        ))
        .block(NestedBlock::list(
            "pool",
            Block::new("p")
                .attribute(Attribute::required("limit", Type::Number, "l"))
                .attribute(Attribute::computed("yaml", Type::String, "y")),
        ))
        .block(NestedBlock::optional_one(
            "target",
            Block::new("t").attribute(Attribute::optional("kind", Type::String, "k")),
        ))
}

#[derive(Debug, Clone, PartialEq)]
struct Model {
    name: String,
    limits: Vec<i64>,
    kind: Option<String>,
}

fn read(v: &Value) -> Result<Model, ModelError> {
    let o = Obj::new(v)?;
    Ok(Model {
        name: o.get("name")?,
        limits: o.blocks("pool", |p| p.get("limit"))?,
        kind: o.block("target")?.map(|t| t.get("kind")).transpose()?.flatten(),
    })
}

/// The inputs of a model, as a resource writes them before the plan adds the computed values.
fn write(m: &Model) -> ObjBuilder {
    ObjBuilder::new()
        .set("name", m.name.clone())
        .null("adopt")
        .blocks(
            "pool",
            m.limits.iter().map(|l| ObjBuilder::new().set("limit", *l).build()),
        )
        .one(
            "target",
            m.kind.clone().map(|k| ObjBuilder::new().set("kind", k).build()),
        )
}

fn model() -> Model {
    Model {
        name: "a".into(),
        limits: vec![1, 2],
        kind: Some("Deployment".into()),
    }
}

fn paths(e: &ShapeError) -> Vec<(String, Problem)> {
    e.0.iter().map(|m| (m.at.to_string(), m.problem)).collect()
}

#[test]
fn inputs_may_leave_computed_attributes_to_the_plan() {
    let v = write(&model()).build();
    assert_eq!(check(&schema(), &v, Expect::Inputs), Ok(()));
    let e = check(&schema(), &v, Expect::Everything).unwrap_err();
    assert_eq!(
        paths(&e),
        [
            ("id".to_owned(), Problem::Missing),
            ("claims".to_owned(), Problem::Missing),
            ("pool[0].yaml".to_owned(), Problem::Missing),
            ("pool[1].yaml".to_owned(), Problem::Missing),
        ]
    );
    assert_eq!(round_trip(&schema(), Expect::Inputs, &v, read), Ok(model()));
}

#[test]
fn a_misspelt_or_forgotten_key_is_reported_at_its_path() {
    let v = write(&model())
        .raw("adopt_", Value::Null)
        .set("id", "x")
        .raw(
            "claims",
            Value::List(vec![Value::object([("name", "gpu".into()), ("claims", "c".into())])]),
        )
        .blocks(
            "pool",
            [Value::object([("limit", Value::from(1)), ("yml", Value::Null)])],
        )
        .build();
    let e = check(&schema(), &v, Expect::Inputs).unwrap_err();
    assert_eq!(
        paths(&e),
        [
            ("adopt_".to_owned(), Problem::NotInSchema),
            ("claims[0].claims".to_owned(), Problem::NotInSchema),
            ("claims[0].claim".to_owned(), Problem::Missing),
            ("pool[0].yml".to_owned(), Problem::NotInSchema),
        ]
    );
    assert!(e.to_string().contains("adopt_: not in the schema"), "{e}");
    // Leaving out an input is as wrong as adding a key.
    let Value::Object(mut m) = write(&model()).build() else {
        unreachable!()
    };
    m.remove("adopt");
    let e = check(&schema(), &Value::Object(m), Expect::Inputs).unwrap_err();
    assert_eq!(paths(&e), [("adopt".to_owned(), Problem::Missing)]);
}

#[test]
fn blocks_must_be_objects_and_unknown_ones_are_not_looked_into() {
    let v = write(&model()).raw("pool", Value::from("x")).build();
    let e = check(&schema(), &v, Expect::Inputs).unwrap_err();
    assert_eq!(paths(&e), [("pool".to_owned(), Problem::NotAnObject)]);
    let v = write(&model())
        .raw("pool", Value::Unknown)
        .raw("target", Value::List(vec![Value::Unknown]))
        .build();
    assert_eq!(check(&schema(), &v, Expect::Inputs), Ok(()));
    let e = check(&schema(), &Value::Null, Expect::Inputs).unwrap_err();
    assert_eq!(
        e.0[0].to_string(),
        "(the value itself): not the object (or list of objects) the schema says"
    );
}

#[test]
fn a_reader_asking_for_a_key_the_schema_lacks_fails_the_round_trip() {
    let v = write(&model()).build();
    let misspelt = |v: &Value| Obj::new(v)?.blocks("pool", |p| p.get::<i64>("limits"));
    let e = round_trip(&schema(), Expect::Inputs, &v, misspelt).unwrap_err();
    let RoundTripError::Read(e) = &e else { panic!("{e}") };
    assert_eq!(e.kind, ModelErrorKind::MissingAttribute { name: "limits".into() });
    assert_eq!(
        round_trip(&schema(), Expect::Inputs, &v, misspelt)
            .unwrap_err()
            .to_string(),
        "reading the written value back failed at pool[0].limits: attribute `limits` is not in the schema"
    );
    // A reader of inputs may not rely on a computed value: the plan's rules read inputs only.
    let with_id = write(&model()).set("id", "x").build();
    let reads_id = |v: &Value| Obj::new(v)?.get::<String>("id");
    assert!(matches!(
        round_trip(&schema(), Expect::Inputs, &with_id, reads_id),
        Err(RoundTripError::Read(ModelError {
            kind: ModelErrorKind::MissingAttribute { .. },
            ..
        }))
    ));
}

#[test]
fn a_value_of_the_wrong_type_fails_the_round_trip_at_encoding() {
    let v = write(&model()).set("name", Value::Number(Number::Int(1))).build();
    let e = round_trip(&schema(), Expect::Inputs, &v, read).unwrap_err();
    assert!(matches!(e, RoundTripError::Encode(_)), "{e}");
    assert!(e.to_string().contains("name"), "{e}");
}
