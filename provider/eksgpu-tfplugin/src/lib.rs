//! Terraform plugin protocol 6 for terraform-provider-eksgpu: the go-plugin
//! handshake with AutoMTLS, the value codec, schemas, diagnostics, and a gRPC
//! server that translates between the wire and the [`Provider`] traits.
//!
//! Generated protocol code stays private to this crate (`wire`); providers see
//! only [`Value`], [`Schema`] and [`Diagnostics`].

pub mod diag;
pub mod handshake;
pub mod logging;
pub mod provider;
pub mod schema;
mod serve;
mod server;
pub mod tls;
pub mod types;
pub mod value;
mod wire;

#[cfg(feature = "testing")]
pub mod testing;

pub use diag::{AttributePath, Diagnostic, Diagnostics, Severity};
pub use provider::{
    ApplyRequest, ApplyResponse, ConfigureRequest, Context, DataSource, Function, FunctionError, FunctionSignature,
    ImportResponse, Parameter, PlanRequest, PlanResponse, Provider, ReadRequest, ReadResponse, Resource,
};
pub use schema::{Attribute, Block, NestedBlock, Problem, Schema, Validator};
pub use serve::{ServeError, ServeOptions, serve};
pub use types::Type;
pub use value::{Number, Value};
