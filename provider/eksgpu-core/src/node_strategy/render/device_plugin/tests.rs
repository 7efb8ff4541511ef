use serde_json::json;

use super::*;
use crate::fixture;
use crate::model::{DevicePlugin, ManagedNodeGroup, Taint};

fn strategy(pools: Vec<Pool>) -> NodeStrategy {
    NodeStrategy {
        device_plugin: Some(DevicePlugin {
            mig_strategy: "mixed".into(),
        }),
        ..fixture::strategy("gpu", pools)
    }
}

fn labelled(mut p: Pool, labels: &[(&str, &str)]) -> Pool {
    p.labels
        .extend(labels.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
    p
}

fn terms(v: &Value) -> &Vec<Value> {
    v["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
        .as_array()
        .unwrap()
}

#[test]
fn no_block_no_values() {
    let s = fixture::strategy("gpu", vec![fixture::pool("g", Capacity::Karpenter, &["g6e.12xlarge"])]);
    assert_eq!(device_plugin_values(&s), None);
}

#[test]
fn the_plugin_serves_only_pools_no_other_manager_serves() {
    let k = fixture::pool("k", Capacity::Karpenter, &["g6e.12xlarge"]);
    let m = fixture::pool("m", Capacity::ManagedNodeGroup, &["g5.2xlarge"]);
    let h = fixture::pool("h", Capacity::Hybrid, &[]);
    let auto = fixture::pool("auto", Capacity::AutoMode, &["p5.48xlarge"]);
    let dra = Pool {
        dra: true,
        ..fixture::pool("dra", Capacity::ManagedNodeGroup, &["p5.48xlarge"])
    };
    let hami = labelled(
        fixture::pool("hami", Capacity::ManagedNodeGroup, &["g5.2xlarge"]),
        &[("gpu", "on")],
    );
    let bottlerocket = Pool {
        managed_node_group: Some(ManagedNodeGroup {
            ami_type: Some("BOTTLEROCKET_x86_64_NVIDIA".into()),
            ..fixture::managed_node_group()
        }),
        ..fixture::pool("br", Capacity::ManagedNodeGroup, &["g5.2xlarge"])
    };
    let neuron = fixture::pool("trn", Capacity::Karpenter, &["trn2.48xlarge"]);
    let off = labelled(
        fixture::pool("off", Capacity::Karpenter, &["g6e.12xlarge"]),
        &[(DEPLOY_DEVICE_PLUGIN, "false")],
    );
    let nvl = Pool {
        dra: true,
        multi_node_nvlink: true,
        ..fixture::pool("nvl", Capacity::ManagedNodeGroup, &["p6e-gb200.36xlarge"])
    };
    let s = strategy(vec![k, m, h, auto, dra, hami, bottlerocket, neuron, off, nvl]);
    let served: Vec<&str> = served_pools(&s).map(|p| p.name.as_str()).collect();
    assert_eq!(served, ["k", "m", "h", "nvl"]);
    let v = device_plugin_values(&s).unwrap();
    let t = terms(&v);
    assert_eq!(t.len(), 4);
    assert_eq!(
        t[0],
        json!({"matchExpressions": [
            {"key": "karpenter.sh/nodepool", "operator": "In", "values": ["k"]},
            {"key": "nvidia.com/gpu.deploy.device-plugin", "operator": "NotIn", "values": ["false"]},
        ]})
    );
    assert_eq!(t[1]["matchExpressions"][0]["values"], json!(["gpu-m"]));
    assert_eq!(t[2]["matchExpressions"][0]["values"], json!(["hybrid"]));
    // The GB200 pool's GPUs stay the device plugin's; its NVLink cliques need GFD's label.
    assert_eq!(v["gfd"]["enabled"], true);
    assert!(v["nfd"]["worker"]["tolerations"].is_array());
}

#[test]
fn each_sharing_pool_gets_its_named_config_and_whole_gpus_the_default() {
    let ts = labelled(
        fixture::pool("ts", Capacity::ManagedNodeGroup, &["g5.2xlarge"]),
        &[(DEVICE_PLUGIN_CONFIG, "a10g-ts2"), (handover::GPU_REPLICAS, "2")],
    );
    let whole = fixture::pool("whole", Capacity::Karpenter, &["g6e.12xlarge"]);
    let v = device_plugin_values(&strategy(vec![ts, whole])).unwrap();
    let map = v["config"]["map"].as_object().unwrap();
    assert_eq!(map.keys().collect::<Vec<_>>(), ["default", "a10g-ts2"]);
    let ts: Value = serde_saphyr::from_str(map["a10g-ts2"].as_str().unwrap()).unwrap();
    assert_eq!(
        ts["sharing"]["timeSlicing"]["resources"][0],
        json!({"name": "nvidia.com/gpu", "replicas": 2})
    );
    // No pool splits GPUs: MIG devices are not enumerated.
    let default: Value = serde_saphyr::from_str(map["default"].as_str().unwrap()).unwrap();
    assert_eq!(default, json!({"version": "v1", "flags": {"migStrategy": "none"}}));
    // No MPS, no NVLink: GFD (and NFD) stay off.
    assert_eq!(v["gfd"]["enabled"], false);
    assert!(v.get("nfd").is_none());
}

#[test]
fn mig_pools_set_the_default_configs_mig_strategy_and_mps_turns_gfd_on() {
    let mig = labelled(
        fixture::pool("mig", Capacity::ManagedNodeGroup, &["p5.48xlarge"]),
        &[(MIG_CONFIG, "all-1g.10gb")],
    );
    let mps = labelled(
        fixture::pool("mps", Capacity::ManagedNodeGroup, &["g6e.12xlarge"]),
        &[
            (DEVICE_PLUGIN_CONFIG, "l40s-mps"),
            (handover::GPU_REPLICAS, "4"),
            (handover::DEVICE_PLUGIN_SHARING, "mps"),
        ],
    );
    let v = device_plugin_values(&strategy(vec![mig, mps])).unwrap();
    let default: Value = serde_saphyr::from_str(v["config"]["map"]["default"].as_str().unwrap()).unwrap();
    assert_eq!(default["flags"]["migStrategy"], "mixed");
    let mps: Value = serde_saphyr::from_str(v["config"]["map"]["l40s-mps"].as_str().unwrap()).unwrap();
    assert_eq!(mps["sharing"]["mps"]["resources"][0]["replicas"], 4);
    assert_eq!(v["gfd"]["enabled"], true);
}

#[test]
fn every_served_pools_taint_is_tolerated_and_the_charts_defaults_kept() {
    let mut k = fixture::pool("k", Capacity::Karpenter, &["g6e.12xlarge"]);
    k.taints.push(Taint {
        key: "team.example.com/ml".into(),
        value: Some("a".into()),
        effect: "NoExecute".into(),
    });
    let auto = Pool {
        taints: vec![Taint {
            key: "auto-only".into(),
            value: None,
            effect: "NoSchedule".into(),
        }],
        ..fixture::pool("auto", Capacity::AutoMode, &["p5.48xlarge"])
    };
    let v = device_plugin_values(&strategy(vec![k, auto])).unwrap();
    let tols = v["tolerations"].as_array().unwrap();
    assert_eq!(tols[..2], chart_tolerations()[..]);
    assert!(tols.contains(&json!({"key": "team.example.com/ml", "operator": "Exists", "effect": "NoExecute"})));
    // The default GPU taint is the chart's own toleration, once; Auto Mode's taints are not ours.
    assert_eq!(tols.iter().filter(|t| t["key"] == "nvidia.com/gpu").count(), 1);
    assert!(!tols.iter().any(|t| t["key"] == "auto-only"));
}

#[test]
fn with_nothing_to_serve_the_plugin_is_off() {
    let auto = fixture::pool("auto", Capacity::AutoMode, &["p5.48xlarge"]);
    let v = device_plugin_values(&strategy(vec![auto])).unwrap();
    assert_eq!(
        v,
        json!({"devicePlugin": {"enabled": false}, "gfd": {"enabled": false}})
    );
}
