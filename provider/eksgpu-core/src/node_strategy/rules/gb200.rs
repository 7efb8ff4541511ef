//! What P6e-GB200 pools must say about how EC2 sells the type (EKS user guide, Use P6e-GB200
//! UltraServers with Amazon EKS,
//! https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-nvidia-ultraserver.html).

use crate::catalog::capacity_block_only;
use crate::eks::launch_template::CAPACITY_BLOCK_TYPE;
use crate::model::{Capacity, Pool};
use crate::render::MIG_CONFIG;
use crate::rules::{At, Code, Step, Violation};

/// Karpenter's (and Auto Mode's) capacity type for Capacity Reservations, Capacity Blocks
/// included (karpenter.sh/capacity-type `reserved`, Karpenter docs v1.14 concepts/nodepools).
const RESERVED: &str = "reserved";

/// The one capacity type that reaches a Capacity Block on this capacity kind; None where the
/// provider launches nothing (hybrid nodes are the user's own).
fn capacity_block_type(capacity: Capacity) -> Option<&'static str> {
    match capacity {
        Capacity::ManagedNodeGroup => Some(CAPACITY_BLOCK_TYPE),
        Capacity::Karpenter | Capacity::AutoMode => Some(RESERVED),
        Capacity::Hybrid => None,
    }
}

/// EKSGPU300: a pool that names a Capacity-Block-only type allows only the Capacity Block
/// capacity type (unset capacity types render `on-demand`, which EC2 never grants for the type).
/// Types only requirements select are left alone: Karpenter launches the pool's other types.
pub(super) fn capacity_blocks_only(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    let Some(wanted) = capacity_block_type(pool.capacity) else {
        return;
    };
    let Some(t) = pool.instance_types.iter().find(|t| capacity_block_only(t)) else {
        return;
    };
    let others: Vec<&str> = if pool.capacity_types.is_empty() {
        vec!["on-demand"]
    } else {
        pool.capacity_types
            .iter()
            .map(String::as_str)
            .filter(|c| *c != wanted)
            .collect()
    };
    if !others.is_empty() {
        out.push(Violation::new(
            Code::EKSGPU300,
            at(&[Step::Attr("capacity_types")]),
            format!(
                "Pool {:?} names {}, which EC2 sells only as Capacity Blocks, but allows {:?}: use \
                 capacity_types = [\"{wanted}\"].",
                pool.name, t, others
            ),
        ));
    }
}

/// The MIG layout that turns MIG off (NVIDIA mig-parted default config, `all-disabled`).
const MIG_DISABLED: &str = "all-disabled";

/// EKSGPU301 (a warning): EKS AL2023 NVIDIA AMIs from v20251103 load driver 580 with CDMM on
/// (awslabs/amazon-eks-ami PR #2357), and the EKS user guide's P6e-GB200 page says MIG is not
/// supported there. A warning, not an error: a custom AMI may leave CDMM off.
pub(super) fn mig_under_cdmm(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    let Some(layout) = pool.labels.get(MIG_CONFIG) else {
        return;
    };
    if layout == MIG_DISABLED {
        return;
    }
    if let Some(t) = pool.instance_types.iter().find(|t| capacity_block_only(t)) {
        out.push(Violation::new(
            Code::EKSGPU301,
            at(&[Step::Attr("labels"), Step::Key(MIG_CONFIG.to_owned())]),
            format!(
                "Pool {:?} asks for MIG layout {layout:?} on {t}, whose EKS AMIs (v20251103 on) run with CDMM, \
                 under which MIG is not supported.",
                pool.name
            ),
        ));
    }
}
