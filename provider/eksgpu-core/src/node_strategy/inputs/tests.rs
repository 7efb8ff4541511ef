//! Render and read back are inverses: a pool of any capacity kind, rendered to its objects
//! (NodePool, EC2NodeClass or Auto Mode NodeClass, `CreateNodegroup`) and read back from them,
//! is the pool again. An input that renders but does not read back comes back empty here.
//! Configuration in and out through the declarations is an identity too.

use std::collections::BTreeMap;

use proptest::collection::{btree_map, vec};
use proptest::option::of;
use proptest::prelude::*;

use super::*;
use crate::eks;
use crate::model::{
    BlockDeviceMapping, Budget, CapacityReservationTerm, Disruption, GpuOperator, Kubelet, ManagedNodeGroup,
    MetadataOptions, NetworkInterface, NodeClass, NodeGroupVolume, NodeOverlay, NodeRepairConfig, NodeStrategy, Pool,
    RepairOverride, Requirement, RootVolume, Scaling, SelectorTerm, Taint, UpdateConfig,
};
use crate::readback::read_back_pool;
use crate::render::pool_manifests;

fn word() -> BoxedStrategy<String> {
    "[a-z][a-z0-9]{0,6}".boxed()
}

fn tags() -> BoxedStrategy<BTreeMap<String, String>> {
    btree_map(word(), word(), 0..3).boxed()
}

fn taint() -> BoxedStrategy<Taint> {
    // `nvidia.com/gpu` is left to `gpu_taint`, which owns that key.
    (
        word(),
        of(word()),
        prop_oneof![Just("NoSchedule"), Just("NoExecute"), Just("PreferNoSchedule")],
    )
        .prop_map(|(key, value, effect)| Taint {
            key: format!("example.com/{key}"),
            value,
            effect: effect.into(),
        })
        .boxed()
}

fn budget() -> BoxedStrategy<Budget> {
    (
        prop_oneof![Just("0"), Just("10%"), Just("2")],
        of(Just(("0 9 * * 1-5".to_owned(), "8h".to_owned()))),
        vec(prop_oneof![Just("Empty"), Just("Drifted")], 0..2),
    )
        .prop_map(|(nodes, window, reasons)| Budget {
            nodes: nodes.into(),
            schedule: window.as_ref().map(|w| w.0.clone()),
            duration: window.map(|w| w.1),
            reasons: reasons.into_iter().map(str::to_owned).collect(),
        })
        .boxed()
}

fn disruption() -> BoxedStrategy<Disruption> {
    (
        of(prop_oneof![Just("WhenEmpty"), Just("WhenEmptyOrUnderutilized")]),
        of(prop_oneof![Just("0s"), Just("5m"), Just("Never")]),
        vec(budget(), 0..3),
    )
        .prop_map(|(policy, after, budgets)| Disruption {
            consolidation_policy: policy.map(str::to_owned),
            consolidate_after: after.map(str::to_owned),
            budgets,
        })
        .boxed()
}

fn reservation() -> BoxedStrategy<CapacityReservationTerm> {
    prop_oneof![
        Just(CapacityReservationTerm {
            id: Some("cr-0123456789abcdef0".into()),
            ..Default::default()
        }),
        (tags(), of(Just("123456789012".to_owned()))).prop_map(|(tags, owner_id)| CapacityReservationTerm {
            tags,
            owner_id,
            ..Default::default()
        }),
        prop_oneof![Just("open"), Just("targeted")].prop_map(|c| CapacityReservationTerm {
            instance_match_criteria: Some(c.into()),
            ..Default::default()
        }),
    ]
    .boxed()
}

