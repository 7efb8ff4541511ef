//! The pure domain core of terraform-provider-eksgpu: the GPU catalog, the
//! rules, renderers of Kubernetes objects and EKS requests, and the drift diff
//! of owned fields. No I/O and no async here: everything is a function of its
//! inputs and tested as such.

pub mod burst;
pub mod catalog;
pub mod duration;
pub mod eks;
pub mod fields;
#[cfg(test)]
pub(crate) mod fixture;
pub mod karpenter_gates;
pub mod kinds;
pub mod node_strategy;
pub mod ownership;
pub mod placement;
pub mod probe;
pub mod recommend;
pub mod rules;
pub mod sharing;
pub mod stack;
pub mod validate;
pub mod version;
pub mod yaml;

// The node strategy keeps the folder shape of `sharing/` and `burst/`; its
// parts stay reachable under the names the other crates use.
pub use node_strategy as model;
pub use node_strategy::{readback, render};
