//! The catalog types a pool may launch today: its `instance_types`, narrowed by its
//! `requirements`, or (without `instance_types`) every catalog type the requirements
//! admit (`catalog::labels`). What the rules check and what `matched_instance_types` shows.
//!
//! Karpenter launches a type for a pod only if the type offers what the pod requests
//! (kubernetes-sigs/karpenter v1.14.1 scheduling: instance types are filtered by requests
//! before the cheapest is picked), so for pods requesting `nvidia.com/gpu` it never picks a
//! fractional-GPU type (g6f, gr6f: Karpenter advertises no `nvidia.com/gpu` on them) or a
//! Neuron type: those stay out of the match (and on a Neuron pool, whose vendor its listed types
//! set, the NVIDIA types). Auto Mode launches only the families its
//! documented table names (`catalog::auto_mode_supports`).

use crate::catalog::labels::{Selector, admits, confines_to_accelerators};
use crate::catalog::{self, AutoModeSupport, InstanceType};
use crate::model::{Capacity, Pool, Requirement};

/// A pool's requirements as the matcher reads them.
pub fn selectors(requirements: &[Requirement]) -> Vec<Selector<'_>> {
    requirements
        .iter()
        .map(|r| Selector {
            key: &r.key,
            operator: &r.operator,
            values: &r.values,
        })
        .collect()
}

/// EKS Auto Mode's own instance labels, with the Karpenter label of the same meaning: Auto Mode
/// NodePools select types by `eks.amazonaws.com/instance-*` (EKS user guide, Create a Node Pool
/// for EKS Auto Mode, supported labels: https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html#auto-supported-labels).
/// On a Karpenter cluster no node has them, so only `auto_mode` pools read them this way; an
/// Auto Mode node carries none of the Karpenter ones (EKSGPU313). Every `eks.amazonaws.com/instance-*`
/// label of that table, by its Karpenter twin (aws/karpenter-provider-aws v1.14.1 `pkg/apis/v1/labels.go`);
/// the catalog reads the ones it has a column for (`catalog::labels::label`).
const AUTO_MODE_LABELS: &[(&str, &str)] = &[
    (
        "eks.amazonaws.com/instance-hypervisor",
        "karpenter.k8s.aws/instance-hypervisor",
    ),
    (
        "eks.amazonaws.com/instance-encryption-in-transit-supported",
        "karpenter.k8s.aws/instance-encryption-in-transit-supported",
    ),
    (
        "eks.amazonaws.com/instance-cpu-manufacturer",
        "karpenter.k8s.aws/instance-cpu-manufacturer",
    ),
    (
        "eks.amazonaws.com/instance-ebs-bandwidth",
        "karpenter.k8s.aws/instance-ebs-bandwidth",
    ),
    (
        "eks.amazonaws.com/instance-network-bandwidth",
        "karpenter.k8s.aws/instance-network-bandwidth",
    ),
    (
        "eks.amazonaws.com/instance-local-nvme",
        "karpenter.k8s.aws/instance-local-nvme",
    ),
    (
        "eks.amazonaws.com/instance-category",
        "karpenter.k8s.aws/instance-category",
    ),
    (
        "eks.amazonaws.com/instance-generation",
        "karpenter.k8s.aws/instance-generation",
    ),
    ("eks.amazonaws.com/instance-family", "karpenter.k8s.aws/instance-family"),
    ("eks.amazonaws.com/instance-size", "karpenter.k8s.aws/instance-size"),
    ("eks.amazonaws.com/instance-cpu", "karpenter.k8s.aws/instance-cpu"),
    ("eks.amazonaws.com/instance-memory", "karpenter.k8s.aws/instance-memory"),
    (
        "eks.amazonaws.com/instance-gpu-name",
        "karpenter.k8s.aws/instance-gpu-name",
    ),
    (
        "eks.amazonaws.com/instance-gpu-manufacturer",
        "karpenter.k8s.aws/instance-gpu-manufacturer",
    ),
    (
        "eks.amazonaws.com/instance-gpu-count",
        "karpenter.k8s.aws/instance-gpu-count",
    ),
    (
        "eks.amazonaws.com/instance-gpu-memory",
        "karpenter.k8s.aws/instance-gpu-memory",
    ),
];

