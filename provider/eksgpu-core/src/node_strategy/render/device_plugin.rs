//! Helm values for NVIDIA's device plugin installed without the GPU Operator (chart
//! `nvdp/nvidia-device-plugin` 0.20.0, source NVIDIA/k8s-device-plugin v0.20.0
//! `deployments/helm/nvidia-device-plugin/values.yaml`), as EKS clusters whose NVIDIA AMIs carry
//! the driver and container toolkit run it (EKS user guide, "Amazon EKS optimized accelerated
//! AMIs": install the NVIDIA device plugin):
//! - `config.map`: one named config per device-plugin sharing pool (time-slicing or MPS), the
//!   document the sharing pool would write for the GPU Operator, rebuilt from the labels it hands
//!   over (`sharing::handover`); a node selects it by `nvidia.com/device-plugin.config`, which the
//!   chart's config manager reads. Whole GPUs are the `default` config (the chart's `named`
//!   fallback), with the strategy's MIG strategy as its `flags.migStrategy`;
//! - `affinity`: the nodes of the pools the plugin serves, one node-selector term per pool by the
//!   label `node_selector` puts a workload there with, each also requiring
//!   `nvidia.com/gpu.deploy.device-plugin` not `false` (the per-node switch the provider sets on
//!   DRA, HAMi and Bottlerocket pools). Not served, so never selected: Auto Mode pools (Auto Mode
//!   ships its own plugin, EKS user guide "Deploy an accelerated workload": keep self-installed
//!   plugins off `eks.amazonaws.com/compute-type: auto`), DRA pools (the DRA driver's), HAMi pools
//!   (HAMi's), Bottlerocket pools (their own plugin) and Neuron pools. The chart's default affinity
//!   asks for NFD's or GFD's labels, which EKS NVIDIA AMIs without them never carry;
//! - `tolerations`: the chart's defaults (kept, as the value replaces them) and every served
//!   pool's taints;
//! - `gfd.enabled` (which also turns on the chart's NFD subchart, condition
//!   `nfd.enabled,gfd.enabled` in Chart.yaml) where a pool needs GPU Feature Discovery's labels:
//!   MPS pools (the chart's MPS control daemon selects `nvidia.com/mps.capable: "true"`, which
//!   GFD's sharing labeler sets, v0.20.0 internal/lm/nvml.go `newSharingLabeler`) and
//!   `multi_node_nvlink` pools (a job's pods keep to one NVLink domain by `nvidia.com/gpu.clique`,
//!   GFD's internal/lm/imex.go); then NFD's worker tolerates the same taints, since GFD's labels
//!   reach the node through it.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{
    DEPLOY_DEVICE_PLUGIN, DEVICE_PLUGIN_CONFIG, MIG_CONFIG, effective_labels, effective_taints, node_selector,
};
use crate::catalog::MigLayout;
use crate::model::{Capacity, NodeStrategy, Pool};
use crate::sharing::handover;
use crate::yaml;

/// The key of the whole-GPU config in `config.map`: the chart's `named` fallback picks the entry
/// called `default` for nodes that select no config (templates/_helpers.tpl `hasDefaultConfig`).
pub const DEFAULT_CONFIG: &str = "default";

/// The chart's default `tolerations` (values.yaml, v0.20.0).
fn chart_tolerations() -> Vec<Value> {
    vec![
        json!({"key": "CriticalAddonsOnly", "operator": "Exists"}),
        json!({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}),
    ]
}