fn root_volume(karpenter: bool) -> BoxedStrategy<RootVolume> {
    (
        of(prop_oneof![Just("20Gi"), Just("200Gi")]),
        of(prop_oneof![Just("gp3"), Just("io2")]),
        of(3000..16000i64),
        of(125..1000i64),
        of(any::<bool>()),
    )
        .prop_map(move |(size, volume_type, iops, throughput, encrypted)| RootVolume {
            size: size.map(str::to_owned),
            volume_type: volume_type.filter(|_| karpenter).map(str::to_owned),
            iops,
            throughput,
            encrypted: encrypted.filter(|_| karpenter),
        })
        .boxed()
}

/// A requirement of every operator, on keys the provider does not render itself.
fn requirement() -> BoxedStrategy<Requirement> {
    let r = |key: &str, operator: &str, values: &[&str]| Requirement {
        key: key.to_owned(),
        operator: operator.to_owned(),
        values: values.iter().map(|v| (*v).to_owned()).collect(),
    };
    prop_oneof![
        Just(r("karpenter.k8s.aws/instance-category", "In", &["g", "p"])),
        Just(r("karpenter.k8s.aws/instance-family", "NotIn", &["g4dn"])),
        Just(r("karpenter.k8s.aws/instance-gpu-manufacturer", "Exists", &[])),
        Just(r("karpenter.k8s.aws/instance-accelerator-count", "DoesNotExist", &[])),
        Just(r("karpenter.k8s.aws/instance-generation", "Gt", &["4"])),
        Just(r("karpenter.k8s.aws/instance-gpu-count", "Lt", &["9"])),
        Just(r("karpenter.k8s.aws/instance-gpu-memory", "Gte", &["24000"])),
        Just(r("node.kubernetes.io/instance-type", "NotIn", &["g5.xlarge"])),
        Just(r("topology.kubernetes.io/zone", "NotIn", &["us-west-2d"])),
        // After an Auto Mode Neuron pool's own family requirement, a user's on the same key.
        Just(r("eks.amazonaws.com/instance-family", "In", &["trn2"])),
    ]
    .boxed()
}

fn block_device_mapping() -> BoxedStrategy<BlockDeviceMapping> {
    (
        prop_oneof![Just("/dev/xvda"), Just("/dev/xvdc"), Just("/dev/xvdd")],
        of(prop_oneof![Just("4Gi"), Just("300Gi")]),
        of(prop_oneof![Just("gp3"), Just("io2")]),
        (of(3000..16000i64), of(125..1000i64)),
        (of(any::<bool>()), of(any::<bool>())),
        of(Just("snap-0123456789abcdef0")),
        of(Just("arn:aws:kms:us-west-2:123456789012:key/k")),
    )
        .prop_map(
            |(device, size, volume_type, (iops, throughput), (encrypted, delete), snapshot, kms)| BlockDeviceMapping {
                device_name: device.into(),
                volume_size: size.map(str::to_owned),
                volume_type: volume_type.map(str::to_owned),
                iops,
                throughput,
                encrypted,
                delete_on_termination: delete,
                snapshot_id: snapshot.map(str::to_owned),
                kms_key_id: kms.map(str::to_owned),
            },
        )
        .boxed()
}

fn network_interfaces() -> BoxedStrategy<Vec<NetworkInterface>> {
    (0..4i64)
        .prop_map(|cards| {
            let ni = |card, device, t: &str| NetworkInterface {
                network_card_index: card,
                device_index: device,
                interface_type: t.into(),
                ..NetworkInterface::default()
            };
            let mut v = vec![ni(0, 0, "interface")];
            v.extend((1..cards).map(|c| ni(c, 0, "efa-only")));
            v
        })
        .boxed()
}

/// Security-group selector terms as upstream node classes write them: ORed tag terms, an ID, a name.
fn selector_terms() -> BoxedStrategy<Vec<SelectorTerm>> {
    vec(
        prop_oneof![
            tags()
                .prop_filter("a tags term selects by something", |t| !t.is_empty())
                .prop_map(|tags| SelectorTerm {
                    tags,
                    ..SelectorTerm::default()
                }),
            Just(SelectorTerm {
                id: Some("sg-0123456789abcdef0".into()),
                ..SelectorTerm::default()
            }),
            Just(SelectorTerm {
                name: Some("eks-cluster-sg".into()),
                ..SelectorTerm::default()
            }),
        ],
        0..3,
    )
    .boxed()
}

