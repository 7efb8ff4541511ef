//! Sharing pools: outputs per strategy and one test per rule that fires and does not.

use crate::rules::Code;
use std::collections::BTreeMap;

use super::*;
use crate::karpenter_gates::FeatureGates;
use crate::rules::Step;

fn pool(strategy: Strategy) -> SharingPool {
    SharingPool {
        cluster_name: "gpu".into(),
        name: "small-models".into(),
        instance_type: Some("g5.2xlarge".into()),
        gpu_model: None,
        capacity: None,
        strategy,
        config_namespace: DEFAULT_CONFIG_NAMESPACE.into(),
        config_map: DEFAULT_CONFIG_MAP.into(),
        time_slicing: None,
        mps: None,
        mig: None,
        dra: None,
        hami: None,
        workloads: vec![],
    }
}

fn slicing(replicas: i64) -> Option<Slicing> {
    Some(Slicing {
        replicas,
        rename_by_default: false,
        fail_requests_greater_than_one: false,
    })
}

/// MPS as upstream configures it (failRequestsGreaterThanOne forced true).
fn mps(replicas: i64) -> Option<Slicing> {
    Some(Slicing {
        replicas,
        rename_by_default: false,
        fail_requests_greater_than_one: Slicing::default_fail_requests_greater_than_one(Strategy::Mps),
    })
}

fn codes(p: &SharingPool) -> Vec<Code> {
    check_sharing_pool(p, FeatureGates::default())
        .into_iter()
        .map(|v| v.code)
        .collect()
}

fn vllm(share: f64) -> Workload {
    // vLLM's --gpu-memory-utilization of an A10G (22888 MiB), as measured on a g5.2xlarge.
    #[allow(clippy::cast_possible_truncation)]
    Workload {
        name: format!("vllm-{share}"),
        memory_mib: (22888.0 * share) as i64,
        namespace: None,
    }
}

#[test]
fn time_slicing_on_g5_matches_the_seed() {
    let mut p = pool(Strategy::TimeSlicing);
    p.time_slicing = slicing(2);
    assert_eq!(
        node_labels(&p),
        BTreeMap::from([
            ("nvidia.com/device-plugin.config".into(), "small-models".into()),
            // Handed over for the node strategy's NodeOverlay (sharing::handover).
            ("eksgpu.terraform.io/gpu-replicas".into(), "2".into()),
        ])
    );
    assert_eq!(
        resource_requests(&p),
        BTreeMap::from([("nvidia.com/gpu".into(), "1".into())])
    );
    let cfg = device_plugin_config(&p).unwrap();
    assert_eq!(cfg["sharing"]["timeSlicing"]["resources"][0]["replicas"], 2);
    let m = manifests(&p);
    assert_eq!(
        m.iter().map(|m| m.name.as_str()).collect::<Vec<_>>(),
        [RECORD_CONFIG_MAP, DEFAULT_CONFIG_MAP]
    );
    assert!(
        m[1].body["data"]["small-models"]
            .as_str()
            .unwrap()
            .contains("replicas: 2")
    );
    assert_eq!(codes(&p), Vec::<&str>::new());
}

#[test]
fn eksgpu012_two_vllm_at_090_of_an_a10g_fail_and_at_040_pass() {
    let mut p = pool(Strategy::TimeSlicing);
    p.time_slicing = slicing(2);
    p.workloads = vec![vllm(0.90), vllm(0.90)];
    assert_eq!(codes(&p), [Code::EKSGPU012]);
    p.workloads = vec![vllm(0.40), vllm(0.40)];
    assert_eq!(codes(&p), Vec::<&str>::new());
}

#[test]
fn hami_matches_the_seed() {
    let mut p = pool(Strategy::Hami);
    p.hami = Some(Hami {
        split_count: 10,
        memory_mib: Some(6144),
        cores_percent: Some(50),
        memory_scaling: 1.0,
        core_policy: "default".into(),
    });
    assert_eq!(
        resource_requests(&p),
        BTreeMap::from([
            ("nvidia.com/gpu".into(), "1".into()),
            ("nvidia.com/gpumem".into(), "6144".into()),
            ("nvidia.com/gpucores".into(), "50".into())
        ])
    );
    assert_eq!(node_labels(&p)["gpu"], "on");
    assert_eq!(hami_values(&p).unwrap()["devicePlugin"]["deviceSplitCount"], 10);
    // A pool tainted with its own key (workload=training) still gets HAMi's device plugin.
    assert_eq!(
        hami_values(&p).unwrap()["devicePlugin"]["tolerations"],
        serde_json::json!([{"operator": "Exists"}])
    );
    assert_eq!(codes(&p), Vec::<&str>::new());
    p.workloads = vec![Workload {
        name: "big".into(),
        memory_mib: 7168,
        namespace: None,
    }];
    assert_eq!(codes(&p), [Code::EKSGPU012]);
}

