//! The objects inside a nested attribute's value, and where each sits: what planning,
//! validation and shape checks walk when an attribute holds objects (protocol 6 nested
//! attributes) rather than a plain value.
//!
//! An object is found again in another value of the same attribute (the prior state, the
//! configuration) by where it sits: the same key of a map, the same index of a list. Set
//! elements have no place of their own, so they have no counterpart.

use eksgpu_tfplugin::diag::Step;
use eksgpu_tfplugin::schema::ObjectNesting;
use eksgpu_tfplugin::{AttributePath, Value};

/// Where an object sits inside its attribute's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// The value itself (a single nested attribute).
    Whole,
    Index(usize),
    Key(String),
    /// A set element: reported at the set.
    Element,
}

impl Place {
    /// The step below the attribute, if any.
    pub fn step(&self) -> Option<Step> {
        match self {
            Place::Index(i) => Some(Step::Index(i64::try_from(*i).unwrap_or(i64::MAX))),
            Place::Key(k) => Some(Step::Key(k.clone())),
            Place::Whole | Place::Element => None,
        }
    }

    /// `at` followed by this place.
    pub fn under(&self, at: &AttributePath) -> AttributePath {
        match self {
            Place::Index(i) => at.clone().index(*i),
            Place::Key(k) => at.clone().key(k.clone()),
            Place::Whole | Place::Element => at.clone(),
        }
    }
}

/// The objects of `v` with their places; none while `v` is null or unknown (an unknown
/// element is skipped: nothing inside it is known).
pub fn objects(nesting: ObjectNesting, v: &Value) -> Vec<(Place, &Value)> {
    match (nesting, v) {
        (_, Value::Null | Value::Unknown) => Vec::new(),
        (ObjectNesting::Single, v) => vec![(Place::Whole, v)],
        (ObjectNesting::List, Value::List(l)) => l.iter().enumerate().map(|(i, e)| (Place::Index(i), e)).collect(),
        (ObjectNesting::Set, Value::Set(l) | Value::List(l)) => l.iter().map(|e| (Place::Element, e)).collect(),
        (ObjectNesting::Map, Value::Map(m)) => m.iter().map(|(k, e)| (Place::Key(k.clone()), e)).collect(),
        _ => Vec::new(),
    }
    .into_iter()
    .filter(|(_, e)| !e.is_unknown())
    .collect()
}

/// [`objects`], to change them.
pub fn objects_mut(nesting: ObjectNesting, v: &mut Value) -> Vec<(Place, &mut Value)> {
    let all: Vec<(Place, &mut Value)> = match (nesting, v) {
        (_, Value::Null | Value::Unknown) => Vec::new(),
        (ObjectNesting::Single, v) => vec![(Place::Whole, v)],
        (ObjectNesting::List, Value::List(l)) => l.iter_mut().enumerate().map(|(i, e)| (Place::Index(i), e)).collect(),
        (ObjectNesting::Set, Value::Set(l) | Value::List(l)) => l.iter_mut().map(|e| (Place::Element, e)).collect(),
        (ObjectNesting::Map, Value::Map(m)) => m.iter_mut().map(|(k, e)| (Place::Key(k.clone()), e)).collect(),
        _ => Vec::new(),
    };
    all.into_iter().filter(|(_, e)| !e.is_unknown()).collect()
}

/// The object at `place` in `other` (another value of the same attribute): `missing` where it
/// has none, `Unknown` while `other` is unknown.
pub fn counterpart<'v>(place: &Place, other: &'v Value, missing: &'v Value) -> &'v Value {
    match (place, other) {
        (_, Value::Unknown) => other,
        (Place::Whole, v) => v,
        (Place::Index(i), Value::List(l)) => l.get(*i).unwrap_or(missing),
        (Place::Key(k), Value::Map(m)) => m.get(k).unwrap_or(missing),
        _ => missing,
    }
}

/// The static null and unknown values counterparts fall back to.
pub static NULL: Value = Value::Null;
pub static UNKNOWN: Value = Value::Unknown;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_objects_pair_by_key_and_lists_by_index() {
        let obj = |n: i64| Value::object([("n", n.into())]);
        let prior = Value::Map([("a".to_owned(), obj(1)), ("b".to_owned(), obj(2))].into());
        let planned = Value::Map([("b".to_owned(), obj(3)), ("c".to_owned(), Value::Unknown)].into());
        let found = objects(ObjectNesting::Map, &planned);
        assert_eq!(found.len(), 1, "the unknown entry holds nothing known");
        let (place, _) = &found[0];
        assert_eq!(place, &Place::Key("b".into()));
        assert_eq!(counterpart(place, &prior, &NULL), &obj(2));
        assert_eq!(counterpart(&Place::Key("c".into()), &prior, &NULL), &Value::Null);
        assert_eq!(counterpart(place, &Value::Unknown, &NULL), &Value::Unknown);
        let list = Value::List(vec![obj(1)]);
        assert_eq!(counterpart(&Place::Index(0), &list, &UNKNOWN), &obj(1));
        assert_eq!(counterpart(&Place::Index(1), &list, &UNKNOWN), &Value::Unknown);
        assert_eq!(
            Place::Key("gpu".into())
                .under(&AttributePath::attr("pools"))
                .to_string(),
            r#"pools["gpu"]"#
        );
    }
}
