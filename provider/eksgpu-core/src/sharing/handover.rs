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
