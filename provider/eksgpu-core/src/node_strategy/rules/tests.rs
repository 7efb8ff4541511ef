//! One test per rule that fires and one that does not.

use crate::rules::Code;
use std::collections::BTreeMap;

use super::*;
use crate::fixture;
use crate::model::{Disruption, GpuOperator, Kubelet, NodeClass, Taint};
use crate::render::{DEPLOY_DEVICE_PLUGIN, DEVICE_PLUGIN_CONFIG, MIG_CONFIG};

const CTX: Context = Context {
    karpenter_version: (1, 15),
};

/// The violations, without the two warnings most fixtures would raise and that have their own
/// tests: EKSGPU132 (no `gpu_operator`) and EKSGPU130 (Karpenter DRA is opt-in).
fn check(s: &NodeStrategy, ctx: &Context) -> Vec<crate::rules::Violation> {
    check_node_strategy(s, ctx)
        .into_iter()
        .filter(|v| v.code != Code::EKSGPU132 && v.code != Code::EKSGPU130)
        .collect()
}

/// A pool without a node group or hybrid block; a Karpenter pool has the node class it needs.
fn pool(name: &str, capacity: Capacity, types: &[&str]) -> Pool {
    Pool {
        node_class: (capacity == Capacity::Karpenter).then(fixture::karpenter_node_class),
        ..fixture::pool(name, capacity, types)
    }
}

fn strategy(pools: Vec<Pool>, operator: bool) -> NodeStrategy {
    NodeStrategy {
        cluster_name: "gpu".into(),
        name: "genai".into(),
        kubernetes_version: None,
        device_plugin: None,
        gpu_operator: operator.then(|| GpuOperator {
            mig_strategy: "mixed".into(),
            dcgm_exporter: true,
            service_monitor: false,
        }),
        pools,
        default_tags: BTreeMap::new(),
        karpenter_gates: Default::default(),
    }
}

fn codes(s: &NodeStrategy) -> Vec<Code> {
    check(s, &CTX).into_iter().map(|v| v.code).collect()
}

fn with_label(mut p: Pool, k: &str, v: &str) -> Pool {
    p.labels.insert(k.into(), v.into());
    p
}

#[test]
fn a_good_strategy_is_clean() {
    let s = strategy(
        vec![
            pool("inference", Capacity::Karpenter, &["p5.48xlarge", "g6e.12xlarge"]),
            pool("auto", Capacity::AutoMode, &["p5.48xlarge"]),
        ],
        true,
    );
    assert_eq!(codes(&s), Vec::<&str>::new());
}

#[test]
fn eksgpu001_mig_on_auto_mode() {
    let s = strategy(
        vec![with_label(
            pool("a", Capacity::AutoMode, &["p5.48xlarge"]),
            MIG_CONFIG,
            "all-1g.10gb",
        )],
        false,
    );
    assert_eq!(codes(&s), [Code::EKSGPU001]);
    let v = &check(&s, &CTX)[0];
    assert_eq!(
        v.path,
        vec![
            Step::Attr("pools"),
            Step::Key("a".into()),
            Step::Attr("labels"),
            Step::Key(MIG_CONFIG.into())
        ]
    );
    let s = strategy(
        vec![with_label(
            pool("k", Capacity::Karpenter, &["p5.48xlarge"]),
            MIG_CONFIG,
            "all-1g.10gb",
        )],
        false,
    );
    assert_eq!(codes(&s), Vec::<&str>::new());
}

#[test]
fn eksgpu002_and_003_mig_layouts_against_the_gpu() {
    let s = strategy(
        vec![with_label(
            pool("k", Capacity::Karpenter, &["g5.2xlarge"]),
            MIG_CONFIG,
            "all-1g.10gb",
        )],
        false,
    );
    assert_eq!(codes(&s), [Code::EKSGPU002]);
    let s = strategy(
        vec![with_label(
            pool("k", Capacity::Karpenter, &["p5en.48xlarge"]),
            MIG_CONFIG,
            "all-1g.10gb",
        )],
        false,
    );
    assert_eq!(codes(&s), [Code::EKSGPU003]);
    let s = strategy(
        vec![with_label(
            pool("k", Capacity::Karpenter, &["p5en.48xlarge"]),
            MIG_CONFIG,
            "all-1g.18gb.me",
        )],
        false,
    );
    assert_eq!(codes(&s), Vec::<&str>::new());
}

#[test]
fn eksgpu005_disruption() {
    let mut p = pool("k", Capacity::Karpenter, &["p5.48xlarge"]);
    p.disruption = Some(Disruption {
        consolidation_policy: Some("WhenUnderutilized".into()),
        consolidate_after: Some("5m".into()),
        budgets: Vec::new(),
    });
    assert_eq!(codes(&strategy(vec![p.clone()], false)), [Code::EKSGPU005]);
    p.disruption = Some(Disruption {
        consolidation_policy: Some("Balanced".into()),
        consolidate_after: Some("1h30m".into()),
        budgets: Vec::new(),
    });
    assert_eq!(codes(&strategy(vec![p.clone()], false)), Vec::<&str>::new());
    let old = Context {
        karpenter_version: (1, 9),
    };
    assert_eq!(check(&strategy(vec![p.clone()], false), &old).len(), 1);
    p.disruption = Some(Disruption {
        consolidation_policy: None,
        consolidate_after: Some("5 minutes".into()),
        budgets: Vec::new(),
    });
    assert_eq!(codes(&strategy(vec![p], false)), [Code::EKSGPU005]);
}

