//! The NVIDIA charts: gpu-operator and the DRA driver.

use serde_json::Value;

use super::{Found, PoolView, lands_on, one, pod_spec, taint_text, tolerates};
use crate::helm::Rendered;

/// gpu-operator v26.7.0 (`templates/clusterpolicy.yaml`, NFD's `templates/worker.yaml`).
pub(super) fn gpu_operator(pools: &[PoolView], r: &Rendered, f: &mut Found) {
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

pub(super) fn env(container: &Value, name: &str) -> Option<String> {
    container["env"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| e["name"] == name)
        .and_then(|e| e["value"].as_str().map(str::to_owned))
}

/// dra-driver-nvidia-gpu v0.4.1 / nvidia-dra-driver-gpu v25.12.0 (`templates/kubeletplugin.yaml`,
/// `templates/deviceclass-*.yaml`).
pub(super) fn dra_driver(pools: &[PoolView], r: &Rendered, f: &mut Found) {
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
