//! The declared inputs of `eksgpu_core::node_strategy::inputs` as Terraform sees them: schema
//! blocks and attributes with their validators, and configuration values ↔ the typed model.
//! Nothing here names an input: a new one is a declaration in the core and nothing else.

use eksgpu_core::model::inputs::{self, Check, Decl, InputError, Json, Lit, Node, NodeSchema, Ty};
use eksgpu_core::rules::Step as CoreStep;
use eksgpu_framework::model::{ModelError, ModelErrorKind, whole};
use eksgpu_framework::validators;
use eksgpu_tfplugin::diag::Step;
use eksgpu_tfplugin::schema::{Attribute, Block, Mode, NestedType, ObjectNesting};
use eksgpu_tfplugin::{Type, Validator, Value};

use super::checks;

/// The object of a declared model (a pool: its attributes, nested ones included), with `doc` as
/// its description.
pub(crate) fn object<M>(doc: &str, decls: &[&dyn Decl<M>]) -> Block {
    decls
        .iter()
        .fold(Block::new(doc), |b, d| b.attribute(attribute_of(d.schema())))
}

fn attribute_of(n: Node) -> Attribute {
    match n {
        Node::Attr(a) => attribute(&a),
        Node::Nested {
            name,
            doc,
            list,
            min_items,
            max_items,
            children,
        } => {
            let object = children
                .into_iter()
                .fold(Block::new(doc), |b, c| b.attribute(attribute_of(c)));
            let nesting = if list {
                ObjectNesting::List
            } else {
                ObjectNesting::Single
            };
            // A required object of one (`Required`) must be written: Terraform says so itself.
            let mode = if min_items.is_some_and(|n| n > 0) {
                Mode::Required
            } else {
                Mode::Optional
            };
            let a = Attribute::nested(name, mode, NestedType::new(nesting, object), doc);
            match (list, max_items) {
                (true, Some(n)) => a.validate(validators::size(0, usize::try_from(n).unwrap_or(usize::MAX), name)),
                _ => a,
            }
        }
    }
}

fn ty(t: Ty) -> Type {
    match t {
        Ty::String => Type::String,
        Ty::Number => Type::Number,
        Ty::Bool => Type::Bool,
        Ty::StringList => Type::list(Type::String),
        Ty::StringMap => Type::map(Type::String),
    }
}

fn literal(l: Lit) -> Value {
    match l {
        Lit::Bool(b) => b.into(),
        Lit::Str(s) => s.into(),
        Lit::Int(i) => i.into(),
        Lit::EmptyMap => Value::Map(Default::default()),
    }
}

fn attribute(a: &NodeSchema) -> Attribute {
    let mut at = if a.required {
        Attribute::required(a.name, ty(a.ty), a.doc)
    } else {
        Attribute::optional(a.name, ty(a.ty), a.doc)
    };
    if let Some(d) = a.default {
        at = at.default(literal(d));
    }
    a.checks.iter().flat_map(validators_of).fold(at, Attribute::validate)
}

fn validators_of(c: &Check) -> Vec<Validator> {
    match *c {
        Check::Str(d, f) => vec![checks::string(d, f)],
        Check::Coded(code, d, f) => vec![checks::string(d, f).code(code.as_str())],
        Check::Each(d, f) => vec![checks::each(d, f)],
        Check::Keys(d, f) => vec![checks::keys(d, f)],
        Check::Int(min, max, what) => vec![validators::integer(min, max, what)],
        Check::Int32(min, max, what) => vec![validators::int32(min, max, what)],
        Check::OneOf(allowed) => vec![validators::one_of(allowed)],
        Check::EachOneOf(allowed) => vec![validators::each(validators::one_of(allowed))],
        Check::Distinct => vec![validators::distinct()],
        Check::SelectorTags => vec![
            validators::keys("Non-empty tag keys.", |k| {
                if k.is_empty() { non_empty("tag key") } else { Ok(()) }
            }),
            validators::each(validators::string("Non-empty tag values.", |v| {
                if v.is_empty() { non_empty("tag value") } else { Ok(()) }
            })),
        ],
    }
}