#[test]
fn eksgpu005_budget_schedule_needs_a_duration_and_expiry_is_a_duration() {
    let budget = |schedule: Option<&str>, duration: Option<&str>| crate::model::Budget {
        nodes: "0".into(),
        schedule: schedule.map(Into::into),
        duration: duration.map(Into::into),
        reasons: vec![],
    };
    let mut p = pool("k", Capacity::Karpenter, &["p5.48xlarge"]);
    p.expire_after = Some("Never".into());
    p.disruption = Some(Disruption {
        consolidation_policy: None,
        consolidate_after: None,
        budgets: vec![budget(Some("0 9 * * 1-5"), Some("8h")), budget(None, None)],
    });
    assert_eq!(codes(&strategy(vec![p.clone()], false)), Vec::<&str>::new());
    p.disruption.as_mut().unwrap().budgets = vec![budget(None, None), budget(Some("@daily"), None)];
    let s = strategy(vec![p.clone()], false);
    assert_eq!(codes(&s), [Code::EKSGPU005]);
    assert_eq!(
        check(&s, &CTX)[0].path,
        vec![
            Step::Attr("pools"),
            Step::Key("k".into()),
            Step::Attr("disruption"),
            Step::Attr("budgets"),
            Step::Index(1),
            Step::Attr("duration")
        ]
    );
    // `expire_after` is checked where it is declared (inputs/pool.rs: validate::karpenter_duration),
    // at its own path, before any rule runs.
    assert!(crate::validate::karpenter_duration("30d").is_err());
}

#[test]
fn eksgpu115_node_pool_settings_on_a_node_group() {
    let mut p = pool("g", Capacity::ManagedNodeGroup, &["p5.48xlarge"]);
    p.cpu_limit = Some("100".into());
    p.weight = Some(10);
    let found = check(&strategy(vec![p], false), &CTX);
    let attrs: Vec<_> = found
        .iter()
        .filter(|v| v.code == Code::EKSGPU115)
        .filter_map(|v| match v.path.get(2) {
            Some(Step::Attr(a)) => Some(*a),
            _ => None,
        })
        .collect();
    assert!(attrs.contains(&"cpu_limit") && attrs.contains(&"weight"), "{found:?}");
}

#[test]
fn eksgpu006_and_103_node_class_on_auto_mode() {
    let mut p = pool("a", Capacity::AutoMode, &["g6e.xlarge"]);
    p.node_class = Some(NodeClass {
        kubelet: Some(Kubelet {
            max_pods: Some(110),
            ..Kubelet::default()
        }),
        ami_alias: Some("al2023@latest".into()),
        role: Some("AutoModeNodeRole".into()),
        ..NodeClass::default()
    });
    // In declaration order: `ami_alias` (an attribute) before `kubelet` (a block).
    assert_eq!(codes(&strategy(vec![p], false)), [Code::EKSGPU103, Code::EKSGPU006]);
    let mut p = pool("k", Capacity::Karpenter, &["g6e.xlarge"]);
    if let Some(nc) = &mut p.node_class {
        nc.kubelet = Some(Kubelet {
            max_pods: Some(110),
            ..Kubelet::default()
        });
    }
    assert_eq!(codes(&strategy(vec![p], false)), Vec::<&str>::new());
}

#[test]
fn eksgpu009_observed_auto_mode_failures_warn() {
    let s = strategy(vec![pool("a", Capacity::AutoMode, &["p5en.48xlarge"])], false);
    let v = check(&s, &CTX);
    assert_eq!(v.iter().map(|v| v.code).collect::<Vec<_>>(), [Code::EKSGPU009]);
    assert_eq!(v[0].severity, crate::rules::Severity::Warning);
    assert_eq!(
        codes(&strategy(
            vec![pool("k", Capacity::Karpenter, &["p5en.48xlarge"])],
            false
        )),
        Vec::<&str>::new()
    );
}

#[test]
fn eksgpu010_operator_device_plugin_on_auto_mode() {
    let p = with_label(
        pool("a", Capacity::AutoMode, &["g6e.xlarge"]),
        DEPLOY_DEVICE_PLUGIN,
        "true",
    );
    assert_eq!(codes(&strategy(vec![p.clone()], true)), [Code::EKSGPU010]);
    // Without the operator the label is inert.
    assert_eq!(codes(&strategy(vec![p], false)), Vec::<&str>::new());
}

#[test]
fn eksgpu011_and_102_device_plugin_sharing() {
    let k = with_label(
        pool("k", Capacity::Karpenter, &["g5.2xlarge"]),
        DEVICE_PLUGIN_CONFIG,
        "ts-2",
    );
    assert_eq!(codes(&strategy(vec![k], false)), [Code::EKSGPU011]);
    let a = with_label(
        pool("a", Capacity::AutoMode, &["g5.2xlarge"]),
        DEVICE_PLUGIN_CONFIG,
        "ts-2",
    );
    assert_eq!(codes(&strategy(vec![a], false)), [Code::EKSGPU102]);
    let mut m = with_label(
        pool("m", Capacity::ManagedNodeGroup, &["g5.2xlarge"]),
        DEVICE_PLUGIN_CONFIG,
        "ts-2",
    );
    m.managed_node_group = Some(crate::model::ManagedNodeGroup {
        scaling: crate::model::Scaling {
            min: 0,
            max: 1,
            desired: 0,
        },
        ..fixture::managed_node_group()
    });
    assert_eq!(codes(&strategy(vec![m], false)), Vec::<&str>::new());
}

