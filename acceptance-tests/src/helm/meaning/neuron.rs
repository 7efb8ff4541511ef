//! The Neuron chart.

use super::{Found, PoolView, lands_on, one, pod_spec, strings, taint_text, tolerates};
use crate::helm::Rendered;

/// The Neuron chart (`templates/device-plugin-daemonset.yaml`, `templates/scheduler-extn.yaml`,
/// `templates/custom-scheduler.yaml`).
pub(super) fn neuron(pools: &[PoolView], r: &Rendered, f: &mut Found) {
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
