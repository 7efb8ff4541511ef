//! Model field types ↔ JSON. Reading is strict about configuration (a fractional number or a
//! string where a number belongs is an error) and lenient where live objects legitimately vary:
//! Kubernetes quantities and budget node counts are int-or-string in the CRDs.

use std::collections::BTreeMap;

use super::Json;

/// What a required input without a value reads as (the framework's own wording).
pub const REQUIRED: &str = "a value is required here";

/// A model field the engine can read and write.
pub trait FieldValue: Sized {
    fn to_json(&self) -> Json;
    fn from_json(v: &Json) -> Result<Self, String>;
}

/// Whether a value counts as "not set": null, or an empty list or map.
pub fn is_empty(v: &Json) -> bool {
    match v {
        Json::Null => true,
        Json::Array(a) => a.is_empty(),
        Json::Object(m) => m.is_empty(),
        _ => false,
    }
}

fn text(v: &Json) -> Result<String, String> {
    match v {
        Json::String(s) => Ok(s.clone()),
        // Live quantities and counts are int-or-string (`limits.cpu: 1000`, budget `nodes: 0`).
        Json::Number(n) => Ok(n.to_string()),
        other => Err(format!("expected a string, found {other}")),
    }
}

fn whole(v: &Json) -> Result<i64, String> {
    match v {
        Json::Number(n) => n.as_i64().ok_or_else(|| format!("{n} is not a whole number in range")),
        // A live integer quantity written as a string (`"64"`); the provider hands configuration
        // numbers over as numbers, and numbers JSON cannot hold exactly as their text, which
        // does not parse here either.
        Json::String(s) => s.parse().map_err(|_| format!("{s} is not a whole number in range")),
        other => Err(format!("expected a number, found {other}")),
    }
}

impl FieldValue for Option<String> {
    fn to_json(&self) -> Json {
        self.clone().map_or(Json::Null, Json::String)
    }
    fn from_json(v: &Json) -> Result<Self, String> {
        if v.is_null() { Ok(None) } else { text(v).map(Some) }
    }
}

impl FieldValue for String {
    fn to_json(&self) -> Json {
        Json::String(self.clone())
    }
    fn from_json(v: &Json) -> Result<Self, String> {
        if v.is_null() { Err(REQUIRED.into()) } else { text(v) }
    }
}

impl FieldValue for Option<i64> {
    fn to_json(&self) -> Json {
        self.map_or(Json::Null, Json::from)
    }
    fn from_json(v: &Json) -> Result<Self, String> {
        if v.is_null() { Ok(None) } else { whole(v).map(Some) }
    }
}

impl FieldValue for i64 {
    fn to_json(&self) -> Json {
        Json::from(*self)
    }
    fn from_json(v: &Json) -> Result<Self, String> {
        if v.is_null() { Err(REQUIRED.into()) } else { whole(v) }
    }
}

impl FieldValue for Option<bool> {
    fn to_json(&self) -> Json {
        self.map_or(Json::Null, Json::Bool)
    }
    fn from_json(v: &Json) -> Result<Self, String> {
        match v {
            Json::Null => Ok(None),
            Json::Bool(b) => Ok(Some(*b)),
            other => Err(format!("expected a bool, found {other}")),
        }
    }
}

impl FieldValue for bool {
    fn to_json(&self) -> Json {
        Json::Bool(*self)
    }
    /// Unset reads as `false`: every bool of a pool without its own default is off unless set.
    fn from_json(v: &Json) -> Result<Self, String> {
        Ok(Option::<bool>::from_json(v)?.unwrap_or(false))
    }
}

impl FieldValue for Vec<String> {
    fn to_json(&self) -> Json {
        Json::Array(self.iter().cloned().map(Json::String).collect())
    }
    fn from_json(v: &Json) -> Result<Self, String> {
        match v {
            Json::Null => Ok(Vec::new()),
            Json::Array(a) => a.iter().map(text).collect(),
            other => Err(format!("expected a list, found {other}")),
        }
    }
}

impl FieldValue for BTreeMap<String, String> {
    fn to_json(&self) -> Json {
        Json::Object(self.iter().map(|(k, v)| (k.clone(), Json::String(v.clone()))).collect())
    }
    fn from_json(v: &Json) -> Result<Self, String> {
        match v {
            Json::Null => Ok(BTreeMap::new()),
            Json::Object(m) => m.iter().map(|(k, v)| Ok((k.clone(), text(v)?))).collect(),
            other => Err(format!("expected a map, found {other}")),
        }
    }
}

impl FieldValue for crate::model::Capacity {
    fn to_json(&self) -> Json {
        Json::String(self.as_str().to_owned())
    }
    fn from_json(v: &Json) -> Result<Self, String> {
        let s = String::from_json(v)?;
        crate::model::Capacity::parse(&s).ok_or_else(|| format!("{s:?} is not a capacity kind"))
    }
}
