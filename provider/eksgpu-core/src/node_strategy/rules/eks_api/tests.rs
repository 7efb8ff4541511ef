use crate::rules::Code;
use std::collections::BTreeMap;

use super::*;
use crate::eks::AutoModeFlags;
use crate::fixture;
#[allow(unused_imports)]
use crate::model::{NodeRepairConfig, Taint, UpdateConfig};
use crate::node_strategy::rules::Context as NodeStrategyContext;

/// The violations, without the two warnings most fixtures would raise and that have their own
/// tests: EKSGPU132 (no `gpu_operator`) and EKSGPU130 (Karpenter DRA is opt-in).
fn check(s: &NodeStrategy, ctx: &NodeStrategyContext) -> Vec<crate::rules::Violation> {
    crate::node_strategy::rules::check_node_strategy(s, ctx)
        .into_iter()
        .filter(|v| v.code != Code::EKSGPU132 && v.code != Code::EKSGPU130)
        .collect()
}

/// A pool of `capacity` that passes the rules, named after its kind, on p5.48xlarge (none for hybrid).
fn pool(capacity: Capacity) -> Pool {
    let types: &[&str] = if capacity == Capacity::Hybrid {
        &[]
    } else {
        &["p5.48xlarge"]
    };
    fixture::valid_pool(&capacity.as_str().replace('_', "-"), capacity, types)
}

fn strategy(pools: Vec<Pool>) -> NodeStrategy {
    fixture::strategy("gpu", pools)
}

fn codes(s: &NodeStrategy) -> Vec<Code> {
    check(
        s,
        &NodeStrategyContext {
            karpenter_version: (1, 14),
        },
    )
    .iter()
    .map(|v| v.code)
    .collect()
}

#[test]
fn valid_aws_side_pools_pass() {
    let s = strategy(vec![
        pool(Capacity::ManagedNodeGroup),
        pool(Capacity::Hybrid),
        pool(Capacity::Karpenter),
    ]);
    assert_eq!(codes(&s), Vec::<&str>::new());
}

#[test]
fn eksgpu007_remote_networks_offline() {
    let mut p = pool(Capacity::Hybrid);
    let h = p.hybrid.as_mut().unwrap();
    h.remote_node_networks = vec![
        "8.8.0.0/16".into(),
        "10.0.0.0/8".into(),
        "10.1.0.0/16".into(),
        "nope".into(),
    ];
    h.remote_pod_networks = vec!["192.168.0.0/33".into()];
    let v = check(
        &strategy(vec![p]),
        &NodeStrategyContext {
            karpenter_version: (1, 14),
        },
    );
    let details: Vec<_> = v
        .iter()
        .filter(|v| v.code == Code::EKSGPU007)
        .map(|v| v.detail.as_str())
        .collect();
    assert_eq!(details.len(), 4, "{details:?}");
    assert!(details[0].contains("not inside RFC 1918"));
    assert!(details.iter().any(|d| d.contains("10.1.0.0/16 overlaps 10.0.0.0/8")));
    assert!(details.iter().any(|d| d.contains("\"nope\" is not an IPv4 CIDR")));
    assert_eq!(
        v[0].path,
        vec![
            Step::Attr("pools"),
            Step::Key("hybrid".into()),
            Step::Attr("hybrid"),
            Step::Attr("remote_node_networks"),
            Step::Index(0)
        ]
    );

    let mut many = pool(Capacity::Hybrid);
    many.hybrid.as_mut().unwrap().remote_node_networks = (0..16).map(|i| format!("10.{i}.0.0/16")).collect();
    assert_eq!(codes(&strategy(vec![many])), vec![Code::EKSGPU007]);
}

#[test]
fn eksgpu007_against_the_cluster_vpc_and_service_cidrs() {
    let s = strategy(vec![pool(Capacity::Hybrid)]);
    let mut facts = ClusterFacts {
        name: "gpu".into(),
        vpc_cidrs: vec!["10.0.0.0/16".into()],
        service_cidr: Some("172.20.0.0/16".into()),
        ..ClusterFacts::default()
    };
    assert!(check_against_cluster(&s, &facts).is_empty());
    facts.vpc_cidrs.push("10.80.0.0/20".into());
    facts.service_cidr = Some("10.85.0.0/16".into());
    let v = check_against_cluster(&s, &facts);
    assert_eq!(v.len(), 2, "{v:?}");
    assert!(v[0].detail.contains("overlaps the cluster VPC's CIDR 10.80.0.0/20"));
    assert!(v[1].detail.contains("service CIDR 10.85.0.0/16"));
}

