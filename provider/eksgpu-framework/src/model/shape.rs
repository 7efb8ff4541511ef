//! Whether a value has the keys of its schema: every attribute and block of
//! the block's type, and no other.
//!
//! Terraform sends every attribute of the schema (the codecs fill gaps), so a
//! reader never meets a missing key unless the provider misspells one; the
//! encoder refuses a key the type lacks but writes a missing one as a silent
//! null. A value the provider writes (state, a model written back) must then
//! have exactly the schema's keys, and reading it back must ask for no other:
//! [`round_trip`] checks both, for the round-trip test of every model.

use std::fmt;

use eksgpu_tfplugin::diag::Step;
use eksgpu_tfplugin::schema::{Block, Mode, Nesting};
use eksgpu_tfplugin::{AttributePath, Type, Value};

use super::ModelError;

/// Which attributes a written value must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Every attribute and block (a state).
    Everything,
    /// The inputs: computed-only attributes may be left out, for the caller
    /// (the plan, the resource) adds them.
    Inputs,
}

/// One key where a value and its schema disagree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    pub at: AttributePath,
    pub problem: Problem,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    /// The value has a key the schema does not (Terraform would refuse it).
    NotInSchema,
    /// The schema has an attribute or block the value lacks (it would be written as null).
    Missing,
    /// A block (or an object attribute) that is not an object, or a list of blocks that is not a list.
    NotAnObject,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.problem {
            Problem::NotInSchema => "not in the schema",
            Problem::Missing => "missing (the schema has it)",
            Problem::NotAnObject => "not the object (or list of objects) the schema says",
        };
        if self.at.is_empty() {
            write!(f, "(the value itself): {what}")
        } else {
            write!(f, "{}: {what}", self.at)
        }
    }
}

/// The mismatches of one value, in path order.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the value does not have the schema's keys: {}", list(.0))]
pub struct ShapeError(pub Vec<Mismatch>);

fn list(m: &[Mismatch]) -> String {
    m.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
}

/// Why a model did not survive [`round_trip`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RoundTripError {
    #[error(transparent)]
    Shape(#[from] ShapeError),
    #[error("the value does not encode with the schema's type: {0}")]
    Encode(String),
    #[error("reading the written value back failed at {}: {}", at_text(.0), .0.kind)]
    Read(ModelError),
}

fn at_text(e: &ModelError) -> String {
    let at = AttributePath::from_steps(e.at.clone());
    if at.is_empty() {
        "(the value itself)".to_owned()
    } else {
        at.to_string()
    }
}

/// Checks that `v` has exactly the keys of `block` (nested blocks and object
/// attributes included); unknown values are not looked into.
pub fn check(block: &Block, v: &Value, expect: Expect) -> Result<(), ShapeError> {
    let mut out = Vec::new();
    walk(block, v, &mut Vec::new(), expect, &mut out);
    if out.is_empty() { Ok(()) } else { Err(ShapeError(out)) }
}

/// The round trip of a model through its schema: `written` (what the
/// model's writer made) has the schema's keys, encodes with the schema's type,
/// and `read` reads it, asking for no key the schema lacks. With
/// [`Expect::Inputs`], computed-only attributes are taken out before reading,
/// as the plan's rules read inputs (`partial::Partial`), so a reader of inputs
/// that asks for a computed one fails here.
pub fn round_trip<T>(
    block: &Block,
    expect: Expect,
    written: &Value,
    read: impl FnOnce(&Value) -> Result<T, ModelError>,
) -> Result<T, RoundTripError> {
    check(block, written, expect)?;
    eksgpu_tfplugin::value::encode_msgpack(written, &block.implied_type())
        .map_err(|e| RoundTripError::Encode(e.to_string()))?;
    let input = match expect {
        Expect::Everything => written.clone(),
        Expect::Inputs => crate::plan::strip_computed(block, written),
    };
    read(&input).map_err(RoundTripError::Read)
}