#[test]
fn eksgpu014_gpu_pool_without_taint() {
    let mut p = pool("k", Capacity::Karpenter, &["g5.2xlarge"]);
    p.gpu_taint = false;
    assert_eq!(codes(&strategy(vec![p.clone()], false)), [Code::EKSGPU014]);
    p.taints = vec![Taint {
        key: "workload".into(),
        value: Some("training".into()),
        effect: "NoSchedule".into(),
    }];
    assert_eq!(codes(&strategy(vec![p], false)), Vec::<&str>::new());
}

#[test]
fn eksgpu015_single_strategy_with_balanced_layout() {
    let mut s = strategy(
        vec![with_label(
            pool("k", Capacity::Karpenter, &["p5.48xlarge"]),
            MIG_CONFIG,
            "all-balanced",
        )],
        true,
    );
    // (mixed on dynamic Karpenter capacity also warns EKSGPU122.)
    assert_eq!(codes(&s), [Code::EKSGPU122]);
    if let Some(g) = &mut s.gpu_operator {
        g.mig_strategy = "single".into();
    }
    assert_eq!(codes(&s), [Code::EKSGPU015]);
}

#[test]
fn eksgpu016_101_instance_types() {
    let s = strategy(vec![pool("k", Capacity::Karpenter, &["m5.large", "g6f.xlarge"])], false);
    assert_eq!(codes(&s), [Code::EKSGPU016, Code::EKSGPU101]);
    let v = check(&s, &CTX);
    assert_eq!(
        v[0].path,
        vec![
            Step::Attr("pools"),
            Step::Key("k".into()),
            Step::Attr("instance_types"),
            Step::Index(0)
        ]
    );
}

#[test]
fn eksgpu017_two_device_managers() {
    let mut p = with_label(
        pool("k", Capacity::Karpenter, &["p5.48xlarge"]),
        DEPLOY_DEVICE_PLUGIN,
        "true",
    );
    p.dra = true;
    assert_eq!(codes(&strategy(vec![p], true)), [Code::EKSGPU017]);
    let hami = with_label(pool("h", Capacity::Karpenter, &["g5.2xlarge"]), "gpu", "on");
    assert_eq!(
        codes(&strategy(vec![hami.clone()], true)),
        [Code::EKSGPU017, Code::EKSGPU122]
    );
    let hami_ok = with_label(hami, DEPLOY_DEVICE_PLUGIN, "false");
    assert_eq!(codes(&strategy(vec![hami_ok.clone()], true)), [Code::EKSGPU122]);
    // Bottlerocket's own device plugin stays whatever the label says.
    let mut hami_br = hami_ok;
    if let Some(nc) = &mut hami_br.node_class {
        nc.ami_alias = Some("bottlerocket@latest".into());
    }
    assert_eq!(
        codes(&strategy(vec![hami_br], true)),
        [Code::EKSGPU017, Code::EKSGPU122]
    );
    let mut dra = pool("d", Capacity::Karpenter, &["p5.48xlarge"]);
    dra.dra = true;
    assert_eq!(codes(&strategy(vec![dra.clone()], true)), Vec::<&str>::new());
    // A DRA pool taking a device-plugin sharing config brings the device plugin back.
    let shared = with_label(dra, DEVICE_PLUGIN_CONFIG, "ts-2");
    assert_eq!(codes(&strategy(vec![shared], true)), [Code::EKSGPU011, Code::EKSGPU017]);
}

#[test]
fn eksgpu104_105_106_basics() {
    let mut p = pool("k", Capacity::Karpenter, &["g5.2xlarge"]);
    p.node_class = None;
    // Without a node class, the default 20Gi root volume warns too (EKSGPU123).
    assert_eq!(codes(&strategy(vec![p], false)), [Code::EKSGPU104, Code::EKSGPU123]);
    let s = strategy(
        vec![
            pool("ok", Capacity::Karpenter, &["g5.2xlarge"]),
            pool("Bad_Name", Capacity::Karpenter, &["g5.2xlarge"]),
        ],
        false,
    );
    // Names are the keys of `pools`: unique by construction, and refused at the key.
    assert_eq!(codes(&s), [Code::EKSGPU105]);
    assert_eq!(
        check(&s, &CTX)[0].path,
        vec![Step::Attr("pools"), Step::Key("Bad_Name".into())]
    );
    let mut p = pool("k", Capacity::Karpenter, &["g5.2xlarge"]);
    p.capacity_types = vec!["SPOT".into()];
    p.taints = vec![Taint {
        key: "a".into(),
        value: None,
        effect: "NO_SCHEDULE".into(),
    }];
    assert_eq!(codes(&strategy(vec![p], false)), [Code::EKSGPU106, Code::EKSGPU106]);
}

