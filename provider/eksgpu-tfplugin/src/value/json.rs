//! JSON `DynamicValue` / `RawState` decoding. Terraform uses JSON for stored
//! state handed to `UpgradeResourceState`; it cannot express unknowns.

use std::collections::BTreeMap;

use super::{DecodeError, Number, Value};
use crate::diag::{AttributePath, Step};
use crate::types::Type;

/// Decodes JSON as a value of type `ty`. Object attributes the type no longer
/// has are dropped (state written by an older schema); missing ones are null.
pub fn decode_json(bytes: &[u8], ty: &Type) -> Result<Value, DecodeError> {
    let json: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| DecodeError {
        path: AttributePath::root(),
        reason: format!("invalid JSON: {e}"),
    })?;
    decode_json_value(&json, ty)
}

/// [`decode_json`] of JSON already parsed (state reshaped before decoding
/// need not be written out and parsed again).
pub fn decode_json_value(json: &serde_json::Value, ty: &Type) -> Result<Value, DecodeError> {
    let mut path = Vec::new();
    convert(json, ty, &mut path)
}

fn convert<'t>(json: &serde_json::Value, ty: &'t Type, path: &mut Vec<Step>) -> Result<Value, DecodeError> {
    use serde_json::Value as J;
    let err = |path: &Vec<Step>, found: &str| DecodeError {
        path: AttributePath::from_steps(path.clone()),
        reason: format!("expected {}, got JSON {found}", ty.friendly_name()),
    };
    // Element types are borrowed: a list of blocks would otherwise copy the
    // block's whole object type for every element.
    let seq = |items: &Vec<J>, elem: &dyn Fn(usize) -> &'t Type, path: &mut Vec<Step>| {
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                path.push(Step::Index(i64::try_from(i).unwrap_or(i64::MAX)));
                let v = convert(item, elem(i), path);
                path.pop();
                v
            })
            .collect::<Result<Vec<_>, _>>()
    };
    Ok(match (json, ty) {
        (J::Null, _) => Value::Null,
        (J::String(s), Type::String) => Value::String(s.clone()),
        (J::Bool(b), Type::Bool) => Value::Bool(*b),
        (J::Number(n), Type::Number) => Value::Number(match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => Number::Int(i),
            (None, Some(u), _) => Number::from_u64(u),
            (_, _, Some(f)) => Number::from_f64(f),
            _ => return Err(err(path, "number out of range")),
        }),
        (J::String(s), Type::Number) => {
            Value::Number(Number::parse(s).ok_or_else(|| err(path, "string that is not a number"))?)
        }
        (J::Array(items), Type::List(e)) => Value::List(seq(items, &|_| &**e, path)?),
        (J::Array(items), Type::Set(e)) => Value::Set(seq(items, &|_| &**e, path)?),
        (J::Array(items), Type::Tuple(elems)) if items.len() == elems.len() => {
            Value::Tuple(seq(items, &|i| &elems[i], path)?)
        }
        (J::Object(m), Type::Map(e)) => {
            let mut out = BTreeMap::new();
            for (k, v) in m {
                path.push(Step::Key(k.clone()));
                out.insert(k.clone(), convert(v, e, path)?);
                path.pop();
            }
            Value::Map(out)
        }
        (J::Object(m), Type::Object(attrs)) => {
            let mut out = BTreeMap::new();
            for (name, attr_ty) in attrs {
                path.push(Step::Attribute(name.clone()));
                let v = m.get(name).map_or(Ok(Value::Null), |j| convert(j, attr_ty, path))?;
                path.pop();
                out.insert(name.clone(), v);
            }
            Value::Object(out)
        }
        (other, _) => {
            let found = match other {
                J::Null => "null",
                J::Bool(_) => "bool",
                J::Number(_) => "number",
                J::String(_) => "string",
                J::Array(_) => "array",
                J::Object(_) => "object",
            };
            return Err(err(path, found));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_state_decodes_and_drops_removed_attributes() {
        let ty = Type::object([
            ("id", Type::String),
            ("n", Type::Number),
            ("tags", Type::map(Type::String)),
        ]);
        let v = decode_json(br#"{"id":"x","n":2.5,"old":true,"tags":{"a":"b"}}"#, &ty).unwrap();
        assert_eq!(
            v,
            Value::object([
                ("id", "x".into()),
                ("n", Value::Number(Number::Float(2.5))),
                ("tags", Value::Map([("a".to_owned(), "b".into())].into())),
            ])
        );
    }

    #[test]
    fn type_errors_carry_the_path() {
        let ty = Type::object([("pool", Type::list(Type::object([("name", Type::String)])))]);
        let err = decode_json(br#"{"pool":[{"name":1}]}"#, &ty).unwrap_err();
        assert_eq!(err.path.to_string(), "pool[0].name");
        assert!(decode_json(b"{", &ty).unwrap_err().reason.starts_with("invalid JSON"));
    }
}
