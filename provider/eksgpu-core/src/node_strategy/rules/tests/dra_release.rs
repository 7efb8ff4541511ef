//! What one DRA driver release serves: the GPU kubelet plugin never beside the device plugin on
//! GB200 nodes (EKSGPU145), one driver root (EKSGPU146).

use crate::fixture;
use crate::model::GpuOperator;
use crate::node_strategy::rules::*;
use crate::render::DEPLOY_DRIVER;
use crate::rules::Code;

const CTX: Context = Context {
    karpenter_version: (1, 15),
};

fn found(s: &NodeStrategy, code: Code) -> Vec<String> {
    check_node_strategy(s, &CTX)
        .into_iter()
        .filter(|v| v.code == code)
        .map(|v| format!("{:?}", v.path))
        .collect()
}

fn dra(name: &str, capacity: Capacity, types: &[&str]) -> Pool {
    Pool {
        dra: true,
        replicas: (capacity == Capacity::Karpenter).then_some(1),
        ..fixture::valid_pool(name, capacity, types)
    }
}

fn nvl72() -> Pool {
    Pool {
        multi_node_nvlink: true,
        capacity_types: vec!["capacity-block".into()],
        ..dra("nvl72", Capacity::ManagedNodeGroup, &["p6e-gb200.36xlarge"])
    }
}

#[test]
fn eksgpu145_the_gpu_plugin_of_one_release_would_reach_the_gb200_nodes() {
    let h100 = dra("h100", Capacity::ManagedNodeGroup, &["p5.48xlarge"]);
    let s = fixture::strategy("gpu", vec![nvl72(), h100.clone()]);
    let hits = found(&s, Code::EKSGPU145);
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert!(hits[0].contains("h100") && hits[0].contains("dra"), "{hits:?}");
    // GB200 with ordinary device-plugin pools: the release serves ComputeDomains only.
    let plain = fixture::valid_pool("plain", Capacity::ManagedNodeGroup, &["p5.48xlarge"]);
    assert!(found(&fixture::strategy("gpu", vec![nvl72(), plain]), Code::EKSGPU145).is_empty());
    // DRA GPUs without GB200, and an Auto Mode DRA pool (Auto Mode's own driver) beside GB200.
    assert!(found(&fixture::strategy("gpu", vec![h100]), Code::EKSGPU145).is_empty());
    let auto = Pool {
        dra: true,
        ..fixture::valid_pool("auto", Capacity::AutoMode, &["p5.48xlarge"])
    };
    assert!(found(&fixture::strategy("gpu", vec![nvl72(), auto]), Code::EKSGPU145).is_empty());
}

fn with_operator(pools: Vec<Pool>) -> NodeStrategy {
    NodeStrategy {
        gpu_operator: Some(GpuOperator {
            mig_strategy: "single".into(),
            dcgm_exporter: true,
            service_monitor: false,
        }),
        ..fixture::strategy("gpu", pools)
    }
}

#[test]
fn eksgpu146_one_release_reads_the_driver_at_one_root() {
    let onprem = dra("onprem", Capacity::Hybrid, &[]);
    let cloud = dra("cloud", Capacity::ManagedNodeGroup, &["p5.48xlarge"]);
    // The operator installs the hybrid pool's driver; the cloud pool's AMI has its own.
    let hits = found(&with_operator(vec![onprem.clone(), cloud.clone()]), Code::EKSGPU146);
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert!(hits[0].contains("onprem"), "{hits:?}");
    // Only hybrid DRA pools, or a cloud DRA pool beside a hybrid pool without DRA: one root.
    assert!(found(&with_operator(vec![onprem.clone()]), Code::EKSGPU146).is_empty());
    let plain_hybrid = Pool {
        dra: false,
        ..onprem.clone()
    };
    assert!(found(&with_operator(vec![plain_hybrid, cloud.clone()]), Code::EKSGPU146).is_empty());
    // The hybrid hosts' own driver (the operator's switched off by label), or no operator at all.
    let mut own = onprem.clone();
    own.labels.insert(DEPLOY_DRIVER.into(), "false".into());
    assert!(found(&with_operator(vec![own, cloud.clone()]), Code::EKSGPU146).is_empty());
    assert!(found(&fixture::strategy("gpu", vec![onprem, cloud]), Code::EKSGPU146).is_empty());
}