/// Hand-written NodeOverlays: the g6f one of Karpenter's docs and a time-slicing count.
fn node_overlays() -> BoxedStrategy<Vec<NodeOverlay>> {
    let req = |key: &str, values: &[&str]| Requirement {
        key: key.to_owned(),
        operator: "In".to_owned(),
        values: values.iter().map(|v| (*v).to_owned()).collect(),
    };
    vec(
        (of(1..100i64), of(Just("+10%")), any::<bool>()).prop_map(move |(weight, adjustment, fractional)| {
            NodeOverlay {
                name: if fractional {
                    "g6f-fractional-gpu"
                } else {
                    "gpu-slices-1gpu"
                }
                .into(),
                weight,
                requirements: if fractional {
                    vec![req("karpenter.k8s.aws/instance-family", &["g6f"])]
                } else {
                    vec![req("karpenter.k8s.aws/instance-gpu-count", &["1"])]
                },
                capacity: BTreeMap::from([(
                    "nvidia.com/gpu".to_owned(),
                    if fractional { "1" } else { "4" }.to_owned(),
                )]),
                price: None,
                price_adjustment: adjustment.map(str::to_owned),
            }
        }),
        0..2,
    )
    .prop_map(|mut v| {
        v.dedup_by(|a, b| a.name == b.name);
        v
    })
    .boxed()
}

/// The node-class inputs upstream EC2NodeClasses use (Karpenter-only ones filtered by `karpenter`).
fn upstream_node_class(karpenter: bool) -> BoxedStrategy<NodeClass> {
    (
        of(Just("KarpenterNodeInstanceProfile")),
        of(Just("[settings.kubernetes]\nmax-pods = 110\n")),
        (of(any::<bool>()), of(any::<bool>())),
        vec(prop_oneof![Just("subnet-0a1"), Just("subnet-0b2")], 0..2),
        vec(prop_oneof![Just("sg-0a1"), Just("sg-0b2")], 0..2),
        vec(block_device_mapping(), 0..3),
        network_interfaces(),
    )
        .prop_map(
            move |(profile, user_data, (monitoring, public_ip), subnets, groups, mappings, interfaces)| {
                let mut subnet_selector_ids: Vec<String> = subnets.into_iter().map(str::to_owned).collect();
                subnet_selector_ids.dedup();
                let mut security_group_selector_ids: Vec<String> = groups.into_iter().map(str::to_owned).collect();
                security_group_selector_ids.dedup();
                let mut block_device_mappings: Vec<BlockDeviceMapping> = Vec::new();
                for m in mappings {
                    if !block_device_mappings.iter().any(|b| b.device_name == m.device_name) {
                        block_device_mappings.push(m);
                    }
                }
                NodeClass {
                    instance_profile: profile.filter(|_| karpenter).map(str::to_owned),
                    user_data: user_data.filter(|_| karpenter).map(str::to_owned),
                    detailed_monitoring: monitoring.filter(|_| karpenter),
                    associate_public_ip_address: public_ip,
                    subnet_selector_ids,
                    security_group_selector_ids,
                    block_device_mappings: if karpenter { block_device_mappings } else { Vec::new() },
                    network_interfaces: if karpenter && interfaces.len() > 1 {
                        interfaces
                    } else {
                        Vec::new()
                    },
                    ..NodeClass::default()
                }
            },
        )
        .boxed()
}

