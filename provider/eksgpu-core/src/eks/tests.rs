use std::collections::BTreeMap;

use super::*;
use crate::fixture;
use crate::model::{Capacity, GpuOperator, Hybrid, ManagedNodeGroup, NodeStrategy, Pool, Scaling, Taint};
#[allow(unused_imports)]
use crate::model::{NodeRepairConfig, UpdateConfig};

/// A Spot node group of 0–4 nodes (1 at creation) on EKS's default disk.
fn mng_pool() -> Pool {
    Pool {
        capacity_types: vec!["spot".into()],
        labels: BTreeMap::from([("team".into(), "ml".into())]),
        managed_node_group: Some(ManagedNodeGroup {
            scaling: Scaling {
                min: 0,
                max: 4,
                desired: 1,
            },
            update: Some(UpdateConfig {
                max_unavailable: Some(1),
                max_unavailable_percentage: None,
            }),
            disk_size: None,
            ..fixture::managed_node_group()
        }),
        ..fixture::pool("training", Capacity::ManagedNodeGroup, &["p5.48xlarge"])
    }
}

fn strategy(pools: Vec<Pool>) -> NodeStrategy {
    NodeStrategy {
        cluster_name: "gpu-prod".into(),
        name: "genai".into(),
        kubernetes_version: Some("1.34".into()),
        device_plugin: None,
        gpu_operator: Some(GpuOperator {
            mig_strategy: "single".into(),
            dcgm_exporter: true,
            service_monitor: false,
        }),
        pools,
        default_tags: BTreeMap::new(),
        karpenter_gates: Default::default(),
    }
}

#[test]
fn node_group_is_named_after_cluster_and_pool_with_nvidia_ami_and_eks_effects() {
    let s = strategy(vec![mng_pool()]);
    let ng = node_group(&s, &s.pools[0]).unwrap();
    assert_eq!(ng.name, "gpu-prod-training");
    assert_eq!(ng.ami_type, "AL2023_x86_64_NVIDIA");
    assert_eq!(ng.capacity_type, "SPOT");
    let req = ng.create_request("gpu-prod");
    let body = &req["CreateNodegroup"];
    assert_eq!(body["taints"][0]["effect"], "NO_SCHEDULE");
    assert_eq!(body["taints"][0]["key"], "nvidia.com/gpu");
    assert_eq!(body["updateConfig"]["maxUnavailable"], 1);
    assert_eq!(body["tags"][tags::POOL], "training");
    assert!(
        body["tags"].get("eksgpu.terraform.io/pool-index").is_none(),
        "no position: pools are keyed by name"
    );
    assert_eq!(
        gpu_operator_from_tag(body["tags"][tags::GPU_OPERATOR].as_str().unwrap()),
        s.gpu_operator
    );
    assert!(tagged_for(&ng.tags, "gpu-prod", "genai"));
    assert!(!tagged_for(&ng.tags, "gpu-prod", "other"));
    // NVIDIA AMIs carry the driver: the operator's stays off only when it installs drivers (hybrid present).
    assert_eq!(ng.labels.get("team").map(String::as_str), Some("ml"));
}

#[test]
fn arm_instance_types_get_the_arm_nvidia_ami() {
    let mut p = mng_pool();
    p.instance_types = vec!["g5g.xlarge".into()];
    assert_eq!(default_ami_type(&p), "AL2023_ARM_64_NVIDIA");
}

#[test]
fn in_place_update_covers_labels_taints_scaling_and_keeps_live_desired() {
    let s = strategy(vec![mng_pool()]);
    let want = node_group(&s, &s.pools[0]).unwrap();
    let mut live = want.clone();
    assert_eq!(want.update(&live), None);
    assert_eq!(want.replacement(&live), None);

    live.labels.insert("team".into(), "web".into());
    live.labels.insert("extra".into(), "x".into());
    live.taints.push(Taint {
        key: "dedicated".into(),
        value: None,
        effect: "NoExecute".into(),
    });
    live.config.scaling = Scaling {
        min: 1,
        max: 2,
        desired: 2,
    };
    let u = want.update(&live).unwrap();
    assert_eq!(u.labels_add, BTreeMap::from([("team".into(), "ml".into())]));
    assert_eq!(u.labels_remove, vec!["extra".to_owned()]);
    assert_eq!(u.taints_remove.len(), 1);
    assert!(u.taints_add.is_empty());
    // The autoscaler's desired size (2) survives, inside the new bounds 0..4.
    assert_eq!(
        u.scaling,
        Some(Scaling {
            min: 0,
            max: 4,
            desired: 2
        })
    );

    live.instance_types = vec!["p4d.24xlarge".into()];
    live.capacity_type = "ON_DEMAND".into();
    assert_eq!(
        want.replacement(&live).unwrap().fields,
        vec!["capacity_types", "instance_types"]
    );
}

