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
/// `templates/deviceclass-*.yaml`); `operator`: the strategy has a `gpu_operator` block.
pub(super) fn dra_driver(pools: &[PoolView], operator: bool, r: &Rendered, f: &mut Found) {
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
    gpu_plugin_beside_device_plugin(pools, spec, f);
    driver_root(pools, operator, spec, f);
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

/// The `gpus` container (the GPU kubelet plugin) runs on every node of the DaemonSet: on a
/// `multi_node_nvlink` pool's nodes the device plugin serves the GPUs, and the chart refuses both
/// on one node (v0.4.1 `templates/validation.yaml`, `gpuResourcesEnabledOverride`).
fn gpu_plugin_beside_device_plugin(pools: &[PoolView], spec: &Value, f: &mut Found) {
    let gpus = spec["containers"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|c| c["name"] == "gpus");
    if !gpus {
        return;
    }
    for p in pools.iter().filter(|p| p.dra && p.multi_node_nvlink && !p.neuron) {
        if lands_on(spec, &p.node_labels) {
            f.problems.push(format!(
                "the GPU kubelet plugin (container gpus) lands on pool {}'s nodes, whose GPUs the device plugin serves",
                p.name
            ));
        }
    }
}

/// Where the driver is on a served pool's nodes: the GPU Operator's driver container installs it
/// at `/run/nvidia/driver` on hybrid nodes (gpu-operator v26.7.0 values.yaml
/// `hostPaths.driverInstallDir`) unless the pool's `nvidia.com/gpu.deploy.driver` is "false";
/// elsewhere it is on the host (`/`). Every container's `NVIDIA_DRIVER_ROOT` and the
/// `driver-root` hostPath must say so (v0.4.1 `templates/kubeletplugin.yaml`).
fn driver_root(pools: &[PoolView], operator: bool, spec: &Value, f: &mut Found) {
    let installs = operator && pools.iter().any(|p| p.capacity == "hybrid");
    let containers = spec["containers"].as_array().cloned().unwrap_or_default();
    let volume = spec["volumes"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|v| v["name"] == "driver-root")
        .and_then(|v| v["hostPath"]["path"].as_str())
        .unwrap_or_default()
        .to_owned();
    for p in pools.iter().filter(|p| p.dra && !p.neuron && p.capacity != "auto_mode") {
        let own = p
            .labels
            .get("nvidia.com/gpu.deploy.driver")
            .is_some_and(|v| v == "false");
        let want = if installs && p.capacity == "hybrid" && !own {
            "/run/nvidia/driver"
        } else {
            "/"
        };
        let mut seen: Vec<String> = containers.iter().filter_map(|c| env(c, "NVIDIA_DRIVER_ROOT")).collect();
        seen.push(volume.clone());
        if let Some(other) = seen.iter().find(|r| r.as_str() != want) {
            f.problems.push(format!(
                "pool {}'s driver is at {want}; the kubelet plugin reads it at {other}",
                p.name
            ));
        }
    }
}
