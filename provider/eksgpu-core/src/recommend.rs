//! The decision table of EKS GPU node strategies as code: which capacity
//! kind, instance types and sharing strategy serve one model, how many GPUs
//! that uses and how many instances are billed. Sizing is an estimate stated
//! in the docs; prices are inputs, never built in.

use crate::rules::Code;
mod billing;
mod capacity_types;
mod choose;
mod decisions;
mod placement;
mod vendor;

use std::collections::BTreeMap;

pub use capacity_types::capacity_types;
pub use decisions::{DECISIONS, Decision};

use crate::model::Capacity;

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

/// How the model's weights are quantized, where that decides the vendor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantization {
    /// None beyond the precision.
    None,
    Awq,
    Gptq,
    Gguf,
}

impl Quantization {
    pub const ALL: [Quantization; 4] = [
        Quantization::None,
        Quantization::Awq,
        Quantization::Gptq,
        Quantization::Gguf,
    ];

    pub fn parse(s: &str) -> Option<Quantization> {
        Quantization::ALL.into_iter().find(|q| q.as_str() == s)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Quantization::None => "none",
            Quantization::Awq => "awq",
            Quantization::Gptq => "gptq",
            Quantization::Gguf => "gguf",
        }
    }
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
    /// The model uses custom CUDA kernels (NVIDIA only).
    pub custom_cuda_kernels: bool,
    pub quantization: Option<Quantization>,
    /// The user states that the model is available on Neuron; never guessed.
    pub available_on_neuron: bool,
    /// Data must stay on premises (Hybrid Nodes, NVIDIA).
    pub data_residency: bool,
    /// The clusters' Karpenter counts MIG slices through NodeOverlays (Karpenter 1.7+ with the
    /// `nodeOverlay` gate, from the provider's `karpenter_version` and `karpenter_feature_gates`).
    pub karpenter_node_overlay: bool,
    /// The clusters' Karpenter provisions static NodePools (Karpenter 1.8+ with the
    /// `staticCapacity` gate), which serve DRA claims.
    pub karpenter_static_capacity: bool,
    /// A development or test workload: quick start over utilisation.
    pub dev_test: bool,
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
    /// Whose accelerators: NVIDIA GPUs or AWS Neuron devices.
    pub accelerator: crate::catalog::Vendor,
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

/// The recommendation for one model, in the steps of the decision table: sizing, capacity
/// kind and sharing (`choose`), then the billed instance type and its cost (`billing`).
pub fn recommend(req: &Request) -> Result<Recommendation, RecommendError> {
    validate(req)?;
    let memory_gb = replica_memory_gb(req.model_params_b, req.precision);
    let mut why = vec![sizing(req, memory_gb)];
    if req.on_prem || req.data_residency {
        why.push(vendor::on_prem_reason(req));
        return Ok(on_prem(req, memory_gb, why));
    }
    let (mut accelerator, reason) = vendor::choose(req);
    why.push(reason);
    let mut candidates = choose::candidates(req, accelerator);
    // Neuron is a choice, not a requirement: when no Neuron type is a candidate (none priced in
    // `price_per_hour`) or none holds a replica, the model still runs on an NVIDIA type that fits.
    let neuron = (accelerator == crate::catalog::Vendor::Neuron).then(|| {
        let mut neuron_why = Vec::new();
        (choose::neuron(req, &candidates, memory_gb, &mut neuron_why), neuron_why)
    });
    let (capacity, sharing, placements) = match neuron {
        Some((chosen, neuron_why)) if !chosen.2.is_empty() => {
            why.extend(neuron_why);
            chosen
        }
        other => {
            if other.is_some() {
                accelerator = crate::catalog::Vendor::Nvidia;
                candidates = choose::candidates(req, accelerator);
                // The vendor reason said Neuron; it now says why NVIDIA.
                why.retain(|w| w.code != Code::EKSGPU211);
                why.push(vendor::no_neuron_fits(req));
            }
            choose::capacity_and_sharing(req, &candidates, memory_gb, &mut why)
        }
    };
    let Some(first) = placements.first() else {
        return Err(RecommendError::NothingFits {
            memory_gb,
            priced_only: !req.price_per_hour.is_empty(),
        });
    };
    if sharing != Sharing::Mig {
        why.push(choose::gpus_per_replica(first));
    }
    let best = billing::billed_placement(req, &placements);
    why.push(billing::billed_instances(req, &best, memory_gb));
    let monthly_cost = billing::monthly_cost(req, &best);
    why.push(billing::cost(req, &best, monthly_cost));
    let replicas = req.replicas;
    Ok(Recommendation {
        accelerator,
        capacity,
        instance_types: billing::instance_types(&best, &placements),
        sharing,
        mig_profile: best.mig.map(|(p, _)| p.name.to_owned()),
        memory_gb_per_replica: memory_gb,
        gpus_per_replica: if best.mig.is_some() { 0 } else { best.gpus_per_replica },
        gpus_used: Some(best.gpus_used(replicas)),
        billed_instances: best.billed(replicas),
        billed_instance_type: Some(best.instance.name.to_owned()),
        monthly_cost,
        rationale: why,
    })
}

fn validate(req: &Request) -> Result<(), RecommendError> {
    if req.model_params_b <= 0.0 || !req.model_params_b.is_finite() {
        return Err(RecommendError::Invalid(format!(
            "model_params_b must be a positive number of billions of parameters, not {}",
            req.model_params_b
        )));
    }
    if req.replicas == 0 {
        return Err(RecommendError::Invalid("replicas must be at least 1".into()));
    }
    Ok(())
}

/// EKSGPU210: the memory one replica needs.
fn sizing(req: &Request, memory_gb: f64) -> Reason {
    decisions::reason(
        Code::EKSGPU210,
        format!(
            "{} B parameters at {} take {:.1} GB; with {:.0} % headroom for KV cache a replica needs {memory_gb:.1} GB.",
            req.model_params_b,
            req.precision.as_str(),
            req.model_params_b * req.precision.bytes_per_param(),
            KV_CACHE_HEADROOM * 100.0
        ),
    )
}

/// EKSGPU201: on-prem GPUs join as EKS Hybrid Nodes; nothing is billed by AWS per instance.
fn on_prem(req: &Request, memory_gb: f64, mut why: Vec<Reason>) -> Recommendation {
    why.push(decisions::reason(
        Code::EKSGPU201,
        "On-prem GPUs join the cluster as EKS Hybrid Nodes; size them for the memory above.".into(),
    ));
    Recommendation {
        accelerator: crate::catalog::Vendor::Nvidia,
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
    }
}

#[cfg(test)]
mod tests;
