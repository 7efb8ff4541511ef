//! Renderers against golden YAML (regenerate with EKSGPU_UPDATE_SNAPSHOTS=1).

use std::collections::BTreeMap;

use super::*;
use crate::fixture;
use crate::model::{Disruption, GpuOperator, Kubelet, NodeClass, RootVolume, Taint};
use crate::yaml::{to_yaml, to_yaml_stream};
use serde_json::json;

fn golden(name: &str, actual: &str) {
    // The running test's package directory (see acceptance-tests' repo_root for why not env!).
    let path = std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(
            || std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")),
            std::path::PathBuf::from,
        )
        .join("tests/golden")
        .join(name);
    if std::env::var_os("EKSGPU_UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        actual, expected,
        "golden {name} differs; regenerate with scripts/generate if intended"
    );
}

/// A typical inference NodePool, written for Karpenter v1.
fn seed_strategy() -> NodeStrategy {
    let inference = Pool {
        capacity_types: vec!["on-demand".into()],
        gpu_limit: Some(32),
        labels: BTreeMap::from([
            ("node-type".into(), "gpu-inference".into()),
            ("gpu-operator".into(), "enabled".into()),
        ]),
        disruption: Some(Disruption {
            consolidation_policy: Some("WhenEmpty".into()),
            consolidate_after: Some("5m".into()),
            budgets: Vec::new(),
        }),
        node_class: Some(NodeClass {
            ami_alias: Some("al2023@latest".into()),
            role: Some("KarpenterNodeRole-gpu".into()),
            root_volume: Some(RootVolume {
                size: Some("200Gi".into()),
                volume_type: Some("gp3".into()),
                iops: Some(16000),
                throughput: Some(1000),
                encrypted: Some(true),
            }),
            kubelet: Some(Kubelet {
                max_pods: Some(110),
                eviction_hard: BTreeMap::new(),
            }),
            ..NodeClass::default()
        }),
        ..fixture::pool(
            "gpu-inference",
            Capacity::Karpenter,
            &["p5.48xlarge", "g6e.12xlarge", "g5.12xlarge"],
        )
    };
    let auto = Pool {
        capacity_types: vec!["spot".into(), "on-demand".into()],
        zones: vec!["us-east-2a".into()],
        taints: vec![Taint {
            key: "workload".into(),
            value: None,
            effect: "NoExecute".into(),
        }],
        ..fixture::pool("auto-gpu", Capacity::AutoMode, &["p5.48xlarge"])
    };
    NodeStrategy {
        cluster_name: "gpu".into(),
        name: "genai".into(),
        kubernetes_version: None,
        device_plugin: None,
        gpu_operator: Some(GpuOperator {
            mig_strategy: "single".into(),
            dcgm_exporter: true,
            service_monitor: true,
        }),
        pools: vec![inference, auto],
        default_tags: BTreeMap::new(),
        karpenter_gates: Default::default(),
    }
}

#[test]
fn karpenter_pool_renders_v1_objects() {
    let s = seed_strategy();
    let m = pool_manifests(&s, &s.pools[0]);
    assert_eq!(
        m.iter().map(|m| m.kind.kind).collect::<Vec<_>>(),
        ["EC2NodeClass", "NodePool"]
    );
    // Karpenter v1: kubelet lives on the EC2NodeClass, never the NodePool.
    assert!(m[0].body["spec"]["kubelet"]["maxPods"] == 110);
    assert!(m[1].body["spec"]["template"]["spec"].get("kubelet").is_none());
    golden("karpenter-inference.yaml", &to_yaml_stream(m.iter().map(|m| &m.body)));
}

#[test]
fn auto_mode_pool_turns_the_operator_device_plugin_off() {
    let s = seed_strategy();
    let m = pool_manifests(&s, &s.pools[1]);
    assert_eq!(m.len(), 1, "the built-in NodeClass is referenced, not created");
    let spec = &m[0].body["spec"]["template"];
    assert_eq!(spec["metadata"]["labels"][DEPLOY_DEVICE_PLUGIN], "false");
    assert_eq!(spec["spec"]["nodeClassRef"]["group"], "eks.amazonaws.com");
    assert_eq!(spec["spec"]["nodeClassRef"]["name"], "default");
    golden("auto-mode.yaml", &to_yaml_stream(m.iter().map(|m| &m.body)));
}

