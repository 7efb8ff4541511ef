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
    // GB200's card 0 is ENA-only: the primary ENA interface there, EFA-only on cards 1, 3, … 15
    // (EC2 user guide, efa-acc-inst-types); never an `efa` on card 0.
    let mut want = vec![json!({"NetworkCardIndex": 0, "DeviceIndex": 0, "InterfaceType": "interface"})];
    want.extend(
        (1..16)
            .step_by(2)
            .map(|c| json!({"NetworkCardIndex": c, "DeviceIndex": 0, "InterfaceType": "efa-only"})),
    );
    assert_eq!(data["NetworkInterfaces"], json!(want));
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
    p.managed_node_group.as_mut().expect("mng").capacity_reservation_id = None;
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
            .and_then(|d| d.block_device_mappings.first().cloned())
            .and_then(|v| v.volume_size),
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

/// The template carries what only a template can: user data wrapped for AL2023, a second volume
/// from a snapshot, the pool's own interfaces, a placement group, instance tags, an ODCR group.
#[test]
fn template_only_inputs_render_and_read_back() {
    use crate::model::{NetworkInterface, NodeGroupVolume};
    let node_config = "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  instance:\n    localStorage:\n      strategy: RAID0\n";
    let mut p = gb200();
    p.instance_types = vec!["p4d.24xlarge".into()];
    p.capacity_types = vec!["on-demand".into()];
    let m = p.managed_node_group.as_mut().expect("mng");
    m.capacity_reservation_id = None;
    m.capacity_reservation_resource_group_arn = Some("arn:aws:resource-groups:us-west-2:123456789012:group/g".into());
    m.user_data = Some(node_config.into());
    m.block_device_mappings = vec![NodeGroupVolume {
        device_name: "/dev/xvdb".into(),
        volume_size: Some(64),
        volume_type: Some("gp3".into()),
        snapshot_id: Some("snap-0123456789abcdef0".into()),
        ..NodeGroupVolume::default()
    }];
    m.network_interfaces = (0..4)
        .map(|c| NetworkInterface {
            network_card_index: c,
            device_index: i64::from(c != 0),
            interface_type: if c == 0 { "efa" } else { "efa-only" }.into(),
            ..NetworkInterface::default()
        })
        .collect();
    m.cluster_placement_group = true;
    m.instance_tags = BTreeMap::from([("Name".into(), "trn".into())]);
    m.name_prefix = Some("efa-".into());
    m.metadata_options = Some(crate::model::TemplateMetadata {
        http_endpoint: None,
        http_tokens: Some("required".into()),
        http_put_response_hop_limit: Some(2),
    });
    m.security_group_ids = vec!["sg-0123456789abcdef0".into(), "sg-0fedcba9876543210".into()];
    let s = strategy(vec![p]);
    let reqs = aws_requests(&s, &s.pools[0]);
    assert_eq!(reqs[0]["CreatePlacementGroup"]["GroupName"], "gpu-prod-train");
    assert_eq!(reqs[0]["CreatePlacementGroup"]["Strategy"], "cluster");
    let data = &reqs[1]["CreateLaunchTemplate"]["LaunchTemplateData"];
    assert_eq!(data["Placement"], json!({"GroupName": "gpu-prod-train"}));
    assert_eq!(
        data["BlockDeviceMappings"][1],
        json!({"DeviceName": "/dev/xvdb", "Ebs": {"VolumeSize": 64, "VolumeType": "gp3", "SnapshotId": "snap-0123456789abcdef0"}})
    );
    assert_eq!(data["NetworkInterfaces"][1]["InterfaceType"], "efa-only");
    // The groups on every interface, none beside them (EC2 takes one or the other).
    assert_eq!(data["NetworkInterfaces"][3]["Groups"][1], "sg-0fedcba9876543210");
    assert!(data.get("SecurityGroupIds").is_none(), "{data}");
    assert_eq!(data["TagSpecifications"].as_array().map(Vec::len), Some(3));
    assert_eq!(
        data["MetadataOptions"],
        json!({"HttpTokens": "required", "HttpPutResponseHopLimit": 2})
    );
    assert_eq!(
        data["CapacityReservationSpecification"]["CapacityReservationTarget"]["CapacityReservationResourceGroupArn"],
        "arn:aws:resource-groups:us-west-2:123456789012:group/g"
    );
    let text = user_data::from_base64(data["UserData"].as_str().expect("user data")).expect("base64");
    let parts = user_data::parts(&text);
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0].content_type, user_data::NODE_CONFIG);
    let ng = &reqs[2]["CreateNodegroup"];
    assert!(
        ng["nodegroupName"]
            .as_str()
            .is_some_and(|n| n.starts_with("efa-") && n.len() == 12),
        "{ng}"
    );
    assert_eq!(ng["launchTemplate"], json!({"name": "gpu-prod-train"}));
    let live = node_group(&s, &s.pools[0]).expect("a node group");
    assert_eq!(read_back_node_group(&s, &s.pools[0], &live, false), s.pools[0]);
    // The placement group gone: the pool reads without it, so the plan makes it again.
    let mut gone = live;
    gone.placement_group = None;
    let read = read_back_node_group(&s, &s.pools[0], &gone, false);
    assert!(!read.managed_node_group.expect("mng").cluster_placement_group);
}

