//! What renders means what the configuration says: each check reads the resource's own inputs
//! (pools, capacity kinds, taints, labels) and the objects the chart rendered, and matches them
//! the way Kubernetes does (a toleration against a taint, node affinity and node selectors
//! against a node's labels). The provider's renderer is not consulted.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Chart, Record, Rendered};

mod device_plugin;
mod hami;
mod neuron;
mod nvidia;
mod stack;

/// What the checks of one render found.
#[derive(Debug, Default)]
pub struct Found {
    pub problems: Vec<String>,
    /// Rules this chart version cannot show (printed with the lane's counts).
    pub not_judged: Vec<String>,
}

/// The checks for `attribute` of `record` through `chart`; `inputs` are the renders of a
/// `eksgpu_gpu_stack`'s strategies' values through the same chart.
pub fn check(record: &Record, attribute: &str, chart: &Chart, r: &Rendered, inputs: &[&Rendered]) -> Found {
    let mut f = Found::default();
    if record.kind == "eksgpu_gpu_stack" {
        stack::stack(chart, r, inputs, &mut f);
        return f;
    }
    match (record.kind.as_str(), attribute) {
        ("eksgpu_node_strategy", "gpu_operator_values_yaml") => nvidia::gpu_operator(&pools(record), r, &mut f),
        ("eksgpu_node_strategy", "dra_driver_values_yaml") => {
            nvidia::dra_driver(&pools(record), has_block(record, "gpu_operator"), r, &mut f)
        }
        ("eksgpu_node_strategy", "neuron_values_yaml") => neuron::neuron(&pools(record), r, &mut f),
        ("eksgpu_node_strategy", "device_plugin_values_yaml") => {
            device_plugin::device_plugin(&pools(record), r, &mut f)
        }
        ("eksgpu_sharing_pool", "hami_values_yaml") => hami::hami(record, r, &mut f),
        (kind, attribute) => f.problems.push(format!("no meaning check for {kind}.{attribute}")),
    }
    f
}

/// A strategy's pool as the checks need it, from its attributes.
#[derive(Debug)]
pub struct PoolView {
    pub name: String,
    pub capacity: String,
    pub neuron: bool,
    pub dra: bool,
    pub multi_node_nvlink: bool,
    /// Its nodes run Bottlerocket (a `bottlerocket@…` alias, a `BOTTLEROCKET_*` AMI type), whose
    /// NVIDIA variants bring their own device plugin.
    pub bottlerocket: bool,
    pub instance_types: Vec<String>,
    pub labels: BTreeMap<String, String>,
    /// The labels its nodes carry: the pool's `labels`, the selector label of its capacity
    /// kind, and `eks.amazonaws.com/compute-type` on Auto Mode and hybrid nodes.
    pub node_labels: BTreeMap<String, String>,
    /// `(key, value, effect)` of every taint its nodes carry.
    pub taints: Vec<(String, Option<String>, String)>,
}

/// The resource has the nested block `name` (Terraform holds blocks as lists of objects).
fn has_block(record: &Record, name: &str) -> bool {
    match &record.attributes[name] {
        Value::Array(a) => !a.is_empty(),
        Value::Null => false,
        _ => true,
    }
}

fn strings(v: &Value) -> BTreeMap<String, String> {
    v.as_object()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_owned())))
        .collect()
}