#[test]
fn computed_pool_values() {
    let s = seed_strategy();
    assert_eq!(
        node_selector(&s, &s.pools[0]),
        BTreeMap::from([("karpenter.sh/nodepool".into(), "gpu-inference".into())])
    );
    let tol = tolerations(&s.pools[1]);
    assert_eq!(tol[0]["key"], "nvidia.com/gpu");
    assert_eq!(tol[0]["operator"], "Equal");
    assert_eq!(tol[1]["operator"], "Exists");
    assert_eq!(gpu_resource_name(&s, &s.pools[0]).as_deref(), Some("nvidia.com/gpu"));
    let mut mixed = s.clone();
    mixed.gpu_operator.as_mut().unwrap().mig_strategy = "mixed".into();
    mixed.pools[0].labels.insert(MIG_CONFIG.into(), "all-1g.10gb".into());
    assert_eq!(
        gpu_resource_name(&mixed, &mixed.pools[0]).as_deref(),
        Some("nvidia.com/mig-1g.10gb")
    );
    // `+me` profiles: the device plugin advertises `.me`; '+' is illegal in a resource name.
    mixed.pools[0].labels.insert(MIG_CONFIG.into(), "all-1g.10gb.me".into());
    assert_eq!(
        gpu_resource_name(&mixed, &mixed.pools[0]).as_deref(),
        Some("nvidia.com/mig-1g.10gb.me")
    );
}

#[test]
fn gpu_operator_values_fit_the_mix() {
    let mut s = seed_strategy();
    let v = gpu_operator_values(&s).unwrap();
    assert_eq!(v["driver"]["enabled"], false);
    assert_eq!(v["migManager"]["enabled"], false);
    assert_eq!(v["dcgmExporter"]["serviceMonitor"]["enabled"], true);
    golden("gpu-operator-values.yaml", &to_yaml(&v));
    s.pools[0].labels.insert(MIG_CONFIG.into(), "all-1g.10gb".into());
    assert_eq!(gpu_operator_values(&s).unwrap()["migManager"]["enabled"], true);
    s.gpu_operator = None;
    assert!(gpu_operator_values(&s).is_none());
}

#[test]
fn device_plugin_sharing_names_the_config_map() {
    // gpu-operator v26.7.0 controllers/object_controls.go drops the config-manager without it.
    let mut s = seed_strategy();
    assert!(gpu_operator_values(&s).unwrap()["devicePlugin"].get("config").is_none());
    s.pools[0].labels.insert(DEVICE_PLUGIN_CONFIG.into(), "a10g-ts".into());
    let v = gpu_operator_values(&s).unwrap();
    assert_eq!(v["devicePlugin"]["config"]["name"], "device-plugin-config");
    assert_eq!(v["devicePlugin"]["config"]["default"], "");
    let v = gpu_operator_values_with_config(&s, Some("team-sharing")).unwrap();
    assert_eq!(v["devicePlugin"]["config"]["name"], "team-sharing");
}

#[test]
fn nfd_worker_and_operands_tolerate_every_pool_taint() {
    let mut s = seed_strategy();
    s.pools[0].gpu_taint = false;
    s.pools[0].taints = vec![Taint {
        key: "workload".into(),
        value: Some("training".into()),
        effect: "NoSchedule".into(),
    }];
    let v = gpu_operator_values(&s).unwrap();
    let has = |list: &serde_json::Value, key: &str, effect: &str| {
        list.as_array()
            .unwrap()
            .iter()
            .any(|t| t["key"] == key && t["effect"] == effect)
    };
    let nfd = &v["node-feature-discovery"]["worker"]["tolerations"];
    let ds = &v["daemonsets"]["tolerations"];
    for list in [nfd, ds] {
        assert!(has(list, "workload", "NoSchedule"), "{list}");
        assert!(has(list, "workload", "NoExecute"), "{list}");
        assert!(has(list, "nvidia.com/gpu", "NoSchedule"), "{list}");
    }
    // The chart's own NFD default stays.
    assert!(has(nfd, "node-role.kubernetes.io/control-plane", "NoSchedule"));
}

