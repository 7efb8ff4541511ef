//! A state written by the release before pools became a map (`fixtures/state-v4`, schema
//! version 4: `pool` blocks) upgrades in place: with the objects that release applied in the
//! cluster, the same pools written as `pools = { … }` plan nothing, and the upgraded state holds
//! the pools keyed by name. In the real API server lane the objects are judged by the real server.

use eksgpu_acceptance_tests::hcl::Provider;
use eksgpu_acceptance_tests::kube::{EC2_NODE_CLASS, KubeTarget, NODE_POOL, TestKind};
use eksgpu_acceptance_tests::{Workdir, repo_root, terraform_versions};
use serde_json::Value;

/// The pools of `fixtures/state-v4/main.tf.v4`, in today's form.
const POOLS: &str = r#"
resource "eksgpu_node_strategy" "s" {
  cluster_name       = "gpu"
  name               = "genai"
  kubernetes_version = "1.34"
  gpu_operator {}

  pools = {
    serving = {
      capacity       = "karpenter"
      instance_types = ["g6e.12xlarge", "p5.48xlarge"]
      capacity_types = ["on-demand", "spot"]
      gpu_limit      = 32
      labels         = { team = "ml" }
      taints         = [{ key = "team", value = "ml", effect = "NoSchedule" }]
      disruption = {
        consolidation_policy = "WhenEmpty"
        consolidate_after    = "10m"
        budgets              = [{ nodes = "1" }]
      }
      node_class = {
        role        = "KarpenterNodeRole-gpu"
        root_volume = { size = "200Gi" }
        kubelet     = { max_pods = 110 }
        block_device_mappings = [
          { device_name = "/dev/xvdb", volume_size = "500Gi", volume_type = "gp3" },
        ]
      }
    }
    batch = {
      capacity     = "karpenter"
      requirements = [{ key = "karpenter.k8s.aws/instance-family", operator = "In", values = ["g6e"] }]
      node_class = {
        role        = "KarpenterNodeRole-gpu"
        root_volume = { size = "200Gi" }
      }
    }
    auto = {
      capacity       = "auto_mode"
      instance_types = ["g6e.12xlarge"]
    }
  }
}
"#;

fn fixture() -> Value {
    let path = repo_root().join("acceptance-tests/fixtures/state-v4/pools-as-blocks.tfstate");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn kind_of(doc: &Value) -> TestKind {
    match doc["kind"].as_str() {
        Some("NodePool") => NODE_POOL,
        Some("EC2NodeClass") => EC2_NODE_CLASS,
        other => panic!("the fixture's pools render only NodePools and EC2NodeClasses, not {other:?}"),
    }
}

/// The objects the old release applied: every document of every pool's `manifests_yaml`, with the
/// owner token it stamped on them (`eksgpu_core::ownership::stamp`), by its field manager.
fn seed(kube: &KubeTarget, attributes: &Value) {
    let token = attributes["owner_token"]
        .as_str()
        .unwrap_or_else(|| panic!("the fixture has an owner token"));
    let pools = attributes["pool"]
        .as_array()
        .unwrap_or_else(|| panic!("the fixture's pools are a list"));
    for pool in pools {
        let yaml = pool["manifests_yaml"].as_str().unwrap_or_default();
        for doc in yaml.split("\n---\n").filter(|d| !d.trim().is_empty()) {
            let mut obj: Value = serde_saphyr::from_str(doc).unwrap_or_else(|e| panic!("{e}: {doc}"));
            obj["metadata"]["labels"][eksgpu_core::kinds::labels::OWNER_TOKEN] = Value::from(token);
            kube.create(kind_of(&obj), None, obj, "terraform-provider-eksgpu");
        }
    }
}

#[test]
fn a_state_of_pool_blocks_upgrades_and_the_same_pools_as_a_map_plan_nothing() {
    let state = fixture();
    let instance = &state["resources"][0]["instances"][0];
    assert_eq!(instance["schema_version"], 4, "the fixture is a version 4 state");
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        seed(&kube, &instance["attributes"]);
        let w = Workdir::new(&tf, &format!("{}{POOLS}", Provider::new().kube(&kube).header()));
        w.write(
            "terraform.tfstate",
            &serde_json::to_string_pretty(&state).unwrap_or_default(),
        );
        w.init();
        let generation = kube.get(NODE_POOL, "serving").unwrap_or_default()["metadata"]["generation"].clone();
        w.assert_empty_plan();
        // Applying the empty plan writes the upgraded state: the pools keyed by name.
        w.apply();
        let upgraded = w.state();
        let pools = upgraded["values"]["root_module"]["resources"][0]["values"]["pools"].clone();
        let names: Vec<&String> = pools.as_object().map(|m| m.keys().collect()).unwrap_or_default();
        assert_eq!(names, ["auto", "batch", "serving"], "{}: {pools:#}", tf.label);
        assert_eq!(
            pools["serving"]["node_class"]["block_device_mappings"][0]["device_name"], "/dev/xvdb",
            "{}",
            tf.label
        );
        assert!(
            !pools["serving"]["manifests_yaml"]
                .as_str()
                .unwrap_or_default()
                .contains("\\\"index\\\""),
            "{}: the pool's position left its manifests",
            tf.label
        );
        assert_eq!(
            kube.get(NODE_POOL, "serving").unwrap_or_default()["metadata"]["generation"],
            generation,
            "{}: no object's spec changed",
            tf.label
        );
        w.assert_empty_plan();
    }
}
