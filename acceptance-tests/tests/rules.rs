//! Every rule the node strategy checks makes `terraform plan` fail (errors) or
//! warn (warnings) with its code, pointing at the attribute. Plans are offline.

use eksgpu_acceptance_tests::{Workdir, terraform_versions};

/// (code, is_error, pool body)
const CASES: &[(&str, bool, &str)] = &[
    (
        "EKSGPU001",
        true,
        r#"capacity = "auto_mode"
    instance_types = ["p5.48xlarge"]
    labels = { "nvidia.com/mig.config" = "all-1g.10gb" }"#,
    ),
    (
        "EKSGPU002",
        true,
        r#"capacity = "karpenter"
    instance_types = ["g5.2xlarge"]
    labels = { "nvidia.com/mig.config" = "all-1g.10gb" }
    node_class { role = "r" }"#,
    ),
    (
        "EKSGPU003",
        true,
        r#"capacity = "karpenter"
    instance_types = ["p5en.48xlarge"]
    labels = { "nvidia.com/mig.config" = "all-1g.10gb" }
    node_class { role = "r" }"#,
    ),
    (
        "EKSGPU004",
        true,
        r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    dra = true
    node_class { role = "r" }"#,
    ),
    (
        "EKSGPU004",
        true,
        r#"capacity = "managed_node_group"
    instance_types = ["p5.48xlarge"]
    dra = true
    managed_node_group {
      node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
      subnet_ids    = ["subnet-1"]
      scaling {
        min     = 0
        max     = 2
        desired = 0
      }
    }
  }
  kubernetes_version = "1.33"
  pool {
    name = "q"
    capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    node_class { role = "r" }"#,
    ),
    (
        "EKSGPU005",
        true,
        r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    disruption {
      consolidation_policy = "WhenUnderutilized"
      consolidate_after    = "5m"
    }
    node_class { role = "r" }"#,
    ),
    (
        "EKSGPU006",
        true,
        r#"capacity = "auto_mode"
    instance_types = ["g6e.xlarge"]
    node_class {
      kubelet { max_pods = 110 }
    }"#,
    ),
    (
        "EKSGPU009",
        false,
        r#"capacity = "auto_mode"
    instance_types = ["p5en.48xlarge"]"#,
    ),
    (
        "EKSGPU010",
        true,
        r#"capacity = "auto_mode"
    instance_types = ["g6e.xlarge"]
    labels = { "nvidia.com/gpu.deploy.device-plugin" = "true" }"#,
    ),
    (
        "EKSGPU011",
        false,
        r#"capacity = "karpenter"
    instance_types = ["g5.2xlarge"]
    labels = { "nvidia.com/device-plugin.config" = "ts-2" }
    node_class { role = "r" }"#,
    ),
    (
        "EKSGPU014",
        false,
        r#"capacity = "karpenter"
    instance_types = ["g5.2xlarge"]
    gpu_taint = false
    node_class { role = "r" }"#,
    ),
    (
        "EKSGPU015",
        true,
        r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    labels = { "nvidia.com/mig.config" = "all-balanced" }
    node_class { role = "r" }"#,
    ),
    (
        "EKSGPU016",
        true,
        r#"capacity = "karpenter"
    instance_types = ["m5.large"]
    node_class { role = "r" }"#,
    ),
    (
        "EKSGPU017",
        true,
        r#"capacity = "karpenter"
    instance_types = ["g5.2xlarge"]
    labels = { "gpu" = "on" }
    node_class { role = "r" }"#,
    ),
    (
        "EKSGPU101",
        false,
        r#"capacity = "karpenter"
    instance_types = ["g6f.xlarge"]
    node_class { role = "r" }"#,
    ),
    (
        "EKSGPU102",
        true,
        r#"capacity = "auto_mode"
    instance_types = ["g5.2xlarge"]
    labels = { "nvidia.com/device-plugin.config" = "ts-2" }"#,
    ),
    (
        "EKSGPU103",
        true,
        r#"capacity = "auto_mode"
    instance_types = ["g6e.xlarge"]
    node_class { ami_alias = "al2023@latest" }"#,
    ),
    (
        "EKSGPU104",
        true,
        r#"capacity = "karpenter"
    instance_types = ["g6e.xlarge"]"#,
    ),
    (
        "EKSGPU105",
        true,
        r#"capacity = "karpenter"
    instance_types = ["g6e.xlarge"]
    node_class { role = "r" }
  }
  pool {
    name = "p"
    capacity = "karpenter"
    instance_types = ["g6e.xlarge"]
    node_class { role = "r" }"#,
    ),
    (
        "EKSGPU106",
        true,
        r#"capacity = "karpenter"
    instance_types = ["g6e.xlarge"]
    capacity_types = ["SPOT"]
    node_class { role = "r" }"#,
    ),
    (
        "EKSGPU007",
        true,
        r#"capacity = "hybrid"
    hybrid {
      remote_node_networks = ["10.80.0.0/16", "8.8.8.0/24"]
      node_role_arn        = "arn:aws:iam::123456789012:role/hybrid"
    }"#,
    ),
    (
        "EKSGPU008",
        false,
        r#"capacity = "auto_mode"
    instance_types = ["g6e.xlarge"]
  }
  pool {
    name = "q"
    capacity = "managed_node_group"
    instance_types = ["g6e.xlarge"]
    managed_node_group {
      node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
      subnet_ids    = ["subnet-1"]
      scaling {
        min     = 0
        max     = 2
        desired = 0
      }
    }"#,
    ),
    (
        "EKSGPU013",
        true,
        r#"capacity = "managed_node_group"
    instance_types = ["g5g.xlarge"]
    managed_node_group {
      node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
      subnet_ids    = ["subnet-1"]
      ami_type = "AL2023_x86_64_NVIDIA"
      scaling {
        min     = 0
        max     = 2
        desired = 0
      }
    }"#,
    ),
    (
        "EKSGPU115",
        true,
        r#"capacity = "managed_node_group"
    instance_types = ["g6e.xlarge"]"#,
    ),
    (
        "EKSGPU116",
        true,
        r#"capacity = "hybrid"
    hybrid {
      remote_node_networks = ["10.80.0.0/16"]
      node_role_arn        = "arn:aws:iam::123456789012:role/hybrid"
    }
  }
  pool {
    name = "q"
    capacity = "hybrid"
    hybrid {
      remote_node_networks = ["10.81.0.0/16"]
      node_role_arn        = "arn:aws:iam::123456789012:role/hybrid"
    }"#,
    ),
    (
        "EKSGPU117",
        true,
        r#"capacity = "managed_node_group"
    instance_types = ["g6e.xlarge"]
    capacity_types = ["reserved"]
    managed_node_group {
      node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
      subnet_ids    = ["subnet-1"]
      scaling {
        min     = 0
        max     = 2
        desired = 0
      }
    }"#,
    ),
    (
        "EKSGPU118",
        true,
        r#"capacity = "karpenter"
    instance_types = ["g6e.xlarge"]
    node_class {
      role      = "r"
      ami_alias = "al2023"
    }"#,
    ),
    (
        "EKSGPU119",
        true,
        r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    capacity_types = ["reserved"]
    node_class { role = "r" }"#,
    ),
    (
        "EKSGPU120",
        true,
        r#"capacity = "auto_mode"
    instance_types = ["g6e.xlarge"]
    node_class {
      tags = { team = "ml" }
    }"#,
    ),
    (
        "EKSGPU121",
        true,
        r#"capacity = "karpenter"
    instance_types = ["g5.2xlarge"]
    labels = { "nvidia.com/device-plugin.config" = "ts-2" }
    node_class {
      role      = "r"
      ami_alias = "bottlerocket@latest"
    }"#,
    ),
    (
        "EKSGPU122",
        false,
        r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    labels = { "nvidia.com/mig.config" = "all-1g.10gb" }
    node_class { role = "r" }"#,
    ),
    (
        "EKSGPU123",
        false,
        r#"capacity = "karpenter"
    instance_types = ["g6e.xlarge"]
    node_class {
      role = "r"
      root_volume { size = "20Gi" }
    }"#,
    ),
    (
        "EKSGPU125",
        true,
        r#"capacity = "managed_node_group"
    instance_types = ["p5.48xlarge"]
    tags = { "eksgpu.terraform.io/strategy" = "other" }
    managed_node_group {
      node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
      subnet_ids    = ["subnet-1"]
      disk_size     = 200
      scaling {
        min     = 0
        max     = 2
        desired = 0
      }
    }"#,
    ),
    (
        "EKSGPU126",
        true,
        r#"capacity = "karpenter"
    instance_types = ["g6e.xlarge"]
    efa = true
    zones = ["us-west-2a"]
    node_class { role = "r" }"#,
    ),
    (
        "EKSGPU127",
        false,
        r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    efa = true
    node_class {
      role = "r"
      root_volume { size = "200Gi" }
    }"#,
    ),
    (
        "EKSGPU128",
        false,
        r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    node_class {
      role = "r"
      root_volume { size = "200Gi" }
      capacity_reservation { id = "cr-0123456789abcdef0" }
    }"#,
    ),
    (
        "EKSGPU129",
        true,
        r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    capacity_types = ["reserved"]
    node_class {
      role = "r"
      capacity_reservation {
        id   = "cr-0123456789abcdef0"
        tags = { purpose = "training" }
      }
    }"#,
    ),
    (
        "EKSGPU124",
        true,
        r#"capacity = "auto_mode"
    instance_types = ["g6e.xlarge"]
    node_class {
      role = "r"
      metadata_options { http_put_response_hop_limit = 2 }
    }"#,
    ),
];

