//! The `capacity_types` a recommended pool should set, so that it passes the pool's own rules.

use crate::catalog::capacity_block_only;
use crate::eks::launch_template::CAPACITY_BLOCK_TYPE;
use crate::model::Capacity;

/// Capacity types for a recommended pool of `instance_types` on `capacity`. A type EC2 sells only
/// through Capacity Blocks (P6e-GB200, EKS user guide ml-eks-nvidia-ultraserver) gets the Capacity
/// Block type: `capacity-block` on node groups, `reserved` on NodePools (karpenter.sh/capacity-type,
/// Karpenter docs v1.14 concepts/nodepools); otherwise Spot first with on-demand fallback where Spot
/// is acceptable on Karpenter, else on-demand.
pub fn capacity_types(capacity: Capacity, instance_types: &[String], spot_ok: bool) -> Vec<String> {
    if instance_types.iter().any(|t| capacity_block_only(t)) {
        let block = match capacity {
            Capacity::ManagedNodeGroup | Capacity::Hybrid => CAPACITY_BLOCK_TYPE,
            Capacity::Karpenter | Capacity::AutoMode => "reserved",
        };
        return vec![block.to_owned()];
    }
    if spot_ok && capacity == Capacity::Karpenter {
        vec!["spot".to_owned(), "on-demand".to_owned()]
    } else {
        vec!["on-demand".to_owned()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gb200_comes_through_capacity_blocks() {
        let gb200 = ["p6e-gb200.36xlarge".to_owned()];
        assert_eq!(
            capacity_types(Capacity::ManagedNodeGroup, &gb200, false),
            ["capacity-block"]
        );
        assert_eq!(capacity_types(Capacity::Karpenter, &gb200, true), ["reserved"]);
        let p5 = ["p5.48xlarge".to_owned()];
        assert_eq!(capacity_types(Capacity::ManagedNodeGroup, &p5, true), ["on-demand"]);
        assert_eq!(capacity_types(Capacity::Karpenter, &p5, true), ["spot", "on-demand"]);
    }
}
