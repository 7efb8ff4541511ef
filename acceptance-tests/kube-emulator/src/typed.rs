//! The built-in kinds the emulator serves (`apps/v1` DaemonSet, Deployment, core `v1` Pod), judged against
//! Kubernetes' own types rather than a CRD schema: each object must deserialize into the
//! k8s-openapi 0.29 type of its kind (Kubernetes 1.33 API: wrong types, missing required fields
//! fail), and every field it sets must survive the round trip through that type, so a field the
//! API does not have (a misspelt `tolerations`, `limits` straight in a container) is refused as a real
//! API server refuses it (`strict` field validation, `kubectl apply --validate=strict`). What the
//! real API server lane cannot judge (it serves no built-in kinds), the emulator judges so in
//! both lanes.

use serde_json::Value;

use crate::schema::Cause;

/// A validator of one kind: the causes of a refusal, empty when the object is valid.
pub type Check = fn(&Value) -> Vec<Cause>;

fn strict<T: serde::de::DeserializeOwned + serde::Serialize>(v: &Value) -> Vec<Cause> {
    // What the server itself sets and a client may send back: not part of the judgement.
    let mut body = v.clone();
    if let Some(m) = body["metadata"].as_object_mut() {
        for k in [
            "managedFields",
            "resourceVersion",
            "uid",
            "creationTimestamp",
            "generation",
        ] {
            m.remove(k);
        }
    }
    if let Some(o) = body.as_object_mut() {
        o.remove("status");
    }
    let typed: T = match serde_json::from_value(body.clone()) {
        Ok(t) => t,
        Err(e) => {
            return vec![Cause {
                reason: "FieldValueInvalid",
                field: String::new(),
                message: e.to_string(),
            }];
        }
    };
    let back = serde_json::to_value(&typed).unwrap_or(Value::Null);
    let mut out = Vec::new();
    unknown(&body, &back, "", &mut out);
    out
}

/// Fields of `sent` the typed round trip dropped.
fn unknown(sent: &Value, back: &Value, path: &str, out: &mut Vec<Cause>) {
    match (sent, back) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                let p = format!("{path}.{k}");
                match b.get(k) {
                    Some(w) => unknown(v, w, &p, out),
                    // An empty object or list the type writes back as absent is no field.
                    None if v.as_object().is_some_and(|o| o.is_empty())
                        || v.as_array().is_some_and(|a| a.is_empty())
                        || v.is_null() => {}
                    None => out.push(Cause {
                        reason: "FieldValueInvalid",
                        field: p.trim_start_matches('.').to_owned(),
                        message: format!("unknown field \"{}\"", p.trim_start_matches('.')),
                    }),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for (i, (v, w)) in a.iter().zip(b).enumerate() {
                unknown(v, w, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

pub fn daemon_set(v: &Value) -> Vec<Cause> {
    strict::<k8s_openapi::api::apps::v1::DaemonSet>(v)
}

pub fn deployment(v: &Value) -> Vec<Cause> {
    strict::<k8s_openapi::api::apps::v1::Deployment>(v)
}

/// Core `v1` Pod (the capacity probe's placeholder pod); its status is the simulation's.
pub fn pod(v: &Value) -> Vec<Cause> {
    strict::<k8s_openapi::api::core::v1::Pod>(v)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn a_field_the_api_lacks_is_refused_and_a_valid_object_passes() {
        let ok = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}, "spec": {
            "selector": {"matchLabels": {"app": "d"}},
            "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "c", "image": "i",
                "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}}});
        assert!(super::deployment(&ok).is_empty());
        let mut bad = ok.clone();
        bad["spec"]["template"]["spec"]["tolerashuns"] = json!([]);
        // Limits straight in the container, not under its `resources`.
        bad["spec"]["template"]["spec"]["containers"][0]["limits"] = json!({"nvidia.com/gpu": "1"});
        let causes = super::deployment(&bad);
        assert_eq!(
            causes.len(),
            1,
            "an empty list is no field: {:?}",
            causes.iter().map(|c| &c.message).collect::<Vec<_>>()
        );
        assert_eq!(causes[0].field, "spec.template.spec.containers[0].limits");
        let mut wrong = ok;
        wrong["spec"]["replicas"] = json!("two");
        assert!(!super::deployment(&wrong).is_empty());
    }
}
