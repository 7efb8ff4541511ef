//! The launch template of EFA and Capacity Block node groups, and the Cluster Autoscaler's tags.

use std::collections::BTreeMap;

use serde_json::json;

use super::*;
use crate::fixture;
use crate::model::{Capacity, ManagedNodeGroup, NodeStrategy, Pool, Taint};

fn strategy(pools: Vec<Pool>) -> NodeStrategy {
    fixture::strategy("gpu-prod", pools)
}

/// A P6e-GB200 pool on a Capacity Block with EFA, 500 GiB disks.
fn gb200() -> Pool {
    Pool {
        capacity_types: vec!["capacity-block".into()],
        efa: true,
        managed_node_group: Some(ManagedNodeGroup {
            capacity_reservation_id: Some("cr-0123456789abcdef0".into()),
            disk_size: Some(500),
            ..fixture::managed_node_group()
        }),
        ..fixture::pool("train", Capacity::ManagedNodeGroup, &["p6e-gb200.36xlarge"])
    }
}

#[test]
fn a_capacity_block_efa_pool_renders_its_template_before_the_node_group() {
    let s = strategy(vec![gb200()]);
    let reqs = aws_requests(&s, &s.pools[0]);
    assert_eq!(reqs.len(), 2);
    let lt = &reqs[0]["CreateLaunchTemplate"];
    assert_eq!(lt["LaunchTemplateName"], "gpu-prod-train");
    let data = &lt["LaunchTemplateData"];
    assert_eq!(data["InstanceType"], "p6e-gb200.36xlarge");
    assert_eq!(data["InstanceMarketOptions"], json!({"MarketType": "capacity-block"}));
    assert_eq!(
        data["CapacityReservationSpecification"]["CapacityReservationTarget"]["CapacityReservationId"],
        "cr-0123456789abcdef0"
    );
    // The GB200 AMI is arm64 AL2023: its root volume is /dev/xvda.
    assert_eq!(
        data["BlockDeviceMappings"],
        json!([{"DeviceName": "/dev/xvda", "Ebs": {"VolumeSize": 500}}])
    );
    // The catalog has no EFA count for GB200 (yet): one EFA on the primary card (EKSGPU182 warns).
    assert_eq!(
        data["NetworkInterfaces"],
        json!([{"NetworkCardIndex": 0, "DeviceIndex": 0, "InterfaceType": "efa"}])
    );
    let tags = lt["TagSpecifications"][0]["Tags"].as_array().expect("tags");
    assert!(tags.contains(&json!({"Key": tags::POOL, "Value": "train"})));
    // The node group names the template; its disk and instance type are the template's.
    let ng = &reqs[1]["CreateNodegroup"];
    assert_eq!(ng["capacityType"], "CAPACITY_BLOCK");
    assert_eq!(ng["launchTemplate"], json!({"name": "gpu-prod-train"}));
    assert!(
        ng.get("diskSize").is_none() && ng.get("instanceTypes").is_none(),
        "{ng}"
    );
}

#[test]
fn an_efa_pool_gets_one_efa_per_network_card_of_its_type() {
    let mut p = gb200();
    p.instance_types = vec!["p5.48xlarge".into()];
    p.capacity_types = vec!["on-demand".into()];
    p.managed_node_group.as_mut().expect("mng").capacity_reservation_id = None;
    let s = strategy(vec![p]);
    let lt = node_group(&s, &s.pools[0])
        .and_then(|ng| ng.launch_template)
        .expect("a template");
    let efa = crate::catalog::instance_type("p5.48xlarge")
        .and_then(|t| t.efa_interfaces)
        .expect("the catalog knows p5's EFA interfaces");
    let nics = &lt.data.network_interfaces;
    assert_eq!(nics.len(), efa as usize);
    assert_eq!((nics[0].network_card_index, nics[0].device_index), (0, 0));
    assert_eq!((nics[1].network_card_index, nics[1].device_index), (1, 1));
    assert!(nics.iter().all(|n| n.interface_type == "efa"));
    assert_eq!(lt.data.instance_type, None, "on demand, the node group lists the types");
    assert!(!lt.data.capacity_block);
}

#[test]
fn pools_without_efa_or_a_capacity_block_have_no_template() {
    let mut p = gb200();
    p.efa = false;
    p.capacity_types = vec!["on-demand".into()];
    let s = strategy(vec![p]);
    let ng = node_group(&s, &s.pools[0]).expect("a node group");
    assert!(ng.launch_template.is_none());
    assert_eq!(ng.create_request("gpu-prod")["CreateNodegroup"]["diskSize"], 500);
}