/// The Auto Mode label of the same meaning as the Karpenter label `karpenter_key`, if Auto Mode has one.
pub fn auto_mode_label(karpenter_key: &str) -> Option<&'static str> {
    AUTO_MODE_LABELS
        .iter()
        .find(|(_, k)| *k == karpenter_key)
        .map(|(a, _)| *a)
}

/// Whether a requirement with `operator` holds on a node without its label (Kubernetes node
/// affinity: `NotIn` and `DoesNotExist` match a node that lacks the key; k8s.io/api core/v1
/// NodeSelectorOperator).
pub fn holds_without_label(operator: &str) -> bool {
    matches!(operator, "NotIn" | "DoesNotExist")
}

/// A pool's requirements as the matcher reads them, Auto Mode's own labels read as Karpenter's
/// on `auto_mode` pools ([`AUTO_MODE_LABELS`]).
pub fn pool_selectors(pool: &Pool) -> Vec<Selector<'_>> {
    let mut out = selectors(&pool.requirements);
    if pool.capacity == Capacity::AutoMode {
        for s in &mut out {
            if let Some((_, k)) = AUTO_MODE_LABELS.iter().find(|(a, _)| *a == s.key) {
                s.key = k;
            }
        }
    }
    out
}

/// What a pool's requirements match.
#[derive(Debug, Default)]
pub struct Matched {
    /// The accelerated types of the pool's vendor it may launch for accelerator pods (whole
    /// NVIDIA GPUs, or Neuron devices), in catalog order.
    pub types: Vec<&'static InstanceType>,
    /// Catalog types the requirements admit of another vendor than the pool's (Neuron types on
    /// an NVIDIA pool): Karpenter may launch them for other pods.
    pub others: Vec<&'static InstanceType>,
    /// Fractional-GPU types the requirements admit (NVIDIA nodes, but no `nvidia.com/gpu`).
    pub fractional: Vec<&'static InstanceType>,
    /// Types the requirements admit that Auto Mode's documented table leaves out.
    pub auto_mode_undocumented: Vec<&'static InstanceType>,
    /// The first requirement after which nothing is left, if any.
    pub emptied_by: Option<usize>,
    /// Some requirement keeps Karpenter inside accelerated types (or instance types are listed).
    pub confined: bool,
}

/// The match of an in-cluster pool with requirements; `None` for other pools.
pub fn matched(pool: &Pool) -> Option<Matched> {
    if pool.requirements.is_empty() || !pool.capacity.is_in_cluster() {
        return None;
    }
    let listed: Vec<&'static InstanceType> = pool
        .instance_types
        .iter()
        .filter_map(|t| catalog::instance_type(t))
        .collect();
    let mut left: Vec<&'static InstanceType> = if pool.instance_types.is_empty() {
        catalog::instance_types().iter().collect()
    } else {
        listed
    };
    let selectors = pool_selectors(pool);
    let mut m = Matched {
        confined: !pool.instance_types.is_empty() || selectors.iter().any(|s| confines_to_accelerators(*s)),
        ..Matched::default()
    };
    for (k, s) in selectors.iter().enumerate() {
        // On `auto_mode` pools a `karpenter.k8s.aws/` label is on no node (EKSGPU312, EKSGPU313):
        // the requirement holds on every type or on none, whatever the catalog says.
        let absent = pool.capacity == Capacity::AutoMode
            && pool
                .requirements
                .get(k)
                .is_some_and(|r| r.key.starts_with("karpenter.k8s.aws/"));
        left.retain(|t| {
            if absent {
                holds_without_label(s.operator)
            } else {
                admits(t, *s) != Some(false)
            }
        });
        if left.is_empty() && m.emptied_by.is_none() {
            m.emptied_by = Some(k);
        }
    }
    // One pool, one vendor (EKSGPU150): the pool's vendor is its listed types' (NVIDIA without).
    let vendor = pool.vendor();
    for t in left {
        if t.vendor() != vendor {
            m.others.push(t);
        } else if t.fractional && !overlay_gives_gpu(pool, t) {
            m.fractional.push(t);
        } else if pool.capacity == Capacity::AutoMode && t.auto_mode_support() == AutoModeSupport::NotDocumented {
            m.auto_mode_undocumented.push(t);
        } else {
            m.types.push(t);
        }
    }
    Some(m)
}

