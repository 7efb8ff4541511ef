//! The capacity kind and sharing of a recommendation, in the order of the decision table:
//! multi-node NVLink or DRA, MIG by model size, Spot, then whole GPUs on Auto Mode or Karpenter;
//! Neuron devices by the same rows where Neuron serves the model.

use super::placement::{Placement, mig_placements, runs_precision, whole_gpu, whole_gpu_spanning};
use super::{LARGE_MODEL_B, MIG_SMALL_MAX_B, MIG_TWO_WAY_MAX_B, Reason, Request, Sharing, decisions};
use crate::catalog::{self, AutoModeSupport, InstanceType, ObservedOutcome, Vendor};
use crate::model::Capacity;
use crate::rules::Code;

/// The instance types a recommendation may use: whole accelerators of the chosen vendor that
/// run the precision, NVL72 capacity only for multi-node NVLink, and only the priced types
/// when prices are given. Inferentia (inf1) is left out: Neuron's LLM serving (NxD Inference)
/// runs on Inferentia2 and Trainium.
pub(super) fn candidates(req: &Request, vendor: Vendor) -> Vec<&'static InstanceType> {
    let priced = !req.price_per_hour.is_empty();
    catalog::instance_types()
        .iter()
        .filter(|t| t.vendor() == vendor && !t.fractional && t.gpu_count > 0)
        .filter(|t| t.family() != "inf1")
        .filter(|t| runs_precision(t, req.precision))
        // NVL72 UltraServer capacity (p6e) is for multi-node NVLink only.
        .filter(|t| req.multi_node_nvlink || !t.name.starts_with("p6e-"))
        .filter(|t| !priced || req.price_per_hour.contains_key(t.name))
        .collect()
}