#[test]
fn dra_pools_switch_the_device_plugin_off_with_or_without_the_operator() {
    let mut s = seed_strategy();
    s.pools[0].dra = true;
    assert_eq!(effective_labels(&s, &s.pools[0])[DEPLOY_DEVICE_PLUGIN], "false");
    s.gpu_operator = None;
    assert_eq!(effective_labels(&s, &s.pools[0])[DEPLOY_DEVICE_PLUGIN], "false");
    s.pools[0].dra = false;
    assert!(!effective_labels(&s, &s.pools[0]).contains_key(DEPLOY_DEVICE_PLUGIN));
}

#[test]
fn bottlerocket_pools_follow_its_volume_layout_and_keep_the_operator_plugin_off() {
    let mut s = seed_strategy();
    let m = pool_manifests(&s, &s.pools[0]);
    assert_eq!(m[0].body["spec"]["blockDeviceMappings"][0]["deviceName"], "/dev/xvda");
    if let Some(nc) = &mut s.pools[0].node_class {
        nc.ami_alias = Some("bottlerocket@v1.54.0".into());
    }
    let m = pool_manifests(&s, &s.pools[0]);
    let bdm = &m[0].body["spec"]["blockDeviceMappings"];
    // OS volume /dev/xvda keeps its 4Gi; the user's 200Gi is the data volume /dev/xvdb.
    assert_eq!(bdm[0]["deviceName"], "/dev/xvda");
    assert_eq!(bdm[0]["ebs"]["volumeSize"], "4Gi");
    assert!(bdm[0].get("rootVolume").is_none());
    assert_eq!(bdm[1]["deviceName"], "/dev/xvdb");
    assert_eq!(bdm[1]["rootVolume"], true);
    assert_eq!(bdm[1]["ebs"]["volumeSize"], "200Gi");
    // Bottlerocket ships its own device plugin.
    assert_eq!(effective_labels(&s, &s.pools[0])[DEPLOY_DEVICE_PLUGIN], "false");
}

#[test]
fn bottlerocket_node_groups_keep_the_operator_plugin_off() {
    let mut s = seed_strategy();
    s.pools[0].capacity = Capacity::ManagedNodeGroup;
    s.pools[0].node_class = None;
    s.pools[0].managed_node_group = Some(crate::model::ManagedNodeGroup {
        ami_type: Some("BOTTLEROCKET_x86_64_NVIDIA".into()),
        scaling: crate::model::Scaling {
            min: 0,
            max: 1,
            desired: 0,
        },
        disk_size: None,
        ..fixture::managed_node_group()
    });
    assert!(s.pools[0].bottlerocket());
    assert_eq!(effective_labels(&s, &s.pools[0])[DEPLOY_DEVICE_PLUGIN], "false");
    s.pools[0].managed_node_group.as_mut().unwrap().ami_type = Some("AL2023_x86_64_NVIDIA".into());
    assert!(!effective_labels(&s, &s.pools[0]).contains_key(DEPLOY_DEVICE_PLUGIN));
}

