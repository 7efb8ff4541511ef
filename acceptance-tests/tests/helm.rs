//! The Helm lane (`src/helm.rs`): every values output of every example and scenario, and of
//! every configuration the acceptance tests applied, rendered through its upstream chart by
//! Helm's own SDK and judged (the chart takes it, every key is one it reads, what renders means
//! what the pools say). `scripts/test` runs this file as its own step, after the acceptance
//! tests have left their values in `EKSGPU_VALUES_LOG`. Test names start with `helm_lane_` so
//! the acceptance step can leave them out (`--skip helm_lane_`).

use std::path::PathBuf;
use std::time::Instant;

use eksgpu_acceptance_tests::hcl::Provider;
use eksgpu_acceptance_tests::helm::{self, Record, Verdict, records};
use eksgpu_acceptance_tests::{Workdir, skip, terraform_versions};

/// The charts, or why this lane cannot run here.
fn lane() -> Result<PathBuf, String> {
    let charts = helm::charts_dir()?;
    eksgpu_acceptance_tests::tools::helm_python()?;
    Ok(charts)
}

/// Every example folder with a `.tf` file naming a type that renders values (modules of an
/// example are part of it, not examples).
fn examples() -> Vec<String> {
    fn walk(dir: &std::path::Path, rel: &str, out: &mut Vec<String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(Result::ok)
            .collect();
        entries.sort_by_key(std::fs::DirEntry::file_name);
        let renders = entries.iter().any(|e| {
            e.file_name().to_string_lossy().ends_with(".tf")
                && std::fs::read_to_string(e.path())
                    .is_ok_and(|t| helm::OUTPUTS.iter().any(|o| t.contains(&format!("\"{}\"", o.kind))))
        });
        if renders {
            out.push(rel.to_owned());
        }
        for e in entries.iter().filter(|e| e.path().is_dir()) {
            let name = e.file_name().to_string_lossy().into_owned();
            if name != "modules" && name != "tests" {
                walk(&e.path(), &format!("{rel}/{name}"), out);
            }
        }
    }
    let mut out = Vec::new();
    walk(
        &eksgpu_acceptance_tests::repo_root().join("examples"),
        "examples",
        &mut out,
    );
    out
}

fn report(what: &str, v: &Verdict, started: Instant) {
    eprintln!(
        "Helm lane, {what}: rendered {:?} in {:.1} s; {} problems",
        v.rendered,
        started.elapsed().as_secs_f64(),
        v.problems.len()
    );
    for n in &v.not_judged {
        eprintln!("  not judged by this chart version: {n}");
    }
    assert!(v.problems.is_empty(), "{what}:\n{}", v.problems.join("\n"));
}

/// Plans `example` (current CLI) against moto, whose DescribeCluster the examples that read
/// `eksgpu_cluster` need, and returns what the plan holds.
fn planned(
    tf: &eksgpu_acceptance_tests::TerraformVersion,
    moto: &eksgpu_acceptance_tests::Moto,
    example: &str,
) -> Vec<Record> {
    let mut w = Workdir::from_example(tf, example);
    let text: String = std::fs::read_dir(w.path())
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tf"))
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .collect();
    if !text.contains("provider \"eksgpu\"") {
        // The short `basic/` examples run under the provider block a reader already has.
        let header = Provider::new().header();
        let block = if text.contains("required_providers") {
            header
                .split_once("provider \"eksgpu\"")
                .map_or(String::new(), |(_, b)| format!("provider \"eksgpu\"{b}"))
        } else {
            header
        };
        w.write("provider.tf", &block);
    }
    w.env("AWS_ENDPOINT_URL", &moto.url());
    // A module example takes its variables from its own `terraform test` file.
    for (k, v) in test_variables(example) {
        w.env(&format!("TF_VAR_{k}"), &v);
    }
    w.init();
    w.ok(&["plan", "-no-color", "-input=false", "-out", "p.tfplan"]);
    let plan = serde_json::from_str(&w.ok(&["show", "-json", "p.tfplan"]).stdout).unwrap_or_default();
    records::from_plan(&plan, example)
}

