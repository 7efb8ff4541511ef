use proptest::prelude::*;

use super::*;

fn object_type() -> Type {
    Type::object([
        ("name", Type::String),
        ("count", Type::Number),
        ("enabled", Type::Bool),
        ("zones", Type::list(Type::String)),
        ("labels", Type::map(Type::String)),
        (
            "pool",
            Type::list(Type::object([("name", Type::String), ("ids", Type::set(Type::Number))])),
        ),
    ])
}

#[test]
fn null_and_unknown_round_trip() {
    let ty = object_type();
    let v = Value::object([
        ("name", Value::Unknown),
        ("count", Value::Null),
        ("enabled", true.into()),
        ("zones", Value::List(vec!["a".into(), Value::Unknown])),
        ("labels", Value::Null),
        ("pool", Value::List(vec![])),
    ]);
    let bytes = encode_msgpack(&v, &ty).unwrap();
    assert_eq!(decode_msgpack(&bytes, &ty).unwrap(), v);
}

#[test]
fn unknown_is_written_as_fixext1_zero() {
    assert_eq!(
        encode_msgpack(&Value::Unknown, &Type::String).unwrap(),
        vec![0xd4, 0, 0]
    );
}

#[test]
fn refined_unknowns_from_newer_terraform_decode_as_unknown() {
    // ext 12 with a map payload {1: false, 2: "ab"}: "not null, prefix ab".
    let payload = [0x82, 0x01, 0xc2, 0x02, 0xa2, b'a', b'b'];
    let mut bytes = vec![0xc7, payload.len() as u8, 12];
    bytes.extend_from_slice(&payload);
    assert_eq!(decode_msgpack(&bytes, &Type::String).unwrap(), Value::Unknown);
    // Any other extension code is an unknown too.
    assert_eq!(decode_msgpack(&[0xd5, 7, 1, 2], &Type::Number).unwrap(), Value::Unknown);
}

#[test]
fn numbers_arrive_as_int_float_or_string() {
    let cases: &[(&[u8], Number)] = &[
        (&[0x05], Number::Int(5)),
        (&[0xff], Number::Int(-1)),
        (&[0xcc, 200], Number::Int(200)),
        (&[0xd0, 0x80], Number::Int(-128)),
        (&[0xcb, 0x3f, 0xe0, 0, 0, 0, 0, 0, 0], Number::Float(0.5)),
        (&[0xcb, 0x40, 0x08, 0, 0, 0, 0, 0, 0], Number::Int(3)),
        // Text is what go-cty sends when float64 is inexact: kept verbatim.
        (&[0xa3, b'1', b'.', b'5'], Number::Decimal("1.5".into())),
        (&[0xa5, b'1', b'e', b'+', b'3', b'0'], Number::Decimal("1e+30".into())),
        (&[0xa2, b'4', b'2'], Number::Int(42)),
        (
            &[0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
            Number::Decimal("18446744073709551615".into()),
        ),
    ];
    for (bytes, want) in cases {
        assert_eq!(
            decode_msgpack(bytes, &Type::Number).unwrap(),
            Value::Number(want.clone()),
            "{bytes:x?}"
        );
    }
    let big = Value::Number(Number::Decimal("123456789012345678901234567890".into()));
    let bytes = encode_msgpack(&big, &Type::Number).unwrap();
    assert_eq!(decode_msgpack(&bytes, &Type::Number).unwrap(), big);
}

#[test]
fn a_number_string_that_is_not_a_number_is_an_error() {
    let err = decode_msgpack(&[0xa3, b'a', b'b', b'c'], &Type::Number).unwrap_err();
    assert!(err.reason.contains("not a decimal number"), "{err}");
}

#[test]
fn type_errors_name_the_attribute_path() {
    let ty = object_type();
    // {"pool": [{"name": 7}]}
    let bytes = [
        0x81, 0xa4, b'p', b'o', b'o', b'l', 0x91, 0x81, 0xa4, b'n', b'a', b'm', b'e', 0x07,
    ];
    let err = decode_msgpack(&bytes, &ty).unwrap_err();
    assert_eq!(err.path.to_string(), "pool[0].name");
    assert!(err.reason.contains("expected string"), "{err}");
}

#[test]
fn unsupported_attributes_and_trailing_bytes_are_rejected() {
    let ty = Type::object([("a", Type::String)]);
    assert!(
        decode_msgpack(&[0x81, 0xa1, b'b', 0xc0], &ty)
            .unwrap_err()
            .reason
            .contains("unsupported attribute")
    );
    assert!(
        decode_msgpack(&[0xc0, 0xc0], &ty)
            .unwrap_err()
            .reason
            .contains("trailing")
    );
}

#[test]
fn missing_attributes_decode_as_null() {
    let ty = Type::object([("a", Type::String), ("b", Type::String)]);
    let v = decode_msgpack(&[0x81, 0xa1, b'a', 0xa1, b'x'], &ty).unwrap();
    assert_eq!(v, Value::object([("a", "x".into()), ("b", Value::Null)]));
}

#[test]
fn encoding_fills_absent_attributes_and_rejects_extra_ones() {
    let ty = Type::object([("a", Type::String), ("b", Type::Bool)]);
    let bytes = encode_msgpack(&Value::object([("a", "x".into())]), &ty).unwrap();
    assert_eq!(bytes, vec![0x82, 0xa1, b'a', 0xa1, b'x', 0xa1, b'b', 0xc0]);
    let err = encode_msgpack(&Value::object([("c", "x".into())]), &ty).unwrap_err();
    assert_eq!(err.path.to_string(), "c");
    let err = encode_msgpack(&Value::object([("b", "x".into())]), &ty).unwrap_err();
    assert_eq!(err.to_string(), "cannot encode string as bool at b");
}

#[test]
fn huge_declared_lengths_do_not_allocate() {
    // array32 claiming 4 billion elements, with nothing behind it.
    let err = decode_msgpack(&[0xdd, 0xff, 0xff, 0xff, 0xff], &Type::list(Type::String)).unwrap_err();
    assert!(err.reason.contains("unexpected end"), "{err}");
}

#[test]
fn deep_nesting_is_bounded() {
    let ty = (0..200).fold(Type::String, |t, _| Type::list(t));
    // 200 one-element arrays around a nil.
    let mut bytes = vec![0x91; 200];
    bytes.push(0xc0);
    assert!(
        decode_msgpack(&bytes, &ty)
            .unwrap_err()
            .reason
            .contains("nested too deeply")
    );
}

fn arb_type() -> impl Strategy<Value = Type> {
    let leaf = prop_oneof![Just(Type::String), Just(Type::Number), Just(Type::Bool)];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            inner.clone().prop_map(Type::list),
            inner.clone().prop_map(Type::set),
            inner.clone().prop_map(Type::map),
            proptest::collection::btree_map("[a-z_]{1,6}", inner.clone(), 0..4).prop_map(Type::Object),
            proptest::collection::vec(inner, 0..3).prop_map(Type::Tuple),
        ]
    })
}

