use serde_json::{Value, json};

use super::*;
use crate::fixture;
use crate::model::{DevicePlugin, GpuOperator};
use crate::rules::Code;

/// A DaemonSet as the API returns it.
fn ds(ns: &str, name: &str, containers: Value, extra_spec: Value, meta: Value) -> Value {
    let mut spec = json!({"containers": containers});
    if let (Some(s), Some(e)) = (spec.as_object_mut(), extra_spec.as_object()) {
        s.extend(e.clone());
    }
    let mut metadata = json!({"namespace": ns, "name": name});
    if let (Some(m), Some(e)) = (metadata.as_object_mut(), meta.as_object()) {
        m.extend(e.clone());
    }
    json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": metadata,
           "spec": {"template": {"spec": spec}}})
}

/// eksctl's plugin: `kube-system/nvidia-device-plugin-daemonset`, everywhere `nvidia.com/gpu`
/// is tolerated.
fn eksctl() -> Value {
    ds(
        "kube-system",
        "nvidia-device-plugin-daemonset",
        json!([{"name": "nvidia-device-plugin-ctr", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.1"}]),
        json!({"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}),
        json!({}),
    )
}

fn operator() -> Value {
    ds(
        "gpu-operator",
        "nvidia-device-plugin-daemonset",
        json!([{"name": "nvidia-device-plugin", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.20.0", "command": ["nvidia-device-plugin"]}]),
        json!({"nodeSelector": {"nvidia.com/gpu.deploy.device-plugin": "true"},
               "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}),
        json!({"ownerReferences": [{"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy", "name": "cluster-policy"}]}),
    )
}

fn found(list: &[Value]) -> Vec<FoundManager> {
    list.iter().filter_map(classify).collect()
}

fn codes(s: &NodeStrategy, list: &[Value]) -> Vec<(String, String)> {
    crate::model::rules::check_cluster_managers(s, &found(list))
        .into_iter()
        .inspect(|v| assert_eq!(v.code, Code::EKSGPU192))
        .map(|v| {
            let pool = match &v.path[1] {
                crate::rules::Step::Key(k) => k.clone(),
                other => format!("{other:?}"),
            };
            (pool, v.detail.split(' ').nth(1).unwrap_or_default().to_owned())
        })
        .collect()
}

#[test]
fn daemonsets_are_known_by_what_they_run() {
    let gfd = ds(
        "nvdp",
        "nvdp-gpu-feature-discovery",
        json!([{"name": "gfd", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.20.0", "command": ["gpu-feature-discovery"]}]),
        json!({}),
        json!({}),
    );
    let dra = ds(
        "dra",
        "dra-kubelet-plugin",
        json!([{"name": "compute-domains", "image": "registry.k8s.io/dra-driver-nvidia/dra-driver-nvidia-gpu:v0.4.1"},
               {"name": "gpus", "image": "registry.k8s.io/dra-driver-nvidia/dra-driver-nvidia-gpu:v0.4.1"}]),
        json!({}),
        json!({"labels": {"app.kubernetes.io/managed-by": "Helm"}}),
    );
    let domains_only = ds(
        "dra",
        "cd",
        json!([{"name": "compute-domains", "image": "registry.k8s.io/dra-driver-nvidia/dra-driver-nvidia-gpu:v0.4.1"}]),
        json!({}),
        json!({}),
    );
    let hami = ds(
        "kube-system",
        "hami-device-plugin",
        json!([{"name": "device-plugin", "image": "docker.io/projecthami/hami:v2.10.0"}]),
        json!({}),
        json!({}),
    );
    let neuron = ds(
        "kube-system",
        "neuron-device-plugin",
        json!([{"name": "p", "image": "public.ecr.aws/neuron/neuron-device-plugin@sha256:abc"}]),
        json!({}),
        json!({}),
    );
    let dns = ds(
        "kube-system",
        "kube-proxy",
        json!([{"name": "p", "image": "kube-proxy:v1"}]),
        json!({}),
        json!({}),
    );
    let f = found(&[eksctl(), operator(), gfd, dra, domains_only, hami, neuron, dns]);
    let got: Vec<(&str, Manages, InstalledBy)> =
        f.iter().map(|m| (m.name.as_str(), m.manages, m.installed_by)).collect();
    assert_eq!(
        got,
        [
            (
                "nvidia-device-plugin-daemonset",
                Manages::NvidiaDevicePlugin,
                InstalledBy::Other
            ),
            (
                "nvidia-device-plugin-daemonset",
                Manages::NvidiaDevicePlugin,
                InstalledBy::GpuOperator
            ),
            ("dra-kubelet-plugin", Manages::NvidiaDraGpus, InstalledBy::Helm),
            ("hami-device-plugin", Manages::Hami, InstalledBy::Other),
            ("neuron-device-plugin", Manages::NeuronDevicePlugin, InstalledBy::Other),
        ]
    );
}

#[test]
fn eksctls_plugin_beside_the_operators_warns_on_pools_it_reaches() {
    let k = fixture::valid_pool("k", Capacity::Karpenter, &["g6e.12xlarge"]);
    let auto = fixture::pool("auto", Capacity::AutoMode, &["p5.48xlarge"]);
    let mut tainted = fixture::valid_pool("t", Capacity::Karpenter, &["g6e.12xlarge"]);
    tainted.taints.push(Taint {
        key: "team".into(),
        value: Some("a".into()),
        effect: "NoExecute".into(),
    });
    let neuron = fixture::valid_pool("n", Capacity::Karpenter, &["trn2.48xlarge"]);
    let mut s = fixture::strategy("gpu", vec![k, auto, tainted, neuron]);
    s.gpu_operator = Some(GpuOperator {
        mig_strategy: "single".into(),
        dcgm_exporter: true,
        service_monitor: false,
    });
    // The operator's own plugin is expected on k and t (t's taint keeps it off there); on Auto
    // Mode its label says "false". eksctl's reaches k and Auto Mode (t's NoExecute taint is not
    // tolerated), never the Neuron pool.
    assert_eq!(
        codes(&s, &[operator(), eksctl()]),
        [
            ("k".to_owned(), "kube-system/nvidia-device-plugin-daemonset".to_owned()),
            (
                "auto".to_owned(),
                "kube-system/nvidia-device-plugin-daemonset".to_owned()
            ),
        ]
    );
    // Alone, the operator's plugin is where it belongs: nothing.
    assert_eq!(codes(&s, &[operator()]), []);
}

#[test]
fn under_the_standalone_plugin_the_operators_or_a_second_release_warns() {
    let k = fixture::valid_pool("k", Capacity::Karpenter, &["g6e.12xlarge"]);
    let mut s = fixture::strategy("gpu", vec![k]);
    s.device_plugin = Some(DevicePlugin {
        mig_strategy: "single".into(),
    });
    let values = crate::render::device_plugin_values(&s).unwrap();
    let release = |name: &str, spec: Value| {
        ds(
            "nvdp",
            name,
            json!([{"name": "nvidia-device-plugin-ctr", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.20.0", "command": ["nvidia-device-plugin"]}]),
            spec,
            json!({"labels": {"app.kubernetes.io/managed-by": "Helm"}}),
        )
    };
    let ours = release(
        "nvdp-nvidia-device-plugin",
        json!({"affinity": values["affinity"], "tolerations": values["tolerations"]}),
    );
    assert_eq!(codes(&s, std::slice::from_ref(&ours)), []);
    // The operator's plugin finds no "false" on the pool: it can land there too.
    assert_eq!(codes(&s, &[ours.clone(), operator()]).len(), 1);
    // A second release of the chart, with the chart's default affinity (NFD's labels, unknown to
    // the strategy, may be there).
    let default_affinity = json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "feature.node.kubernetes.io/pci-10de.present", "operator": "In", "values": ["true"]}]}]}}});
    let second = release(
        "other-nvidia-device-plugin",
        json!({"affinity": default_affinity, "tolerations": values["tolerations"]}),
    );
    let found = crate::model::rules::check_cluster_managers(&s, &super::tests::found(&[ours, second]));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].detail.contains("nvdp/other-nvidia-device-plugin"),
        "{}",
        found[0].detail
    );
    assert!(
        found[0]
            .detail
            .contains("beside NVIDIA's device plugin nvdp/nvdp-nvidia-device-plugin"),
        "{}",
        found[0].detail
    );
}

#[test]
fn the_nodes_are_what_the_strategy_renders() {
    let auto = fixture::pool("auto", Capacity::AutoMode, &["p5.48xlarge"]);
    let mng = fixture::valid_pool("m", Capacity::ManagedNodeGroup, &["p6e-gb200.36xlarge"]);
    let s = fixture::strategy("gpu", vec![auto.clone(), mng.clone()]);
    let a = node_view(&s, &auto);
    let m = node_view(&s, &mng);
    let off_auto = json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "eks.amazonaws.com/compute-type", "operator": "NotIn", "values": ["auto", "hybrid", "fargate"]}]}]}}},
        "tolerations": [{"operator": "Exists"}]});
    assert!(!can_land(&off_auto, &a));
    assert!(can_land(&off_auto, &m));
    assert_eq!(m.labels["kubernetes.io/arch"], Known::OneOf(vec!["arm64".into()]));
    let amd = json!({"nodeSelector": {"kubernetes.io/arch": "amd64"}, "tolerations": [{"operator": "Exists"}]});
    assert!(!can_land(&amd, &m));
    // No toleration for the default GPU taint: nowhere.
    assert!(!can_land(&json!({}), &m));
}
