//! Whether a `karpenter` pool's NodeOverlays answer the warnings about resources Karpenter cannot
//! know (EKSGPU011, 122, 101), and what those warnings say when they do not.

use super::node_class::NODE_OVERLAY_MINIMUM_KARPENTER;
use crate::catalog::{self, InstanceType};
use crate::model::{NodeStrategy, Pool};
use crate::render::MIG_CONFIG;
use crate::render::{overlay_capacity, renders_overlays};
use crate::sharing::handover::GPU_REPLICAS;

/// The pool renders an overlay for every one of its catalog types.
pub(super) fn answered(s: &NodeStrategy, pool: &Pool) -> bool {
    let types: Vec<&InstanceType> = pool
        .instance_types
        .iter()
        .filter_map(|n| catalog::instance_type(n))
        .collect();
    renders_overlays(s, pool) && !types.is_empty() && types.iter().all(|t| !overlay_capacity(s, pool, t).is_empty())
}

/// The pool renders an overlay giving this type some `nvidia.com/gpu`: a `0` entry (a renamed
/// sharing config, MIG `mixed`) says the type advertises none, which answers nothing.
pub(super) fn answered_for(s: &NodeStrategy, pool: &Pool, t: &InstanceType) -> bool {
    renders_overlays(s, pool)
        && overlay_capacity(s, pool, t)
            .get("nvidia.com/gpu")
            .is_some_and(|n| *n > 0)
}

/// How to get the overlay that would answer the warning.
pub(crate) fn how_to_overlay(s: &NodeStrategy, pool: &Pool, karpenter: (u32, u32)) -> String {
    let (major, minor) = karpenter;
    if karpenter < NODE_OVERLAY_MINIMUM_KARPENTER {
        format!("Karpenter {major}.{minor} has no NodeOverlay (1.7+) to count them.")
    } else if !s.karpenter_gates.node_overlay {
        format!(
            "On Karpenter {major}.{minor}, run it with settings.featureGates.nodeOverlay: true and list \
             nodeOverlay in the provider's karpenter_feature_gates: the pool then renders a NodeOverlay that \
             advertises them."
        )
    } else if !pool.labels.contains_key(MIG_CONFIG) && !pool.labels.contains_key(GPU_REPLICAS) {
        format!(
            "The provider renders a NodeOverlay only with the counts a sharing pool hands over: merge its \
             node_labels (with {GPU_REPLICAS}) into the pool's labels."
        )
    } else {
        "No NodeOverlay can be computed for this layout (a custom MIG config, or an instance type outside the catalog)."
            .to_owned()
    }
}