/// P6-B300's card 0 is ENA-only: its node groups' EFA layout starts with an ENA `interface`.
#[test]
fn a_b300_node_group_keeps_efa_off_card_zero() {
    let mut p = gb200();
    p.instance_types = vec!["p6-b300.48xlarge".into()];
    let s = strategy(vec![p]);
    let lt = node_group(&s, &s.pools[0])
        .and_then(|ng| ng.launch_template)
        .expect("a template");
    let nics = &lt.data.network_interfaces;
    assert_eq!(nics.len(), 17);
    assert_eq!(nics[0].interface_type, "interface");
    assert!(
        nics[1..]
            .iter()
            .all(|n| n.interface_type == "efa-only" && n.network_card_index > 0)
    );
}

/// Every launch template the provider renders for a type whose card 0 is ENA-only (#33 class 5):
/// GB200 and B300 node groups on a Capacity Block or on demand, DRA and multi-node NVLink
/// (ComputeDomain) pools, types listed in either order. Card 0 carries one ENA `interface`
/// (device 0) and nothing else; every EFA is `efa-only` on a card that takes one; and the rules
/// find nothing to refuse in the layout (EKSGPU177).
#[test]
fn no_template_puts_efa_on_an_ena_only_card_zero() {
    let variants: Vec<(&str, Pool)> = vec![
        ("gb200 capacity block", gb200()),
        ("gb200 dra", Pool { dra: true, ..gb200() }),
        (
            "gb200 compute domain",
            Pool {
                dra: true,
                multi_node_nvlink: true,
                compute_domain_namespace: Some("training".into()),
                ..gb200()
            },
        ),
        (
            "b300 capacity block",
            Pool {
                instance_types: vec!["p6-b300.48xlarge".into()],
                ..gb200()
            },
        ),
        (
            "b300 listed after p5 (on demand)",
            Pool {
                instance_types: vec!["p5.48xlarge".into(), "p6-b300.48xlarge".into()],
                capacity_types: vec!["on-demand".into()],
                managed_node_group: Some(ManagedNodeGroup {
                    capacity_reservation_id: None,
                    ..gb200().managed_node_group.expect("mng")
                }),
                ..gb200()
            },
        ),
    ];
    for (label, p) in variants {
        let s = strategy(vec![p]);
        let lt = node_group(&s, &s.pools[0])
            .and_then(|ng| ng.launch_template)
            .unwrap_or_else(|| panic!("{label}: a template"));
        let nics = &lt.data.network_interfaces;
        let ena_only = s.pools[0]
            .instance_types
            .iter()
            .filter_map(|t| crate::catalog::network_cards(t))
            .find(|n| n.card0_ena_only())
            .expect("an ENA-only-card-0 type");
        let on_card0: Vec<_> = nics.iter().filter(|n| n.network_card_index == 0).collect();
        assert_eq!(on_card0.len(), 1, "{label}: {nics:?}");
        assert_eq!(
            (on_card0[0].device_index, on_card0[0].interface_type.as_str()),
            (0, "interface"),
            "{label}"
        );
        let efa: Vec<i64> = nics
            .iter()
            .filter(|n| n.interface_type != "interface")
            .map(|n| n.network_card_index)
            .collect();
        assert!(
            nics.iter()
                .all(|n| n.interface_type == "interface" || n.interface_type == "efa-only"),
            "{label}: {nics:?}"
        );
        assert_eq!(
            Some(efa),
            ena_only.efa_cards(),
            "{label}: one EFA per card that takes one"
        );
        // The layout the rules check is this template's (the node group's own interfaces).
        let ctx = crate::node_strategy::rules::Context {
            karpenter_version: (1, 15),
        };
        let v = crate::node_strategy::rules::check_node_strategy(&s, &ctx);
        assert!(
            !v.iter().any(|v| v.code == crate::rules::Code::EKSGPU177),
            "{label}: {v:?}"
        );
    }
}

