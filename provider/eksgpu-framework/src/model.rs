//! Typed models: resources read and write Rust values instead of walking raw
//! [`Value`]s by string key. Conversions are exact: a fractional or
//! out-of-range number, a `null` where a value is required, or a `null` inside
//! a list or map is an error at its attribute path, never a silent default.
//! An attribute name the value does not have is an error too: Terraform
//! sends every attribute of the schema, so a missing key is a misspelt name
//! in the provider, not a null. [`shape`] checks written values against the
//! schema, for the round-trip tests every model has.

use std::collections::BTreeMap;
use std::fmt;

use eksgpu_tfplugin::diag::Step;
use eksgpu_tfplugin::{AttributePath, Diagnostic, Number, Value};

use crate::path;

/// Why a value could not be read as the model's type, and where.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{kind}")]
pub struct ModelError {
    /// Relative to the value converted.
    pub at: Vec<Step>,
    pub kind: ModelErrorKind,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelErrorKind {
    #[error("the value is not known yet")]
    Unknown,
    #[error("a value is required here")]
    Missing,
    /// The reader asked for a key the object does not have: a provider bug
    /// (a misspelt name, or a name the schema lost), never the user's.
    #[error("attribute `{name}` is not in the schema")]
    MissingAttribute { name: String },
    #[error("expected {expected}, found {found}")]
    Type { expected: &'static str, found: String },
    #[error("{value} is not a whole number")]
    NotWhole { value: String },
    #[error("{value} is out of range")]
    OutOfRange { value: String, min: i128, max: i128 },
    #[error("{value} is not a finite number")]
    NotFinite { value: String },
    #[error("{0}")]
    Invalid(String),
}

impl ModelError {
    pub fn new(kind: ModelErrorKind) -> Self {
        Self { at: Vec::new(), kind }
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ModelErrorKind::Invalid(message.into()))
    }

    #[must_use]
    pub fn within(mut self, step: Step) -> Self {
        self.at.insert(0, step);
        self
    }

    /// The error as a diagnostic at `base` plus its own path.
    pub fn diagnostic(&self, base: &AttributePath) -> Diagnostic {
        let at = path::join(base, &self.at);
        let detail = match &self.kind {
            ModelErrorKind::NotWhole { .. } | ModelErrorKind::OutOfRange { .. } => {
                format!("{at}: {}. Write a whole number in range.", self.kind)
            }
            ModelErrorKind::Unknown => format!(
                "{at}: {}. The provider needs it to go on; this is a bug if Terraform sent a plan with it unknown.",
                self.kind
            ),
            ModelErrorKind::MissingAttribute { .. } => {
                return Diagnostic::error(
                    "Provider bug: attribute not in the schema",
                    format!(
                        "{at}: the provider read {}. This is a bug in the provider, not in the configuration: \
                         please report it with this message.",
                        self.kind
                    ),
                )
                .at(at);
            }
            kind => format!("{at}: {kind}."),
        };
        Diagnostic::error("Invalid value", detail).at(at)
    }
}

fn found(v: &Value) -> String {
    match v {
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("{s:?}"),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".to_owned(),
        Value::Unknown => "an unknown value".to_owned(),
        Value::List(_) | Value::Tuple(_) => "a list".to_owned(),
        Value::Set(_) => "a set".to_owned(),
        Value::Map(_) => "a map".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

fn type_error(expected: &'static str, v: &Value) -> ModelError {
    ModelError::new(match v {
        Value::Unknown => ModelErrorKind::Unknown,
        Value::Null => ModelErrorKind::Missing,
        _ => ModelErrorKind::Type {
            expected,
            found: found(v),
        },
    })
}

/// `read(v)`, or `None` once its error is a diagnostic at the value's path:
/// how a resource reads its model from a state or plan.
pub fn reported<T>(
    read: impl FnOnce(&Value) -> Result<T, ModelError>,
    v: &Value,
    diags: &mut eksgpu_tfplugin::Diagnostics,
) -> Option<T> {
    read(v)
        .map_err(|e| diags.push(e.diagnostic(&AttributePath::root())))
        .ok()
}

/// Reads a model from a Terraform value.
pub trait FromValue: Sized {
    fn from_value(v: &Value) -> Result<Self, ModelError>;
}

/// Writes a model as a Terraform value.
pub trait IntoValue {
    fn into_value(self) -> Value;
}

impl FromValue for String {
    fn from_value(v: &Value) -> Result<Self, ModelError> {
        v.as_str().map(str::to_owned).ok_or_else(|| type_error("a string", v))
    }
}

impl IntoValue for String {
    fn into_value(self) -> Value {
        Value::String(self)
    }
}

impl IntoValue for &str {
    fn into_value(self) -> Value {
        Value::String(self.to_owned())
    }
}

impl FromValue for bool {
    fn from_value(v: &Value) -> Result<Self, ModelError> {
        v.as_bool().ok_or_else(|| type_error("true or false", v))
    }
}

impl IntoValue for bool {
    fn into_value(self) -> Value {
        Value::Bool(self)
    }
}

/// A whole number in `min..=max`, exactly: `1.5` and `1e30` are errors, not truncations.
pub fn whole(v: &Value, min: i128, max: i128) -> Result<i128, ModelError> {
    let Value::Number(n) = v else {
        return Err(type_error("a number", v));
    };
    let i = match n {
        Number::Int(i) => i128::from(*i),
        other => {
            let text = other.to_string();
            let f = other.as_f64();
            // A decimal beyond i64 is out of range if whole; say which.
            if f.is_finite() && f.fract() == 0.0 {
                return Err(ModelError::new(ModelErrorKind::OutOfRange { value: text, min, max }));
            }
            return Err(ModelError::new(ModelErrorKind::NotWhole { value: text }));
        }
    };
    if (min..=max).contains(&i) {
        Ok(i)
    } else {
        Err(ModelError::new(ModelErrorKind::OutOfRange {
            value: i.to_string(),
            min,
            max,
        }))
    }
}

macro_rules! integers {
    ($($t:ty),*) => {$(
        impl FromValue for $t {
            fn from_value(v: &Value) -> Result<Self, ModelError> {
                let i = whole(v, i128::from(<$t>::MIN), i128::from(<$t>::MAX))?;
                <$t>::try_from(i).map_err(|_| ModelError::invalid("out of range"))
            }
        }
        impl IntoValue for $t {
            fn into_value(self) -> Value {
                Value::Number(Number::Int(i64::from(self)))
            }
        }
    )*};
}
integers!(i64, i32, u32, u16);

impl FromValue for f64 {
    fn from_value(v: &Value) -> Result<Self, ModelError> {
        let Value::Number(n) = v else {
            return Err(type_error("a number", v));
        };
        let f = n.as_f64();
        if f.is_finite() {
            Ok(f)
        } else {
            Err(ModelError::new(ModelErrorKind::NotFinite { value: n.to_string() }))
        }
    }
}

impl IntoValue for f64 {
    /// Models never hold NaN or infinities (reading refuses them); should one
    /// arise from arithmetic it is written as null rather than a value
    /// Terraform cannot serialise.
    fn into_value(self) -> Value {
        if self.is_finite() {
            Value::Number(Number::from_f64(self))
        } else {
            Value::Null
        }
    }
}

impl<T: FromValue> FromValue for Option<T> {
    fn from_value(v: &Value) -> Result<Self, ModelError> {
        match v {
            Value::Null => Ok(None),
            v => T::from_value(v).map(Some),
        }
    }
}

impl<T: IntoValue> IntoValue for Option<T> {
    fn into_value(self) -> Value {
        self.map_or(Value::Null, IntoValue::into_value)
    }
}

/// Lists and sets; `null` reads as empty (blocks and optional lists), a
/// `null` element is an error at its index.
impl<T: FromValue> FromValue for Vec<T> {
    fn from_value(v: &Value) -> Result<Self, ModelError> {
        match v {
            Value::Null => Ok(Vec::new()),
            Value::List(l) | Value::Set(l) | Value::Tuple(l) => l
                .iter()
                .enumerate()
                .map(|(i, x)| {
                    let step = || Step::Index(i64::try_from(i).unwrap_or(i64::MAX));
                    if x.is_null() {
                        return Err(ModelError::invalid("null is not allowed in a list").within(step()));
                    }
                    T::from_value(x).map_err(|e| e.within(step()))
                })
                .collect(),
            v => Err(type_error("a list", v)),
        }
    }
}

impl<T: IntoValue> IntoValue for Vec<T> {
    fn into_value(self) -> Value {
        Value::List(self.into_iter().map(IntoValue::into_value).collect())
    }
}

/// Maps; `null` reads as empty, a `null` value is an error at its key.
impl<T: FromValue> FromValue for BTreeMap<String, T> {
    fn from_value(v: &Value) -> Result<Self, ModelError> {
        match v {
            Value::Null => Ok(BTreeMap::new()),
            Value::Map(m) | Value::Object(m) => m
                .iter()
                .map(|(k, x)| {
                    if x.is_null() {
                        return Err(
                            ModelError::invalid("null is not allowed as a map value").within(Step::Key(k.clone()))
                        );
                    }
                    T::from_value(x)
                        .map(|t| (k.clone(), t))
                        .map_err(|e| e.within(Step::Key(k.clone())))
                })
                .collect(),
            v => Err(type_error("a map", v)),
        }
    }
}

impl<T: IntoValue> IntoValue for BTreeMap<String, T> {
    fn into_value(self) -> Value {
        Value::Map(self.into_iter().map(|(k, v)| (k, v.into_value())).collect())
    }
}

/// An object value read attribute by attribute; errors carry the full path
/// from the value first read (`pool[0].node_class.role`).
#[derive(Clone)]
pub struct Obj<'a> {
    v: &'a Value,
    at: Vec<Step>,
}

impl fmt::Debug for Obj<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.v.fmt(f)
    }
}