fn node_class(karpenter: bool) -> BoxedStrategy<NodeClass> {
    (
        (
            of(prop_oneof![
                Just("al2023@latest"),
                Just("al2023@v20260801"),
                Just("bottlerocket@latest")
            ]),
            of(word()),
            tags(),
            tags(),
            tags(),
        ),
        (
            of(Just("RAID0")),
            vec(reservation(), 0..3),
            of((of(prop_oneof![Just("required"), Just("optional")]), of(1..64i64))),
            of(root_volume(karpenter)),
            of((
                of(0..200i64),
                btree_map(Just("memory.available".to_owned()), Just("5%".to_owned()), 0..2),
            )),
        ),
        (
            upstream_node_class(karpenter),
            (of(word()), of(Just(())), selector_terms()),
        ),
    )
        .prop_map(
            move |(
                (alias, role, subnets, groups, tags),
                (store, reservations, imds, root, kubelet),
                (upstream, (name, family, terms)),
            )| {
                // `amiFamily` is the alias's family (EKSGPU167); terms replace the tags and ID forms.
                let alias = alias.filter(|_| karpenter);
                let ami_family = family
                    .filter(|_| karpenter)
                    .map(|_| match alias.map(|a| a.split('@').next().unwrap_or_default()) {
                        Some("bottlerocket") => "Bottlerocket",
                        _ => "AL2023",
                    })
                    .map(str::to_owned);
                let (groups, upstream) = if terms.is_empty() {
                    (groups, upstream)
                } else {
                    (
                        BTreeMap::new(),
                        NodeClass {
                            security_group_selector_ids: Vec::new(),
                            ..upstream
                        },
                    )
                };
                NodeClass {
                    name: name.map(|n: String| format!("nc-{n}")),
                    ami_family,
                    security_group_selector_terms: terms,
                    ami_alias: alias.map(str::to_owned),
                    role,
                    subnet_selector_tags: subnets,
                    security_group_selector_tags: groups,
                    tags,
                    instance_store_policy: store.filter(|_| karpenter).map(str::to_owned),
                    capacity_reservations: reservations,
                    metadata_options: imds.filter(|_| karpenter).map(|(t, h)| MetadataOptions {
                        http_tokens: t.map(str::to_owned),
                        http_put_response_hop_limit: h,
                    }),
                    root_volume: root,
                    kubelet: kubelet.filter(|_| karpenter).map(|(max_pods, eviction_hard)| Kubelet {
                        max_pods,
                        eviction_hard,
                    }),
                    ..upstream
                }
            },
        )
        .boxed()
}

/// The fields every kind takes, over a pool of `capacity`.
fn common(capacity: Capacity) -> BoxedStrategy<Pool> {
    (
        // One vendor per pool (EKSGPU150): NVIDIA GPU types or AWS Neuron types.
        prop_oneof![
            vec(
                prop_oneof![Just("p5.48xlarge"), Just("g6e.12xlarge"), Just("g5.xlarge")],
                1..3,
            ),
            vec(
                prop_oneof![Just("trn2.48xlarge"), Just("inf2.48xlarge"), Just("trn1.32xlarge")],
                1..3,
            ),
        ],
        btree_map(word().prop_map(|k| format!("team.example.com/{k}")), word(), 0..3),
        any::<bool>(),
        vec(taint(), 0..3),
        any::<bool>(),
        any::<bool>(),
        // Multi-node NVLink: its ComputeDomain is an object of its own, the pool keeps the inputs.
        (any::<bool>(), of(word())),
    )
        .prop_map(
            move |(types, labels, gpu_taint, taints, dra, efa, (nvlink, cd_namespace))| {
                let mut instance_types: Vec<String> = types.into_iter().map(str::to_owned).collect();
                instance_types.dedup();
                Pool {
                    instance_types,
                    labels,
                    gpu_taint,
                    taints,
                    dra,
                    efa,
                    multi_node_nvlink: nvlink,
                    compute_domain_namespace: cd_namespace,
                    ..Pool::named("inference", capacity)
                }
            },
        )
        .boxed()
}

