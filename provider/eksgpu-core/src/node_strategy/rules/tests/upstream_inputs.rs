//! The rules on the inputs the upstream definitions need: each fires on the case it is about and
//! stays quiet on the valid neighbour.

use std::collections::BTreeMap;

use crate::fixture;
use crate::karpenter_gates::FeatureGates;
use crate::model::{
    Capacity, ManagedNodeGroup, NetworkInterface, NodeClass, NodeGroupVolume, NodeOverlay, NodeRepairConfig,
    NodeStrategy, Pool, RepairOverride, Requirement, SelectorTerm,
};
use crate::node_strategy::rules::*;
use crate::rules::Code;

const CTX: Context = Context {
    karpenter_version: (1, 15),
};

fn strategy(pools: Vec<Pool>) -> NodeStrategy {
    NodeStrategy {
        gpu_operator: Some(crate::model::GpuOperator {
            mig_strategy: "single".into(),
            dcgm_exporter: false,
            service_monitor: false,
        }),
        ..fixture::strategy("gpu", pools)
    }
}

fn codes_of(s: &NodeStrategy) -> Vec<Code> {
    check_node_strategy(s, &CTX).into_iter().map(|v| v.code).collect()
}

fn codes(pool: Pool) -> Vec<Code> {
    codes_of(&strategy(vec![pool]))
}

fn node_group(types: &[&str], f: impl FnOnce(&mut ManagedNodeGroup)) -> Pool {
    let mut p = fixture::valid_pool("train", Capacity::ManagedNodeGroup, types);
    f(p.managed_node_group.as_mut().expect("a node group"));
    p
}

fn ni(card: i64, device: i64, t: &str) -> NetworkInterface {
    NetworkInterface {
        network_card_index: card,
        device_index: device,
        interface_type: t.into(),
        ..NetworkInterface::default()
    }
}

const RAID0: &str = "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  instance:\n    localStorage:\n      strategy: RAID0\n";

#[test]
fn eksgpu156_self_managed_node_groups_are_refused_with_the_nearest_kind() {
    let e = crate::validate::capacity_kind("self_managed_node_group").unwrap_err();
    assert!(
        e.message.starts_with("EKSGPU156") && e.message.contains("`managed_node_group`"),
        "{e}"
    );
    assert!(crate::validate::capacity_kind("managed_node_group").is_ok());
    assert!(
        !crate::validate::capacity_kind("fargate")
            .unwrap_err()
            .message
            .contains("EKSGPU156")
    );
}

#[test]
fn eksgpu157_names_are_one_of_name_and_prefix_and_unique() {
    let p = node_group(&["g5.8xlarge"], |m| m.name = Some("g5".into()));
    assert!(!codes(p.clone()).contains(&Code::EKSGPU157), "{:?}", codes(p.clone()));
    let both = node_group(&["g5.8xlarge"], |m| {
        m.name = Some("g5".into());
        m.name_prefix = Some("g5-".into());
    });
    assert!(codes(both).contains(&Code::EKSGPU157));
    let mut other = p.clone();
    other.name = "other".into();
    assert!(codes_of(&strategy(vec![p, other])).contains(&Code::EKSGPU157));
}

#[test]
fn eksgpu158_user_data_in_the_format_of_the_ami() {
    let al2023 = node_group(&["p5.48xlarge"], |m| m.user_data = Some(RAID0.into()));
    assert!(!codes(al2023).contains(&Code::EKSGPU158));
    let bottlerocket = node_group(&["p5.48xlarge"], |m| {
        m.ami_type = Some("BOTTLEROCKET_x86_64_NVIDIA".into());
        m.user_data = Some(RAID0.into());
    });
    assert!(codes(bottlerocket).contains(&Code::EKSGPU158));
    let al2 = node_group(&["g6e.xlarge"], |m| {
        m.ami_type = Some("AL2_x86_64_GPU".into());
        m.user_data = Some(RAID0.into());
    });
    assert!(codes(al2).contains(&Code::EKSGPU158));
    let toml_on_al2023 = node_group(&["p5.48xlarge"], |m| {
        m.user_data = Some("[settings.kubernetes]\nmax-pods = 110\n".into());
    });
    assert!(codes(toml_on_al2023).contains(&Code::EKSGPU158));
}

