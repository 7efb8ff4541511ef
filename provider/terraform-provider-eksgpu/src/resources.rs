//! Resources, one module each.

pub mod node_strategy;

use std::sync::Arc;

use eksgpu_tfplugin::Resource;

use crate::provider::ProviderState;

pub(crate) fn all(state: &Arc<ProviderState>) -> Vec<Arc<dyn Resource>> {
    vec![Arc::new(node_strategy::NodeStrategyResource::new(state.clone()))]
}
