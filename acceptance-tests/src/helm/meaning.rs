//! What renders means what the configuration says: each check reads the resource's own inputs
//! (pools, capacity kinds, taints, labels) and the objects the chart rendered, and matches them
//! the way Kubernetes does (a toleration against a taint, node affinity and node selectors
//! against a node's labels). The provider's renderer is not consulted.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Chart, Record, Rendered};

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
        stack(chart, r, inputs, &mut f);
        return f;
    }
    match (record.kind.as_str(), attribute) {
        ("eksgpu_node_strategy", "gpu_operator_values_yaml") => gpu_operator(&pools(record), r, &mut f),
        ("eksgpu_node_strategy", "dra_driver_values_yaml") => dra_driver(&pools(record), r, &mut f),
        ("eksgpu_node_strategy", "neuron_values_yaml") => neuron(&pools(record), r, &mut f),
        ("eksgpu_sharing_pool", "hami_values_yaml") => hami(record, r, &mut f),
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
    pub instance_types: Vec<String>,
    pub labels: BTreeMap<String, String>,
    /// The labels its nodes carry: the pool's `labels`, the selector label of its capacity
    /// kind, and `eks.amazonaws.com/compute-type` on Auto Mode and hybrid nodes.
    pub node_labels: BTreeMap<String, String>,
    /// `(key, value, effect)` of every taint its nodes carry.
    pub taints: Vec<(String, Option<String>, String)>,
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
    let pools = record.attributes["pool"].as_array().cloned().unwrap_or_default();
    // The map form (`pools = { name = {...} }`) keys the pools by name.
    let pools: Vec<(String, Value)> = if pools.is_empty() {
        record.attributes["pools"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    } else {
        pools
            .into_iter()
            .map(|p| (p["name"].as_str().unwrap_or_default().to_owned(), p))
            .collect()
    };
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
        let mut taints: Vec<(String, Option<String>, String)> = p["taint"]
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

/// gpu-operator v26.7.0 (`templates/clusterpolicy.yaml`, NFD's `templates/worker.yaml`).
fn gpu_operator(pools: &[PoolView], r: &Rendered, f: &mut Found) {
    let Some(cp) = one(r, "ClusterPolicy", "templates/clusterpolicy.yaml", f) else {
        return;
    };
    let spec = &cp["spec"];
    // EKS NVIDIA AMIs (AL2023, Bottlerocket) and Auto Mode nodes ship the driver and the
    // container toolkit; only hybrid nodes need the operator's (EKS user guide, NVIDIA AMIs).
    let hybrid = pools.iter().any(|p| p.capacity == "hybrid");
    for operand in ["driver", "toolkit"] {
        if spec[operand]["enabled"] != hybrid {
            f.problems.push(format!(
                "ClusterPolicy spec.{operand}.enabled is {} with {} hybrid pool",
                spec[operand]["enabled"],
                if hybrid { "a" } else { "no" }
            ));
        }
    }
    // MIG Manager applies `nvidia.com/mig.config`; Auto Mode manages its own nodes.
    let mig: Vec<&str> = pools
        .iter()
        .filter(|p| p.capacity != "auto_mode")
        .filter(|p| {
            p.labels
                .get("nvidia.com/mig.config")
                .is_some_and(|c| c != "all-disabled")
        })
        .map(|p| p.name.as_str())
        .collect();
    if spec["migManager"]["enabled"] != !mig.is_empty() {
        f.problems.push(format!(
            "ClusterPolicy spec.migManager.enabled is {} with MIG pools {mig:?}",
            spec["migManager"]["enabled"]
        ));
    }
    // Without devicePlugin.config the operator drops the config manager, and the pools'
    // `nvidia.com/device-plugin.config` labels select nothing (gpu-operator v26.7.0
    // controllers/object_controls.go, handleDevicePluginConfig).
    let sharing: Vec<&str> = pools
        .iter()
        .filter(|p| p.labels.contains_key("nvidia.com/device-plugin.config"))
        .map(|p| p.name.as_str())
        .collect();
    let config_name = spec["devicePlugin"]["config"]["name"].as_str().unwrap_or_default();
    if sharing.is_empty() != config_name.is_empty() {
        f.problems.push(format!(
            "ClusterPolicy spec.devicePlugin.config.name is {config_name:?} with device-plugin sharing pools {sharing:?}"
        ));
    }
    let worker = one(r, "DaemonSet", "node-feature-discovery/templates/worker.yaml", f);
    for p in pools.iter().filter(|p| !p.neuron) {
        for t in &p.taints {
            if !tolerates(&spec["daemonsets"]["tolerations"], t) {
                f.problems.push(format!(
                    "the operands (ClusterPolicy spec.daemonsets.tolerations) do not tolerate pool {}'s taint {}",
                    p.name,
                    taint_text(t)
                ));
            }
            if let Some(w) = worker
                && !tolerates(&pod_spec(w)["tolerations"], t)
            {
                f.problems.push(format!(
                    "NFD's worker does not tolerate pool {}'s taint {}: the operator never sees the node",
                    p.name,
                    taint_text(t)
                ));
            }
        }
    }
}

fn env(container: &Value, name: &str) -> Option<String> {
    container["env"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| e["name"] == name)
        .and_then(|e| e["value"].as_str().map(str::to_owned))
}

/// dra-driver-nvidia-gpu v0.4.1 / nvidia-dra-driver-gpu v25.12.0 (`templates/kubeletplugin.yaml`,
/// `templates/deviceclass-*.yaml`).
fn dra_driver(pools: &[PoolView], r: &Rendered, f: &mut Found) {
    let Some(ds) = one(r, "DaemonSet", "templates/kubeletplugin.yaml", f) else {
        return;
    };
    let spec = pod_spec(ds);
    // Auto Mode runs its own DRA driver (EKS user guide, Device management).
    let served = |p: &PoolView| p.dra && !p.neuron && p.capacity != "auto_mode";
    for p in pools.iter().filter(|p| !p.neuron) {
        let lands = lands_on(spec, &p.node_labels);
        if served(p) {
            if !lands {
                f.problems.push(format!(
                    "the kubelet plugin does not land on DRA pool {}'s nodes",
                    p.name
                ));
            }
            for t in p.taints.iter().filter(|t| !tolerates(&spec["tolerations"], t)) {
                f.problems.push(format!(
                    "the kubelet plugin does not tolerate pool {}'s taint {}",
                    p.name,
                    taint_text(t)
                ));
            }
        } else if lands {
            f.problems.push(format!(
                "the kubelet plugin lands on pool {}'s nodes, which {}",
                p.name,
                if p.capacity == "auto_mode" {
                    "run EKS Auto Mode's own DRA driver"
                } else {
                    "the device plugin serves"
                }
            ));
        }
    }
    let gpus = pools.iter().any(|p| served(p) && !p.multi_node_nvlink);
    let domains = pools.iter().any(|p| served(p) && p.multi_node_nvlink);
    let classes: Vec<&str> = r
        .objects("DeviceClass", "")
        .into_iter()
        .filter_map(|o| o["metadata"]["name"].as_str())
        .collect();
    for (class, want) in [
        ("gpu.nvidia.com", gpus),
        ("compute-domain-daemon.nvidia.com", domains),
        ("compute-domain-default-channel.nvidia.com", domains),
    ] {
        if classes.contains(&class) != want {
            f.problems
                .push(format!("DeviceClass {class} rendered: {}, wanted: {want}", !want));
        }
    }
    // Feature gates the sharing pools' claims need (v0.4.1 pkg/featuregates/featuregates.go):
    // the `gpus` container reads FEATURE_GATES.
    let containers = spec["containers"].as_array().cloned().unwrap_or_default();
    let gates = containers
        .iter()
        .find(|c| c["name"] == "gpus")
        .and_then(|c| env(c, "FEATURE_GATES"))
        .unwrap_or_default();
    for p in pools.iter().filter(|p| served(p) && !p.multi_node_nvlink) {
        let gate = match p.labels.get("eksgpu.terraform.io/dra-sharing").map(String::as_str) {
            Some("time_slicing") => "TimeSlicingSettings",
            Some("mps") => "MPSSupport",
            _ => continue,
        };
        if !gates.split(',').any(|g| g == format!("{gate}=true")) {
            f.problems.push(format!(
                "pool {}'s claims need feature gate {gate}; the kubelet plugin's FEATURE_GATES is {gates:?}",
                p.name
            ));
        }
    }
}

/// The Neuron chart (`templates/device-plugin-daemonset.yaml`, `templates/scheduler-extn.yaml`,
/// `templates/custom-scheduler.yaml`).
fn neuron(pools: &[PoolView], r: &Rendered, f: &mut Found) {
    let plugin: Vec<&PoolView> = pools
        .iter()
        .filter(|p| p.neuron && !p.dra && matches!(p.capacity.as_str(), "karpenter" | "managed_node_group"))
        .collect();
    if pools.iter().any(|p| p.neuron && p.dra) {
        f.not_judged
            .push("the Neuron DRA driver: this chart version has no DRA mode (draDriver came later)".into());
    }
    if r.values["devicePlugin"]["enabled"] == false {
        f.not_judged.push(
            "devicePlugin.enabled=false: this chart version has no switch and renders the device plugin regardless"
                .into(),
        );
        return;
    }
    let Some(ds) = one(r, "DaemonSet", "device-plugin-daemonset.yaml", f) else {
        return;
    };
    let spec = pod_spec(ds);
    for p in &plugin {
        for t in &p.instance_types {
            let mut labels = p.node_labels.clone();
            labels.insert("node.kubernetes.io/instance-type".into(), t.clone());
            if !lands_on(spec, &labels) {
                f.problems.push(format!(
                    "the Neuron device plugin does not land on pool {}'s {t} nodes (its affinity: {})",
                    p.name, spec["affinity"]
                ));
            }
        }
        for t in p.taints.iter().filter(|t| !tolerates(&spec["tolerations"], t)) {
            f.problems.push(format!(
                "the Neuron device plugin does not tolerate pool {}'s taint {}",
                p.name,
                taint_text(t)
            ));
        }
    }
    // Auto Mode ships its own Neuron device plugin (EKS user guide, Auto Mode accelerated workloads).
    let excludes_auto = spec["affinity"].to_string().contains("eks.amazonaws.com/compute-type");
    for p in pools.iter().filter(|p| p.neuron && p.capacity == "auto_mode") {
        if !excludes_auto {
            f.not_judged.push(format!(
                "Auto Mode pool {}: this chart version's device-plugin affinity has no `eks.amazonaws.com/compute-type \
                 NotIn [auto]` (later versions add it)",
                p.name
            ));
        } else if p.instance_types.iter().any(|t| {
            let mut labels = p.node_labels.clone();
            labels.insert("node.kubernetes.io/instance-type".into(), t.clone());
            lands_on(spec, &labels)
        }) {
            f.problems.push(format!(
                "the Neuron device plugin lands on Auto Mode pool {}'s nodes, which run their own",
                p.name
            ));
        }
    }
    // The scheduler extension keeps a pod's devices contiguous where an instance holds several
    // (Neuron documentation, Neuron scheduler extension); it runs on the cluster's ordinary nodes.
    let several = plugin.iter().any(|p| {
        p.instance_types
            .iter()
            .filter_map(|t| eksgpu_core::catalog::instance_type(t))
            .any(|t| t.neuron_devices().is_some_and(|d| d > 1))
    });
    let schedulers = r.objects("Deployment", "scheduler");
    if schedulers.is_empty() == several {
        f.problems.push(format!(
            "{} scheduler Deployments rendered; pools with multi-device instances: {several}",
            schedulers.len()
        ));
    }
    let names: Vec<&str> = schedulers
        .iter()
        .filter_map(|d| d["metadata"]["name"].as_str())
        .collect();
    for d in &schedulers {
        // A pod naming a scheduler nobody runs stays Pending.
        let by = pod_spec(d)["schedulerName"].as_str().unwrap_or("default-scheduler");
        if by != "default-scheduler" && !names.contains(&by) {
            f.problems.push(format!(
                "Deployment {} waits for scheduler {by:?}, which nothing rendered runs",
                d["metadata"]["name"]
            ));
        }
        let ns = strings(&pod_spec(d)["nodeSelector"]);
        for k in ns.keys().filter(|k| k.starts_with("node-role.kubernetes.io/")) {
            f.problems.push(format!(
                "Deployment {} selects nodes labelled {k}, which EKS never schedules pods on (its control plane \
                 runs no nodes in the cluster)",
                d["metadata"]["name"]
            ));
        }
    }
}

/// HAMi v2.10.0 (`templates/device-plugin/daemonsetnvidia.yaml`).
fn hami(record: &Record, r: &Rendered, f: &mut Found) {
    let Some(ds) = one(r, "DaemonSet", "device-plugin/daemonsetnvidia.yaml", f) else {
        return;
    };
    let spec = pod_spec(ds);
    let labels = strings(&record.attributes["node_labels"]);
    if strings(&spec["nodeSelector"]).is_empty() {
        f.problems
            .push("HAMi's device plugin has no node selector: it would land on every GPU node".into());
    }
    if !lands_on(spec, &labels) {
        f.problems.push(format!(
            "HAMi's device plugin (nodeSelector {}) does not land on nodes with the pool's node_labels {labels:?}",
            spec["nodeSelector"]
        ));
    }
    let default = (
        "nvidia.com/gpu".to_owned(),
        Some("true".to_owned()),
        "NoSchedule".to_owned(),
    );
    if !tolerates(&spec["tolerations"], &default) {
        f.problems.push(
            "HAMi's device plugin does not tolerate GPU pools' default taint nvidia.com/gpu=true:NoSchedule".into(),
        );
    }
}

/// A merged stack's render holds what each strategy's did: every toleration and node-selector
/// term, and MIG Manager where any strategy runs it.
fn stack(chart: &Chart, r: &Rendered, inputs: &[&Rendered], f: &mut Found) {
    let lists: &[(&str, &str, &[&str])] = match chart.folder {
        "gpu-operator-v26.7.0" => &[
            (
                "ClusterPolicy",
                "templates/clusterpolicy.yaml",
                &["spec", "daemonsets", "tolerations"],
            ),
            (
                "DaemonSet",
                "node-feature-discovery/templates/worker.yaml",
                &["spec", "template", "spec", "tolerations"],
            ),
        ],
        "neuron-helm-chart-8172e5e" => &[(
            "DaemonSet",
            "device-plugin-daemonset.yaml",
            &["spec", "template", "spec", "tolerations"],
        )],
        _ => &[
            (
                "DaemonSet",
                "templates/kubeletplugin.yaml",
                &["spec", "template", "spec", "tolerations"],
            ),
            (
                "DaemonSet",
                "templates/kubeletplugin.yaml",
                &[
                    "spec",
                    "template",
                    "spec",
                    "affinity",
                    "nodeAffinity",
                    "requiredDuringSchedulingIgnoredDuringExecution",
                    "nodeSelectorTerms",
                ],
            ),
        ],
    };
    let at = |r: &Rendered, kind: &str, template: &str, path: &[&str]| -> Vec<Value> {
        r.objects(kind, template)
            .into_iter()
            .flat_map(|o| {
                let v = path.iter().fold(o, |v, k| &v[*k]);
                v.as_array().cloned().unwrap_or_default()
            })
            .collect()
    };
    for (kind, template, path) in lists {
        let merged = at(r, kind, template, path);
        for (i, input) in inputs.iter().enumerate() {
            for x in at(input, kind, template, path) {
                if !merged.contains(&x) {
                    f.problems.push(format!(
                        "strategy {i}'s {kind} {} item {x} is not in the merged render",
                        path.join(".")
                    ));
                }
            }
        }
    }
    if chart.folder == "gpu-operator-v26.7.0" {
        let mig = |r: &Rendered| {
            r.objects("ClusterPolicy", "templates/clusterpolicy.yaml")
                .first()
                .is_some_and(|cp| cp["spec"]["migManager"]["enabled"] == true)
        };
        if mig(r) != inputs.iter().any(|i| mig(i)) {
            f.problems.push(format!(
                "merged migManager.enabled is {}, while strategies' are {:?}",
                mig(r),
                inputs.iter().map(|i| mig(i)).collect::<Vec<_>>()
            ));
        }
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
            attributes: json!({"pool": [
                {"name": "a", "capacity": "auto_mode", "accelerator": "nvidia", "gpu_taint": true, "labels": {}, "node_selector": {"karpenter.sh/nodepool": "a"}, "taint": []},
                {"name": "n", "capacity": "managed_node_group", "accelerator": "neuron", "gpu_taint": true, "labels": {"x": "y"}, "node_selector": {}, "taint": [{"key": "k", "value": "", "effect": "NoExecute"}]}
            ]}),
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
