//! EKSGPU137 and EKSGPU138, for both places a shared count is set: the sharing pool's replicas (or
//! HAMi's split) and the node strategy pool's `eksgpu.terraform.io/gpu-replicas` label it hands
//! over. The count a node advertises is replicas × its GPUs, an int64 quantity
//! (k8s.io/apimachinery pkg/api/resource/quantity.go `Value()`); a fractional GPU (g6f, gr6f) is
//! 0 whole GPUs, so sharing it advertises nothing.

use crate::catalog::InstanceType;
use crate::render::shared_count;
use crate::rules::{Code, Step, Violation};

/// The violations of `per_gpu` shares per GPU on `types`, at `path`; `what` names the setting in
/// the message (`replicas = 4`, `eksgpu.terraform.io/gpu-replicas 4`).
pub(crate) fn check(per_gpu: i64, types: &[&InstanceType], path: &[Step], what: &str, out: &mut Vec<Violation>) {
    if per_gpu < 1 {
        return;
    }
    let fractional: Vec<&str> = types.iter().filter(|t| t.fractional).map(|t| t.name).collect();
    if !fractional.is_empty() {
        out.push(Violation::new(
            Code::EKSGPU138,
            path.to_vec(),
            format!(
                "{} {} a fractional GPU, counted as 0 whole GPUs: sharing it advertises no shared GPU.",
                fractional.join(", "),
                if fractional.len() == 1 { "is" } else { "are" }
            ),
        ));
    }
    let overflow: Vec<&str> = types
        .iter()
        .filter(|t| !t.fractional && shared_count(per_gpu, t).is_none())
        .map(|t| t.name)
        .collect();
    if !overflow.is_empty() {
        out.push(Violation::new(
            Code::EKSGPU137,
            path.to_vec(),
            format!(
                "{what} shares per GPU times the GPUs of {} is beyond int64, the largest count a node advertises.",
                overflow.join(", ")
            ),
        ));
    }
}