#[test]
fn eksgpu159_user_data_that_sets_what_eks_sets() {
    let cluster = node_group(&["p5.48xlarge"], |m| {
        m.user_data = Some(format!("{RAID0}  cluster:\n    name: other\n"));
    });
    assert!(codes(cluster).contains(&Code::EKSGPU159));
    let labels = node_group(&["g6e.xlarge"], |m| {
        m.ami_type = Some("BOTTLEROCKET_x86_64_NVIDIA".into());
        m.user_data = Some("[settings.kubernetes.node-labels]\nteam = \"a\"\n".into());
    });
    assert!(codes(labels).contains(&Code::EKSGPU159));
    let bootstrap = node_group(&["g6e.xlarge"], |m| {
        m.ami_type = Some("AL2_x86_64_GPU".into());
        m.user_data = Some("#!/bin/bash\n/etc/eks/bootstrap.sh gpu\n".into());
    });
    assert!(codes(bootstrap).contains(&Code::EKSGPU159));
    let slicing = node_group(&["g6e.xlarge"], |m| {
        m.ami_type = Some("BOTTLEROCKET_x86_64_NVIDIA".into());
        m.user_data =
            Some("[settings.kubelet-device-plugins.nvidia]\ndevice-sharing-strategy = \"time-slicing\"\n".into());
    });
    let c = codes(slicing);
    assert!(!c.contains(&Code::EKSGPU159) && !c.contains(&Code::EKSGPU158), "{c:?}");
}

#[test]
fn eksgpu166_node_class_names_and_references() {
    let mut a = fixture::valid_pool("a", Capacity::Karpenter, &["p5.48xlarge"]);
    a.node_class.as_mut().expect("nc").name = Some("shared".into());
    let mut b = fixture::valid_pool("b", Capacity::Karpenter, &["p5.48xlarge"]);
    b.node_class = None;
    b.node_class_ref = Some("shared".into());
    assert!(!codes_of(&strategy(vec![a.clone(), b.clone()])).contains(&Code::EKSGPU166));
    let mut twice = b.clone();
    twice.node_class = a.node_class.clone();
    assert!(codes_of(&strategy(vec![a.clone(), twice])).contains(&Code::EKSGPU166));
    let mut clash = fixture::valid_pool("c", Capacity::Karpenter, &["p5.48xlarge"]);
    clash.node_class.as_mut().expect("nc").name = Some("shared".into());
    assert!(codes_of(&strategy(vec![a, clash])).contains(&Code::EKSGPU166));
}

#[test]
fn eksgpu167_ami_family_fits_the_alias() {
    let mut p = fixture::valid_pool("gpu", Capacity::Karpenter, &["p5.48xlarge"]);
    p.node_class.as_mut().expect("nc").ami_family = Some("AL2023".into());
    assert!(!codes(p.clone()).contains(&Code::EKSGPU167));
    p.node_class.as_mut().expect("nc").ami_family = Some("Bottlerocket".into());
    assert!(codes(p.clone()).contains(&Code::EKSGPU167));
    p.node_class.as_mut().expect("nc").ami_family = Some("Custom".into());
    assert!(!codes(p).contains(&Code::EKSGPU167));
}

fn g6f_overlay() -> NodeOverlay {
    NodeOverlay {
        name: "g6f-fractional-gpu".into(),
        requirements: vec![Requirement {
            key: "karpenter.k8s.aws/instance-family".into(),
            operator: "In".into(),
            values: vec!["g6f".into()],
        }],
        capacity: BTreeMap::from([("nvidia.com/gpu".into(), "1".into())]),
        ..NodeOverlay::default()
    }
}

