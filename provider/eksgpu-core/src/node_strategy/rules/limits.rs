//! NodePool `limits` below one node: Karpenter drops every instance type whose capacity exceeds
//! what is left of a NodePool's limits before it picks one (kubernetes-sigs/karpenter v1.14.1
//! `pkg/controllers/provisioning/scheduling/scheduler.go`, `filterByRemainingResources` compares
//! `it.Capacity` with the remaining `spec.limits`). A limit below the smallest type's capacity
//! leaves no type: the pool never launches a node, and pods stay pending with nothing in the plan
//! saying why.
//!
//! Capacity as karpenter-provider-aws v1.14.1 `pkg/providers/instancetype/types.go` computes it:
//! `cpu` is the type's default vCPUs and the accelerator resource its device count (exact, so an
//! error); `memory` is EC2's memory less `--vm-memory-overhead-percent` (default 0.075, a Karpenter
//! setting the provider cannot see, so a warning).

use super::instance_types::Selected;
use crate::model::Pool;
use crate::rules::{At, Code, Step, Violation};
use crate::validate::quantity_value;

/// Karpenter's default VM memory overhead (karpenter-provider-aws v1.14.1
/// `pkg/operator/options/options.go`, `VM_MEMORY_OVERHEAD_PERCENT`).
const DEFAULT_VM_MEMORY_OVERHEAD: f64 = 0.075;

/// EKSGPU135 (accelerators, CPU) and EKSGPU136 (memory), on in-cluster pools with limits.
pub(super) fn check(pool: &Pool, selected: &[Selected], at: &At<'_>, out: &mut Vec<Violation>) {
    if !pool.capacity.is_in_cluster() || selected.is_empty() {
        return;
    }
    // `gpu_limit = 0` pauses the pool on purpose: Karpenter launches nothing more and keeps the
    // nodes it has (kubernetes-sigs/karpenter v1.14.1 website docs/concepts/nodepools.md, "Limits":
    // launches stop once a limit is reached, existing nodes stay). Not an error.
    let devices = pool.gpu_limit.filter(|l| *l != 0).map(|l| l as f64);
    exact_limit(
        pool,
        selected,
        "gpu_limit",
        devices,
        |t| f64::from(t.gpu_count),
        at,
        out,
    );
    let cpu = pool.cpu_limit.as_deref().and_then(quantity_value);
    exact_limit(pool, selected, "cpu_limit", cpu, |t| f64::from(t.vcpus), at, out);
    memory_limit(pool, selected, at, out);
}

/// The smallest of the pool's types by `size`.
fn smallest(selected: &[Selected], size: impl Fn(&crate::catalog::InstanceType) -> f64) -> (&'static str, f64) {
    selected
        .iter()
        .map(|s| (s.t.name, size(s.t)))
        .fold(("", f64::INFINITY), |a, b| if b.1 < a.1 { b } else { a })
}

/// EKSGPU135: a limit below the accelerators or vCPUs of every type the pool may launch.
fn exact_limit(
    pool: &Pool,
    selected: &[Selected],
    attr: &'static str,
    limit: Option<f64>,
    size: impl Fn(&crate::catalog::InstanceType) -> f64,
    at: &At<'_>,
    out: &mut Vec<Violation>,
) {
    let Some(limit) = limit else { return };
    let (name, least) = smallest(selected, size);
    if limit < least {
        let what = if attr == "gpu_limit" { "accelerators" } else { "vCPUs" };
        out.push(Violation::new(
            Code::EKSGPU135,
            at(&[Step::Attr(attr)]),
            format!(
                "Pool {:?} limits itself to {limit} {what}, and its smallest type, {name}, has {least}: Karpenter \
                 can launch no node of it.",
                pool.name
            ),
        ));
    }
}

