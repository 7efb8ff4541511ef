//! The standalone device plugin (`device_plugin {}`) through the real Terraform CLI against the
//! Kubernetes API emulator: its values in state, the block recorded on the NodePool and read back
//! by `terraform import` (an empty plan after it), and `eksgpu_gpu_stack` merging two strategies'
//! values into one release.

use eksgpu_acceptance_tests::hcl::Provider;
use eksgpu_acceptance_tests::kube::{KubeTarget, NODE_POOL};
use eksgpu_acceptance_tests::{Workdir, terraform_versions};

fn strategy(name: &str, pool: &str, taint_key: &str) -> String {
    format!(
        r#"
resource "eksgpu_node_strategy" "{name}" {{
  cluster_name = "gpu"
  name         = "{name}"
  device_plugin {{
    mig_strategy = "mixed"
  }}
  pools = {{
    {pool} = {{
      capacity       = "karpenter"
      instance_types = ["g6e.12xlarge"]
      taints         = [{{ key = "{taint_key}", effect = "NoSchedule" }}]
      node_class     = {{ role = "KarpenterNodeRole-gpu" }}
    }}
  }}
}}
"#
    )
}

fn values(state: &serde_json::Value, address: &str) -> serde_json::Value {
    let r = state["values"]["root_module"]["resources"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["address"] == address)
        .unwrap_or_else(|| panic!("{address} not in state"));
    let text = r["values"]["device_plugin_values_yaml"].as_str().unwrap_or_default();
    eksgpu_core::stack::parse_values(text).unwrap_or_else(|| panic!("not Helm values: {text}"))
}

#[test]
fn the_device_plugin_block_applies_imports_and_merges() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let header = Provider::new().kube(&kube).header();
        let main_tf = format!(
            "{header}{}{}\ndata \"eksgpu_gpu_stack\" \"cluster\" {{\n  strategy {{\n    name = eksgpu_node_strategy.team_a.name\n    device_plugin_values_yaml = eksgpu_node_strategy.team_a.device_plugin_values_yaml\n  }}\n  strategy {{\n    name = eksgpu_node_strategy.team_b.name\n    device_plugin_values_yaml = eksgpu_node_strategy.team_b.device_plugin_values_yaml\n  }}\n}}\n\noutput \"merged\" {{\n  value = data.eksgpu_gpu_stack.cluster.device_plugin_values_yaml\n}}\n",
            strategy("team_a", "a-gpu", "team.example.com/a"),
            strategy("team_b", "b-gpu", "team.example.com/b"),
        );
        let w = Workdir::new(&tf, &main_tf);
        w.init();
        w.apply();
        w.assert_empty_plan();
        let state = serde_json::from_str(&w.ok(&["show", "-json"]).stdout).unwrap_or_default();
        let a = values(&state, "eksgpu_node_strategy.team_a");
        let terms =
            &a["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"];
        assert_eq!(
            terms[0]["matchExpressions"][0]["values"][0], "a-gpu",
            "{}: {a}",
            tf.label
        );
        let default = eksgpu_core::stack::parse_values(a["config"]["map"]["default"].as_str().unwrap_or_default());
        // No pool splits its GPUs: MIG devices are not enumerated.
        assert_eq!(default.unwrap()["flags"]["migStrategy"], "none");
        // The block is recorded on the NodePool, for import.
        let np = kube.get(NODE_POOL, "a-gpu").expect("NodePool applied");
        assert_eq!(
            np["metadata"]["annotations"]["eksgpu.terraform.io/device-plugin"],
            "{\"mig_strategy\":\"mixed\"}"
        );
        // One release for the cluster: both teams' pools and taints.
        let merged = w.outputs()["merged"]["value"].as_str().unwrap_or_default().to_owned();
        for want in ["a-gpu", "b-gpu", "team.example.com/a", "team.example.com/b"] {
            assert!(merged.contains(want), "{}: {want} not in\n{merged}", tf.label);
        }

        // Import into a fresh state: the block comes back from the NodePool and the plan is empty.
        let alone = format!("{header}{}", strategy("team_a", "a-gpu", "team.example.com/a"));
        let imported = Workdir::new(&tf, &alone);
        imported.init();
        imported.ok(&["import", "-no-color", "eksgpu_node_strategy.team_a", "gpu/team_a"]);
        imported.assert_empty_plan();
        let state = serde_json::from_str(&imported.ok(&["show", "-json"]).stdout).unwrap_or_default();
        assert_eq!(values(&state, "eksgpu_node_strategy.team_a"), a, "{}", tf.label);
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
    }
}
