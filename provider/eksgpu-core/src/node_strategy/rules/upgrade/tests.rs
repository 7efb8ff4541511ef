use super::*;
use crate::fixture;
use crate::model::{ManagedNodeGroup, Pool};

fn strategy(pools: Vec<Pool>) -> NodeStrategy {
    fixture::strategy("gpu-prod", pools)
}

/// A P5 pool on a Capacity Block (its launch template carries the reservation) with `desired` nodes.
fn block(desired: i64, disk: i64, release: Option<&str>) -> Pool {
    let mut m = ManagedNodeGroup {
        capacity_reservation_id: Some("cr-0123456789abcdef0".into()),
        disk_size: Some(disk),
        release_version: release.map(str::to_owned),
        ..fixture::managed_node_group()
    };
    m.scaling.min = 0;
    m.scaling.desired = desired;
    m.scaling.max = desired.max(2);
    Pool {
        capacity_types: vec!["capacity-block".into()],
        managed_node_group: Some(m),
        ..fixture::pool("train", Capacity::ManagedNodeGroup, &["p5.48xlarge"])
    }
}

fn codes(prior: Pool, planned: Pool) -> Vec<Code> {
    check_upgrade(&strategy(vec![prior]), &strategy(vec![planned]))
        .iter()
        .map(|v| v.code)
        .collect()
}

#[test]
fn eksgpu190_a_capacity_block_node_group_upgraded_in_place_warns() {
    // A new launch template version (the disk) or AMI release, whatever `desired` says: the live
    // desired size is the autoscaler's, and the provider sends it only at creation.
    assert_eq!(codes(block(2, 200, None), block(2, 300, None)), [Code::EKSGPU190]);
    assert_eq!(codes(block(2, 200, None), block(0, 300, None)), [Code::EKSGPU190]);
    assert_eq!(
        codes(
            block(2, 200, Some("1.34.0-20260801")),
            block(2, 200, Some("1.34.1-20260901"))
        ),
        [Code::EKSGPU190]
    );
    let v = check_upgrade(
        &strategy(vec![block(2, 200, None)]),
        &strategy(vec![block(2, 300, None)]),
    );
    assert!(v[0].detail.contains("desired size at 0"), "{}", v[0].detail);
    // No upgrade, or a scaling change only: nothing to say.
    assert!(codes(block(2, 200, None), block(2, 200, None)).is_empty());
    assert!(codes(block(2, 200, None), block(3, 200, None)).is_empty());
    // A replaced node group (other instance types) is created anew, not rolled.
    let replaced = Pool {
        instance_types: vec!["p5e.48xlarge".into()],
        ..block(2, 300, None)
    };
    assert!(codes(block(2, 200, None), replaced).is_empty());
    // A new pool is a create, not an upgrade.
    let other = Pool {
        name: "other".into(),
        ..block(2, 300, None)
    };
    assert!(codes(block(2, 200, None), other).is_empty());
}

#[test]
fn eksgpu190_on_demand_node_groups_roll_as_usual() {
    let on_demand = |disk| Pool {
        capacity_types: vec!["on-demand".into()],
        efa: true,
        managed_node_group: Some(ManagedNodeGroup {
            disk_size: Some(disk),
            ..fixture::managed_node_group()
        }),
        ..fixture::pool("train", Capacity::ManagedNodeGroup, &["p5.48xlarge"])
    };
    assert!(codes(on_demand(200), on_demand(300)).is_empty());
}
