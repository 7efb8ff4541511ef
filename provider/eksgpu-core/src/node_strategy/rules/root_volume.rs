//! A pool's root volume as EC2 creates it from an EC2NodeClass, or as Auto Mode's
//! `ephemeralStorage` takes it: values the attribute's type allows that the node class's API or
//! EC2 refuse at launch.

use crate::model::{Capacity, Pool};
use crate::rules::{At, Code, Step, Violation};

/// EKSGPU133: on a `karpenter` pool, the EBS volume Karpenter asks EC2 for (the CRD's
/// `volumeSize` pattern, then the volume type's sizes, IOPS and throughput, with the 20Gi
/// Karpenter renders when no size is given: render::KARPENTER_DEFAULT_VOLUME_SIZE); on an
/// `auto_mode` pool, the ranges of `ephemeralStorage`. Each problem at its attribute.
pub(super) fn root_volume(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    let Some(rv) = pool.node_class.as_ref().and_then(|nc| nc.root_volume.as_ref()) else {
        return;
    };
    let problems = match pool.capacity {
        Capacity::Karpenter => crate::validate::ebs_volume(
            rv.volume_type.as_deref().unwrap_or("gp3"),
            Some(
                rv.size
                    .as_deref()
                    .unwrap_or(crate::render::KARPENTER_DEFAULT_VOLUME_SIZE),
            ),
            rv.iops,
            rv.throughput,
        ),
        Capacity::AutoMode => crate::validate::auto_mode_ephemeral_storage(rv.size.as_deref(), rv.iops, rv.throughput),
        Capacity::ManagedNodeGroup | Capacity::Hybrid => return,
    };
    for (attr, e) in problems.err().unwrap_or_default() {
        out.push(Violation::new(
            Code::EKSGPU133,
            at(&[Step::Attr("node_class"), Step::Attr("root_volume"), Step::Attr(attr)]),
            e.to_string(),
        ));
    }
}
