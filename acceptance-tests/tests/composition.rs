//! Composition as platform modules do it, on both CLIs: a strategy whose node role, subnets and
//! tags come from resources made in the same apply still plans its pools' selectors, tolerations
//! and Helm values, so workload modules can `for_each` over them; `terraform validate` fails on
//! rule violations it can already see; a warning is answered by the input stating the intent; a
//! team module generating its pools from a variable adds and removes them by name.

use eksgpu_acceptance_tests::hcl::{Provider, REQUIRED_PROVIDERS};
use eksgpu_acceptance_tests::{Workdir, terraform_versions};
use serde_json::Value;

/// Unknown at plan: a strategy's `kubernetes_version` is read from the cluster at apply.
const SOURCE: &str = r#"
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
locals {
  late = eksgpu_node_strategy.base.kubernetes_version
}
"#;

/// Role, subnets and tags from `late`: none of them feeds a selector, a toleration or the values.
fn team(late: &str) -> String {
    format!(
        r#"
resource "eksgpu_node_strategy" "team" {{
  cluster_name = "gpu"
  name         = "team"
  gpu_operator {{}}
  pools = {{
    inference = {{
      capacity       = "karpenter"
      instance_types = ["g6e.12xlarge"]
      tags           = {{ build = {late} }}
      node_class = {{
        role                 = "role-${{{late}}}"
        subnet_selector_tags = {{ "karpenter.sh/discovery" = {late} }}
      }}
    }}
    training = {{
      capacity       = "managed_node_group"
      instance_types = ["p5.48xlarge"]
      managed_node_group = {{
        node_role_arn = "arn:aws:iam::123456789012:role/${{{late}}}"
        subnet_ids    = [{late}]
        scaling = {{
          min     = 0
          max     = 2
          desired = 0
        }}
      }}
    }}
    nvl72 = {{
      capacity          = "managed_node_group"
      instance_types    = ["p6e-gb200.36xlarge"]
      capacity_types    = ["capacity-block"]
      dra               = true
      multi_node_nvlink = true
      managed_node_group = {{
        node_role_arn           = "arn:aws:iam::123456789012:role/${{{late}}}"
        subnet_ids              = [{late}]
        ami_type                = "AL2023_ARM_64_NVIDIA"
        capacity_reservation_id = "cr-0123456789abcdef0"
        scaling = {{
          min     = 0
          max     = 18
          desired = 0
        }}
      }}
    }}
  }}
}}
module "workload" {{
  for_each      = {{ for name, p in eksgpu_node_strategy.team.pools : name => p }}
  source        = "./workload"
  node_selector = each.value.node_selector
  tolerations   = each.value.tolerations
}}
"#
    )
}

/// A workload module iterating over what the strategy hands it (for_each keys must be known at plan).
const WORKLOAD: &str = r#"variable "node_selector" { type = map(string) }
variable "tolerations" { type = list(map(string)) }
data "eksgpu_gpu_catalog" "per_selector" {
  for_each  = var.node_selector
  gpu_model = "L40S"
}
data "eksgpu_gpu_catalog" "per_toleration" {
  for_each  = { for t in var.tolerations : t.key => t }
  gpu_model = "L40S"
}
"#;

fn planned(w: &Workdir) -> Value {
    w.ok(&["plan", "-no-color", "-out", "team.tfplan"]);
    serde_json::from_str(&w.ok(&["show", "-json", "team.tfplan"]).stdout).unwrap_or_else(|e| panic!("plan JSON: {e}"))
}

fn change<'a>(plan: &'a Value, name: &str) -> &'a Value {
    plan["resource_changes"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no change for {name}"))
}

