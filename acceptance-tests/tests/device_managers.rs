//! A second device manager on a pool's nodes (EKSGPU192), through the real Terraform CLI against
//! moto (DescribeCluster) and the kube emulator (the cluster's DaemonSets): the plan reads the
//! DaemonSets that manage accelerators and warns, naming the DaemonSet and the fix, where one can
//! land on a pool's nodes beside the manager the strategy configures; `acknowledged_warnings`
//! answers it; `eksgpu_cluster` reports what it found; a cluster whose DaemonSets cannot be listed
//! (RBAC) gives neither a warning nor an error.
//!
//! DaemonSets are a built-in kind: the real API server lane's server (apiextensions-apiserver)
//! serves none, so there these tests say SKIPPED; the emulator judges each DaemonSet by
//! Kubernetes' own type (k8s-openapi).

use eksgpu_acceptance_tests::hcl::provider_header;
use eksgpu_acceptance_tests::kube::{DAEMON_SET, EmulatorOptions, KubeTarget, NAMESPACE, upstream_kubeconfig};
use eksgpu_acceptance_tests::{Moto, Workdir, skip, terraform_versions};
use serde_json::{Value, json};

/// Why this lane cannot run these tests, if it cannot.
fn cannot_run() -> Option<String> {
    if std::env::var_os("EKSGPU_TEST_KUBECONFIG").is_some_and(|v| !v.is_empty()) {
        return Some("needs the emulator behind moto's DescribeCluster, not EKSGPU_TEST_KUBECONFIG".into());
    }
    if upstream_kubeconfig().is_some() {
        return Some(
            "the real API server lane serves no built-in kinds (apps/v1 DaemonSet); the emulator lane runs this".into(),
        );
    }
    None
}

/// A cluster "gpu" in moto, served by the emulator (EKS IAM tokens accepted).
fn cluster() -> (KubeTarget, Moto) {
    let kube = KubeTarget::start_with(&EmulatorOptions {
        eks_cluster: Some("gpu".into()),
        without: Vec::new(),
    });
    let moto = Moto::start();
    moto.create_cluster("gpu", "1.34", &kube.url, kube.ca_pem.as_deref().unwrap_or_default());
    for ns in ["kube-system", "gpu-operator"] {
        kube.create(
            NAMESPACE,
            None,
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}),
            "kubectl",
        );
    }
    (kube, moto)
}

/// A DaemonSet as its installer writes it.
fn daemon_set(ns: &str, name: &str, container: Value, pod: Value, meta: Value) -> Value {
    let mut spec = json!({"containers": [container]});
    if let (Some(s), Some(p)) = (spec.as_object_mut(), pod.as_object()) {
        s.extend(p.clone());
    }
    let mut metadata = json!({"namespace": ns, "name": name});
    if let (Some(m), Some(e)) = (metadata.as_object_mut(), meta.as_object()) {
        m.extend(e.clone());
    }
    json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": metadata, "spec": {
        "selector": {"matchLabels": {"name": name}},
        "template": {"metadata": {"labels": {"name": name}}, "spec": spec}}})
}