/// EKSGPU136: a memory limit below every type's memory as Karpenter counts it by default.
fn memory_limit(pool: &Pool, selected: &[Selected], at: &At<'_>, out: &mut Vec<Violation>) {
    let Some(limit) = pool.memory_limit.as_deref().and_then(quantity_value) else {
        return;
    };
    let gib = |t: &crate::catalog::InstanceType| f64::from(t.memory_gib) * (1.0 - DEFAULT_VM_MEMORY_OVERHEAD);
    let (name, least) = smallest(selected, gib);
    let limit_gib = limit / 1024f64.powi(3);
    if limit_gib < least {
        out.push(Violation::new(
            Code::EKSGPU136,
            at(&[Step::Attr("memory_limit")]),
            format!(
                "Pool {:?} limits itself to {limit_gib:.1}Gi of memory, and its smallest type, {name}, counts about \
                 {least:.0}Gi (EC2's memory less Karpenter's default 7.5% VM overhead): Karpenter can launch no \
                 node of it.",
                pool.name
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::fixture;
    use crate::model::{Capacity, NodeStrategy, Pool};
    use crate::node_strategy::rules::{Context, check_node_strategy};
    use crate::rules::Code;

    fn codes(pool: Pool) -> Vec<Code> {
        let s = NodeStrategy {
            cluster_name: "c".into(),
            name: "s".into(),
            kubernetes_version: None,
            gpu_operator: None,
            device_plugin: None,
            pools: vec![pool],
            default_tags: Default::default(),
            karpenter_gates: Default::default(),
        };
        check_node_strategy(
            &s,
            &Context {
                karpenter_version: (1, 14),
            },
        )
        .into_iter()
        .map(|v| v.code)
        .filter(|c| matches!(c, Code::EKSGPU135 | Code::EKSGPU136))
        .collect()
    }

    fn pool(types: &[&str]) -> Pool {
        fixture::valid_pool("p", Capacity::Karpenter, types)
    }

    #[test]
    fn a_gpu_limit_below_one_node_never_launches() {
        let p = Pool {
            gpu_limit: Some(4),
            ..pool(&["p5.48xlarge"])
        };
        assert_eq!(codes(p), [Code::EKSGPU135]);
        // One type that fits is enough: Karpenter picks it.
        let p = Pool {
            gpu_limit: Some(4),
            ..pool(&["p5.48xlarge", "g6e.12xlarge"])
        };
        assert!(codes(p).is_empty());
        let p = Pool {
            gpu_limit: Some(8),
            ..pool(&["p5.48xlarge"])
        };
        assert!(codes(p).is_empty());
    }

    #[test]
    fn a_zero_gpu_limit_pauses_the_pool_and_is_not_refused() {
        let p = Pool {
            gpu_limit: Some(0),
            ..pool(&["p5.48xlarge"])
        };
        assert!(codes(p).is_empty());
        // A limit of 1 on 8-GPU types is still a limit that never launches.
        let p = Pool {
            gpu_limit: Some(1),
            ..pool(&["p5.48xlarge"])
        };
        assert_eq!(codes(p), [Code::EKSGPU135]);
    }

    #[test]
    fn cpu_limits_compare_quantities() {
        let p = Pool {
            cpu_limit: Some("191500m".into()),
            ..pool(&["p5.48xlarge"])
        };
        assert_eq!(codes(p), [Code::EKSGPU135]);
        let p = Pool {
            cpu_limit: Some("192".into()),
            ..pool(&["p5.48xlarge"])
        };
        assert!(codes(p).is_empty());
    }

    #[test]
    fn memory_limits_warn_against_the_default_overhead() {
        let p = Pool {
            memory_limit: Some("100Gi".into()),
            ..pool(&["p5.48xlarge"])
        };
        assert_eq!(codes(p), [Code::EKSGPU136]);
        let p = Pool {
            memory_limit: Some("4000Gi".into()),
            ..pool(&["p5.48xlarge"])
        };
        assert!(codes(p).is_empty());
    }
}
