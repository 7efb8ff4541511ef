//! What a sharing pool hands over to the node strategy beside the NVIDIA labels: the figures the
//! strategy needs to advertise the pool's resources to Karpenter (a NodeOverlay) and to configure
//! the DRA driver, as provider-namespaced node labels. They reach the strategy the way the NVIDIA
//! labels do, through `labels = merge({...}, eksgpu_sharing_pool.x.node_labels)`; on the nodes
//! they are inert.

use std::collections::BTreeMap;

use super::{SharingPool, Strategy};

/// Device-plugin time-slicing or MPS replicas per GPU, or HAMi's split count.
pub const GPU_REPLICAS: &str = "eksgpu.terraform.io/gpu-replicas";
/// The device plugin's resource after `nvidia.com/` when it is renamed (`gpu.shared`,
/// `renameByDefault`: NVIDIA k8s-device-plugin v0.20.0 api/config/v1 `ReplicatedResources`).
pub const GPU_RESOURCE: &str = "eksgpu.terraform.io/gpu-resource";
/// How a DRA pool's claims share a GPU: `exclusive`, `time_slicing` or `mps`.
pub const DRA_SHARING: &str = "eksgpu.terraform.io/dra-sharing";
/// `mps` on a device-plugin MPS pool (time-slicing, the other device-plugin sharing, hands over
/// none, so time-sliced pools' labels stayed as they were): the standalone device plugin's
/// config is rendered from the labels (`render::device_plugin_values`).
pub const DEVICE_PLUGIN_SHARING: &str = "eksgpu.terraform.io/device-plugin-sharing";
/// `true` on a time-slicing pool with `fail_requests_greater_than_one` (its default is false;
/// MPS forces it on, k8s-device-plugin v0.15.0+ api/config/v1/config.go).
pub const FAIL_REQUESTS_GREATER_THAN_ONE: &str = "eksgpu.terraform.io/fail-requests-greater-than-one";

/// The labels a sharing pool hands over for the strategy's own use.
pub(super) fn handover_labels(p: &SharingPool) -> BTreeMap<String, String> {
    let mut l = BTreeMap::new();
    match p.strategy {
        Strategy::TimeSlicing | Strategy::Mps => {
            if let Some(s) = p.time_slicing.as_ref().or(p.mps.as_ref()) {
                l.insert(GPU_REPLICAS.to_owned(), s.replicas.to_string());
                if s.rename_by_default {
                    l.insert(GPU_RESOURCE.to_owned(), "gpu.shared".to_owned());
                }
                if p.strategy == Strategy::Mps {
                    l.insert(DEVICE_PLUGIN_SHARING.to_owned(), "mps".to_owned());
                } else if s.fail_requests_greater_than_one {
                    l.insert(FAIL_REQUESTS_GREATER_THAN_ONE.to_owned(), "true".to_owned());
                }
            }
        }
        Strategy::Hami => {
            if let Some(h) = &p.hami {
                l.insert(GPU_REPLICAS.to_owned(), h.split_count.to_string());
            }
        }
        Strategy::Dra => {
            if let Some(d) = &p.dra {
                l.insert(DRA_SHARING.to_owned(), d.sharing.clone());
            }
        }
        Strategy::Exclusive | Strategy::Mig => {}
    }
    l
}

/// The device-plugin config (k8s-device-plugin v0.20 `version: v1`) of a time-slicing or MPS
/// sharing pool, rebuilt from the labels it handed over: the same document the pool writes into
/// the GPU Operator's ConfigMap (`sharing::device_plugin_config`). `None` when the labels carry
/// no replicas (not a device-plugin sharing pool's, or merged by hand without them).
pub fn device_plugin_config_from_labels(labels: &BTreeMap<String, String>) -> Option<serde_json::Value> {
    labels.get(crate::render::DEVICE_PLUGIN_CONFIG)?;
    let replicas = labels.get(GPU_REPLICAS)?.parse().ok()?;
    let mps = labels.get(DEVICE_PLUGIN_SHARING).map(String::as_str) == Some("mps");
    let strategy = if mps { Strategy::Mps } else { Strategy::TimeSlicing };
    let slicing = super::Slicing {
        replicas,
        rename_by_default: labels.get(GPU_RESOURCE).map(String::as_str) == Some("gpu.shared"),
        fail_requests_greater_than_one: mps
            || labels.get(FAIL_REQUESTS_GREATER_THAN_ONE).map(String::as_str) == Some("true"),
    };
    Some(super::render::slicing_config(strategy, &slicing))
}

/// The config of a device-plugin MPS pool: its nodes run NVIDIA's MPS control daemon, which the
/// chart schedules by GPU Feature Discovery's `nvidia.com/mps.capable` label.
pub fn uses_mps(labels: &BTreeMap<String, String>) -> bool {
    labels.get(DEVICE_PLUGIN_SHARING).map(String::as_str) == Some("mps")
}
