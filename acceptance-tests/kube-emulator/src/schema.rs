//! OpenAPI v3 structural schemas as a real API server applies them to custom
//! resources: unknown fields, defaults, and validation (types, enums,
//! required, patterns, lengths, bounds). CEL `x-kubernetes-validations` are
//! not evaluated.

use std::sync::OnceLock;

use serde_json::{Value, json};

/// How a list merges under server-side apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListType {
    Atomic,
    Map(Vec<String>),
    Set,
}

/// A validation failure, in the shape of a `StatusCause`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cause {
    pub reason: &'static str,
    pub field: String,
    pub message: String,
}

/// What the API server validates `metadata` against (ObjectMeta's fields that
/// clients set); the CRD schema only says `type: object`.
fn metadata_schema() -> &'static Value {
    static META: OnceLock<Value> = OnceLock::new();
    META.get_or_init(|| {
        let map = json!({"type": "object", "additionalProperties": {"type": "string"}});
        json!({"type": "object", "properties": {
            "name": {"type": "string"}, "namespace": {"type": "string"}, "generateName": {"type": "string"},
            "labels": map, "annotations": map, "finalizers": {"type": "array", "items": {"type": "string"}},
            "uid": {"type": "string"}, "resourceVersion": {"type": "string"}, "generation": {"type": "integer"},
            "creationTimestamp": {"type": "string"}, "managedFields": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
            "ownerReferences": {"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
            "deletionTimestamp": {"type": "string"}
        }})
    })
}

fn permissive() -> &'static Value {
    static ANY: OnceLock<Value> = OnceLock::new();
    ANY.get_or_init(|| json!({"x-kubernetes-preserve-unknown-fields": true}))
}

/// The schema of field `name` inside an object schema; `None` when not declared.
pub fn child<'a>(schema: &'a Value, name: &str, at_root: bool) -> Option<&'a Value> {
    if at_root && name == "metadata" {
        return Some(metadata_schema());
    }
    if let Some(s) = schema["properties"].get(name) {
        return Some(s);
    }
    match &schema["additionalProperties"] {
        Value::Object(_) => Some(&schema["additionalProperties"]),
        Value::Bool(true) => Some(permissive()),
        _ if schema["x-kubernetes-preserve-unknown-fields"] == true => Some(permissive()),
        _ => None,
    }
}

pub fn items(schema: &Value) -> &Value {
    match &schema["items"] {
        Value::Null => permissive(),
        s => s,
    }
}

/// Whether an object is one field under server-side apply: a map or struct
/// the schema declares `x-kubernetes-map-type: atomic` (the Karpenter
/// NodePool's `spec.template.metadata.labels`, for one). Others are granular.
pub fn atomic_map(schema: &Value) -> bool {
    schema["x-kubernetes-map-type"] == "atomic"
}

pub fn list_type(schema: &Value) -> ListType {
    match schema["x-kubernetes-list-type"].as_str() {
        Some("map") => ListType::Map(
            schema["x-kubernetes-list-map-keys"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|k| k.as_str().map(str::to_owned))
                .collect(),
        ),
        Some("set") => ListType::Set,
        // CRD lists without a list type are atomic.
        _ => ListType::Atomic,
    }
}

fn field_path(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_owned()
    } else {
        format!("{parent}.{name}")
    }
}

