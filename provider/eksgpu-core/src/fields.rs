//! Field ownership and projection: which fields of a live object belong to
//! this provider, read from server-side apply's `managedFields` (`FieldsV1`)
//! and from what the provider renders, and the live object cut down to them.
//!
//! FieldsV1 is a trie keyed by `f:<field>`, `k:<json key of a list item>`,
//! `v:<json value of a set item>`, `i:<index>`, with `.` marking the node
//! itself (apimachinery `fieldpath` serialization). A live value outside the
//! set — server defaults, other controllers' fields — never reaches a diff.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq, Eq)]
enum Elem {
    Field(String),
    /// A list item identified by key fields, e.g. `{"type":"Ready"}`.
    Key(BTreeMap<String, Value>),
    /// A set item identified by its value.
    SetValue(String),
    Index(usize),
}

/// A set of field paths, as a trie. A node without children is a leaf: the
/// whole value there is included.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldSet {
    children: BTreeMap<Elem, FieldSet>,
}

impl Ord for Elem {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.sort_key().cmp(&other.sort_key())
    }
}

impl PartialOrd for Elem {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Elem {
    fn sort_key(&self) -> (u8, String) {
        match self {
            Elem::Field(f) => (0, f.clone()),
            Elem::Key(k) => (1, serde_json::to_string(k).unwrap_or_default()),
            Elem::SetValue(v) => (2, v.clone()),
            Elem::Index(i) => (3, format!("{i:020}")),
        }
    }
}

impl FieldSet {
    pub fn is_empty(&self) -> bool {
        self.children.is_empty()
    }

    /// Parses a `FieldsV1` object. Unknown key prefixes are ignored.
    pub fn from_fields_v1(v: &Value) -> FieldSet {
        let mut set = FieldSet::default();
        let Some(m) = v.as_object() else { return set };
        for (k, child) in m {
            let elem = if let Some(f) = k.strip_prefix("f:") {
                Elem::Field(f.to_owned())
            } else if let Some(j) = k.strip_prefix("k:") {
                match serde_json::from_str::<Map<String, Value>>(j) {
                    Ok(keys) => Elem::Key(keys.into_iter().collect()),
                    Err(_) => continue,
                }
            } else if let Some(j) = k.strip_prefix("v:") {
                Elem::SetValue(canonical(j))
            } else if let Some(i) = k.strip_prefix("i:") {
                match i.parse() {
                    Ok(i) => Elem::Index(i),
                    Err(_) => continue,
                }
            } else {
                // "." marks the node itself; a node is included whenever it appears at all.
                continue;
            };
            set.children.insert(elem, FieldSet::from_fields_v1(child));
        }
        set
    }

    /// The fields of `manager`'s `Apply` entry in an object's `metadata.managedFields`.
    pub fn owned_by(object: &Value, manager: &str) -> FieldSet {
        let mut set = FieldSet::default();
        for entry in object["metadata"]["managedFields"].as_array().into_iter().flatten() {
            if entry["manager"] == manager && entry["operation"] == "Apply" {
                set.merge(FieldSet::from_fields_v1(&entry["fieldsV1"]));
            }
        }
        set
    }

    /// The leaf paths of a rendered object. Lists are atomic, as the CRDs
    /// this provider renders declare them (no `x-kubernetes-list-type: map`).
    pub fn of_value(v: &Value) -> FieldSet {
        let mut set = FieldSet::default();
        if let Value::Object(m) = v {
            for (k, child) in m {
                set.children.insert(Elem::Field(k.clone()), FieldSet::of_value(child));
            }
        }
        set
    }

    pub fn merge(&mut self, other: FieldSet) {
        for (k, v) in other.children {
            match self.children.get_mut(&k) {
                Some(mine) => {
                    // A leaf on either side means the whole value.
                    if mine.is_empty() || v.is_empty() {
                        *mine = FieldSet::default();
                    } else {
                        mine.merge(v);
                    }
                }
                None => {
                    self.children.insert(k, v);
                }
            }
        }
    }

    /// `live` cut down to this set; `None` when nothing of it is there.
    pub fn project(&self, live: &Value) -> Option<Value> {
        if self.is_empty() {
            return Some(live.clone());
        }
        match live {
            Value::Object(m) => {
                let mut out = Map::new();
                for (elem, child) in &self.children {
                    if let Elem::Field(f) = elem
                        && let Some(v) = m.get(f)
                        && let Some(p) = child.project(v)
                    {
                        out.insert(f.clone(), p);
                    }
                }
                Some(Value::Object(out))
            }
            Value::Array(items) => {
                let picked: Vec<Value> = items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, item)| {
                        self.children.iter().find_map(|(elem, child)| {
                            let hit = match elem {
                                Elem::Key(keys) => keys.iter().all(|(k, v)| item.get(k) == Some(v)),
                                Elem::SetValue(v) => canonical(&item.to_string()) == *v,
                                Elem::Index(j) => *j == i,
                                Elem::Field(_) => false,
                            };
                            if hit { child.project(item) } else { None }
                        })
                    })
                    .collect();
                Some(Value::Array(picked))
            }
            scalar => Some(scalar.clone()),
        }
    }

    /// Whether the field at `path` (object field names) is in the set.
    pub fn contains(&self, path: &[&str]) -> bool {
        let mut node = self;
        for (i, p) in path.iter().enumerate() {
            match node.children.get(&Elem::Field((*p).to_owned())) {
                Some(child) if child.is_empty() => return true,
                Some(child) => node = child,
                None => return i > 0 && node.is_empty(),
            }
        }
        true
    }
}

