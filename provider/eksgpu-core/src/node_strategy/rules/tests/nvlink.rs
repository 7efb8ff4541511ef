//! The multi-node NVLink rules (EKSGPU185-188) and the DRA driver's node rule (EKSGPU189): each one
//! fires, and a GB200 DRA node group passes.

use std::collections::BTreeMap;

use crate::fixture;
use crate::node_strategy::rules::*;
use crate::render::DEPLOY_DEVICE_PLUGIN;
use crate::rules::Code;

const NONE: [Code; 0] = [];

const CTX: Context = Context {
    karpenter_version: (1, 15),
};

fn codes(pool: Pool) -> Vec<Code> {
    let s = NodeStrategy {
        cluster_name: "gpu".into(),
        name: "training".into(),
        kubernetes_version: Some("1.34".into()),
        gpu_operator: None,
        device_plugin: None,
        pools: vec![pool],
        default_tags: BTreeMap::new(),
        karpenter_gates: Default::default(),
    };
    check_node_strategy(&s, &CTX)
        .into_iter()
        .map(|v| v.code)
        .filter(|c| (185..=189).contains(&c.as_str()[6..].parse::<u32>().unwrap_or(0)))
        .collect()
}

fn nvl72() -> Pool {
    Pool {
        dra: true,
        multi_node_nvlink: true,
        ..fixture::valid_pool("nvl72", Capacity::ManagedNodeGroup, &["p6e-gb200.36xlarge"])
    }
}

#[test]
fn a_gb200_dra_node_group_passes() {
    assert_eq!(codes(nvl72()), NONE);
    let named = Pool {
        compute_domain_namespace: Some("training".into()),
        ..nvl72()
    };
    assert_eq!(codes(named), NONE);
}

#[test]
fn nvlink_without_dra_is_refused() {
    assert_eq!(codes(Pool { dra: false, ..nvl72() }), [Code::EKSGPU185]);
}

#[test]
fn nvlink_on_other_types_is_refused_per_type() {
    let p = Pool {
        instance_types: vec!["p6e-gb200.36xlarge".into(), "p5.48xlarge".into()],
        ..nvl72()
    };
    let s = NodeStrategy {
        cluster_name: "gpu".into(),
        name: "training".into(),
        kubernetes_version: Some("1.34".into()),
        gpu_operator: None,
        device_plugin: None,
        pools: vec![p],
        default_tags: BTreeMap::new(),
        karpenter_gates: Default::default(),
    };
    let v: Vec<_> = check_node_strategy(&s, &CTX)
        .into_iter()
        .filter(|v| v.code == Code::EKSGPU186)
        .collect();
    assert_eq!(v.len(), 1);
    assert_eq!(
        v[0].path,
        [
            Step::Attr("pools"),
            Step::Key("nvl72".into()),
            Step::Attr("instance_types"),
            Step::Index(1)
        ]
    );
}

#[test]
fn a_namespace_without_nvlink_is_refused() {
    let p = Pool {
        compute_domain_namespace: Some("training".into()),
        ..fixture::valid_pool("g", Capacity::ManagedNodeGroup, &["p5.48xlarge"])
    };
    assert_eq!(codes(p), [Code::EKSGPU187]);
}

#[test]
fn nvlink_on_karpenter_is_refused() {
    let p = Pool {
        capacity: Capacity::Karpenter,
        managed_node_group: None,
        node_class: Some(fixture::karpenter_node_class()),
        ..nvl72()
    };
    assert_eq!(codes(p), [Code::EKSGPU188]);
}

#[test]
fn an_nvlink_pool_keeps_the_device_plugin_for_its_gpus() {
    let p = nvl72();
    let s = NodeStrategy {
        cluster_name: "gpu".into(),
        name: "training".into(),
        kubernetes_version: Some("1.34".into()),
        gpu_operator: None,
        device_plugin: None,
        pools: vec![p.clone()],
        default_tags: BTreeMap::new(),
        karpenter_gates: Default::default(),
    };
    // GPUs stay the device plugin's (EKS P6e-GB200): no plugin-off label, `nvidia.com/gpu` requested.
    assert!(!crate::render::effective_labels(&s, &p).contains_key(DEPLOY_DEVICE_PLUGIN));
    assert_eq!(
        crate::render::gpu_resource_name(&s, &p).as_deref(),
        Some("nvidia.com/gpu")
    );
    // A plain DRA pool's GPUs are claimed instead.
    let d = Pool {
        multi_node_nvlink: false,
        ..p
    };
    assert_eq!(crate::render::gpu_resource_name(&s, &d), None);
}

#[test]
fn a_bottlerocket_dra_pool_must_turn_its_device_plugin_off() {
    let mut mng = Pool {
        dra: true,
        ..fixture::valid_pool("d", Capacity::ManagedNodeGroup, &["p5.48xlarge"])
    };
    if let Some(m) = mng.managed_node_group.as_mut() {
        m.ami_type = Some("BOTTLEROCKET_x86_64_NVIDIA".into());
    }
    assert_eq!(codes(mng.clone()), [Code::EKSGPU189]);
    // GB200 keeps the device plugin for its GPUs: nothing to turn off.
    let gb200 = Pool {
        multi_node_nvlink: true,
        instance_types: vec!["p6e-gb200.36xlarge".into()],
        ..mng
    };
    assert_eq!(codes(gb200), NONE);

    let mut k = Pool {
        dra: true,
        replicas: Some(2),
        ..fixture::valid_pool("k", Capacity::Karpenter, &["p5.48xlarge"])
    };
    let nc = k.node_class.as_mut().unwrap();
    nc.ami_alias = Some("bottlerocket@latest".into());
    assert_eq!(codes(k.clone()), [Code::EKSGPU189]);
    k.node_class.as_mut().unwrap().user_data =
        Some("[settings.kubelet-device-plugins.nvidia]\nenabled = false\n".into());
    assert_eq!(codes(k), NONE);
}