#[test]
fn a_template_change_is_a_new_version_and_adding_a_template_replaces_the_node_group() {
    let s = strategy(vec![gb200()]);
    let was = node_group(&s, &s.pools[0]).expect("a node group");
    let mut p = gb200();
    p.managed_node_group.as_mut().expect("mng").disk_size = Some(800);
    let want = node_group(&s, &p).expect("a node group");
    assert_eq!(want.replacement(&was), None, "a disk change is a template version");
    let u = want.update(&was).expect("an update");
    assert_eq!(
        u.launch_template
            .clone()
            .and_then(|d| d.root_volume)
            .map(|v| v.volume_size),
        Some(800)
    );
    assert!(!u.changes_config());
    // A node group made without a template cannot take one.
    let mut plain = gb200();
    plain.efa = false;
    plain.capacity_types = vec!["on-demand".into()];
    plain.managed_node_group.as_mut().expect("mng").capacity_reservation_id = None;
    let before = node_group(&s, &plain).expect("a node group");
    let r = want.replacement(&before).expect("a replacement");
    assert!(r.fields.contains(&"launch_template"), "{r:?}");
}

#[test]
fn the_template_version_reads_back_as_the_pool() {
    let s = strategy(vec![gb200()]);
    let pool = &s.pools[0];
    let live = node_group(&s, pool).expect("a node group");
    assert_eq!(read_back_node_group(&s, pool, &live, false), *pool);
    // A version without the EFA interfaces is drift: `efa` reads false.
    let mut edited = live.clone();
    if let Some(lt) = edited.launch_template.as_mut() {
        lt.data.network_interfaces.clear();
    }
    assert!(!read_back_node_group(&s, pool, &edited, false).efa);
}

#[test]
fn autoscaler_tags_show_labels_taints_and_resources_and_user_tags_win() {
    let mut p = gb200();
    p.labels = BTreeMap::from([("team".into(), "ml".into())]);
    p.taints = vec![Taint {
        key: "dedicated".into(),
        value: Some("train".into()),
        effect: "NoSchedule".into(),
    }];
    p.tags = BTreeMap::from([(autoscaler::ENABLED.to_owned(), "false".to_owned())]);
    let s = strategy(vec![p]);
    let ng = node_group(&s, &s.pools[0]).expect("a node group");
    let t = &ng.tags;
    assert_eq!(t["k8s.io/cluster-autoscaler/gpu-prod"], "owned");
    assert_eq!(t[autoscaler::ENABLED], "false", "the pool's own tag wins");
    assert_eq!(t["k8s.io/cluster-autoscaler/node-template/label/team"], "ml");
    assert_eq!(
        t["k8s.io/cluster-autoscaler/node-template/taint/dedicated"],
        "train:NoSchedule"
    );
    assert_eq!(
        t["k8s.io/cluster-autoscaler/node-template/taint/nvidia.com/gpu"],
        "true:NoSchedule"
    );
    let gpus = crate::catalog::instance_type("p6e-gb200.36xlarge").map(|t| t.gpu_count.to_string());
    assert_eq!(
        t.get("k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu"),
        gpus.as_ref()
    );
    // Refresh: the autoscaler's tags are not the pool's, the user's one is.
    let back = read_back_node_group(&s, &s.pools[0], &ng, false);
    assert_eq!(back.tags, s.pools[0].tags);
    // A DRA pool advertises no device-plugin resource.
    let mut dra = s.pools[0].clone();
    dra.dra = true;
    let ng = node_group(&s, &dra).expect("a node group");
    assert!(
        !ng.tags
            .contains_key("k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu")
    );
}

#[test]
fn an_autoscaler_tag_changed_out_of_band_is_drift() {
    let s = strategy(vec![gb200()]);
    let mut live = node_group(&s, &s.pools[0]).expect("a node group");
    live.tags
        .insert("k8s.io/cluster-autoscaler/gpu-prod".into(), "shared".into());
    let back = read_back_node_group(&s, &s.pools[0], &live, false);
    assert_eq!(
        back.tags.get("k8s.io/cluster-autoscaler/gpu-prod").map(String::as_str),
        Some("shared")
    );
}

#[test]
fn a_template_is_retagged_to_what_is_wanted_keeping_aws_tags() {
    let m = |kv: &[(&str, &str)]| {
        kv.iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    let live = m(&[("team", "ml"), ("cost", "1"), ("aws:cloudformation:stack-name", "x")]);
    let want = m(&[("team", "research"), ("env", "prod")]);
    let (add, remove) = crate::eks::launch_template::retag(&live, &want);
    assert_eq!(add, m(&[("team", "research"), ("env", "prod")]));
    assert_eq!(remove, ["cost"], "a tag no longer wanted goes; aws: tags cannot");
    assert_eq!(crate::eks::launch_template::retag(&want, &want), (m(&[]), vec![]));
}
