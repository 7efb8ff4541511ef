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

    /// Whether `path` (object field names) is a leaf of the set: the whole value there.
    pub fn is_leaf(&self, path: &[String]) -> bool {
        let mut node = self;
        for p in path {
            match node.children.get(&Elem::Field(p.clone())) {
                Some(child) => node = child,
                None => return false,
            }
        }
        node.is_empty() && !path.is_empty()
    }

    /// Adds `path` (object field names) as a leaf.
    pub fn insert_leaf(&mut self, path: &[String]) {
        let mut node = self;
        for p in path {
            node = node.children.entry(Elem::Field(p.clone())).or_default();
        }
        node.children.clear();
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
/// report as drift; an atomic map or list another manager took over is
/// reported whole (apply would replace all of it). Everything else (server
/// defaults, other controllers) is cut.
pub fn project_ours(live: &Value, manager: &str, rendered: Option<&Value>) -> Value {
    let mut fields = FieldSet::owned_by(live, manager);
    if let Some(r) = rendered {
        fields.merge(FieldSet::of_value(r));
        for c in co_owned(live, manager, r) {
            let mut whole = FieldSet::default();
            whole.insert_leaf(&c.field);
            fields.merge(whole);
        }
    }
    fields.project(live).unwrap_or_default()
}

/// A field the provider writes that another field manager owns as one value:
/// an atomic map or list (`x-kubernetes-map-type: atomic`, or a list of a
/// type other than `map` or `set`) holding what the provider renders, whose
/// live value differs from it. The next apply conflicts with that manager;
/// with force it replaces the whole value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoOwned {
    pub manager: String,
    /// Object field names from the root, e.g. `spec.template.metadata.labels`.
    pub field: Vec<String>,
    pub live: Value,
    pub ours: Value,
}

impl CoOwned {
    /// Keys of a map that the other manager has and the provider does not render.
    pub fn foreign_keys(&self) -> Vec<String> {
        match (&self.live, &self.ours) {
            (Value::Object(l), Value::Object(o)) => l.keys().filter(|k| !o.contains_key(*k)).cloned().collect(),
            _ => Vec::new(),
        }
    }
}

/// The fields of `rendered` that another manager than `manager` owns whole
/// (as a leaf above what the provider renders) with a different live value.
/// Ownership is read from `metadata.managedFields`, so it follows the real
/// server's reading of the CRD's map and list types.
pub fn co_owned(live: &Value, manager: &str, rendered: &Value) -> Vec<CoOwned> {
    let mut ours_leaves = Vec::new();
    leaf_paths(rendered, &mut Vec::new(), &mut ours_leaves);
    let mut out: Vec<CoOwned> = Vec::new();
    for entry in live["metadata"]["managedFields"].as_array().into_iter().flatten() {
        let Some(other) = entry["manager"].as_str().filter(|m| *m != manager) else {
            continue;
        };
        let theirs = FieldSet::from_fields_v1(&entry["fieldsV1"]);
        for leaf in &ours_leaves {
            // The shortest prefix they own as a whole, above our leaf.
            let Some(len) = (1..leaf.len()).find(|n| theirs.is_leaf(&leaf[..*n])) else {
                continue;
            };
            let field: Vec<String> = leaf[..len].to_vec();
            if out.iter().any(|c| c.manager == other && c.field == field) {
                continue;
            }
            let at = |v: &Value| field.iter().fold(v, |v, k| &v[k.as_str()]).clone();
            let (live_value, ours) = (at(live), at(rendered));
            if live_value != ours {
                out.push(CoOwned {
                    manager: other.to_owned(),
                    field,
                    live: live_value,
                    ours,
                });
            }
        }
    }
    out
}

/// Paths (object field names) of the scalar and list leaves of a rendered value.
fn leaf_paths(v: &Value, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, child) in m {
                prefix.push(k.clone());
                leaf_paths(child, prefix, out);
                prefix.pop();
            }
        }
        _ => out.push(prefix.clone()),
    }
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
    fn an_atomic_map_another_manager_took_is_reported_whole() {
        let live = json!({
            "metadata": {"managedFields": [
                {"manager": "terraform-provider-eksgpu", "operation": "Apply", "fieldsV1": {
                    "f:spec": {"f:limits": {"f:nvidia.com/gpu": {}}}}},
                {"manager": "kubectl-edit", "operation": "Update", "fieldsV1": {
                    "f:spec": {"f:template": {"f:metadata": {"f:labels": {}}}}}}
            ]},
            "spec": {"limits": {"nvidia.com/gpu": 4},
                     "template": {"metadata": {"labels": {"team": "ml", "owner": "data"}}}}
        });
        let rendered = json!({"spec": {"limits": {"nvidia.com/gpu": 4},
                                       "template": {"metadata": {"labels": {"team": "ml"}}}}});
        let c = co_owned(&live, "terraform-provider-eksgpu", &rendered);
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(c[0].manager, "kubectl-edit");
        assert_eq!(c[0].field.join("."), "spec.template.metadata.labels");
        assert_eq!(c[0].foreign_keys(), ["owner"]);
        // The read-back sees the whole map, so the plan shows what apply would drop.
        let p = project_ours(&live, "terraform-provider-eksgpu", Some(&rendered));
        assert_eq!(
            p["spec"]["template"]["metadata"]["labels"],
            json!({"team": "ml", "owner": "data"})
        );
        // The same value co-owned is no conflict; granular fields never are.
        let mut same = live.clone();
        same["spec"]["template"]["metadata"]["labels"] = json!({"team": "ml"});
        assert!(co_owned(&same, "terraform-provider-eksgpu", &rendered).is_empty());
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
