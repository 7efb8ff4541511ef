//! Data sources, one module each.

pub mod cluster;
pub mod gpu_catalog;
pub mod gpu_stack;
pub mod recommendation;
pub mod workload_placement;

use std::sync::Arc;

use eksgpu_framework::Framework;
use eksgpu_tfplugin::DataSource;

use crate::provider::ProviderState;

pub(crate) fn all(state: &Arc<ProviderState>) -> Vec<Arc<dyn DataSource>> {
    vec![
        Arc::new(Framework::data_source(cluster::Cluster::new(state.clone()))),
        Arc::new(Framework::data_source(gpu_catalog::GpuCatalog::new(state.clone()))),
        Arc::new(Framework::data_source(gpu_stack::GpuStack)),
        Arc::new(Framework::data_source(recommendation::RecommendationDataSource::new(
            state.clone(),
        ))),
        Arc::new(Framework::data_source(workload_placement::WorkloadPlacement)),
    ]
}