pub(crate) fn in_cluster_pool(capacity: Capacity) -> BoxedStrategy<Pool> {
    let karpenter = capacity == Capacity::Karpenter;
    (
        common(capacity),
        (
            vec(prop_oneof![Just("spot"), Just("reserved")], 0..2),
            vec(prop_oneof![Just("us-west-2a"), Just("us-west-2b")], 0..2),
            of(0..1000i64),
            of(prop_oneof![Just("1000"), Just("1500m")]),
            of(Just("4000Gi")),
            of(1..100i64),
            of(prop_oneof![Just("336h"), Just("Never")]),
        ),
        of(disruption()),
        of(node_class(karpenter)),
        (
            vec(requirement(), 0..4),
            of(prop_oneof![Just("30s"), Just("24h")]),
            any::<bool>(),
            // Static capacity: NodePool spec.replicas and limits.nodes.
            (of(0..10i64), of(0..20i64)),
            // Another pool's or tool's node class; hand-written overlays.
            (of(Just("shared-gpu")), node_overlays()),
        ),
    )
        .prop_map(
            move |(
                base,
                (ct, zones, gpu, cpu, mem, weight, expire),
                disruption,
                nc,
                (requirements, tgp, no_types, (replicas, node_limit), (node_class_ref, overlays)),
            )| {
                let mut capacity_types: Vec<String> = ct.into_iter().map(str::to_owned).collect();
                capacity_types.dedup();
                let mut zones: Vec<String> = zones.into_iter().map(str::to_owned).collect();
                zones.dedup();
                Pool {
                    capacity_types,
                    zones,
                    gpu_limit: gpu,
                    cpu_limit: cpu.map(str::to_owned),
                    memory_limit: mem.map(str::to_owned),
                    weight,
                    replicas,
                    node_limit,
                    expire_after: expire.map(str::to_owned),
                    disruption,
                    termination_grace_period: tgp.map(str::to_owned),
                    // Requirements may select the instances alone.
                    instance_types: if no_types && !requirements.is_empty() {
                        Vec::new()
                    } else {
                        base.instance_types.clone()
                    },
                    requirements,
                    // A Karpenter pool renders its EC2NodeClass unless it uses another's.
                    node_class: match (karpenter, node_class_ref) {
                        (true, Some(_)) => None,
                        (true, None) => Some(nc.clone().unwrap_or_default()),
                        (false, _) => nc.clone(),
                    },
                    node_class_ref: node_class_ref.filter(|_| karpenter || nc.is_none()).map(str::to_owned),
                    node_overlays: if karpenter { overlays } else { Vec::new() },
                    ..base
                }
            },
        )
        .boxed()
}

type TemplateInputs = (
    (Option<String>, Option<String>),
    Option<String>,
    Vec<NodeGroupVolume>,
    Vec<NetworkInterface>,
    bool,
    BTreeMap<String, String>,
    NodeRepairConfig,
);