#[test]
fn eksgpu008_auto_mode_next_to_managed_node_groups() {
    let s = strategy(vec![pool(Capacity::AutoMode), pool(Capacity::ManagedNodeGroup)]);
    let v = check(
        &s,
        &NodeStrategyContext {
            karpenter_version: (1, 14),
        },
    );
    assert_eq!(v.iter().map(|v| v.code).collect::<Vec<_>>(), vec![Code::EKSGPU008]);
    assert_eq!(v[0].severity, crate::rules::Severity::Warning);
    assert_eq!(
        v[0].path,
        vec![
            Step::Attr("pools"),
            Step::Key("managed-node-group".into()),
            Step::Attr("capacity")
        ]
    );

    // At apply: the cluster runs Auto Mode compute.
    let s = strategy(vec![pool(Capacity::ManagedNodeGroup)]);
    let facts = ClusterFacts {
        auto_mode: AutoModeFlags {
            compute: Some(true),
            block_storage: Some(true),
            load_balancing: Some(true),
        },
        ..ClusterFacts::default()
    };
    assert_eq!(check_against_cluster(&s, &facts)[0].code, Code::EKSGPU008);
}

#[test]
fn eksgpu013_ami_types() {
    let with_ami = |ami: &str, types: &[&str], version: &str| {
        let mut p = pool(Capacity::ManagedNodeGroup);
        p.instance_types = types.iter().map(|t| (*t).to_owned()).collect();
        p.managed_node_group.as_mut().unwrap().ami_type = Some(ami.into());
        let mut s = strategy(vec![p]);
        s.kubernetes_version = Some(version.into());
        codes(&s)
    };
    assert_eq!(
        with_ami("AL2_x86_64_GPU", &["g5.xlarge"], "1.33"),
        vec![Code::EKSGPU013]
    );
    assert!(with_ami("AL2_x86_64_GPU", &["g5.xlarge"], "1.32").is_empty());
    assert_eq!(
        with_ami("AL2023_x86_64_NVIDIA", &["g5g.xlarge"], "1.34"),
        vec![Code::EKSGPU013]
    );
    assert!(with_ami("AL2023_ARM_64_NVIDIA", &["g5g.xlarge"], "1.34").is_empty());
    assert_eq!(
        with_ami("AL2023_x86_64_STANDARD", &["g5.xlarge"], "1.34"),
        vec![Code::EKSGPU013]
    );
    assert_eq!(with_ami("AL2024_MAGIC", &["g5.xlarge"], "1.34"), vec![Code::EKSGPU013]);
    assert!(with_ami("BOTTLEROCKET_x86_64_NVIDIA", &["p5.48xlarge"], "1.34").is_empty());
}

#[test]
fn eksgpu018_inconsistent_auto_mode_flags() {
    let facts = ClusterFacts {
        name: "gpu".into(),
        auto_mode: AutoModeFlags {
            compute: Some(true),
            block_storage: Some(false),
            load_balancing: Some(true),
        },
        ..ClusterFacts::default()
    };
    let v = check_cluster(&facts);
    assert_eq!(v[0].code, Code::EKSGPU018);
    assert!(v[0].detail.contains("block storage false"));
    // A strategy with Auto Mode pools checks it at apply, pointing at cluster_name.
    let s = strategy(vec![pool(Capacity::AutoMode)]);
    assert_eq!(
        check_against_cluster(&s, &facts)[0].path,
        vec![Step::Attr("cluster_name")]
    );
    // Without Auto Mode pools the flags are not this strategy's business.
    assert!(check_against_cluster(&strategy(vec![pool(Capacity::Karpenter)]), &facts).is_empty());
    assert!(check_cluster(&ClusterFacts::default()).is_empty());
}

