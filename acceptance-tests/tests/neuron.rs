//! AWS Neuron pools and Auto Mode's documented instance table, through real Terraform CLIs
//! (the current one), offline plans: Neuron pools on each EC2 capacity kind with their
//! outputs, `neuron_values_yaml` for each mix, and the refusals.

use eksgpu_acceptance_tests::hcl::node_group_pool as node_group;
use eksgpu_acceptance_tests::{Workdir, terraform_versions};
use serde_json::Value;

use eksgpu_acceptance_tests::hcl::NODE_ROLE as ROLE;

/// A strategy of `pools` (entries of the `pools` map), with a `gpu_operator` block when `operator`.
fn main_tf(pools: &str, k8s: &str) -> String {
    strategy(pools, k8s, false)
}

fn strategy(pools: &str, k8s: &str, operator: bool) -> String {
    let operator = if operator { "gpu_operator {}" } else { "" };
    format!(
        r#"
terraform {{
  required_providers {{
    eksgpu = {{ source = "eksgpu/eksgpu" }}
  }}
}}
provider "eksgpu" {{
  region = "us-west-2"
}}
resource "eksgpu_node_strategy" "s" {{
  cluster_name       = "gpu"
  name               = "neuron"
  kubernetes_version = "{k8s}"
  {operator}
  pools = {{
  {pools}
  }}
}}
"#
    )
}

fn karpenter(name: &str, types: &str, extra: &str) -> String {
    format!(
        r#"{name} = {{
    capacity       = "karpenter"
    instance_types = {types}
    {extra}
    node_class = {{
      role        = "KarpenterNodeRole"
      root_volume = {{ size = "200Gi" }}
    }}
  }}"#
    )
}

fn auto_mode(name: &str, types: &str, extra: &str) -> String {
    format!(
        r#"{name} = {{
    capacity       = "auto_mode"
    instance_types = {types}
    {extra}
  }}"#
    )
}

/// Warnings the mixes below raise on purpose: EKSGPU008 (Auto Mode next to node groups) and
/// EKSGPU132 (an NVIDIA pool without `gpu_operator`); none of the Neuron rules.
const EXPECTED_WARNINGS: [&str; 2] = ["EKSGPU008", "EKSGPU132"];

/// The planned strategy (`change.after`) of a plan without errors.
fn planned(tf: &eksgpu_acceptance_tests::TerraformVersion, main_tf: &str) -> Value {
    let w = Workdir::new(tf, main_tf);
    w.init();
    let (exit, r) = w.plan_code(&["-out", "p.tfplan"]);
    assert_eq!(exit, 2, "{}: plan should only create:\n{}", tf.label, r.combined());
    let out = r.combined();
    for warning in out.split("Warning: ").skip(1) {
        let code = warning.get(..9).unwrap_or(warning);
        assert!(EXPECTED_WARNINGS.contains(&code), "{}: {out}", tf.label);
    }
    let plan: Value =
        serde_json::from_str(&w.ok(&["show", "-json", "p.tfplan"]).stdout).unwrap_or_else(|e| panic!("{e}"));
    plan["resource_changes"][0]["change"]["after"].clone()
}

/// Whether the top-level `section` of the values YAML says `enabled: <on>` (the provider renders
/// block-style YAML with two-space indents).
fn enabled(values: &Value, section: &str) -> bool {
    let text = values.as_str().unwrap_or_else(|| panic!("not a string: {values}"));
    let on = text.contains(&format!("{section}:\n  enabled: true"));
    let off = text.contains(&format!("{section}:\n  enabled: false"));
    assert!(on != off, "{section} in:\n{text}");
    on
}