/// The top-level `variables { k = "v" }` of an example's `tests/*.tftest.hcl`.
fn test_variables(example: &str) -> Vec<(String, String)> {
    let dir = eksgpu_acceptance_tests::repo_root().join(example).join("tests");
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().filter_map(Result::ok) {
        let text = std::fs::read_to_string(e.path()).unwrap_or_default();
        let Some((_, rest)) = text.split_once("\nvariables {\n") else {
            continue;
        };
        for line in rest.lines().take_while(|l| l.trim() != "}") {
            if let Some((k, v)) = line.split_once('=') {
                out.push((k.trim().to_owned(), v.trim().trim_matches('"').to_owned()));
            }
        }
    }
    out
}

#[test]
fn helm_lane_every_example_and_scenario_renders_through_its_charts() {
    let charts = match lane() {
        Ok(c) => c,
        Err(e) => return skip(&e),
    };
    let Some(tf) = terraform_versions().into_iter().next() else {
        return skip("no Terraform CLI selected");
    };
    let started = Instant::now();
    let (_kube, moto) = eksgpu_acceptance_tests::eks_cluster("gpu-cluster");
    let examples = examples();
    assert!(examples.len() >= 15, "{examples:?}");
    let mut all = Vec::new();
    let mut without = Vec::new();
    for example in &examples {
        let found = planned(&tf, &moto, example);
        if found.is_empty() {
            without.push(example.clone());
        }
        all.extend(found);
    }
    eprintln!(
        "planned {} examples in {:.1} s",
        examples.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        without.is_empty(),
        "examples whose plan holds none of their resources: {without:?}"
    );
    // Not vacuous: every values output of the table, and the stack's merge, renders somewhere.
    let renders = |kind: Option<&str>, attribute: &str| {
        all.iter().any(|r| {
            kind.is_none_or(|k| r.kind == k) && r.attributes[attribute].as_str().is_some_and(|s| !s.trim().is_empty())
        })
    };
    let mut unused: Vec<String> = helm::OUTPUTS
        .iter()
        .filter(|o| !renders(None, o.attribute))
        .map(|o| o.attribute.to_owned())
        .collect();
    if !renders(Some("eksgpu_gpu_stack"), "gpu_operator_values_yaml") {
        unused.push("eksgpu_gpu_stack.gpu_operator_values_yaml".into());
    }
    assert!(unused.is_empty(), "no example renders {unused:?}");
    report("examples and scenarios", &helm::judge(&charts, &all), started);
}

#[test]
fn helm_lane_renders_every_value_the_acceptance_tests_applied() {
    let charts = match lane() {
        Ok(c) => c,
        Err(e) => return skip(&e),
    };
    let Some(log) = std::env::var_os("EKSGPU_VALUES_LOG") else {
        return skip(
            "EKSGPU_VALUES_LOG is unset: scripts/test collects the acceptance tests' values there and renders them in \
             its Helm lane step",
        );
    };
    let started = Instant::now();
    let found = records::read_log(std::path::Path::new(&log));
    assert!(
        !found.is_empty(),
        "no values in {}: the acceptance step left none",
        PathBuf::from(&log).display()
    );
    let sources: std::collections::BTreeSet<&str> = found.iter().map(|r| r.source.as_str()).collect();
    eprintln!("{} instances from {} configurations", found.len(), sources.len());
    report("acceptance configurations", &helm::judge(&charts, &found), started);
}

/// A strategy with one pool of each kind of values: the GPU Operator and the DRA driver.
const STRATEGY: &str = r#"resource "eksgpu_node_strategy" "s" {
  cluster_name       = "gpu"
  name               = "lane"
  kubernetes_version = "1.34"
  gpu_operator {}
  pools = {
    inference = {
      capacity       = "karpenter"
      instance_types = ["g6e.12xlarge"]
      taints = [
        {
          key    = "team.example.com/ml"
          effect = "NoSchedule"
        },
      ]
      node_class = {
        role = "KarpenterNodeRole-gpu"
      }
    }
    dra = {
      capacity       = "managed_node_group"
      instance_types = ["p5.48xlarge"]
      dra            = true
      managed_node_group = {
        node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
        subnet_ids    = ["subnet-0123456789abcdef0"]
        scaling = {
          min     = 0
          max     = 2
          desired = 1
        }
      }
    }
  }
}
"#;

