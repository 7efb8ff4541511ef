//! Rules on a change between the stored strategy and the planned one, for what EKS asks of
//! node group upgrades. One function per code; the plan calls `check_upgrade` with the prior state.

use crate::eks::{self, launch_template};
use crate::model::{Capacity, NodeStrategy};
use crate::rules::{Code, Step, Violation};

/// The findings on going from `prior` to `planned`.
pub fn check_upgrade(prior: &NodeStrategy, planned: &NodeStrategy) -> Vec<Violation> {
    let mut out = Vec::new();
    capacity_block_upgrade(prior, planned, &mut out);
    out
}

/// EKSGPU190: a Capacity Block node group upgraded in place (a new AMI release or launch template
/// version, `UpdateNodegroupVersion`). The EKS user guide, "Create a managed node group with
/// Capacity Blocks for ML" (https://docs.aws.amazon.com/eks/latest/userguide/capacity-blocks-mng.html):
/// "When upgrading a managed node group with Capacity Blocks, make sure that you set the desired
/// size of the node group to 0" — the block has no spare instances to roll the nodes onto. The
/// live desired size is the autoscaler's (the provider sends `desired` only at creation), so the
/// plan cannot know it: it warns on every such upgrade, and a configuration whose node group is
/// at 0 says so with `acknowledged_warnings`.
fn capacity_block_upgrade(prior: &NodeStrategy, planned: &NodeStrategy, out: &mut Vec<Violation>) {
    for pool in &planned.pools {
        if pool.capacity != Capacity::ManagedNodeGroup || !launch_template::capacity_block(pool) {
            continue;
        }
        let Some(before) = prior.pools.iter().find(|p| p.name == pool.name) else {
            continue;
        };
        let (Some(want), Some(was)) = (eks::node_group(planned, pool), eks::node_group(prior, before)) else {
            continue;
        };
        // A replaced node group is deleted and created, not rolled (plan's own warning says so).
        if want.replacement(&was).is_some() {
            continue;
        }
        let Some(u) = want.update(&was) else { continue };
        if u.release_version.is_none() && u.kubernetes_version.is_none() && u.launch_template.is_none() {
            continue;
        }
        let what = if u.launch_template.is_some() {
            "a new launch template version"
        } else if u.kubernetes_version.is_some() {
            "a new Kubernetes version"
        } else {
            "a new AMI release"
        };
        out.push(Violation::new(
            Code::EKSGPU190,
            crate::rules::pool_path(&pool.name, &[Step::Attr("managed_node_group")]),
            format!(
                "Pool {:?} is a Capacity Block node group: apply upgrades it in place ({what}), which needs its \
                 desired size at 0 first.",
                pool.name
            ),
        ));
    }
}

#[cfg(test)]
mod tests;