#[test]
fn read_back_keeps_prior_desired_and_spelling_and_reports_owned_drift() {
    let s = strategy(vec![mng_pool()]);
    let prior = &s.pools[0];
    let mut live = node_group(&s, prior).unwrap();
    live.config.scaling.desired = 3; // an autoscaler scaled out
    assert_eq!(read_back_node_group(&s, prior, &live, false), *prior);

    live.labels.insert("team".into(), "web".into());
    let read = read_back_node_group(&s, prior, &live, false);
    assert_eq!(read.labels.get("team").map(String::as_str), Some("web"));
    assert_eq!(read.managed_node_group.as_ref().unwrap().scaling.desired, 1);

    // Import takes the live desired size and finds the default GPU taint.
    let blank = Pool {
        labels: BTreeMap::new(),
        capacity_types: vec![],
        managed_node_group: None,
        gpu_taint: false,
        ..prior.clone()
    };
    let imported = read_back_node_group(&s, &blank, &live, true);
    assert!(imported.gpu_taint);
    assert!(imported.taints.is_empty());
    assert_eq!(imported.managed_node_group.unwrap().scaling.desired, 3);
}

/// Issue #14's node group settings: release, disk, node repair, update percentage.
fn tuned_mng_pool() -> Pool {
    let mut p = mng_pool();
    let m = p.managed_node_group.as_mut().unwrap();
    m.update = Some(UpdateConfig {
        max_unavailable: None,
        max_unavailable_percentage: Some(25),
    });
    m.release_version = Some("1.34.0-20260801".into());
    m.disk_size = Some(200);
    m.node_repair_config = Some(NodeRepairConfig {
        enabled: true,
        ..Default::default()
    });
    p
}

#[test]
fn release_disk_repair_and_percentage_render_in_create_nodegroup() {
    let s = strategy(vec![tuned_mng_pool()]);
    let ng = node_group(&s, &s.pools[0]).unwrap();
    let body = &ng.create_request("gpu-prod")["CreateNodegroup"];
    assert_eq!(
        body["updateConfig"],
        serde_json::json!({"maxUnavailablePercentage": 25})
    );
    assert_eq!(body["releaseVersion"], "1.34.0-20260801");
    assert_eq!(body["diskSize"], 200);
    assert_eq!(body["nodeRepairConfig"], serde_json::json!({"enabled": true}));
    // Unset, none is sent: EKS's defaults apply.
    let plain = strategy(vec![mng_pool()]);
    let body = &node_group(&plain, &plain.pools[0]).unwrap().create_request("gpu-prod")["CreateNodegroup"];
    for k in ["releaseVersion", "diskSize", "nodeRepairConfig"] {
        assert!(body.get(k).is_none(), "{k}");
    }
}

#[test]
fn release_and_repair_change_in_place_and_disk_size_replaces() {
    let s = strategy(vec![tuned_mng_pool()]);
    let want = node_group(&s, &s.pools[0]).unwrap();
    let mut live = want.clone();
    live.config.release_version = Some("1.34.0-20260701".into());
    let u = want.update(&live).unwrap();
    assert_eq!(u.release_version.as_deref(), Some("1.34.0-20260801"));
    assert!(!u.changes_config(), "a release alone is UpdateNodegroupVersion");
    live.config.node_repair_config = None;
    live.config.update = Some(UpdateConfig {
        max_unavailable: None,
        max_unavailable_percentage: Some(10),
    });
    let u = want.update(&live).unwrap();
    assert_eq!(
        (
            u.node_repair.as_ref().map(|r| r.enabled),
            u.update.and_then(|u| u.max_unavailable_percentage)
        ),
        (Some(true), Some(25))
    );
    assert!(u.changes_config());
    assert_eq!(want.replacement(&live), None);
    live.config.disk_size = Some(100);
    assert_eq!(want.replacement(&live).unwrap().fields, vec!["disk_size"]);
    // Setting a size on a node group made with EKS's default (20 GiB) replaces it as well,
    // so the plan warns; setting the default itself does not.
    live.config.disk_size = None;
    assert_eq!(want.replacement(&live).unwrap().fields, vec!["disk_size"]);
    let mut twenty = want.clone();
    twenty.config.disk_size = Some(DEFAULT_DISK_SIZE_GIB);
    assert_eq!(twenty.replacement(&live), None);
}

#[test]
fn what_eks_chose_reads_back_as_unset_and_edits_as_drift() {
    let s = strategy(vec![mng_pool()]);
    let prior = &s.pools[0];
    let mut live = node_group(&s, prior).unwrap();
    // EKS's choices for a pool that set none of them.
    live.config.release_version = Some("1.34.0-20260801".into());
    live.config.disk_size = Some(DEFAULT_DISK_SIZE_GIB);
    live.config.node_repair_config = Some(NodeRepairConfig {
        enabled: false,
        ..Default::default()
    });
    assert_eq!(read_back_node_group(&s, prior, &live, false), *prior);

    let s = strategy(vec![tuned_mng_pool()]);
    let prior = &s.pools[0];
    let mut live = node_group(&s, prior).unwrap();
    assert_eq!(read_back_node_group(&s, prior, &live, false), *prior);
    live.config.node_repair_config = Some(NodeRepairConfig {
        enabled: false,
        ..Default::default()
    });
    live.config.release_version = Some("1.34.0-20260701".into());
    let read = read_back_node_group(&s, prior, &live, false)
        .managed_node_group
        .unwrap();
    assert_eq!(
        read.node_repair_config,
        Some(NodeRepairConfig {
            enabled: false,
            ..Default::default()
        })
    );
    assert_eq!(read.release_version.as_deref(), Some("1.34.0-20260701"));
}

