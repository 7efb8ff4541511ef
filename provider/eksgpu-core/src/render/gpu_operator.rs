//! Helm values for `nvidia/gpu-operator` that fit the strategy's mix of
//! capacity kinds (domain.md §7, seeds-digest §2–§3):
//! - EKS NVIDIA AMIs (AL2023, Bottlerocket) and Auto Mode carry the driver and
//!   container toolkit, so the operator installs them only when hybrid pools
//!   (on-prem nodes, nothing preinstalled) are present — and then per-node
//!   labels keep them off the cloud nodes;
//! - Auto Mode runs an AWS-managed device plugin: the operator's stays off
//!   there via the `nvidia.com/gpu.deploy.device-plugin: "false"` pool label;
//! - MIG Manager runs only where some pool selects a MIG layout;
//! - DCGM exporter stays on everywhere.

use serde_json::{Value, json};

use super::{MIG_CONFIG, effective_taints};
use crate::model::{Capacity, NodeStrategy};

pub(super) fn installs_driver(strategy: &NodeStrategy) -> bool {
    strategy.pools.iter().any(|p| p.capacity == Capacity::Hybrid)
}

fn uses_mig(strategy: &NodeStrategy) -> bool {
    strategy
        .pools
        .iter()
        .any(|p| p.capacity != Capacity::AutoMode && p.labels.get(MIG_CONFIG).is_some_and(|c| c != "all-disabled"))
}

/// `None` when the strategy has no `gpu_operator` block.
pub fn gpu_operator_values(strategy: &NodeStrategy) -> Option<Value> {
    let op = strategy.gpu_operator.as_ref()?;
    let driver = installs_driver(strategy);
    // The operator's daemonsets must tolerate every pool's taints to reach the GPU nodes.
    let mut tolerations: Vec<Value> = Vec::new();
    for pool in &strategy.pools {
        for t in effective_taints(pool) {
            let tol = json!({"key": t.key, "operator": "Exists", "effect": t.effect});
            if !tolerations.contains(&tol) {
                tolerations.push(tol);
            }
        }
    }
    let mut values = json!({
        "driver": {"enabled": driver},
        "toolkit": {"enabled": driver},
        "devicePlugin": {"enabled": true},
        "mig": {"strategy": op.mig_strategy},
        "migManager": {"enabled": uses_mig(strategy)},
        "dcgmExporter": {
            "enabled": op.dcgm_exporter,
            "serviceMonitor": {"enabled": op.dcgm_exporter && op.service_monitor},
        },
        "gfd": {"enabled": true},
        "nfd": {"enabled": true},
    });
    if !tolerations.is_empty()
        && let Some(m) = values.as_object_mut()
    {
        m.insert("daemonsets".into(), json!({"tolerations": tolerations}));
    }
    Some(values)
}