#[test]
fn eksgpu115_settings_for_another_capacity_kind() {
    let mut p = pool(Capacity::ManagedNodeGroup);
    p.gpu_limit = Some(8);
    p.hybrid = pool(Capacity::Hybrid).hybrid;
    assert_eq!(codes(&strategy(vec![p])), vec![Code::EKSGPU115, Code::EKSGPU115]);

    let mut p = pool(Capacity::ManagedNodeGroup);
    p.managed_node_group = None;
    assert_eq!(codes(&strategy(vec![p])), vec![Code::EKSGPU115]);

    let mut p = pool(Capacity::Hybrid);
    p.instance_types = vec!["g5.xlarge".into()];
    assert_eq!(codes(&strategy(vec![p])), vec![Code::EKSGPU115]);

    let mut p = pool(Capacity::Karpenter);
    p.instance_types = vec![];
    assert_eq!(codes(&strategy(vec![p])), vec![Code::EKSGPU115]);
}

#[test]
fn eksgpu116_one_hybrid_pool() {
    let mut second = pool(Capacity::Hybrid);
    second.name = "second".into();
    assert_eq!(
        codes(&strategy(vec![pool(Capacity::Hybrid), second])),
        vec![Code::EKSGPU116]
    );
}

#[test]
fn eksgpu117_node_group_values() {
    let mut p = pool(Capacity::ManagedNodeGroup);
    p.capacity_types = vec!["on-demand".into(), "reserved".into()];
    let m = p.managed_node_group.as_mut().unwrap();
    m.subnet_ids.clear();
    m.scaling.desired = 5;
    m.update = Some(UpdateConfig {
        max_unavailable: Some(0),
        max_unavailable_percentage: None,
    });
    assert_eq!(codes(&strategy(vec![p])), vec![Code::EKSGPU117; 5]);
}

#[test]
fn eksgpu117_one_update_setting_and_eksgpu123_node_group_disks() {
    let found = |p: &Pool| {
        check(
            &strategy(vec![p.clone()]),
            &NodeStrategyContext {
                karpenter_version: (1, 14),
            },
        )
    };
    let mut p = pool(Capacity::ManagedNodeGroup);
    let m = p.managed_node_group.as_mut().unwrap();
    m.update = Some(UpdateConfig {
        max_unavailable: Some(1),
        max_unavailable_percentage: Some(20),
    });
    let v = found(&p);
    assert_eq!(v.iter().map(|v| v.code).collect::<Vec<_>>(), [Code::EKSGPU117]);
    assert_eq!(v[0].path.last(), Some(&Step::Attr("max_unavailable_percentage")));

    let mut p = pool(Capacity::ManagedNodeGroup);
    for (disk, warns) in [
        (None, true),
        (Some(20), true),
        (Some(29), true),
        (Some(30), false),
        (Some(500), false),
    ] {
        p.managed_node_group.as_mut().unwrap().disk_size = disk;
        let v = found(&p);
        assert_eq!(v.iter().any(|v| v.code == Code::EKSGPU123), warns, "{disk:?}");
    }
}

#[test]
fn eksgpu125_identifying_tags_and_eksgpu115_tags_on_in_cluster_pools() {
    let ctx = NodeStrategyContext {
        karpenter_version: (1, 14),
    };
    let mut p = pool(Capacity::ManagedNodeGroup);
    p.tags = BTreeMap::from([
        ("cost-center".into(), "ml".into()),
        ("eksgpu.terraform.io/strategy".into(), "other".into()),
    ]);
    let v = check(&strategy(vec![p.clone()]), &ctx);
    assert_eq!(v.iter().map(|v| v.code).collect::<Vec<_>>(), [Code::EKSGPU125]);
    assert_eq!(
        v[0].path.last(),
        Some(&Step::Key("eksgpu.terraform.io/strategy".into()))
    );
    p.tags = (0..46).map(|i| (format!("k{i}"), "v".into())).collect();
    assert_eq!(codes(&strategy(vec![p])), [Code::EKSGPU125]);
    let mut k = pool(Capacity::Karpenter);
    k.tags = BTreeMap::from([("cost-center".into(), "ml".into())]);
    assert_eq!(codes(&strategy(vec![k])), [Code::EKSGPU115]);
}

