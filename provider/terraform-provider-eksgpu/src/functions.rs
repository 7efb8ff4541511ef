//! Provider-defined functions for module authors (Terraform 1.8+), one module
//! each: `provider::eksgpu::<name>(…)`. Pure lookups in the embedded catalog
//! and the recommendation's sizing rule; no AWS call.

mod mig_capable;
mod mig_profiles;
mod replica_memory_gb;

use std::sync::Arc;

use eksgpu_core::catalog::{self, InstanceType};
use eksgpu_tfplugin::{Function, FunctionError};

pub(crate) fn all() -> Vec<Arc<dyn Function>> {
    vec![
        Arc::new(mig_capable::MigCapable),
        Arc::new(mig_profiles::MigProfiles),
        Arc::new(replica_memory_gb::ReplicaMemoryGb),
    ]
}

/// An instance type of the catalog, or an error blaming argument `arg`.
fn instance_type(name: &str, arg: usize) -> Result<&'static InstanceType, FunctionError> {
    catalog::instance_type(name).ok_or_else(|| FunctionError {
        text: format!("{name:?} is not an instance type in the GPU catalog (see data.eksgpu_gpu_catalog)."),
        argument: Some(arg),
    })
}