#[test]
fn dra_time_slicing_claim() {
    let mut p = pool(Strategy::Dra);
    p.dra = Some(Dra {
        namespace: "inference".into(),
        claim_name: "shared-gpu".into(),
        device_class: "gpu.nvidia.com".into(),
        count: 1,
        sharing: "time_slicing".into(),
        create_namespace: true,
    });
    let claim = manifests(&p)
        .into_iter()
        .find(|m| m.kind.kind == "ResourceClaim")
        .unwrap();
    assert_eq!(
        claim.body["spec"]["devices"]["config"][0]["opaque"]["parameters"]["sharing"]["strategy"],
        "TimeSlicing"
    );
    assert_eq!(claim.namespace.as_deref(), Some("inference"));
    assert!(resource_requests(&p).is_empty());
    let kinds: Vec<_> = manifests(&p).iter().map(|m| m.kind.kind).collect();
    assert_eq!(
        kinds,
        ["ConfigMap", "Namespace", "ResourceClaim"],
        "the namespace comes before the claim"
    );
    p.workloads = vec![Workload {
        name: "a".into(),
        memory_mib: 1000,
        namespace: Some("other".into()),
    }];
    // Time-slicing through the DRA driver needs its TimeSlicingSettings gate (EKSGPU131, a warning).
    assert_eq!(codes(&p), [Code::EKSGPU131, Code::EKSGPU110]);
    p.workloads[0].namespace = Some("inference".into());
    assert_eq!(codes(&p), [Code::EKSGPU131]);
}

#[test]
fn eksgpu131_dra_sharing_names_the_driver_feature_gate() {
    let mut p = pool(Strategy::Dra);
    let dra = |sharing: &str| Dra {
        namespace: "inference".into(),
        claim_name: "shared-gpu".into(),
        device_class: "gpu.nvidia.com".into(),
        count: 1,
        sharing: sharing.into(),
        create_namespace: false,
    };
    p.dra = Some(dra("mps"));
    let v = check_sharing_pool(&p, FeatureGates::default());
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].code, Code::EKSGPU131);
    assert_eq!(v[0].severity, crate::rules::Severity::Warning);
    assert!(v[0].detail.contains("MPSSupport"), "{}", v[0].detail);
    p.dra = Some(dra("exclusive"));
    assert_eq!(codes(&p), Vec::<&str>::new());
}

#[test]
fn mig_layouts_against_the_gpu() {
    let mut p = pool(Strategy::Mig);
    p.instance_type = Some("p5en.48xlarge".into());
    p.mig = Some(Mig {
        strategy: "mixed".into(),
        profiles: BTreeMap::from([("1g.18gb".into(), 7)]),
        config: None,
    });
    assert_eq!(p.mig_config_name().as_deref(), Some("all-1g.18gb"));
    assert_eq!(
        resource_requests(&p),
        BTreeMap::from([("nvidia.com/mig-1g.18gb".into(), "1".into())])
    );
    assert_eq!(codes(&p), Vec::<&str>::new());
    // EKSGPU003: a profile of another GPU, and a layout over the slices.
    p.mig.as_mut().unwrap().profiles = BTreeMap::from([("1g.10gb".into(), 7)]);
    assert!(codes(&p).contains(&Code::EKSGPU003));
    p.mig.as_mut().unwrap().profiles = BTreeMap::from([("3g.71gb".into(), 2), ("2g.35gb".into(), 1)]);
    let c = codes(&p);
    assert!(c.contains(&Code::EKSGPU003) && c.contains(&Code::EKSGPU109), "{c:?}");
    // The balanced layout has a name.
    p.mig.as_mut().unwrap().profiles =
        BTreeMap::from([("1g.18gb".into(), 2), ("2g.35gb".into(), 1), ("3g.71gb".into(), 1)]);
    assert_eq!(p.mig_config_name().as_deref(), Some("all-balanced"));
    assert_eq!(codes(&p), Vec::<&str>::new());
    // EKSGPU015: single with a mixed layout.
    p.mig.as_mut().unwrap().strategy = "single".into();
    assert_eq!(codes(&p), [Code::EKSGPU015]);
    // EKSGPU109: one profile, not filling the GPU.
    p.mig = Some(Mig {
        strategy: "single".into(),
        profiles: BTreeMap::from([("1g.18gb".into(), 3)]),
        config: None,
    });
    assert_eq!(codes(&p), [Code::EKSGPU109]);
}