fn config(body: &str, mig_strategy: &str) -> String {
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
  cluster_name = "gpu"
  name         = "rules"
  gpu_operator {{
    mig_strategy = "{mig_strategy}"
  }}
  pool {{
    name = "p"
    {body}
  }}
}}
"#
    )
}

#[test]
fn every_node_strategy_rule_fails_or_warns_a_plan_with_its_code() {
    for tf in terraform_versions() {
        for (code, is_error, body) in CASES {
            let mig = if *code == "EKSGPU015" { "single" } else { "mixed" };
            let w = Workdir::new(&tf, &config(body, mig));
            w.init();
            let (exit, r) = w.plan_code(&[]);
            let out = r.combined();
            assert!(out.contains(code), "{} {code}: code missing:\n{out}", tf.label);
            let expected = if *is_error { 1 } else { 2 };
            assert_eq!(exit, expected, "{} {code}: exit {exit}:\n{out}", tf.label);
            // The diagnostic quotes the configuration line it is about.
            assert!(
                out.contains(&format!("{}: ", if *is_error { "Error" } else { "Warning" })),
                "{out}"
            );
        }
    }
}

/// (code, is_error, sharing pool body)
const SHARING_CASES: &[(&str, bool, &str)] = &[
    (
        "EKSGPU001",
        true,
        r#"instance_type = "p5.48xlarge"
  capacity = "auto_mode"
  strategy = "mig"
  mig { config = "all-1g.10gb" }"#,
    ),
    (
        "EKSGPU002",
        true,
        r#"instance_type = "g5.2xlarge"
  strategy = "mig"
  mig { config = "all-1g.10gb" }"#,
    ),
    (
        "EKSGPU003",
        true,
        r#"instance_type = "p5en.48xlarge"
  strategy = "mig"
  mig { profiles = { "1g.10gb" = 7 } }"#,
    ),
    (
        "EKSGPU011",
        false,
        r#"instance_type = "g5.2xlarge"
  capacity = "karpenter"
  strategy = "time_slicing"
  time_slicing { replicas = 2 }"#,
    ),
    (
        "EKSGPU012",
        true,
        r#"instance_type = "g5.2xlarge"
  strategy = "time_slicing"
  time_slicing { replicas = 2 }
  workload {
    name       = "vllm-a"
    memory_mib = 20599
  }
  workload {
    name       = "vllm-b"
    memory_mib = 20599
  }"#,
    ),
    (
        "EKSGPU015",
        true,
        r#"instance_type = "p5.48xlarge"
  strategy = "mig"
  mig {
    strategy = "single"
    config   = "all-balanced"
  }"#,
    ),
    (
        "EKSGPU017",
        true,
        r#"instance_type = "g5.2xlarge"
  capacity = "auto_mode"
  strategy = "hami"
  hami {}"#,
    ),
    (
        "EKSGPU102",
        true,
        r#"instance_type = "g5.2xlarge"
  capacity = "auto_mode"
  strategy = "mps"
  mps { replicas = 2 }"#,
    ),
    ("EKSGPU107", true, r#"strategy = "exclusive""#),
    (
        "EKSGPU108",
        true,
        r#"instance_type = "g5.2xlarge"
  strategy = "time_slicing"
  time_slicing { replicas = 1 }"#,
    ),
    (
        "EKSGPU109",
        true,
        r#"instance_type = "p5en.48xlarge"
  strategy = "mig"
  mig { profiles = { "1g.18gb" = 3 } }"#,
    ),
    (
        "EKSGPU110",
        true,
        r#"instance_type = "g5.2xlarge"
  strategy = "dra"
  dra { namespace = "inference" }
  workload {
    name       = "elsewhere"
    memory_mib = 1000
    namespace  = "batch"
  }"#,
    ),
    (
        "EKSGPU131",
        false,
        r#"instance_type = "g5.2xlarge"
  strategy = "dra"
  dra {
    namespace = "inference"
    sharing   = "mps"
  }"#,
    ),
];

#[test]
fn every_sharing_pool_rule_fails_or_warns_a_plan_with_its_code() {
    for tf in terraform_versions() {
        for (code, is_error, body) in SHARING_CASES {
            let main_tf = format!(
                "terraform {{\n  required_providers {{\n    eksgpu = {{ source = \"eksgpu/eksgpu\" }}\n  }}\n}}\n\
                 provider \"eksgpu\" {{\n  region = \"us-west-2\"\n}}\n\
                 resource \"eksgpu_sharing_pool\" \"s\" {{\n  cluster_name = \"gpu\"\n  name = \"p\"\n  {body}\n}}\n"
            );
            let w = Workdir::new(&tf, &main_tf);
            w.init();
            let (exit, r) = w.plan_code(&[]);
            let out = r.combined();
            assert!(out.contains(code), "{} {code}: code missing:\n{out}", tf.label);
            assert_eq!(exit, if *is_error { 1 } else { 2 }, "{} {code}:\n{out}", tf.label);
        }
    }
}

/// Every rule of the catalogue has a case in the acceptance tests that makes
/// Terraform report it (a plan, or for cluster facts an apply or data source).
#[test]
fn every_rule_has_an_acceptance_case() {
    let dir = eksgpu_acceptance_tests::repo_root().join("acceptance-tests/tests");
    let all: String = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect();
    let missing: Vec<eksgpu_core::rules::Code> = eksgpu_core::rules::RULES
        .iter()
        .map(|r| r.code)
        .filter(|code| !all.contains(&format!("\"{code}\"")))
        .collect();
    assert!(missing.is_empty(), "rules without an acceptance case: {missing:?}");
}

/// Rules whose case needs a configuration of its own: EKSGPU132 a strategy without
/// `gpu_operator` (the shared configuration always has one), EKSGPU130 Karpenter 1.15.
#[test]
fn warnings_that_need_their_own_configuration() {
    let cases = [
        (
            "EKSGPU132",
            "",
            r#"pool {
    name           = "p"
    capacity       = "karpenter"
    instance_types = ["g6e.xlarge"]
    node_class {
      role = "r"
      root_volume { size = "200Gi" }
    }
  }"#,
        ),
        (
            "EKSGPU130",
            "karpenter_version = \"1.15\"",
            r#"kubernetes_version = "1.34"
  gpu_operator {}
  pool {
    name           = "p"
    capacity       = "karpenter"
    instance_types = ["p5.48xlarge"]
    dra            = true
    node_class {
      role = "r"
      root_volume { size = "200Gi" }
    }
  }"#,
        ),
    ];
    for tf in terraform_versions() {
        for (code, provider, body) in cases {
            let main_tf = format!(
                "terraform {{\n  required_providers {{\n    eksgpu = {{ source = \"eksgpu/eksgpu\" }}\n  }}\n}}\n\
                 provider \"eksgpu\" {{\n  region = \"us-west-2\"\n  {provider}\n}}\n\
                 resource \"eksgpu_node_strategy\" \"s\" {{\n  cluster_name = \"gpu\"\n  name = \"rules\"\n  {body}\n}}\n"
            );
            let w = Workdir::new(&tf, &main_tf);
            w.init();
            let (exit, r) = w.plan_code(&[]);
            let out = r.combined();
            assert!(
                out.contains(code) && out.contains("Warning: "),
                "{} {code}: {out}",
                tf.label
            );
            assert_eq!(exit, 2, "{} {code}: {out}", tf.label);
        }
    }
}
