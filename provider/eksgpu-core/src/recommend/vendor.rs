//! NVIDIA or AWS Neuron, from what the user states about the model: the provider never guesses
//! whether a model runs on Neuron (`available_on_neuron` is an input). Neuron serves a model
//! that is available there when nothing the workload needs is NVIDIA's alone.

use super::{Precision, Quantization, Reason, Request, decisions};
use crate::catalog::Vendor;
use crate::rules::Code;

/// What makes a workload NVIDIA's, first that applies; `None` when Neuron may serve it.
fn needs_nvidia(req: &Request) -> Option<String> {
    if req.custom_cuda_kernels {
        // Neuron runs graphs compiled by the Neuron compiler (NEFF), not CUDA kernels.
        return Some("the model uses custom CUDA kernels, which Neuron cannot run".into());
    }
    if let Some(q) = req.quantization.filter(|q| q.needs_nvidia()) {
        return Some(format!(
            "{} quantization runs on CUDA serving backends; Neuron serves BF16, FP16 and FP8 weights",
            q.as_str().to_uppercase()
        ));
    }
    if req.precision == Precision::Int4 {
        return Some("int4 weights: Neuron's data types are BF16, FP16, FP8 and INT8, not INT4".into());
    }
    if req.needs_mig {
        return Some("MIG is an NVIDIA GPU feature".into());
    }
    if req.multi_node_nvlink {
        return Some("multi-node NVLink is NVIDIA GB200/GB300 NVL72 capacity".into());
    }
    if req.needs_dra {
        return Some("the recommendation's DRA rows are NVIDIA's (EKSGPU202)".into());
    }
    if !req.available_on_neuron {
        return Some(
            "the model is not stated to be available on Neuron (available_on_neuron = false): new models \
             usually run on CUDA first, and Neuron ports follow"
                .into(),
        );
    }
    None
}

/// EKSGPU211: the accelerator vendor and why.
pub(super) fn choose(req: &Request) -> (Vendor, Reason) {
    match needs_nvidia(req) {
        Some(why) => (
            Vendor::Nvidia,
            decisions::reason(Code::EKSGPU211, format!("NVIDIA GPUs: {why}.")),
        ),
        None => (
            Vendor::Neuron,
            decisions::reason(
                Code::EKSGPU211,
                "AWS Neuron (Trainium, Inferentia): the model is available on Neuron and needs nothing only \
                 NVIDIA has, so it can serve as the volume layer; keep new models on NVIDIA until they are ported."
                    .into(),
            ),
        ),
    }
}

/// EKSGPU211 when Neuron was chosen but no Neuron type can serve: the NVIDIA types are next.
pub(super) fn no_neuron_fits(req: &Request) -> Reason {
    let among = if req.price_per_hour.is_empty() {
        ""
    } else {
        " among those in price_per_hour"
    };
    decisions::reason(
        Code::EKSGPU211,
        format!("NVIDIA GPUs: the model is available on Neuron, but no Neuron type{among} holds a replica."),
    )
}

/// EKSGPU211 on the on-prem path: Neuron exists only on EC2.
pub(super) fn on_prem_reason(req: &Request) -> Reason {
    let why = if req.data_residency {
        "data must stay on premises"
    } else {
        "the GPUs are on premises"
    };
    decisions::reason(
        Code::EKSGPU211,
        format!("NVIDIA GPUs: {why}, and AWS Neuron exists only on EC2 (no Hybrid Nodes)."),
    )
}

impl Quantization {
    /// AWQ, GPTQ and GGUF kernels are CUDA's (vLLM's quantization support matrix); Neuron
    /// serves BF16, FP16 and FP8 (and INT8 weights).
    pub(super) fn needs_nvidia(self) -> bool {
        matches!(self, Quantization::Awq | Quantization::Gptq | Quantization::Gguf)
    }
}