/// eksctl's plugin (eksctl GPU support: `nvidia-device-plugin-daemonset` in `kube-system`,
/// tolerating `nvidia.com/gpu`), as `kubectl apply` of NVIDIA's static manifest leaves it.
fn eksctls() -> Value {
    daemon_set(
        "kube-system",
        "nvidia-device-plugin-daemonset",
        json!({"name": "nvidia-device-plugin-ctr", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.1"}),
        json!({"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}),
        json!({}),
    )
}

/// The GPU Operator's plugin: owned by its ClusterPolicy, on nodes labelled for it.
fn operators() -> Value {
    daemon_set(
        "gpu-operator",
        "nvidia-device-plugin-daemonset",
        json!({"name": "nvidia-device-plugin", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.20.0", "command": ["nvidia-device-plugin"]}),
        json!({"nodeSelector": {"nvidia.com/gpu.deploy.device-plugin": "true"},
               "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}),
        json!({"ownerReferences": [{"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy", "name": "cluster-policy",
               "uid": "5f0d6a0e-3c3f-4c57-9d0e-1b2a3c4d5e6f"}]}),
    )
}

fn config(acknowledged: &str) -> String {
    format!(
        r#"{}data "eksgpu_cluster" "gpu" {{
  name = "gpu"
}}

resource "eksgpu_node_strategy" "s" {{
  cluster_name          = "gpu"
  name                  = "inference"
  acknowledged_warnings = [{acknowledged}]
  gpu_operator {{}}
  pools = {{
    l40s = {{
      capacity       = "karpenter"
      instance_types = ["g6e.12xlarge"]
      taints         = [{{ key = "nvidia.com/gpu", effect = "NoSchedule" }}]
      node_class     = {{ role = "KarpenterNodeRole-gpu", root_volume = {{ size = "200Gi" }} }}
    }}
  }}
}}

output "managers" {{
  value = data.eksgpu_cluster.gpu.device_managers
}}
"#,
        provider_header()
    )
}

fn workdir(tf: &eksgpu_acceptance_tests::TerraformVersion, main_tf: &str, moto: &Moto) -> Workdir {
    let mut w = Workdir::new(tf, main_tf);
    w.env("AWS_ENDPOINT_URL", &moto.url());
    w.init();
    w
}

/// The plan's output (the `managers` output it shows, the warnings), its whitespace made single
/// spaces (Terraform wraps a diagnostic's detail and aligns attributes).
fn plan(w: &Workdir) -> String {
    w.ok(&["plan", "-no-color"])
        .combined()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn a_second_device_plugin_beside_the_operators_warns_at_plan_and_the_cluster_reports_it() {
    for tf in terraform_versions() {
        if let Some(why) = cannot_run() {
            return skip(&why);
        }
        let (kube, moto) = cluster();
        kube.create(DAEMON_SET, Some("gpu-operator"), operators(), "helm");
        kube.create(DAEMON_SET, Some("kube-system"), eksctls(), "kubectl-client-side-apply");

        let w = workdir(&tf, &config(""), &moto);
        let out = plan(&w);
        assert_eq!(
            out.matches("can land on pool").count(),
            1,
            "{}: one finding, eksctl's plugin:\n{out}",
            tf.label
        );
        assert!(out.contains("EKSGPU192"), "{}: {out}", tf.label);
        for want in [
            "DaemonSet kube-system/nvidia-device-plugin-daemonset",
            "pool \"l40s\"",
            "kubectl -n kube-system delete daemonset nvidia-device-plugin-daemonset",
            "--install-nvidia-plugin=false",
        ] {
            assert!(out.contains(want), "{}: {want:?} not in\n{out}", tf.label);
        }
        // What the data source found, both plugins, by what they run and who installed them.
        for want in [
            r#"installed_by = "gpu_operator""#,
            r#"installed_by = "other""#,
            r#"manages = "nvidia_device_plugin""#,
            r#"namespace = "kube-system""#,
        ] {
            assert!(out.contains(want), "{}: {want:?} not in\n{out}", tf.label);
        }

        // Acknowledged: meant to be there.
        w.write("main.tf", &config("\"EKSGPU192\""));
        let out = plan(&w);
        assert!(!out.contains("Warning: EKSGPU192"), "{}: {out}", tf.label);

        // eksctl's plugin deleted: the operator's alone is where it belongs.
        kube.delete(DAEMON_SET, Some("kube-system"), "nvidia-device-plugin-daemonset");
        w.write("main.tf", &config(""));
        let out = plan(&w);
        assert!(!out.contains("Warning"), "{}: {out}", tf.label);
    }
}

#[test]
fn daemon_sets_the_provider_may_not_list_give_no_warning_and_no_error() {
    for tf in terraform_versions() {
        if let Some(why) = cannot_run() {
            return skip(&why);
        }
        let (kube, moto) = cluster();
        kube.create(DAEMON_SET, Some("kube-system"), eksctls(), "kubectl-client-side-apply");
        // RBAC without `list` on apps/v1 daemonsets, for every call of the plan.
        kube.fault(&json!({"method": "GET", "path": "^/apis/apps/v1/daemonsets", "status": 403, "count": 100}));
        let w = workdir(&tf, &config(""), &moto);
        let (code, r) = w.plan_code(&[]);
        let out = r.combined();
        assert_eq!(code, 2, "{}: the plan goes on:\n{out}", tf.label);
        assert!(
            !out.contains("Warning") && !out.contains("Error"),
            "{}: {out}",
            tf.label
        );
        // The data source's `device_managers` is null: nothing was read.
        assert!(!out.contains("installed_by"), "{}: {out}", tf.label);
        assert!(
            kube.requests().iter().any(|r| r["path"] == "/apis/apps/v1/daemonsets"),
            "{}: the plan tried the list",
            tf.label
        );
    }
}
