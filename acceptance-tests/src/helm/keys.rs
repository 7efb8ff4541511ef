//! Keys a chart does not read. Helm ignores them without a word (a misspelt `tolerations` is a
//! value nobody reads, and the chart's default stays), so the lane fails on them: every key path
//! of the values must be in the chart's `values.yaml` (subcharts' under their names, as Helm
//! merges them) or its `values.schema.json`, or lie below a free-form map, or be one of the
//! chart's [`later_keys`](super::Chart::later_keys).

use serde_json::Value;

use super::{Chart, Rendered};

/// Values that take a Kubernetes type (checked by the API server's schema, not the chart's
/// `values.yaml`) or a map of the user's own names: whatever sits below them is the user's.
const FREE_FORM: &[&str] = &[
    "affinity",
    "nodeSelector",
    "tolerations",
    "resources",
    "securityContext",
    "podSecurityContext",
    "annotations",
    "labels",
    "podAnnotations",
    "env",
];

/// The unknown key paths of `r.values`, dotted (`devicePlugin.tolerations`).
pub fn unknown(r: &Rendered, chart: &Chart) -> Vec<String> {
    let allowed: Vec<&str> = chart.later_keys.iter().map(|(k, _)| *k).collect();
    let mut out = Vec::new();
    let schema = r.schemas.get("");
    walk(&r.values, Some(&r.defaults), schema, "", &allowed, r, &mut out);
    out
}

fn walk(
    values: &Value,
    defaults: Option<&Value>,
    schema: Option<&Value>,
    path: &str,
    allowed: &[&str],
    r: &Rendered,
    out: &mut Vec<String>,
) {
    let Value::Object(values) = values else {
        return;
    };
    for (k, v) in values {
        let p = if path.is_empty() {
            k.clone()
        } else {
            format!("{path}.{k}")
        };
        if allowed.contains(&p.as_str()) {
            continue;
        }
        let d = defaults.and_then(|d| d.get(k));
        // A subchart's values sit under its name, with its own schema.
        let s = if path.is_empty() && r.schemas.contains_key(k) {
            r.schemas.get(k)
        } else {
            schema.and_then(|s| property(s, k))
        };
        if d.is_none() && s.is_none() {
            // A map only later chart versions read: its allowed keys pass, any other does not.
            let prefix = format!("{p}.");
            if allowed.iter().any(|a| a.starts_with(&prefix)) {
                walk(v, None, None, &p, allowed, r, out);
            } else {
                out.push(p);
            }
            continue;
        }
        if FREE_FORM.contains(&k.as_str()) || is_free(d, s) {
            continue;
        }
        walk(v, d, s, &p, allowed, r, out);
    }
}

/// A default of `{}` or `null` documents a map of anything (`featureGates: {}`,
/// `selectorLabelsOverride: {}`); so does a schema object with no `properties`.
fn is_free(d: Option<&Value>, s: Option<&Value>) -> bool {
    let default_free = match d {
        None => true,
        Some(Value::Object(m)) => m.is_empty(),
        Some(Value::Null) => true,
        Some(_) => false,
    };
    let schema_free = s.is_none_or(|s| s.get("properties").is_none());
    default_free && schema_free
}

/// The schema of property `k` of object schema `s` (`properties`, else an
/// `additionalProperties` schema).
fn property<'a>(s: &'a Value, k: &str) -> Option<&'a Value> {
    s.get("properties")
        .and_then(|p| p.get(k))
        .or_else(|| s.get("additionalProperties").filter(|a| a.is_object()))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rendered(values: Value, defaults: Value) -> Rendered {
        Rendered {
            values,
            objects: Vec::new(),
            defaults,
            schemas: serde_json::Map::new(),
        }
    }

    #[test]
    fn a_misspelt_key_is_unknown_and_known_ones_pass() {
        let defaults = json!({"devicePlugin": {"enabled": true, "config": {"name": "", "default": ""}}, "daemonsets": {"tolerations": []}});
        let r = rendered(
            json!({"devicePlugin": {"enabled": true, "config": {"name": "x", "defualt": ""}}, "daemonset": {"tolerations": []}}),
            defaults,
        );
        assert_eq!(
            unknown(&r, &crate::helm::GPU_OPERATOR),
            vec!["devicePlugin.config.defualt", "daemonset"]
        );
    }

    #[test]
    fn free_form_maps_take_any_key_and_later_keys_are_allowed() {
        let r = rendered(
            json!({"featureGates": {"MPSSupport": true}, "kubeletPlugin": {"affinity": {"podAntiAffinity": {}}},
                   "devicePlugin": {"enabled": false}, "draDriver": {"enabled": false, "tolerations": []}}),
            json!({"featureGates": {}, "kubeletPlugin": {"affinity": {"nodeAffinity": {}}}, "devicePlugin": {"image": {}}}),
        );
        assert_eq!(unknown(&r, &crate::helm::NEURON), Vec::<String>::new());
        // Without the Neuron chart's allowlist, draDriver is unknown.
        assert_eq!(
            unknown(&r, &crate::helm::HAMI),
            vec!["devicePlugin.enabled", "draDriver"]
        );
    }

    #[test]
    fn a_subchart_key_is_checked_against_its_defaults_and_schema() {
        let mut r = rendered(
            json!({"node-feature-discovery": {"worker": {"tolerations": [], "tolerashuns": []}, "gc": {"interval": "1h"}}}),
            json!({"node-feature-discovery": {"worker": {"tolerations": []}}}),
        );
        r.schemas.insert(
            "node-feature-discovery".into(),
            json!({"properties": {"gc": {"properties": {"interval": {"type": "string"}}}}}),
        );
        assert_eq!(
            unknown(&r, &crate::helm::GPU_OPERATOR),
            vec!["node-feature-discovery.worker.tolerashuns"]
        );
    }
}
