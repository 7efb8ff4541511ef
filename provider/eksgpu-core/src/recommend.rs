//! The decision table of EKS GPU node strategies as code: which capacity
//! kind, instance types and sharing strategy serve one model, how many GPUs
//! that uses and how many instances are billed. Sizing is an estimate stated
//! in the docs; prices are inputs, never built in.

use crate::rules::Code;
mod decisions;

use std::collections::BTreeMap;

pub use decisions::{DECISIONS, Decision};

use crate::catalog::{self, InstanceType, MigProfile, MigProfileName};
use crate::model::Capacity;
// Auto Mode recommendations use only types observed to provision there (EKSGPU009 warns of the others).
use crate::rules::AUTO_MODE_OBSERVED_WORKING;

/// Memory a replica needs beyond its weights, for KV cache and activations:
/// 20 % of the weights (a common starting point; long contexts and large
/// batches need more — validate per workload, as the field reports say).
pub const KV_CACHE_HEADROOM: f64 = 0.2;

/// Hours in a billing month, as AWS prices monthly figures (365 × 24 / 12).
pub const HOURS_PER_MONTH: f64 = 730.0;

/// The model-size classes of the decision table (billions of parameters; starting
/// points to validate per dtype, context and batch): up to 13B share a GPU 4–7 ways
/// with MIG (2 ways when no 4–7-way slice holds them), 13–30B 2 ways, larger models
/// take whole GPUs; 70B and larger are "large" in the rationale.
const MIG_SMALL_MAX_B: f64 = 13.0;
const MIG_TWO_WAY_MAX_B: f64 = 30.0;
const LARGE_MODEL_B: f64 = 70.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    Fp16,
    Bf16,
    Fp8,
    Int4,
}

impl Precision {
    pub const ALL: [Precision; 4] = [Precision::Fp16, Precision::Bf16, Precision::Fp8, Precision::Int4];

    pub fn parse(s: &str) -> Option<Precision> {
        Precision::ALL.into_iter().find(|p| p.as_str() == s)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Precision::Fp16 => "fp16",
            Precision::Bf16 => "bf16",
            Precision::Fp8 => "fp8",
            Precision::Int4 => "int4",
        }
    }

    pub fn bytes_per_param(self) -> f64 {
        match self {
            Precision::Fp16 | Precision::Bf16 => 2.0,
            Precision::Fp8 => 1.0,
            Precision::Int4 => 0.5,
        }
    }
}

/// GB (10^9 bytes) one replica needs: weights plus [`KV_CACHE_HEADROOM`].
pub fn replica_memory_gb(model_params_b: f64, precision: Precision) -> f64 {
    model_params_b * precision.bytes_per_param() * (1.0 + KV_CACHE_HEADROOM)
}

/// A GB figure as reported to users: to 0.1 GB, as precise as the estimate is.
pub fn round_gb(gb: f64) -> f64 {
    (gb * 10.0).round() / 10.0
}

/// What the user says about the workload.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub model_params_b: f64,
    pub precision: Precision,
    pub replicas: u32,
    pub needs_mig: bool,
    pub needs_dra: bool,
    pub on_prem: bool,
    pub spot_ok: bool,
    pub multi_node_nvlink: bool,
    /// USD per instance-hour by instance type; when given, only these types are candidates.
    pub price_per_hour: BTreeMap<String, f64>,
}

/// How GPUs are shared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sharing {
    /// Whole GPUs per replica.
    Exclusive,
    /// MIG slices, several replicas per GPU.
    Mig,
    /// Whole GPUs claimed through DRA ResourceClaims.
    Dra,
}

impl Sharing {
    pub fn as_str(self) -> &'static str {
        match self {
            Sharing::Exclusive => "exclusive",
            Sharing::Mig => "mig",
            Sharing::Dra => "dra",
        }
    }
}

/// One line of the rationale: the decision rule and what it decided here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason {
    pub code: Code,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Recommendation {
    pub capacity: Capacity,
    /// Candidate instance types, the billed one first; empty for on-prem.
    pub instance_types: Vec<String>,
    pub sharing: Sharing,
    /// The MIG profile of each replica (`1g.20gb`) when sharing is MIG.
    pub mig_profile: Option<String>,
    /// Memory one replica needs, in GB (10^9 bytes).
    pub memory_gb_per_replica: f64,
    /// Whole GPUs of one replica (0 under MIG: replicas share GPUs).
    pub gpus_per_replica: u32,
    /// GPUs the replicas occupy (a GPU holding any MIG slice counts); `None` on-prem.
    pub gpus_used: Option<u32>,
    /// Instances billed per hour: instance-hours are billed, not GPUs.
    pub billed_instances: u32,
    pub billed_instance_type: Option<String>,
    /// Only from `price_per_hour`; `None` without a price for the billed type.
    pub monthly_cost: Option<f64>,
    pub rationale: Vec<Reason>,
}

