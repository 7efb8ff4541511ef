//! Resources, one module each.

pub mod burst_scaler;
mod defaults;
pub mod node_strategy;
pub mod sharing_pool;

use std::sync::Arc;

use eksgpu_tfplugin::Resource;

use crate::provider::ProviderState;

pub(crate) fn all(state: &Arc<ProviderState>) -> Vec<Arc<dyn Resource>> {
    vec![
        Arc::new(burst_scaler::BurstScalerResource::new(state.clone())),
        Arc::new(node_strategy::NodeStrategyResource::new(state.clone())),
        Arc::new(sharing_pool::SharingPoolResource::new(state.clone())),
    ]
}
