//! Objects and their field managers, with the semantics of a real API server:
//! server-side apply (conflicts, force, removal of omitted fields, dry run),
//! updates that take ownership, defaulting and validation on every write.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::fields::{self, FieldSet, Path, PathElem};
use crate::kinds::KindInfo;
use crate::schema;

#[derive(Debug, Clone)]
struct Entry {
    manager: String,
    /// `Apply` or `Update`.
    operation: &'static str,
    api_version: String,
    fields: FieldSet,
}

#[derive(Debug, Clone)]
struct Object {
    value: Value,
    managers: Vec<Entry>,
}

/// An error answered as a Kubernetes `Status`.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub code: u16,
    pub reason: &'static str,
    pub message: String,
    pub details: Value,
}

impl ApiError {
    pub fn status(&self) -> Value {
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
               "message": self.message, "reason": self.reason, "details": self.details, "code": self.code})
    }
}

fn details(kind: &KindInfo, name: &str, causes: Vec<Value>) -> Value {
    let mut d = json!({"name": name, "group": kind.group, "kind": kind.plural});
    if !causes.is_empty() {
        d["causes"] = Value::Array(causes);
    }
    d
}

pub fn not_found(kind: &KindInfo, name: &str) -> ApiError {
    ApiError {
        code: 404,
        reason: "NotFound",
        message: format!("{} \"{name}\" not found", kind.resource()),
        details: details(kind, name, vec![]),
    }
}

type Key = (String, String, String);

#[derive(Debug, Default)]
pub struct Store {
    objects: BTreeMap<Key, Object>,
    revision: u64,
    uids: u64,
}

fn key(kind: &KindInfo, ns: Option<&str>, name: &str) -> Key {
    (kind.resource(), ns.unwrap_or_default().to_owned(), name.to_owned())
}

fn path_text(p: &Path) -> String {
    p.iter()
        .map(|e| match e {
            PathElem::Field(f) => format!(".{f}"),
            PathElem::Key(k) => format!("[{k}]"),
            PathElem::SetValue(v) => format!("[={v}]"),
        })
        .collect()
}

impl Store {
    fn next_revision(&mut self) -> String {
        self.revision += 1;
        self.revision.to_string()
    }

    fn render(&self, o: &Object) -> Value {
        let mut v = o.value.clone();
        let managed: Vec<Value> = o
            .managers
            .iter()
            .map(|e| {
                json!({"manager": e.manager, "operation": e.operation, "apiVersion": e.api_version,
                       "time": "2026-11-29T00:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": fields::to_fields_v1(&e.fields)})
            })
            .collect();
        v["metadata"]["managedFields"] = Value::Array(managed);
        v
    }

    pub fn get(&self, kind: &KindInfo, ns: Option<&str>, name: &str) -> Option<Value> {
        self.objects.get(&key(kind, ns, name)).map(|o| self.render(o))
    }

    /// Objects of a kind, in a namespace or all, matching `k=v` / `k` selectors.
    pub fn list(&self, kind: &KindInfo, ns: Option<&str>, selector: &str) -> Vec<Value> {
        let terms: Vec<(&str, Option<&str>)> = selector
            .split(',')
            .filter(|t| !t.is_empty())
            .map(|t| match t.split_once('=') {
                Some((k, v)) => (k.trim(), Some(v.trim_start_matches('=').trim())),
                None => (t.trim(), None),
            })
            .collect();
        self.objects
            .iter()
            .filter(|((res, o_ns, _), _)| *res == kind.resource() && ns.is_none_or(|n| n == o_ns))
            .filter(|(_, o)| {
                let labels = &o.value["metadata"]["labels"];
                terms.iter().all(|(k, v)| match v {
                    Some(v) => labels[*k] == *v,
                    None => !labels[*k].is_null(),
                })
            })
            .map(|(_, o)| self.render(o))
            .collect()
    }

    /// DELETE at `now` (RFC 3339): an object with finalizers only gets its `deletionTimestamp`
    /// and stays until its controller removes the last finalizer (`finish`), as on a real server.
    pub fn delete(&mut self, kind: &KindInfo, ns: Option<&str>, name: &str, now: &str) -> Result<Value, ApiError> {
        let k = key(kind, ns, name);
        let Some(o) = self.objects.get(&k) else {
            return Err(not_found(kind, name));
        };
        let has_finalizers = o.value["metadata"]["finalizers"]
            .as_array()
            .is_some_and(|f| !f.is_empty());
        if !has_finalizers {
            let o = self.objects.remove(&k).ok_or_else(|| not_found(kind, name))?;
            return Ok(self.render(&o));
        }
        if !o.value["metadata"]["deletionTimestamp"].is_null() {
            return Ok(self.render(o));
        }
        let rv = self.next_revision();
        let o = self.objects.get_mut(&k).ok_or_else(|| not_found(kind, name))?;
        o.value["metadata"]["deletionTimestamp"] = now.into();
        o.value["metadata"]["resourceVersion"] = rv.into();
        let o = o.clone();
        Ok(self.render(&o))
    }

