//! The capacity kind and sharing of a recommendation, in the order of the decision table:
//! multi-node NVLink or DRA, MIG by model size, Spot, then whole GPUs on Auto Mode or Karpenter.

use super::placement::{Placement, mig_placements, whole_gpu, whole_gpu_spanning};
use super::{LARGE_MODEL_B, MIG_SMALL_MAX_B, MIG_TWO_WAY_MAX_B, Reason, Request, Sharing, decisions};
use crate::catalog::{self, InstanceType};
use crate::model::Capacity;
use crate::rules::Code;
// Auto Mode recommendations use only types observed to provision there (EKSGPU009 warns of the others).
use crate::rules::AUTO_MODE_OBSERVED_WORKING;

/// The instance types a recommendation may use: whole NVIDIA GPUs, NVL72 capacity only for
/// multi-node NVLink, and only the priced types when prices are given.
pub(super) fn candidates(req: &Request) -> Vec<&'static InstanceType> {
    let priced = !req.price_per_hour.is_empty();
    catalog::instance_types()
        .iter()
        .filter(|t| t.is_nvidia_gpu() && !t.fractional && t.gpu_count > 0)
        // NVL72 UltraServer capacity (p6e) is for multi-node NVLink only.
        .filter(|t| req.multi_node_nvlink || !t.name.starts_with("p6e-"))
        .filter(|t| !priced || req.price_per_hour.contains_key(t.name))
        .collect()
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
    // MIG by model size (or on request), before any whole-GPU choice.
    if let Some(mig) = mig_by_size(req, candidates, memory_gb, why) {
        return (Capacity::ManagedNodeGroup, Sharing::Mig, mig);
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
    why.push(decisions::reason(
        Code::EKSGPU202,
        "DRA: a managed node group on Kubernetes 1.34 or later, supported in every EKS doc state.".into(),
    ));
    (
        Capacity::ManagedNodeGroup,
        Sharing::Dra,
        whole_gpu_spanning(&nvl, memory_gb, req.multi_node_nvlink),
    )
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
    why.push(decisions::reason(
        Code::EKSGPU204,
        format!(
            "{}: MIG on a managed node group. Static capacity, because Karpenter counts \
             nvidia.com/mig-<profile> as zero and launches no node for it (EKSGPU122); Auto Mode \
             cannot run MIG Manager.",
            if req.needs_mig { "MIG requested" } else { size }
        ),
    ));
    Some(mig)
}

/// EKSGPU206: whole-GPU inference on Auto Mode where a type observed to provision there holds
/// the model, else on Karpenter.
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
            whole_gpu(candidates, memory_gb),
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

/// EKSGPU205: the whole GPUs of one replica (not under MIG, where replicas share GPUs).
pub(super) fn gpus_per_replica(p: &Placement) -> Reason {
    decisions::reason(
        Code::EKSGPU205,
        format!(
            "{} GPU{} of {} per replica (tensor parallelism in powers of two), the smallest GPU memory that fits.",
            p.gpus_per_replica,
            if p.gpus_per_replica == 1 { "" } else { "s" },
            p.instance.gpu_model
        ),
    )
}
