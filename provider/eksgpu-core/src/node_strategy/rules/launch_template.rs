//! Checks of what a node group's launch template and tags need: the Capacity Block it targets
//! (EKSGPU181) and EKS's tag limits with the Cluster Autoscaler's tags added (EKSGPU180).

use crate::eks::launch_template::capacity_block as on_capacity_block;
use crate::model::{ManagedNodeGroup, NodeStrategy, Pool};
use crate::rules::{At, Code, Step, Violation};

/// EKS API TagResource: at most 50 tags per resource, keys of 1–128 and values of at most 256
/// characters (https://docs.aws.amazon.com/eks/latest/APIReference/API_TagResource.html).
const MAX_TAGS: usize = 50;
const MAX_KEY: usize = 128;
const MAX_VALUE: usize = 256;

/// EKSGPU181: a `capacity-block` node group names its Capacity Block and runs one instance type
/// (the template's `InstanceType`, EKS user guide, Create a managed node group with Capacity Blocks
/// for ML).
pub(super) fn capacity_block(pool: &Pool, m: &ManagedNodeGroup, at: &At<'_>, mng: &At<'_>, out: &mut Vec<Violation>) {
    let block = on_capacity_block(pool);
    // Without `capacity-block` an ID targets an On-Demand Capacity Reservation (EKSGPU322 refuses
    // it on Spot capacity).
    if m.capacity_reservation_id.is_none() && block {
        out.push(Violation::new(
            Code::EKSGPU181,
            mng(&[Step::Attr("capacity_reservation_id")]),
            format!(
                "Pool {:?} runs on a Capacity Block but names none: set capacity_reservation_id (cr-…).",
                pool.name
            ),
        ));
    }
    if block && pool.instance_types.len() != 1 {
        out.push(Violation::new(
            Code::EKSGPU181,
            at(&[Step::Attr("instance_types")]),
            format!(
                "{} instance types: a Capacity Block node group runs the one type of its reservation.",
                pool.instance_types.len()
            ),
        ));
    }
}

/// EKSGPU180: the node group's tags (default, pool, the provider's own with the owner token it
/// adds at apply, and the Cluster Autoscaler's node-template tags) within EKS's limits.
pub(super) fn node_group_tag_limits(s: &NodeStrategy, pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    let Some(ng) = crate::eks::node_group(s, pool) else {
        return;
    };
    let total = ng.tags.len() + 1;
    // More than 50 without the autoscaler's tags is EKSGPU125's.
    if total > MAX_TAGS && crate::eks::pool_tags(s, pool).len() < MAX_TAGS {
        out.push(Violation::new(
            Code::EKSGPU180,
            at(&[Step::Attr("labels")]),
            format!(
                "Node group pool {:?} would carry {total} tags with the Cluster Autoscaler's (one per label, taint \
                 and resource) and the owner token; EKS takes at most {MAX_TAGS}.",
                pool.name
            ),
        ));
    }
    for (k, v) in &ng.tags {
        if k.chars().count() > MAX_KEY || v.chars().count() > MAX_VALUE {
            out.push(Violation::new(
                Code::EKSGPU180,
                at(&[Step::Attr("labels")]),
                format!(
                    "Node group pool {:?}: tag {k:?} is longer than EKS takes (keys {MAX_KEY}, values {MAX_VALUE} \
                     characters).",
                    pool.name
                ),
            ));
        }
    }
}
