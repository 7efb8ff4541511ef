//! The value model: what a Terraform value is on the provider side, with null
//! and unknown as first-class states, plus the two wire codecs.

mod json;
mod msgpack;
mod number;

use std::collections::BTreeMap;

pub use json::{decode_json, decode_json_value};
pub use msgpack::{decode_msgpack, encode_msgpack};
pub use number::Number;

use crate::diag::AttributePath;

/// A Terraform value. Objects and maps keep their keys sorted so that equal
/// values encode to equal bytes (Terraform compares plans byte for byte).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    /// Not known until apply. Refinements sent by newer Terraform are dropped:
    /// this provider never narrows an unknown, so it never has to honour one.
    Unknown,
    Bool(bool),
    Number(Number),
    String(String),
    List(Vec<Value>),
    Set(Vec<Value>),
    Map(BTreeMap<String, Value>),
    Object(BTreeMap<String, Value>),
    Tuple(Vec<Value>),
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn is_unknown(&self) -> bool {
        matches!(self, Value::Unknown)
    }

    /// True when neither this value nor anything inside it is unknown.
    pub fn is_wholly_known(&self) -> bool {
        match self {
            Value::Unknown => false,
            Value::List(v) | Value::Set(v) | Value::Tuple(v) => v.iter().all(Value::is_wholly_known),
            Value::Map(m) | Value::Object(m) => m.values().all(Value::is_wholly_known),
            _ => true,
        }
    }

    /// An object attribute; `Null` when this is not an object or lacks it.
    pub fn get(&self, name: &str) -> &Value {
        static NULL: Value = Value::Null;
        match self {
            Value::Object(m) => m.get(name).unwrap_or(&NULL),
            _ => &NULL,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    /// Elements of a list, set or tuple; empty for anything else (null included).
    pub fn elements(&self) -> &[Value] {
        match self {
            Value::List(v) | Value::Set(v) | Value::Tuple(v) => v,
            _ => &[],
        }
    }

    /// Entries of a map or object; `None` for anything else.
    pub fn entries(&self) -> Option<&BTreeMap<String, Value>> {
        match self {
            Value::Map(m) | Value::Object(m) => Some(m),
            _ => None,
        }
    }

    pub fn object<'a>(attributes: impl IntoIterator<Item = (&'a str, Value)>) -> Value {
        Value::Object(attributes.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Self {
        Value::Number(Number::Int(n))
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_owned())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Self {
        v.map_or(Value::Null, Into::into)
    }
}

/// Why bytes from Terraform could not be read as a value of the expected type.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{reason}{}", if .path.is_empty() { String::new() } else { format!(" at {}", .path) })]
pub struct DecodeError {
    pub path: AttributePath,
    pub reason: String,
}

/// Why a value could not be written as the type the schema declares. Always a
/// provider bug, reported as a diagnostic rather than a panic.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("cannot encode {found} as {expected}{}", if .path.is_empty() { String::new() } else { format!(" at {}", .path) })]
pub struct EncodeError {
    pub path: AttributePath,
    pub expected: String,
    pub found: &'static str,
}

impl Value {
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Unknown => "unknown",
            Value::Bool(_) => "bool",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::List(_) => "list",
            Value::Set(_) => "set",
            Value::Map(_) => "map",
            Value::Object(_) => "object",
            Value::Tuple(_) => "tuple",
        }
    }
}