#[test]
fn neuron_pools_on_each_ec2_kind_plan_with_their_vendors_names() {
    let pools = [
        karpenter("train", r#"["trn2.48xlarge"]"#, "gpu_limit = 64"),
        auto_mode(
            "serve",
            r#"["inf2.48xlarge", "trn1.32xlarge"]"#,
            r#"expire_after = "336h""#,
        ),
        node_group("batch", r#"["inf2.xlarge"]"#, ""),
        karpenter("frontier", r#"["p5en.48xlarge"]"#, ""),
    ]
    .join("\n  ");
    for tf in terraform_versions() {
        let after = planned(&tf, &strategy(&pools, "1.34", true));
        let pool = |name: &str| &after["pools"][name];
        for name in ["train", "serve", "batch"] {
            assert_eq!(pool(name)["accelerator"], "neuron", "{}", tf.label);
            assert_eq!(pool(name)["gpu_resource_name"], "aws.amazon.com/neuron", "{}", tf.label);
            assert_eq!(
                pool(name)["tolerations"][0]["key"],
                "aws.amazon.com/neuron",
                "{}",
                tf.label
            );
        }
        assert_eq!(pool("frontier")["accelerator"], "nvidia");
        assert_eq!(pool("frontier")["gpu_resource_name"], "nvidia.com/gpu");
        let train = pool("train")["manifests_yaml"].as_str().unwrap();
        assert!(train.contains("aws.amazon.com/neuron: 64"), "{train}");
        assert!(train.contains("key: aws.amazon.com/neuron\n"), "{train}");
        assert!(!train.contains("nvidia.com/"), "{train}");
        let serve = pool("serve")["manifests_yaml"].as_str().unwrap();
        assert!(serve.contains("eks.amazonaws.com/instance-family"), "{serve}");
        let batch = pool("batch")["manifests_yaml"].as_str().unwrap();
        assert!(batch.contains("AL2023_x86_64_NEURON"), "{batch}");
        // The GPU Operator keeps off Neuron nodes: it tolerates none of their taints.
        let ops = after["gpu_operator_values_yaml"].as_str().unwrap();
        assert!(!ops.contains("aws.amazon.com/neuron"), "{ops}");
        // Karpenter and node-group Neuron pools get the chart's device plugin.
        let v = after["neuron_values_yaml"].clone();
        assert!(enabled(&v, "devicePlugin"));
        assert!(!enabled(&v, "draDriver"));
        assert!(enabled(&v, "scheduler"), "trn2.48xlarge has 16 devices");
    }
}

#[test]
fn neuron_values_yaml_for_each_mix() {
    let nvidia_only = karpenter("g", r#"["g6e.xlarge"]"#, "");
    let auto_only = auto_mode("a", r#"["trn2.48xlarge"]"#, "");
    let karpenter_only = karpenter("k", r#"["inf2.xlarge"]"#, "");
    let dra = node_group("d", r#"["trn2.48xlarge"]"#, "dra = true");
    for tf in terraform_versions() {
        let after = planned(&tf, &main_tf(&nvidia_only, "1.34"));
        assert!(after["neuron_values_yaml"].is_null(), "{}", tf.label);

        let v = planned(&tf, &main_tf(&auto_only, "1.34"))["neuron_values_yaml"].clone();
        assert!(
            !enabled(&v, "devicePlugin"),
            "{}: Auto Mode ships its own plugin",
            tf.label
        );
        assert!(!enabled(&v, "draDriver"));

        let v = planned(&tf, &main_tf(&karpenter_only, "1.34"))["neuron_values_yaml"].clone();
        assert!(enabled(&v, "devicePlugin"), "{}", tf.label);
        assert!(!enabled(&v, "scheduler"), "inf2.xlarge has one device");

        let mixed = format!("{auto_only}\n  {karpenter_only}\n  {nvidia_only}");
        let v = planned(&tf, &main_tf(&mixed, "1.34"))["neuron_values_yaml"].clone();
        assert!(enabled(&v, "devicePlugin"), "{}", tf.label);

        let dra_mix = format!("{auto_only}\n  {dra}");
        let after = planned(&tf, &main_tf(&dra_mix, "1.34"));
        assert!(after["pools"]["d"]["gpu_resource_name"].is_null(), "{}", tf.label);
        let v = after["neuron_values_yaml"].clone();
        assert!(!enabled(&v, "devicePlugin"), "{}", tf.label);
        assert!(enabled(&v, "draDriver"));
        assert!(!enabled(&v, "npd"));
    }
}

/// (code, is_error, pools)
fn refusals() -> Vec<(&'static str, bool, String)> {
    vec![
        (
            "EKSGPU150",
            true,
            karpenter("m", r#"["p5.48xlarge", "trn2.48xlarge"]"#, ""),
        ),
        (
            "EKSGPU151",
            true,
            format!(
                r#"h = {{
    capacity       = "hybrid"
    instance_types = ["trn2.48xlarge"]
    hybrid = {{
      remote_node_networks = ["10.80.0.0/16"]
      node_role_arn        = "{ROLE}"
    }}
  }}"#
            ),
        ),
        (
            "EKSGPU152",
            true,
            karpenter(
                "n",
                r#"["trn2.48xlarge"]"#,
                r#"labels = { "nvidia.com/mig.config" = "all-1g.10gb" }"#,
            ),
        ),
        (
            "EKSGPU153",
            true,
            format!(
                "{}\n  {}",
                node_group("plugin", r#"["trn2.48xlarge"]"#, ""),
                node_group("claims", r#"["trn2.48xlarge"]"#, "dra = true")
            ),
        ),
        ("EKSGPU154", true, auto_mode("a", r#"["g6f.xlarge"]"#, "")),
        ("EKSGPU154", true, auto_mode("a", r#"["p6e-gb200.36xlarge"]"#, "")),
        (
            "EKSGPU155",
            false,
            auto_mode("a", r#"["trn2.48xlarge"]"#, r#"expire_after = "Never""#),
        ),
        ("EKSGPU009", false, auto_mode("a", r#"["p6-b200.48xlarge"]"#, "")),
        ("EKSGPU004", true, auto_mode("a", r#"["trn2.48xlarge"]"#, "dra = true")),
        ("EKSGPU013", true, {
            let p = node_group("n", r#"["inf2.xlarge"]"#, "");
            p.replace(
                "disk_size     = 200",
                "disk_size     = 200\n      ami_type      = \"AL2023_x86_64_NVIDIA\"",
            )
        }),
    ]
}

#[test]
fn neuron_and_auto_mode_table_refusals_name_their_code() {
    for tf in terraform_versions() {
        for (code, is_error, pools) in refusals() {
            let k8s = if code == "EKSGPU004" { "1.36" } else { "1.34" };
            let w = Workdir::new(&tf, &main_tf(&pools, k8s));
            w.init();
            let (exit, r) = w.plan_code(&[]);
            let out = r.combined();
            assert!(out.contains(code), "{} {code}: code missing:\n{out}", tf.label);
            assert_eq!(exit, if is_error { 1 } else { 2 }, "{} {code}:\n{out}", tf.label);
        }
    }
}

#[test]
fn auto_mode_accepts_the_documented_families() {
    let pools = [
        auto_mode("p5e", r#"["p5e.48xlarge"]"#, ""),
        auto_mode("p6", r#"["p6-b300.48xlarge"]"#, ""),
        auto_mode("trn", r#"["trn1n.32xlarge"]"#, ""),
        auto_mode("inf", r#"["inf1.24xlarge"]"#, ""),
    ]
    .join("\n  ");
    for tf in terraform_versions() {
        let after = planned(&tf, &main_tf(&pools, "1.34"));
        assert_eq!(after["pools"].as_object().unwrap().len(), 4, "{}", tf.label);
    }
}