#[test]
fn durations() {
    for ok in ["0s", "5m", "1h30m", "Never", "720h"] {
        assert!(is_karpenter_duration(ok), "{ok}");
    }
    for bad in ["", "5", "m", "5 m", "1d", "never"] {
        assert!(!is_karpenter_duration(bad), "{bad}");
    }
}

#[test]
fn eksgpu165_dynamic_dra_pool_before_1_15_is_an_error() {
    // Karpenter 1.14 launches no node for a claim: a dynamic pool never serves one (issue #33).
    let mut p = pool("d", Capacity::Karpenter, &["p5.48xlarge"]);
    p.dra = true;
    let s = strategy(vec![p.clone()], true);
    let allocator = Context {
        karpenter_version: (1, 14),
    };
    let found = check(&s, &allocator);
    assert_eq!(
        found.iter().map(|v| (v.code, v.severity)).collect::<Vec<_>>(),
        [(Code::EKSGPU165, crate::rules::Severity::Error)]
    );
    // A static pool (replicas) on the same release stays allowed by this rule.
    p.replicas = Some(2);
    let s = strategy(vec![p], true);
    assert!(check(&s, &allocator).iter().all(|v| v.code != Code::EKSGPU165));
}

#[test]
fn eksgpu004_dra_support_matrix() {
    let mut p = pool("d", Capacity::Karpenter, &["p5.48xlarge"]);
    p.dra = true;
    let mut s = strategy(vec![p], true);
    // Before 1.14 a dynamic pool cannot serve claims; 1.14 only on existing nodes (EKSGPU165);
    // 1.15 provisions for claims.
    let old = Context {
        karpenter_version: (1, 13),
    };
    assert_eq!(
        check(&s, &old).iter().map(|v| v.code).collect::<Vec<_>>(),
        [Code::EKSGPU004]
    );
    let allocator = Context {
        karpenter_version: (1, 14),
    };
    assert_eq!(
        check(&s, &allocator).iter().map(|v| v.code).collect::<Vec<_>>(),
        [Code::EKSGPU165]
    );
    let new = Context {
        karpenter_version: (1, 15),
    };
    assert!(check(&s, &new).is_empty());
    s.kubernetes_version = Some("1.33".into());
    assert_eq!(
        check(&s, &new).iter().map(|v| v.code).collect::<Vec<_>>(),
        [Code::EKSGPU004]
    );
    let mut a = pool("a", Capacity::AutoMode, &["p5.48xlarge"]);
    a.dra = true;
    let mut s = strategy(vec![a], false);
    s.kubernetes_version = Some("1.35".into());
    assert_eq!(codes(&s), [Code::EKSGPU004]);
    s.kubernetes_version = Some("1.36".into());
    assert_eq!(codes(&s), Vec::<&str>::new());
}

#[test]
fn eksgpu118_ami_aliases() {
    let with_alias = |alias: &str| {
        let mut p = pool("k", Capacity::Karpenter, &["g6e.xlarge"]);
        if let Some(nc) = &mut p.node_class {
            nc.ami_alias = Some(alias.into());
        }
        p
    };
    for ok in ["al2023@latest", "al2023@v20250920", "bottlerocket@v1.54.0"] {
        assert_eq!(
            codes(&strategy(vec![with_alias(ok)], false)),
            Vec::<&str>::new(),
            "{ok}"
        );
    }
    for bad in ["al2023", "al2023@", "windows2022@latest", "ubuntu@22.04"] {
        assert_eq!(
            codes(&strategy(vec![with_alias(bad)], false)),
            [Code::EKSGPU118],
            "{bad}"
        );
    }
    // AL2: EKS stopped publishing AL2 AMIs after Kubernetes 1.32.
    let mut s = strategy(vec![with_alias("al2@latest")], false);
    s.kubernetes_version = Some("1.32".into());
    assert_eq!(codes(&s), Vec::<&str>::new());
    s.kubernetes_version = Some("1.33".into());
    assert_eq!(codes(&s), [Code::EKSGPU118]);
}

#[test]
fn eksgpu119_reserved_only_never_launches() {
    let mut p = pool("k", Capacity::Karpenter, &["p5.48xlarge"]);
    p.capacity_types = vec!["reserved".into()];
    assert_eq!(codes(&strategy(vec![p.clone()], false)), [Code::EKSGPU119]);
    p.capacity_types = vec!["reserved".into(), "on-demand".into()];
    assert_eq!(codes(&strategy(vec![p], false)), Vec::<&str>::new());
}

#[test]
fn eksgpu120_auto_mode_node_class_needs_a_role() {
    let mut p = pool("a", Capacity::AutoMode, &["g6e.xlarge"]);
    p.node_class = Some(NodeClass::default());
    assert_eq!(codes(&strategy(vec![p.clone()], false)), [Code::EKSGPU120]);
    p.node_class = Some(NodeClass {
        role: Some("AutoModeNodeRole".into()),
        ..NodeClass::default()
    });
    assert_eq!(codes(&strategy(vec![p.clone()], false)), Vec::<&str>::new());
    // The built-in NodeClass needs none.
    p.node_class = None;
    assert_eq!(codes(&strategy(vec![p], false)), Vec::<&str>::new());
}