#[test]
fn node_pool_limits_weight_expiry_and_budgets_render_in_v1_fields() {
    let mut s = seed_strategy();
    let p = &mut s.pools[0];
    p.cpu_limit = Some("1000".into());
    p.memory_limit = Some("4000Gi".into());
    p.weight = Some(50);
    p.expire_after = Some("Never".into());
    p.disruption.as_mut().unwrap().budgets = vec![crate::model::Budget {
        nodes: "0".into(),
        schedule: Some("0 9 * * 1-5".into()),
        duration: Some("8h".into()),
        reasons: vec!["Drifted".into()],
    }];
    let pool = s.pools[0].clone();
    let np = pool_manifests(&s, &pool).pop().unwrap().body;
    assert_eq!(
        np["spec"]["limits"],
        json!({"nvidia.com/gpu": 32, "cpu": "1000", "memory": "4000Gi"})
    );
    assert_eq!(np["spec"]["weight"], 50);
    assert_eq!(np["spec"]["template"]["spec"]["expireAfter"], "Never");
    assert_eq!(
        np["spec"]["disruption"]["budgets"],
        json!([{"nodes": "0", "schedule": "0 9 * * 1-5", "duration": "8h", "reasons": ["Drifted"]}])
    );
    // Unset, none of them is rendered: Karpenter's defaults (720h, one 10% budget) stay the server's.
    let plain = seed_strategy();
    let np = pool_manifests(&plain, &plain.pools[0]).pop().unwrap().body;
    assert!(np["spec"].get("weight").is_none());
    assert!(np["spec"]["template"]["spec"].get("expireAfter").is_none());
    assert!(np["spec"]["disruption"].get("budgets").is_none());
    assert_eq!(np["spec"]["limits"], json!({"nvidia.com/gpu": 32}));
}

#[test]
fn imds_and_instance_store_render_on_the_ec2_node_class() {
    let mut s = seed_strategy();
    let nc = s.pools[0].node_class.as_mut().unwrap();
    nc.metadata_options = Some(crate::model::MetadataOptions {
        http_tokens: None,
        http_put_response_hop_limit: Some(2),
    });
    nc.instance_store_policy = Some("RAID0".into());
    let pool = s.pools[0].clone();
    let ec2nc = &pool_manifests(&s, &pool)[0].body;
    // IMDSv2 stays required unless asked otherwise; the hop limit lets pods reach IMDS.
    assert_eq!(
        ec2nc["spec"]["metadataOptions"],
        json!({"httpTokens": "required", "httpPutResponseHopLimit": 2})
    );
    assert_eq!(ec2nc["spec"]["instanceStorePolicy"], "RAID0");
    let plain = seed_strategy();
    let ec2nc = &pool_manifests(&plain, &plain.pools[0])[0].body;
    assert!(ec2nc["spec"].get("metadataOptions").is_none());
    assert!(ec2nc["spec"].get("instanceStorePolicy").is_none());
}

#[test]
fn capacity_reservations_render_on_both_node_classes() {
    let mut s = seed_strategy();
    let term = crate::model::CapacityReservationTerm {
        id: Some("cr-0123456789abcdef0".into()),
        ..Default::default()
    };
    s.pools[0].node_class.as_mut().unwrap().capacity_reservations = vec![term.clone()];
    let pool = s.pools[0].clone();
    assert_eq!(
        pool_manifests(&s, &pool)[0].body["spec"]["capacityReservationSelectorTerms"],
        json!([{"id": "cr-0123456789abcdef0"}])
    );
    let mut auto = s.pools[1].clone();
    auto.node_class = Some(NodeClass {
        role: Some("AutoNodeRole".into()),
        capacity_reservations: vec![crate::model::CapacityReservationTerm {
            tags: BTreeMap::from([("purpose".into(), "training".into())]),
            owner_id: Some("123456789012".into()),
            ..Default::default()
        }],
        ..NodeClass::default()
    });
    let manifests = pool_manifests(&s, &auto);
    // Auto Mode spells the owner `owner` (EKS user guide, auto-odcr), the EC2NodeClass `ownerID`.
    assert_eq!(
        manifests[0].body["spec"]["capacityReservationSelectorTerms"],
        json!([{"tags": {"purpose": "training"}, "owner": "123456789012"}])
    );
    let read = crate::readback::read_back_pool(&s, &auto, &manifests[1].body, Some(&manifests[0].body));
    assert_eq!(
        read.node_class.unwrap().capacity_reservations,
        auto.node_class.as_ref().unwrap().capacity_reservations
    );
    let mut k = s.pools[0].clone();
    k.node_class.as_mut().unwrap().capacity_reservations = auto.node_class.unwrap().capacity_reservations;
    assert_eq!(
        pool_manifests(&s, &k)[0].body["spec"]["capacityReservationSelectorTerms"],
        json!([{"tags": {"purpose": "training"}, "ownerID": "123456789012"}])
    );
}