#[test]
fn eksgpu003_mig_config_names_are_looked_up() {
    let mut p = pool(Strategy::Mig);
    p.instance_type = Some("p5en.48xlarge".into());
    p.mig = Some(Mig {
        strategy: "single".into(),
        profiles: BTreeMap::new(),
        config: Some("garbage".into()),
    });
    let v = check_sharing_pool(&p, FeatureGates::default());
    assert!(
        v.iter()
            .any(|v| v.code == Code::EKSGPU003 && v.path == [Step::Attr("mig"), Step::Attr("config")]),
        "{v:?}"
    );
    p.mig.as_mut().unwrap().config = Some("all-7g.141gb".into());
    assert!(!codes(&p).contains(&Code::EKSGPU003));
}

#[test]
fn media_extension_profiles_use_dotted_resource_names() {
    // k8s-device-plugin v0.20.0 internal/rm/rm.go advertises `mig-1g.18gb.me`; '+' is illegal.
    let mut p = pool(Strategy::Mig);
    p.instance_type = Some("p5en.48xlarge".into());
    p.mig = Some(Mig {
        strategy: "mixed".into(),
        profiles: BTreeMap::from([("1g.18gb+me".into(), 1)]),
        config: None,
    });
    assert_eq!(p.mig_config_name().as_deref(), Some("all-1g.18gb.me"));
    assert_eq!(
        resource_requests(&p),
        BTreeMap::from([("nvidia.com/mig-1g.18gb.me".into(), "1".into())])
    );
    p.mig.as_mut().unwrap().profiles.clear();
    p.mig.as_mut().unwrap().config = Some("all-1g.18gb.me".into());
    assert_eq!(
        resource_requests(&p),
        BTreeMap::from([("nvidia.com/mig-1g.18gb.me".into(), "1".into())])
    );
    assert_eq!(codes(&p), Vec::<&str>::new());
}

#[test]
fn eksgpu002_mig_on_an_a10g() {
    let mut p = pool(Strategy::Mig);
    p.mig = Some(Mig {
        strategy: "single".into(),
        profiles: BTreeMap::new(),
        config: Some("all-1g.10gb".into()),
    });
    assert_eq!(codes(&p), [Code::EKSGPU002]);
}

#[test]
fn capacity_kind_rules() {
    let mut p = pool(Strategy::TimeSlicing);
    p.time_slicing = slicing(2);
    p.capacity = Some(Capacity::Karpenter);
    assert_eq!(codes(&p), [Code::EKSGPU011]);
    // With the `nodeOverlay` gate the strategy pool renders the NodeOverlay (and warns if it cannot).
    let overlays = FeatureGates {
        node_overlay: true,
        ..Default::default()
    };
    let found = check_sharing_pool(&p, overlays);
    assert!(!found.iter().any(|v| v.code == Code::EKSGPU011), "{found:?}");
    let mut hami = pool(Strategy::Hami);
    hami.capacity = Some(Capacity::Karpenter);
    assert!(codes(&hami).contains(&Code::EKSGPU122));
    let found = check_sharing_pool(&hami, overlays);
    assert!(!found.iter().any(|v| v.code == Code::EKSGPU122), "{found:?}");
    p.capacity = Some(Capacity::AutoMode);
    assert_eq!(codes(&p), [Code::EKSGPU102]);
    p.capacity = Some(Capacity::ManagedNodeGroup);
    assert_eq!(codes(&p), Vec::<&str>::new());
    let mut m = pool(Strategy::Mig);
    m.instance_type = Some("p5.48xlarge".into());
    m.capacity = Some(Capacity::AutoMode);
    m.mig = Some(Mig {
        strategy: "single".into(),
        profiles: BTreeMap::new(),
        config: Some("all-1g.10gb".into()),
    });
    assert_eq!(codes(&m), [Code::EKSGPU001]);
    let mut h = pool(Strategy::Hami);
    h.capacity = Some(Capacity::AutoMode);
    h.hami = Some(Hami {
        split_count: 10,
        memory_mib: None,
        cores_percent: None,
        memory_scaling: 1.0,
        core_policy: "default".into(),
    });
    assert_eq!(codes(&h), [Code::EKSGPU017]);
}