/// The chart's default `nfd.worker.tolerations` (values.yaml, v0.20.0).
fn chart_nfd_tolerations() -> Vec<Value> {
    vec![
        json!({"key": "node-role.kubernetes.io/master", "operator": "Equal", "value": "", "effect": "NoSchedule"}),
        json!({"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}),
    ]
}

/// The pool is labelled for HAMi's scheduler (`gpu=on`), whose device plugin serves it.
fn hami(pool: &Pool) -> bool {
    pool.labels.get("gpu").map(String::as_str) == Some("on")
}

/// Whether the standalone device plugin serves the pool's GPUs: an NVIDIA pool whose nodes run
/// no other device manager (Auto Mode's and Bottlerocket's own plugins, the DRA driver, HAMi)
/// and are not switched off by `nvidia.com/gpu.deploy.device-plugin = "false"`.
pub fn serves(strategy: &NodeStrategy, pool: &Pool) -> bool {
    !pool.is_neuron()
        && pool.capacity != Capacity::AutoMode
        && !pool.dra_serves_gpus()
        && !hami(pool)
        && !pool.bottlerocket()
        && effective_labels(strategy, pool)
            .get(DEPLOY_DEVICE_PLUGIN)
            .is_none_or(|v| v != "false")
}

/// The pools the plugin serves, in key order.
pub fn served_pools(strategy: &NodeStrategy) -> impl Iterator<Item = &Pool> {
    strategy.pools.iter().filter(|p| serves(strategy, p))
}

/// One named config per device-plugin sharing config the served pools select, by name; the first
/// pool selecting a name gives its settings (EKSGPU191 refuses two settings for one name).
pub fn sharing_configs(strategy: &NodeStrategy) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for pool in served_pools(strategy) {
        let Some(name) = pool.labels.get(DEVICE_PLUGIN_CONFIG) else {
            continue;
        };
        if let Some(cfg) = handover::device_plugin_config_from_labels(&pool.labels) {
            out.entry(name.clone()).or_insert(cfg);
        }
    }
    out
}

/// The whole-GPU config: MIG devices enumerated with the strategy's MIG strategy where a served
/// pool splits its GPUs, else `none` (k8s-device-plugin v0.20.0 api/config/v1 `Flags.MigStrategy`).
fn default_config(strategy: &NodeStrategy) -> Value {
    let mig = served_pools(strategy).any(|p| p.labels.get(MIG_CONFIG).is_some_and(|c| MigLayout::parse(c).splits()));
    let mig_strategy = if mig {
        strategy
            .device_plugin
            .as_ref()
            .map_or("single", |d| d.mig_strategy.as_str())
    } else {
        "none"
    };
    json!({"version": "v1", "flags": {"migStrategy": mig_strategy}})
}

/// Some served pool needs GPU Feature Discovery's labels (see the module comment).
fn needs_gfd(strategy: &NodeStrategy) -> bool {
    served_pools(strategy).any(|p| p.multi_node_nvlink || handover::uses_mps(&p.labels))
}

fn with_taints<'p>(mut out: Vec<Value>, pools: impl Iterator<Item = &'p Pool>) -> Vec<Value> {
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

/// Node affinity on the served pools' nodes: terms are ORed, the expressions of one term ANDed.
fn affinity(strategy: &NodeStrategy) -> Value {
    let mut terms: Vec<Value> = Vec::new();
    for pool in served_pools(strategy) {
        let mut exprs: Vec<Value> = node_selector(strategy, pool)
            .into_iter()
            .map(|(k, v)| json!({"key": k, "operator": "In", "values": [v]}))
            .collect();
        exprs.push(json!({"key": DEPLOY_DEVICE_PLUGIN, "operator": "NotIn", "values": ["false"]}));
        let term = json!({"matchExpressions": exprs});
        if !terms.contains(&term) {
            terms.push(term);
        }
    }
    json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}})
}

/// `None` without a `device_plugin` block. With no pool to serve, the plugin is off (an empty
/// node affinity would be refused by the API server).
pub fn device_plugin_values(strategy: &NodeStrategy) -> Option<Value> {
    strategy.device_plugin.as_ref()?;
    if served_pools(strategy).next().is_none() {
        return Some(json!({"devicePlugin": {"enabled": false}, "gfd": {"enabled": false}}));
    }
    // `config.map` values are YAML text: the chart reads each with `fromYaml` and writes it into
    // its ConfigMap as it is (templates/configmap.yml, _helpers.tpl).
    let mut map = serde_json::Map::new();
    map.insert(DEFAULT_CONFIG.into(), yaml::to_yaml(&default_config(strategy)).into());
    for (name, cfg) in sharing_configs(strategy) {
        map.insert(name, yaml::to_yaml(&cfg).into());
    }
    let gfd = needs_gfd(strategy);
    let mut values = json!({
        "config": {"map": map},
        "devicePlugin": {"enabled": true},
        "gfd": {"enabled": gfd},
        "affinity": affinity(strategy),
        "tolerations": with_taints(chart_tolerations(), served_pools(strategy)),
    });
    if gfd {
        values["nfd"] =
            json!({"worker": {"tolerations": with_taints(chart_nfd_tolerations(), served_pools(strategy))}});
    }
    Some(values)
}

#[cfg(test)]
mod tests;