pub fn pools(record: &Record) -> Vec<PoolView> {
    let mut out = Vec::new();
    let pools: Vec<(String, Value)> = record.attributes["pools"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    for (name, p) in pools {
        let neuron = p["accelerator"] == "neuron";
        let capacity = p["capacity"].as_str().unwrap_or_default().to_owned();
        let labels = strings(&p["labels"]);
        let mut node_labels = labels.clone();
        node_labels.extend(strings(&p["node_selector"]));
        match capacity.as_str() {
            // EKS Auto Mode nodes (EKS user guide, Auto Mode supported labels) and hybrid nodes
            // (EKS Hybrid Nodes: `eks.amazonaws.com/compute-type=hybrid`).
            "auto_mode" => {
                node_labels.insert("eks.amazonaws.com/compute-type".into(), "auto".into());
            }
            "hybrid" => {
                node_labels.insert("eks.amazonaws.com/compute-type".into(), "hybrid".into());
            }
            _ => {}
        }
        let mut taints: Vec<(String, Option<String>, String)> = p["taints"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| {
                (
                    t["key"].as_str().unwrap_or_default().to_owned(),
                    t["value"].as_str().filter(|v| !v.is_empty()).map(str::to_owned),
                    t["effect"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect();
        // `gpu_taint` (default on): `nvidia.com/gpu=true:NoSchedule`, on Neuron pools
        // `aws.amazon.com/neuron:NoSchedule` (docs/resources/node_strategy.md).
        let (key, value) = if neuron {
            ("aws.amazon.com/neuron", None)
        } else {
            ("nvidia.com/gpu", Some("true".to_owned()))
        };
        if p["gpu_taint"] != false && !taints.iter().any(|t| t.0 == key) {
            taints.insert(0, (key.to_owned(), value, "NoSchedule".to_owned()));
        }
        out.push(PoolView {
            name,
            capacity,
            neuron,
            dra: p["dra"] == true,
            multi_node_nvlink: p["multi_node_nvlink"] == true,
            bottlerocket: p["node_class"]["ami_alias"]
                .as_str()
                .is_some_and(|a| a.starts_with("bottlerocket@"))
                || p["managed_node_group"]["ami_type"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("BOTTLEROCKET_")),
            instance_types: p["instance_types"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| t.as_str().map(str::to_owned))
                .collect(),
            labels,
            node_labels,
            taints,
        });
    }
    out
}

/// Whether `tolerations` let a pod onto a node with `taint` (Kubernetes
/// `Toleration.ToleratesTaint`, k8s.io/api core/v1 toleration.go).
pub fn tolerates(tolerations: &Value, taint: &(String, Option<String>, String)) -> bool {
    tolerations.as_array().into_iter().flatten().any(|t| {
        let effect = t["effect"].as_str().unwrap_or_default();
        if !effect.is_empty() && effect != taint.2 {
            return false;
        }
        let key = t["key"].as_str().unwrap_or_default();
        let op = t["operator"].as_str().unwrap_or("Equal");
        if key.is_empty() {
            return op == "Exists";
        }
        key == taint.0
            && (op == "Exists" || t["value"].as_str().unwrap_or_default() == taint.1.as_deref().unwrap_or_default())
    })
}

/// Whether a pod spec's node affinity (required terms) and node selector admit a node with
/// `labels` (Kubernetes `nodeaffinity.NodeSelector` semantics: terms ORed, expressions ANDed).
pub fn lands_on(spec: &Value, labels: &BTreeMap<String, String>) -> bool {
    let selector_ok = strings(&spec["nodeSelector"])
        .iter()
        .all(|(k, v)| labels.get(k) == Some(v));
    let terms =
        &spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
    let affinity_ok = match terms.as_array() {
        None => true,
        Some(terms) => terms.iter().any(|term| {
            term["matchExpressions"].as_array().into_iter().flatten().all(|e| {
                let key = e["key"].as_str().unwrap_or_default();
                let values: Vec<&str> = e["values"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect();
                let have = labels.get(key).map(String::as_str);
                match e["operator"].as_str().unwrap_or_default() {
                    "In" => have.is_some_and(|h| values.contains(&h)),
                    "NotIn" => have.is_none_or(|h| !values.contains(&h)),
                    "Exists" => have.is_some(),
                    "DoesNotExist" => have.is_none(),
                    _ => false,
                }
            })
        }),
    };
    selector_ok && affinity_ok
}

fn pod_spec(o: &Value) -> &Value {
    &o["spec"]["template"]["spec"]
}

/// The one object of `kind` from `template`, or a problem.
fn one<'a>(r: &'a Rendered, kind: &str, template: &str, f: &mut Found) -> Option<&'a Value> {
    let found = r.objects(kind, template);
    if found.len() == 1 {
        Some(found[0])
    } else {
        f.problems
            .push(format!("{} {kind} objects from {template}, expected one", found.len()));
        None
    }
}

fn taint_text(t: &(String, Option<String>, String)) -> String {
    match &t.1 {
        Some(v) => format!("{}={v}:{}", t.0, t.2),
        None => format!("{}:{}", t.0, t.2),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn tolerations_match_as_kubernetes_matches_them() {
        let t = (
            "nvidia.com/gpu".to_owned(),
            Some("true".to_owned()),
            "NoSchedule".to_owned(),
        );
        assert!(tolerates(
            &json!([{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]),
            &t
        ));
        assert!(tolerates(&json!([{"operator": "Exists"}]), &t));
        assert!(tolerates(&json!([{"key": "nvidia.com/gpu", "value": "true"}]), &t));
        assert!(!tolerates(
            &json!([{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoExecute"}]),
            &t
        ));
        assert!(!tolerates(
            &json!([{"key": "nvidia.com/gpu", "operator": "Equal", "value": "x"}]),
            &t
        ));
        assert!(!tolerates(&json!([]), &t));
    }

    #[test]
    fn node_affinity_terms_are_ored_and_expressions_anded() {
        let spec = json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "a", "operator": "In", "values": ["1"]}, {"key": "c", "operator": "NotIn", "values": ["auto"]}]},
            {"matchExpressions": [{"key": "b", "operator": "Exists"}]}
        ]}}}});
        let l = |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        assert!(lands_on(&spec, &l(&[("a", "1")])));
        assert!(!lands_on(&spec, &l(&[("a", "1"), ("c", "auto")])));
        assert!(lands_on(&spec, &l(&[("b", "")])));
        assert!(!lands_on(&spec, &l(&[("a", "2")])));
        let with_selector = json!({"nodeSelector": {"gpu": "on"}});
        assert!(!lands_on(&with_selector, &l(&[("a", "1")])));
        assert!(lands_on(&with_selector, &l(&[("gpu", "on")])));
    }

    #[test]
    fn pools_carry_their_default_taint_and_capacity_labels() {
        let r = Record {
            source: "t".into(),
            address: "s".into(),
            kind: "eksgpu_node_strategy".into(),
            attributes: json!({"pools": {
                "a": {"capacity": "auto_mode", "accelerator": "nvidia", "gpu_taint": true, "labels": {}, "node_selector": {"karpenter.sh/nodepool": "a"}, "taints": null},
                "n": {"capacity": "managed_node_group", "accelerator": "neuron", "gpu_taint": true, "labels": {"x": "y"}, "node_selector": {}, "taints": [{"key": "k", "value": "", "effect": "NoExecute"}]}
            }}),
        };
        let p = pools(&r);
        assert_eq!(p[0].node_labels["eks.amazonaws.com/compute-type"], "auto");
        assert_eq!(
            p[0].taints,
            [("nvidia.com/gpu".into(), Some("true".into()), "NoSchedule".into())]
        );
        assert_eq!(p[1].taints[0].0, "aws.amazon.com/neuron");
        assert_eq!(p[1].taints[1], ("k".into(), None, "NoExecute".into()));
        assert_eq!(p[1].node_labels["x"], "y");
    }
}