#[test]
fn outputs_are_known_while_role_subnets_and_tags_are_not() {
    for tf in terraform_versions() {
        let mut main_tf = format!("{}{SOURCE}{}", Provider::new().offline().header(), team("local.late"));
        if tf.label == "current" {
            // terraform_data (Terraform 1.4+): a resource of the same apply as the unknown source,
            // and a resource consuming the tolerations per node selector key.
            main_tf += r#"
resource "terraform_data" "vpc" {
  input = "subnet-0abc"
}
resource "terraform_data" "per_pool" {
  for_each = eksgpu_node_strategy.team.pools["inference"].node_selector
  input    = eksgpu_node_strategy.team.pools["inference"].tolerations
}
"#;
            main_tf = main_tf.replace("local.late", "terraform_data.vpc.output");
        }
        let w = Workdir::new(&tf, &main_tf);
        std::fs::create_dir_all(w.path().join("workload")).unwrap();
        w.write("workload/main.tf", &(REQUIRED_PROVIDERS.to_owned() + WORKLOAD));
        w.init();
        let plan = planned(&w);
        let team = change(&plan, "team");
        let (after, unknown) = (&team["change"]["after"], &team["change"]["after_unknown"]);
        assert_eq!(
            after["pools"]["inference"]["node_selector"]["karpenter.sh/nodepool"], "inference",
            "{}",
            tf.label
        );
        assert_eq!(
            after["pools"]["inference"]["tolerations"][0]["key"], "nvidia.com/gpu",
            "{}",
            tf.label
        );
        assert_eq!(
            after["pools"]["inference"]["gpu_resource_name"], "nvidia.com/gpu",
            "{}",
            tf.label
        );
        assert_eq!(after["pools"]["inference"]["accelerator"], "nvidia", "{}", tf.label);
        assert_eq!(
            after["pools"]["training"]["node_selector"]["eks.amazonaws.com/nodegroup"], "gpu-training",
            "a node group whose role and subnets are unknown ({})",
            tf.label
        );
        let values = after["gpu_operator_values_yaml"].as_str().unwrap_or_default();
        assert!(values.contains("daemonsets"), "{}: values known:\n{team:#}", tf.label);
        // A GB200 pool's ComputeDomain outputs and the DRA driver's values need neither its role nor subnets.
        assert_eq!(
            after["pools"]["nvl72"]["compute_domain_claim_template"], "nvl72-channel",
            "{}",
            tf.label
        );
        assert_eq!(
            after["pools"]["nvl72"]["clique_topology_key"], "nvidia.com/gpu.clique",
            "{}",
            tf.label
        );
        let dra = after["dra_driver_values_yaml"].as_str().unwrap_or_default();
        assert!(
            dra.contains("computeDomains:\n    enabled: true") && dra.contains("gpu-nvl72"),
            "{}: DRA driver values known:\n{team:#}",
            tf.label
        );
        // What does read the unknown inputs stays unknown.
        assert_eq!(unknown["pools"]["inference"]["manifests_yaml"], true, "{}", tf.label);
        assert_eq!(unknown["pools"]["training"]["manifests_yaml"], true, "{}", tf.label);
        if tf.label == "current" {
            let per_pool = change(&plan, "per_pool");
            assert_eq!(per_pool["index"], "karpenter.sh/nodepool", "{}", tf.label);
            assert_eq!(per_pool["change"]["after"]["input"][0]["key"], "nvidia.com/gpu");
        }
    }
}

/// A strategy with one pool of `body`; `instance_types` from a variable without default when
/// `late` (unknown to `terraform validate`).
fn one_pool(body: &str) -> String {
    format!(
        r#"{}
variable "instance_type" {{
  type    = string
  default = "g6e.xlarge"
}}
resource "eksgpu_node_strategy" "s" {{
  cluster_name = "gpu"
  name         = "ci"
  gpu_operator {{}}
  pools = {{
    inference = {{
      {body}
    }}
  }}
}}
"#,
        Provider::new().offline().header()
    )
}

/// The errors a CI pipeline's `terraform validate` must report (the provider is not configured then).
const INVALID_AT_VALIDATE: &[(&str, &str)] = &[
    (
        "EKSGPU016",
        r#"capacity       = "karpenter"
    instance_types = ["m5.xlarge"]
    node_class = {
      role = "r"
    }"#,
    ),
    (
        "EKSGPU104",
        r#"capacity       = "karpenter"
    instance_types = ["g6e.xlarge"]
    node_class = {
      ami_alias = "al2023@latest"
    }"#,
    ),
    (
        // H100 (p5) has no 1g.18gb profile; H200 (p5en) has.
        "EKSGPU003",
        r#"capacity       = "karpenter"
    instance_types = ["p5.48xlarge"]
    labels         = { "nvidia.com/mig.config" = "all-1g.18gb" }
    node_class = {
      role = "r"
    }"#,
    ),
];

