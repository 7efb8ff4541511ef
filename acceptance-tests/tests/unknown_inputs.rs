//! Rules judge only what is known (issue 33, class 1), through the real CLI: an input unknown at
//! plan (a `terraform_data` output, known only after apply) holds back the findings that depend on
//! it and no other, and a provider setting unknown at plan leaves the outputs it feeds unknown.

use eksgpu_acceptance_tests::hcl::Provider;
use eksgpu_acceptance_tests::kube::KubeTarget;
use eksgpu_acceptance_tests::{Workdir, terraform_versions};
use serde_json::Value;

const ROLE: &str = "arn:aws:iam::123456789012:role/gpu-nodes";

/// `terraform_data.u.output` is `input`, unknown until apply.
fn strategy(provider: &Provider, input: &str, pools: &str) -> String {
    format!(
        r#"{}
resource "terraform_data" "u" {{
  input = {input}
}}
resource "eksgpu_node_strategy" "s" {{
  cluster_name       = "gpu"
  name               = "unknowns"
  kubernetes_version = "1.34"
  pools = {{
  {pools}
  }}
}}
"#,
        provider.header()
    )
}

fn node_group(name: &str, types: &str, extra: &str) -> String {
    format!(
        r#"{name} = {{
    capacity       = "managed_node_group"
    instance_types = {types}
    {extra}
    managed_node_group = {{
      node_role_arn = "{ROLE}"
      subnet_ids    = ["subnet-1"]
      disk_size     = 200
      scaling       = {{ min = 0, max = 2, desired = 0 }}
    }}
  }}"#
    )
}

/// Plans `main_tf`: its exit code and combined output.
fn plan(main_tf: &str) -> Vec<(String, i32, String)> {
    terraform_versions()
        .into_iter()
        .map(|tf| {
            let w = Workdir::new(&tf, main_tf);
            w.init();
            let (exit, r) = w.plan_code(&[]);
            (tf.label.to_owned(), exit, r.combined())
        })
        .collect()
}

#[test]
fn an_unknown_dra_on_a_neuron_pool_is_not_refused() {
    let pools = format!(
        "{}\n  {}",
        node_group("plugin", r#"["trn2.48xlarge"]"#, ""),
        node_group("claims", r#"["trn2.48xlarge"]"#, "dra = terraform_data.u.output")
    );
    for (label, exit, out) in plan(&strategy(&Provider::new().offline(), "false", &pools)) {
        assert!(
            !out.contains("EKSGPU153"),
            "{label}: EKSGPU153 on an unknown dra:\n{out}"
        );
        assert_ne!(exit, 1, "{label}:\n{out}");
    }
}

#[test]
fn unknown_instance_types_with_a_neuron_ami_are_not_refused() {
    let pools = node_group("n", "terraform_data.u.output", r#"ami_type = "AL2023_x86_64_NEURON""#);
    for (label, exit, out) in plan(&strategy(&Provider::new().offline(), r#"["inf2.xlarge"]"#, &pools)) {
        assert!(
            !out.contains("EKSGPU013"),
            "{label}: EKSGPU013 on unknown types:\n{out}"
        );
        assert_ne!(exit, 1, "{label}:\n{out}");
    }
}

#[test]
fn an_unknown_requirement_key_does_not_hide_a_cpu_only_type() {
    let pools = r#"cpu = {
    capacity       = "karpenter"
    instance_types = ["m5.large"]
    requirements = [
      {
        key      = terraform_data.u.output
        operator = "Exists"
      },
    ]
    node_class = {
      role = "KarpenterNodeRole"
    }
  }"#;
    let main_tf = strategy(&Provider::new().offline(), r#""example.com/team""#, pools);
    for (label, exit, out) in plan(&main_tf) {
        assert!(
            out.contains("EKSGPU016"),
            "{label}: the CPU-only type must still be refused:\n{out}"
        );
        assert_eq!(exit, 1, "{label}:\n{out}");
    }
}

#[test]
fn unknown_feature_gates_leave_manifests_unknown_and_apply_agrees() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let provider = Provider::new()
            .kube(&kube)
            .setting("karpenter_feature_gates = terraform_data.gates.output");
        let main_tf = format!(
            r#"{}
resource "terraform_data" "gates" {{
  input = ["nodeOverlay"]
}}
resource "eksgpu_node_strategy" "s" {{
  cluster_name       = "gpu"
  name               = "gates"
  kubernetes_version = "1.34"
  pools = {{
    shared = {{
      capacity       = "karpenter"
      instance_types = ["g6e.xlarge"]
      labels         = {{ "nvidia.com/device-plugin.config" = "time-sliced-4" }}
      node_class     = {{ role = "KarpenterNodeRole-gpu" }}
    }}
  }}
}}
"#,
            provider.header()
        );
        let w = Workdir::new(&tf, &main_tf);
        w.init();
        w.ok(&["plan", "-no-color", "-out", "g.tfplan"]);
        let plan: Value = serde_json::from_str(&w.ok(&["show", "-json", "g.tfplan"]).stdout).unwrap();
        let change = plan["resource_changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["type"] == "eksgpu_node_strategy")
            .unwrap();
        assert_eq!(
            change["change"]["after_unknown"]["pools"]["shared"]["manifests_yaml"], true,
            "{}: manifests_yaml must plan unknown while the gates are",
            tf.label
        );
        // Apply makes what the plan said (no "inconsistent final plan").
        w.ok(&["apply", "-no-color", "-auto-approve", "g.tfplan"]);
        w.assert_empty_plan();
        w.ok(&["destroy", "-no-color", "-auto-approve"]);
    }
}
