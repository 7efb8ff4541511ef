//! The resource framework: what terraform-plugin-framework gives Go providers,
//! for this provider's resources. It sits between the protocol crate
//! (`eksgpu-tfplugin`: wire, values, schemas) and the resources, and owns the
//! work every resource would otherwise hand-write:
//!
//! - planning: the destroy shortcut, declared defaults, computed values left
//!   unknown only when something changed (or kept with `use_state_for_unknown`),
//!   `requires_replace` from `forces_replacement`, unknown blocks kept unknown;
//! - validation: declared validators on every known value at its attribute
//!   path, also when other values are unknown; no `null` inside collections;
//! - apply: rules deferred at plan are re-checked on the known plan before any
//!   change; errors keep the prior state unless the resource reports a partial one;
//! - read: `null` versus empty collections keep the spelling state had;
//! - import: IDs split and checked against declared formats, with a clear error;
//! - typed models: [`model::FromValue`] / [`model::IntoValue`] with exact numbers.

pub mod data_source;
pub mod function;
pub mod import;
pub mod model;
pub mod nested;
pub mod normalize;
pub mod partial;
pub mod path;
pub mod plan;
pub mod resource;
pub mod upgrade;
pub mod validate;
pub mod validators;

pub use data_source::ManagedDataSource;
pub use import::ImportId;
pub use model::{FromValue, IntoValue, ModelError, Obj};
pub use plan::Plan;
pub use resource::{Framework, ManagedResource};