/// `ebs_optimized` alone gives a node group its template (`EbsOptimized`), reads back from it, and
/// a change is a new template version, not a new node group.
#[test]
fn ebs_optimized_is_template_data_that_reads_back_and_versions() {
    let mut p = fixture::pool("infer", Capacity::ManagedNodeGroup, &["inf2.24xlarge"]);
    let m = p.managed_node_group.get_or_insert_with(fixture::managed_node_group);
    m.disk_size = None;
    m.ebs_optimized = Some(true);
    let s = strategy(vec![p.clone()]);
    let ng = node_group(&s, &s.pools[0]).expect("a node group");
    let lt = ng.launch_template.clone().expect("a template");
    assert_eq!(lt.data.to_json()["EbsOptimized"], json!(true));
    assert_eq!(read_back_node_group(&s, &s.pools[0], &ng, false), s.pools[0]);
    let mut off = p;
    off.managed_node_group.as_mut().expect("mng").ebs_optimized = Some(false);
    let want = node_group(&s, &off).expect("a node group");
    assert_eq!(want.replacement(&ng), None);
    let u = want.update(&ng).expect("an update");
    assert_eq!(u.launch_template.and_then(|d| d.ebs_optimized), Some(false));
}

/// The pool's `security_group_ids` are written on every interface EC2 gets (`Groups`), and EC2
/// returns them there: read back, they are the pool's again, the interfaces name none of their own
/// and an EFA layout still reads as `efa = true` (no drift). Groups on the interfaces of a pool
/// without `security_group_ids` stay the interfaces' own.
#[test]
fn pool_security_groups_on_every_interface_read_back_as_the_pool_s() {
    let mut p = gb200();
    p.instance_types = vec!["p5.48xlarge".into()];
    p.managed_node_group.as_mut().expect("mng").security_group_ids = vec!["sg-0123456789abcdef0".into()];
    let s = strategy(vec![p]);
    let mut live = node_group(&s, &s.pools[0]).expect("a node group");
    let lt = live.launch_template.as_mut().expect("a template");
    assert!(!lt.data.network_interfaces.is_empty());
    for n in &mut lt.data.network_interfaces {
        n.security_group_ids = lt.data.security_group_ids.clone();
    }
    assert_eq!(read_back_node_group(&s, &s.pools[0], &live, false), s.pools[0]);

    let mut own = s.pools[0].clone();
    let m = own.managed_node_group.as_mut().expect("mng");
    m.security_group_ids = Vec::new();
    m.network_interfaces = vec![crate::model::NetworkInterface {
        network_card_index: 0,
        device_index: 0,
        interface_type: "efa".into(),
        security_group_ids: vec!["sg-0fedcba9876543210".into()],
        ..crate::model::NetworkInterface::default()
    }];
    let s = strategy(vec![own]);
    let mut live = node_group(&s, &s.pools[0]).expect("a node group");
    // As the cloud adapter reads it: the first interface's groups stand for the template's.
    let lt = live.launch_template.as_mut().expect("a template");
    lt.data.security_group_ids = lt.data.network_interfaces[0].security_group_ids.clone();
    assert_eq!(read_back_node_group(&s, &s.pools[0], &live, false), s.pools[0]);
}