#[test]
fn settings_blocks_and_ranges() {
    let mut p = pool(Strategy::TimeSlicing);
    assert_eq!(codes(&p), [Code::EKSGPU108]);
    p.time_slicing = slicing(1);
    p.mps = mps(2);
    let v = check_sharing_pool(&p, FeatureGates::default());
    assert_eq!(
        v.iter().map(|v| v.code).collect::<Vec<_>>(),
        [Code::EKSGPU108, Code::EKSGPU108]
    );
    assert_eq!(v[1].path, vec![Step::Attr("time_slicing"), Step::Attr("replicas")]);
    let mut q = pool(Strategy::Exclusive);
    q.instance_type = None;
    assert_eq!(codes(&q), [Code::EKSGPU107]);
    q.instance_type = Some("m5.large".into());
    assert_eq!(codes(&q), [Code::EKSGPU016]);
}

#[test]
fn record_and_live_objects_read_back() {
    let mut p = pool(Strategy::TimeSlicing);
    p.time_slicing = slicing(2);
    p.workloads = vec![vllm(0.40)];
    let record = super::record(&p).to_string();
    let back = from_record("gpu", "small-models", DEFAULT_CONFIG_NAMESPACE, &record).unwrap();
    assert_eq!(back, p);
    let live = crate::yaml::to_yaml(&device_plugin_config(&p).unwrap());
    assert_eq!(overlay_live(back.clone(), Some(Some(&live)), None), p);
    let edited = live.replace("replicas: 2", "replicas: 4");
    assert_eq!(
        overlay_live(back.clone(), Some(Some(&edited)), None)
            .time_slicing
            .unwrap()
            .replicas,
        4
    );
    assert!(overlay_live(back, Some(None), None).time_slicing.is_none());
}

#[test]
fn mps_refuses_requests_for_several_shares_as_upstream_does() {
    // k8s-device-plugin v0.15.0+ api/config/v1/config.go: true for MPS, false for time-slicing.
    assert!(Slicing::default_fail_requests_greater_than_one(Strategy::Mps));
    assert!(!Slicing::default_fail_requests_greater_than_one(Strategy::TimeSlicing));
    let mut p = pool(Strategy::Mps);
    p.mps = mps(2);
    assert_eq!(codes(&p), Vec::<&str>::new());
    assert_eq!(
        device_plugin_config(&p).unwrap()["sharing"]["mps"]["failRequestsGreaterThanOne"],
        true
    );
    // A record written without the field reads back as upstream's default.
    let mut record = super::record(&p);
    record["mps"]
        .as_object_mut()
        .unwrap()
        .remove("fail_requests_greater_than_one");
    let back = from_record("gpu", "small-models", DEFAULT_CONFIG_NAMESPACE, &record.to_string()).unwrap();
    assert_eq!(back.mps, p.mps);
    p.mps = slicing(2);
    let v = check_sharing_pool(&p, FeatureGates::default());
    assert_eq!(v.iter().map(|v| v.code).collect::<Vec<_>>(), [Code::EKSGPU108]);
    assert_eq!(
        v[0].path,
        vec![Step::Attr("mps"), Step::Attr("fail_requests_greater_than_one")]
    );
}

#[test]
fn mig_share_memory_is_the_drivers_figure() {
    // A100-40GB 1g.5gb: the driver reports 4864 MiB (NVML memorySizeMB); reading "5gb" as
    // 5×10^9 bytes (4768 MiB) rejected a 4800 MiB workload that fits.
    let mut p = pool(Strategy::Mig);
    p.instance_type = Some("p4d.24xlarge".into());
    p.mig = Some(Mig {
        strategy: "single".into(),
        profiles: BTreeMap::new(),
        config: Some("all-1g.5gb".into()),
    });
    p.workloads = vec![Workload {
        name: "small".into(),
        memory_mib: 4800,
        namespace: None,
    }];
    assert_eq!(codes(&p), Vec::<&str>::new());
    p.workloads[0].memory_mib = 4865;
    assert_eq!(codes(&p), [Code::EKSGPU012]);
}

#[test]
fn eksgpu122_mixed_mig_and_hami_on_karpenter() {
    let mut p = pool(Strategy::Mig);
    p.instance_type = Some("p5en.48xlarge".into());
    p.capacity = Some(crate::model::Capacity::Karpenter);
    p.mig = Some(Mig {
        strategy: "mixed".into(),
        profiles: BTreeMap::from([("1g.18gb".into(), 7)]),
        config: None,
    });
    assert_eq!(codes(&p), [Code::EKSGPU122]);
    p.capacity = Some(crate::model::Capacity::ManagedNodeGroup);
    assert_eq!(codes(&p), Vec::<&str>::new());
}