#[test]
fn eksgpu168_hand_written_overlays_need_the_gate_and_one_price() {
    let mut p = fixture::valid_pool("fractional", Capacity::Karpenter, &[]);
    p.requirements = g6f_overlay().requirements.clone();
    p.node_overlays = vec![g6f_overlay()];
    let gated = |p: &Pool| NodeStrategy {
        karpenter_gates: FeatureGates {
            node_overlay: true,
            ..FeatureGates::default()
        },
        ..strategy(vec![p.clone()])
    };
    let c = codes_of(&gated(&p));
    assert!(!c.contains(&Code::EKSGPU168), "{c:?}");
    // The overlay makes the fractional types GPU types the pool may launch (no EKSGPU172).
    assert!(!c.contains(&Code::EKSGPU172), "{c:?}");
    assert!(codes(p.clone()).contains(&Code::EKSGPU168), "without the gate");
    p.node_overlays[0].price = Some("1.00".into());
    p.node_overlays[0].price_adjustment = Some("-10%".into());
    assert!(codes_of(&gated(&p)).contains(&Code::EKSGPU168));
}

#[test]
fn eksgpu169_node_group_volumes() {
    let snapshot = node_group(&["g6e.xlarge"], |m| {
        m.block_device_mappings = vec![NodeGroupVolume {
            device_name: "/dev/xvdb".into(),
            snapshot_id: Some("snap-0123456789abcdef0".into()),
            ..NodeGroupVolume::default()
        }];
    });
    assert!(!codes(snapshot).contains(&Code::EKSGPU169));
    let root_twice = node_group(&["g6e.xlarge"], |m| {
        m.block_device_mappings = vec![NodeGroupVolume {
            device_name: "/dev/xvda".into(),
            volume_size: Some(500),
            ..NodeGroupVolume::default()
        }];
    });
    assert!(
        codes(root_twice).contains(&Code::EKSGPU169),
        "disk_size sizes /dev/xvda"
    );
    let sizeless = node_group(&["g6e.xlarge"], |m| {
        m.block_device_mappings = vec![NodeGroupVolume {
            device_name: "/dev/xvdb".into(),
            ..NodeGroupVolume::default()
        }];
    });
    assert!(codes(sizeless).contains(&Code::EKSGPU169));
}

#[test]
fn eksgpu177_interfaces_are_checked_per_type() {
    // p4d.24xlarge (terraform-aws-modules/eks enable_efa_only): efa on card 0, efa-only on 1-3.
    let p4d = |list: Vec<NetworkInterface>| {
        let mut p = node_group(&["p4d.24xlarge"], |m| m.network_interfaces = list);
        p.efa = true;
        codes(p)
    };
    let good = vec![
        ni(0, 0, "efa"),
        ni(1, 1, "efa-only"),
        ni(2, 1, "efa-only"),
        ni(3, 1, "efa-only"),
    ];
    assert!(!p4d(good).contains(&Code::EKSGPU177));
    assert!(
        p4d(vec![ni(0, 0, "efa"), ni(4, 1, "efa-only")]).contains(&Code::EKSGPU177),
        "card 4 of 4"
    );
    assert!(
        p4d(vec![ni(0, 0, "efa"), ni(1, 15, "efa-only")]).contains(&Code::EKSGPU177),
        "device 15 of 15"
    );
    assert!(
        p4d(vec![ni(0, 0, "efa"), ni(0, 1, "efa-only")]).contains(&Code::EKSGPU177),
        "two EFA on card 0"
    );
    assert!(
        p4d(vec![ni(0, 0, "efa-only")]).contains(&Code::EKSGPU177),
        "an efa-only primary"
    );
    assert!(p4d(vec![ni(1, 0, "efa")]).contains(&Code::EKSGPU177), "no primary");
    // p6-b300: card 0 is ENA-only.
    let mut b300 = node_group(&["p6-b300.48xlarge"], |m| {
        m.network_interfaces = vec![ni(0, 0, "efa"), ni(1, 0, "efa-only")];
    });
    b300.efa = true;
    assert!(codes(b300.clone()).contains(&Code::EKSGPU177));
    b300.managed_node_group.as_mut().expect("mng").network_interfaces =
        vec![ni(0, 0, "interface"), ni(1, 0, "efa-only")];
    assert!(!codes(b300).contains(&Code::EKSGPU177));
}