#[test]
fn helm_lane_a_misspelt_key_or_a_value_the_chart_refuses_fails_it() {
    let charts = match lane() {
        Ok(c) => c,
        Err(e) => return skip(&e),
    };
    let Some(tf) = terraform_versions().into_iter().next() else {
        return skip("no Terraform CLI selected");
    };
    let w = Workdir::new(&tf, &format!("{}{STRATEGY}", Provider::new().offline().header()));
    w.init();
    w.ok(&["plan", "-no-color", "-out", "p.tfplan"]);
    let plan = serde_json::from_str(&w.ok(&["show", "-json", "p.tfplan"]).stdout).unwrap_or_default();
    let good = records::from_plan(&plan, "lane");
    assert_eq!(good.len(), 1, "{good:?}");
    let as_is = helm::judge(&charts, &good);
    assert!(as_is.problems.is_empty(), "{:?}", as_is.problems);
    assert_eq!(as_is.rendered.values().sum::<usize>(), 3, "{:?}", as_is.rendered);

    let with = |attribute: &str, from: &str, to: &str| {
        let mut r = good[0].clone();
        let text = r.attributes[attribute].as_str().unwrap_or_default().to_owned();
        assert!(text.contains(from), "{attribute} has no {from:?}:\n{text}");
        r.attributes[attribute] = text.replacen(from, to, 1).into();
        helm::judge(&charts, &[r]).problems
    };
    // The operands' tolerations, misspelt: Helm would ignore the key and keep the chart's default.
    let p = with(
        "gpu_operator_values_yaml",
        "daemonsets:\n  tolerations:",
        "daemonsets:\n  tolerashuns:",
    );
    assert!(
        p.iter()
            .any(|p| p.contains("`daemonsets.tolerashuns` is not a value the chart reads")),
        "{p:?}"
    );
    // The meaning check sees what the misspelling does: the pools' taints are no longer tolerated.
    assert!(p.iter().any(|p| p.contains("do not tolerate pool")), "{p:?}");
    // The kubelet plugin's affinity sent elsewhere: the DRA pool's nodes get no driver.
    let p = with("dra_driver_values_yaml", "- gpu-dra", "- gpu-elsewhere");
    assert_eq!(
        p.iter()
            .filter(|p| p.contains("the kubelet plugin does not land on DRA pool dra's nodes"))
            .count(),
        2,
        "{p:?}"
    );
    // Without the override, the DRA chart's own validation template refuses GPU resources.
    let p = with(
        "dra_driver_values_yaml",
        "gpuResourcesEnabledOverride: true",
        "gpuResourcesEnabledOverride: false",
    );
    assert_eq!(p.len(), 2, "both DRA chart versions refuse: {p:?}");
    assert!(
        p.iter()
            .all(|p| p.contains("the chart refuses the values") && p.contains("validation.yaml")),
        "{p:?}"
    );
}

/// A strategy running NVIDIA's device plugin without the operator: a time-sliced and an MPS node
/// group (labels as their sharing pools hand them over), whole GPUs on Karpenter with a taint of
/// its own, and pools the plugin must keep off (Auto Mode, DRA).
const PLUGIN_STRATEGY: &str = r#"resource "eksgpu_node_strategy" "p" {
  cluster_name       = "gpu"
  name               = "plugin-lane"
  kubernetes_version = "1.34"
  device_plugin {}
  pools = {
    whole = {
      capacity       = "karpenter"
      instance_types = ["g6e.12xlarge"]
      taints         = [{ key = "team.example.com/ml", effect = "NoExecute" }]
      node_class     = { role = "KarpenterNodeRole-gpu" }
    }
    ts = {
      capacity       = "managed_node_group"
      instance_types = ["g5.2xlarge"]
      labels = {
        "nvidia.com/device-plugin.config"  = "a10g-ts2"
        "eksgpu.terraform.io/gpu-replicas" = "2"
      }
      managed_node_group = {
        node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
        subnet_ids    = ["subnet-0123456789abcdef0"]
        scaling       = { min = 0, max = 2, desired = 1 }
      }
    }
    mps = {
      capacity       = "managed_node_group"
      instance_types = ["g6e.12xlarge"]
      labels = {
        "nvidia.com/device-plugin.config"            = "l40s-mps4"
        "eksgpu.terraform.io/gpu-replicas"           = "4"
        "eksgpu.terraform.io/device-plugin-sharing" = "mps"
      }
      managed_node_group = {
        node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
        subnet_ids    = ["subnet-0123456789abcdef0"]
        scaling       = { min = 0, max = 2, desired = 1 }
      }
    }
    dra = {
      capacity       = "managed_node_group"
      instance_types = ["p5.48xlarge"]
      dra            = true
      managed_node_group = {
        node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
        subnet_ids    = ["subnet-0123456789abcdef0"]
        scaling       = { min = 0, max = 2, desired = 1 }
      }
    }
    auto = {
      capacity       = "auto_mode"
      instance_types = ["p5.48xlarge"]
    }
  }
}
"#;

