//! The pure domain core of terraform-provider-eksgpu: the GPU catalog, the
//! rules, renderers of Kubernetes objects and EKS requests, and the drift diff
//! of owned fields. No I/O and no async here: everything is a function of its
//! inputs and tested as such.

pub mod burst;
pub mod catalog;
pub mod duration;
pub mod eks;
pub mod fields;
pub mod kinds;
pub mod model;
pub mod readback;
pub mod recommend;
pub mod render;
pub mod rules;
pub mod sharing;
pub mod validate;
pub mod version;
pub mod yaml;
