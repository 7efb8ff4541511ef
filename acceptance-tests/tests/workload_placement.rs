//! `eksgpu_workload_placement` through the real Terraform CLI against the kube emulator: a
//! vLLM-style Deployment placed with the data source on a whole-GPU pool and a Neuron pool of an
//! applied strategy, on a MIG share and a DRA claim (pool objects given as literals, as a module
//! without the strategy in its state passes them), known at plan; the rendered Deployments are
//! accepted by the emulator, which judges built-in kinds by Kubernetes' own types (k8s-openapi;
//! the real API server lane serves no built-in kinds: there the test says SKIPPED); and the rules
//! EKSGPU193-197 on the CLI.

use eksgpu_acceptance_tests::hcl::Provider;
use eksgpu_acceptance_tests::kube::{DEPLOYMENT, KubeTarget, NAMESPACE, upstream_kubeconfig};
use eksgpu_acceptance_tests::{Workdir, skip, terraform_versions};
use serde_json::{Value, json};

const STRATEGY: &str = r#"
resource "eksgpu_node_strategy" "s" {
  cluster_name = "gpu"
  name         = "inference"
  gpu_operator {}
  pools = {
    l40s = {
      capacity       = "karpenter"
      instance_types = ["g6e.12xlarge"]
      taints         = [{ key = "nvidia.com/gpu", effect = "NoSchedule" }]
      node_class     = { role = "KarpenterNodeRole-gpu", root_volume = { size = "200Gi" } }
    }
    trn2 = {
      capacity       = "karpenter"
      instance_types = ["trn2.48xlarge"]
      taints         = [{ key = "aws.amazon.com/neuron", effect = "NoSchedule" }]
      node_class     = { role = "KarpenterNodeRole-gpu", root_volume = { size = "200Gi" } }
    }
  }
}
"#;

/// A placement of `name` with `body` (its other arguments), and its outputs.
fn placement(name: &str, body: &str) -> String {
    format!(
        r#"
data "eksgpu_workload_placement" "{name}" {{
  name      = "{name}"
  namespace = "inference"
{body}
}}

output "{name}" {{
  value = {{
    resources      = data.eksgpu_workload_placement.{name}.resources
    container      = data.eksgpu_workload_placement.{name}.container_resources_yaml
    pod_spec       = data.eksgpu_workload_placement.{name}.pod_spec_yaml
    annotations    = data.eksgpu_workload_placement.{name}.pod_annotations
    pdb            = data.eksgpu_workload_placement.{name}.pod_disruption_budget_yaml
  }}
}}
"#
    )
}

const MIG_POOL: &str = r#"  pool = {
    capacity               = "managed_node_group"
    matched_instance_types = ["p5.48xlarge"]
    labels                 = { "nvidia.com/mig.config" = "all-1g.10gb" }
    node_selector          = { "eks.amazonaws.com/nodegroup" = "gpu-mig" }
    tolerations            = [{ key = "nvidia.com/gpu", operator = "Exists", value = null, effect = "NoSchedule" }]
    gpu_resource_name      = "nvidia.com/mig-1g.10gb"
  }
  sharing_pool = {
    name              = "mig-small"
    strategy          = "mig"
    node_labels       = { "nvidia.com/mig.config" = "all-1g.10gb" }
    resource_requests = { "nvidia.com/mig-1g.10gb" = "1" }
    mig               = [{ profiles = null, config = "all-1g.10gb" }]
  }"#;

const DRA_POOL: &str = r#"  pool = {
    capacity               = "managed_node_group"
    matched_instance_types = ["p5.48xlarge"]
    dra                    = true
    labels                 = { "nvidia.com/gpu.deploy.device-plugin" = "false" }
    node_selector          = { "eks.amazonaws.com/nodegroup" = "gpu-dra" }
    tolerations            = [{ key = "nvidia.com/gpu", operator = "Exists", value = null, effect = "NoSchedule" }]
  }
  sharing_pool = {
    name                = "h100"
    strategy            = "dra"
    node_labels         = { "nvidia.com/gpu.deploy.device-plugin" = "false" }
    resource_requests   = {}
    resource_claim_name = "h100"
    dra                 = [{ namespace = "inference", count = 2 }]
  }"#;