#[test]
fn a_root_volume_without_a_size_keeps_karpenters_default_size() {
    // The EC2NodeClass CRD refuses an EBS mapping without volumeSize or snapshotID.
    let mut s = seed_strategy();
    s.pools[0].node_class.as_mut().unwrap().root_volume = Some(RootVolume {
        volume_type: Some("gp3".into()),
        ..RootVolume::default()
    });
    let pool = s.pools[0].clone();
    let m = pool_manifests(&s, &pool);
    assert_eq!(m[0].body["spec"]["blockDeviceMappings"][0]["ebs"]["volumeSize"], "20Gi");
    // And reads back as no size.
    let read = crate::readback::read_back_pool(&s, &pool, &m[1].body, Some(&m[0].body));
    assert_eq!(read.node_class, pool.node_class);
}

/// Neuron pools: the Neuron taint, the limit on `aws.amazon.com/neuron`, Auto Mode's
/// instance-family requirement, no NVIDIA labels; the GPU Operator does not tolerate them.
#[test]
fn neuron_pools_render_their_vendors_names() {
    let auto = Pool {
        gpu_limit: Some(32),
        ..fixture::pool(
            "volume",
            Capacity::AutoMode,
            &["trn2.48xlarge", "inf2.48xlarge", "trn2.48xlarge"],
        )
    };
    let mut s = seed_strategy();
    s.pools = vec![auto.clone()];
    let np = &pool_manifests(&s, &auto)[0].body;
    assert_eq!(np["spec"]["limits"], json!({"aws.amazon.com/neuron": 32}));
    assert_eq!(
        np["spec"]["template"]["spec"]["taints"],
        json!([{"key": "aws.amazon.com/neuron", "effect": "NoSchedule"}])
    );
    let reqs = np["spec"]["template"]["spec"]["requirements"].as_array().unwrap();
    assert!(reqs.contains(&json!({"key": AUTO_MODE_INSTANCE_FAMILY, "operator": "In", "values": ["inf2", "trn2"]})));
    // With the GPU Operator on, an Auto Mode NVIDIA pool gets the device-plugin label; a Neuron one none.
    assert!(np["spec"]["template"]["metadata"].get("labels").is_none(), "{np}");
    assert_eq!(gpu_resource_name(&s, &auto).as_deref(), Some("aws.amazon.com/neuron"));
    assert_eq!(
        tolerations(&auto),
        vec![BTreeMap::from([
            ("key", "aws.amazon.com/neuron".to_owned()),
            ("effect", "NoSchedule".to_owned()),
            ("operator", "Exists".to_owned()),
        ])]
    );
    let ops = gpu_operator_values(&s).unwrap();
    assert!(!ops.to_string().contains("aws.amazon.com/neuron"), "{ops}");
    let dra = Pool {
        dra: true,
        ..auto.clone()
    };
    assert_eq!(gpu_resource_name(&s, &dra), None);
    // A Karpenter Neuron pool has no instance-family requirement (its types pin it).
    let k = fixture::pool("volume", Capacity::Karpenter, &["trn2.48xlarge"]);
    s.pools = vec![k.clone()];
    let np = &pool_manifests(&s, &k)[1].body;
    assert!(!np.to_string().contains(AUTO_MODE_INSTANCE_FAMILY));
    // A node group of Neuron types boots the Neuron AMI.
    let mng = fixture::valid_pool("volume", Capacity::ManagedNodeGroup, &["inf2.xlarge"]);
    assert_eq!(crate::eks::default_ami_type(&mng), "AL2023_x86_64_NEURON");
}

#[test]
fn a_100_character_cluster_name_labels_every_object_with_a_label_value() {
    let mut s = seed_strategy();
    s.cluster_name = format!("{}-prod", "x".repeat(95));
    for pool in s.pools.clone() {
        for m in pool_manifests(&s, &pool) {
            let v = m.body["metadata"]["labels"][crate::kinds::labels::CLUSTER]
                .as_str()
                .unwrap()
                .to_owned();
            assert!(crate::validate::label_value(&v).is_ok(), "{v}");
            assert_eq!(v, crate::kinds::labels::cluster_value(&s.cluster_name));
            // And its owner is this strategy.
            let me = crate::ownership::Claimant {
                cluster: &s.cluster_name,
                name: &s.name,
                prior_name: None,
                token: None,
            };
            assert!(me.owns(&crate::ownership::Owner::of_object(&m.body)));
        }
    }
    // Names that are label values are rendered as before.
    let plain = seed_strategy();
    let m = &pool_manifests(&plain, &plain.pools[0])[0];
    assert_eq!(m.body["metadata"]["labels"][crate::kinds::labels::CLUSTER], "gpu");
}

