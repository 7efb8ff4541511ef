use std::collections::BTreeMap;

use eksgpu_core::model::{
    Budget, Capacity, CapacityReservationTerm, Disruption, Hybrid, Kubelet, ManagedNodeGroup, MetadataOptions,
    NodeClass, Pool, RootVolume, Scaling, Taint,
};
use proptest::prelude::*;

use super::*;
use eksgpu_core::model::{BlockDeviceMapping, NetworkInterface, NodeRepairConfig, Requirement, UpdateConfig};

fn name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9-]{0,10}"
}

fn strings() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec("[a-z0-9.-]{1,12}", 0..3)
}

fn map() -> impl Strategy<Value = BTreeMap<String, String>> {
    proptest::collection::btree_map("[a-z./-]{1,12}", "[a-z0-9]{0,8}", 0..3)
}

/// The node-class inputs upstream EC2NodeClasses use (issue #23).
fn upstream_node_class() -> impl Strategy<Value = NodeClass> {
    (
        (
            proptest::option::of(name()),
            proptest::option::of("[ -~]{0,40}"),
            proptest::option::of(any::<bool>()),
            proptest::option::of(any::<bool>()),
        ),
        (strings(), strings()),
        proptest::collection::vec(
            (
                "/dev/xvd[a-z]",
                proptest::option::of("[1-9][0-9]{0,2}Gi"),
                proptest::option::of(Just("gp3".to_owned())),
                (proptest::option::of(3000..16000i64), proptest::option::of(125..1000i64)),
                (proptest::option::of(any::<bool>()), proptest::option::of(any::<bool>())),
                (proptest::option::of("snap-[0-9a-f]{8}"), proptest::option::of(name())),
            )
                .prop_map(
                    |(device_name, volume_size, volume_type, (iops, throughput), (encrypted, delete), (snap, kms))| {
                        BlockDeviceMapping {
                            device_name,
                            volume_size,
                            volume_type,
                            iops,
                            throughput,
                            encrypted,
                            delete_on_termination: delete,
                            snapshot_id: snap,
                            kms_key_id: kms,
                        }
                    },
                ),
            0..3,
        ),
        proptest::collection::vec(
            (
                0..8i64,
                0..2i64,
                prop_oneof![Just("interface".to_owned()), Just("efa-only".to_owned())],
            )
                .prop_map(|(network_card_index, device_index, interface_type)| NetworkInterface {
                    network_card_index,
                    device_index,
                    interface_type,
                    ..NetworkInterface::default()
                }),
            0..3,
        ),
    )
        .prop_map(
            |((instance_profile, user_data, detailed_monitoring, public_ip), (subnets, groups), bdm, nis)| NodeClass {
                instance_profile,
                user_data,
                detailed_monitoring,
                associate_public_ip_address: public_ip,
                subnet_selector_ids: subnets,
                security_group_selector_ids: groups,
                block_device_mappings: bdm,
                network_interfaces: nis,
                ..NodeClass::default()
            },
        )
}

fn requirement() -> impl Strategy<Value = Requirement> {
    (
        "[a-z./-]{1,20}",
        prop_oneof![Just("In"), Just("NotIn"), Just("Exists"), Just("Gt")],
        strings(),
    )
        .prop_map(|(key, operator, values)| Requirement {
            key,
            operator: operator.to_owned(),
            values,
        })
}