/// Types EKS documents for Auto Mode, less those observed to fail there (EKSGPU009 warns of
/// them): a recommendation should not be a plan that warns.
fn on_auto_mode(candidates: &[&'static InstanceType]) -> Vec<&'static InstanceType> {
    candidates
        .iter()
        .copied()
        .filter(|t| t.auto_mode_support() == AutoModeSupport::Documented)
        .filter(|t| {
            catalog::auto_mode_observation(t.name).is_none_or(|o| o.outcome != ObservedOutcome::FailedToProvision)
        })
        .collect()
}

/// EKSGPU212: a Neuron model on whole devices: Karpenter with Spot when acceptable, else Auto
/// Mode on the Neuron families it documents, else Karpenter (its Neuron pools get the device
/// plugin from `neuron_values_yaml`).
pub(super) fn neuron(
    req: &Request,
    candidates: &[&'static InstanceType],
    memory_gb: f64,
    why: &mut Vec<Reason>,
) -> (Capacity, Sharing, Vec<Placement>) {
    let auto = whole_gpu(&on_auto_mode(candidates), memory_gb);
    let (capacity, placements, how) = if req.spot_ok {
        (
            Capacity::Karpenter,
            whole_gpu(candidates, memory_gb),
            "Spot acceptable: a Karpenter pool with Spot first",
        )
    } else if auto.is_empty() {
        (
            Capacity::Karpenter,
            whole_gpu(candidates, memory_gb),
            "no Neuron family Auto Mode documents holds it: a Karpenter pool, with the Neuron device plugin from neuron_values_yaml",
        )
    } else {
        (
            Capacity::AutoMode,
            auto,
            "EKS Auto Mode, which ships the Neuron device plugin on the Neuron families it documents",
        )
    };
    why.push(decisions::reason(
        Code::EKSGPU212,
        format!("Neuron devices, whole ones per replica: {how}."),
    ));
    (capacity, Sharing::Exclusive, placements)
}

/// The first row of the decision table that applies, with its reason.
pub(super) fn capacity_and_sharing(
    req: &Request,
    candidates: &[&'static InstanceType],
    memory_gb: f64,
    why: &mut Vec<Reason>,
) -> (Capacity, Sharing, Vec<Placement>) {
    if req.multi_node_nvlink || req.needs_dra {
        return dra(req, candidates, memory_gb, why);
    }
    if req.dev_test {
        return dev_test(candidates, memory_gb, why);
    }
    // MIG by model size (or on request), before any whole-GPU choice.
    if let Some(mig) = mig_by_size(req, candidates, memory_gb, why) {
        let capacity = if req.karpenter_node_overlay {
            Capacity::Karpenter
        } else {
            Capacity::ManagedNodeGroup
        };
        return (capacity, Sharing::Mig, mig);
    }
    if req.spot_ok {
        why.push(decisions::reason(
            Code::EKSGPU207,
            "Spot acceptable: a Karpenter pool with Spot first and on-demand as fallback.".into(),
        ));
        return (
            Capacity::Karpenter,
            Sharing::Exclusive,
            whole_gpu(candidates, memory_gb),
        );
    }
    whole_gpu_inference(req, candidates, memory_gb, why)
}

/// EKSGPU203 (multi-node NVLink on p6e NVL72 capacity) and EKSGPU202 (DRA on a managed node group).
fn dra(
    req: &Request,
    candidates: &[&'static InstanceType],
    memory_gb: f64,
    why: &mut Vec<Reason>,
) -> (Capacity, Sharing, Vec<Placement>) {
    let nvl: Vec<_> = if req.multi_node_nvlink {
        candidates
            .iter()
            .copied()
            .filter(|t| t.name.starts_with("p6e-"))
            .collect()
    } else {
        candidates.to_vec()
    };
    if req.multi_node_nvlink {
        why.push(decisions::reason(
            Code::EKSGPU203,
            "Multi-node NVLink needs GB200/GB300 NVL72 capacity (p6e) and DRA ComputeDomains.".into(),
        ));
    }
    // GB200 stays on node groups: EKS's P6e-GB200 guide says DRA is not supported in Karpenter.
    let static_karpenter = req.karpenter_static_capacity && !req.multi_node_nvlink;
    let capacity = if static_karpenter {
        why.push(decisions::reason(
            Code::EKSGPU202,
            "DRA on a static Karpenter pool (replicas): the provider's Karpenter provisions static NodePools \
             (staticCapacity), whose nodes run whatever is pending, so claims land on them; size replicas to \
             the claims, on Kubernetes 1.34 or later."
                .into(),
        ));
        Capacity::Karpenter
    } else {
        why.push(decisions::reason(
            Code::EKSGPU202,
            "DRA: a managed node group on Kubernetes 1.34 or later, supported in every EKS doc state (a static \
             Karpenter pool would do too, with staticCapacity in the provider's karpenter_feature_gates on \
             Karpenter 1.8+; not for GB200)."
                .into(),
        ));
        Capacity::ManagedNodeGroup
    };
    (
        capacity,
        Sharing::Dra,
        whole_gpu_spanning(&nvl, memory_gb, req.multi_node_nvlink),
    )
}

/// The GPUs of the H200 class and later (Hopper H200, Blackwell B200/B300, Grace Blackwell
/// GB200/GB300), by the catalog's `gpu_model`. Field report 001's large-GPU recommendation:
/// for H200+ and B200, EKS Standard Mode with Karpenter and managed node groups, Auto Mode's
/// p5en/p6 provisioning having been constrained when it was checked (2026-04; p5.48xlarge,
/// H100, provisioned there). A test keeps every catalog GPU with H200's memory or more listed.
pub(super) const STANDARD_MODE_GPU_MODELS: &[&str] = &["H200", "B200", "B300", "GB200", "GB300"];

pub(super) fn standard_mode_gpu(t: &InstanceType) -> bool {
    t.is_nvidia_gpu()
        && STANDARD_MODE_GPU_MODELS
            .iter()
            .any(|m| t.gpu_model.eq_ignore_ascii_case(m))
}

/// Why whole GPUs went where they went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WholeGpuKind {
    /// A type Auto Mode documents, below the H200 class, holds the model.
    AutoMode,
    /// Only H200-class or later types among those Auto Mode documents hold it: Karpenter on
    /// Standard Mode, as field report 001 recommends for them.
    LargeGpuStandardMode,
    /// No type of a family Auto Mode documents holds it.
    NoAutoModeFamily,
}

/// Whole GPUs on EKS Auto Mode when a type of a family EKS documents for it (less those observed
/// to fail there, and less the H200 class and later, which field report 001 puts on Standard
/// Mode) holds the model, else on Karpenter.
fn auto_mode_or_karpenter(
    candidates: &[&'static InstanceType],
    memory_gb: f64,
) -> (Capacity, WholeGpuKind, Vec<Placement>) {
    let documented = on_auto_mode(candidates);
    let below_h200: Vec<_> = documented.iter().copied().filter(|t| !standard_mode_gpu(t)).collect();
    let on_auto = whole_gpu(&below_h200, memory_gb);
    if !on_auto.is_empty() {
        return (Capacity::AutoMode, WholeGpuKind::AutoMode, on_auto);
    }
    let kind = if whole_gpu(&documented, memory_gb).is_empty() {
        WholeGpuKind::NoAutoModeFamily
    } else {
        WholeGpuKind::LargeGpuStandardMode
    };
    (Capacity::Karpenter, kind, whole_gpu(candidates, memory_gb))
}

/// The reason text of a Karpenter pool chosen for H200-class GPUs (field report 001's row).
const LARGE_GPU_REASON: &str = "only GPUs of the H200 class or later (H200, B200, B300) among the families EKS \
     documents for Auto Mode hold it, and field report 001 recommends EKS Standard Mode with Karpenter or managed \
     node groups for H200+ and B200 GPUs (its large-GPU support status: p5en and p6 constrained on Auto Mode, \
     only p5.48xlarge seen provisioning there), so a Karpenter pool on Standard Mode";

/// EKSGPU213: development and test on EKS Auto Mode, whatever the model size: a quick start
/// (AWS manages driver, device plugin and nodes), with whole GPUs of the families it documents.
fn dev_test(
    candidates: &[&'static InstanceType],
    memory_gb: f64,
    why: &mut Vec<Reason>,
) -> (Capacity, Sharing, Vec<Placement>) {
    let (capacity, kind, placements) = auto_mode_or_karpenter(candidates, memory_gb);
    why.push(decisions::reason(
        Code::EKSGPU213,
        match kind {
            WholeGpuKind::AutoMode => "Development or test: EKS Auto Mode for a quick start (field report 001's \
                 dev/test row; driver, device plugin and nodes managed by AWS), whole GPUs below the H200 class, no \
                 MIG to set up."
                .into(),
            WholeGpuKind::LargeGpuStandardMode => format!("Development or test: {LARGE_GPU_REASON}."),
            WholeGpuKind::NoAutoModeFamily => {
                "Development or test: no family EKS documents for Auto Mode holds the model, so a Karpenter pool."
                    .into()
            }
        },
    ));
    (capacity, Sharing::Exclusive, placements)
}

/// EKSGPU204: MIG on a managed node group, by model size or on request; `None` when no slice
/// holds a replica (or the model is too large to share a GPU).
fn mig_by_size(
    req: &Request,
    candidates: &[&'static InstanceType],
    memory_gb: f64,
    why: &mut Vec<Reason>,
) -> Option<Vec<Placement>> {
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
        .map(|w| mig_placements(candidates, memory_gb, w))
        .find(|p| !p.is_empty())?;
    let size = if req.model_params_b < MIG_SMALL_MAX_B {
        "up to 13B: 4–7 slices per GPU where one holds it"
    } else {
        "13–30B: 2 slices per GPU"
    };
    let where_ = if req.karpenter_node_overlay {
        "MIG on a Karpenter pool: the provider's Karpenter runs with NodeOverlays, and the pool's overlay \
         advertises the nvidia.com/mig-<profile> slices Karpenter would otherwise count as zero"
    } else {
        "MIG on a managed node group: Karpenter counts nvidia.com/mig-<profile> as zero and launches no \
         node for it without a NodeOverlay (EKSGPU122; list nodeOverlay in the provider's \
         karpenter_feature_gates on Karpenter 1.7+ for a Karpenter pool instead)"
    };
    why.push(decisions::reason(
        Code::EKSGPU204,
        format!(
            "{}: {where_}; Auto Mode cannot run MIG Manager.",
            if req.needs_mig { "MIG requested" } else { size }
        ),
    ));
    Some(mig)
}

/// EKSGPU206: whole-GPU inference on Auto Mode on the families EKS documents for it (less the
/// types observed to fail there), else on Karpenter.
fn whole_gpu_inference(
    req: &Request,
    candidates: &[&'static InstanceType],
    memory_gb: f64,
    why: &mut Vec<Reason>,
) -> (Capacity, Sharing, Vec<Placement>) {
    let size = if req.model_params_b >= LARGE_MODEL_B {
        "70B+"
    } else if req.model_params_b > MIG_TWO_WAY_MAX_B {
        "30–70B"
    } else {
        "small"
    };
    let (capacity, kind, placements) = auto_mode_or_karpenter(candidates, memory_gb);
    let read = catalog::AUTO_MODE_TABLE_READ;
    let detail = match kind {
        WholeGpuKind::AutoMode => format!(
            "Whole-GPU inference of a {size} model: EKS Auto Mode ships driver and device plugin, as field report \
             001's rows say (simple GPU inference, 70B+ on Auto Mode; 30–65B on Auto Mode or Karpenter), on the \
             families EKS documents for it (table read {read}; types observed to fail there left out) below the \
             H200 class, which the report puts on Standard Mode (p5.48xlarge, H100, seen provisioning there)."
        ),
        WholeGpuKind::LargeGpuStandardMode => {
            format!("Whole-GPU inference of a {size} model: {LARGE_GPU_REASON}.")
        }
        WholeGpuKind::NoAutoModeFamily => format!(
            "Whole-GPU inference of a {size} model: no type of a family EKS documents for Auto Mode (table read \
             {read}) holds it, so a Karpenter pool."
        ),
    };
    why.push(decisions::reason(Code::EKSGPU206, detail));
    (capacity, Sharing::Exclusive, placements)
}

/// EKSGPU205: the whole GPUs of one replica (not under MIG, where replicas share GPUs).
pub(super) fn gpus_per_replica(p: &Placement) -> Reason {
    let (one, many) = if p.instance.is_neuron() {
        ("device", "devices")
    } else {
        ("GPU", "GPUs")
    };
    decisions::reason(
        Code::EKSGPU205,
        format!(
            "{} {} of {} per replica: the fewest that hold it on one instance (in powers of two, for tensor \
             parallelism{}), then the smallest memory per {one}.",
            p.gpus_per_replica,
            if p.gpus_per_replica == 1 { one } else { many },
            p.instance.gpu_model,
            if p.instance.is_neuron() {
                ""
            } else {
                "; over NVLink when more than one"
            },
        ),
    )
}
