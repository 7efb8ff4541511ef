//! Ways to place a model's replicas on instance types: MIG slices or whole GPUs
//! (tensor parallelism in powers of two), and what each placement uses and bills.

use super::Precision;
use crate::catalog::{InstanceType, MigProfile, MigProfileName};

/// NVIDIA GPU models without BF16 (compute capability below 8.0: CUDA C++ Programming Guide,
/// "bfloat16" arithmetic on devices of compute capability 8.0 and higher,
/// https://docs.nvidia.com/cuda/cuda-c-programming-guide/) and without FP8 (before Ada and
/// Hopper: NVIDIA Transformer Engine, "FP8 ... on Hopper, Ada and Blackwell GPUs",
/// https://docs.nvidia.com/deeplearning/transformer-engine/user-guide/examples/fp8_primer.html).
/// INT4 weight kernels (AWQ, GPTQ in vLLM) need compute capability 7.5, which V100 (7.0) lacks
/// (vLLM quantization hardware support, https://docs.vllm.ai/en/latest/features/quantization/supported_hardware.html).
const NO_BF16: &[&str] = &["V100", "T4", "T4G"];
const NO_FP8: &[&str] = &["V100", "T4", "T4G", "A10G", "A100"];
const NO_INT4: &[&str] = &["V100"];

/// Whether the type's accelerator computes at `precision` natively. Neuron devices take BF16,
/// FP16 and FP8 (AWS Neuron, data types: https://awsdocs-neuron.readthedocs-hosted.com/en/latest/about-neuron/arch/neuron-features/data-types.html);
/// INT4 is decided at the vendor step.
pub(super) fn runs_precision(t: &InstanceType, precision: Precision) -> bool {
    if t.is_neuron() {
        return precision != Precision::Int4;
    }
    let refused = match precision {
        Precision::Fp16 => &[][..],
        Precision::Bf16 => NO_BF16,
        Precision::Fp8 => NO_FP8,
        Precision::Int4 => NO_INT4,
    };
    !refused.iter().any(|m| t.gpu_model.eq_ignore_ascii_case(m))
}

/// EC2 families whose GPUs are joined by NVLink (NVSwitch on p4, p5 and p6): tensor parallelism
/// across GPUs of one replica needs it; the G families join their GPUs over PCIe only (EC2
/// accelerated computing instances, https://aws.amazon.com/ec2/instance-types/#Accelerated_Computing,
/// and the P3, P4, P5 and P6 pages). Neuron devices of one instance are joined by NeuronLink
/// (AWS Neuron, Inf2, Trn1 and Trn2 architecture guides).
const NVLINK_FAMILIES: &[&str] = &[
    "p3",
    "p3dn",
    "p4d",
    "p4de",
    "p5",
    "p5e",
    "p5en",
    "p6-b200",
    "p6-b300",
    "p6e-gb200",
];

fn devices_linked(t: &InstanceType) -> bool {
    t.is_neuron() || NVLINK_FAMILIES.contains(&t.family())
}

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

/// Memory per accelerator in GB: per GPU, or per Neuron device.
pub(super) fn gpu_memory_gb(t: &InstanceType) -> Option<f64> {
    t.accelerator_memory_mib().map(|m| f64::from(m) * 1_048_576.0 / 1e9)
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

/// Whole-GPU placements with the fewest GPUs (or Neuron devices) per replica that hold it on one
/// instance, rounded up to a power of two (tensor parallelism), then the smallest memory per
/// GPU: fewer GPUs per replica mean less tensor-parallel traffic, and the smallest GPU that
/// holds it leaves the larger ones to larger models. More than one GPU per replica only where
/// NVLink joins them.
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
        if gpus > most || (gpus > 1 && !devices_linked(t)) {
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
    // The fewest GPUs that fit, then the smallest GPU memory of them.
    let Some((gpus, mem)) = options
        .iter()
        .map(|(g, m, _)| (*g, *m))
        .min_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)))
    else {
        return Vec::new();
    };
    let mut out: Vec<Placement> = options
        .into_iter()
        .filter(|(g, m, _)| *g == gpus && (*m - mem).abs() < 0.5)
        .map(|(_, _, p)| p)
        .collect();
    // Of equal GPUs, the smallest instance first (inf2.xlarge before inf2.8xlarge).
    out.sort_by_key(|p| (p.instance.gpu_count, p.instance.vcpus, p.instance.name));
    out
}
