//! The shared count a pool's nodes advertise: replicas (or HAMi's split) × GPUs per node, as the
//! sharing pool hands it over in the `eksgpu.terraform.io/gpu-replicas` label
//! (`sharing::handover`). The NodeOverlay renders that product; these rules refuse it where it is
//! no count a node can advertise, so no wrapped number reaches a manifest.

use crate::catalog::InstanceType;
use crate::model::Pool;
use crate::render::DEVICE_PLUGIN_CONFIG;
use crate::rules::{At, Code, Step, Violation};
use crate::sharing::handover::GPU_REPLICAS;

/// The pool shares its GPUs: device-plugin time-slicing / MPS (a config label) or HAMi (`gpu=on`).
fn shares(pool: &Pool) -> bool {
    pool.labels.contains_key(DEVICE_PLUGIN_CONFIG) || pool.labels.get("gpu").map(String::as_str) == Some("on")
}

/// EKSGPU137 (the product beyond int64, or a label that is no integer) and EKSGPU138 (sharing a
/// fractional GPU), for the pool's catalog types.
pub(super) fn check(pool: &Pool, types: &[&InstanceType], at: &At<'_>, out: &mut Vec<Violation>) {
    let Some(raw) = pool.labels.get(GPU_REPLICAS) else {
        return;
    };
    if !shares(pool) {
        return;
    }
    let path = || at(&[Step::Attr("labels"), Step::Key(GPU_REPLICAS.to_owned())]);
    let Ok(replicas) = raw.parse::<i64>() else {
        out.push(Violation::new(
            Code::EKSGPU137,
            path(),
            format!("{GPU_REPLICAS} is {raw:?}, not an integer a node can advertise (int64)."),
        ));
        return;
    };
    crate::sharing::counts::check(replicas, types, &path(), &format!("{GPU_REPLICAS} {replicas}"), out);
}