    pub fn clear(&mut self) {
        self.objects.clear();
    }

    /// Server-side apply of `config` by `manager`.
    #[allow(clippy::too_many_arguments)]
    pub fn apply(
        &mut self,
        kind: &KindInfo,
        ns: Option<&str>,
        name: &str,
        config: &Value,
        manager: &str,
        force: bool,
        dry_run: bool,
    ) -> Result<Value, ApiError> {
        let bad = |message: String| ApiError {
            code: 400,
            reason: "BadRequest",
            message,
            details: json!({}),
        };
        if !config.is_object() {
            return Err(bad("the applied configuration must be an object".into()));
        }
        if config["apiVersion"] != kind.api_version().as_str() || config["kind"] != kind.kind.as_str() {
            return Err(bad(format!(
                "apiVersion and kind must be {} {}",
                kind.api_version(),
                kind.kind
            )));
        }
        if config["metadata"]["name"].as_str().is_some_and(|n| n != name) {
            return Err(bad("the name of the object does not match the name on the URL".into()));
        }
        let mut undeclared = Vec::new();
        schema::undeclared(config, &kind.schema, "", &mut undeclared);
        if let Some(field) = undeclared.first() {
            // What a real server answers under server-side apply, whatever fieldValidation says.
            return Err(ApiError {
                code: 500,
                reason: "InternalError",
                message: format!(
                    "failed to create typed patch object ({}/{}, Kind={}): {field}: field not declared in schema",
                    kind.group, kind.version, kind.kind
                ),
                details: json!({"causes": [{"message": format!("{field}: field not declared in schema")}]}),
            });
        }

        let k = key(kind, ns, name);
        let existing = self.objects.get(&k).cloned();
        let is_new = existing.is_none();
        let mut obj = existing.clone().unwrap_or_else(|| {
            let mut meta = Map::new();
            meta.insert("name".into(), name.into());
            if let Some(ns) = ns {
                meta.insert("namespace".into(), ns.into());
            }
            Object {
                value: json!({"apiVersion": kind.api_version(), "kind": kind.kind, "metadata": meta}),
                managers: vec![],
            }
        });
        let new_set = fields::leaves(config, &kind.schema);

        // Conflicts: another manager owns a field this apply sets to a different value.
        let mut conflicts = Vec::new();
        for e in &mut obj.managers {
            if e.manager == manager && e.operation == "Apply" {
                continue;
            }
            let shared: Vec<Path> = new_set.intersection(&e.fields).cloned().collect();
            for p in shared {
                if fields::get(&obj.value, &p) != fields::get(config, &p) {
                    if force {
                        e.fields.remove(&p);
                    } else {
                        conflicts.push((e.manager.clone(), p));
                    }
                }
            }
        }
        if !conflicts.is_empty() {
            let causes: Vec<Value> = conflicts
                .iter()
                .map(|(m, p)| json!({"reason": "FieldManagerConflict", "message": format!("conflict with \"{m}\""), "field": path_text(p)}))
                .collect();
            let list: Vec<String> = conflicts
                .iter()
                .map(|(m, p)| format!("conflict with \"{m}\": {}", path_text(p)))
                .collect();
            return Err(ApiError {
                code: 409,
                reason: "Conflict",
                message: format!(
                    "Apply failed with {} conflict{}: {}",
                    conflicts.len(),
                    if conflicts.len() == 1 { "" } else { "s" },
                    list.join(", ")
                ),
                details: details(kind, name, causes),
            });
        }

        // Fields this manager applied before and omits now go, unless someone else owns them.
        let old_set = obj
            .managers
            .iter()
            .find(|e| e.manager == manager && e.operation == "Apply")
            .map(|e| e.fields.clone())
            .unwrap_or_default();
        for removed in old_set.difference(&new_set) {
            let shared = obj
                .managers
                .iter()
                .any(|e| !(e.manager == manager && e.operation == "Apply") && e.fields.contains(removed));
            if !shared {
                fields::remove(&mut obj.value, removed);
            }
        }
        fields::merge(&mut obj.value, config, &kind.schema, true);
        obj.managers
            .retain(|e| !(e.manager == manager && e.operation == "Apply"));
        if !new_set.is_empty() {
            obj.managers.push(Entry {
                manager: manager.to_owned(),
                operation: "Apply",
                api_version: kind.api_version(),
                fields: new_set,
            });
        }
        self.finish(kind, name, obj, existing, is_new, dry_run, &k)
    }

