//! The billed instance type of a recommendation and what it costs: instance-hours
//! are billed, not GPUs, and prices are inputs, never built in.

use super::placement::{Placement, gpu_memory_gb};
use super::{HOURS_PER_MONTH, Reason, Request, decisions};
use crate::rules::Code;

/// The monthly cost of a placement, from `price_per_hour` only.
pub(super) fn monthly_cost(req: &Request, p: &Placement) -> Option<f64> {
    req.price_per_hour
        .get(p.instance.name)
        .map(|price| price * f64::from(p.billed(req.replicas)) * HOURS_PER_MONTH)
}

/// The billed placement: cheapest with prices, else fewest instances, then fewest GPUs.
/// `placements` is not empty.
pub(super) fn billed_placement(req: &Request, placements: &[Placement]) -> Placement {
    let replicas = req.replicas;
    let cost = |p: &Placement| monthly_cost(req, p);
    placements
        .iter()
        .min_by(|a, b| {
            let by_cost = match (cost(a), cost(b)) {
                (Some(x), Some(y)) => x.total_cmp(&y),
                _ => std::cmp::Ordering::Equal,
            };
            by_cost
                .then(a.billed(replicas).cmp(&b.billed(replicas)))
                .then((a.billed(replicas) * a.instance.gpu_count).cmp(&(b.billed(replicas) * b.instance.gpu_count)))
        })
        .cloned()
        .unwrap_or_else(|| placements[0].clone())
}

/// EKSGPU208: the GPUs the replicas use against the instances billed, and under MIG what
/// whole GPUs would use instead.
pub(super) fn billed_instances(req: &Request, best: &Placement, memory_gb: f64) -> Reason {
    let replicas = req.replicas;
    let billed = best.billed(replicas);
    let gpus_used = best.gpus_used(replicas);
    let total_gpus = billed * best.instance.gpu_count;
    let mut message = format!(
        "{replicas} replica{} use {gpus_used} of {total_gpus} GPUs on {billed} × {}.",
        if replicas == 1 { "" } else { "s" },
        best.instance.name
    );
    if let Some((profile, ways)) = best.mig {
        let whole = Placement {
            mig: None,
            gpus_per_replica: 1,
            ..best.clone()
        };
        let fits_whole = gpu_memory_gb(best.instance).is_some_and(|m| m >= memory_gb);
        message.push_str(&format!(" MIG {} puts {ways} replicas on each GPU", profile.name));
        if fits_whole {
            message.push_str(&format!(
                "; whole GPUs would use {} GPUs on {} instance{}",
                whole.gpus_used(replicas),
                whole.billed(replicas),
                if whole.billed(replicas) == 1 { "" } else { "s" }
            ));
        }
        message.push_str(
            ". Instance-hours are billed, not GPUs: density saves money only when fewer instances are billed.",
        );
    }
    decisions::reason(Code::EKSGPU208, message)
}

/// EKSGPU209: the monthly cost from `price_per_hour`, or why it stays null.
pub(super) fn cost(req: &Request, best: &Placement, monthly_cost: Option<f64>) -> Reason {
    let billed = best.billed(req.replicas);
    decisions::reason(
        Code::EKSGPU209,
        match (monthly_cost, req.price_per_hour.get(best.instance.name)) {
            (Some(c), Some(p)) => format!(
                "{billed} × {} at {p} USD/h × {HOURS_PER_MONTH} h = {c:.0} USD per month (from price_per_hour).",
                best.instance.name
            ),
            _ => format!(
                "No price given for {}: monthly_cost stays null (prices are inputs, never built in).",
                best.instance.name
            ),
        },
    )
}

/// The candidate instance types, the billed one first.
pub(super) fn instance_types(best: &Placement, placements: &[Placement]) -> Vec<String> {
    let mut instance_types: Vec<String> = vec![best.instance.name.to_owned()];
    for p in placements {
        if !instance_types.iter().any(|t| t == p.instance.name) {
            instance_types.push(p.instance.name.to_owned());
        }
    }
    instance_types
}