fn config(provider: &str, extra: &str) -> String {
    format!(
        "{provider}{STRATEGY}{}{}{}{}{extra}",
        placement(
            "whole",
            "  pool = eksgpu_node_strategy.s.pools[\"l40s\"]\n  replicas = 2\n  accelerators_per_replica = 4\n  load_balanced = true"
        ),
        placement(
            "neuron",
            "  pool = eksgpu_node_strategy.s.pools[\"trn2\"]\n  replicas = 2\n  accelerators_per_replica = 0\n  neuron_cores_per_replica = 8"
        ),
        placement(
            "mig",
            &format!("{MIG_POOL}\n  replicas = 3\n  accelerators_per_replica = 1")
        ),
        placement(
            "dra",
            &format!("{DRA_POOL}\n  replicas = 2\n  accelerators_per_replica = 0")
        ),
    )
}

fn yaml(v: &Value) -> Value {
    eksgpu_core::stack::parse_values(v.as_str().unwrap_or_default())
        .unwrap_or_else(|| panic!("not a YAML mapping: {v}"))
}

/// A vLLM-style Deployment from a placement's outputs.
fn deployment(name: &str, out: &Value) -> Value {
    let mut spec = yaml(&out["pod_spec"]);
    spec["containers"] = json!([{"name": "vllm", "image": "vllm/vllm-openai:v0.11.0",
        "args": ["--model", "Qwen/Qwen2.5-7B-Instruct"], "resources": yaml(&out["container"])}]);
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": "inference"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app.kubernetes.io/name": name}},
            "template": {"metadata": {"labels": {"app.kubernetes.io/name": name}, "annotations": out["annotations"]},
                "spec": spec}}})
}

#[test]
fn placements_are_known_at_plan_and_their_deployments_are_accepted() {
    for tf in terraform_versions() {
        if upstream_kubeconfig().is_some() {
            return skip(
                "the real API server lane serves no built-in kinds (apps/v1 Deployment); the emulator lane judges them",
            );
        }
        let kube = KubeTarget::start();
        if !kube.is_emulator() {
            return skip("needs the emulator (it judges Deployments by Kubernetes' own types)");
        }
        kube.create(
            NAMESPACE,
            None,
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "inference"}}),
            "kubectl",
        );
        let w = Workdir::new(&tf, &config(&Provider::new().kube(&kube).header(), ""));
        w.init();
        // Placements of literal pool objects are read at plan; those of the strategy's pools
        // too once it exists (Terraform defers a data source whose dependency has changes).
        let plan = w.ok(&["plan", "-no-color"]).combined();
        assert!(!plan.contains("Warning"), "{}: {plan}", tf.label);
        assert!(
            plan.contains("data.eksgpu_workload_placement.mig: Read complete")
                && plan.contains("data.eksgpu_workload_placement.dra: Read complete"),
            "{}: known at plan:\n{plan}",
            tf.label
        );
        w.apply();
        w.assert_empty_plan();
        let plan = w.ok(&["plan", "-no-color"]).combined();
        assert!(
            plan.contains("data.eksgpu_workload_placement.whole: Read complete"),
            "{plan}"
        );
        let out = w.outputs();
        let whole = &out["whole"]["value"];
        assert_eq!(
            whole["resources"]["limits"],
            json!({"nvidia.com/gpu": "4"}),
            "{}",
            tf.label
        );
        assert!(
            whole["pdb"].as_str().unwrap_or_default().contains("minAvailable: 1"),
            "{whole}"
        );
        assert_eq!(
            out["mig"]["value"]["resources"]["limits"],
            json!({"nvidia.com/mig-1g.10gb": "1"})
        );
        let dra = yaml(&out["dra"]["value"]["pod_spec"]);
        assert_eq!(
            dra["resourceClaims"],
            json!([{"name": "gpu", "resourceClaimName": "h100"}])
        );
        for name in ["whole", "neuron", "mig", "dra"] {
            let d = deployment(name, &out[name]["value"]);
            kube.create(DEPLOYMENT, Some("inference"), d.clone(), "helm");
            let got = kube.get_in(DEPLOYMENT, Some("inference"), name).expect("accepted");
            assert_eq!(
                got["spec"]["template"]["spec"]["nodeSelector"],
                d["spec"]["template"]["spec"]["nodeSelector"]
            );
        }
        // A field the API lacks is refused: the emulator judges, it does not take anything.
        let mut bad = deployment("bad", &out["whole"]["value"]);
        bad["spec"]["template"]["spec"]["containers"][0]["limits"] = json!({"nvidia.com/gpu": "1"});
        let refused = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            kube.create(DEPLOYMENT, Some("inference"), bad, "helm");
        }));
        assert!(refused.is_err(), "{}: an unknown field was accepted", tf.label);
    }
}

