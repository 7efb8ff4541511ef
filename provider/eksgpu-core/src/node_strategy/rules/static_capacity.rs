//! Static NodePools (`replicas`, karpenter.sh/v1 NodePool `spec.replicas`): the CRD's CEL rules on
//! the spec (karpenter-provider-aws v1.14.1 `pkg/apis/crds/karpenter.sh_nodepools.yaml`,
//! `x-kubernetes-validations` of `spec`), checked at plan so that apply is not where they fail,
//! and the release and gate Karpenter needs. The rule against adding or removing `replicas` on an
//! existing NodePool (`has(self.replicas) == has(oldSelf.replicas)`) is a plan of replacement, not
//! an error: the provider's plan warns (`resources/node_strategy/plan.rs`) and apply replaces.

use super::Context;
use crate::model::{Capacity, NodeStrategy, Pool};
use crate::rules::{At, Code, Step, Violation};

/// `spec.replicas` arrived in kubernetes-sigs/karpenter v1.8.0 (`pkg/apis/v1/nodepool.go`).
pub(crate) const STATIC_CAPACITY_KARPENTER: (u32, u32) = (1, 8);

/// The static capacity checks, in the order they report.
pub(super) fn check(s: &NodeStrategy, pool: &Pool, ctx: &Context, at: &At<'_>, out: &mut Vec<Violation>) {
    if !pool.capacity.is_in_cluster() {
        return;
    }
    if let Some(replicas) = pool.replicas {
        karpenter_static_capacity(s, pool, ctx, at, out);
        only_node_limit(pool, at, out);
        no_weight(pool, at, out);
        consolidation_ignored(pool, at, out);
        room_to_replace(pool, replicas, at, out);
    }
}

/// EKSGPU164: Karpenter provisions static NodePools from 1.8, with the `staticCapacity` gate
/// (off by default: aws/karpenter-provider-aws v1.14.1 charts/karpenter/values.yaml). Auto Mode
/// takes them with no gate (EKS user guide, "Static capacity NodePools in EKS Auto Mode").
fn karpenter_static_capacity(s: &NodeStrategy, pool: &Pool, ctx: &Context, at: &At<'_>, out: &mut Vec<Violation>) {
    if pool.capacity != Capacity::Karpenter {
        return;
    }
    let path = at(&[Step::Attr("replicas")]);
    let (major, minor) = ctx.karpenter_version;
    if ctx.karpenter_version < STATIC_CAPACITY_KARPENTER {
        out.push(Violation::new(
            Code::EKSGPU164,
            path,
            format!("Karpenter {major}.{minor} has no static NodePools (spec.replicas arrived in 1.8)."),
        ));
    } else if !s.karpenter_gates.static_capacity {
        out.push(Violation::new(
            Code::EKSGPU164,
            path,
            format!(
                "Pool {:?} is static, and the provider's karpenter_feature_gates do not list staticCapacity: \
                 Karpenter without the gate does not provision it.",
                pool.name
            ),
        ));
    }
}

/// EKSGPU160: CEL `!has(self.replicas) || (!has(self.limits) || size(self.limits) == 0 ||
/// (size(self.limits) == 1 && 'nodes' in self.limits))` — "only 'limits.nodes' is supported on
/// static NodePools".
fn only_node_limit(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    let others = [
        ("gpu_limit", pool.gpu_limit.is_some()),
        ("cpu_limit", pool.cpu_limit.is_some()),
        ("memory_limit", pool.memory_limit.is_some()),
    ];
    for (name, set) in others {
        if set {
            out.push(Violation::new(
                Code::EKSGPU160,
                at(&[Step::Attr(name)]),
                format!("Pool {:?} is static (replicas) and sets {name}.", pool.name),
            ));
        }
    }
}

/// EKSGPU161: CEL `!has(self.replicas) || !has(self.weight)` — "'weight' is not supported on
/// static NodePools".
fn no_weight(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    if pool.weight.is_some() {
        out.push(Violation::new(
            Code::EKSGPU161,
            at(&[Step::Attr("weight")]),
            format!("Pool {:?} is static (replicas) and sets weight.", pool.name),
        ));
    }
}

/// EKSGPU162: "When replicas is set, ConsolidationPolicy is simply ignored" (and
/// ConsolidateAfter): the CRD's field descriptions of `spec.disruption`.
fn consolidation_ignored(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    let Some(d) = &pool.disruption else {
        return;
    };
    let ignored: Vec<&str> = [
        ("consolidation_policy", d.consolidation_policy.is_some()),
        ("consolidate_after", d.consolidate_after.is_some()),
    ]
    .into_iter()
    .filter_map(|(n, set)| set.then_some(n))
    .collect();
    if !ignored.is_empty() {
        out.push(Violation::new(
            Code::EKSGPU162,
            at(&[Step::Attr("disruption")]),
            format!(
                "Pool {:?} is static (replicas): Karpenter ignores {}.",
                pool.name,
                ignored.join(" and ")
            ),
        ));
    }
}

/// EKSGPU163: `limits.nodes` at or below `replicas` leaves no room for the replacement node
/// Karpenter launches before it removes a drifted or expired one (EKS user guide, "Static
/// capacity NodePools in EKS Auto Mode": set `limits.nodes` above `replicas`).
fn room_to_replace(pool: &Pool, replicas: i64, at: &At<'_>, out: &mut Vec<Violation>) {
    if let Some(limit) = pool.node_limit
        && limit <= replicas
    {
        out.push(Violation::new(
            Code::EKSGPU163,
            at(&[Step::Attr("node_limit")]),
            format!("Pool {:?} has node_limit {limit} for {replicas} replicas.", pool.name),
        ));
    }
}

#[cfg(test)]
mod tests;
