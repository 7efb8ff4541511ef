//! A pool's instance types: NVIDIA GPU types of the catalog, whole GPUs where
//! the cluster schedules them, and types Auto Mode is seen to provision.

use super::AUTO_MODE_OBSERVED_FAILURES;
use crate::catalog::{self, InstanceType};
use crate::model::{Capacity, Pool};
use crate::rules::{At, Code, Step, Violation};

/// A catalog type the pool may launch, with the path its violations point at: its place in
/// `instance_types`, or `requirement` for a type the requirements match.
pub(super) struct Selected {
    pub t: &'static InstanceType,
    pub path: Vec<Step>,
}

/// Each instance type through EKSGPU016, 101 and 009 in turn (so a pool's violations stay in
/// instance-type order); the NVIDIA GPU types found, for the checks that follow. With
/// `requirement` blocks, the types they match (EKSGPU172, 163) take the listed ones' place.
pub(super) fn check(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) -> Vec<Selected> {
    let mut types = Vec::new();
    for (j, name) in pool.instance_types.iter().enumerate() {
        let path = at(&[Step::Attr("instance_types"), Step::Index(j)]);
        let Some(t) = nvidia_gpu_type(name, &path, out) else {
            continue;
        };
        fractional_gpu(pool, t, &path, out);
        observed_failing_on_auto_mode(pool, t, &path, out);
        types.push(Selected { t, path });
    }
    let Some(m) = super::requirements::matched_types(pool, at, out) else {
        return types;
    };
    let path = at(&[Step::Attr("requirement")]);
    for t in &m.types {
        observed_failing_on_auto_mode(pool, t, &path, out);
    }
    m.types
        .into_iter()
        .map(|t| Selected {
            t,
            path: types
                .iter()
                .find(|s| s.t.name == t.name)
                .map_or_else(|| path.clone(), |s| s.path.clone()),
        })
        .collect()
}

/// EKSGPU016: the type is in the catalog and carries NVIDIA GPUs.
fn nvidia_gpu_type(name: &str, path: &[Step], out: &mut Vec<Violation>) -> Option<&'static InstanceType> {
    match catalog::instance_type(name) {
        None => out.push(Violation::new(
            Code::EKSGPU016,
            path.to_vec(),
            format!("{name:?} is not in the GPU catalog."),
        )),
        Some(t) if !t.is_nvidia_gpu() => out.push(Violation::new(
            Code::EKSGPU016,
            path.to_vec(),
            format!("{name} carries {} accelerators, not NVIDIA GPUs.", t.gpu_model),
        )),
        Some(t) => return Some(t),
    }
    None
}

/// EKSGPU101: a fractional-GPU type where the cluster schedules whole GPUs.
fn fractional_gpu(pool: &Pool, t: &InstanceType, path: &[Step], out: &mut Vec<Violation>) {
    if t.fractional && pool.capacity.is_in_cluster() {
        out.push(Violation::new(
            Code::EKSGPU101,
            path.to_vec(),
            format!("{} is a fractional-GPU type.", t.name),
        ));
    }
}

/// EKSGPU009: a type observed failing to provision on Auto Mode.
fn observed_failing_on_auto_mode(pool: &Pool, t: &InstanceType, path: &[Step], out: &mut Vec<Violation>) {
    if pool.capacity == Capacity::AutoMode && AUTO_MODE_OBSERVED_FAILURES.contains(&t.name) {
        out.push(Violation::new(
            Code::EKSGPU009,
            path.to_vec(),
            format!("{} was observed failing to provision on Auto Mode.", t.name),
        ));
    }
}