fn node_class() -> impl Strategy<Value = NodeClass> {
    (
        proptest::option::of("[a-z0-9]{2,8}@latest"),
        proptest::option::of(name()),
        (map(), map(), map()),
        proptest::option::of((
            proptest::option::of("[1-9][0-9]{0,3}Gi"),
            proptest::option::of(Just("gp3".to_owned())),
            proptest::option::of(3000..16000i64),
            proptest::option::of(125..1000i64),
            proptest::option::of(any::<bool>()),
        )),
        proptest::option::of((proptest::option::of(1..250i64), map())),
        (
            proptest::option::of((
                proptest::option::of(prop_oneof![Just("required".to_owned()), Just("optional".to_owned())]),
                proptest::option::of(1..=64i64),
            )),
            proptest::option::of(Just("RAID0".to_owned())),
            proptest::collection::vec(
                (
                    proptest::option::of("cr-[0-9a-f]{17}"),
                    map(),
                    proptest::option::of("[0-9]{12}"),
                    proptest::option::of(prop_oneof![Just("open".to_owned()), Just("targeted".to_owned())]),
                )
                    .prop_map(|(id, tags, owner_id, instance_match_criteria)| {
                        CapacityReservationTerm {
                            id,
                            tags,
                            owner_id,
                            instance_match_criteria,
                        }
                    }),
                0..3,
            ),
        ),
        upstream_node_class(),
    )
        .prop_map(
            |(
                ami_alias,
                role,
                (s, g, tags),
                rv,
                kubelet,
                (imds, instance_store_policy, capacity_reservations),
                upstream,
            )| {
                NodeClass {
                    ami_alias,
                    role,
                    subnet_selector_tags: s,
                    security_group_selector_tags: g,
                    root_volume: rv.map(|(size, volume_type, iops, throughput, encrypted)| RootVolume {
                        size,
                        volume_type,
                        iops,
                        throughput,
                        encrypted,
                    }),
                    kubelet: kubelet.map(|(max_pods, eviction_hard)| Kubelet {
                        max_pods,
                        eviction_hard,
                    }),
                    tags,
                    metadata_options: imds.map(|(http_tokens, http_put_response_hop_limit)| MetadataOptions {
                        http_tokens,
                        http_put_response_hop_limit,
                    }),
                    instance_store_policy,
                    capacity_reservations,
                    ..upstream
                }
            },
        )
}

fn budget() -> impl Strategy<Value = Budget> {
    (
        prop_oneof![Just("0".to_owned()), Just("10%".to_owned())],
        proptest::option::of((Just("0 9 * * 1-5".to_owned()), Just("8h".to_owned()))),
        proptest::collection::vec(
            prop_oneof![
                Just("Underutilized".to_owned()),
                Just("Empty".to_owned()),
                Just("Drifted".to_owned())
            ],
            0..2,
        ),
    )
        .prop_map(|(nodes, window, reasons)| Budget {
            nodes,
            schedule: window.as_ref().map(|w| w.0.clone()),
            duration: window.map(|w| w.1),
            reasons,
        })
}

/// The NodePool settings of issue #14: `cpu_limit`, `memory_limit`, `weight`, `expire_after`.
fn node_pool_settings() -> impl Strategy<Value = (Option<String>, Option<String>, Option<i64>, Option<String>)> {
    (
        proptest::option::of("[1-9][0-9]{0,3}"),
        proptest::option::of("[1-9][0-9]{0,3}Gi"),
        proptest::option::of(1..=100i64),
        proptest::option::of(prop_oneof![Just("336h".to_owned()), Just("Never".to_owned())]),
    )
}

