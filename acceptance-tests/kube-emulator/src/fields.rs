//! Field sets of server-side apply: the leaf paths an applied configuration
//! sets, as a real API server tracks them per field manager, and their
//! `FieldsV1` form (`f:` fields, `k:` list-map keys, `v:` set values).

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::schema::{self, ListType};

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum PathElem {
    Field(String),
    /// A list-map item: the canonical JSON of its key fields.
    Key(String),
    /// A set item: its canonical JSON.
    SetValue(String),
}

pub type Path = Vec<PathElem>;
pub type FieldSet = BTreeSet<Path>;

/// Fields a manager does not own: identity and server-set metadata.
fn untracked(prefix: &[PathElem], name: &str) -> bool {
    match prefix {
        [] => matches!(name, "apiVersion" | "kind" | "status"),
        [PathElem::Field(m)] if m == "metadata" => {
            !matches!(name, "labels" | "annotations" | "finalizers" | "ownerReferences")
        }
        _ => false,
    }
}

/// The leaf paths `value` sets.
pub fn leaves(value: &Value, schema: &Value) -> FieldSet {
    let mut out = FieldSet::new();
    walk(value, schema, &mut Vec::new(), &mut out);
    out
}

fn walk(value: &Value, schema: &Value, prefix: &mut Path, out: &mut FieldSet) {
    match value {
        Value::Object(_) if !prefix.is_empty() && schema::atomic_map(schema) => {
            out.insert(prefix.clone());
        }
        Value::Object(m) if !m.is_empty() || prefix.is_empty() => {
            for (k, v) in m {
                if untracked(prefix, k) {
                    continue;
                }
                let child = schema::child(schema, k, prefix.is_empty())
                    .cloned()
                    .unwrap_or(Value::Null);
                prefix.push(PathElem::Field(k.clone()));
                walk(v, &child, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(items) => match schema::list_type(schema) {
            ListType::Atomic => {
                out.insert(prefix.clone());
            }
            ListType::Set => {
                for item in items {
                    let mut p = prefix.clone();
                    p.push(PathElem::SetValue(item.to_string()));
                    out.insert(p);
                }
            }
            ListType::Map(keys) => {
                for item in items {
                    prefix.push(PathElem::Key(key_of(item, &keys)));
                    let before = out.len();
                    walk(item, schema::items(schema), prefix, out);
                    if out.len() == before {
                        out.insert(prefix.clone());
                    }
                    prefix.pop();
                }
            }
        },
        _ => {
            out.insert(prefix.clone());
        }
    }
}

fn key_of(item: &Value, keys: &[String]) -> String {
    let m: Map<String, Value> = keys
        .iter()
        .map(|k| (k.clone(), item.get(k).cloned().unwrap_or(Value::Null)))
        .collect();
    Value::Object(m).to_string()
}

/// Set items are identified by their canonical JSON text.
fn is_set_value(item: &Value, text: &str) -> bool {
    serde_json::from_str::<Value>(text).is_ok_and(|v| v == *item)
}

fn matches_key(item: &Value, key: &str) -> bool {
    serde_json::from_str::<Map<String, Value>>(key).is_ok_and(|m| m.iter().all(|(k, v)| item.get(k) == Some(v)))
}

/// The value at `path`.
pub fn get<'a>(value: &'a Value, path: &[PathElem]) -> Option<&'a Value> {
    path.iter().try_fold(value, |v, e| match e {
        PathElem::Field(f) => v.get(f),
        PathElem::Key(k) => v.as_array()?.iter().find(|i| matches_key(i, k)),
        PathElem::SetValue(s) => v.as_array()?.iter().find(|i| is_set_value(i, s)),
    })
}

/// Removes the value at `path`, if present.
pub fn remove(value: &mut Value, path: &[PathElem]) {
    let Some((last, parent)) = path.split_last() else {
        return;
    };
    let mut v = value;
    for e in parent {
        let next = match e {
            PathElem::Field(f) => v.get_mut(f),
            PathElem::Key(k) => v.as_array_mut().and_then(|a| a.iter_mut().find(|i| matches_key(i, k))),
            PathElem::SetValue(s) => v
                .as_array_mut()
                .and_then(|a| a.iter_mut().find(|i| i.to_string() == *s)),
        };
        match next {
            Some(n) => v = n,
            None => return,
        }
    }
    match last {
        PathElem::Field(f) => {
            if let Some(m) = v.as_object_mut() {
                m.remove(f);
            }
        }
        PathElem::Key(k) => {
            if let Some(a) = v.as_array_mut() {
                a.retain(|i| !matches_key(i, k));
            }
        }
        PathElem::SetValue(s) => {
            if let Some(a) = v.as_array_mut() {
                a.retain(|i| !is_set_value(i, s));
            }
        }
    }
}

/// Merges an applied configuration into the live object by the schema's list types.
pub fn merge(live: &mut Value, config: &Value, schema: &Value, at_root: bool) {
    match (live, config) {
        (l @ Value::Object(_), c @ Value::Object(_)) if !at_root && schema::atomic_map(schema) => *l = c.clone(),
        (Value::Object(l), Value::Object(c)) => {
            for (k, v) in c {
                let child = schema::child(schema, k, at_root).cloned().unwrap_or(Value::Null);
                match l.get_mut(k) {
                    Some(existing) => merge(existing, v, &child, false),
                    None => {
                        l.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (Value::Array(l), Value::Array(c)) => match schema::list_type(schema) {
            ListType::Atomic => l.clone_from(c),
            ListType::Set => {
                for item in c {
                    if !l.contains(item) {
                        l.push(item.clone());
                    }
                }
            }
            ListType::Map(keys) => {
                for item in c {
                    let key = key_of(item, &keys);
                    match l.iter_mut().find(|i| matches_key(i, &key)) {
                        Some(existing) => merge(existing, item, schema::items(schema), false),
                        None => l.push(item.clone()),
                    }
                }
            }
        },
        (l, c) => *l = c.clone(),
    }
}

/// The `FieldsV1` object of a set.
pub fn to_fields_v1(set: &FieldSet) -> Value {
    let mut root = Map::new();
    for path in set {
        let mut node = &mut root;
        for (i, e) in path.iter().enumerate() {
            let key = match e {
                PathElem::Field(f) => format!("f:{f}"),
                PathElem::Key(k) => format!("k:{k}"),
                PathElem::SetValue(v) => format!("v:{v}"),
            };
            let entry = node.entry(key).or_insert_with(|| Value::Object(Map::new()));
            let Value::Object(m) = entry else { break };
            if matches!(e, PathElem::Key(_)) && i + 1 < path.len() {
                m.entry(".").or_insert_with(|| Value::Object(Map::new()));
            }
            node = m;
        }
    }
    Value::Object(root)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn leaves_follow_list_types() {
        let schema = json!({"type": "object", "properties": {
            "spec": {"type": "object", "properties": {
                "atomic": {"type": "array", "items": {"type": "string"}},
                "set": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                "map": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                        "items": {"type": "object", "properties": {"name": {"type": "string"}, "v": {"type": "string"}}}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "tags": {"type": "object", "additionalProperties": {"type": "string"}, "x-kubernetes-map-type": "atomic"}}}}});
        let v = json!({"apiVersion": "x/v1", "metadata": {"name": "n", "labels": {"a": "1"}},
            "spec": {"atomic": ["a"], "set": ["x", "y"], "map": [{"name": "one", "v": "1"}], "labels": {"k": "v"}, "tags": {"t": "1"}}});
        let fv1 = to_fields_v1(&leaves(&v, &schema));
        assert_eq!(
            fv1,
            json!({"f:metadata": {"f:labels": {"f:a": {}}}, "f:spec": {
                "f:atomic": {}, "f:labels": {"f:k": {}}, "f:tags": {},
                "f:map": {"k:{\"name\":\"one\"}": {".": {}, "f:name": {}, "f:v": {}}},
                "f:set": {"v:\"x\"": {}, "v:\"y\"": {}}}})
        );
    }

    #[test]
    fn remove_and_get_by_path() {
        let mut v = json!({"spec": {"limits": {"gpu": 1, "cpu": 2}}});
        let p = vec![
            PathElem::Field("spec".into()),
            PathElem::Field("limits".into()),
            PathElem::Field("gpu".into()),
        ];
        assert_eq!(get(&v, &p), Some(&json!(1)));
        remove(&mut v, &p);
        assert_eq!(v, json!({"spec": {"limits": {"cpu": 2}}}));
    }
}