#[test]
fn validate_fails_on_rule_violations_and_plan_reports_each_once() {
    for tf in terraform_versions() {
        for (code, body) in INVALID_AT_VALIDATE {
            let w = Workdir::new(&tf, &one_pool(body));
            w.init();
            let out = w.run(&["validate", "-no-color"]);
            let text = out.combined();
            assert!(out.code != 0, "{}: validate must fail with {code}:\n{text}", tf.label);
            assert!(text.contains(code), "{}: {code} missing:\n{text}", tf.label);
            // A plan validates twice and plans: the error is shown once.
            let plan = w.run(&["plan", "-no-color"]).combined();
            assert_eq!(plan.matches(code).count(), 1, "{}: {code} once:\n{plan}", tf.label);
        }
    }
}

#[test]
fn validate_skips_rules_on_unknown_values_and_provider_settings() {
    let unknown_type = one_pool(
        r#"capacity       = "karpenter"
    instance_types = [var.instance_type]
    node_class = {
      role = "r"
    }"#,
    );
    // Needs the provider's staticCapacity gate: a provider setting, so refused at plan only.
    let static_pool = one_pool(
        r#"capacity       = "karpenter"
    instance_types = ["g6e.xlarge"]
    replicas       = 2
    node_class = {
      role = "r"
    }"#,
    );
    for tf in terraform_versions() {
        let w = Workdir::new(&tf, &unknown_type);
        w.init();
        // `terraform validate` has no variable values: the instance type is unknown there.
        w.ok(&["validate", "-no-color"]);
        let bad = w.run(&["plan", "-no-color", "-var", "instance_type=m5.xlarge"]);
        assert!(
            bad.code != 0 && bad.combined().contains("EKSGPU016"),
            "{}: {}",
            tf.label,
            bad.combined()
        );
        let w = Workdir::new(&tf, &static_pool);
        w.init();
        w.ok(&["validate", "-no-color"]);
        let plan = w.run(&["plan", "-no-color"]);
        assert!(
            plan.code != 0 && plan.combined().matches("EKSGPU164").count() == 1,
            "{}: {}",
            tf.label,
            plan.combined()
        );
    }
}

/// Two Karpenter pools on the EKS NVIDIA AMI and no `gpu_operator`: EKSGPU132 for each.
fn without_operator(acknowledged: &str) -> String {
    let pool = |name: &str| {
        format!(
            r#"    {name} = {{
      capacity       = "karpenter"
      instance_types = ["g6e.xlarge"]
      node_class = {{
        role        = "r"
        root_volume = {{ size = "200Gi" }}
      }}
    }}
"#
        )
    };
    format!(
        r#"{}
resource "eksgpu_node_strategy" "s" {{
  cluster_name = "gpu"
  name         = "team"
  {acknowledged}
  pools = {{
{}{}  }}
}}
"#,
        Provider::new().offline().header(),
        pool("inference"),
        pool("batch")
    )
}

