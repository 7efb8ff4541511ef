//! Where DRA (Dynamic Resource Allocation) claims can be served.

use super::Context;
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
const DRA_MINIMUM_KARPENTER: (u32, u32) = (1, 15);

/// EKSGPU004: DRA on a Kubernetes version and Karpenter release that support it.
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
    if pool.capacity == Capacity::Karpenter && ctx.karpenter_version < DRA_MINIMUM_KARPENTER {
        out.push(Violation::new(
            Code::EKSGPU004,
            at(&[Step::Attr("dra")]),
            format!(
                "Karpenter {}.{} does not provision for DRA claims (1.15 does).",
                ctx.karpenter_version.0, ctx.karpenter_version.1
            ),
        ));
    }
}

/// EKSGPU130: Karpenter provisions for DRA claims only with its alpha DRA support switched on.
pub(super) fn karpenter_dra_opt_in(pool: &Pool, ctx: &Context, at: &At<'_>, out: &mut Vec<Violation>) {
    if pool.dra && pool.capacity == Capacity::Karpenter && ctx.karpenter_version >= DRA_MINIMUM_KARPENTER {
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