#[test]
fn eksgpu121_no_device_plugin_sharing_on_bottlerocket() {
    let mut p = pool("k", Capacity::Karpenter, &["g5.2xlarge"]);
    if let Some(nc) = &mut p.node_class {
        nc.ami_alias = Some("bottlerocket@latest".into());
    }
    assert!(p.bottlerocket());
    let shared = with_label(p, DEVICE_PLUGIN_CONFIG, "ts-2");
    assert_eq!(codes(&strategy(vec![shared], true)), [Code::EKSGPU011, Code::EKSGPU121]);
}

#[test]
fn eksgpu122_resources_karpenter_cannot_predict() {
    // kubernetes-sigs/karpenter pkg/utils/resources: a resource the instance type does not
    // advertise counts as zero, so nvidia.com/mig-* pods never get a node.
    let mig = with_label(
        pool("k", Capacity::Karpenter, &["p5.48xlarge"]),
        MIG_CONFIG,
        "all-1g.10gb",
    );
    let v = check(&strategy(vec![mig.clone()], true), &CTX);
    assert_eq!(v.iter().map(|v| v.code).collect::<Vec<_>>(), [Code::EKSGPU122]);
    assert_eq!(v[0].severity, crate::rules::Severity::Warning);
    assert!(v[0].detail.contains("NodeOverlay"), "{}", v[0].detail);
    let old = Context {
        karpenter_version: (1, 6),
    };
    let v = check(&strategy(vec![mig.clone()], true), &old);
    assert!(v[0].detail.contains("has no NodeOverlay"), "{}", v[0].detail);
    // all-disabled, or the single strategy (nvidia.com/gpu), are fine.
    let off = with_label(
        pool("k", Capacity::Karpenter, &["p5.48xlarge"]),
        MIG_CONFIG,
        "all-disabled",
    );
    assert_eq!(codes(&strategy(vec![off], true)), Vec::<&str>::new());
    let mut single = strategy(vec![mig], true);
    single.gpu_operator.as_mut().unwrap().mig_strategy = "single".into();
    assert_eq!(codes(&single), Vec::<&str>::new());
}

#[test]
fn eksgpu106_reserved_capacity_needs_karpenter_1_3() {
    let mut p = pool("a", Capacity::Karpenter, &["p5.48xlarge"]);
    p.capacity_types = vec!["spot".into(), "reserved".into()];
    let old = Context {
        karpenter_version: (1, 2),
    };
    let found = check(&strategy(vec![p.clone()], false), &old);
    assert!(found.iter().any(|v| v.code == Code::EKSGPU106), "{found:?}");
    let new = Context {
        karpenter_version: (1, 6),
    };
    let found = check(&strategy(vec![p], false), &new);
    assert!(found.iter().all(|v| v.code != Code::EKSGPU106), "{found:?}");
}

#[test]
fn eksgpu123_gpu_pools_need_room_for_inference_images() {
    let sized = |size: Option<&str>| {
        let mut p = pool("k", Capacity::Karpenter, &["g6e.xlarge"]);
        p.node_class.as_mut().unwrap().root_volume = size.map(|s| crate::model::RootVolume {
            size: Some(s.into()),
            ..Default::default()
        });
        p
    };
    // Karpenter's default 20Gi, and explicit sizes under 30Gi, warn; 30Gi and up do not.
    for (size, warns) in [
        (None, true),
        (Some("20Gi"), true),
        (Some("29Gi"), true),
        (Some("30Gi"), false),
        (Some("200Gi"), false),
        (Some("1Ti"), false),
    ] {
        let found = check(&strategy(vec![sized(size)], false), &CTX);
        assert_eq!(found.iter().any(|v| v.code == Code::EKSGPU123), warns, "{size:?}");
        if let Some(v) = found.first() {
            assert_eq!(v.severity, crate::rules::Severity::Warning);
        }
    }
    let v = &check(&strategy(vec![sized(Some("20Gi"))], false), &CTX)[0];
    assert_eq!(
        v.path,
        vec![
            Step::Attr("pools"),
            Step::Key("k".into()),
            Step::Attr("node_class"),
            Step::Attr("root_volume"),
            Step::Attr("size")
        ]
    );
    // Instance-store RAID0 holds the images instead.
    let mut raid = sized(None);
    raid.node_class.as_mut().unwrap().instance_store_policy = Some("RAID0".into());
    assert_eq!(codes(&strategy(vec![raid], false)), Vec::<&str>::new());
    // Bottlerocket: the warning is about its data volume.
    let mut br = sized(None);
    br.node_class.as_mut().unwrap().ami_alias = Some("bottlerocket@latest".into());
    assert!(check(&strategy(vec![br], false), &CTX)[0].detail.contains("/dev/xvdb"));
    // Auto Mode's default is 80Gi; only a small explicit size warns.
    let mut auto = pool("a", Capacity::AutoMode, &["g6e.xlarge"]);
    assert_eq!(codes(&strategy(vec![auto.clone()], false)), Vec::<&str>::new());
    auto.node_class = Some(NodeClass {
        role: Some("AutoNodeRole".into()),
        root_volume: Some(crate::model::RootVolume {
            size: Some("20Gi".into()),
            ..Default::default()
        }),
        ..NodeClass::default()
    });
    assert_eq!(codes(&strategy(vec![auto], false)), [Code::EKSGPU123]);
}

