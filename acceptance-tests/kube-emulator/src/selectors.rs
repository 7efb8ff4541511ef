//! Field selectors on LIST (`?fieldSelector=involvedObject.name=x,involvedObject.kind=Pod`), as a
//! real API server evaluates them: comma-joined `=`, `==` or `!=` terms over the fields a kind
//! declares selectable. Every kind selects on `metadata.name` and `metadata.namespace`
//! (k8s.io/apimachinery `pkg/runtime/conversion.go` `DefaultMetaV1FieldSelectorConversion`); an
//! Event also on its `involvedObject.*`, `reason`, `reportingComponent`, `source` and `type`
//! (kubernetes `pkg/apis/core/v1/conversion.go`, the Event field label conversion, v1.33), a Pod
//! on the `spec`/`status` fields of that file's Pod conversion. Any other
//! field is refused with 400 `field label not supported: F`, the text of that conversion.

use serde_json::{Value, json};

use crate::kinds::KindInfo;
use crate::store::ApiError;

/// One term: the field path, the value, and whether it must equal (`=`, `==`) or differ (`!=`).
#[derive(Debug, PartialEq)]
struct Term<'a> {
    field: &'a str,
    value: &'a str,
    equal: bool,
}

const EVENT_FIELDS: [&str; 11] = [
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type",
];

const POD_FIELDS: [&str; 8] = [
    "spec.nodeName",
    "spec.restartPolicy",
    "spec.schedulerName",
    "spec.serviceAccountName",
    "status.phase",
    "status.podIP",
    "status.nominatedNodeName",
    "spec.hostNetwork",
];

fn supported(kind: &KindInfo, field: &str) -> bool {
    matches!(field, "metadata.name" | "metadata.namespace")
        || (kind.group.is_empty() && kind.kind == "Event" && EVENT_FIELDS.contains(&field))
        || (kind.group.is_empty() && kind.kind == "Pod" && POD_FIELDS.contains(&field))
}

fn bad(message: String) -> ApiError {
    ApiError {
        code: 400,
        reason: "BadRequest",
        message,
        details: json!({}),
    }
}

fn parse<'a>(kind: &KindInfo, selector: &'a str) -> Result<Vec<Term<'a>>, ApiError> {
    let mut terms = Vec::new();
    for t in selector.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        let (field, value, equal) = if let Some((f, v)) = t.split_once("!=") {
            (f, v, false)
        } else if let Some((f, v)) = t.split_once("==") {
            (f, v, true)
        } else if let Some((f, v)) = t.split_once('=') {
            (f, v, true)
        } else {
            return Err(bad(format!("invalid selector: '{selector}'; can't understand '{t}'")));
        };
        let field = field.trim();
        if !supported(kind, field) {
            return Err(bad(format!("field label not supported: {field}")));
        }
        terms.push(Term {
            field,
            value: value.trim(),
            equal,
        });
    }
    Ok(terms)
}

/// The value a field path names in an object ("" when absent, as the server's field set has it;
/// an Event's `source` is its `source.component`).
fn field_value(obj: &Value, field: &str) -> String {
    let path = if field == "source" { "source.component" } else { field };
    let mut v = obj;
    for seg in path.split('.') {
        v = &v[seg];
    }
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The items that match `selector` (empty: all), or the refusal a real server answers.
pub fn filter(kind: &KindInfo, items: Vec<Value>, selector: &str) -> Result<Vec<Value>, ApiError> {
    let terms = parse(kind, selector)?;
    Ok(items
        .into_iter()
        .filter(|o| terms.iter().all(|t| (field_value(o, t.field) == t.value) == t.equal))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kinds::Registry;

    fn event(name: &str, kind: &str, involved: &str) -> Value {
        json!({"metadata": {"name": name, "namespace": "default"}, "reason": "Launched", "type": "Normal",
               "source": {"component": "karpenter"},
               "involvedObject": {"kind": kind, "name": involved, "namespace": "default"}})
    }

    #[test]
    fn event_fields_select_and_unknown_fields_are_refused() {
        let r = Registry::builtin();
        let events = r.find("", "events").unwrap();
        let items = vec![
            event("a", "Pod", "probe"),
            event("b", "NodeClaim", "probe"),
            event("c", "Pod", "other"),
        ];
        let names = |sel: &str| -> Vec<String> {
            filter(events, items.clone(), sel)
                .unwrap()
                .iter()
                .map(|o| o["metadata"]["name"].as_str().unwrap().to_owned())
                .collect()
        };
        assert_eq!(names(""), ["a", "b", "c"]);
        assert_eq!(names("involvedObject.name=probe"), ["a", "b"]);
        assert_eq!(names("involvedObject.name=probe,involvedObject.kind=Pod"), ["a"]);
        assert_eq!(names("involvedObject.kind==NodeClaim"), ["b"]);
        assert_eq!(names("involvedObject.name!=probe"), ["c"]);
        assert_eq!(names("involvedObject.namespace=default,metadata.name=c"), ["c"]);
        assert_eq!(names("source=karpenter,type=Warning"), Vec::<String>::new());
        let e = filter(events, items.clone(), "spec.nodeName=x").unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (400, "field label not supported: spec.nodeName")
        );
        assert_eq!(
            filter(events, items.clone(), "involvedObject.name").unwrap_err().code,
            400
        );
        // A kind other than Event selects on metadata only.
        let pods = r.find("", "pods").unwrap();
        assert_eq!(filter(pods, items.clone(), "metadata.name=a").unwrap().len(), 1);
        assert_eq!(filter(pods, items, "involvedObject.name=probe").unwrap_err().code, 400);
    }
}
