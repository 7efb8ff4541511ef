//! EFA (Elastic Fabric Adapter) for multi-node training: checked only on pools with `efa = true`.

use super::instance_types::Selected;
use crate::model::{Capacity, Pool};
use crate::rules::{At, Code, Step, Violation};

/// EKSGPU126: EFA needs EFA-capable types (listed, or matched by the requirements) and
/// capacity that attaches EFA interfaces.
pub(super) fn efa_capable(pool: &Pool, types: &[Selected], at: &At<'_>, out: &mut Vec<Violation>) {
    for s in types.iter().filter(|s| s.t.efa_interfaces == Some(0)) {
        out.push(Violation::new(
            Code::EKSGPU126,
            s.path.clone(),
            format!("{} has no EFA interface.", s.t.name),
        ));
    }
    match pool.capacity {
        // Karpenter and Auto Mode attach EFA interfaces to nodes launched for pods that request
        // `vpc.amazonaws.com/efa` (EKS user guide, Manage EFA devices on Amazon EKS); a node group
        // gets them from the launch template the provider makes for it (eks::launch_template).
        Capacity::Karpenter | Capacity::AutoMode | Capacity::ManagedNodeGroup => {}
        Capacity::Hybrid => out.push(Violation::new(
            Code::EKSGPU126,
            at(&[Step::Attr("efa")]),
            format!(
                "Hybrid pool {:?} runs on-premises machines, which have no EFA.",
                pool.name
            ),
        )),
    }
}

/// EKSGPU182: a node group's launch template attaches one EFA per network card the catalog
/// counts for its types (`eks::launch_template::efa_interface_count`); for a type whose count the
/// catalog does not know, it attaches one, which may be fewer than the type has.
pub(super) fn efa_count_known(pool: &Pool, types: &[Selected], out: &mut Vec<Violation>) {
    if pool.capacity != Capacity::ManagedNodeGroup {
        return;
    }
    for s in types.iter().filter(|s| s.t.efa_interfaces.is_none()) {
        out.push(Violation::new(
            Code::EKSGPU182,
            s.path.clone(),
            format!(
                "The catalog does not know how many EFA interfaces {} has: node group pool {:?}'s launch template \
                 attaches one.",
                s.t.name, pool.name
            ),
        ));
    }
}

/// EKSGPU127: EFA traffic stays in one Availability Zone, so a Karpenter or Auto Mode pool's
/// nodes should too.
pub(super) fn efa_one_zone(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    let launches_anywhere = matches!(pool.capacity, Capacity::Karpenter | Capacity::AutoMode);
    if launches_anywhere && pool.zones.len() != 1 {
        out.push(Violation::new(
            Code::EKSGPU127,
            at(&[Step::Attr("zones")]),
            format!(
                "EFA pool {:?} may launch nodes in {}.",
                pool.name,
                if pool.zones.is_empty() {
                    "any Availability Zone".to_owned()
                } else {
                    format!("{} Availability Zones", pool.zones.len())
                }
            ),
        ));
    }
}