#[test]
fn eksgpu124_ec2_node_class_settings_on_auto_mode() {
    let mut auto = pool("a", Capacity::AutoMode, &["g6e.xlarge"]);
    auto.node_class = Some(NodeClass {
        role: Some("AutoNodeRole".into()),
        metadata_options: Some(crate::model::MetadataOptions {
            http_tokens: None,
            http_put_response_hop_limit: Some(2),
        }),
        instance_store_policy: Some("RAID0".into()),
        ..NodeClass::default()
    });
    let found = check(&strategy(vec![auto], false), &CTX);
    assert_eq!(
        found.iter().map(|v| v.code).collect::<Vec<_>>(),
        [Code::EKSGPU124, Code::EKSGPU124]
    );
    // In declaration order: the attribute `instance_store_policy`, then the block.
    assert_eq!(found[0].path[3], Step::Attr("instance_store_policy"));
    assert_eq!(found[1].path[3], Step::Attr("metadata_options"));
    // On Karpenter they are EC2NodeClass fields.
    let mut k = pool("k", Capacity::Karpenter, &["p5.48xlarge"]);
    let nc = k.node_class.as_mut().unwrap();
    nc.metadata_options = Some(crate::model::MetadataOptions {
        http_tokens: Some("required".into()),
        http_put_response_hop_limit: Some(2),
    });
    nc.instance_store_policy = Some("RAID0".into());
    assert_eq!(codes(&strategy(vec![k], false)), Vec::<&str>::new());
}

#[test]
fn eksgpu126_127_efa_needs_efa_types_attaching_capacity_and_one_zone() {
    let mut p = pool("train", Capacity::Karpenter, &["p5.48xlarge"]);
    p.efa = true;
    p.zones = vec!["us-west-2a".into()];
    assert_eq!(codes(&strategy(vec![p.clone()], false)), Vec::<&str>::new());
    // A type without EFA (g6e.xlarge has none in the catalog).
    p.instance_types.push("g6e.xlarge".into());
    let found = check(&strategy(vec![p.clone()], false), &CTX);
    assert_eq!(found.iter().map(|v| v.code).collect::<Vec<_>>(), [Code::EKSGPU126]);
    assert_eq!(found[0].path[3], Step::Index(1));
    // Any zone: a warning.
    p.instance_types.pop();
    p.zones.clear();
    let found = check(&strategy(vec![p], false), &CTX);
    assert_eq!(found.iter().map(|v| v.code).collect::<Vec<_>>(), [Code::EKSGPU127]);
    assert_eq!(found[0].severity, crate::rules::Severity::Warning);
    // Node groups get EFA interfaces from the provider's launch template: not refused, but still
    // only on EFA types.
    let mut m = pool("ng", Capacity::ManagedNodeGroup, &["p5.48xlarge"]);
    m.efa = true;
    assert!(!codes(&strategy(vec![m.clone()], false)).contains(&Code::EKSGPU126));
    m.instance_types = vec!["g6.xlarge".into()];
    assert!(codes(&strategy(vec![m.clone()], false)).contains(&Code::EKSGPU126));
    // A type whose EFA count the catalog lacks: the template attaches one, with a warning.
    m.instance_types = vec!["p6e-gb200.36xlarge".into()];
    assert!(codes(&strategy(vec![m.clone()], false)).contains(&Code::EKSGPU182));
    m.instance_types = vec!["p5.48xlarge".into()];
    assert!(!codes(&strategy(vec![m], false)).contains(&Code::EKSGPU182));
}

#[test]
fn eksgpu119_128_129_capacity_reservations() {
    let term = |id: Option<&str>, tags: &[(&str, &str)]| crate::model::CapacityReservationTerm {
        id: id.map(Into::into),
        tags: tags.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(),
        ..Default::default()
    };
    let mut p = pool("cb", Capacity::Karpenter, &["p5.48xlarge"]);
    p.capacity_types = vec!["reserved".into()];
    assert_eq!(codes(&strategy(vec![p.clone()], false)), [Code::EKSGPU119]);
    // Selecting the Capacity Block makes a reserved-only pool launch.
    p.node_class.as_mut().unwrap().capacity_reservations = vec![term(Some("cr-0123456789abcdef0"), &[])];
    assert_eq!(codes(&strategy(vec![p.clone()], false)), Vec::<&str>::new());
    // Selected but `reserved` not allowed: a warning.
    p.capacity_types = vec!["on-demand".into()];
    assert_eq!(codes(&strategy(vec![p.clone()], false)), [Code::EKSGPU128]);
    // Terms the CRD's CEL rules refuse.
    p.capacity_types = vec!["reserved".into(), "on-demand".into()];
    p.node_class.as_mut().unwrap().capacity_reservations =
        vec![term(Some("cr-0123456789abcdef0"), &[("team", "ml")]), term(None, &[])];
    let found = check(&strategy(vec![p], false), &CTX);
    assert_eq!(
        found.iter().map(|v| v.code).collect::<Vec<_>>(),
        [Code::EKSGPU129, Code::EKSGPU129]
    );
    assert_eq!(found[1].path[4], Step::Index(1));
}

