//! A raw protocol client for protocol tests and benchmarks (feature `testing`):
//! it speaks to a served provider the way Terraform does.

pub use crate::wire::plugin::Empty;
pub use crate::wire::plugin::grpc_controller_client::GrpcControllerClient;
pub use crate::wire::tfplugin6 as proto;
pub use crate::wire::tfplugin6::provider_client::ProviderClient;