fn pool() -> impl Strategy<Value = Pool> {
    (
        (
            name(),
            prop_oneof![
                Just(Capacity::Karpenter),
                Just(Capacity::AutoMode),
                Just(Capacity::ManagedNodeGroup),
                Just(Capacity::Hybrid)
            ],
        ),
        (
            strings(),
            strings(),
            strings(),
            proptest::option::of(0..100_000i64),
            map(),
        ),
        (
            any::<bool>(),
            any::<bool>(),
            node_pool_settings(),
            map(),
            any::<bool>(),
            // Static capacity: `replicas`, `node_limit`.
            (proptest::option::of(0..10i64), proptest::option::of(0..20i64)),
        ),
        proptest::collection::vec(
            (
                "[a-z./]{1,10}",
                proptest::option::of("[a-z]{1,5}"),
                prop_oneof![Just("NoSchedule"), Just("NoExecute")],
            )
                .prop_map(|(key, value, effect)| Taint {
                    key,
                    value,
                    effect: effect.into(),
                }),
            0..2,
        ),
        proptest::option::of(
            (
                proptest::option::of(Just("WhenEmpty".to_owned())),
                proptest::option::of(Just("5m".to_owned())),
                proptest::collection::vec(budget(), 0..3),
            )
                .prop_map(|(consolidation_policy, consolidate_after, budgets)| Disruption {
                    consolidation_policy,
                    consolidate_after,
                    budgets,
                }),
        ),
        proptest::option::of(node_class()),
        proptest::option::of(
            (
                name(),
                proptest::collection::vec(name(), 1..3),
                proptest::option::of(name()),
                0..5i64,
                5..10i64,
                proptest::option::of(1..100i64),
                (
                    proptest::option::of(1..100i64),
                    proptest::option::of("1\\.3[0-9]\\.[0-9]-2026[0-9]{4}"),
                    proptest::option::of(20..1000i64),
                    proptest::option::of(any::<bool>()),
                    proptest::option::of("cr-[0-9a-f]{17}"),
                ),
            )
                .prop_map(
                    |(
                        node_role_arn,
                        subnet_ids,
                        ami_type,
                        min,
                        max,
                        max_unavailable,
                        (max_unavailable_percentage, release_version, disk_size, node_repair, capacity_reservation_id),
                    )| {
                        ManagedNodeGroup {
                            node_role_arn,
                            subnet_ids,
                            ami_type,
                            scaling: Scaling { min, max, desired: min },
                            update: (max_unavailable.is_some() || max_unavailable_percentage.is_some()).then_some(
                                UpdateConfig {
                                    max_unavailable,
                                    max_unavailable_percentage,
                                },
                            ),
                            release_version,
                            disk_size,
                            node_repair_config: node_repair.map(|enabled| NodeRepairConfig {
                                enabled,
                                ..Default::default()
                            }),
                            capacity_reservation_id,
                            ..ManagedNodeGroup::default()
                        }
                    },
                ),
        ),
        proptest::option::of(
            (
                proptest::collection::vec(Just("10.80.0.0/16".to_owned()), 1..2),
                strings(),
                name(),
            )
                .prop_map(|(remote_node_networks, remote_pod_networks, node_role_arn)| Hybrid {
                    remote_node_networks,
                    remote_pod_networks,
                    node_role_arn,
                }),
        ),
        (
            proptest::collection::vec(requirement(), 0..3),
            proptest::option::of(prop_oneof![Just("30s".to_owned()), Just("24h".to_owned())]),
            (any::<bool>(), proptest::option::of(name())),
        ),
    )
        .prop_map(
            |(
                (name, capacity),
                (instance_types, capacity_types, zones, gpu_limit, labels),
                (gpu_taint, dra, (cpu_limit, memory_limit, weight, expire_after), tags, efa, (replicas, node_limit)),
                taints,
                disruption,
                node_class,
                managed_node_group,
                hybrid,
                (requirements, termination_grace_period, (multi_node_nvlink, compute_domain_namespace)),
            )| Pool {
                name,
                capacity,
                instance_types,
                requirements,
                termination_grace_period,
                capacity_types,
                zones,
                gpu_limit,
                cpu_limit,
                memory_limit,
                weight,
                replicas,
                node_limit,
                expire_after,
                labels,
                gpu_taint,
                taints,
                disruption,
                dra,
                efa,
                multi_node_nvlink,
                compute_domain_namespace,
                node_class,
                managed_node_group,
                hybrid,
                tags,
                node_class_ref: None,
                node_overlays: Vec::new(),
            },
        )
}