#[test]
fn eksgpu177_the_rendered_efa_layouts_pass_and_a_mixed_node_group_does_not() {
    for t in ["p5.48xlarge", "p5en.48xlarge", "p6-b300.48xlarge", "trn2.48xlarge"] {
        let mut p = node_group(&[t], |_| {});
        p.efa = true;
        assert!(!codes(p).contains(&Code::EKSGPU177), "{t}");
    }
    // The b300 layout reaches card 16, which p5en.48xlarge (16 cards) does not have.
    let mut mixed = node_group(&["p6-b300.48xlarge", "p5en.48xlarge"], |_| {});
    mixed.efa = true;
    assert!(codes(mixed).contains(&Code::EKSGPU177));
}

#[test]
fn eksgpu178_unverified_rows_warn_and_are_not_guessed() {
    let mut trn2 = node_group(&["trn2.48xlarge"], |_| {});
    trn2.efa = true;
    let v: Vec<_> = check_node_strategy(&strategy(vec![trn2]), &CTX)
        .into_iter()
        .filter(|v| v.code == Code::EKSGPU178)
        .collect();
    assert_eq!(v.len(), 1);
    assert!(
        v[0].detail.contains("max_network_interfaces unverified"),
        "{}",
        v[0].detail
    );
    let mut p5 = node_group(&["p5.48xlarge"], |_| {});
    p5.efa = true;
    assert!(!codes(p5).contains(&Code::EKSGPU178));
}

#[test]
fn eksgpu179_one_karpenter_layout_per_pool() {
    let karpenter = |types: &[&str]| {
        let mut p = fixture::valid_pool("train", Capacity::Karpenter, types);
        p.efa = true;
        p.zones = vec!["us-west-2a".into()];
        p
    };
    assert!(!codes(karpenter(&["p6-b300.48xlarge"])).contains(&Code::EKSGPU179));
    assert!(codes(karpenter(&["p6-b300.48xlarge", "p5.48xlarge"])).contains(&Code::EKSGPU179));
    // Explicit interfaces every type takes: the pool's own layout.
    let mut own = karpenter(&["p6-b300.48xlarge", "p5.48xlarge"]);
    own.node_class.as_mut().expect("nc").network_interfaces = vec![ni(0, 0, "interface"), ni(1, 0, "efa-only")];
    let c = codes(own);
    assert!(!c.contains(&Code::EKSGPU179) && !c.contains(&Code::EKSGPU177), "{c:?}");
}

#[test]
fn eksgpu321_repair_thresholds_and_actions() {
    let repair = |r: NodeRepairConfig| codes(node_group(&["g4dn.xlarge"], |m| m.node_repair_config = Some(r)));
    let override_ = |action: &str| RepairOverride {
        node_monitoring_condition: "AcceleratedHardwareReady".into(),
        node_unhealthy_reason: "NvidiaXID13Error".into(),
        min_repair_wait_time_mins: 5,
        repair_action: action.into(),
    };
    let good = NodeRepairConfig {
        enabled: true,
        max_unhealthy_node_threshold_percentage: Some(25),
        max_parallel_nodes_repaired_count: Some(1),
        node_repair_config_overrides: vec![override_("Replace")],
        ..NodeRepairConfig::default()
    };
    assert!(!repair(good.clone()).contains(&Code::EKSGPU321));
    // eksctl's example writes `Terminate`.
    assert!(
        repair(NodeRepairConfig {
            node_repair_config_overrides: vec![override_("Terminate")],
            ..good.clone()
        })
        .contains(&Code::EKSGPU321)
    );
    assert!(
        repair(NodeRepairConfig {
            max_unhealthy_node_threshold_count: Some(3),
            ..good
        })
        .contains(&Code::EKSGPU321)
    );
}