impl<'a> Obj<'a> {
    /// `v` as an object; an error for anything else (null and unknown included).
    pub fn new(v: &'a Value) -> Result<Self, ModelError> {
        Self::at(v, Vec::new())
    }

    fn at(v: &'a Value, at: Vec<Step>) -> Result<Self, ModelError> {
        match v {
            Value::Object(_) => Ok(Obj { v, at }),
            v => Err(Self::prefixed(type_error("a block", v), &at)),
        }
    }

    fn prefixed(mut e: ModelError, at: &[Step]) -> ModelError {
        let mut full = at.to_vec();
        full.append(&mut e.at);
        e.at = full;
        e
    }

    fn attr(&self, name: &str) -> Vec<Step> {
        let mut at = self.at.clone();
        at.push(Step::Attribute(name.to_owned()));
        at
    }

    pub fn value(&self) -> &'a Value {
        self.v
    }

    /// `e` (an error found reading this object's value another way) at this object's path.
    pub fn within(&self, e: ModelError) -> ModelError {
        Self::prefixed(e, &self.at)
    }

    /// The attribute `name` as it is; an error when the object has no such
    /// key (see [`ModelErrorKind::MissingAttribute`]).
    pub fn field(&self, name: &str) -> Result<&'a Value, ModelError> {
        let Value::Object(m) = self.v else {
            // `Obj::at` admits objects only.
            return Err(Self::prefixed(type_error("a block", self.v), &self.at));
        };
        m.get(name).ok_or_else(|| {
            Self::prefixed(
                ModelError::new(ModelErrorKind::MissingAttribute { name: name.to_owned() }),
                &self.attr(name),
            )
        })
    }

    /// A required attribute.
    pub fn get<T: FromValue>(&self, name: &str) -> Result<T, ModelError> {
        T::from_value(self.field(name)?).map_err(|e| Self::prefixed(e, &self.attr(name)))
    }

    /// An optional+computed attribute: `None` while null or not known yet
    /// (at apply, a computed value the apply itself sets).
    pub fn computed<T: FromValue>(&self, name: &str) -> Result<Option<T>, ModelError> {
        match self.field(name)? {
            Value::Unknown => Ok(None),
            _ => self.get(name),
        }
    }

    /// An attribute read with `parse` (enums, versions, durations).
    pub fn parse<T>(&self, name: &str, parse: impl FnOnce(&str) -> Result<T, String>) -> Result<T, ModelError> {
        let s: String = self.get(name)?;
        parse(&s).map_err(|m| Self::prefixed(ModelError::invalid(m), &self.attr(name)))
    }

    /// An optional attribute read with `parse`.
    pub fn parse_opt<T>(
        &self,
        name: &str,
        parse: impl FnOnce(&str) -> Result<T, String>,
    ) -> Result<Option<T>, ModelError> {
        let s: Option<String> = self.get(name)?;
        s.map(|s| parse(&s).map_err(|m| Self::prefixed(ModelError::invalid(m), &self.attr(name))))
            .transpose()
    }

    /// A block of at most one (a list of zero or one, or a single block):
    /// `None` when absent.
    pub fn block(&self, name: &str) -> Result<Option<Obj<'a>>, ModelError> {
        match self.field(name)? {
            Value::Null => Ok(None),
            Value::List(l) => match l.as_slice() {
                [] => Ok(None),
                [b] => {
                    let mut at = self.attr(name);
                    at.push(Step::Index(0));
                    Obj::at(b, at).map(Some)
                }
                _ => Err(Self::prefixed(
                    ModelError::invalid("at most one block is allowed"),
                    &self.attr(name),
                )),
            },
            v => Obj::at(v, self.attr(name)).map(Some),
        }
    }

    /// The objects of a map nested attribute, each read by `f`, in key order; errors at
    /// `name["key"]…`.
    pub fn entries<T>(
        &self,
        name: &str,
        f: impl Fn(&str, Obj<'a>) -> Result<T, ModelError>,
    ) -> Result<Vec<T>, ModelError> {
        match self.field(name)? {
            Value::Null => Ok(Vec::new()),
            Value::Map(m) => m
                .iter()
                .map(|(k, e)| {
                    let mut at = self.attr(name);
                    at.push(Step::Key(k.clone()));
                    Obj::at(e, at).and_then(|o| f(k, o))
                })
                .collect(),
            v => Err(Self::prefixed(type_error("a map of objects", v), &self.attr(name))),
        }
    }

    /// A list of nested blocks, each read by `f`.
    pub fn blocks<T>(&self, name: &str, f: impl Fn(Obj<'a>) -> Result<T, ModelError>) -> Result<Vec<T>, ModelError> {
        match self.field(name)? {
            Value::Null => Ok(Vec::new()),
            Value::List(l) | Value::Set(l) => l
                .iter()
                .enumerate()
                .map(|(i, b)| {
                    let mut at = self.attr(name);
                    at.push(Step::Index(i64::try_from(i).unwrap_or(i64::MAX)));
                    Obj::at(b, at).and_then(&f)
                })
                .collect(),
            v => Err(Self::prefixed(type_error("a list of blocks", v), &self.attr(name))),
        }
    }
}

/// Builds an object value attribute by attribute. What it writes should have
/// every key of the schema's block and no other ([`shape::check`] in the
/// model's round-trip test): Terraform refuses an unknown key, and a missing
/// one would be written as a silent null.
#[derive(Debug, Default)]
pub struct ObjBuilder(BTreeMap<String, Value>);

impl ObjBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    #[must_use]
    pub fn set(mut self, name: &str, v: impl IntoValue) -> Self {
        self.0.insert(name.to_owned(), v.into_value());
        self
    }

    /// A block of at most one, written as the list Terraform holds it in.
    #[must_use]
    pub fn one(mut self, name: &str, v: Option<Value>) -> Self {
        self.0.insert(name.to_owned(), Value::List(v.into_iter().collect()));
        self
    }

    #[must_use]
    pub fn raw(mut self, name: &str, v: Value) -> Self {
        self.0.insert(name.to_owned(), v);
        self
    }

    /// An attribute of the schema the model does not hold (a setting of the
    /// apply such as `adopt`, or a value the caller fills in), written as
    /// null so the value still has every key of the schema.
    #[must_use]
    pub fn null(self, name: &str) -> Self {
        self.raw(name, Value::Null)
    }

    /// A list of nested blocks.
    #[must_use]
    pub fn blocks(self, name: &str, blocks: impl IntoIterator<Item = Value>) -> Self {
        self.raw(name, Value::List(blocks.into_iter().collect()))
    }

    pub fn build(self) -> Value {
        Value::Object(self.0)
    }
}

impl IntoValue for Value {
    fn into_value(self) -> Value {
        self
    }
}

pub mod shape;

#[cfg(test)]
mod tests;