/// Fields that are not in the schema. Server-side apply refuses them (500
/// "field not declared in schema"); create and update prune them with a warning.
pub fn undeclared(value: &Value, schema: &Value, path: &str, out: &mut Vec<String>) {
    if schema["x-kubernetes-preserve-unknown-fields"] == true && schema["properties"].is_null() {
        return;
    }
    match value {
        Value::Object(m) => {
            for (k, v) in m {
                match child(schema, k, path.is_empty()) {
                    Some(s) => undeclared(v, s, &field_path(path, k), out),
                    None if schema["x-kubernetes-preserve-unknown-fields"] == true => {}
                    None => out.push(format!(".{}", field_path(path, k))),
                }
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                undeclared(v, items(schema), &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// Removes undeclared fields, as create and update do.
pub fn prune(value: &mut Value, schema: &Value, at_root: bool) {
    if schema["x-kubernetes-preserve-unknown-fields"] == true && schema["properties"].is_null() {
        return;
    }
    match value {
        Value::Object(m) => {
            let keep_unknown = schema["x-kubernetes-preserve-unknown-fields"] == true;
            m.retain(|k, _| keep_unknown || child(schema, k, at_root).is_some());
            for (k, v) in m.iter_mut() {
                if let Some(s) = child(schema, k, at_root) {
                    prune(v, s, false);
                }
            }
        }
        Value::Array(a) => {
            for v in a {
                prune(v, items(schema), false);
            }
        }
        _ => {}
    }
}

/// Applies schema defaults top-down: a missing property with a default gets
/// it, and defaults inside it apply too (apiextensions structural defaulting).
pub fn apply_defaults(value: &mut Value, schema: &Value, at_root: bool) {
    match value {
        Value::Object(m) => {
            if let Some(props) = schema["properties"].as_object() {
                for (k, s) in props {
                    if !m.contains_key(k)
                        && let Some(d) = s.get("default")
                    {
                        m.insert(k.clone(), d.clone());
                    }
                }
            }
            let keys: Vec<String> = m.keys().cloned().collect();
            for k in keys {
                if let (Some(s), Some(v)) = (child(schema, &k, at_root), m.get_mut(&k)) {
                    apply_defaults(v, s, false);
                }
            }
        }
        Value::Array(a) => {
            for v in a {
                apply_defaults(v, items(schema), false);
            }
        }
        _ => {}
    }
}

/// Validates `value` against `schema`, collecting causes.
pub fn validate(value: &Value, schema: &Value, path: &str, out: &mut Vec<Cause>) {
    let is_root = path.is_empty();
    if value.is_null() {
        if schema["nullable"] != true && !schema["type"].is_null() {
            out.push(Cause {
                reason: "FieldValueTypeInvalid",
                field: path.to_owned(),
                message: "Invalid value: \"null\": must not be null".into(),
            });
        }
        return;
    }
    if !type_ok(value, schema) {
        let expected = schema["type"].as_str().unwrap_or("value");
        out.push(Cause {
            reason: "FieldValueTypeInvalid",
            field: path.to_owned(),
            message: format!(
                "Invalid value: {}: {path} in body must be of type {expected}",
                kind_name(value)
            ),
        });
        return;
    }
    if let Some(allowed) = schema["enum"].as_array()
        && !allowed.contains(value)
    {
        let list: Vec<String> = allowed.iter().map(Value::to_string).collect();
        out.push(Cause {
            reason: "FieldValueNotSupported",
            field: path.to_owned(),
            message: format!("Unsupported value: {value}: supported values: {}", list.join(", ")),
        });
    }
    match value {
        Value::String(s) => {
            if let Some(p) = schema["pattern"].as_str()
                && let Ok(re) = regex::Regex::new(p)
                && !re.is_match(s)
            {
                out.push(Cause {
                    reason: "FieldValueInvalid",
                    field: path.to_owned(),
                    message: format!("Invalid value: {value}: {path} in body should match '{p}'"),
                });
            }
            if let Some(max) = schema["maxLength"].as_u64()
                && s.chars().count() as u64 > max
            {
                out.push(Cause {
                    reason: "FieldValueTooLong",
                    field: path.to_owned(),
                    message: format!("Too long: may not be more than {max} bytes"),
                });
            }
        }
        Value::Number(n) => {
            if let (Some(min), Some(x)) = (schema["minimum"].as_f64(), n.as_f64())
                && x < min
            {
                out.push(Cause {
                    reason: "FieldValueInvalid",
                    field: path.to_owned(),
                    message: format!("Invalid value: {n}: {path} in body should be greater than or equal to {min}"),
                });
            }
            if let (Some(max), Some(x)) = (schema["maximum"].as_f64(), n.as_f64())
                && x > max
            {
                out.push(Cause {
                    reason: "FieldValueInvalid",
                    field: path.to_owned(),
                    message: format!("Invalid value: {n}: {path} in body should be less than or equal to {max}"),
                });
            }
        }
        Value::Array(a) => {
            if let Some(max) = schema["maxItems"].as_u64()
                && a.len() as u64 > max
            {
                out.push(Cause {
                    reason: "FieldValueTooMany",
                    field: path.to_owned(),
                    message: format!("Too many: {}: must have at most {max} items", a.len()),
                });
            }
            if let Some(min) = schema["minItems"].as_u64()
                && (a.len() as u64) < min
            {
                out.push(Cause {
                    reason: "FieldValueInvalid",
                    field: path.to_owned(),
                    message: format!("Invalid value: {path} in body should have at least {min} items"),
                });
            }
            for (i, v) in a.iter().enumerate() {
                validate(v, items(schema), &format!("{path}[{i}]"), out);
            }
        }
        Value::Object(m) => {
            for r in schema["required"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                if !m.contains_key(r) {
                    out.push(Cause {
                        reason: "FieldValueRequired",
                        field: field_path(path, r),
                        message: "Required value".into(),
                    });
                }
            }
            for (k, v) in m {
                if let Some(s) = child(schema, k, is_root) {
                    validate(v, s, &field_path(path, k), out);
                }
            }
        }
        _ => {}
    }
}

fn type_ok(value: &Value, schema: &Value) -> bool {
    if schema["x-kubernetes-int-or-string"] == true {
        return value.is_string() || value.is_i64() || value.is_u64();
    }
    match schema["type"].as_str() {
        Some("string") => value.is_string(),
        Some("integer") => value.is_i64() || value.is_u64(),
        Some("number") => value.is_number(),
        Some("boolean") => value.is_boolean(),
        Some("array") => value.is_array(),
        Some("object") => value.is_object(),
        _ => true,
    }
}

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "\"null\"",
        Value::Bool(_) => "\"boolean\"",
        Value::Number(_) => "\"number\"",
        Value::String(_) => "\"string\"",
        Value::Array(_) => "\"array\"",
        Value::Object(_) => "\"object\"",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nodepool_schema() -> Value {
        crate::kinds::Registry::builtin()
            .find("karpenter.sh", "nodepools")
            .unwrap()
            .schema
            .clone()
    }

    #[test]
    fn karpenter_defaults_match_a_real_server() {
        let mut v = json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "x"},
            "spec": {"template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "x"}, "requirements": []}},
                     "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "5m"}}});
        apply_defaults(&mut v, &nodepool_schema(), true);
        assert_eq!(v["spec"]["disruption"]["budgets"], json!([{"nodes": "10%"}]));
        assert_eq!(v["spec"]["template"]["spec"]["expireAfter"], "720h");
    }

    #[test]
    fn enums_and_undeclared_fields() {
        let s = nodepool_schema();
        let v = json!({"spec": {"disruption": {"consolidationPolicy": "WhenUnderutilized", "consolidateAfter": "5m"}, "template": {"spec": {"kubelet": {"maxPods": 110}}}}});
        let mut causes = Vec::new();
        validate(
            &v["spec"]["disruption"],
            &s["properties"]["spec"]["properties"]["disruption"],
            "spec.disruption",
            &mut causes,
        );
        assert_eq!(causes[0].reason, "FieldValueNotSupported");
        let mut unknown = Vec::new();
        undeclared(&v, &s, "", &mut unknown);
        assert_eq!(unknown, [".spec.template.spec.kubelet"]);
    }
}
