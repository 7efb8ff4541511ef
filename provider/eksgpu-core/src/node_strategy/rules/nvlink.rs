//! Multi-node NVLink (`multi_node_nvlink`): a DRA ComputeDomain for GB200-class UltraServers, as
//! the EKS user guide documents P6e-GB200 ("Use P6e-GB200 UltraServers with Amazon EKS",
//! https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-nvidia-ultraserver.html).

use super::instance_types::Selected;
use crate::catalog::InstanceType;
use crate::model::{Capacity, Pool};
use crate::rules::{At, Code, Step, Violation};

/// GB200-class: an EC2 UltraServer type whose instances share one NVLink domain across nodes
/// (the `p6e` family, EC2 P6e-GB200 UltraServers, https://aws.amazon.com/ec2/instance-types/p6/).
pub(crate) fn multi_node_nvlink_type(t: &InstanceType) -> bool {
    t.name.starts_with("p6e-")
}

/// EKSGPU185: a ComputeDomain is a DRA object the NVIDIA DRA driver serves: the pool's workloads
/// claim its channel through DRA, so the pool must serve DRA claims.
pub(super) fn nvlink_needs_dra(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    if pool.multi_node_nvlink && !pool.dra {
        out.push(Violation::new(
            Code::EKSGPU185,
            at(&[Step::Attr("multi_node_nvlink")]),
            format!("Pool {:?} sets multi_node_nvlink without dra = true.", pool.name),
        ));
    }
}

/// EKSGPU186: only GB200-class types have an NVLink domain spanning nodes; every type the pool
/// may launch must be one (a ComputeDomain on other nodes never gets an IMEX channel).
pub(super) fn nvlink_needs_gb200(pool: &Pool, types: &[Selected], at: &At<'_>, out: &mut Vec<Violation>) {
    if !pool.multi_node_nvlink {
        return;
    }
    for s in types.iter().filter(|s| !multi_node_nvlink_type(s.t)) {
        out.push(Violation::new(
            Code::EKSGPU186,
            s.path.clone(),
            format!("{} has no multi-node NVLink domain.", s.t.name),
        ));
    }
    if types.is_empty() {
        out.push(Violation::new(
            Code::EKSGPU186,
            at(&[Step::Attr("multi_node_nvlink")]),
            format!("Pool {:?} names no GB200-class instance type.", pool.name),
        ));
    }
}

/// EKSGPU187: `compute_domain_namespace` places the ComputeDomain, which only a
/// `multi_node_nvlink` pool has.
pub(super) fn namespace_needs_nvlink(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    if pool.compute_domain_namespace.is_some() && !pool.multi_node_nvlink {
        out.push(Violation::new(
            Code::EKSGPU187,
            at(&[Step::Attr("compute_domain_namespace")]),
            format!("Pool {:?} is not a multi_node_nvlink pool.", pool.name),
        ));
    }
}

/// EKSGPU188: the EKS user guide runs P6e-GB200 DRA on node groups: "DRA is not supported in
/// Karpenter or EKS Auto Mode" for these UltraServers.
pub(super) fn nvlink_on_node_groups(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    if pool.multi_node_nvlink && matches!(pool.capacity, Capacity::Karpenter | Capacity::AutoMode) {
        out.push(Violation::new(
            Code::EKSGPU188,
            at(&[Step::Attr("capacity")]),
            format!(
                "Pool {:?} is a {} pool; GB200 ComputeDomains run on managed node groups.",
                pool.name,
                pool.capacity.as_str()
            ),
        ));
    }
}