#[test]
fn default_tags_then_pool_tags_then_the_providers_own() {
    let mut s = strategy(vec![mng_pool()]);
    s.default_tags = BTreeMap::from([
        ("cost-center".into(), "ml-platform".into()),
        ("team".into(), "infra".into()),
        // A default cannot take over an identifying tag: the provider's wins (EKSGPU125 refuses it too).
        (tags::POOL.into(), "x".into()),
    ]);
    s.pools[0].tags = BTreeMap::from([("team".into(), "ml".into())]);
    let t = pool_tags(&s, &s.pools[0]);
    assert_eq!(t["cost-center"], "ml-platform");
    assert_eq!(t["team"], "ml", "pool tags override default tags");
    assert_eq!(t[tags::POOL], "training");
    let ng = node_group(&s, &s.pools[0]).unwrap();
    assert_eq!(
        ng.create_request("gpu-prod")["CreateNodegroup"]["tags"]["cost-center"],
        "ml-platform"
    );
    // Read back: defaults and identifying tags are not the pool's; an edited tag is drift.
    let mut live = ng.clone();
    assert_eq!(read_back_node_group(&s, &s.pools[0], &live, false), s.pools[0]);
    live.tags.insert("team".into(), "web".into());
    live.tags.insert("owner".into(), "someone".into());
    let read = read_back_node_group(&s, &s.pools[0], &live, false);
    assert_eq!(
        read.tags,
        BTreeMap::from([("owner".into(), "someone".into()), ("team".into(), "web".into())])
    );
    // The update puts them back with TagResource / UntagResource, not a config update.
    let u = ng.update(&live).unwrap();
    assert_eq!(u.tags_add, BTreeMap::from([("team".into(), "ml".into())]));
    assert_eq!(u.tags_remove, vec!["owner".to_owned()]);
    assert!(!u.changes_config());
}

#[test]
fn hybrid_requests_set_remote_networks_and_a_hybrid_access_entry() {
    let p = Pool {
        name: "onprem".into(),
        capacity: Capacity::Hybrid,
        instance_types: vec![],
        managed_node_group: None,
        hybrid: Some(Hybrid {
            remote_pod_networks: vec![],
            node_role_arn: "arn:aws:iam::123456789012:role/hybrid".into(),
            ..fixture::hybrid()
        }),
        ..mng_pool()
    };
    let s = strategy(vec![p]);
    let r = hybrid_requests(&s, &s.pools[0]);
    assert_eq!(
        r[0]["UpdateClusterConfig"]["remoteNetworkConfig"]["remoteNodeNetworks"][0]["cidrs"][0],
        "10.80.0.0/16"
    );
    assert_eq!(
        r[0]["UpdateClusterConfig"]["remoteNetworkConfig"]["remotePodNetworks"],
        serde_json::json!([])
    );
    assert_eq!(r[1]["CreateAccessEntry"]["type"], "HYBRID_LINUX");
}

#[test]
fn auto_mode_flags() {
    let on = AutoModeFlags {
        compute: Some(true),
        block_storage: Some(true),
        load_balancing: Some(true),
    };
    assert!(on.enabled() && on.consistent());
    assert!(AutoModeFlags::default().consistent());
    let half = AutoModeFlags {
        block_storage: Some(false),
        ..on
    };
    assert!(!half.consistent() && !half.enabled());
}

/// `terraform import` writes a strategy's `device_plugin` block back from its objects: the node
/// group's tag and the NodePool's annotation.
#[test]
fn the_device_plugin_block_is_recorded_for_import() {
    let mut s = crate::fixture::strategy(
        "gpu-prod",
        vec![crate::fixture::valid_pool(
            "training",
            Capacity::ManagedNodeGroup,
            &["p5.48xlarge"],
        )],
    );
    s.device_plugin = Some(DevicePlugin {
        mig_strategy: "mixed".into(),
    });
    let tags = pool_tags(&s, &s.pools[0]);
    assert_eq!(
        stack_blocks_from_tags(&tags),
        crate::model::StackBlocks {
            gpu_operator: None,
            device_plugin: s.device_plugin.clone(),
        }
    );
    let k = crate::fixture::valid_pool("k", Capacity::Karpenter, &["p5.48xlarge"]);
    s.pools = vec![k];
    let np = crate::render::pool_manifests(&s, &s.pools[0])
        .into_iter()
        .find(|m| m.kind == crate::kinds::NODE_POOL)
        .unwrap();
    assert_eq!(
        crate::readback::stack_blocks_annotation(&np.body).device_plugin,
        s.device_plugin
    );
    // Without the block neither records one.
    s.device_plugin = None;
    assert_eq!(
        stack_blocks_from_tags(&pool_tags(&s, &s.pools[0])),
        crate::model::StackBlocks::default()
    );
}
