//! EKSGPU012: the memory the pool's `workload` blocks declare against one GPU and each share.

use super::super::{SharingPool, Strategy};
use crate::catalog::{InstanceType, MigLayout};
use crate::rules::{Code, Step, Violation};

/// EKSGPU012: the declared workloads' memory against one GPU (shared strategies) and against
/// each workload's share (a MIG profile, a HAMi quota, a whole GPU). `mem` is the MiB of the
/// smallest GPU the pool may get.
pub(super) fn workload_memory(p: &SharingPool, gpus: &[&'static InstanceType], mem: i64, out: &mut Vec<Violation>) {
    let total: i64 = p.workloads.iter().map(|w| w.memory_mib).sum();
    let shared = match p.strategy {
        Strategy::TimeSlicing | Strategy::Mps | Strategy::Hami => true,
        Strategy::Dra => p.dra.as_ref().is_some_and(|d| d.sharing != "exclusive"),
        Strategy::Exclusive | Strategy::Mig => false,
    };
    let scaling = p
        .hami
        .as_ref()
        .filter(|_| p.strategy == Strategy::Hami)
        .map_or(1.0, |h| h.memory_scaling);
    #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
    let budget = (mem as f64 * scaling) as i64;
    if shared && total > budget {
        out.push(Violation::new(
            Code::EKSGPU012,
            vec![Step::Attr("workload")],
            format!(
                "The workloads declare {total} MiB together; one GPU of {} has {budget} MiB.",
                gpus.first().map_or("this pool", |t| t.name)
            ),
        ));
    }
    let per_share = match p.strategy {
        Strategy::Mig => smallest_profile_mib(p),
        Strategy::Hami => p.hami.as_ref().and_then(|h| h.memory_mib),
        _ if !shared => Some(mem),
        _ => None,
    };
    let Some(limit) = per_share else {
        return;
    };
    for (i, w) in p.workloads.iter().enumerate() {
        if w.memory_mib > limit {
            out.push(Violation::new(
                Code::EKSGPU012,
                vec![Step::Attr("workload"), Step::Index(i), Step::Attr("memory_mib")],
                format!(
                    "Workload {:?} declares {} MiB; its share has {limit} MiB.",
                    w.name, w.memory_mib
                ),
            ));
        }
    }
}

fn smallest_profile_mib(p: &SharingPool) -> Option<i64> {
    let gpu = p.gpus().first().and_then(|t| t.mig)?;
    let mig = p.mig.as_ref()?;
    let names: Vec<String> = if mig.profiles.is_empty() {
        match mig.config.as_deref().map(MigLayout::parse) {
            Some(MigLayout::Balanced) => gpu.balanced.iter().map(|(n, _)| (*n).to_owned()).collect(),
            Some(MigLayout::All(profile)) => vec![profile.to_string()],
            _ => vec![],
        }
    } else {
        mig.profiles.keys().cloned().collect()
    };
    names
        .iter()
        .filter_map(|n| gpu.profile(n))
        // The MiB the driver reports for the profile, not a figure derived from its name.
        .map(|pr| i64::try_from(pr.memory_mib).unwrap_or(i64::MAX))
        .min()
}