/// The standalone device plugin's values through its chart: as rendered they pass; a config the
/// nodes select that the ConfigMap lacks, an affinity sent elsewhere, and each of the chart's own
/// refusals (`templates/validation.yml`: `config.name` together with `config.map`, several configs
/// without a default) fail the lane.
#[test]
fn helm_lane_the_device_plugin_chart_judges_its_values() {
    let charts = match lane() {
        Ok(c) => c,
        Err(e) => return skip(&e),
    };
    let Some(tf) = terraform_versions().into_iter().next() else {
        return skip("no Terraform CLI selected");
    };
    let w = Workdir::new(&tf, &format!("{}{PLUGIN_STRATEGY}", Provider::new().offline().header()));
    w.init();
    let r = w.ok(&["plan", "-no-color", "-out", "p.tfplan"]);
    // Auto Mode and node groups in one strategy warn (EKSGPU008); nothing about the plugin does.
    assert!(
        !r.combined().contains("EKSGPU13") && !r.combined().contains("EKSGPU19"),
        "{}",
        r.combined()
    );
    let plan = serde_json::from_str(&w.ok(&["show", "-json", "p.tfplan"]).stdout).unwrap_or_default();
    let good = records::from_plan(&plan, "lane");
    assert_eq!(good.len(), 1, "{good:?}");
    let as_is = helm::judge(&charts, &good);
    assert!(as_is.problems.is_empty(), "{:?}", as_is.problems);
    assert_eq!(
        as_is.rendered.get(helm::DEVICE_PLUGIN.label),
        Some(&1),
        "{:?}",
        as_is.rendered
    );
    let with = |from: &str, to: &str| {
        let mut r = good[0].clone();
        let text = r.attributes["device_plugin_values_yaml"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(text.contains(from), "no {from:?} in:\n{text}");
        r.attributes["device_plugin_values_yaml"] = text.replacen(from, to, 1).into();
        helm::judge(&charts, &[r]).problems
    };
    let p = with("a10g-ts2:", "a10g-ts3:");
    assert!(
        p.iter()
            .any(|p| p.contains("pool ts selects config \"a10g-ts2\", which the ConfigMap lacks")),
        "{p:?}"
    );
    let p = with("- gpu-ts", "- gpu-elsewhere");
    assert!(
        p.iter()
            .any(|p| p.contains("the device plugin does not land on pool ts's nodes")),
        "{p:?}"
    );
    let p = with("config:\n", "config:\n  name: device-plugin-config\n");
    assert!(
        p.iter()
            .any(|p| p.contains("the chart refuses the values")
                && p.contains("Only one of 'config.name' or 'config.map'")),
        "{p:?}"
    );
    let p = with("    default:", "    whole-gpus:");
    assert!(
        p.iter()
            .any(|p| p.contains("the chart refuses the values") && p.contains("A default config must be provided")),
        "{p:?}"
    );
}

/// Two strategies the DRA chart's release-wide values must fit: hybrid DRA nodes whose driver the
/// GPU Operator installs, and a GB200 pool (ComputeDomains from the DRA driver, GPUs from the
/// device plugin) beside an ordinary device-plugin pool.
const ONE_RELEASE: &str = r#"resource "eksgpu_node_strategy" "onprem" {
  cluster_name = "gpu"
  name         = "onprem"
  gpu_operator {}
  pools = {
    onprem = {
      capacity = "hybrid"
      dra      = true
      hybrid = {
        remote_node_networks = ["10.80.0.0/16"]
        node_role_arn        = "arn:aws:iam::123456789012:role/hybrid"
      }
    }
  }
}
resource "eksgpu_node_strategy" "gb200" {
  cluster_name = "gpu"
  name         = "gb200"
  gpu_operator {}
  pools = {
    nvl72 = {
      capacity          = "managed_node_group"
      instance_types    = ["p6e-gb200.36xlarge"]
      capacity_types    = ["capacity-block"]
      dra               = true
      multi_node_nvlink = true
      managed_node_group = {
        node_role_arn           = "arn:aws:iam::123456789012:role/gpu-nodes"
        subnet_ids              = ["subnet-0123456789abcdef0"]
        capacity_reservation_id = "cr-0123456789abcdef0"
        scaling                 = { min = 0, max = 2, desired = 0 }
      }
    }
    h100 = {
      capacity       = "managed_node_group"
      instance_types = ["p5.48xlarge"]
      managed_node_group = {
        node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
        subnet_ids    = ["subnet-0123456789abcdef0"]
        scaling       = { min = 0, max = 2, desired = 0 }
      }
    }
  }
}
"#;

