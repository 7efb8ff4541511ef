//! Where DRA (Dynamic Resource Allocation) claims can be served.

use super::Context;
use super::static_capacity::STATIC_CAPACITY_KARPENTER;
use crate::model::{Capacity, NodeStrategy, Pool};
use crate::rules::{At, Code, Step, Violation, parse_version};

/// Where DRA works, as one table to update when EKS changes (EKS user guide, DRA on Amazon EKS):
/// the lowest Kubernetes version per capacity kind, and Karpenter's release.
fn dra_minimum_kubernetes(capacity: Capacity) -> (u32, u32) {
    match capacity {
        // Auto Mode ships the NVIDIA DRA driver in its node runtime from 1.36.
        Capacity::AutoMode => (1, 36),
        // resource.k8s.io/v1 is GA in 1.34.
        Capacity::Karpenter | Capacity::ManagedNodeGroup | Capacity::Hybrid => (1, 34),
    }
}
/// Karpenter provisions nodes for DRA claims from 1.15 (Karpenter docs, tasks/dra, alpha).
const DRA_MINIMUM_KARPENTER: (u32, u32) = (1, 15);
/// Karpenter 1.14 schedules pods with claims against existing nodes when `ignoreDRARequests` is
/// false (kubernetes-sigs/karpenter v1.14.0 pkg/controllers/provisioning/scheduling/dra.go).
const DRA_ALLOCATOR_KARPENTER: (u32, u32) = (1, 14);

/// EKSGPU004: DRA on a Kubernetes version and Karpenter release that support it. On Karpenter, the
/// EKS user guide's NVIDIA DRA page documents static capacity (a NodePool with `replicas`, from
/// Karpenter 1.8, whose nodes exist before any claim); dynamic pools need 1.14 (claims on existing
/// nodes only, EKSGPU165) or 1.15 (nodes launched for claims, EKSGPU130).
pub(super) fn dra_supported(s: &NodeStrategy, pool: &Pool, ctx: &Context, at: &At<'_>, out: &mut Vec<Violation>) {
    if !pool.dra {
        return;
    }
    let k8s = s.kubernetes_version.as_deref().and_then(parse_version);
    let minimum = dra_minimum_kubernetes(pool.capacity);
    if let Some(v) = k8s
        && v < minimum
    {
        out.push(Violation::new(
            Code::EKSGPU004,
            at(&[Step::Attr("dra")]),
            format!(
                "Kubernetes {}.{} on {} needs {}.{} for DRA.",
                v.0,
                v.1,
                pool.capacity.as_str(),
                minimum.0,
                minimum.1
            ),
        ));
    }
    let (major, minor) = ctx.karpenter_version;
    let refused = match (pool.capacity, pool.replicas.is_some()) {
        // Static pools are checked for their release and gate by EKSGPU164.
        (Capacity::Karpenter, true) => None,
        (Capacity::Karpenter, false) if ctx.karpenter_version < DRA_ALLOCATOR_KARPENTER => Some(format!(
            "Karpenter {major}.{minor} does not schedule pods with DRA claims on a dynamic NodePool (1.14 does on \
             existing nodes, 1.15 provisions for them); a static pool (replicas, Karpenter {}.{}+) serves DRA.",
            STATIC_CAPACITY_KARPENTER.0, STATIC_CAPACITY_KARPENTER.1
        )),
        _ => None,
    };
    if let Some(message) = refused {
        out.push(Violation::new(Code::EKSGPU004, at(&[Step::Attr("dra")]), message));
    }
}

/// EKSGPU130: Karpenter provisions for DRA claims only with its alpha DRA support switched on.
pub(super) fn karpenter_dra_opt_in(pool: &Pool, ctx: &Context, at: &At<'_>, out: &mut Vec<Violation>) {
    if pool.dra
        && pool.capacity == Capacity::Karpenter
        && pool.replicas.is_none()
        && ctx.karpenter_version >= DRA_MINIMUM_KARPENTER
    {
        out.push(Violation::new(
            Code::EKSGPU130,
            at(&[Step::Attr("dra")]),
            format!(
                "Karpenter {}.{} provisions nodes for DRA claims only with settings.enableDRA (alpha).",
                ctx.karpenter_version.0, ctx.karpenter_version.1
            ),
        ));
    }
}

/// EKSGPU165 (an error): on Karpenter 1.14 a dynamic DRA pool gets no new node for a claim.
pub(super) fn karpenter_dra_existing_nodes(pool: &Pool, ctx: &Context, at: &At<'_>, out: &mut Vec<Violation>) {
    if pool.dra
        && pool.capacity == Capacity::Karpenter
        && pool.replicas.is_none()
        && (DRA_ALLOCATOR_KARPENTER..DRA_MINIMUM_KARPENTER).contains(&ctx.karpenter_version)
    {
        out.push(Violation::new(
            Code::EKSGPU165,
            at(&[Step::Attr("dra")]),
            format!(
                "Pool {:?} is a dynamic Karpenter pool on Karpenter 1.14: with settings.ignoreDRARequests=false \
                 only devices of existing nodes satisfy its claims.",
                pool.name
            ),
        ));
    }
}