    /// An update (JSON merge patch) by `manager`, as `kubectl edit` or a
    /// controller makes: it takes ownership of what it sets, without conflicts.
    pub fn update(
        &mut self,
        kind: &KindInfo,
        ns: Option<&str>,
        name: &str,
        patch: &Value,
        manager: &str,
    ) -> Result<Value, ApiError> {
        let k = key(kind, ns, name);
        let existing = self.objects.get(&k).cloned().ok_or_else(|| not_found(kind, name))?;
        let mut obj = existing.clone();
        merge_patch(&mut obj.value, patch);
        schema::prune(&mut obj.value, &kind.schema, true);
        let mut set_fields = FieldSet::new();
        let mut deleted = FieldSet::new();
        split_patch(patch, &kind.schema, &mut Vec::new(), &mut set_fields, &mut deleted);
        for e in &mut obj.managers {
            e.fields
                .retain(|p| !set_fields.contains(p) && !deleted.iter().any(|d| p.starts_with(d)));
        }
        match obj
            .managers
            .iter_mut()
            .find(|e| e.manager == manager && e.operation == "Update")
        {
            Some(e) => e.fields.extend(set_fields),
            None if !set_fields.is_empty() => {
                obj.managers.push(Entry {
                    manager: manager.to_owned(),
                    operation: "Update",
                    api_version: kind.api_version(),
                    fields: set_fields,
                });
            }
            None => {}
        }
        obj.managers.retain(|e| !e.fields.is_empty());
        self.finish(kind, name, obj, Some(existing), false, false, &k)
    }

    /// A write of the object's `status` (merge patch), as its controller makes
    /// through the status subresource: no field manager of the main resource
    /// gains or loses anything.
    pub fn set_status(
        &mut self,
        kind: &KindInfo,
        ns: Option<&str>,
        name: &str,
        status: &Value,
    ) -> Result<Value, ApiError> {
        let k = key(kind, ns, name);
        let existing = self.objects.get(&k).cloned().ok_or_else(|| not_found(kind, name))?;
        let mut obj = existing.clone();
        merge_patch(&mut obj.value, &json!({ "status": status }));
        schema::prune(&mut obj.value, &kind.schema, true);
        self.finish(kind, name, obj, Some(existing), false, false, &k)
    }

    /// Create (POST): undeclared fields are pruned, as a real server does outside apply.
    pub fn create(
        &mut self,
        kind: &KindInfo,
        ns: Option<&str>,
        body: &Value,
        manager: &str,
    ) -> Result<(Value, Vec<String>), ApiError> {
        let name = body["metadata"]["name"].as_str().unwrap_or_default().to_owned();
        let k = key(kind, ns, &name);
        if self.objects.contains_key(&k) {
            return Err(ApiError {
                code: 409,
                reason: "AlreadyExists",
                message: format!("{} \"{name}\" already exists", kind.resource()),
                details: details(kind, &name, vec![]),
            });
        }
        let mut warnings = Vec::new();
        schema::undeclared(body, &kind.schema, "", &mut warnings);
        let mut value = body.clone();
        schema::prune(&mut value, &kind.schema, true);
        if let Some(ns) = ns {
            value["metadata"]["namespace"] = ns.into();
        }
        let fields = fields::leaves(&value, &kind.schema);
        let obj = Object {
            value,
            managers: vec![Entry {
                manager: manager.to_owned(),
                operation: "Update",
                api_version: kind.api_version(),
                fields,
            }],
        };
        let out = self.finish(kind, &name, obj, None, true, false, &k)?;
        Ok((
            out,
            warnings
                .into_iter()
                .map(|f| format!("unknown field \"{}\"", f.trim_start_matches('.')))
                .collect(),
        ))
    }

