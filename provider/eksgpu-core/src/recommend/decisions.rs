//! The decision rules of `eksgpu_recommendation`: every line of a rationale
//! names one, and `docs/guides/rules.md` lists them next to the validation rules.

use super::Reason;
use crate::rules::Code;

/// A decision rule: what it decides and where the decision comes from.
#[derive(Debug)]
pub struct Decision {
    pub code: Code,
    pub summary: &'static str,
    pub source: &'static str,
}

pub static DECISIONS: &[Decision] = &[
    Decision {
        code: Code::EKSGPU201,
        summary: "On-prem GPUs join as EKS Hybrid Nodes (no AWS-managed GPU stack on-prem).",
        source: "EKS user guide, Hybrid Nodes (https://docs.aws.amazon.com/eks/latest/userguide/hybrid-nodes-overview.html)",
    },
    Decision {
        code: Code::EKSGPU202,
        summary: "DRA workloads on Kubernetes 1.34 or later: a static Karpenter pool when the provider's Karpenter provisions static NodePools (1.8+ with `staticCapacity` in `karpenter_feature_gates`), else a managed node group, supported in every dated EKS doc state; multi-node NVLink (GB200) always on a node group.",
        source: "EKS user guide, DRA on Amazon EKS (https://docs.aws.amazon.com/eks/latest/userguide/device-management-dra.html); kubernetes-sigs/karpenter v1.8.0 static NodePools (spec.replicas); EKS user guide, Use P6e-GB200 UltraServers with Amazon EKS",
    },
    Decision {
        code: Code::EKSGPU203,
        summary: "Multi-node NVLink needs GB200/GB300 NVL72 capacity (p6e) with DRA ComputeDomains.",
        source: "NVIDIA k8s-dra-driver-gpu ComputeDomains; EC2 P6e-GB200 UltraServers (https://aws.amazon.com/ec2/instance-types/p6/)",
    },
    Decision {
        code: Code::EKSGPU204,
        summary: "MIG by model size: up to 13B on the smallest slice that fits 4–7 times per GPU (2 times when none holds it), 13–30B on one that fits 2 times, or any slice when MIG is asked for. On a Karpenter pool when the provider's Karpenter runs NodeOverlays (1.7+ with `nodeOverlay` in `karpenter_feature_gates`: the pool's overlay advertises the slices), else on a managed node group, because Karpenter counts `nvidia.com/mig-<profile>` as zero (EKSGPU122); Auto Mode cannot run MIG Manager.",
        source: "Model-size starting points of EKS GPU node strategies (≤7B MIG 4–7-way, 13–30B MIG 2-way, larger whole GPUs); kubernetes-sigs/karpenter v1.14.1 pkg/apis/v1alpha1 NodeOverlay (capacity), pkg/utils/resources",
    },
    Decision {
        code: Code::EKSGPU205,
        summary: "Whole GPUs (or Neuron devices) for models above 30B: the fewest per replica that hold it on one instance, rounded up to a power of two (tensor parallelism), then the smallest memory per GPU; more than one GPU per replica only where NVLink joins them (P families), and only GPUs that compute at the precision (BF16 from compute capability 8.0, FP8 from Ada and Hopper).",
        source: "Model-size starting points of EKS GPU node strategies (30–65B and 70B+: whole GPUs); EC2 accelerated computing instances (https://aws.amazon.com/ec2/instance-types/#Accelerated_Computing); CUDA C++ Programming Guide (bfloat16); NVIDIA Transformer Engine FP8 primer",
    },
    Decision {
        code: Code::EKSGPU206,
        summary: "Whole-GPU inference without Spot runs on EKS Auto Mode (driver and device plugin managed by AWS) on the families EKS documents for it, less the types observed to fail there (EKSGPU009) and less GPUs of the H200 class and later (H200, B200, B300, GB200), which field report 001 puts on EKS Standard Mode with Karpenter or node groups; when none of the rest holds the model, a Karpenter pool.",
        source: "EKS user guide, Auto Mode supported instances (https://docs.aws.amazon.com/eks/latest/userguide/automode-learn-instances.html); field report 001: simple GPU inference and 70B+ models on Auto Mode, 30–65B on Auto Mode or Karpenter, and for large GPUs (H200+, B200) EKS Standard Mode with Karpenter and managed node groups (p5.48xlarge seen provisioning on Auto Mode, p5en and p6 constrained, 2026-04)",
    },
    Decision {
        code: Code::EKSGPU207,
        summary: "Spot acceptable: a Karpenter pool with Spot first and on-demand as fallback.",
        source: "Karpenter docs v1.14, capacity types (https://karpenter.sh/v1.14/concepts/nodepools/): Spot first, on-demand fallback",
    },
    Decision {
        code: Code::EKSGPU208,
        summary: "Billed instances: instance-hours are billed, not GPUs; MIG or sharing saves money only when fewer instances are billed.",
        source: "EC2 On-Demand pricing per instance-hour (https://aws.amazon.com/ec2/pricing/on-demand/): 8 × 7B on one p5.48xlarge is 1 billed instance either way",
    },
    Decision {
        code: Code::EKSGPU209,
        summary: "Monthly cost only from `price_per_hour` (730 hours a month); never a built-in price.",
        source: "EC2 prices vary by region and over time (https://aws.amazon.com/ec2/pricing/)",
    },
    Decision {
        code: Code::EKSGPU210,
        summary: "Memory per replica: parameters × bytes per parameter (fp16/bf16 2, fp8 1, int4 0.5) plus 20 % for KV cache and activations.",
        source: "Weights at the parameter dtype plus a KV-cache allowance: an estimate to validate per dtype, context and batch",
    },
    Decision {
        code: Code::EKSGPU211,
        summary: "NVIDIA or AWS Neuron: Neuron (Trainium, Inferentia2) when the model is stated to be available on Neuron (`available_on_neuron`; never guessed) and nothing needs NVIDIA: custom CUDA kernels, AWQ/GPTQ/GGUF quantization, INT4 weights, MIG, multi-node NVLink or DRA, and a Neuron type holds a replica (among those in `price_per_hour` when it is given; else the NVIDIA type that fits); on premises (`on_prem`, `data_residency`) always NVIDIA on Hybrid Nodes, Neuron being EC2 only.",
        source: "AWS Neuron documentation: Neuron compiler (NEFF, no CUDA), data types (https://awsdocs-neuron.readthedocs-hosted.com/en/latest/about-neuron/arch/neuron-features/data-types.html); vLLM quantization hardware support (https://docs.vllm.ai/en/latest/features/quantization/supported_hardware.html); EKS Hybrid Nodes (https://docs.aws.amazon.com/eks/latest/userguide/hybrid-nodes-overview.html)",
    },
    Decision {
        code: Code::EKSGPU212,
        summary: "A Neuron model on whole Neuron devices (the fewest that hold a replica, NeuronLink joining them): Karpenter with Spot when acceptable, else EKS Auto Mode on the Neuron families it documents, else Karpenter with the Neuron device plugin (`neuron_values_yaml`). Inferentia (inf1) is not offered: Neuron's LLM serving runs on Inferentia2 and Trainium.",
        source: "EKS user guide, Auto Mode supported instances (https://docs.aws.amazon.com/eks/latest/userguide/automode-learn-instances.html); AWS Neuron, NxD Inference supported instances (https://awsdocs-neuron.readthedocs-hosted.com/en/latest/libraries/nxd-inference/)",
    },
    Decision {
        code: Code::EKSGPU213,
        summary: "Development and test (`dev_test`), any model size: EKS Auto Mode with whole GPUs on the families it documents below the H200 class, for a quick start; a Karpenter pool when none holds the model (H200-class and later GPUs on Standard Mode, as in EKSGPU206).",
        source: "EKS user guide, Auto Mode accelerated workloads (https://docs.aws.amazon.com/eks/latest/userguide/auto-accelerated.html); field report 001: dev/test on Auto Mode, large GPUs (H200+, B200) on EKS Standard Mode",
    },
];

pub(super) fn reason(code: Code, message: String) -> Reason {
    debug_assert!(DECISIONS.iter().any(|d| d.code == code), "unknown decision {code}");
    Reason { code, message }
}