#[test]
fn eksgpu181_capacity_blocks_name_their_reservation_and_one_type_and_eksgpu117_refuses_reserved() {
    let ctx = NodeStrategyContext {
        karpenter_version: (1, 14),
    };
    let codes_of = |m: &Pool| {
        check(&strategy(vec![m.clone()]), &ctx)
            .iter()
            .map(|v| v.code)
            .collect::<Vec<_>>()
    };
    let mut m = pool(Capacity::ManagedNodeGroup);
    m.capacity_types = vec!["capacity-block".into()];
    let v = check(&strategy(vec![m.clone()]), &ctx);
    assert_eq!(v.iter().map(|v| v.code).collect::<Vec<_>>(), [Code::EKSGPU181]);
    assert_eq!(v[0].path.last(), Some(&Step::Attr("capacity_reservation_id")));
    // With its reservation and one type it is a valid node group (on a launch template).
    let mng = m.managed_node_group.as_mut().expect("a node group");
    mng.capacity_reservation_id = Some("cr-0123456789abcdef0".into());
    assert!(codes_of(&m).is_empty(), "{:?}", codes_of(&m));
    m.instance_types.push("p5e.48xlarge".into());
    assert_eq!(codes_of(&m), [Code::EKSGPU181]);
    // A reservation without capacity-block targets an On-Demand Capacity Reservation; no Spot
    // capacity launches into one (EKSGPU322).
    m.instance_types.pop();
    m.capacity_types = vec!["on-demand".into()];
    assert!(codes_of(&m).is_empty(), "{:?}", codes_of(&m));
    m.capacity_types = vec!["spot".into()];
    assert_eq!(codes_of(&m), [Code::EKSGPU322]);
    // "reserved" is Karpenter's, not a node group capacity type.
    m.managed_node_group
        .as_mut()
        .expect("a node group")
        .capacity_reservation_id = None;
    m.capacity_types = vec!["reserved".into()];
    let v = check(&strategy(vec![m]), &ctx);
    assert_eq!(v.iter().map(|v| v.code).collect::<Vec<_>>(), [Code::EKSGPU117]);
    assert!(v[0].detail.contains("capacity-block"), "{}", v[0].detail);
}

#[test]
fn eksgpu180_autoscaler_tags_count_against_eks_tag_limits() {
    let ctx = NodeStrategyContext {
        karpenter_version: (1, 14),
    };
    let mut m = pool(Capacity::ManagedNodeGroup);
    // 40 pool tags and the identifying ones fit EKSGPU125's 50, not with a label tag per label.
    m.tags = (0..38).map(|i| (format!("k{i}"), "v".into())).collect();
    assert!(check(&strategy(vec![m.clone()]), &ctx).is_empty());
    m.labels = (0..6).map(|i| (format!("team{i}"), "ml".into())).collect();
    let v = check(&strategy(vec![m.clone()]), &ctx);
    assert_eq!(v.iter().map(|v| v.code).collect::<Vec<_>>(), [Code::EKSGPU180]);
    assert!(v[0].detail.contains(&format!("{:?}", m.name)), "{}", v[0].detail);
    // A tag value too long for EKS.
    m.labels.clear();
    m.tags = BTreeMap::from([("note".into(), "x".repeat(257))]);
    let v = check(&strategy(vec![m]), &ctx);
    assert!(v.iter().any(|v| v.code == Code::EKSGPU180), "{v:?}");
}

