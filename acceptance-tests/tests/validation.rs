//! Plan rejects what EKS and the API server would reject, at the attribute,
//! with what to write instead — one configuration per class of input, on
//! Terraform current and 1.0.3, with no cluster and no AWS call.

use eksgpu_acceptance_tests::hcl::Provider;
use eksgpu_acceptance_tests::{Workdir, terraform_versions};

/// A node strategy with one Karpenter pool whose body is `pool`.
fn strategy(name: &str, pool: &str) -> String {
    format!(
        r#"
resource "eksgpu_node_strategy" "{name}" {{
  cluster_name = "gpu"
  name         = "{name}"
  pools = {{
    gpu = {{
      capacity       = "karpenter"
      instance_types = ["g6e.12xlarge"]
      {pool}
    }}
  }}
}}
"#
    )
}

/// Plans `resources` and asserts the plan fails with each `(attribute path, text)`.
fn fails_at(resources: &str, expected: &[(&str, &str)]) {
    let main_tf = format!("{}{resources}", Provider::new().offline().header());
    for tf in terraform_versions() {
        let w = Workdir::new(&tf, &main_tf);
        w.init();
        let r = w.run(&["plan", "-no-color"]);
        let flat = r
            .combined()
            .replace('│', " ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert_ne!(r.code, 0, "{}: must fail:\n{flat}", tf.label);
        assert!(!flat.contains("panic"), "{flat}");
        for (path, text) in expected {
            assert!(
                flat.contains(&format!("{path}: ")) && flat.contains(text),
                "{}: expected {path:?} with {text:?} in:\n{flat}",
                tf.label
            );
        }
    }
}

#[test]
fn kubernetes_names_labels_and_taints_are_checked_at_plan() {
    fails_at(
        &[
            strategy(
                "labels",
                r#"    labels = { "team" = "a b", "bad key!" = "x" }
    taints = [
      {
        key    = "nvidia.com/gpu shared"
        effect = "NoSchedule"
      },
    ]
    node_class = {
      role = "R"
    }"#,
            ),
            r#"
resource "eksgpu_sharing_pool" "paths" {
  cluster_name     = "gpu"
  name             = "../kube-system"
  config_namespace = "Kube_System"
  instance_type    = "g6e.xlarge"
  strategy         = "exclusive"
}
"#
            .to_owned(),
        ]
        .concat(),
        &[
            (r#"pools["gpu"].labels["team"]"#, "a b"),
            (r#"pools["gpu"].labels["bad key!"]"#, "bad key!"),
            ("pools[\"gpu\"].taints[0].key", "nvidia.com/gpu shared"),
            ("name", "../kube-system"),
            ("config_namespace", "Kube_System"),
        ],
    );
}

#[test]
fn karpenter_and_ebs_values_and_numbers_are_checked_at_plan() {
    fails_at(
        &strategy(
            "values",
            r#"    gpu_limit = 2.5
    node_class = {
      role = "R"
      root_volume = {
        size        = "200 GB"
        volume_type = "gp9"
        iops        = 1000000
      }
      kubelet = {
        max_pods      = 3000000000
        eviction_hard = { "cpu.available" = "5%" }
      }
    }
    disruption = {
      consolidate_after = "5 minutes"
    }"#,
        ),
        &[
            ("pools[\"gpu\"].gpu_limit", "2.5 is not a whole number"),
            ("pools[\"gpu\"].node_class.root_volume.size", "200 GB"),
            ("pools[\"gpu\"].node_class.root_volume.volume_type", "gp9"),
            ("pools[\"gpu\"].node_class.root_volume.iops", "1000000"),
            ("pools[\"gpu\"].node_class.kubelet.max_pods", "int32"),
            (
                r#"pools["gpu"].node_class.kubelet.eviction_hard["cpu.available"]"#,
                "cpu.available",
            ),
            ("pools[\"gpu\"].disruption.consolidate_after", "5 minutes"),
        ],
    );
}

#[test]
fn labels_karpenter_restricts_fail_at_plan() {
    fails_at(
        &strategy(
            "restricted",
            r#"    labels = { "karpenter.sh/team" = "a" }
    node_class = {
      role = "R"
    }"#,
        ),
        &[(r#"pools["gpu"].labels["karpenter.sh/team"]"#, "Label Karpenter refuses")],
    );
}

#[test]
fn node_group_names_eks_refuses_fail_at_plan() {
    // `<cluster_name>-<pool name>` over 63 characters: EKS CreateNodegroup refuses it.
    let long = "a".repeat(60);
    fails_at(
        &format!(
            r#"
resource "eksgpu_node_strategy" "mng" {{
  cluster_name = "gpu-cluster"
  name         = "mng"
  pools = {{
    "{long}" = {{
      capacity       = "managed_node_group"
      instance_types = ["g6e.12xlarge"]
      managed_node_group = {{
        node_role_arn = "arn:aws:iam::123456789012:role/nodes"
        subnet_ids    = ["subnet-1"]
        scaling = {{
          min     = 0
          max     = 2
          desired = 0
        }}
      }}
    }}
  }}
}}
"#
        ),
        &[(&format!("pools[\"{long}\"]"), "gpu-cluster-aaaa")],
    );
}

#[test]
fn scaler_inputs_are_checked_at_plan() {
    fails_at(
        r#"
resource "eksgpu_burst_scaler" "b" {
  cluster_name          = "gpu"
  namespace             = "inference"
  name                  = "burst"
  max_replicas          = 3
  polling_interval      = 0
  prometheus_address    = "ftp://prometheus:9090"
  on_prem_waiting_query = "sum(w)"
  cloud_running_query   = "sum(r)"
  target {
    name = "vllm"
    kind = "Job"
  }
  pre_warm {
    timezone = "Mars/Olympus Mons"
    start    = "every morning"
    end      = "0 10 * * *"
  }
}
"#,
        &[
            ("polling_interval", "pollingInterval"),
            ("prometheus_address", "ftp://prometheus:9090"),
            ("target[0].kind", "Job"),
            ("pre_warm[0].timezone", "Mars/Olympus Mons"),
            ("pre_warm[0].start", "every morning"),
        ],
    );
}

/// EKSGPU111 (a plan rule, not an attribute validator) points at the pre-warm
/// window's attribute, not at the resource.
#[test]
fn a_pre_warm_window_ending_where_it_starts_fails_at_its_end() {
    let main_tf = format!(
        "{}{}",
        Provider::new().offline().header(),
        r#"
resource "eksgpu_burst_scaler" "b" {
  cluster_name          = "gpu"
  namespace             = "inference"
  name                  = "burst"
  max_replicas          = 3
  prometheus_address    = "http://prometheus:9090"
  on_prem_waiting_query = "sum(w)"
  cloud_running_query   = "sum(r)"
  target {
    name = "vllm"
  }
  pre_warm {
    timezone = "Asia/Seoul"
    start    = "0 9 * * *"
    end      = "0 9 * * *"
  }
}
"#
    );
    for tf in terraform_versions() {
        let w = Workdir::new(&tf, &main_tf);
        w.init();
        let r = w.run(&["plan", "-no-color"]);
        let flat = r
            .combined()
            .replace('│', " ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert_ne!(r.code, 0, "{}: must fail:\n{flat}", tf.label);
        // Terraform quotes the source line of the attribute the diagnostic points at.
        assert!(
            flat.contains("EKSGPU111")
                && flat.contains(r#"end = "0 9 * * *" A pre-warm window's end must differ from its start"#),
            "{}: not at pre_warm[0].end:\n{flat}",
            tf.label
        );
    }
}

/// Issue #14's inputs: NodePool limits, weight, expiry and budgets; EC2NodeClass IMDS and
/// capacity reservations; node group release, disk and tags.
#[test]
fn node_pool_node_class_and_node_group_settings_are_checked_at_plan() {
    fails_at(
        &strategy(
            "settings",
            r#"    cpu_limit    = "1000 cores"
    weight       = 0
    expire_after = "30d"
    tags         = { "aws:owner" = "x" }
    disruption = {
      consolidate_after = "5m"
      budgets = [
        {
          nodes    = "110%"
          schedule = "every day"
          duration = "90s"
          reasons  = ["Expired"]
        },
      ]
    }
    node_class = {
      role                  = "R"
      instance_store_policy = "RAID1"
      metadata_options = {
        http_tokens                 = "disabled"
        http_put_response_hop_limit = 65
      }
      capacity_reservations = [
        {
          id       = "cr_123"
          owner_id = "1234"
        },
      ]
    }"#,
        ),
        &[
            ("pools[\"gpu\"].cpu_limit", "1000 cores"),
            ("pools[\"gpu\"].weight", "NodePool `weight`"),
            ("pools[\"gpu\"].expire_after", "30d"),
            (r#"pools["gpu"].tags["aws:owner"]"#, "aws:"),
            ("pools[\"gpu\"].disruption.budgets[0].nodes", "110%"),
            ("pools[\"gpu\"].disruption.budgets[0].schedule", "every day"),
            ("pools[\"gpu\"].disruption.budgets[0].duration", "90s"),
            ("pools[\"gpu\"].disruption.budgets[0].reasons[0]", "Expired"),
            ("pools[\"gpu\"].node_class.instance_store_policy", "RAID1"),
            ("pools[\"gpu\"].node_class.metadata_options.http_tokens", "disabled"),
            (
                "pools[\"gpu\"].node_class.metadata_options.http_put_response_hop_limit",
                "65",
            ),
            ("pools[\"gpu\"].node_class.capacity_reservations[0].id", "cr_123"),
            ("pools[\"gpu\"].node_class.capacity_reservations[0].owner_id", "1234"),
        ],
    );
    fails_at(
        r#"
resource "eksgpu_node_strategy" "mng" {
  cluster_name = "gpu"
  name         = "mng"
  pools = {
    gpu = {
      capacity       = "managed_node_group"
      instance_types = ["p5.48xlarge"]
      managed_node_group = {
        node_role_arn   = "arn:aws:iam::123456789012:role/n"
        subnet_ids      = ["subnet-1"]
        release_version = "latest"
        disk_size       = 0
        scaling = {
          min     = 0
          max     = 1
          desired = 0
        }
        update = {
          max_unavailable_percentage = 101
        }
        metadata_options = {
          http_tokens                 = "disabled"
          http_put_response_hop_limit = 65
        }
        security_group_ids = ["default"]
      }
    }
  }
}
"#,
        &[
            ("pools[\"gpu\"].managed_node_group.security_group_ids[0]", "default"),
            (
                "pools[\"gpu\"].managed_node_group.metadata_options.http_tokens",
                "disabled",
            ),
            (
                "pools[\"gpu\"].managed_node_group.metadata_options.http_put_response_hop_limit",
                "65",
            ),
            ("pools[\"gpu\"].managed_node_group.release_version", "latest"),
            ("pools[\"gpu\"].managed_node_group.disk_size", "diskSize"),
            (
                "pools[\"gpu\"].managed_node_group.update.max_unavailable_percentage",
                "101",
            ),
        ],
    );
}

/// Issue #26: values that match a shape but not the parser or API behind it. Karpenter parses
/// durations into Go's `time.Duration` (at most 2562047h47m16s); the API server matches budget
/// schedules under RE2 (a trailing newline is no match); EKS writes Kubernetes versions without
/// `v`; IAM role names have at most 64 characters; KEDA loads time zones from the IANA database;
/// PromQL must parse.
#[test]
fn parser_and_eks_limits_and_lookups_are_checked_at_plan() {
    let role = format!("arn:aws:iam::123456789012:role/{}", "r".repeat(65));
    fails_at(
        &format!(
            r#"
resource "eksgpu_node_strategy" "limits" {{
  cluster_name       = "gpu"
  name               = "limits"
  kubernetes_version = "v1.30"
  pools = {{
    gpu = {{
      capacity       = "karpenter"
      instance_types = ["g6e.12xlarge"]
      expire_after   = "2562048h"
      disruption = {{
        budgets = [
          {{
            nodes    = "0"
            schedule = "0 9 * * 1-5\n"
            duration = "8h"
          }},
        ]
      }}
      node_class = {{
        role = "R"
      }}
    }}
    mng = {{
      capacity       = "managed_node_group"
      instance_types = ["g6e.12xlarge"]
      managed_node_group = {{
        node_role_arn = "{role}"
        subnet_ids    = ["subnet-1"]
        disk_size     = 200
        scaling = {{
          min     = 0
          max     = 1
          desired = 0
        }}
      }}
    }}
  }}
}}

resource "eksgpu_burst_scaler" "b" {{
  cluster_name          = "gpu"
  namespace             = "inference"
  name                  = "burst"
  max_replicas          = 3
  prometheus_address    = "http://prometheus:9090"
  on_prem_waiting_query = "sum(vllm:num_requests_waiting"
  cloud_running_query   = "sum(r)"
  target {{
    name = "vllm"
  }}
  pre_warm {{
    timezone = "Mars/Olympus"
    start    = "0 6 * * 1-5"
    end      = "0 10 * * 1-5"
  }}
}}
"#
        ),
        &[
            ("kubernetes_version", "v1.30"),
            ("pools[\"gpu\"].expire_after", "time.Duration"),
            ("pools[\"gpu\"].disruption.budgets[0].schedule", "CRD pattern"),
            ("pools[\"mng\"].managed_node_group.node_role_arn", "64"),
            ("on_prem_waiting_query", "sum(vllm:num_requests_waiting"),
            ("pre_warm[0].timezone", "Mars/Olympus"),
        ],
    );
}

/// A 64 KiB input in an error is shortened to its ends: the error keeps its path, its reason
/// and its advice readable instead of filling the terminal (the value is computed, so
/// Terraform's own source snippet stays one short line).
#[test]
fn errors_echo_a_64_kib_input_shortened() {
    let main_tf = format!(
        "{}{}",
        Provider::new().offline().header(),
        strategy("big", r#"    cpu_limit = replace(format("%65536s", "END"), " ", "y")"#)
    );
    for tf in terraform_versions() {
        let w = Workdir::new(&tf, &main_tf);
        w.init();
        let r = w.run(&["plan", "-no-color"]);
        let out = r.combined();
        assert_ne!(r.code, 0, "{}: must fail", tf.label);
        assert!(out.len() < 8 * 1024, "{}: {} bytes of output", tf.label, out.len());
        let flat = out.replace('│', " ").split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains("pools[\"gpu\"].cpu_limit"), "{}: {flat}", tf.label);
        assert!(flat.contains("characters left out"), "{}: {flat}", tf.label);
        assert!(flat.contains("yyyEND"), "{}: the value's end is kept: {flat}", tf.label);
    }
}
