//! Settings a pool's capacity kind does not take: the NodePool-only settings
//! on node groups and hybrid pools, the EC2NodeClass-only ones on Auto Mode,
//! a block of another capacity kind. One function, so that one table of which
//! kinds accept which field can replace its body.

use crate::model::{Capacity, Pool};
use crate::rules::{At, Code, Step, Violation};

/// EKSGPU006, 103, 124 (node class settings Auto Mode's NodeClass has not) and EKSGPU115
/// (settings of another capacity kind), in that order.
pub(super) fn misplaced_fields(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    let kind = pool.capacity;
    let mut on_auto_mode = |code: Code, attr: &'static str| {
        out.push(Violation::new(
            code,
            at(&[Step::Attr("node_class"), Step::Attr(attr)]),
            "This pool has capacity = \"auto_mode\".".into(),
        ));
    };
    if kind == Capacity::AutoMode
        && let Some(nc) = &pool.node_class
    {
        // The Auto Mode NodeClass has no kubelet block and no AMI selection
        // (EKS Auto Mode NodeClass reference).
        if nc.kubelet.is_some() {
            on_auto_mode(Code::EKSGPU006, "kubelet");
        }
        if nc.ami_alias.is_some() {
            on_auto_mode(Code::EKSGPU103, "ami_alias");
        }
        // EC2NodeClass settings the Auto Mode NodeClass does not have.
        if nc.metadata_options.is_some() {
            on_auto_mode(Code::EKSGPU124, "metadata_options");
        }
        if nc.instance_store_policy.is_some() {
            on_auto_mode(Code::EKSGPU124, "instance_store_policy");
        }
    }

    let mut misplaced = |attr: &'static str| {
        out.push(Violation::new(
            Code::EKSGPU115,
            at(&[Step::Attr(attr)]),
            format!("`{attr}` does not apply to a {} pool.", kind.as_str()),
        ));
    };
    if !kind.is_in_cluster() {
        // NodePool and node class settings (karpenter.sh/v1 NodePool spec.limits, weight,
        // template.spec.expireAfter, disruption, the zone requirement; the EC2NodeClass).
        let set = [
            ("node_class", pool.node_class.is_some()),
            ("disruption", pool.disruption.is_some()),
            ("gpu_limit", pool.gpu_limit.is_some()),
            ("cpu_limit", pool.cpu_limit.is_some()),
            ("memory_limit", pool.memory_limit.is_some()),
            ("weight", pool.weight.is_some()),
            ("expire_after", pool.expire_after.is_some()),
            ("zones", !pool.zones.is_empty()),
        ];
        for (attr, _) in set.into_iter().filter(|(_, set)| *set) {
            misplaced(attr);
        }
    } else if !pool.tags.is_empty() {
        // Karpenter tags what it launches from the node class: `node_class.tags`.
        misplaced("tags");
    }
    if kind != Capacity::ManagedNodeGroup && pool.managed_node_group.is_some() {
        misplaced("managed_node_group");
    }
    if kind != Capacity::Hybrid && pool.hybrid.is_some() {
        misplaced("hybrid");
    }
    if kind == Capacity::Hybrid && !pool.instance_types.is_empty() {
        misplaced("instance_types");
    }
}