#[test]
fn eksgpu117_node_group_labels_taints_and_releases_as_the_eks_api_takes_them() {
    let paths = |s: &NodeStrategy| {
        check(
            s,
            &NodeStrategyContext {
                karpenter_version: (1, 14),
            },
        )
        .into_iter()
        .filter(|v| v.code == Code::EKSGPU117)
        .map(|v| v.path[2..].to_vec())
        .collect::<Vec<_>>()
    };
    let mng = || pool(Capacity::ManagedNodeGroup);
    // Labels and taint keys are their declarations' EKS checks (`on_kinds`), counts and releases rules.
    assert!(paths(&strategy(vec![mng()])).is_empty());
    // Labels: a Kubernetes label key of 64 characters (prefix included) and an empty value.
    let mut p = mng();
    let long_key = format!("{}/x", "a".repeat(62));
    p.labels.insert(long_key.clone(), "v".into());
    p.labels.insert("empty".into(), String::new());
    p.labels.insert(format!("{}/x", "a".repeat(61)), "v".repeat(63));
    assert_eq!(
        paths(&strategy(vec![p])),
        [
            vec![Step::Attr("labels"), Step::Key(long_key)],
            vec![Step::Attr("labels"), Step::Key("empty".into())],
        ]
    );
    // Taints: 49 of the pool's and the GPU taint fit, 50 and the GPU taint do not.
    let taint = |i: usize| Taint {
        key: format!("t{i}"),
        value: None,
        effect: "NoSchedule".into(),
    };
    let mut p = mng();
    p.taints = (0..49).map(taint).collect();
    assert!(paths(&strategy(vec![p.clone()])).is_empty());
    p.taints.push(taint(49));
    assert_eq!(paths(&strategy(vec![p.clone()])), [vec![Step::Attr("taints")]]);
    p.gpu_taint = false;
    assert!(paths(&strategy(vec![p])).is_empty());
    let mut p = mng();
    p.taints = vec![Taint {
        key: format!("{}/x", "a".repeat(62)),
        value: Some("v".repeat(63)),
        effect: "NoSchedule".into(),
    }];
    assert_eq!(
        paths(&strategy(vec![p])),
        [vec![Step::Attr("taints"), Step::Index(0), Step::Attr("key")]]
    );
    // The release must be one of the cluster's Kubernetes minor (1.34 here).
    let mut p = mng();
    p.managed_node_group.as_mut().unwrap().release_version = Some("1.33.0-20260801".into());
    assert_eq!(
        paths(&strategy(vec![p.clone()])),
        [vec![Step::Attr("managed_node_group"), Step::Attr("release_version")]]
    );
    p.managed_node_group.as_mut().unwrap().release_version = Some("1.34.0-20260801".into());
    assert!(paths(&strategy(vec![p.clone()])).is_empty());
    let mut unknown = strategy(vec![p.clone()]);
    unknown.kubernetes_version = None;
    assert!(paths(&unknown).is_empty());
    // The role ARN is the attribute's own check (validate::iam_role_arn on the declaration), not a rule's.
    p.managed_node_group.as_mut().unwrap().node_role_arn = format!("arn:aws:iam::123456789012:role/{}", "r".repeat(65));
    assert!(paths(&strategy(vec![p])).is_empty());
}

/// EKSGPU307: a node group at most the cluster's minor and three older; EKSGPU117 reads a
/// release against the node group's own version.
#[test]
fn eksgpu307_node_group_version_skew() {
    let with_version = |cluster: Option<&str>, version: &str, release: Option<&str>| {
        let mut p = pool(Capacity::ManagedNodeGroup);
        let m = p.managed_node_group.as_mut().unwrap();
        m.kubernetes_version = Some(version.into());
        m.release_version = release.map(str::to_owned);
        let mut s = strategy(vec![p]);
        s.kubernetes_version = cluster.map(str::to_owned);
        codes(&s)
    };
    assert!(with_version(Some("1.34"), "1.34", None).is_empty());
    assert!(with_version(Some("1.34"), "1.31", None).is_empty());
    assert_eq!(with_version(Some("1.34"), "1.30", None), vec![Code::EKSGPU307]);
    assert_eq!(with_version(Some("1.34"), "1.35", None), vec![Code::EKSGPU307]);
    assert_eq!(with_version(Some("1.34"), "2.1", None), vec![Code::EKSGPU307]);
    assert!(with_version(None, "1.35", None).is_empty(), "unknown cluster version");
    assert!(with_version(Some("1.34"), "1.32", Some("1.32.9-20260801")).is_empty());
    assert_eq!(
        with_version(Some("1.34"), "1.32", Some("1.34.0-20260801")),
        vec![Code::EKSGPU117]
    );
}
