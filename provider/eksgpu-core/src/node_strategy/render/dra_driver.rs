//! Helm values for NVIDIA's DRA driver for GPUs (chart
//! `oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu` 0.4.1, source
//! kubernetes-sigs/dra-driver-nvidia-gpu v0.4.1 `deployments/helm/dra-driver-nvidia-gpu/values.yaml`),
//! installed as the EKS user guide does ("Install the NVIDIA DRA driver",
//! https://docs.aws.amazon.com/eks/latest/userguide/device-management-nvidia-dra-device-plugin.html;
//! "Use P6e-GB200 UltraServers with Amazon EKS",
//! https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-nvidia-ultraserver.html), for the
//! strategy's NVIDIA `dra = true` pools:
//! - `resources.gpus.enabled` with `gpuResourcesEnabledOverride: true` where a pool's GPUs are
//!   claimed (the EKS DRA guide sets both; the chart's `templates/validation.yaml` refuses GPU
//!   resources without the override while the device plugin may run beside it);
//!   `resources.computeDomains.enabled` only where a pool is `multi_node_nvlink`. A strategy of
//!   only `multi_node_nvlink` pools gets the P6e-GB200 values: GPUs off (the device plugin keeps
//!   them), ComputeDomains on;
//! - `featureGates` the sharing pools need, read from the labels they hand over
//!   (`sharing::handover::DRA_SHARING`): `TimeSlicingSettings` for time-sliced claims (as the EKS
//!   DRA guide enables it), `MPSSupport` for MPS claims (both off by default, v0.4.1
//!   `pkg/featuregates/featuregates.go`);
//! - `kubeletPlugin.tolerations`: the chart's default (`nvidia.com/gpu` Exists NoSchedule, kept as
//!   the value replaces it) and every DRA pool's taints;
//! - `kubeletPlugin.affinity`: the DRA pools' nodes (one node-selector term per pool, by the label
//!   `node_selector` puts a workload there with). The chart's default affinity asks for NFD's or the
//!   GPU Operator's labels, which EKS NVIDIA AMIs without the GPU Operator never get;
//! - `nvidiaDriverRoot`: `/` where the host has the driver (EKS NVIDIA AMIs, hybrid nodes whose
//!   driver the user installs), `/run/nvidia/driver` where the GPU Operator's driver container
//!   installs it (hybrid pools of a strategy with `gpu_operator`, the operator's
//!   `hostPaths.driverInstallDir`, gpu-operator v26.7.0 deployments/gpu-operator/values.yaml; the
//!   DRA chart's `nvidiaDriverRoot` comment, v0.4.1 values.yaml). Always rendered, so that the
//!   `eksgpu_gpu_stack` merge sees two strategies that need different roots.
//!
//! One release is one kubelet-plugin DaemonSet (v0.4.1 `templates/kubeletplugin.yaml`): its
//! `gpus` and `compute-domains` containers follow the release-wide `resources.*.enabled` onto every
//! node the affinity selects, so no affinity keeps the GPU plugin off a `multi_node_nvlink` pool's
//! nodes (served by the device plugin) while it serves another pool's GPUs (EKSGPU145), and one
//! `nvidiaDriverRoot` serves every node (EKSGPU146).
//!
//! Auto Mode pools are left out: EKS Auto Mode runs its own DRA driver on its nodes (EKS user
//! guide, Device management), and a second one would fight it for the same devices.

use serde_json::{Value, json};

use super::{DEPLOY_DRIVER, effective_labels, effective_taints, gpu_operator, node_selector};
use crate::model::{Capacity, NodeStrategy, Pool};
use crate::sharing::handover::DRA_SHARING;

