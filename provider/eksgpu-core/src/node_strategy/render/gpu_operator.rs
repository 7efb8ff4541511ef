//! Helm values for `nvidia/gpu-operator` (chart v26.7.0) that fit the
//! strategy's mix of capacity kinds:
//! - EKS NVIDIA AMIs (AL2023, Bottlerocket) and Auto Mode carry the driver and
//!   container toolkit, so the operator installs them only when hybrid pools
//!   (on-prem nodes, nothing preinstalled) are present — and then per-node
//!   labels keep them off the cloud nodes;
//! - Auto Mode and Bottlerocket run their own device plugin: the operator's stays
//!   off there via the `nvidia.com/gpu.deploy.device-plugin: "false"` pool label;
//! - MIG Manager runs only where some pool selects a MIG layout;
//! - device-plugin sharing (time-slicing, MPS) is read from the sharing pools'
//!   ConfigMap only when `devicePlugin.config.name` names it;
//! - the operands and NFD's worker tolerate every NVIDIA pool's taints, and no Neuron pool's;
//! - DCGM exporter stays on everywhere.

use serde_json::{Value, json};

use super::{DEVICE_PLUGIN_CONFIG, MIG_CONFIG, effective_taints};
use crate::catalog::MigLayout;
use crate::model::{Capacity, NodeStrategy};

/// The ConfigMap (in the operator's namespace) holding one device-plugin config
/// per sharing pool; the same default as `eksgpu_sharing_pool.config_map`.
pub const DEFAULT_DEVICE_PLUGIN_CONFIG_MAP: &str = crate::sharing::DEFAULT_CONFIG_MAP;

pub(super) fn installs_driver(strategy: &NodeStrategy) -> bool {
    strategy.pools.iter().any(|p| p.capacity == Capacity::Hybrid)
}

fn uses_mig(strategy: &NodeStrategy) -> bool {
    strategy.pools.iter().any(|p| {
        p.capacity != Capacity::AutoMode && p.labels.get(MIG_CONFIG).is_some_and(|c| MigLayout::parse(c).splits())
    })
}

/// Some pool selects a device-plugin sharing config (time-slicing or MPS).
pub fn uses_device_plugin_sharing(strategy: &NodeStrategy) -> bool {
    strategy
        .pools
        .iter()
        .any(|p| p.labels.contains_key(DEVICE_PLUGIN_CONFIG))
}

/// Tolerations the gpu-operator chart v26.7.0 gives NFD's worker by default
/// (`node-feature-discovery.worker.tolerations` in deployments/gpu-operator/values.yaml);
/// setting the value replaces them, so they are kept.
fn nfd_default_tolerations() -> [Value; 2] {
    [
        json!({"key": "node-role.kubernetes.io/control-plane", "operator": "Equal", "value": "", "effect": "NoSchedule"}),
        json!({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}),
    ]
}

/// `None` when the strategy has no `gpu_operator` block.
pub fn gpu_operator_values(strategy: &NodeStrategy) -> Option<Value> {
    gpu_operator_values_with_config(strategy, None)
}

/// As [`gpu_operator_values`], with the name of the device-plugin sharing
/// ConfigMap when the sharing pools do not use the default one.
pub fn gpu_operator_values_with_config(strategy: &NodeStrategy, device_plugin_config: Option<&str>) -> Option<Value> {
    let op = strategy.gpu_operator.as_ref()?;
    let driver = installs_driver(strategy);
    // The operator's daemonsets must tolerate every pool's taints to reach the GPU nodes;
    // the chart's own default (`nvidia.com/gpu` Exists) is kept since the value replaces it.
    let mut tolerations: Vec<Value> =
        vec![json!({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"})];
    // Neuron pools are left out: their taints (`aws.amazon.com/neuron` by default) then keep the
    // operator's DaemonSets and NFD's worker off Neuron nodes, which carry no NVIDIA device
    // (the operands select `nvidia.com/gpu.present=true` nodes; gpu-operator v26.7.0
    // controllers/state_manager.go, which sets it from NFD's `pci-10de` labels).
    for pool in strategy.pools.iter().filter(|p| !p.is_neuron()) {
        for t in effective_taints(pool) {
            let tol = json!({"key": t.key, "operator": "Exists", "effect": t.effect});
            if !tolerations.contains(&tol) {
                tolerations.push(tol);
            }
        }
    }
    // The operator finds GPU nodes by NFD's PCI labels (gpu-operator controllers/state_manager.go,
    // `feature.node.kubernetes.io/pci-10de.present`): a node NFD's worker cannot land on gets no
    // operands at all, so the worker tolerates the same taints.
    let mut nfd_tolerations: Vec<Value> = nfd_default_tolerations().to_vec();
    for t in &tolerations {
        if !nfd_tolerations.contains(t) {
            nfd_tolerations.push(t.clone());
        }
    }
    let mut device_plugin = json!({"enabled": true});
    if uses_device_plugin_sharing(strategy) {
        // Without `config.name` the operator removes the config-manager containers from the
        // device-plugin DaemonSet, and the per-node `nvidia.com/device-plugin.config` label and the
        // sharing ConfigMap are ignored (gpu-operator v26.7.0 controllers/object_controls.go,
        // handleDevicePluginConfig). `default` stays empty: unlabelled nodes then get the
        // config-manager's "empty" fallback, i.e. whole GPUs, not some pool's sharing.
        device_plugin["config"] = json!({
            "name": device_plugin_config.unwrap_or(DEFAULT_DEVICE_PLUGIN_CONFIG_MAP),
            "default": "",
        });
    }
    let mut values = json!({
        "driver": {"enabled": driver},
        "toolkit": {"enabled": driver},
        "devicePlugin": device_plugin,
        "mig": {"strategy": op.mig_strategy},
        "migManager": {"enabled": uses_mig(strategy)},
        "dcgmExporter": {
            "enabled": op.dcgm_exporter,
            "serviceMonitor": {"enabled": op.dcgm_exporter && op.service_monitor},
        },
        "gfd": {"enabled": true},
        "nfd": {"enabled": true},
        "node-feature-discovery": {"worker": {"tolerations": nfd_tolerations}},
    });
    if let Some(m) = values.as_object_mut() {
        m.insert("daemonsets".into(), json!({"tolerations": tolerations}));
    }
    Some(values)
}