/// Whether one of the pool's hand-written NodeOverlays gives `t` an `nvidia.com/gpu` capacity
/// (the g6f overlay of Karpenter's docs, aws/karpenter-provider-aws
/// website/content/en/docs/concepts/nodeoverlays.md @1d927085 "Fractional GPU Instances"): then
/// Karpenter launches the fractional type for GPU pods too.
fn overlay_gives_gpu(pool: &Pool, t: &InstanceType) -> bool {
    pool.node_overlays.iter().any(|o| {
        o.capacity.contains_key("nvidia.com/gpu") && crate::catalog::labels::admits_all(t, &selectors(&o.requirements))
    })
}

/// The `matched_instance_types` output: with requirements, the catalog types they match today;
/// without, the pool's `instance_types`.
pub fn matched_instance_types(pool: &Pool) -> Vec<String> {
    match matched(pool) {
        Some(m) => m.types.iter().map(|t| t.name.to_owned()).collect(),
        None => pool.instance_types.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture;

    fn req(key: &str, operator: &str, values: &[&str]) -> Requirement {
        Requirement {
            key: key.into(),
            operator: operator.into(),
            values: values.iter().map(|v| (*v).to_owned()).collect(),
        }
    }

    #[test]
    fn requirements_alone_select_from_the_catalog() {
        let p = Pool {
            requirements: vec![
                req("karpenter.k8s.aws/instance-family", "In", &["g6e", "g6f"]),
                req("karpenter.k8s.aws/instance-gpu-count", "Gt", &["3"]),
            ],
            ..fixture::pool("p", Capacity::Karpenter, &[])
        };
        let names = matched_instance_types(&p);
        assert_eq!(names, ["g6e.12xlarge", "g6e.24xlarge", "g6e.48xlarge"]);
    }

    #[test]
    fn listed_types_are_narrowed_and_auto_mode_bounds_the_match() {
        let p = Pool {
            requirements: vec![req("karpenter.k8s.aws/instance-gpu-name", "NotIn", &["a10g"])],
            ..fixture::pool("p", Capacity::Karpenter, &["g5.xlarge", "g6e.xlarge"])
        };
        assert_eq!(matched_instance_types(&p), ["g6e.xlarge"]);
        let auto = Pool {
            requirements: vec![req("eks.amazonaws.com/instance-family", "In", &["g7", "g6"])],
            ..fixture::pool("a", Capacity::AutoMode, &[])
        };
        let m = matched(&auto).expect("requirements");
        assert!(m.types.iter().all(|t| t.family() == "g6"));
        assert!(!m.auto_mode_undocumented.is_empty() && m.auto_mode_undocumented.iter().all(|t| t.family() == "g7"));
    }

    #[test]
    fn the_requirement_that_leaves_nothing_is_named() {
        let p = Pool {
            requirements: vec![
                req("karpenter.k8s.aws/instance-category", "In", &["p"]),
                req("karpenter.k8s.aws/instance-gpu-name", "In", &["l40s"]),
            ],
            ..fixture::pool("p", Capacity::Karpenter, &[])
        };
        let m = matched(&p).expect("requirements");
        assert_eq!(m.emptied_by, Some(1));
        assert!(m.types.is_empty());
    }
}