/// Karpenter's selector terms refuse empty tag keys and values (EC2NodeClass CRD CEL rules on
/// `subnetSelectorTerms` / `securityGroupSelectorTerms`, v1.14.1).
fn non_empty(what: &'static str) -> Result<(), String> {
    Err(format!("an empty {what} selects nothing: Karpenter refuses it"))
}

/// A known configuration value as the engine reads it. Numbers are whole (every number input
/// is), checked here so the error is the framework's own; unknown values are errors.
pub(crate) fn to_json(v: &Value) -> Result<Json, ModelError> {
    Ok(match v {
        Value::Null => Json::Null,
        Value::Unknown => return Err(ModelError::new(ModelErrorKind::Unknown)),
        Value::Bool(b) => Json::Bool(*b),
        Value::Number(_) => {
            let i = whole(v, i128::from(i64::MIN), i128::from(i64::MAX))?;
            Json::from(i64::try_from(i).map_err(|_| ModelError::invalid("out of range"))?)
        }
        Value::String(s) => Json::String(s.clone()),
        Value::List(items) | Value::Set(items) | Value::Tuple(items) => Json::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, e)| to_json(e).map_err(|err| err.within(Step::Index(index(i)))))
                .collect::<Result<_, _>>()?,
        ),
        Value::Map(m) => Json::Object(
            m.iter()
                .map(|(k, e)| Ok((k.clone(), to_json(e).map_err(|err| err.within(Step::Key(k.clone())))?)))
                .collect::<Result<_, ModelError>>()?,
        ),
        Value::Object(m) => Json::Object(
            m.iter()
                .map(|(k, e)| {
                    Ok((
                        k.clone(),
                        to_json(e).map_err(|err| err.within(Step::Attribute(k.clone())))?,
                    ))
                })
                .collect::<Result<_, ModelError>>()?,
        ),
    })
}

fn index(i: usize) -> i64 {
    i64::try_from(i).unwrap_or(i64::MAX)
}

/// A configuration value of type `t` from what the engine wrote. Object keys the engine did
/// not write (computed outputs) are left out for the plan to fill.
pub(crate) fn to_value(j: &Json, t: &Type) -> Value {
    match (j, t) {
        (Json::Null, _) => Value::Null,
        (Json::Bool(b), _) => Value::Bool(*b),
        (Json::Number(n), _) => n.as_i64().map_or(Value::Null, Value::from),
        (Json::String(s), _) => Value::String(s.clone()),
        (Json::Array(a), Type::List(e) | Type::Set(e)) => Value::List(a.iter().map(|x| to_value(x, e)).collect()),
        (Json::Object(m), Type::Map(e)) => Value::Map(m.iter().map(|(k, x)| (k.clone(), to_value(x, e))).collect()),
        (Json::Object(m), Type::Object(attrs)) => Value::Object(
            m.iter()
                .filter_map(|(k, x)| attrs.get(k).map(|at| (k.clone(), to_value(x, at))))
                .collect(),
        ),
        _ => Value::Null,
    }
}

fn model_error(e: InputError) -> ModelError {
    let kind = if e.message == inputs::value::REQUIRED {
        ModelErrorKind::Missing
    } else {
        ModelErrorKind::Invalid(e.message)
    };
    e.path.into_iter().rev().fold(ModelError::new(kind), |err, s| {
        err.within(match s {
            CoreStep::Attr(a) => Step::Attribute(a.to_owned()),
            CoreStep::Index(i) => Step::Index(index(i)),
            CoreStep::Key(k) => Step::Key(k),
        })
    })
}

/// A model from its configuration value (every declared attribute must be in it).
pub(crate) fn read<M: Default>(decls: &[&dyn Decl<M>], v: &Value) -> Result<M, ModelError> {
    inputs::read_config(decls, &to_json(v)?).map_err(model_error)
}

/// A model's configuration value, typed by its block's type.
pub(crate) fn write<M>(decls: &[&dyn Decl<M>], m: &M, t: &Type) -> Value {
    to_value(&inputs::write_config(decls, m), t)
}
