use std::collections::BTreeMap;

use eksgpu_tfplugin::diag::Step;
use eksgpu_tfplugin::{Number, Value};
use proptest::prelude::*;

use super::*;

fn roundtrip<T: FromValue + IntoValue + Clone + PartialEq + std::fmt::Debug>(x: &T) {
    assert_eq!(&T::from_value(&x.clone().into_value()).unwrap(), x);
}

proptest! {
    #[test]
    fn primitives_round_trip(i in any::<i64>(), j in any::<i32>(), s in ".*", b in any::<bool>(), f in -1e15f64..1e15) {
        roundtrip(&i);
        roundtrip(&j);
        roundtrip(&s);
        roundtrip(&b);
        roundtrip(&f);
    }

    #[test]
    fn collections_round_trip(
        v in proptest::collection::vec(".*", 0..5),
        m in proptest::collection::btree_map(".*", any::<i64>(), 0..5),
        o in proptest::option::of(any::<u32>()),
    ) {
        roundtrip(&v);
        roundtrip(&m);
        roundtrip(&o);
    }

    #[test]
    fn any_number_reads_exactly_or_errors(f in any::<f64>()) {
        let v = Value::Number(Number::from_f64(f));
        match i64::from_value(&v) {
            Ok(i) => prop_assert_eq!(i as f64, f),
            Err(_) => prop_assert!(f.fract() != 0.0 || !f.is_finite() || f.abs() >= 9.2e18),
        }
    }
}

#[test]
fn fractions_and_overflow_are_errors_not_truncations() {
    let e = i64::from_value(&Value::Number(Number::Float(1.5))).unwrap_err();
    assert!(matches!(e.kind, ModelErrorKind::NotWhole { .. }), "{e:?}");
    let e = i32::from_value(&Value::Number(Number::Int(30_000_000_000))).unwrap_err();
    assert!(matches!(e.kind, ModelErrorKind::OutOfRange { .. }), "{e:?}");
    let e = i64::from_value(&Value::Number(Number::Decimal("1e30".into()))).unwrap_err();
    assert!(matches!(e.kind, ModelErrorKind::OutOfRange { .. }), "{e:?}");
    let e = f64::from_value(&Value::Number(Number::Decimal("1e400".into()))).unwrap_err();
    assert!(matches!(e.kind, ModelErrorKind::NotFinite { .. }), "{e:?}");
    assert_eq!(f64::INFINITY.into_value(), Value::Null);
}

#[test]
fn null_inside_collections_is_an_error_at_its_place() {
    let v = Value::List(vec![Value::from("a"), Value::Null]);
    let e = Vec::<String>::from_value(&v).unwrap_err();
    assert_eq!(e.at, vec![Step::Index(1)]);
    let m = Value::Map(BTreeMap::from([("k".to_owned(), Value::Null)]));
    let e = BTreeMap::<String, String>::from_value(&m).unwrap_err();
    assert_eq!(e.at, vec![Step::Key("k".into())]);
}

#[test]
fn obj_errors_name_the_attribute() {
    let v = Value::object([(
        "pool",
        Value::List(vec![Value::object([("gpu_limit", Value::Number(Number::Float(2.5)))])]),
    )]);
    let o = Obj::new(&v).unwrap();
    let e = o.blocks("pool", |p| p.get::<Option<i64>>("gpu_limit")).unwrap_err();
    let d = e.diagnostic(&eksgpu_tfplugin::AttributePath::root());
    assert_eq!(d.path.unwrap().to_string(), "pool[0].gpu_limit");
    assert!(d.detail.contains("2.5 is not a whole number"), "{}", d.detail);
    // Unknown and missing are told apart.
    let u = Value::object([("x", Value::Unknown)]);
    assert_eq!(
        Obj::new(&u).unwrap().get::<String>("x").unwrap_err().kind,
        ModelErrorKind::Unknown
    );
    assert_eq!(
        Obj::new(&u).unwrap().get::<String>("x").unwrap_err().kind,
        ModelErrorKind::Unknown
    );
    let n = Value::object([("x", Value::Null)]);
    assert_eq!(
        Obj::new(&n).unwrap().get::<String>("x").unwrap_err().kind,
        ModelErrorKind::Missing
    );
    assert_eq!(Obj::new(&n).unwrap().get::<Option<String>>("x"), Ok(None));
}

/// A name the object does not have is a provider bug, whatever the accessor,
/// reported at the attribute's path: never read as null.
#[test]
fn a_key_missing_from_the_object_is_an_error_not_a_null() {
    let v = Value::object([("pool", Value::List(vec![Value::object([("gpu_limit", Value::Null)])]))]);
    let o = Obj::new(&v).unwrap();
    let missing = |e: ModelError| match e.kind {
        ModelErrorKind::MissingAttribute { name } => (name, e.at),
        other => panic!("{other:?}"),
    };
    let at = |name: &str| vec![Step::Attribute(name.into())];
    assert_eq!(
        missing(o.get::<Option<String>>("nmae").unwrap_err()),
        ("nmae".into(), at("nmae"))
    );
    assert_eq!(
        missing(o.computed::<String>("id").unwrap_err()),
        ("id".into(), at("id"))
    );
    assert_eq!(missing(o.field("x").unwrap_err()), ("x".into(), at("x")));
    assert_eq!(missing(o.block("target").unwrap_err()), ("target".into(), at("target")));
    assert_eq!(
        missing(o.blocks("pools", Ok).unwrap_err()),
        ("pools".into(), at("pools"))
    );
    assert_eq!(missing(o.parse("kind", |s| Ok(s.to_owned())).unwrap_err()).0, "kind");
    assert_eq!(
        missing(o.parse_opt("kind", |s| Ok(s.to_owned())).unwrap_err()).0,
        "kind"
    );
    let e = o.blocks("pool", |p| p.get::<Option<i64>>("gpu_limits")).unwrap_err();
    let d = e.diagnostic(&eksgpu_tfplugin::AttributePath::root());
    assert_eq!(d.path.unwrap().to_string(), "pool[0].gpu_limits");
    assert!(d.summary.contains("Provider bug"), "{}", d.summary);
    assert!(
        d.detail.contains("attribute `gpu_limits` is not in the schema") && d.detail.contains("bug in the provider"),
        "{}",
        d.detail
    );
    // The key present, its value null: an absent optional value, as before.
    assert_eq!(o.blocks("pool", |p| p.get::<Option<i64>>("gpu_limit")), Ok(vec![None]));
}

#[test]
fn builders_write_nulls_and_block_lists_by_name() {
    let v = ObjBuilder::new()
        .null("adopt")
        .blocks("pool", [Value::object([("a", Value::from(1))])])
        .build();
    assert_eq!(
        v,
        Value::object([
            ("adopt", Value::Null),
            ("pool", Value::List(vec![Value::object([("a", Value::from(1))])])),
        ])
    );
}