/// The DRA chart's one DaemonSet, rendered: `nvidiaDriverRoot` where the GPU Operator installs
/// the hybrid nodes' driver, and a GB200 pool's release that serves ComputeDomains only. The
/// chart's kubelet plugin follows `resources.gpus.enabled` onto every node it lands on, so GPUs
/// turned on there put the GPU plugin on the GB200 nodes (why EKSGPU145 refuses such a strategy);
/// a root of `/` misses the operator's driver (EKSGPU146's reason).
#[test]
fn helm_lane_the_dra_chart_gets_its_driver_root_and_no_gpu_plugin_on_gb200_nodes() {
    let charts = match lane() {
        Ok(c) => c,
        Err(e) => return skip(&e),
    };
    let Some(tf) = terraform_versions().into_iter().next() else {
        return skip("no Terraform CLI selected");
    };
    let w = Workdir::new(&tf, &format!("{}{ONE_RELEASE}", Provider::new().offline().header()));
    w.init();
    w.ok(&["plan", "-no-color", "-out", "p.tfplan"]);
    let plan = serde_json::from_str(&w.ok(&["show", "-json", "p.tfplan"]).stdout).unwrap_or_default();
    let good = records::from_plan(&plan, "one-release");
    let record = |name: &str| {
        good.iter()
            .find(|r| r.address.ends_with(name))
            .cloned()
            .unwrap_or_else(|| panic!("no {name} in {good:?}"))
    };
    let as_is = helm::judge(&charts, &good);
    assert!(as_is.problems.is_empty(), "{:?}", as_is.problems);
    let with = |name: &str, edits: &[(&str, &str)]| {
        let mut r = record(name);
        let mut text = r.attributes["dra_driver_values_yaml"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        for (from, to) in edits {
            assert!(text.contains(from), "{name}: no {from:?} in:\n{text}");
            text = text.replacen(from, to, 1);
        }
        r.attributes["dra_driver_values_yaml"] = text.into();
        helm::judge(&charts, &[r]).problems
    };
    let root = "nvidiaDriverRoot: /run/nvidia/driver";
    let p = with("onprem", &[(root, "nvidiaDriverRoot: /")]);
    assert!(
        p.iter()
            .any(|p| p.contains("pool onprem's driver is at /run/nvidia/driver; the kubelet plugin reads it at /")),
        "{p:?}"
    );
    let gpus = [
        ("gpus:\n    enabled: false", "gpus:\n    enabled: true"),
        (
            "gpuResourcesEnabledOverride: false",
            "gpuResourcesEnabledOverride: true",
        ),
    ];
    let p = with("gb200", &gpus);
    assert!(
        p.iter()
            .any(|p| p.contains("the GPU kubelet plugin (container gpus) lands on pool nvl72's nodes")),
        "{p:?}"
    );
}