/// The rules on the CLI: each refusal names its attribute; the warning is answered.
#[test]
fn the_placement_rules_refuse_and_warn() {
    let header = Provider::new().offline().header();
    let nvidia = "  pool = { capacity = \"karpenter\", instance_types = [\"g6e.12xlarge\"], gpu_resource_name = \"nvidia.com/gpu\", accelerator = \"nvidia\" }\n";
    let neuron = "  pool = { capacity = \"karpenter\", instance_types = [\"trn2.48xlarge\"], accelerator = \"neuron\", gpu_resource_name = \"aws.amazon.com/neuron\" }\n";
    let cases: &[(&str, String, &str)] = &[
        (
            "EKSGPU193",
            format!("{nvidia}  replicas = 2\n  accelerators_per_replica = 5"),
            "accelerators_per_replica",
        ),
        (
            "EKSGPU194",
            format!(
                "{}\n  replicas = 2\n  accelerators_per_replica = 1",
                MIG_POOL.replace(
                    "{ \"nvidia.com/mig.config\" = \"all-1g.10gb\" }\n    node_selector",
                    "{}\n    node_selector"
                )
            ),
            "sharing_pool",
        ),
        (
            "EKSGPU195",
            format!(
                "{}\n  replicas = 2\n  accelerators_per_replica = 0",
                DRA_POOL.replace("namespace = \"inference\"", "namespace = \"other\"")
            ),
            "namespace",
        ),
        (
            "EKSGPU196",
            format!("{nvidia}  replicas = 1\n  accelerators_per_replica = 1"),
            "replicas",
        ),
        (
            "EKSGPU197",
            format!("{nvidia}  replicas = 2\n  accelerators_per_replica = 0\n  neuron_cores_per_replica = 2"),
            "neuron_cores_per_replica",
        ),
        (
            "EKSGPU193",
            format!("{neuron}  replicas = 2\n  accelerators_per_replica = 17"),
            "accelerators_per_replica",
        ),
    ];
    for tf in terraform_versions() {
        for (code, body, attr) in cases {
            let main_tf = format!(
                "{header}data \"eksgpu_workload_placement\" \"p\" {{\n  name = \"vllm\"\n  namespace = \"inference\"\n{body}\n}}\n"
            );
            let w = Workdir::new(&tf, &main_tf);
            w.init();
            let r = w.run(&["plan", "-no-color"]);
            let out = r.combined();
            assert!(out.contains(code), "{}: {code} not in\n{out}", tf.label);
            assert!(out.contains("data \"eksgpu_workload_placement\" \"p\""), "{out}");
            assert!(out.contains(attr), "{}: {code} names no {attr}:\n{out}", tf.label);
            let is_error = *code != "EKSGPU196";
            assert_eq!(r.code != 0, is_error, "{}: {code}:\n{out}", tf.label);
            if !is_error {
                let answered = main_tf.replace(
                    "  replicas = 1",
                    "  replicas = 1\n  acknowledged_warnings = [\"EKSGPU196\"]",
                );
                w.write("main.tf", &answered);
                let out = w.ok(&["plan", "-no-color"]).combined();
                assert!(!out.contains("Warning"), "{}: {out}", tf.label);
                assert!(
                    out.contains("karpenter.sh/do-not-disrupt") || !out.contains("Error"),
                    "{out}"
                );
            }
        }
    }
}
