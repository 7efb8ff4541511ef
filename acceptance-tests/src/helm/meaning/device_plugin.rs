//! NVIDIA's device plugin on its own (nvidia-device-plugin v0.20.0: `templates/configmap.yml`,
//! `templates/daemonset-device-plugin.yml`, `templates/daemonset-gfd.yml`, NFD's worker).

use serde_json::Value;

use super::nvidia::env;
use super::{Found, PoolView, lands_on, one, pod_spec, taint_text, tolerates};
use crate::helm::Rendered;

/// The label a node selects its config with, which the chart's config manager reads.
const CONFIG_LABEL: &str = "nvidia.com/device-plugin.config";

/// Whether the standalone plugin is to serve the pool: an NVIDIA pool that no other device
/// manager serves (Auto Mode's and Bottlerocket's own plugins, the DRA driver, HAMi) and that is
/// not switched off by `nvidia.com/gpu.deploy.device-plugin = "false"`.
fn served(p: &PoolView) -> bool {
    !p.neuron
        && p.capacity != "auto_mode"
        && (!p.dra || p.multi_node_nvlink)
        && p.labels.get("gpu").map(String::as_str) != Some("on")
        && !p.bottlerocket
        && p.labels.get("nvidia.com/gpu.deploy.device-plugin").map(String::as_str) != Some("false")
}

fn mps(p: &PoolView) -> bool {
    p.labels
        .get("eksgpu.terraform.io/device-plugin-sharing")
        .map(String::as_str)
        == Some("mps")
}

pub(super) fn device_plugin(pools: &[PoolView], r: &Rendered, f: &mut Found) {
    if !pools.iter().any(served) {
        if !r.objects("DaemonSet", "").is_empty() {
            f.problems
                .push("DaemonSets rendered although no pool is the device plugin's".into());
        }
        return;
    }
    let Some(ds) = one(r, "DaemonSet", "templates/daemonset-device-plugin.yml", f) else {
        return;
    };
    let spec = pod_spec(ds);
    for p in pools {
        let lands = lands_on(spec, &p.node_labels);
        if served(p) {
            if !lands {
                f.problems
                    .push(format!("the device plugin does not land on pool {}'s nodes", p.name));
            }
            for t in p.taints.iter().filter(|t| !tolerates(&spec["tolerations"], t)) {
                f.problems.push(format!(
                    "the device plugin does not tolerate pool {}'s taint {}",
                    p.name,
                    taint_text(t)
                ));
            }
        } else if lands && !p.neuron {
            f.problems.push(format!(
                "the device plugin lands on pool {}'s nodes, which another device manager serves",
                p.name
            ));
        }
    }
    configs(pools, r, spec, f);
    feature_discovery(pools, r, f);
}

/// Every served sharing pool's config is in the chart's ConfigMap with its replicas, and the
/// plugin's config manager reads the node label that selects it.
fn configs(pools: &[PoolView], r: &Rendered, spec: &Value, f: &mut Found) {
    let Some(cm) = one(r, "ConfigMap", "templates/configmap.yml", f) else {
        return;
    };
    let data = &cm["data"];
    if data["default"].as_str().is_none() {
        f.problems
            .push("the configs hold no `default` (whole GPUs for nodes that select none)".into());
    }
    for p in pools.iter().filter(|p| served(p)) {
        let Some(name) = p.labels.get(CONFIG_LABEL) else {
            continue;
        };
        let Some(text) = data[name.as_str()].as_str() else {
            f.problems.push(format!(
                "pool {} selects config {name:?}, which the ConfigMap lacks",
                p.name
            ));
            continue;
        };
        let cfg = eksgpu_core::stack::parse_values(text).unwrap_or(Value::Null);
        let kind = if mps(p) { "mps" } else { "timeSlicing" };
        let replicas = &cfg["sharing"][kind]["resources"][0]["replicas"];
        let want = p
            .labels
            .get("eksgpu.terraform.io/gpu-replicas")
            .cloned()
            .unwrap_or_default();
        if replicas.as_i64().map(|n| n.to_string()) != Some(want.clone()) {
            f.problems.push(format!(
                "config {name:?} of pool {} has sharing.{kind} replicas {replicas}, the pool {want}",
                p.name
            ));
        }
    }
    let sidecar = spec["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["command"][0] == "config-manager");
    if sidecar.and_then(|c| env(c, "NODE_LABEL")).as_deref() != Some(CONFIG_LABEL) {
        f.problems
            .push(format!("the plugin's config manager does not read {CONFIG_LABEL}"));
    }
}

/// GPU Feature Discovery (and NFD, which publishes its labels) runs where MPS pools need
/// `nvidia.com/mps.capable` for the MPS control daemon or NVLink pools `nvidia.com/gpu.clique`,
/// and reaches those nodes.
fn feature_discovery(pools: &[PoolView], r: &Rendered, f: &mut Found) {
    let needs: Vec<&PoolView> = pools
        .iter()
        .filter(|p| served(p) && (mps(p) || p.multi_node_nvlink))
        .collect();
    let gfd = r.objects("DaemonSet", "templates/daemonset-gfd.yml");
    if gfd.is_empty() != needs.is_empty() {
        f.problems.push(format!(
            "GPU Feature Discovery rendered: {}, pools needing its labels: {:?}",
            !gfd.is_empty(),
            needs.iter().map(|p| p.name.as_str()).collect::<Vec<_>>()
        ));
        return;
    }
    if needs.is_empty() {
        return;
    }
    let Some(worker) = one(r, "DaemonSet", "charts/nfd/templates/worker.yaml", f) else {
        return;
    };
    for p in needs {
        for t in p
            .taints
            .iter()
            .filter(|t| !tolerates(&pod_spec(worker)["tolerations"], t))
        {
            f.problems.push(format!(
                "NFD's worker does not tolerate pool {}'s taint {}: GFD's labels never reach the node",
                p.name,
                taint_text(t)
            ));
        }
        if gfd.iter().any(|g| !lands_on(pod_spec(g), &p.node_labels)) {
            f.problems.push(format!(
                "GPU Feature Discovery does not land on pool {}'s nodes",
                p.name
            ));
        }
    }
}