/// The chart's default `kubeletPlugin.tolerations` (values.yaml, v0.4.1).
fn chart_tolerations() -> Vec<Value> {
    vec![json!({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"})]
}

/// The DRA chart's `nvidiaDriverRoot` for a driver on the host (its default) and for the GPU
/// Operator's driver container (gpu-operator v26.7.0 values.yaml `hostPaths.driverInstallDir`).
pub const HOST_DRIVER_ROOT: &str = "/";
pub const OPERATOR_DRIVER_ROOT: &str = "/run/nvidia/driver";

/// Whether the GPU Operator installs the driver on the pool's nodes: its hybrid pools, when the
/// operator installs drivers at all, unless the pool's `nvidia.com/gpu.deploy.driver` label
/// says "false" (the user's own driver on the host). Cloud pools' NVIDIA AMIs keep theirs.
fn operator_installs_driver(strategy: &NodeStrategy, pool: &Pool) -> bool {
    strategy.gpu_operator.is_some()
        && gpu_operator::installs_driver(strategy)
        && pool.capacity == Capacity::Hybrid
        && effective_labels(strategy, pool).get(DEPLOY_DRIVER).map(String::as_str) != Some("false")
}

/// Where the driver the pool's kubelet plugin reads lives on its nodes.
pub fn driver_root(strategy: &NodeStrategy, pool: &Pool) -> &'static str {
    if operator_installs_driver(strategy, pool) {
        OPERATOR_DRIVER_ROOT
    } else {
        HOST_DRIVER_ROOT
    }
}

/// The pools the driver serves: NVIDIA `dra = true` pools on nodes the strategy's own capacity
/// kinds run the driver on (not Auto Mode).
pub fn driver_pools(strategy: &NodeStrategy) -> impl Iterator<Item = &Pool> {
    strategy
        .pools
        .iter()
        .filter(|p| p.dra && !p.is_neuron() && p.capacity != Capacity::AutoMode)
}

/// Feature gates the pools' DRA sharing needs (the chart's `featureGates` map, gate → true).
fn feature_gates<'p>(pools: impl Iterator<Item = &'p Pool>) -> serde_json::Map<String, Value> {
    let mut gates = serde_json::Map::new();
    for p in pools.filter(|p| p.dra_serves_gpus()) {
        let gate = match p.labels.get(DRA_SHARING).map(String::as_str) {
            Some("time_slicing") => "TimeSlicingSettings",
            Some("mps") => "MPSSupport",
            _ => continue,
        };
        gates.insert(gate.to_owned(), Value::Bool(true));
    }
    gates
}

fn tolerations<'p>(pools: impl Iterator<Item = &'p Pool>) -> Vec<Value> {
    let mut out = chart_tolerations();
    for pool in pools {
        for t in effective_taints(pool) {
            let tol = json!({"key": t.key, "operator": "Exists", "effect": t.effect});
            if !out.contains(&tol) {
                out.push(tol);
            }
        }
    }
    out
}

/// Node affinity on the pools' nodes: terms are ORed, the expressions of one term ANDed.
fn affinity(strategy: &NodeStrategy, pools: &[&Pool]) -> Value {
    let mut terms: Vec<Value> = Vec::new();
    for pool in pools {
        let exprs: Vec<Value> = node_selector(strategy, pool)
            .into_iter()
            .map(|(k, v)| json!({"key": k, "operator": "In", "values": [v]}))
            .collect();
        let term = json!({"matchExpressions": exprs});
        if !terms.contains(&term) {
            terms.push(term);
        }
    }
    json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}})
}

/// `None` when no pool the driver serves is a `dra = true` NVIDIA pool.
pub fn dra_driver_values(strategy: &NodeStrategy) -> Option<Value> {
    let pools: Vec<&Pool> = driver_pools(strategy).collect();
    if pools.is_empty() {
        return None;
    }
    let gpus = pools.iter().any(|p| p.dra_serves_gpus());
    let compute_domains = pools.iter().any(|p| p.multi_node_nvlink);
    // One root for the release; a mix of roots is refused (EKSGPU146), so any pool's serves.
    let root = pools
        .iter()
        .map(|p| driver_root(strategy, p))
        .find(|r| *r == OPERATOR_DRIVER_ROOT)
        .unwrap_or(HOST_DRIVER_ROOT);
    Some(json!({
        "resources": {
            "gpus": {"enabled": gpus},
            "computeDomains": {"enabled": compute_domains},
        },
        "gpuResourcesEnabledOverride": gpus,
        "nvidiaDriverRoot": root,
        "featureGates": feature_gates(pools.iter().copied()),
        "kubeletPlugin": {
            "tolerations": tolerations(pools.iter().copied()),
            "affinity": affinity(strategy, &pools),
        },
    }))
}

#[cfg(test)]
mod tests;
