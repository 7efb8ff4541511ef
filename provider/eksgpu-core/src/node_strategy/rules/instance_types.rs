//! A pool's instance types: NVIDIA GPU types of the catalog, whole GPUs where
//! the cluster schedules them, and types Auto Mode is seen to provision.

use super::AUTO_MODE_OBSERVED_FAILURES;
use super::Context;
use crate::catalog::{self, InstanceType};
use crate::model::{Capacity, NodeStrategy, Pool};
use crate::rules::{At, Code, Step, Violation};

/// Each instance type through EKSGPU016, 101 and 009 in turn (so a pool's violations stay in
/// instance-type order); the NVIDIA GPU types found, for the checks that follow.
pub(super) fn check(
    s: &NodeStrategy,
    pool: &Pool,
    ctx: &Context,
    at: &At<'_>,
    out: &mut Vec<Violation>,
) -> Vec<&'static InstanceType> {
    let mut types = Vec::new();
    for (j, name) in pool.instance_types.iter().enumerate() {
        let path = at(&[Step::Attr("instance_types"), Step::Index(j)]);
        let Some(t) = nvidia_gpu_type(name, &path, out) else {
            continue;
        };
        fractional_gpu(s, pool, ctx, t, &path, out);
        observed_failing_on_auto_mode(pool, t, &path, out);
        types.push(t);
    }
    types
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

/// EKSGPU101: a fractional-GPU type where the cluster schedules whole GPUs, unless the pool's
/// NodeOverlay gives it its `nvidia.com/gpu`.
fn fractional_gpu(
    s: &NodeStrategy,
    pool: &Pool,
    ctx: &Context,
    t: &InstanceType,
    path: &[Step],
    out: &mut Vec<Violation>,
) {
    if t.fractional && pool.capacity.is_in_cluster() && !super::overlay::answered_for(s, pool, t) {
        let how = if pool.capacity == Capacity::Karpenter {
            format!(" {}", super::overlay::how_to_overlay(s, pool, ctx.karpenter_version))
        } else {
            String::new()
        };
        out.push(Violation::new(
            Code::EKSGPU101,
            path.to_vec(),
            format!("{} is a fractional-GPU type.{how}", t.name),
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