/// What upstream node groups set that only a launch template carries, their name, and repair
/// thresholds.
fn node_group_template_inputs() -> BoxedStrategy<TemplateInputs> {
    let naming = prop_oneof![
        Just((None, None)),
        Just((Some("p5-cbr".to_owned()), None)),
        Just((None, Some("nvidia-efa-".to_owned()))),
    ];
    let user_data = of(prop_oneof![
        Just("apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  instance:\n    localStorage:\n      strategy: RAID0\n".to_owned()),
        Just("#!/bin/bash\necho cache\n".to_owned()),
    ]);
    let volume = (
        prop_oneof![Just("/dev/xvdb"), Just("/dev/xvdc")],
        of(64..500i64),
        of(Just("gp3")),
        of(Just("snap-0123456789abcdef0")),
        (of(3000..16000i64), of(125..1000i64), of(any::<bool>())),
    )
        .prop_map(
            |(device, size, volume_type, snapshot, (iops, throughput, encrypted))| NodeGroupVolume {
                device_name: device.into(),
                volume_size: size,
                volume_type: volume_type.map(str::to_owned),
                iops,
                throughput,
                encrypted,
                delete_on_termination: encrypted,
                snapshot_id: snapshot.map(str::to_owned),
                kms_key_id: None,
            },
        );
    let volumes = vec(volume, 0..3).prop_map(|mut v| {
        v.dedup_by(|a, b| a.device_name == b.device_name);
        v
    });
    let interfaces = prop_oneof![
        Just(Vec::new()),
        // terraform-aws-modules/eks `enable_efa_only`: EFA on card 0, EFA-only on the others.
        (1..4i64).prop_map(|cards| (0..cards)
            .map(|c| NetworkInterface {
                network_card_index: c,
                device_index: i64::from(c != 0),
                interface_type: if c == 0 { "efa" } else { "efa-only" }.into(),
                ..NetworkInterface::default()
            })
            .collect()),
    ];
    let thresholds = (
        of(1..10i64),
        of(1..100i64),
        of(Just(("AcceleratedHardwareReady", "NvidiaXID13Error", 5i64, "Replace"))),
    )
        .prop_map(|(count, parallel, o)| NodeRepairConfig {
            enabled: false,
            max_unhealthy_node_threshold_count: count,
            max_parallel_nodes_repaired_percentage: parallel,
            node_repair_config_overrides: o
                .map(|(c, r, w, a)| RepairOverride {
                    node_monitoring_condition: c.into(),
                    node_unhealthy_reason: r.into(),
                    min_repair_wait_time_mins: w,
                    repair_action: a.into(),
                })
                .into_iter()
                .collect(),
            ..NodeRepairConfig::default()
        });
    (
        naming,
        user_data,
        volumes,
        interfaces,
        any::<bool>(),
        tags(),
        thresholds,
    )
        .boxed()
}

pub(crate) fn node_group_pool() -> BoxedStrategy<Pool> {
    (
        common(Capacity::ManagedNodeGroup),
        prop_oneof![
            Just(vec![]),
            Just(vec!["spot"]),
            Just(vec!["on-demand"]),
            Just(vec!["capacity-block"])
        ],
        tags(),
        (
            of(Just("AL2023_x86_64_NVIDIA")),
            (0..3i64, 3..10i64),
            of(prop_oneof![
                (1..100i64).prop_map(|n| UpdateConfig {
                    max_unavailable: Some(n),
                    max_unavailable_percentage: None
                }),
                (1..100i64).prop_map(|p| UpdateConfig {
                    max_unavailable: None,
                    max_unavailable_percentage: Some(p)
                }),
            ]),
            of(Just("1.34.0-20260801")),
            (of(20..500i64), of(any::<bool>())),
            of(any::<bool>()),
        ),
        node_group_template_inputs(),
    )
        .prop_map(
            |(base, ct, tags, (ami, (min, max), update, release, (disk, ebs_optimized), repair), template)| {
                // Neuron pools boot the Neuron AMI (EKSGPU013); unset picks it too.
                let ami = ami.map(|a| if base.is_neuron() { "AL2023_x86_64_NEURON" } else { a });
                // A Capacity Block is one instance type, which its launch template carries.
                let block = ct == ["capacity-block"];
                let mut instance_types = base.instance_types.clone();
                if block {
                    instance_types.truncate(1);
                }
                let (naming, user_data, volumes, interfaces, placement, instance_tags, thresholds) = template;
                // Explicit interfaces carry EFA exactly when the pool is `efa` (EKSGPU323).
                let efa = if interfaces.is_empty() {
                    base.efa
                } else {
                    interfaces.iter().any(NetworkInterface::is_efa)
                };
                Pool {
                    instance_types,
                    capacity_types: ct.into_iter().map(str::to_owned).collect(),
                    tags,
                    efa,
                    managed_node_group: Some(ManagedNodeGroup {
                        node_role_arn: "arn:aws:iam::123456789012:role/gpu-nodes".into(),
                        subnet_ids: vec!["subnet-1".into(), "subnet-2".into()],
                        ami_type: ami.map(str::to_owned),
                        scaling: Scaling { min, max, desired: min },
                        update,
                        release_version: release.map(str::to_owned),
                        disk_size: disk,
                        ebs_optimized,
                        node_repair_config: repair.map(|enabled| NodeRepairConfig {
                            enabled,
                            ..thresholds.clone()
                        }),
                        capacity_reservation_id: block.then(|| "cr-0123456789abcdef0".to_owned()),
                        name: naming.0,
                        name_prefix: naming.1,
                        user_data,
                        block_device_mappings: volumes,
                        network_interfaces: interfaces,
                        cluster_placement_group: placement,
                        instance_tags,
                        ..ManagedNodeGroup::default()
                    }),
                    ..base
                }
            },
        )
        .boxed()
}

