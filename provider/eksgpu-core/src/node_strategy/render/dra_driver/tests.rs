use serde_json::json;

use super::*;
use crate::fixture;
use crate::model::Taint;

fn strategy(pools: Vec<Pool>) -> NodeStrategy {
    fixture::strategy("gpu", pools)
}

fn dra(name: &str, capacity: Capacity, types: &[&str]) -> Pool {
    Pool {
        dra: true,
        ..fixture::valid_pool(name, capacity, types)
    }
}

fn nvl72(name: &str) -> Pool {
    Pool {
        multi_node_nvlink: true,
        ..dra(name, Capacity::ManagedNodeGroup, &["p6e-gb200.36xlarge"])
    }
}

#[test]
fn no_nvidia_dra_pool_no_values() {
    let plain = fixture::valid_pool("g", Capacity::Karpenter, &["p5.48xlarge"]);
    let neuron = dra("n", Capacity::ManagedNodeGroup, &["trn2.48xlarge"]);
    let auto = dra("a", Capacity::AutoMode, &["p5.48xlarge"]);
    assert_eq!(dra_driver_values(&strategy(vec![plain, neuron, auto])), None);
}

#[test]
fn gpu_pools_get_gpu_resources_with_the_override_as_eks_installs_it() {
    let v = dra_driver_values(&strategy(vec![dra("d", Capacity::ManagedNodeGroup, &["p5.48xlarge"])])).unwrap();
    assert_eq!(
        v["resources"],
        json!({"gpus": {"enabled": true}, "computeDomains": {"enabled": false}})
    );
    assert_eq!(v["gpuResourcesEnabledOverride"], true);
    assert_eq!(v["featureGates"], json!({}));
}

#[test]
fn gb200_pools_alone_get_compute_domains_only() {
    let v = dra_driver_values(&strategy(vec![nvl72("nvl")])).unwrap();
    assert_eq!(
        v["resources"],
        json!({"gpus": {"enabled": false}, "computeDomains": {"enabled": true}})
    );
    assert_eq!(v["gpuResourcesEnabledOverride"], false);
}

#[test]
fn both_kinds_of_pool_get_both_resources() {
    let s = strategy(vec![nvl72("nvl"), dra("d", Capacity::Karpenter, &["p5.48xlarge"])]);
    let v = dra_driver_values(&s).unwrap();
    assert_eq!(
        v["resources"],
        json!({"gpus": {"enabled": true}, "computeDomains": {"enabled": true}})
    );
}

#[test]
fn sharing_pools_handover_turns_on_their_feature_gates() {
    let mut ts = dra("ts", Capacity::ManagedNodeGroup, &["p5.48xlarge"]);
    ts.labels.insert(DRA_SHARING.into(), "time_slicing".into());
    let mut mps = dra("mps", Capacity::Karpenter, &["g6e.12xlarge"]);
    mps.labels.insert(DRA_SHARING.into(), "mps".into());
    let mut excl = dra("x", Capacity::Karpenter, &["g6e.12xlarge"]);
    excl.labels.insert(DRA_SHARING.into(), "exclusive".into());
    let v = dra_driver_values(&strategy(vec![ts, excl.clone()])).unwrap();
    assert_eq!(v["featureGates"], json!({"TimeSlicingSettings": true}));
    let v = dra_driver_values(&strategy(vec![mps, excl])).unwrap();
    assert_eq!(v["featureGates"], json!({"MPSSupport": true}));
}

#[test]
fn the_kubelet_plugin_lands_on_the_dra_pools_nodes_and_tolerates_their_taints() {
    let mut k = dra("k", Capacity::Karpenter, &["p5.48xlarge"]);
    k.taints.push(Taint {
        key: "team.example.com/ml".into(),
        value: Some("x".into()),
        effect: "NoExecute".into(),
    });
    let plain = fixture::valid_pool("plain", Capacity::Karpenter, &["p5.48xlarge"]);
    let v = dra_driver_values(&strategy(vec![k, nvl72("nvl"), plain])).unwrap();
    let tols = v["kubeletPlugin"]["tolerations"].as_array().unwrap();
    // The chart's default (also the pools' default taint key), once, and the custom taint.
    assert_eq!(tols.iter().filter(|t| t["key"] == "nvidia.com/gpu").count(), 1);
    assert!(tols.contains(&json!({"key": "team.example.com/ml", "operator": "Exists", "effect": "NoExecute"})));
    let terms = &v["kubeletPlugin"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
    assert_eq!(
        terms,
        &json!([
            {"matchExpressions": [{"key": "karpenter.sh/nodepool", "operator": "In", "values": ["k"]}]},
            {"matchExpressions": [{"key": "eks.amazonaws.com/nodegroup", "operator": "In", "values": ["gpu-nvl"]}]},
        ])
    );
}

#[test]
fn the_driver_root_is_the_operators_where_it_installs_the_driver_and_the_hosts_elsewhere() {
    use crate::model::GpuOperator;
    let operator = |pools| NodeStrategy {
        gpu_operator: Some(GpuOperator {
            mig_strategy: "single".into(),
            dcgm_exporter: true,
            service_monitor: false,
        }),
        ..strategy(pools)
    };
    let onprem = dra("onprem", Capacity::Hybrid, &[]);
    let cloud = dra("cloud", Capacity::ManagedNodeGroup, &["p5.48xlarge"]);
    let root = |s: &NodeStrategy| dra_driver_values(s).unwrap()["nvidiaDriverRoot"].clone();
    // The GPU Operator installs the hybrid nodes' driver in its driver container's root.
    assert_eq!(root(&operator(vec![onprem.clone()])), "/run/nvidia/driver");
    // EKS NVIDIA AMIs have it on the host, also beside a hybrid pool the driver does not serve.
    let plain_hybrid = Pool {
        dra: false,
        ..onprem.clone()
    };
    assert_eq!(root(&operator(vec![plain_hybrid, cloud.clone()])), "/");
    assert_eq!(root(&strategy(vec![cloud])), "/");
    // Hybrid hosts with their own driver: without the operator, or with its driver switched off.
    assert_eq!(root(&strategy(vec![onprem.clone()])), "/");
    let mut own = onprem;
    own.labels.insert(super::DEPLOY_DRIVER.into(), "false".into());
    assert_eq!(root(&operator(vec![own])), "/");
}