#[test]
fn eksgpu132_nvidia_ami_pools_without_any_device_plugin() {
    let all = |s: &NodeStrategy| {
        check_node_strategy(s, &CTX)
            .into_iter()
            .map(|v| v.code)
            .collect::<Vec<_>>()
    };
    let k = pool("k", Capacity::Karpenter, &["g6e.xlarge"]);
    // No gpu_operator: the AL2023 NVIDIA AMI's GPUs are never advertised.
    assert_eq!(all(&strategy(vec![k.clone()], false)), [Code::EKSGPU132]);
    let v = &check_node_strategy(&strategy(vec![k.clone()], false), &CTX)[0];
    assert_eq!(
        v.path,
        vec![Step::Attr("pools"), Step::Key("k".into()), Step::Attr("capacity")]
    );
    assert_eq!(v.severity, crate::rules::Severity::Warning);
    // With the operator, or a device manager of its own (Bottlerocket, HAMi, DRA), nothing.
    assert_eq!(all(&strategy(vec![k.clone()], true)), Vec::<&str>::new());
    let mut br = k.clone();
    br.node_class.as_mut().unwrap().ami_alias = Some("bottlerocket@latest".into());
    assert_eq!(all(&strategy(vec![br], false)), Vec::<&str>::new());
    let hami = with_label(k.clone(), "gpu", "on");
    assert!(!all(&strategy(vec![hami], false)).contains(&Code::EKSGPU132));
    // Auto Mode ships its own plugin.
    assert_eq!(
        all(&strategy(vec![pool("a", Capacity::AutoMode, &["g6e.xlarge"])], false)),
        Vec::<&str>::new()
    );
}

#[test]
fn eksgpu130_karpenter_dra_needs_enable_dra() {
    let mut p = pool("k", Capacity::Karpenter, &["p5.48xlarge"]);
    p.dra = true;
    let mut s = strategy(vec![p], true);
    s.kubernetes_version = Some("1.34".into());
    let found: Vec<_> = check_node_strategy(&s, &CTX).into_iter().map(|v| v.code).collect();
    assert_eq!(found, [Code::EKSGPU130]);
    // Before 1.15 Karpenter launches no node for a claim: EKSGPU165 (1.14) or EKSGPU004 say so instead.
    let old = Context {
        karpenter_version: (1, 14),
    };
    let found: Vec<_> = check_node_strategy(&s, &old).into_iter().map(|v| v.code).collect();
    assert_eq!(found, [Code::EKSGPU165]);
    let older = Context {
        karpenter_version: (1, 13),
    };
    let found: Vec<_> = check_node_strategy(&s, &older).into_iter().map(|v| v.code).collect();
    assert_eq!(found, [Code::EKSGPU004]);
    // A static pool is neither: its nodes exist before the claims.
    s.pools[0].replicas = Some(2);
    s.karpenter_gates.static_capacity = true;
    for v in [(1, 8), (1, 14), (1, 15)] {
        let ctx = Context { karpenter_version: v };
        let found: Vec<_> = check_node_strategy(&s, &ctx).into_iter().map(|v| v.code).collect();
        assert_eq!(found, Vec::<Code>::new(), "{v:?}");
    }
}

#[test]
fn auto_modes_built_in_object_names_are_reserved() {
    for (name, capacity, node_class) in [
        ("general-purpose", Capacity::AutoMode, false),
        ("system", Capacity::Karpenter, true),
        ("default", Capacity::AutoMode, true),
    ] {
        let mut p = pool(name, capacity, &["g6e.xlarge"]);
        p.node_class = node_class.then(|| NodeClass {
            role: Some("NodeRole".into()),
            ..NodeClass::default()
        });
        let v = check_node_strategy(&strategy(vec![p], false), &CTX);
        assert!(v.iter().any(|v| v.code == Code::EKSGPU140), "{name}: {v:?}");
    }
    // A Karpenter EC2NodeClass named `default` is no Auto Mode NodeClass; nor is a NodePool named `default`.
    for (capacity, node_class) in [(Capacity::Karpenter, true), (Capacity::AutoMode, false)] {
        let mut p = pool("default", capacity, &["g6e.xlarge"]);
        p.node_class = node_class.then(|| NodeClass {
            role: Some("NodeRole".into()),
            ..NodeClass::default()
        });
        let v = check_node_strategy(&strategy(vec![p], false), &CTX);
        assert!(!v.iter().any(|v| v.code == Code::EKSGPU140), "{v:?}");
    }
}

#[test]
fn eksgpu003_mig_config_names_mig_manager_does_not_define() {
    let with = |config: &str| {
        strategy(
            vec![with_label(
                pool("k", Capacity::Karpenter, &["p5en.48xlarge"]),
                MIG_CONFIG,
                config,
            )],
            false,
        )
    };
    // A lookup, not a shape: `garbage` is a fine label value and no config.
    let found = check(&with("garbage"), &CTX);
    assert_eq!(found.iter().map(|v| v.code).collect::<Vec<_>>(), [Code::EKSGPU003]);
    assert!(found[0].detail.contains("mig-manager"), "{}", found[0].detail);
    for ok in ["all-disabled", "all-balanced", "all-enabled"] {
        assert!(!codes(&with(ok)).contains(&Code::EKSGPU003), "{ok}");
    }
    // all-<name>: one EKSGPU003, naming the GPU's profiles.
    let found = check(&with("all-garbage"), &CTX);
    assert_eq!(found.iter().map(|v| v.code).collect::<Vec<_>>(), [Code::EKSGPU003]);
}

