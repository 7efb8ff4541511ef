//! A literal HCL body as the value Terraform would send for it, read through
//! the schema the provider serves: every attribute present (null when not
//! written), a list or set block as a list of its blocks (empty when none), a
//! single block as an object or null (hashicorp/hcl v2 `hcldec` as Terraform's
//! `configschema.Block.DecoderSpec` drives it, internal/configs/configschema/decoder_spec.go),
//! and the same automatic conversions between strings, numbers and bools as
//! go-cty's `convert` package.
//!
//! Only literals: variables, references, functions and `dynamic` blocks are
//! refused, because evaluating them is Terraform's job and such a case belongs on
//! the CLI.

use std::collections::BTreeMap;

use eksgpu_tfplugin::testing::proto::schema::object::NestingMode as ObjectNesting;
use eksgpu_tfplugin::testing::proto::schema::{Attribute, Block, nested_block::NestingMode};
use eksgpu_tfplugin::{Number, Type, Value};
use hcl::{Body, Expression, ObjectKey};

/// The cty type of an attribute, from its JSON form in the schema (go-cty `cty/json.go`), or
/// for a nested attribute the object (or list, set, map of objects) its attributes make.
pub fn attribute_type(a: &Attribute) -> Type {
    if let Some(n) = &a.nested_type {
        let object = Type::Object(
            n.attributes
                .iter()
                .map(|a| (a.name.clone(), attribute_type(a)))
                .collect(),
        );
        return match ObjectNesting::try_from(n.nesting).unwrap_or(ObjectNesting::Invalid) {
            ObjectNesting::List => Type::list(object),
            ObjectNesting::Set => Type::set(object),
            ObjectNesting::Map => Type::map(object),
            ObjectNesting::Single | ObjectNesting::Invalid => object,
        };
    }
    let json: serde_json::Value =
        serde_json::from_slice(&a.r#type).unwrap_or_else(|e| panic!("type of {}: {e}", a.name));
    type_of_json(&json).unwrap_or_else(|| panic!("type of {}: {json} is not a cty type this harness reads", a.name))
}

fn type_of_json(j: &serde_json::Value) -> Option<Type> {
    use serde_json::Value as J;
    Some(match j {
        J::String(s) if s == "string" => Type::String,
        J::String(s) if s == "number" => Type::Number,
        J::String(s) if s == "bool" => Type::Bool,
        J::Array(a) => match (a.first()?.as_str()?, a.get(1)?) {
            ("list", e) => Type::list(type_of_json(e)?),
            ("set", e) => Type::set(type_of_json(e)?),
            ("map", e) => Type::map(type_of_json(e)?),
            ("object", J::Object(attrs)) => Type::Object(
                attrs
                    .iter()
                    .map(|(k, t)| Some((k.clone(), type_of_json(t)?)))
                    .collect::<Option<_>>()?,
            ),
            ("tuple", J::Array(elems)) => Type::Tuple(elems.iter().map(type_of_json).collect::<Option<_>>()?),
            _ => return None,
        },
        _ => return None,
    })
}

fn nesting(mode: i32) -> NestingMode {
    NestingMode::try_from(mode).unwrap_or(NestingMode::Invalid)
}

/// The object type of a block: its attributes and its nested blocks by nesting mode.
pub fn block_type(b: &Block) -> Type {
    let mut attrs: BTreeMap<String, Type> = b
        .attributes
        .iter()
        .map(|a| (a.name.clone(), attribute_type(a)))
        .collect();
    for nb in &b.block_types {
        let inner = block_type(nb.block.as_ref().unwrap_or(&Block::default()));
        let ty = match nesting(nb.nesting) {
            NestingMode::List => Type::list(inner),
            NestingMode::Set => Type::set(inner),
            NestingMode::Map => Type::map(inner),
            NestingMode::Single | NestingMode::Group | NestingMode::Invalid => inner,
        };
        attrs.insert(nb.type_name.clone(), ty);
    }
    Type::Object(attrs)
}

/// The value of `body` as a block of `schema`; `at` names it in errors.
pub fn body_value(body: &Body, schema: &Block, at: &str) -> Result<Value, String> {
    for a in body.attributes() {
        if !schema.attributes.iter().any(|s| s.name == a.key.as_str()) {
            return Err(format!("{at}: no attribute {:?} in the schema", a.key.as_str()));
        }
    }
    for b in body.blocks() {
        if !schema.block_types.iter().any(|s| s.type_name == b.identifier()) {
            return Err(format!(
                "{at}: no block type {:?} in the schema (a `dynamic` block needs the CLI)",
                b.identifier()
            ));
        }
    }
    let mut out = BTreeMap::new();
    for a in &schema.attributes {
        let ty = attribute_type(a);
        let v = match body.attributes().find(|x| x.key.as_str() == a.name) {
            Some(x) => attribute_value(&x.expr, a, &ty, &format!("{at}.{}", a.name))?,
            None => Value::Null,
        };
        out.insert(a.name.clone(), v);
    }
    for nb in &schema.block_types {
        let inner = nb.block.clone().unwrap_or_default();
        let found: Vec<&hcl::Block> = body.blocks().filter(|b| b.identifier() == nb.type_name).collect();
        let at = format!("{at}.{}", nb.type_name);
        let mode = nesting(nb.nesting);
        if mode != NestingMode::Map && found.iter().any(|b| !b.labels().is_empty()) {
            return Err(format!("{at}: this block takes no labels"));
        }
        let each = |b: &&hcl::Block, i: usize| body_value(b.body(), &inner, &format!("{at}[{i}]"));
        let v = match mode {
            NestingMode::List => Value::List(
                found
                    .iter()
                    .enumerate()
                    .map(|(i, b)| each(b, i))
                    .collect::<Result<_, _>>()?,
            ),
            NestingMode::Set => Value::Set(
                found
                    .iter()
                    .enumerate()
                    .map(|(i, b)| each(b, i))
                    .collect::<Result<_, _>>()?,
            ),
            NestingMode::Single | NestingMode::Group => match found.as_slice() {
                [] if mode == NestingMode::Group => body_value(&Body::default(), &inner, &at)?,
                [] => Value::Null,
                [b] => body_value(b.body(), &inner, &at)?,
                _ => return Err(format!("{at}: at most one such block")),
            },
            NestingMode::Map => {
                let mut m = BTreeMap::new();
                for b in &found {
                    let [label] = b.labels() else {
                        return Err(format!("{at}: a map block takes one label"));
                    };
                    m.insert(label.as_str().to_owned(), body_value(b.body(), &inner, &at)?);
                }
                Value::Map(m)
            }
            NestingMode::Invalid => return Err(format!("{at}: invalid nesting mode {}", nb.nesting)),
        };
        out.insert(nb.type_name.clone(), v);
    }
    Ok(Value::Object(out))
}

/// The value of attribute `a` written as `e`: a nested attribute's objects take their
/// attributes' modes (an optional one left out is null, as Terraform's object conversion with
/// optional attributes makes it), any other attribute converts as cty does.
fn attribute_value(e: &Expression, a: &Attribute, ty: &Type, at: &str) -> Result<Value, String> {
    let Some(n) = &a.nested_type else {
        return expression_value(e, ty, at);
    };
    let mismatch = || format!("{at}: {e:?} is not a literal {}", ty.friendly_name());
    let object = |e: &Expression, at: &str| nested_object(e, &n.attributes, at);
    Ok(
        match (ObjectNesting::try_from(n.nesting).unwrap_or(ObjectNesting::Invalid), e) {
            (_, Expression::Null) => Value::Null,
            (_, Expression::Parenthesis(inner)) => attribute_value(inner, a, ty, at)?,
            (ObjectNesting::Single, e) => object(e, at)?,
            (ObjectNesting::List | ObjectNesting::Set, Expression::Array(items)) => {
                let vs = items
                    .iter()
                    .enumerate()
                    .map(|(i, x)| object(x, &format!("{at}[{i}]")))
                    .collect::<Result<Vec<_>, _>>()?;
                if n.nesting == ObjectNesting::Set as i32 {
                    Value::Set(vs)
                } else {
                    Value::List(vs)
                }
            }
            (ObjectNesting::Map, Expression::Object(o)) => Value::Map(
                o.iter()
                    .map(|(k, v)| {
                        let k = key(k).ok_or_else(mismatch)?;
                        let v = object(v, &format!("{at}[{k:?}]"))?;
                        Ok((k, v))
                    })
                    .collect::<Result<_, String>>()?,
            ),
            _ => return Err(mismatch()),
        },
    )
}

/// One object of a nested attribute.
fn nested_object(e: &Expression, attributes: &[Attribute], at: &str) -> Result<Value, String> {
    let e = match e {
        Expression::Parenthesis(inner) => inner.as_ref(),
        e => e,
    };
    let Expression::Object(o) = e else {
        return Err(format!("{at}: {e:?} is not an object"));
    };
    let given: BTreeMap<String, &Expression> = o
        .iter()
        .map(|(k, v)| Some((key(k)?, v)))
        .collect::<Option<_>>()
        .ok_or_else(|| format!("{at}: an object key that is not a name or a string"))?;
    if let Some(extra) = given.keys().find(|k| !attributes.iter().any(|a| &a.name == *k)) {
        return Err(format!("{at}: no attribute {extra:?} in this object"));
    }
    let mut out = BTreeMap::new();
    for a in attributes {
        let here = format!("{at}.{}", a.name);
        let v = match given.get(&a.name) {
            Some(e) => attribute_value(e, a, &attribute_type(a), &here)?,
            None if a.required => return Err(format!("{here}: the attribute is required")),
            None => Value::Null,
        };
        out.insert(a.name.clone(), v);
    }
    Ok(Value::Object(out))
}

/// A literal expression as a value of type `ty`.
fn expression_value(e: &Expression, ty: &Type, at: &str) -> Result<Value, String> {
    let mismatch = || format!("{at}: {e:?} is not a literal of type {}", ty.friendly_name());
    Ok(match (e, ty) {
        (Expression::Parenthesis(inner), _) => expression_value(inner, ty, at)?,
        (Expression::Null, _) => Value::Null,
        (Expression::String(s), Type::String) => Value::String(s.clone()),
        (Expression::Number(n), Type::String) => Value::String(n.to_string()),
        (Expression::Bool(b), Type::String) => Value::String(b.to_string()),
        (Expression::Number(n), Type::Number) => Value::Number(match n.as_i64() {
            Some(i) => Number::Int(i),
            None => Number::parse(&n.to_string()).ok_or_else(mismatch)?,
        }),
        (Expression::String(s), Type::Number) => Value::Number(Number::parse(s).ok_or_else(mismatch)?),
        (Expression::Bool(b), Type::Bool) => Value::Bool(*b),
        (Expression::String(s), Type::Bool) if s == "true" || s == "false" => Value::Bool(s == "true"),
        (Expression::Array(items), Type::List(el) | Type::Set(el)) => {
            let mut vs = Vec::new();
            for (i, item) in items.iter().enumerate() {
                let v = expression_value(item, el, &format!("{at}[{i}]"))?;
                // A set holds each value once.
                if !(matches!(ty, Type::Set(_)) && vs.contains(&v)) {
                    vs.push(v);
                }
            }
            if matches!(ty, Type::Set(_)) {
                Value::Set(vs)
            } else {
                Value::List(vs)
            }
        }
        (Expression::Array(items), Type::Tuple(types)) if items.len() == types.len() => Value::Tuple(
            items
                .iter()
                .zip(types)
                .enumerate()
                .map(|(i, (item, t))| expression_value(item, t, &format!("{at}[{i}]")))
                .collect::<Result<_, _>>()?,
        ),
        (Expression::Object(o), Type::Map(el)) => Value::Map(
            o.iter()
                .map(|(k, v)| {
                    let k = key(k).ok_or_else(mismatch)?;
                    let v = expression_value(v, el, &format!("{at}[{k:?}]"))?;
                    Ok((k, v))
                })
                .collect::<Result<_, String>>()?,
        ),
        (Expression::Object(o), Type::Object(attrs)) => {
            let given: BTreeMap<String, &Expression> = o
                .iter()
                .map(|(k, v)| Some((key(k)?, v)))
                .collect::<Option<_>>()
                .ok_or_else(mismatch)?;
            if let Some(extra) = given.keys().find(|k| !attrs.contains_key(*k)) {
                return Err(format!("{at}: no attribute {extra:?} in this object type"));
            }
            let mut out = BTreeMap::new();
            for (name, t) in attrs {
                let e = given
                    .get(name)
                    .ok_or_else(|| format!("{at}: attribute {name:?} is required"))?;
                out.insert(name.clone(), expression_value(e, t, &format!("{at}.{name}"))?);
            }
            Value::Object(out)
        }
        _ => return Err(mismatch()),
    })
}

/// An object key written as a name or a quoted string.
fn key(k: &ObjectKey) -> Option<String> {
    match k {
        ObjectKey::Identifier(i) => Some(i.as_str().to_owned()),
        ObjectKey::Expression(Expression::String(s)) => Some(s.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use eksgpu_tfplugin::testing::proto::schema::{Attribute, Block, NestedBlock, nested_block::NestingMode};
    use eksgpu_tfplugin::{Number, Type, Value};

    use super::{block_type, body_value};

    fn attr(name: &str, ty: Type) -> Attribute {
        Attribute {
            name: name.into(),
            r#type: ty.to_json().to_string().into_bytes(),
            optional: true,
            ..Default::default()
        }
    }

    fn nested(name: &str, nesting: NestingMode, block: Block) -> NestedBlock {
        NestedBlock {
            type_name: name.into(),
            block: Some(block),
            nesting: nesting.into(),
            ..Default::default()
        }
    }

    fn schema() -> Block {
        let inner = Block {
            attributes: vec![attr("role", Type::String)],
            ..Default::default()
        };
        Block {
            attributes: vec![
                attr("name", Type::String),
                attr("limit", Type::Number),
                attr("types", Type::set(Type::String)),
                attr("labels", Type::map(Type::String)),
            ],
            block_types: vec![
                nested("pool", NestingMode::List, inner.clone()),
                nested("timeouts", NestingMode::Single, inner),
            ],
            ..Default::default()
        }
    }

    fn value(hcl: &str) -> Result<Value, String> {
        body_value(&hcl::parse(hcl).map_err(|e| e.to_string())?, &schema(), "r")
    }

    #[test]
    fn absent_attributes_are_null_and_absent_blocks_empty_or_null() {
        let v = value("name = 7\ntypes = [\"a\", \"a\"]\nlabels = { \"x.io/y\" = \"z\", k = true }").unwrap();
        // cty converts a number or bool to a string where the type asks for one.
        assert_eq!(v.get("name"), &Value::String("7".into()));
        assert_eq!(v.get("limit"), &Value::Null);
        assert_eq!(v.get("types"), &Value::Set(vec![Value::String("a".into())]));
        assert_eq!(
            v.get("labels").clone(),
            Value::Map(
                [
                    ("k".to_owned(), Value::String("true".into())),
                    ("x.io/y".to_owned(), Value::String("z".into()))
                ]
                .into()
            )
        );
        assert_eq!(v.get("pool"), &Value::List(Vec::new()));
        assert_eq!(v.get("timeouts"), &Value::Null);
        let v = value("limit = 8\npool { role = \"a\" }\npool { role = \"b\" }\ntimeouts { role = \"c\" }").unwrap();
        assert_eq!(v.get("limit"), &Value::Number(Number::Int(8)));
        let Value::List(pools) = v.get("pool") else {
            panic!("{v:?}")
        };
        assert_eq!(pools[1].get("role"), &Value::String("b".into()));
        assert_eq!(v.get("timeouts").get("role"), &Value::String("c".into()));
        // The value encodes with the block's type, as the protocol client sends it.
        eksgpu_tfplugin::value::encode_msgpack(&v, &block_type(&schema())).unwrap();
    }

    #[test]
    fn what_terraform_would_evaluate_or_refuse_is_refused() {
        for (hcl, why) in [
            ("nmae = \"x\"", "no attribute \"nmae\""),
            ("name = var.x", "not a literal"),
            ("name = \"${var.x}\"", "not a literal"),
            (
                "dynamic \"pool\" {\n  for_each = []\n  content {}\n}",
                "a `dynamic` block needs the CLI",
            ),
            ("timeouts {}\ntimeouts {}", "at most one"),
            ("limit = \"many\"", "not a literal of type number"),
        ] {
            let e = value(hcl).expect_err(hcl);
            assert!(e.contains(why), "{hcl}: {e}");
        }
    }
}