/// An `efa` Karpenter pool on P6-B300 gets explicit interfaces (Karpenter's own layout would put an
/// `efa` on its ENA-only card 0), which read back as the provider's, not the pool's.
#[test]
fn an_efa_b300_karpenter_pool_renders_interfaces_off_card_zero() {
    let mut p = crate::fixture::valid_pool("train", Capacity::Karpenter, &["p6-b300.48xlarge"]);
    p.efa = true;
    let s = crate::fixture::strategy("gpu", vec![p.clone()]);
    let objects = pool_manifests(&s, &p);
    let nc = &objects[0].body["spec"]["networkInterfaces"];
    assert_eq!(
        nc[0],
        serde_json::json!({"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface"})
    );
    assert_eq!(nc.as_array().map(Vec::len), Some(17));
    assert!(
        nc.as_array()
            .into_iter()
            .flatten()
            .skip(1)
            .all(|n| n["interfaceType"] == "efa-only")
    );
    let read = crate::readback::read_back_pool(&s, &p, &objects[1].body, Some(&objects[0].body));
    assert_eq!(read, p);
    // On p5 Karpenter's own layout works: nothing rendered.
    let mut p5 = p.clone();
    p5.instance_types = vec!["p5.48xlarge".into()];
    assert!(
        pool_manifests(&s, &p5)[0].body["spec"]
            .get("networkInterfaces")
            .is_none()
    );
}

/// A node class named apart from its pool, and a NodePool on another pool's or tool's node class.
#[test]
fn node_classes_by_name_and_by_reference() {
    let mut a = crate::fixture::valid_pool("gpu", Capacity::Karpenter, &["g5.xlarge"]);
    a.node_class.as_mut().expect("nc").name = Some("default".into());
    let mut b = crate::fixture::valid_pool("fractional-gpu", Capacity::Karpenter, &["g6f.xlarge"]);
    b.node_class = None;
    b.node_class_ref = Some("gpu-nodeclass".into());
    let s = crate::fixture::strategy("gpu", vec![a.clone(), b.clone()]);
    let objects = pool_manifests(&s, &a);
    assert_eq!(
        (objects[0].kind.kind, objects[0].name.as_str()),
        ("EC2NodeClass", "default")
    );
    assert_eq!(
        objects[1].body["spec"]["template"]["spec"]["nodeClassRef"]["name"],
        "default"
    );
    let objects = pool_manifests(&s, &b);
    assert_eq!(objects.len(), 1, "no node class of its own");
    assert_eq!(
        objects[0].body["spec"]["template"]["spec"]["nodeClassRef"]["name"],
        "gpu-nodeclass"
    );
    let read = crate::readback::read_back_pool(&s, &b, &objects[0].body, None);
    assert_eq!(read.node_class_ref.as_deref(), Some("gpu-nodeclass"));
    // Auto Mode's built-in `default`: unset and written out, each reads back as it was.
    for written in [None, Some("default".to_owned())] {
        let mut c = crate::fixture::valid_pool("h200", Capacity::AutoMode, &["p5en.48xlarge"]);
        c.node_class = None;
        c.node_class_ref = written.clone();
        let s = crate::fixture::strategy("gpu", vec![c.clone()]);
        let objects = pool_manifests(&s, &c);
        let np = objects.iter().find(|o| o.kind.kind == "NodePool").expect("NodePool");
        assert_eq!(np.body["spec"]["template"]["spec"]["nodeClassRef"]["name"], "default");
        let read = crate::readback::read_back_pool(&s, &c, &np.body, None);
        assert_eq!(read.node_class_ref, written);
    }
}