pub(crate) fn strategy(pool: &Pool, operator: bool) -> NodeStrategy {
    NodeStrategy {
        cluster_name: "gpu-prod".into(),
        name: "genai".into(),
        kubernetes_version: Some("1.34".into()),
        device_plugin: None,
        gpu_operator: operator.then(|| GpuOperator {
            mig_strategy: "single".into(),
            dcgm_exporter: true,
            service_monitor: false,
        }),
        pools: vec![pool.clone()],
        default_tags: BTreeMap::from([("env".into(), "prod".into())]),
        karpenter_gates: Default::default(),
    }
}

fn any_pool() -> BoxedStrategy<Pool> {
    prop_oneof![
        in_cluster_pool(Capacity::Karpenter),
        in_cluster_pool(Capacity::AutoMode),
        node_group_pool(),
    ]
    .boxed()
}

/// Renders `pool` and reads it back from what was rendered.
fn round_trip(s: &NodeStrategy, pool: &Pool) -> Pool {
    match pool.capacity {
        Capacity::ManagedNodeGroup => {
            let ng = eks::node_group(s, pool).expect("a complete node group pool");
            eks::read_back_node_group(s, pool, &ng, false)
        }
        _ => {
            let objects = pool_manifests(s, pool);
            let node_pool = objects
                .iter()
                .find(|m| m.kind == crate::kinds::NODE_POOL)
                .expect("a NodePool");
            let node_class = objects
                .iter()
                .find(|m| m.kind == crate::kinds::EC2_NODE_CLASS || m.kind == crate::kinds::AUTO_MODE_NODE_CLASS);
            read_back_pool(s, pool, &node_pool.body, node_class.map(|m| &m.body))
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn rendered_pools_read_back_as_themselves(pool in any_pool(), operator in any::<bool>()) {
        let s = strategy(&pool, operator);
        prop_assert_eq!(round_trip(&s, &pool), pool);
    }

    #[test]
    fn configuration_round_trips_through_the_declarations(pool in any_pool()) {
        let cfg = write_config(POOL, &pool);
        let read: Pool = super::read_pool(&pool.name, &cfg).map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
        prop_assert_eq!(read, pool);
    }
}

#[test]
fn a_missing_attribute_is_an_error_at_its_path() {
    let pool = Pool::named("p", Capacity::Karpenter);
    let mut cfg = write_config(POOL, &pool);
    cfg.as_object_mut().map(|m| m.shift_remove("weight"));
    let err = read_config::<Pool>(POOL, &cfg).expect_err("weight is missing");
    assert_eq!(err.path, vec![crate::rules::Step::Attr("weight")]);
}

#[test]
fn inputs_set_on_a_kind_that_does_not_take_them_are_refused_at_their_path() {
    let mut pool = Pool::named("p", Capacity::ManagedNodeGroup);
    pool.weight = Some(5);
    pool.node_class = Some(NodeClass {
        metadata_options: Some(MetadataOptions::default()),
        ..Default::default()
    });
    let mut out = Vec::new();
    misplaced(POOL, pool.capacity, &pool, &[], &mut out);
    let paths: Vec<_> = out.iter().map(|v| (v.code, v.path.clone())).collect();
    use crate::rules::Step::Attr;
    assert_eq!(
        paths,
        vec![
            (Code::EKSGPU115, vec![Attr("weight")]),
            (Code::EKSGPU115, vec![Attr("node_class")])
        ]
    );
    let mut auto = Pool::named("p", Capacity::AutoMode);
    auto.node_class = pool.node_class.clone();
    let mut out = Vec::new();
    misplaced(POOL, auto.capacity, &auto, &[], &mut out);
    assert_eq!(out[0].code, Code::EKSGPU124);
    assert_eq!(out[0].path, vec![Attr("node_class"), Attr("metadata_options")]);
}

/// Every declared input says where it goes: a render target on some object, or that hand code
/// renders it, or that no object carries it. A new input cannot be forgotten silently.
#[test]
fn every_input_renders_somewhere_or_says_why_not() {
    let mut all = Vec::new();
    for d in POOL {
        d.walk("", &mut all);
    }
    // Inside a block rendered by hand, the hand code renders the children too.
    let by_hand: Vec<String> = all
        .iter()
        .filter(|(_, _, _, read_back)| *read_back == ReadBack::Custom)
        .map(|(path, ..)| format!("{path}."))
        .collect();
    // Blocks whose children carry the targets.
    let containers = ["disruption", "managed_node_group"];
    let undeclared: Vec<_> = all
        .iter()
        .filter(|(_, _, renders, read_back)| renders.is_empty() && *read_back == ReadBack::Live)
        .map(|(path, ..)| path.clone())
        .filter(|p| !containers.contains(&p.as_str()) && !by_hand.iter().any(|h| p.starts_with(h.as_str())))
        .collect();
    assert!(undeclared.is_empty(), "inputs with no render target: {undeclared:?}");
}

/// Checks only some kinds need run on those kinds, at the value's path: EKS node group label keys
/// and taint keys of at most 63 characters.
#[test]
fn kind_checks_run_on_their_kinds_only() {
    use crate::rules::Step::{Attr, Index, Key};
    let long = format!("example.com/{}", "k".repeat(60));
    let mut ng = Pool::named("p", Capacity::ManagedNodeGroup);
    ng.labels.insert(long.clone(), "v".into());
    let mut out = Vec::new();
    check_on_kinds(POOL, ng.capacity, &ng, &[], &mut out);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(
        (out[0].code, out[0].path.clone()),
        (Code::EKSGPU117, vec![Attr("labels"), Key(long.clone())])
    );
    // The same label is fine on Karpenter, whose labels are Kubernetes labels.
    let mut k = Pool::named("p", Capacity::Karpenter);
    k.labels = ng.labels.clone();
    let mut out = Vec::new();
    check_on_kinds(POOL, k.capacity, &k, &[], &mut out);
    assert!(out.is_empty(), "{out:?}");

    // A taint key inside a list block: at its index.
    let taint = Taint {
        key: long.clone(),
        value: None,
        effect: "NoSchedule".into(),
    };
    ng.labels.clear();
    ng.taints = vec![taint.clone()];
    let mut out = Vec::new();
    check_on_kinds(POOL, ng.capacity, &ng, &[], &mut out);
    assert_eq!(out.iter().map(|v| v.code).collect::<Vec<_>>(), [Code::EKSGPU117]);
    assert_eq!(out[0].path, vec![Attr("taints"), Index(0), Attr("key")]);
    k.taints = vec![taint];
    let mut out = Vec::new();
    check_on_kinds(POOL, k.capacity, &k, &[], &mut out);
    assert!(out.is_empty(), "{out:?}");
}