    /// Defaults, validation, and bookkeeping shared by every write.
    #[allow(clippy::too_many_arguments)]
    fn finish(
        &mut self,
        kind: &KindInfo,
        name: &str,
        mut obj: Object,
        old: Option<Object>,
        is_new: bool,
        dry_run: bool,
        k: &Key,
    ) -> Result<Value, ApiError> {
        schema::apply_defaults(&mut obj.value, &kind.schema, true);
        // A new Pod starts Pending (kubernetes `pkg/registry/core/pod/strategy.go` `PrepareForCreate`).
        if is_new && kind.group.is_empty() && kind.kind == "Pod" && obj.value["status"]["phase"].is_null() {
            obj.value["status"]["phase"] = "Pending".into();
        }
        let mut causes = Vec::new();
        schema::validate(&obj.value, &kind.schema, "", &mut causes);
        if let Some(check) = kind.typed {
            causes.extend(check(&obj.value));
        }
        if !causes.is_empty() {
            let text: Vec<String> = causes.iter().map(|c| format!("{}: {}", c.field, c.message)).collect();
            let causes = causes
                .iter()
                .map(|c| json!({"reason": c.reason, "message": c.message, "field": c.field}))
                .collect();
            return Err(ApiError {
                code: 422,
                reason: "Invalid",
                message: format!(
                    "{}.{} \"{name}\" is invalid: {}",
                    kind.kind,
                    kind.group,
                    text.join(", ")
                ),
                details: details(kind, name, causes),
            });
        }
        let unchanged = old
            .as_ref()
            .is_some_and(|o| o.value == obj.value && fields_eq(&o.managers, &obj.managers));
        if !unchanged {
            let spec_changed = old
                .as_ref()
                .is_some_and(|o| o.value.get("spec") != obj.value.get("spec"));
            let meta = &mut obj.value["metadata"];
            if is_new {
                self.uids += 1;
                meta["uid"] = format!("00000000-0000-4000-8000-{:012x}", self.uids).into();
                meta["creationTimestamp"] = "2026-11-29T00:00:00Z".into();
                meta["generation"] = 1.into();
            } else if spec_changed {
                let g = meta["generation"].as_i64().unwrap_or(0) + 1;
                meta["generation"] = g.into();
            }
            if !dry_run {
                obj.value["metadata"]["resourceVersion"] = self.next_revision().into();
            }
        }
        let out = self.render(&obj);
        // The last finalizer of an object being deleted is gone: the object goes.
        let finalized = !obj.value["metadata"]["deletionTimestamp"].is_null()
            && obj.value["metadata"]["finalizers"]
                .as_array()
                .is_none_or(|f| f.is_empty());
        if finalized && !dry_run {
            self.objects.remove(k);
        } else if !dry_run {
            self.objects.insert(k.clone(), obj);
        }
        Ok(out)
    }
}

fn fields_eq(a: &[Entry], b: &[Entry]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.manager == y.manager && x.operation == y.operation && x.fields == y.fields)
}

/// RFC 7386 JSON merge patch.
fn merge_patch(target: &mut Value, patch: &Value) {
    match patch {
        Value::Object(p) => {
            if !target.is_object() {
                *target = Value::Object(Map::new());
            }
            if let Value::Object(t) = target {
                for (k, v) in p {
                    if v.is_null() {
                        t.remove(k);
                    } else {
                        merge_patch(t.entry(k.clone()).or_insert(Value::Null), v);
                    }
                }
            }
        }
        other => *target = other.clone(),
    }
}

/// The leaf paths a merge patch sets, and those it deletes (nulls).
fn split_patch(patch: &Value, schema: &Value, prefix: &mut Path, set: &mut FieldSet, deleted: &mut FieldSet) {
    match patch {
        Value::Object(m) if !m.is_empty() => {
            for (k, v) in m {
                let child = schema::child(schema, k, prefix.is_empty())
                    .cloned()
                    .unwrap_or(Value::Null);
                prefix.push(PathElem::Field(k.clone()));
                if v.is_null() {
                    deleted.insert(prefix.clone());
                } else if v.is_object() && schema::atomic_map(&child) {
                    // A change inside an atomic map takes the whole map, as on a real server.
                    set.insert(prefix.clone());
                } else if v.is_object() {
                    split_patch(v, &child, prefix, set, deleted);
                } else {
                    set.extend(
                        fields::leaves(v, &child)
                            .into_iter()
                            .map(|p| [prefix.clone(), p].concat()),
                    );
                }
                prefix.pop();
            }
        }
        _ => {
            set.insert(prefix.clone());
        }
    }
}

#[cfg(test)]
mod tests;