fn mismatch(at: &[Step], problem: Problem, out: &mut Vec<Mismatch>) {
    out.push(Mismatch {
        at: AttributePath::from_steps(at.to_vec()),
        problem,
    });
}

fn walk(block: &Block, v: &Value, at: &mut Vec<Step>, expect: Expect, out: &mut Vec<Mismatch>) {
    let Value::Object(m) = v else {
        if !v.is_unknown() {
            mismatch(at, Problem::NotAnObject, out);
        }
        return;
    };
    for k in m.keys() {
        if block.find_attribute(k).is_none() && block.find_block(k).is_none() {
            at.push(Step::Attribute(k.clone()));
            mismatch(at, Problem::NotInSchema, out);
            at.pop();
        }
    }
    for a in &block.attributes {
        at.push(Step::Attribute(a.name.clone()));
        match m.get(&a.name) {
            None if expect == Expect::Inputs && a.mode == Mode::Computed => {}
            None => mismatch(at, Problem::Missing, out),
            Some(x) => match &a.nested {
                // Objects of a nested attribute have its attributes' modes: computed ones may be
                // left out of inputs.
                Some(n) => {
                    for (place, object) in crate::nested::objects(n.nesting, x) {
                        let step = place.step();
                        at.extend(step.clone());
                        walk(&n.object, object, at, expect, out);
                        if step.is_some() {
                            at.pop();
                        }
                    }
                }
                None => typed(&a.ty, x, at, out),
            },
        }
        at.pop();
    }
    for b in &block.blocks {
        at.push(Step::Attribute(b.name.clone()));
        match (m.get(&b.name), b.nesting) {
            (None, _) => mismatch(at, Problem::Missing, out),
            // Absent, or not known yet (a `dynamic` block over unknown values).
            (Some(Value::Null | Value::Unknown), _) => {}
            (Some(x), Nesting::Single) => walk(&b.block, x, at, expect, out),
            (Some(Value::List(l) | Value::Set(l)), Nesting::List | Nesting::Set) => {
                for (i, e) in l.iter().enumerate() {
                    at.push(Step::Index(i64::try_from(i).unwrap_or(i64::MAX)));
                    walk(&b.block, e, at, expect, out);
                    at.pop();
                }
            }
            (Some(_), _) => mismatch(at, Problem::NotAnObject, out),
        }
        at.pop();
    }
}

/// The keys of object values inside an attribute of type `ty` (other type
/// errors are the encoder's to report).
fn typed(ty: &Type, v: &Value, at: &mut Vec<Step>, out: &mut Vec<Mismatch>) {
    match (ty, v) {
        (Type::Object(attrs), Value::Object(m)) => {
            for k in m.keys().filter(|k| !attrs.contains_key(*k)) {
                at.push(Step::Attribute(k.clone()));
                mismatch(at, Problem::NotInSchema, out);
                at.pop();
            }
            for (name, t) in attrs {
                at.push(Step::Attribute(name.clone()));
                match m.get(name) {
                    None => mismatch(at, Problem::Missing, out),
                    Some(x) => typed(t, x, at, out),
                }
                at.pop();
            }
        }
        (Type::List(t) | Type::Set(t), Value::List(l) | Value::Set(l)) => {
            for (i, x) in l.iter().enumerate() {
                at.push(Step::Index(i64::try_from(i).unwrap_or(i64::MAX)));
                typed(t, x, at, out);
                at.pop();
            }
        }
        (Type::Map(t), Value::Map(m)) => {
            for (k, x) in m {
                at.push(Step::Key(k.clone()));
                typed(t, x, at, out);
                at.pop();
            }
        }
        (Type::Tuple(ts), Value::Tuple(l)) => {
            for (i, (t, x)) in ts.iter().zip(l).enumerate() {
                at.push(Step::Index(i64::try_from(i).unwrap_or(i64::MAX)));
                typed(t, x, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests;