fn arb_value(ty: Type) -> BoxedStrategy<Value> {
    let special = prop_oneof![Just(Value::Null), Just(Value::Unknown)];
    let known: BoxedStrategy<Value> = match ty {
        Type::String => any::<String>().prop_map(Value::String).boxed(),
        Type::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
        Type::Number => prop_oneof![
            any::<i64>().prop_map(|i| Value::Number(Number::Int(i))),
            (-1e12f64..1e12).prop_map(|f| Value::Number(Number::from_f64(f))),
        ]
        .boxed(),
        Type::List(e) => proptest::collection::vec(arb_value(*e), 0..3)
            .prop_map(Value::List)
            .boxed(),
        Type::Set(e) => proptest::collection::vec(arb_value(*e), 0..3)
            .prop_map(Value::Set)
            .boxed(),
        Type::Map(e) => proptest::collection::btree_map(".{0,4}", arb_value(*e), 0..3)
            .prop_map(Value::Map)
            .boxed(),
        Type::Object(attrs) => attrs
            .into_iter()
            .map(|(k, t)| arb_value(t).prop_map(move |v| (k.clone(), v)))
            .collect::<Vec<_>>()
            .prop_map(|kv| Value::Object(kv.into_iter().collect()))
            .boxed(),
        Type::Tuple(elems) => elems
            .into_iter()
            .map(arb_value)
            .collect::<Vec<_>>()
            .prop_map(Value::Tuple)
            .boxed(),
    };
    prop_oneof![1 => special, 4 => known].boxed()
}

proptest! {
    #[test]
    fn arbitrary_bytes_give_errors_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..256), ty in arb_type()) {
        let _ = decode_msgpack(&bytes, &ty);
    }

    #[test]
    fn arbitrary_values_round_trip((ty, v) in arb_type().prop_flat_map(|t| (Just(t.clone()), arb_value(t)))) {
        let bytes = encode_msgpack(&v, &ty).unwrap();
        prop_assert_eq!(decode_msgpack(&bytes, &ty).unwrap(), v);
    }
}
