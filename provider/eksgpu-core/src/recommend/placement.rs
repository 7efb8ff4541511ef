//! Ways to place a model's replicas on instance types: MIG slices or whole GPUs
//! (tensor parallelism in powers of two), and what each placement uses and bills.

use crate::catalog::{InstanceType, MigProfile, MigProfileName};

/// A way to place replicas on one instance type.
#[derive(Debug, Clone)]
pub(super) struct Placement {
    pub(super) instance: &'static InstanceType,
    /// MIG profile and how many fit on one GPU.
    pub(super) mig: Option<(&'static MigProfile, u32)>,
    pub(super) gpus_per_replica: u32,
}

impl Placement {
    /// Replicas one instance holds.
    fn replicas_per_instance(&self) -> u32 {
        match self.mig {
            Some((_, ways)) => self.instance.gpu_count * ways,
            None => self.instance.gpu_count / self.gpus_per_replica.max(1),
        }
    }

    pub(super) fn gpus_used(&self, replicas: u32) -> u32 {
        match self.mig {
            Some((_, ways)) => replicas.div_ceil(ways),
            None => replicas * self.gpus_per_replica,
        }
    }

    pub(super) fn billed(&self, replicas: u32) -> u32 {
        if self.gpus_per_replica > self.instance.gpu_count {
            // A replica spanning instances over multi-node NVLink.
            return replicas * self.gpus_per_replica.div_ceil(self.instance.gpu_count);
        }
        replicas.div_ceil(self.replicas_per_instance().max(1))
    }
}

#[allow(clippy::cast_precision_loss)]
fn profile_memory_gb(p: &MigProfile) -> f64 {
    p.memory_mib as f64 * 1_048_576.0 / 1e9
}

pub(super) fn gpu_memory_gb(t: &InstanceType) -> Option<f64> {
    t.gpu_memory_mib.map(|m| f64::from(m) * 1_048_576.0 / 1e9)
}

/// MIG placements on the GPU with the smallest fitting slice among the plain
/// profiles that fit `ways` times on one GPU (the driver-reported MiB of the slice
/// against the replica's need).
pub(super) fn mig_placements(
    candidates: &[&'static InstanceType],
    memory_gb: f64,
    ways: &std::ops::RangeInclusive<u32>,
) -> Vec<Placement> {
    let mut options: Vec<Placement> = Vec::new();
    for t in candidates {
        let Some(mig) = t.mig else { continue };
        let best = mig
            .profiles
            .iter()
            // Media-extension and graphics variants serve the same memory; plain profiles suffice.
            .filter(|p| MigProfileName::parse(p.name).is_some_and(|n| n.is_plain()))
            .filter(|p| profile_memory_gb(p) >= memory_gb)
            .filter(|p| ways.contains(&p.max_instances))
            .min_by_key(|p| (p.memory_mib, std::cmp::Reverse(p.max_instances)));
        if let Some(p) = best {
            options.push(Placement {
                instance: t,
                mig: Some((p, p.max_instances)),
                gpus_per_replica: 0,
            });
        }
    }
    let Some(smallest) = options.iter().filter_map(|o| o.mig.map(|(p, _)| p.memory_mib)).min() else {
        return options;
    };
    options.retain(|o| o.mig.is_some_and(|(p, _)| p.memory_mib == smallest));
    options.sort_by_key(|o| (o.instance.gpu_count, o.instance.name));
    options
}

/// One NVL72 NVLink domain: 72 GPUs (18 nodes of 4).
const NVLINK_DOMAIN_GPUS: u32 = 72;

/// Whole-GPU placements on the GPU model with the smallest memory that holds a
/// replica on one instance, then the fewest GPUs: GPUs per replica rounded up
/// to a power of two (tensor parallelism).
pub(super) fn whole_gpu(candidates: &[&'static InstanceType], memory_gb: f64) -> Vec<Placement> {
    whole_gpu_spanning(candidates, memory_gb, false)
}

/// As [`whole_gpu`]; with `multi_node`, a replica may span one NVLink domain.
pub(super) fn whole_gpu_spanning(
    candidates: &[&'static InstanceType],
    memory_gb: f64,
    multi_node: bool,
) -> Vec<Placement> {
    let mut options: Vec<(u32, f64, Placement)> = Vec::new();
    for t in candidates {
        let Some(mem) = gpu_memory_gb(t) else { continue };
        let most = if multi_node { NVLINK_DOMAIN_GPUS } else { t.gpu_count };
        // Exact integer ceiling of memory / per-GPU memory, at least one GPU.
        let needed = (1..=most).find(|n| f64::from(*n) * mem >= memory_gb);
        let Some(needed) = needed else { continue };
        let gpus = needed.next_power_of_two();
        if gpus > most {
            continue;
        }
        options.push((
            gpus,
            mem,
            Placement {
                instance: t,
                mig: None,
                gpus_per_replica: gpus,
            },
        ));
    }
    // The smallest GPU memory that fits, then the fewest GPUs of it.
    let Some((gpus, mem)) = options
        .iter()
        .map(|(g, m, _)| (*g, *m))
        .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)))
    else {
        return Vec::new();
    };
    let mut out: Vec<Placement> = options
        .into_iter()
        .filter(|(g, m, _)| *g == gpus && (*m - mem).abs() < 0.5)
        .map(|(_, _, p)| p)
        .collect();
    out.sort_by_key(|p| (p.instance.gpu_count, p.instance.name));
    out
}