/// The provider's view of a live object: the fields `manager` owns, plus those
/// it renders (`rendered`) — a field another manager took over is still ours to
/// report as drift. Everything else (server defaults, other controllers) is cut.
pub fn project_ours(live: &Value, manager: &str, rendered: Option<&Value>) -> Value {
    let mut fields = FieldSet::owned_by(live, manager);
    if let Some(r) = rendered {
        fields.merge(FieldSet::of_value(r));
    }
    fields.project(live).unwrap_or_default()
}

fn canonical(json: &str) -> String {
    serde_json::from_str::<Value>(json).map_or_else(|_| json.to_owned(), |v| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn live() -> Value {
        json!({
            "metadata": {
                "name": "gpu",
                "labels": {"a": "1", "other": "x"},
                "managedFields": [
                    {"manager": "terraform-provider-eksgpu", "operation": "Apply", "fieldsV1": {
                        "f:metadata": {"f:labels": {"f:a": {}}},
                        "f:spec": {"f:limits": {"f:nvidia.com/gpu": {}}, "f:template": {"f:spec": {"f:requirements": {}}}}
                    }},
                    {"manager": "kubectl-edit", "operation": "Update", "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:other": {}}}}}
                ]
            },
            "spec": {
                "limits": {"nvidia.com/gpu": 64},
                "disruption": {"budgets": [{"nodes": "10%"}], "consolidateAfter": "0s"},
                "template": {"spec": {"requirements": [{"key": "k", "operator": "In", "values": ["v"]}], "expireAfter": "720h"}}
            },
            "status": {"conditions": [{"type": "Ready", "status": "True"}, {"type": "Other", "status": "False"}]}
        })
    }

    #[test]
    fn projection_keeps_only_owned_fields() {
        let owned = FieldSet::owned_by(&live(), "terraform-provider-eksgpu");
        let p = owned.project(&live()).unwrap();
        assert_eq!(
            p,
            json!({
                "metadata": {"labels": {"a": "1"}},
                "spec": {"limits": {"nvidia.com/gpu": 64}, "template": {"spec": {"requirements": [{"key": "k", "operator": "In", "values": ["v"]}]}}}
            })
        );
        // Server defaults (budgets, expireAfter) and kubectl's label are out.
        assert!(owned.contains(&["spec", "template", "spec", "requirements"]));
        assert!(!owned.contains(&["spec", "disruption"]));
    }

    #[test]
    fn keyed_and_set_items() {
        let set = FieldSet::from_fields_v1(
            &json!({"f:status": {"f:conditions": {"k:{\"type\":\"Ready\"}": {".": {}, "f:status": {}}}}, "f:tags": {"v:\"b\"": {}}}),
        );
        let v = json!({"status": {"conditions": [{"type": "Ready", "status": "True", "reason": "x"}, {"type": "Other"}]}, "tags": ["a", "b"]});
        assert_eq!(
            set.project(&v).unwrap(),
            json!({"status": {"conditions": [{"status": "True"}]}, "tags": ["b"]})
        );
    }

    #[test]
    fn union_with_rendered_paths() {
        let mut set = FieldSet::of_value(&json!({"spec": {"limits": {"nvidia.com/gpu": 32}}}));
        set.merge(FieldSet::from_fields_v1(&json!({"f:spec": {"f:weight": {}}})));
        let p = set
            .project(&json!({"spec": {"limits": {"nvidia.com/gpu": 64, "cpu": 1}, "weight": 5, "other": 1}}))
            .unwrap();
        assert_eq!(p, json!({"spec": {"limits": {"nvidia.com/gpu": 64}, "weight": 5}}));
    }

    #[test]
    fn ours_is_owned_plus_rendered() {
        let rendered = json!({"spec": {"disruption": {"consolidateAfter": "0s"}}});
        let p = project_ours(&live(), "terraform-provider-eksgpu", Some(&rendered));
        assert_eq!(p["spec"]["limits"]["nvidia.com/gpu"], 64);
        assert_eq!(
            p["spec"]["disruption"],
            json!({"consolidateAfter": "0s"}),
            "budgets stay out"
        );
        assert!(p["metadata"]["labels"].get("other").is_none());
    }
}
