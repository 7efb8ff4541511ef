//! A small Kubernetes API server for the acceptance tests of
//! terraform-provider-eksgpu: discovery, core Namespace, ConfigMap, Secret, Pod (judged by
//! k8s-openapi's type) and Event (LIST with field selectors, `selectors`), `apps/v1` DaemonSet and
//! Deployment (judged by k8s-openapi's types), the
//! custom kinds of `crds/`, server-side
//! apply with managed fields in the real `FieldsV1` format, conflicts, force,
//! dry run, CRD defaulting, pruning and validation, bearer-token and client-certificate auth, and a
//! control endpoint (reset, faults, edits as another manager, status writes as
//! a controller makes them, e.g. KEDA's conditions, request log), a small simulation of KEDA's
//! operator (`keda`: triggers built and queried, the conditions KEDA writes), a simulation of
//! Karpenter's NodeClaim lifecycle (`karpenter`: NodeClaims for pending Pods launched, registered
//! and initialized or failing as upstream reports it, events, termination finalizers; DELETE
//! honours finalizers),
//! and an upstream mode that forwards custom groups to a real API server (built-in `apps/v1` it
//! serves itself, as the real lane's server serves no built-in kinds).
//!
//! It is a test part: it keeps everything in memory and listens on loopback.

pub mod fields;
pub mod karpenter;
pub mod keda;
pub mod kinds;
pub mod schema;
pub mod selectors;
pub mod server;
pub mod store;
pub mod typed;
pub mod upstream;

pub use server::{Emulator, Options};