/// Why no recommendation could be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RecommendError {
    #[error("{0}")]
    Invalid(String),
    #[error(
        "no instance type{} fits {memory_gb:.0} GB per replica on one instance",
        if *.priced_only { " among those in price_per_hour" } else { "" }
    )]
    NothingFits { memory_gb: f64, priced_only: bool },
}

/// A way to place replicas on one instance type.
#[derive(Debug, Clone)]
struct Placement {
    instance: &'static InstanceType,
    /// MIG profile and how many fit on one GPU.
    mig: Option<(&'static MigProfile, u32)>,
    gpus_per_replica: u32,
}

impl Placement {
    /// Replicas one instance holds.
    fn replicas_per_instance(&self) -> u32 {
        match self.mig {
            Some((_, ways)) => self.instance.gpu_count * ways,
            None => self.instance.gpu_count / self.gpus_per_replica.max(1),
        }
    }

    fn gpus_used(&self, replicas: u32) -> u32 {
        match self.mig {
            Some((_, ways)) => replicas.div_ceil(ways),
            None => replicas * self.gpus_per_replica,
        }
    }

    fn billed(&self, replicas: u32) -> u32 {
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

fn gpu_memory_gb(t: &InstanceType) -> Option<f64> {
    t.gpu_memory_mib.map(|m| f64::from(m) * 1_048_576.0 / 1e9)
}

/// The recommendation for one model.
pub fn recommend(req: &Request) -> Result<Recommendation, RecommendError> {
    if req.model_params_b <= 0.0 || !req.model_params_b.is_finite() {
        return Err(RecommendError::Invalid(format!(
            "model_params_b must be a positive number of billions of parameters, not {}",
            req.model_params_b
        )));
    }
    if req.replicas == 0 {
        return Err(RecommendError::Invalid("replicas must be at least 1".into()));
    }
    let memory_gb = replica_memory_gb(req.model_params_b, req.precision);
    let mut why = vec![decisions::reason(
        Code::EKSGPU210,
        format!(
            "{} B parameters at {} take {:.1} GB; with {:.0} % headroom for KV cache a replica needs {memory_gb:.1} GB.",
            req.model_params_b,
            req.precision.as_str(),
            req.model_params_b * req.precision.bytes_per_param(),
            KV_CACHE_HEADROOM * 100.0
        ),
    )];

    if req.on_prem {
        why.push(decisions::reason(
            Code::EKSGPU201,
            "On-prem GPUs join the cluster as EKS Hybrid Nodes; size them for the memory above.".into(),
        ));
        return Ok(Recommendation {
            capacity: Capacity::Hybrid,
            instance_types: Vec::new(),
            sharing: if req.needs_dra {
                Sharing::Dra
            } else {
                Sharing::Exclusive
            },
            mig_profile: None,
            memory_gb_per_replica: memory_gb,
            gpus_per_replica: 0,
            gpus_used: None,
            billed_instances: 0,
            billed_instance_type: None,
            monthly_cost: None,
            rationale: why,
        });
    }

    let priced = !req.price_per_hour.is_empty();
    let candidates: Vec<&'static InstanceType> = catalog::instance_types()
        .iter()
        .filter(|t| t.is_nvidia_gpu() && !t.fractional && t.gpu_count > 0)
        // NVL72 UltraServer capacity (p6e) is for multi-node NVLink only.
        .filter(|t| req.multi_node_nvlink || !t.name.starts_with("p6e-"))
        .filter(|t| !priced || req.price_per_hour.contains_key(t.name))
        .collect();

    // Capacity kind and sharing, in the order of the decision table.
    let (capacity, sharing, placements) = if req.multi_node_nvlink || req.needs_dra {
        let nvl: Vec<_> = if req.multi_node_nvlink {
            candidates
                .iter()
                .copied()
                .filter(|t| t.name.starts_with("p6e-"))
                .collect()
        } else {
            candidates.clone()
        };
        if req.multi_node_nvlink {
            why.push(decisions::reason(
                Code::EKSGPU203,
                "Multi-node NVLink needs GB200/GB300 NVL72 capacity (p6e) and DRA ComputeDomains.".into(),
            ));
        }
        why.push(decisions::reason(
            Code::EKSGPU202,
            "DRA: a managed node group on Kubernetes 1.34 or later, supported in every EKS doc state.".into(),
        ));
        (
            Capacity::ManagedNodeGroup,
            Sharing::Dra,
            whole_gpu_spanning(&nvl, memory_gb, req.multi_node_nvlink),
        )
    } else {
        // MIG by model size (or on request), before any whole-GPU choice.
        let ways: &[std::ops::RangeInclusive<u32>] = if req.needs_mig {
            &[1..=7]
        } else if req.model_params_b < MIG_SMALL_MAX_B {
            &[4..=7, 2..=2]
        } else if req.model_params_b <= MIG_TWO_WAY_MAX_B {
            &[2..=2]
        } else {
            &[]
        };
        let mig = ways
            .iter()
            .map(|w| mig_placements(&candidates, memory_gb, w))
            .find(|p| !p.is_empty())
            .unwrap_or_default();
        if !mig.is_empty() {
            let size = if req.model_params_b < MIG_SMALL_MAX_B {
                "up to 13B: 4–7 slices per GPU where one holds it"
            } else {
                "13–30B: 2 slices per GPU"
            };
            why.push(decisions::reason(
                Code::EKSGPU204,
                format!(
                    "{}: MIG on a managed node group. Static capacity, because Karpenter counts \
                     nvidia.com/mig-<profile> as zero and launches no node for it (EKSGPU122); Auto Mode \
                     cannot run MIG Manager.",
                    if req.needs_mig { "MIG requested" } else { size }
                ),
            ));
            (Capacity::ManagedNodeGroup, Sharing::Mig, mig)
        } else if req.spot_ok {
            why.push(decisions::reason(
                Code::EKSGPU207,
                "Spot acceptable: a Karpenter pool with Spot first and on-demand as fallback.".into(),
            ));
            (
                Capacity::Karpenter,
                Sharing::Exclusive,
                whole_gpu(&candidates, memory_gb),
            )
        } else {
            let size = if req.model_params_b >= LARGE_MODEL_B {
                "70B+"
            } else if req.model_params_b > MIG_TWO_WAY_MAX_B {
                "30–70B"
            } else {
                "small"
            };
            // Auto Mode only on types observed to provision there.
            let auto: Vec<_> = candidates
                .iter()
                .copied()
                .filter(|t| AUTO_MODE_OBSERVED_WORKING.contains(&t.name))
                .collect();
            let on_auto = whole_gpu(&auto, memory_gb);
            if on_auto.is_empty() {
                why.push(decisions::reason(
                    Code::EKSGPU206,
                    format!(
                        "Whole-GPU inference of a {size} model: no type observed to provision on Auto Mode ({}) \
                         holds it, so a Karpenter pool.",
                        AUTO_MODE_OBSERVED_WORKING.join(", ")
                    ),
                ));
                (
                    Capacity::Karpenter,
                    Sharing::Exclusive,
                    whole_gpu(&candidates, memory_gb),
                )
            } else {
                why.push(decisions::reason(
                    Code::EKSGPU206,
                    format!(
                        "Whole-GPU inference of a {size} model: EKS Auto Mode ships driver and device plugin, \
                         on types observed to provision there ({}).",
                        AUTO_MODE_OBSERVED_WORKING.join(", ")
                    ),
                ));
                (Capacity::AutoMode, Sharing::Exclusive, on_auto)
            }
        }
    };
    if placements.is_empty() {
        return Err(RecommendError::NothingFits {
            memory_gb,
            priced_only: priced,
        });
    }
    if sharing != Sharing::Mig {
        let p = &placements[0];
        why.push(decisions::reason(
            Code::EKSGPU205,
            format!(
                "{} GPU{} of {} per replica (tensor parallelism in powers of two), the smallest GPU memory that fits.",
                p.gpus_per_replica,
                if p.gpus_per_replica == 1 { "" } else { "s" },
                p.instance.gpu_model
            ),
        ));
    }

    // The billed instance type: cheapest with prices, else fewest instances, then fewest GPUs.
    let replicas = req.replicas;
    let cost = |p: &Placement| {
        req.price_per_hour
            .get(p.instance.name)
            .map(|price| price * f64::from(p.billed(replicas)) * HOURS_PER_MONTH)
    };
    let best = placements
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
        .unwrap_or_else(|| placements[0].clone());
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
    why.push(decisions::reason(Code::EKSGPU208, message));
    let monthly_cost = cost(&best);
    why.push(decisions::reason(
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
    ));

    let mut instance_types: Vec<String> = vec![best.instance.name.to_owned()];
    for p in &placements {
        if !instance_types.iter().any(|t| t == p.instance.name) {
            instance_types.push(p.instance.name.to_owned());
        }
    }
    Ok(Recommendation {
        capacity,
        instance_types,
        sharing,
        mig_profile: best.mig.map(|(p, _)| p.name.to_owned()),
        memory_gb_per_replica: memory_gb,
        gpus_per_replica: if best.mig.is_some() { 0 } else { best.gpus_per_replica },
        gpus_used: Some(gpus_used),
        billed_instances: billed,
        billed_instance_type: Some(best.instance.name.to_owned()),
        monthly_cost,
        rationale: why,
    })
}

/// MIG placements on the GPU with the smallest fitting slice among the plain
/// profiles that fit `ways` times on one GPU (the driver-reported MiB of the slice
/// against the replica's need).
fn mig_placements(
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
fn whole_gpu(candidates: &[&'static InstanceType], memory_gb: f64) -> Vec<Placement> {
    whole_gpu_spanning(candidates, memory_gb, false)
}

/// As [`whole_gpu`]; with `multi_node`, a replica may span one NVLink domain.
fn whole_gpu_spanning(candidates: &[&'static InstanceType], memory_gb: f64, multi_node: bool) -> Vec<Placement> {
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

#[cfg(test)]
mod tests;