/// Every input the upstream definitions brought, set once, through the schema's values and back.
#[test]
fn the_upstream_inputs_read_back_from_their_values() {
    use eksgpu_core::model::{NetworkInterface, NodeGroupVolume, NodeOverlay, RepairOverride, SelectorTerm};
    let ng = Pool {
        managed_node_group: Some(ManagedNodeGroup {
            node_role_arn: "arn:aws:iam::123456789012:role/n".into(),
            subnet_ids: vec!["subnet-1".into()],
            name_prefix: Some("efa-".into()),
            user_data: Some("kind: NodeConfig\n".into()),
            block_device_mappings: vec![NodeGroupVolume {
                device_name: "/dev/xvdb".into(),
                snapshot_id: Some("snap-0123456789abcdef0".into()),
                volume_size: Some(64),
                ..NodeGroupVolume::default()
            }],
            network_interfaces: vec![NetworkInterface {
                network_card_index: 0,
                device_index: 0,
                interface_type: "efa".into(),
                ..NetworkInterface::default()
            }],
            cluster_placement_group: true,
            ebs_optimized: Some(true),
            instance_tags: [("Name".to_owned(), "x".to_owned())].into(),
            metadata_options: Some(eksgpu_core::model::TemplateMetadata {
                http_endpoint: None,
                http_tokens: Some("required".into()),
                http_put_response_hop_limit: Some(2),
            }),
            security_group_ids: vec!["sg-0123456789abcdef0".into()],
            capacity_reservation_resource_group_arn: Some(
                "arn:aws:resource-groups:us-west-2:123456789012:group/g".into(),
            ),
            node_repair_config: Some(NodeRepairConfig {
                enabled: true,
                max_parallel_nodes_repaired_count: Some(1),
                node_repair_config_overrides: vec![RepairOverride {
                    node_monitoring_condition: "AcceleratedHardwareReady".into(),
                    node_unhealthy_reason: "NvidiaXID13Error".into(),
                    min_repair_wait_time_mins: 5,
                    repair_action: "Replace".into(),
                }],
                ..Default::default()
            }),
            ..ManagedNodeGroup::default()
        }),
        ..Pool::named("train", Capacity::ManagedNodeGroup)
    };
    assert_eq!(pool_of(&ng.name, &write_pool(&ng)).unwrap(), ng);
    let k = Pool {
        node_class_ref: Some("gpu-nodeclass".into()),
        node_overlays: vec![NodeOverlay {
            name: "g6f-fractional-gpu".into(),
            weight: Some(10),
            capacity: [("nvidia.com/gpu".to_owned(), "1".to_owned())].into(),
            ..NodeOverlay::default()
        }],
        node_class: Some(eksgpu_core::model::NodeClass {
            name: Some("gpu-bottlerocket".into()),
            ami_family: Some("AL2023".into()),
            security_group_selector_terms: vec![SelectorTerm {
                name: Some("sg".into()),
                ..SelectorTerm::default()
            }],
            ..Default::default()
        }),
        ..Pool::named("gpu", Capacity::Karpenter)
    };
    assert_eq!(pool_of(&k.name, &write_pool(&k)).unwrap(), k);
}

proptest! {
    #[test]
    fn read_of_write_is_the_same_pool(p in pool()) {
        prop_assert_eq!(pool_of(&p.name, &write_pool(&p)).unwrap(), p);
    }
}

#[test]
fn a_fractional_limit_is_an_error_at_its_attribute() {
    let mut v = write_pool(&Pool::named("gpu", Capacity::Karpenter));
    eksgpu_framework::path::set(&mut v, "gpu_limit", Value::Number(eksgpu_tfplugin::Number::Float(1.5)));
    let e = pool_of("gpu", &v).unwrap_err();
    assert_eq!(
        e.diagnostic(&eksgpu_tfplugin::AttributePath::attr("pools").key("gpu"))
            .path
            .unwrap()
            .to_string(),
        r#"pools["gpu"].gpu_limit"#
    );
}
