//! The standalone device plugin's rules (EKSGPU183, 184, 191) and EKSGPU132 under it: each fires,
//! and a strategy of the plugin's own passes.

use crate::fixture;
use crate::model::{DevicePlugin, GpuOperator};
use crate::node_strategy::rules::*;
use crate::render::{DEVICE_PLUGIN_CONFIG, MIG_CONFIG};
use crate::rules::{Code, Step};
use crate::sharing::handover::GPU_REPLICAS;

const NONE: [Code; 0] = [];

const CTX: Context = Context {
    karpenter_version: (1, 15),
};

fn plugin(pools: Vec<Pool>) -> NodeStrategy {
    NodeStrategy {
        device_plugin: Some(DevicePlugin {
            mig_strategy: "single".into(),
        }),
        ..fixture::strategy("gpu", pools)
    }
}

fn codes(s: &NodeStrategy) -> Vec<Code> {
    check_node_strategy(s, &CTX).into_iter().map(|v| v.code).collect()
}

fn node_group(name: &str, types: &[&str], labels: &[(&str, &str)]) -> Pool {
    let mut p = fixture::valid_pool(name, Capacity::ManagedNodeGroup, types);
    p.labels
        .extend(labels.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
    p
}

#[test]
fn a_plugin_strategy_with_a_time_sliced_pool_is_clean_and_132_goes() {
    let ts = node_group(
        "ts",
        &["g5.2xlarge"],
        &[(DEVICE_PLUGIN_CONFIG, "a10g-ts2"), (GPU_REPLICAS, "2")],
    );
    let whole = node_group("whole", &["g6e.12xlarge"], &[]);
    assert_eq!(codes(&plugin(vec![ts.clone(), whole.clone()])), NONE);
    // The same pools without any installer: the AL2023 NVIDIA AMI advertises no GPU.
    let bare = fixture::strategy("gpu", vec![whole]);
    assert_eq!(codes(&bare), [Code::EKSGPU132]);
}

#[test]
fn eksgpu183_the_operator_and_the_plugin_together() {
    let mut s = plugin(vec![node_group("g", &["g6e.12xlarge"], &[])]);
    s.gpu_operator = Some(GpuOperator {
        mig_strategy: "single".into(),
        dcgm_exporter: true,
        service_monitor: false,
    });
    let found = check_node_strategy(&s, &CTX);
    assert_eq!(found.iter().map(|v| v.code).collect::<Vec<_>>(), [Code::EKSGPU183]);
    assert_eq!(found[0].path, [Step::Attr("device_plugin")]);
}

#[test]
fn eksgpu184_a_mig_layout_nothing_applies() {
    let mig = node_group("mig", &["p5.48xlarge"], &[(MIG_CONFIG, "all-1g.10gb")]);
    let found = check_node_strategy(&plugin(vec![mig.clone()]), &CTX);
    assert_eq!(found.iter().map(|v| v.code).collect::<Vec<_>>(), [Code::EKSGPU184]);
    assert_eq!(found[0].severity, crate::rules::Severity::Warning);
    assert_eq!(
        found[0].path,
        crate::rules::pool_path("mig", &[Step::Attr("labels"), Step::Key(MIG_CONFIG.into())])
    );
    // `all-disabled` splits nothing; the operator brings its MIG Manager.
    let off = node_group("mig", &["p5.48xlarge"], &[(MIG_CONFIG, "all-disabled")]);
    assert_eq!(codes(&plugin(vec![off])), NONE);
    let mut operator = plugin(vec![mig]);
    operator.device_plugin = None;
    operator.gpu_operator = Some(GpuOperator {
        mig_strategy: "single".into(),
        dcgm_exporter: true,
        service_monitor: false,
    });
    assert_eq!(codes(&operator), NONE);
}

#[test]
fn eksgpu191_configs_the_plugins_values_cannot_hold() {
    let named_default = node_group(
        "d",
        &["g5.2xlarge"],
        &[(DEVICE_PLUGIN_CONFIG, "default"), (GPU_REPLICAS, "2")],
    );
    assert_eq!(codes(&plugin(vec![named_default])), [Code::EKSGPU191]);
    let by_hand = node_group("h", &["g5.2xlarge"], &[(DEVICE_PLUGIN_CONFIG, "ts")]);
    assert_eq!(codes(&plugin(vec![by_hand.clone()])), [Code::EKSGPU191]);
    let two = node_group(
        "a",
        &["g5.2xlarge"],
        &[(DEVICE_PLUGIN_CONFIG, "ts"), (GPU_REPLICAS, "2")],
    );
    let four = node_group(
        "b",
        &["g5.2xlarge"],
        &[(DEVICE_PLUGIN_CONFIG, "ts"), (GPU_REPLICAS, "4")],
    );
    let found = check_node_strategy(&plugin(vec![two.clone(), four]), &CTX);
    assert_eq!(found.iter().map(|v| v.code).collect::<Vec<_>>(), [Code::EKSGPU191]);
    assert!(found[0].detail.contains("\"a\" and \"b\""), "{}", found[0].detail);
    // One config, one setting, on two pools: fine; the GPU Operator reads its ConfigMap instead.
    let same = node_group(
        "c",
        &["g5.2xlarge"],
        &[(DEVICE_PLUGIN_CONFIG, "ts"), (GPU_REPLICAS, "2")],
    );
    assert_eq!(codes(&plugin(vec![two, same])), NONE);
    let mut operator = plugin(vec![by_hand]);
    operator.device_plugin = None;
    operator.gpu_operator = Some(GpuOperator {
        mig_strategy: "single".into(),
        dcgm_exporter: true,
        service_monitor: false,
    });
    assert_eq!(codes(&operator), NONE);
}
