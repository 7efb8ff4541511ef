//! Cloud adapters for terraform-provider-eksgpu. Each adapter sits behind a
//! small trait so resources can be tested against fakes and the domain core
//! stays free of I/O. Only this crate names `aws_sdk_*` types.

pub mod aws;
pub mod kube;
pub mod net;

pub use aws::{AssumeRole, AwsClients, AwsError, AwsFailure, AwsSettings, Endpoints, InstanceTypes, WebIdentity};
