//! The Terraform-facing provider: configuration, and one module per resource
//! and data source. Domain logic lives in `eksgpu-core`, cloud calls in
//! `eksgpu-cloud`, the protocol in `eksgpu-tfplugin`.

pub mod data_sources;
mod diagnostics;
mod functions;
pub mod provider;
pub mod resources;
pub mod schema_json;

use std::sync::Arc;

/// The provider's registry address, as users write `source = "eksgpu/eksgpu"`.
pub const PROVIDER_ADDRESS: &str = "registry.terraform.io/eksgpu/eksgpu";

pub fn new() -> Arc<provider::EksGpuProvider> {
    Arc::new(provider::EksGpuProvider::default())
}