#[test]
fn eksgpu133_root_volumes_ec2_and_auto_mode_would_not_create() {
    let volume = |capacity, rv: crate::model::RootVolume| {
        let mut p = pool("v", capacity, &["g6e.xlarge"]);
        p.node_class = Some(NodeClass {
            role: Some("NodeRole".into()),
            root_volume: Some(rv),
            ..NodeClass::default()
        });
        strategy(vec![p], false)
    };
    let rv = |size: &str, t: Option<&str>, iops: Option<i64>, throughput: Option<i64>| crate::model::RootVolume {
        size: Some(size.into()),
        volume_type: t.map(str::to_owned),
        iops,
        throughput,
        encrypted: None,
    };
    let found = |s: &NodeStrategy| {
        check(s, &CTX)
            .into_iter()
            .filter(|v| v.code == Code::EKSGPU133)
            .map(|v| v.path.last().cloned())
            .collect::<Vec<_>>()
    };
    let k = Capacity::Karpenter;
    // Fires: a generic quantity the EC2NodeClass refuses, IOPS on gp2, gp3 below 3000, throughput off gp3.
    assert_eq!(
        found(&volume(k, rv("200000Mi", None, None, None))),
        [Some(Step::Attr("size"))]
    );
    assert_eq!(
        found(&volume(k, rv("1.5Ti", None, None, None))),
        [Some(Step::Attr("size"))]
    );
    assert_eq!(
        found(&volume(k, rv("200Gi", Some("gp2"), Some(3000), None))),
        [Some(Step::Attr("iops"))]
    );
    assert_eq!(
        found(&volume(k, rv("200Gi", Some("gp3"), Some(2000), None))),
        [Some(Step::Attr("iops"))]
    );
    assert_eq!(
        found(&volume(k, rv("200Gi", Some("io2"), Some(3000), Some(500)))),
        [Some(Step::Attr("throughput"))]
    );
    // Does not fire: what EC2 takes.
    assert!(found(&volume(k, rv("200Gi", Some("gp3"), Some(16000), Some(1000)))).is_empty());
    assert!(found(&volume(k, rv("500Gi", Some("io2"), Some(64000), None))).is_empty());
    // Without a size the rendered 20Gi counts: 20 GiB hold at most 10000 gp3 IOPS.
    let mut no_size = rv("x", None, Some(10_001), None);
    no_size.size = None;
    assert_eq!(found(&volume(k, no_size)), [Some(Step::Attr("iops"))]);
    // Auto Mode: ephemeralStorage ranges, and no volume type or encrypted flag (EKSGPU124).
    let a = Capacity::AutoMode;
    assert!(found(&volume(a, rv("160Gi", None, Some(3000), Some(125)))).is_empty());
    assert_eq!(
        found(&volume(a, rv("160Gi", None, Some(20000), None))),
        [Some(Step::Attr("iops"))]
    );
    assert_eq!(
        found(&volume(a, rv("1.5Ti", None, None, None))),
        [Some(Step::Attr("size"))]
    );
    let mut typed = rv("160Gi", Some("gp3"), None, None);
    typed.encrypted = Some(true);
    let s = volume(a, typed);
    let eksgpu124: Vec<_> = check(&s, &CTX)
        .into_iter()
        .filter(|v| v.code == Code::EKSGPU124)
        .map(|v| v.path.last().cloned())
        .collect();
    assert_eq!(
        eksgpu124,
        [Some(Step::Attr("volume_type")), Some(Step::Attr("encrypted"))]
    );
}

#[test]
fn eksgpu134_at_most_100_nodepool_labels_with_the_providers() {
    let mut p = pool("k", Capacity::Karpenter, &["p5.48xlarge"]);
    p.labels = (0..100).map(|i| (format!("l{i}"), "v".into())).collect();
    assert!(!codes(&strategy(vec![p.clone()], false)).contains(&Code::EKSGPU134));
    // The device-plugin label the provider adds to a DRA pool pushes it over.
    let mut dra = p.clone();
    dra.dra = true;
    let found = codes(&strategy(vec![dra], false));
    assert!(found.contains(&Code::EKSGPU134), "{found:?}");
    p.labels.insert("l100".into(), "v".into());
    assert!(codes(&strategy(vec![p], false)).contains(&Code::EKSGPU134));
}

/// Auto Mode pools' own instance labels (EKSGPU313, the match and the fixes).
mod auto_mode_labels;
/// The CRDs' counts and lengths.
mod crd_limits;
/// The standalone device plugin's rules.
mod device_plugin;
/// What one DRA driver release serves.
mod dra_release;
/// P6e-GB200's purchase and MIG truths.
mod gb200;
/// The Neuron and Auto Mode table rules.
mod neuron;
/// The multi-node NVLink rules.
mod nvlink;
/// The rules on requirements and the upstream node-class inputs.
mod upstream;
/// The rules on the inputs the upstream GPU definitions need (names, user data, volumes, network
/// cards, repair, reservations, node classes by name, NodeOverlays).
mod upstream_inputs;
