//! What the resource framework promises with the real Terraform CLI: dynamic
//! blocks and pools over values unknown at plan, outputs known as soon as
//! their inputs are, rules on whatever is known, exact numbers, and `labels =
//! {}` versus no labels after an import. Rules judge only what is known (issue 33, class 1): an
//! input unknown at plan (a `terraform_data` output, known only after apply) holds back the findings
//! that depend on it and no other, and a provider setting unknown at plan leaves the outputs it
//! feeds unknown.

use eksgpu_acceptance_tests::hcl::node_group_pool as node_group;
use eksgpu_acceptance_tests::hcl::{Provider, REQUIRED_PROVIDERS};
use eksgpu_acceptance_tests::kube::KubeTarget;
use eksgpu_acceptance_tests::{Workdir, terraform_versions};
use serde_json::Value;

/// A strategy whose `kubernetes_version` is known only after apply: the
/// source of unknown values for the others.
const BASE: &str = r#"
resource "eksgpu_node_strategy" "base" {
  cluster_name = "gpu"
  name         = "base"
  pools = {
    base = {
      capacity       = "karpenter"
      instance_types = ["g6e.xlarge"]
      node_class = {
        role = "KarpenterNodeRole-gpu"
      }
    }
  }
}
"#;

#[test]
fn dynamic_blocks_and_pools_over_unknown_values_plan_and_apply() {
    let main_tf = |kube: &KubeTarget| {
        format!(
            r#"{}
{BASE}
locals {{
  pools = {{ inference = "g6e.12xlarge", training = "p5.48xlarge" }}
}}
resource "eksgpu_node_strategy" "dyn" {{
  cluster_name = "gpu"
  name         = "dyn"
  # Unknown until base is applied, and then empty.
  dynamic "gpu_operator" {{
    for_each = eksgpu_node_strategy.base.kubernetes_version == "0.0" ? [1] : []
    content {{}}
  }}
  # Unknown until base is applied.
  pools = {{
    for k, v in local.pools : k => {{
      capacity       = "karpenter"
      instance_types = [v]
      node_class     = {{ role = "KarpenterNodeRole-gpu" }}
    }} if eksgpu_node_strategy.base.kubernetes_version != ""
  }}
}}
"#,
            Provider::new().kube(kube).header()
        )
    };
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let w = Workdir::new(&tf, &main_tf(&kube));
        w.init();
        w.ok(&["plan", "-no-color", "-out", "dyn.tfplan"]);
        let plan: Value = serde_json::from_str(&w.ok(&["show", "-json", "dyn.tfplan"]).stdout).unwrap();
        let dyn_change = plan["resource_changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "dyn")
            .unwrap();
        assert_eq!(dyn_change["change"]["after_unknown"]["pools"], true, "{}", tf.label);
        w.ok(&["apply", "-no-color", "-auto-approve", "dyn.tfplan"]);
        let state = w.state();
        let pools = state["values"]["root_module"]["resources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == "dyn")
            .unwrap()["values"]["pools"]
            .as_object()
            .unwrap()
            .len();
        assert_eq!(pools, 2, "{}", tf.label);
        w.assert_empty_plan();
        w.ok(&["destroy", "-no-color", "-auto-approve"]);
    }
}

/// Unknown at every level of `pools`: an entry whose whole value is unknown (a conditional on a
/// value of the same apply) and a field unknown in a known entry. The known pool plans its outputs,
/// the unknown entry waits, nothing is refused, and apply makes both.
#[test]
fn an_unknown_entry_and_an_unknown_field_plan_beside_known_pools() {
    let main_tf = |kube: &KubeTarget| {
        format!(
            r#"{}
{BASE}
resource "eksgpu_node_strategy" "mixed" {{
  cluster_name = "gpu"
  name         = "mixed"
  pools = {{
    known = {{
      capacity       = "karpenter"
      instance_types = ["g6e.xlarge"]
      node_class     = {{ role = "KarpenterNodeRole-gpu" }}
    }}
    field = {{
      capacity       = "karpenter"
      instance_types = ["g6e.xlarge"]
      gpu_limit      = length(eksgpu_node_strategy.base.kubernetes_version)
      node_class     = {{ role = "KarpenterNodeRole-gpu" }}
    }}
    entry = eksgpu_node_strategy.base.kubernetes_version == "" ? null : {{
      capacity       = "karpenter"
      instance_types = ["g6e.12xlarge"]
      node_class     = {{ role = "KarpenterNodeRole-gpu" }}
    }}
  }}
}}
"#,
            Provider::new().kube(kube).header()
        )
    };
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let w = Workdir::new(&tf, &main_tf(&kube));
        w.init();
        w.ok(&["plan", "-no-color", "-out", "mixed.tfplan"]);
        let plan: Value = serde_json::from_str(&w.ok(&["show", "-json", "mixed.tfplan"]).stdout).unwrap();
        let change = plan["resource_changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "mixed")
            .unwrap();
        let (after, unknown) = (&change["change"]["after"], &change["change"]["after_unknown"]);
        assert_eq!(
            after["pools"]["known"]["node_selector"]["karpenter.sh/nodepool"], "known",
            "{}: {change:#}",
            tf.label
        );
        assert_eq!(
            after["pools"]["field"]["tolerations"][0]["key"], "nvidia.com/gpu",
            "{}: a field the outputs do not read leaves them known",
            tf.label
        );
        assert_eq!(unknown["pools"]["field"]["gpu_limit"], true, "{}", tf.label);
        assert_eq!(unknown["pools"]["entry"], true, "{}: {change:#}", tf.label);
        w.ok(&["apply", "-no-color", "-auto-approve", "mixed.tfplan"]);
        assert!(kube.get(eksgpu_acceptance_tests::kube::NODE_POOL, "entry").is_some());
        let limit = kube
            .get(eksgpu_acceptance_tests::kube::NODE_POOL, "field")
            .unwrap_or_default()["spec"]["limits"]["nvidia.com/gpu"]
            .as_i64();
        assert!(
            limit.is_some_and(|l| l > 0),
            "{}: the field, known at apply: {limit:?}",
            tf.label
        );
        w.assert_empty_plan();
        w.ok(&["destroy", "-no-color", "-auto-approve"]);
    }
}

#[test]
fn outputs_that_do_not_need_the_cluster_are_known_at_plan() {
    let main_tf = format!(
        r#"{}{BASE}
resource "eksgpu_node_strategy" "late" {{
  # Known only after apply: the pool's selector and tolerations do not depend on it.
  cluster_name = "gpu-${{eksgpu_node_strategy.base.kubernetes_version}}"
  name         = "late"
  pools = {{
    inference = {{
      capacity       = "karpenter"
      instance_types = ["g6e.xlarge"]
      node_class = {{
        role = "KarpenterNodeRole-gpu"
      }}
    }}
  }}
}}
module "workload" {{
  source        = "./workload"
  node_selector = eksgpu_node_strategy.late.pools["inference"].node_selector
  tolerations   = eksgpu_node_strategy.late.pools["inference"].tolerations
}}
"#,
        Provider::new().offline().header()
    );
    // A workload module that iterates over what the strategy hands it.
    let module = REQUIRED_PROVIDERS.to_owned()
        + r#"variable "node_selector" { type = map(string) }
variable "tolerations" { type = list(map(string)) }
data "eksgpu_gpu_catalog" "per_selector" {
  for_each  = var.node_selector
  gpu_model = "L40S"
}
output "keys" { value = keys(data.eksgpu_gpu_catalog.per_selector) }
"#;
    for tf in terraform_versions() {
        let w = Workdir::new(&tf, &main_tf);
        std::fs::create_dir_all(w.path().join("workload")).unwrap();
        w.write("workload/main.tf", &module);
        w.init();
        w.ok(&["plan", "-no-color", "-out", "late.tfplan"]);
        let plan: Value = serde_json::from_str(&w.ok(&["show", "-json", "late.tfplan"]).stdout).unwrap();
        let late = plan["resource_changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "late")
            .unwrap();
        let after = &late["change"]["after"]["pools"]["inference"];
        assert_eq!(
            after["node_selector"]["karpenter.sh/nodepool"], "inference",
            "{}",
            tf.label
        );
        assert_eq!(after["tolerations"][0]["key"], "nvidia.com/gpu", "{}", tf.label);
        assert_eq!(
            late["change"]["after_unknown"]["pools"]["inference"]["manifests_yaml"], true,
            "objects carry the cluster name: unknown ({})",
            tf.label
        );
    }
}

/// Plans `main_tf` and asserts it fails naming every code of `codes`.
fn plan_fails_with(main_tf: &str, codes: &[&str]) {
    for tf in terraform_versions() {
        let w = Workdir::new(&tf, main_tf);
        w.init();
        let out = w.run(&["plan", "-no-color"]);
        let text = out.combined();
        assert!(out.code != 0, "{}: plan must fail:\n{text}", tf.label);
        for code in codes {
            assert!(text.contains(code), "{}: {code} missing:\n{text}", tf.label);
        }
    }
}

#[test]
fn rules_run_on_what_is_known_when_other_values_are_unknown() {
    // Cluster name and the pool's instance types unknown: the pool's name (its
    // key) and its consolidation policy are known, so their rules fire at plan.
    plan_fails_with(
        &format!(
            r#"{}{BASE}
resource "eksgpu_node_strategy" "late" {{
  cluster_name = "gpu-${{eksgpu_node_strategy.base.kubernetes_version}}"
  name         = "late"
  pools = {{
    Inference_GPUs = {{
      capacity       = "karpenter"
      instance_types = [eksgpu_node_strategy.base.id]
      node_class = {{
        role = "KarpenterNodeRole-gpu"
      }}
      disruption = {{
        consolidation_policy = "WhenUnderutilized"
      }}
    }}
  }}
}}
"#,
            Provider::new().offline().header()
        ),
        &["EKSGPU005", "EKSGPU105"],
    );
    // A sharing pool whose cluster is unknown: its replicas are still checked.
    plan_fails_with(
        &format!(
            r#"{}{BASE}
resource "eksgpu_sharing_pool" "late" {{
  cluster_name  = "gpu-${{eksgpu_node_strategy.base.kubernetes_version}}"
  name          = "late"
  instance_type = "g6e.xlarge"
  strategy      = "time_slicing"
  time_slicing {{
    replicas = 1
  }}
}}
"#,
            Provider::new().offline().header()
        ),
        &["EKSGPU108"],
    );
}

#[test]
fn numbers_are_exact_and_errors_point_at_the_attribute() {
    for (value, expect) in [
        ("1e30", "gpu_limit"),
        ("1.5", "1.5 is not a whole number"),
        ("-4", "gpu_limit"),
    ] {
        let main_tf = format!(
            r#"{}
resource "eksgpu_node_strategy" "s" {{
  cluster_name = "gpu"
  name         = "numbers"
  pools = {{
    inference = {{
      capacity       = "karpenter"
      instance_types = ["g6e.xlarge"]
      gpu_limit      = {value}
      node_class = {{
        role = "KarpenterNodeRole-gpu"
      }}
    }}
  }}
}}
"#,
            Provider::new().offline().header()
        );
        for tf in terraform_versions() {
            let w = Workdir::new(&tf, &main_tf);
            w.init();
            let out = w.run(&["plan", "-no-color"]);
            let text = out.combined();
            assert!(out.code != 0, "{}: gpu_limit = {value} must fail:\n{text}", tf.label);
            assert!(
                text.contains(expect),
                "{}: {value}: {expect:?} missing:\n{text}",
                tf.label
            );
            assert!(
                !text.contains("does not match config value") && !text.contains("panic"),
                "{}: {value}:\n{text}",
                tf.label
            );
        }
    }
}

#[test]
fn import_plans_nothing_whether_labels_are_empty_or_absent() {
    for labels in ["labels = {}", ""] {
        let config = |kube: &KubeTarget| {
            format!(
                r#"{}
resource "eksgpu_node_strategy" "s" {{
  cluster_name = "gpu"
  name         = "labels"
  pools = {{
    inference = {{
      capacity       = "karpenter"
      instance_types = ["g6e.xlarge"]
      {labels}
      node_class = {{
        role = "KarpenterNodeRole-gpu"
      }}
    }}
  }}
}}
"#,
                Provider::new().kube(kube).header()
            )
        };
        for tf in terraform_versions() {
            let kube = KubeTarget::start();
            let w = Workdir::new(&tf, &config(&kube));
            w.init();
            w.apply();
            w.assert_empty_plan();
            let imported = Workdir::new(&tf, &config(&kube));
            imported.init();
            imported.ok(&["import", "-no-color", "eksgpu_node_strategy.s", "gpu/labels"]);
            imported.assert_empty_plan();
            w.ok(&["destroy", "-no-color", "-auto-approve"]);
        }
    }
}

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

/// Plans `main_tf` and asserts it does not fail and names no `code`: a finding that depends on
/// a value unknown at plan waits for apply.
fn plan_holds_back(main_tf: &str, code: &str) {
    for tf in terraform_versions() {
        let w = Workdir::new(&tf, main_tf);
        w.init();
        let (exit, r) = w.plan_code(&[]);
        let out = r.combined();
        assert!(!out.contains(code), "{}: {code} on an unknown input:\n{out}", tf.label);
        assert_ne!(exit, 1, "{}:\n{out}", tf.label);
    }
}

#[test]
fn an_unknown_dra_on_a_neuron_pool_is_not_refused() {
    let pools = format!(
        "{}\n  {}",
        node_group("plugin", r#"["trn2.48xlarge"]"#, ""),
        node_group("claims", r#"["trn2.48xlarge"]"#, "dra = terraform_data.u.output")
    );
    plan_holds_back(&strategy(&Provider::new().offline(), "false", &pools), "EKSGPU153");
}

#[test]
fn unknown_instance_types_with_a_neuron_ami_are_not_refused() {
    let pools = node_group("n", "terraform_data.u.output", r#"ami_type = "AL2023_x86_64_NEURON""#);
    plan_holds_back(
        &strategy(&Provider::new().offline(), r#"["inf2.xlarge"]"#, &pools),
        "EKSGPU013",
    );
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
    // The CPU-only type is refused whatever the key turns out to be.
    plan_fails_with(
        &strategy(&Provider::new().offline(), r#""example.com/team""#, pools),
        &["EKSGPU016"],
    );
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