/// Diagnostics' words joined by single spaces (Terraform wraps and frames them).
fn words(s: &str) -> String {
    s.replace('│', " ").split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn a_warning_is_answered_by_its_input_and_said_once_for_all_pools() {
    for tf in terraform_versions() {
        let w = Workdir::new(&tf, &without_operator(""));
        w.init();
        let (_, r) = w.plan_code(&[]);
        let out = words(&r.combined());
        assert_eq!(
            out.matches("Warning: EKSGPU132").count(),
            1,
            "{}: one warning for both pools: {out}",
            tf.label
        );
        assert!(
            out.contains(r#"Pool "inference""#) && out.contains(r#"Pool "batch""#),
            "{}: it names both pools: {out}",
            tf.label
        );
        let w = Workdir::new(&tf, &without_operator(r#"acknowledged_warnings = ["EKSGPU132"]"#));
        w.init();
        let (code, r) = w.plan_code(&[]);
        assert_eq!(code, 2, "{}: {}", tf.label, r.combined());
        assert!(
            !r.combined().contains("Warning"),
            "{}: answered: {}",
            tf.label,
            r.combined()
        );
        // Only warnings can be acknowledged, and validate says so.
        let w = Workdir::new(&tf, &without_operator(r#"acknowledged_warnings = ["EKSGPU016"]"#));
        w.init();
        let r = w.run(&["validate", "-no-color"]);
        assert!(
            r.code != 0 && words(&r.combined()).contains("EKSGPU016 is an error"),
            "{}: {}",
            tf.label,
            r.combined()
        );
    }
}

#[test]
fn provider_block_warnings_show_once_per_run() {
    let main_tf = REQUIRED_PROVIDERS.to_owned()
        + r#"provider "eksgpu" {
  region = "us-west-2"
  kubernetes {
    host     = "https://10.0.0.1"
    insecure = true
  }
}
data "eksgpu_gpu_catalog" "a10g" {
  gpu_model = "A10G"
}
"#;
    for tf in terraform_versions() {
        let w = Workdir::new(&tf, &main_tf);
        w.init();
        let validate = w.ok(&["validate", "-no-color"]).combined();
        assert!(!validate.contains("Warning"), "{}: {validate}", tf.label);
        let plan = words(&w.ok(&["plan", "-no-color"]).combined());
        assert_eq!(
            plan.matches("TLS verification of the cluster API is off").count(),
            1,
            "{}: {plan}",
            tf.label
        );
        let apply = words(&w.ok(&["apply", "-no-color", "-auto-approve"]).combined());
        assert_eq!(
            apply.matches("TLS verification of the cluster API is off").count(),
            1,
            "{}: {apply}",
            tf.label
        );
    }
}

/// A platform team's module: one strategy per team, its pools built with `for` over a map
/// variable and merged with shared defaults, each named `<team>-<key>`.
const TEAM_MODULE: &str = r#"
variable "team" { type = string }
variable "pools" { type = map(number) }
locals {
  # What every pool of the platform shares; a team's entry adds its own.
  defaults = {
    capacity       = "karpenter"
    instance_types = ["g6e.xlarge"]
    node_class     = { role = "KarpenterNodeRole-gpu" }
  }
}
resource "eksgpu_node_strategy" "team" {
  cluster_name       = "gpu"
  name               = var.team
  kubernetes_version = "1.34"
  gpu_operator {}
  pools = { for k, limit in var.pools : "${var.team}-${k}" => merge(local.defaults, { gpu_limit = limit }) }
}
output "node_selectors" {
  value = { for name, p in eksgpu_node_strategy.team.pools : name => p.node_selector }
}
output "inference_selector" {
  value = try(eksgpu_node_strategy.team.pools["${var.team}-inference"].node_selector, null)
}
"#;

fn teams(kube: &eksgpu_acceptance_tests::kube::KubeTarget, research: &str) -> String {
    format!(
        r#"{}
module "team" {{
  for_each = {{ research = {{ {research} }}, serving = {{ chat = 2 }} }}
  source   = "./team"
  team     = each.key
  pools    = each.value
}}
data "eksgpu_gpu_catalog" "workload" {{
  for_each  = module.team["research"].node_selectors
  gpu_model = "L40S"
}}
output "inference_selector" {{
  value = module.team["research"].inference_selector
}}
"#,
        Provider::new().kube(kube).header()
    )
}

/// The pools of `module.team["research"]` in a plan, by name: `(before, after)` per pool name.
fn research_pools(plan: &Value) -> std::collections::BTreeMap<String, (Value, Value)> {
    let c = plan["resource_changes"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["module_address"] == r#"module.team["research"]"# && c["type"] == "eksgpu_node_strategy")
        .unwrap_or_else(|| panic!("no research strategy in {plan}"));
    let mut out = std::collections::BTreeMap::new();
    for (side, at) in [("before", 0), ("after", 1)] {
        for (name, p) in c["change"][side]["pools"].as_object().into_iter().flatten() {
            let e = out.entry(name.clone()).or_insert((Value::Null, Value::Null));
            if at == 0 { e.0 = p.clone() } else { e.1 = p.clone() }
        }
    }
    out
}

/// Every pool of `pools` but `changed` planned exactly as it was (`before == after`).
fn others_unchanged(pools: &std::collections::BTreeMap<String, (Value, Value)>, changed: &[&str]) -> Vec<String> {
    pools
        .iter()
        .filter(|(name, (b, a))| !changed.contains(&name.as_str()) && b != a)
        .map(|(name, _)| name.clone())
        .collect()
}

/// A team module's pools added (sorting before the others), renamed and removed plan as only
/// those pools, by name: every other key's `before` equals its `after`, its NodePool's
/// `metadata.generation` does not move, the other team's strategy plans nothing, and a
/// workload's `for_each` over the outputs follows by name.
#[test]
fn a_team_module_adds_renames_and_removes_pools_by_name() {
    for tf in terraform_versions() {
        let kube = eksgpu_acceptance_tests::kube::KubeTarget::start();
        let w = Workdir::new(&tf, &teams(&kube, "inference = 4"));
        w.write("team/main.tf", &(REQUIRED_PROVIDERS.to_owned() + TEAM_MODULE));
        w.init();
        w.apply();
        let generation = |n: &str| {
            kube.get(eksgpu_acceptance_tests::kube::NODE_POOL, n)
                .unwrap_or_default()["metadata"]["generation"]
                .clone()
        };
        let before = generation("research-inference");

        // Added before the others in key order: only the new pool changes.
        w.write("main.tf", &teams(&kube, "batch = 2, inference = 4"));
        let plan = planned(&w);
        let pools = research_pools(&plan);
        assert_eq!(
            others_unchanged(&pools, &["research-batch"]),
            Vec::<String>::new(),
            "{}",
            tf.label
        );
        assert!(
            pools["research-batch"].0.is_null() && !pools["research-batch"].1.is_null(),
            "{}",
            tf.label
        );
        let serving = plan["resource_changes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| c["module_address"] == r#"module.team["serving"]"#)
            .all(|c| c["change"]["actions"] == serde_json::json!(["no-op"]));
        assert!(serving, "{}: the other team is untouched", tf.label);
        // Data sources are read during the plan: the plan JSON has them in `prior_state`.
        let workloads: Vec<&str> = plan["prior_state"]["values"]["root_module"]["resources"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|r| r["type"] == "eksgpu_gpu_catalog")
            .filter_map(|r| r["index"].as_str())
            .collect();
        assert_eq!(
            workloads,
            ["research-batch", "research-inference"],
            "{}: for_each by name",
            tf.label
        );
        w.apply();
        assert_eq!(generation("research-inference"), before, "{}: no spec change", tf.label);
        let out = w.outputs();
        assert_eq!(
            out["inference_selector"]["value"]["karpenter.sh/nodepool"], "research-inference",
            "{}: an output addressed by key",
            tf.label
        );

        // Renamed: the old name goes and the new one comes; the other pool stays as it is.
        w.write("main.tf", &teams(&kube, "batch = 2, serve = 4"));
        let plan = planned(&w);
        let pools = research_pools(&plan);
        assert_eq!(
            others_unchanged(&pools, &["research-inference", "research-serve"]),
            Vec::<String>::new(),
            "{}",
            tf.label
        );
        assert!(pools["research-inference"].1.is_null() && pools["research-serve"].0.is_null());
        let batch = generation("research-batch");
        w.apply();
        assert_eq!(generation("research-batch"), batch, "{}", tf.label);
        assert!(
            kube.get(eksgpu_acceptance_tests::kube::NODE_POOL, "research-inference")
                .is_none()
        );

        // Removed: only that pool goes, said by name.
        w.write("main.tf", &teams(&kube, "serve = 4"));
        let (_, r) = w.plan_code(&[]);
        assert!(
            words(&r.combined()).contains("Pool research-batch will be deleted"),
            "{}: {}",
            tf.label,
            r.combined()
        );
        let plan = planned(&w);
        let pools = research_pools(&plan);
        assert_eq!(
            others_unchanged(&pools, &["research-batch"]),
            Vec::<String>::new(),
            "{}",
            tf.label
        );
        assert!(pools["research-batch"].1.is_null(), "{}", tf.label);
        let serve = generation("research-serve");
        w.apply();
        assert!(
            kube.get(eksgpu_acceptance_tests::kube::NODE_POOL, "research-batch")
                .is_none()
        );
        assert_eq!(generation("research-serve"), serve, "{}", tf.label);
        w.assert_empty_plan();
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
    }
}