#[test]
fn eksgpu322_reservation_targets() {
    let arn = "arn:aws:resource-groups:us-west-2:123456789012:group/odcrs";
    let group = node_group(&["p5.48xlarge"], |m| {
        m.capacity_reservation_resource_group_arn = Some(arn.into())
    });
    assert!(!codes(group.clone()).contains(&Code::EKSGPU322));
    let mut both = group.clone();
    both.managed_node_group.as_mut().expect("mng").capacity_reservation_id = Some("cr-0123456789abcdef0".into());
    assert!(codes(both).contains(&Code::EKSGPU322));
    let mut spot = group;
    spot.capacity_types = vec!["spot".into()];
    assert!(codes(spot).contains(&Code::EKSGPU322));
}

#[test]
fn eksgpu323_efa_interfaces_need_efa() {
    let listed = node_group(&["p4d.24xlarge"], |m| m.network_interfaces = vec![ni(0, 0, "efa")]);
    assert!(codes(listed.clone()).contains(&Code::EKSGPU323));
    let mut efa = listed;
    efa.efa = true;
    assert!(!codes(efa).contains(&Code::EKSGPU323));
}

#[test]
fn eksgpu324_selector_terms_alone_and_exclusive() {
    let mut p = fixture::valid_pool("neuron", Capacity::Karpenter, &["inf2.xlarge"]);
    let term = |k: &str| SelectorTerm {
        tags: BTreeMap::from([(k.to_owned(), "x".to_owned())]),
        ..SelectorTerm::default()
    };
    p.node_class.as_mut().expect("nc").security_group_selector_terms = vec![term("a"), term("b")];
    assert!(!codes(p.clone()).contains(&Code::EKSGPU324));
    let nc: &mut NodeClass = p.node_class.as_mut().expect("nc");
    nc.security_group_selector_terms[0].id = Some("sg-0123456789abcdef0".into());
    assert!(codes(p.clone()).contains(&Code::EKSGPU324));
    let nc: &mut NodeClass = p.node_class.as_mut().expect("nc");
    nc.security_group_selector_terms[0].id = None;
    nc.security_group_selector_ids = vec!["sg-0123456789abcdef0".into()];
    assert!(codes(p).contains(&Code::EKSGPU324));
}

#[test]
fn eksgpu325_a_placement_group_beside_a_reservation_warns() {
    let placed = node_group(&["p5.48xlarge"], |m| m.cluster_placement_group = true);
    assert!(!codes(placed.clone()).contains(&Code::EKSGPU325));
    let mut reserved = placed;
    reserved
        .managed_node_group
        .as_mut()
        .expect("mng")
        .capacity_reservation_id = Some("cr-0123456789abcdef0".into());
    assert!(codes(reserved).contains(&Code::EKSGPU325));
}

#[test]
fn auto_mode_reads_its_own_instance_labels_for_the_vendor_and_the_match() {
    let families = Requirement {
        key: "eks.amazonaws.com/instance-family".into(),
        operator: "In".into(),
        values: vec!["inf2".into(), "trn1".into(), "trn2".into()],
    };
    let mut auto = fixture::valid_pool("neuron", Capacity::AutoMode, &[]);
    auto.requirements = vec![families.clone()];
    assert!(auto.is_neuron(), "Auto Mode's instance-family selects Neuron types");
    let m = crate::node_strategy::matching::matched(&auto).expect("a match");
    assert!(
        !m.types.is_empty()
            && m.types
                .iter()
                .all(|t| t.name.starts_with("inf2") || t.name.starts_with("trn")),
        "{:?}",
        m.types.iter().map(|t| t.name).collect::<Vec<_>>()
    );
    // On a Karpenter cluster no node has Auto Mode's labels: the requirement narrows nothing.
    let mut karpenter = fixture::valid_pool("neuron", Capacity::Karpenter, &[]);
    karpenter.requirements = vec![families];
    assert!(!karpenter.is_neuron());
}

#[test]
fn an_auto_mode_neuron_pool_by_requirements_renders_no_empty_family_requirement() {
    assert!(!crate::node_strategy::render::selection::renders_family_requirement(
        Capacity::AutoMode,
        &[]
    ));
    assert!(crate::node_strategy::render::selection::renders_family_requirement(
        Capacity::AutoMode,
        &["trn2.48xlarge".into()]
    ));
}