/// What a time-slicing or MPS pool hands over rebuilds its device-plugin config exactly: the
/// standalone device plugin's values are rendered from the labels, the GPU Operator's from the
/// ConfigMap the pool writes, and the two must agree.
#[test]
fn the_handed_over_labels_rebuild_the_device_plugin_config() {
    let mut cases = Vec::new();
    for (strategy, rename, fail) in [
        (Strategy::TimeSlicing, false, false),
        (Strategy::TimeSlicing, true, true),
        (Strategy::Mps, false, true),
        (Strategy::Mps, true, true),
    ] {
        let mut p = pool(strategy);
        let s = Slicing {
            replicas: 4,
            rename_by_default: rename,
            fail_requests_greater_than_one: fail,
        };
        if strategy == Strategy::Mps {
            p.mps = Some(s);
        } else {
            p.time_slicing = Some(s);
        }
        cases.push(p);
    }
    for p in &cases {
        let labels = node_labels(p);
        assert_eq!(
            crate::sharing::handover::device_plugin_config_from_labels(&labels),
            device_plugin_config(p),
            "{:?}",
            p.strategy
        );
        assert_eq!(crate::sharing::handover::uses_mps(&labels), p.strategy == Strategy::Mps);
    }
    // A default time-slicing pool hands over what it did before (its nodes' labels unchanged).
    assert!(
        !node_labels(&cases[0])
            .keys()
            .any(|k| k.contains("sharing") || k.contains("fail"))
    );
    // A label merged by hand, without the replicas, rebuilds nothing.
    let by_hand = BTreeMap::from([("nvidia.com/device-plugin.config".to_owned(), "x".to_owned())]);
    assert_eq!(
        crate::sharing::handover::device_plugin_config_from_labels(&by_hand),
        None
    );
}

#[test]
fn shared_counts_beyond_int64_are_refused_for_every_source_of_replicas() {
    // p5.48xlarge: 8 GPUs, so 2^63-1 replicas wrap to -8 and 2^62 to 0 without checked arithmetic.
    for n in [i64::MAX, 1 << 62] {
        let ts = SharingPool {
            instance_type: Some("p5.48xlarge".into()),
            time_slicing: slicing(n),
            ..pool(Strategy::TimeSlicing)
        };
        let v = check_sharing_pool(&ts, FeatureGates::default());
        let e = v.iter().find(|v| v.code == Code::EKSGPU137).expect("EKSGPU137");
        assert_eq!(e.path, vec![Step::Attr("time_slicing"), Step::Attr("replicas")]);
        let m = SharingPool {
            instance_type: Some("p5.48xlarge".into()),
            mps: mps(n),
            ..pool(Strategy::Mps)
        };
        assert!(codes(&m).contains(&Code::EKSGPU137), "mps {n}");
        let h = SharingPool {
            instance_type: Some("p5.48xlarge".into()),
            hami: Some(Hami {
                split_count: n,
                memory_mib: None,
                cores_percent: None,
                memory_scaling: 1.0,
                core_policy: "default".into(),
            }),
            ..pool(Strategy::Hami)
        };
        let v = check_sharing_pool(&h, FeatureGates::default());
        let e = v.iter().find(|v| v.code == Code::EKSGPU137).expect("hami EKSGPU137");
        assert_eq!(e.path, vec![Step::Attr("hami"), Step::Attr("split_count")]);
    }
    // One GPU times i64::MAX still fits; an ordinary count is fine anywhere.
    let one = SharingPool {
        time_slicing: slicing(i64::MAX),
        ..pool(Strategy::TimeSlicing)
    };
    assert!(!codes(&one).contains(&Code::EKSGPU137));
    let ok = SharingPool {
        instance_type: Some("p5.48xlarge".into()),
        time_slicing: slicing(4),
        ..pool(Strategy::TimeSlicing)
    };
    assert!(!codes(&ok).contains(&Code::EKSGPU137));
}

#[test]
fn sharing_a_fractional_gpu_is_refused() {
    let p = SharingPool {
        instance_type: Some("g6f.xlarge".into()),
        time_slicing: slicing(4),
        ..pool(Strategy::TimeSlicing)
    };
    let v = check_sharing_pool(&p, FeatureGates::default());
    let e = v.iter().find(|v| v.code == Code::EKSGPU138).expect("EKSGPU138");
    assert!(e.detail.contains("g6f.xlarge"), "{}", e.detail);
    let whole = SharingPool {
        instance_type: Some("g6.xlarge".into()),
        time_slicing: slicing(4),
        ..pool(Strategy::TimeSlicing)
    };
    assert!(!codes(&whole).contains(&Code::EKSGPU138));
}
