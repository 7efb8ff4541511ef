//! Karpenter's newer capacity through the real Terraform CLIs against the Kubernetes API emulator
//! (or the API server of `EKSGPU_TEST_KUBECONFIG`): static NodePools (`replicas`), their rules and
//! replacement, and the NodeOverlays of a time-sliced pool (create, drift, delete with the pool).

use eksgpu_acceptance_tests::kube::{EC2_NODE_CLASS, KubeTarget, NODE_OVERLAY, NODE_POOL};
use eksgpu_acceptance_tests::{Workdir, terraform_versions};
use serde_json::json;

fn config(kube: &KubeTarget, gates: &str, pool: &str, force: bool) -> String {
    format!(
        r#"
terraform {{
  required_providers {{
    eksgpu = {{ source = "eksgpu/eksgpu" }}
  }}
}}
provider "eksgpu" {{
  region                  = "us-west-2"
  karpenter_version       = "1.8"
  karpenter_feature_gates = [{gates}]
{}}}
resource "eksgpu_node_strategy" "s" {{
  cluster_name    = "gpu"
  name            = "genai"
  kubernetes_version = "1.34"
  force_conflicts = {force}
  gpu_operator {{}}
  pools = {{
{pool}  }}
}}
"#,
        kube.provider_block()
    )
}

/// A DRA pool when static: on Karpenter 1.8 only a static pool may serve DRA claims (EKSGPU004).
fn static_pool(replicas: Option<u32>, extra: &str) -> String {
    let dra = replicas.is_some();
    let replicas = replicas.map_or(String::new(), |r| {
        format!("    replicas       = {r}\n    node_limit     = {}\n", r + 1)
    });
    format!(
        "  warm = {{\n    capacity       = \"karpenter\"\n    \
         instance_types = [\"g6e.12xlarge\"]\n    dra            = {dra}\n{replicas}{extra}    \
         node_class = {{\n      role = \"KarpenterNodeRole-gpu\"\n      root_volume = {{\n        size = \"200Gi\"\n      }}\n    }}\n  }}\n"
    )
}

#[test]
fn a_static_pool_renders_replicas_drifts_on_scale_and_is_replaced_when_made_dynamic() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let gated = "\"staticCapacity\"";
        let w = Workdir::new(&tf, &config(&kube, gated, &static_pool(Some(2), ""), false));
        w.init();
        // DRA on a static Karpenter pool at Karpenter 1.8 is accepted (no EKSGPU004).
        w.apply();
        let np = kube.get(NODE_POOL, "warm").expect("NodePool applied");
        assert_eq!(np["spec"]["replicas"], 2, "{}", tf.label);
        assert_eq!(np["spec"]["limits"], json!({"nodes": 3}), "{}", tf.label);
        w.assert_empty_plan();

        // Someone scales the NodePool (`kubectl scale` writes spec.replicas as another manager):
        // drift, shown as a one-field diff; apply with force_conflicts restores the count.
        kube.edit(NODE_POOL, "warm", json!({"spec": {"replicas": 5}}), "kubectl");
        assert_eq!(
            w.planned_changes(),
            ["pools[\"warm\"].manifests_yaml", "pools[\"warm\"].replicas"],
            "{}",
            tf.label
        );
        w.write("main.tf", &config(&kube, gated, &static_pool(Some(2), ""), true));
        w.apply();
        assert_eq!(kube.get(NODE_POOL, "warm").unwrap()["spec"]["replicas"], 2);
        w.assert_empty_plan();

        // Removing replicas replaces the NodePool (the CRD refuses the change in place); the plan says so.
        w.write("main.tf", &config(&kube, gated, &static_pool(None, ""), true));
        let plan = w.ok(&["plan", "-no-color"]).combined();
        assert!(plan.contains("NodePool warm will be replaced"), "{}: {plan}", tf.label);
        w.apply();
        let np = kube.get(NODE_POOL, "warm").expect("the new NodePool");
        assert!(np["spec"].get("replicas").is_none(), "{}: {np}", tf.label);
        w.assert_empty_plan();
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
    }
}

#[test]
fn static_pool_rules_refuse_at_plan() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        // With gpu_limit (EKSGPU160) and weight (EKSGPU161): refused at validate, whatever the
        // provider block says, so the plan stops there.
        let pool = static_pool(Some(2), "    gpu_limit      = 8\n    weight         = 10\n");
        let w = Workdir::new(&tf, &config(&kube, "", &pool, false));
        w.init();
        let r = w.run(&["plan", "-no-color"]);
        assert_eq!(r.code, 1, "{}: {}", tf.label, r.combined());
        for code in ["EKSGPU160", "EKSGPU161"] {
            assert!(r.combined().contains(code), "{}: {code}: {}", tf.label, r.combined());
        }
        // Without the staticCapacity gate (EKSGPU164): a plan-time rule, as the gate is the
        // provider block's.
        let w = Workdir::new(&tf, &config(&kube, "", &static_pool(Some(2), ""), false));
        w.init();
        let r = w.run(&["plan", "-no-color"]);
        assert_eq!(r.code, 1, "{}: {}", tf.label, r.combined());
        assert!(r.combined().contains("EKSGPU164"), "{}: {}", tf.label, r.combined());
        // A gate Karpenter 1.8 does not have is refused on the provider block.
        let w = Workdir::new(&tf, &config(&kube, "\"capacityBuffer\"", &static_pool(None, ""), false));
        w.init();
        let r = w.run(&["plan", "-no-color"]);
        assert!(
            r.code == 1 && r.combined().contains("arrived in 1.14"),
            "{}: {}",
            tf.label,
            r.combined()
        );
    }
}

fn shared_pool(replicas: u32) -> String {
    format!(
        "  shared = {{\n    capacity       = \"karpenter\"\n    \
         instance_types = [\"g6e.12xlarge\", \"g5.xlarge\"]\n    labels = {{\n      \
         \"nvidia.com/device-plugin.config\" = \"small-models\"\n      \
         \"eksgpu.terraform.io/gpu-replicas\" = \"{replicas}\"\n    }}\n    \
         node_class = {{\n      role = \"KarpenterNodeRole-gpu\"\n      root_volume = {{\n        size = \"200Gi\"\n      }}\n    }}\n  }}\n"
    )
}

#[test]
fn a_shared_pool_owns_its_node_overlays_create_drift_delete() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let gates = "\"nodeOverlay\"";
        let w = Workdir::new(&tf, &config(&kube, gates, &shared_pool(4), false));
        w.init();
        let plan = w.ok(&["plan", "-no-color"]).combined();
        assert!(
            !plan.contains("EKSGPU011"),
            "{}: the overlay answers it: {plan}",
            tf.label
        );
        w.apply();
        let o = kube.get(NODE_OVERLAY, "shared-g6e.12xlarge").expect("overlay applied");
        assert_eq!(o["spec"]["capacity"], json!({"nvidia.com/gpu": "16"}), "{}", tf.label);
        assert_eq!(o["spec"]["requirements"][0]["key"], "karpenter.sh/nodepool");
        assert_eq!(
            kube.get(NODE_OVERLAY, "shared-g5.xlarge").unwrap()["spec"]["capacity"],
            json!({"nvidia.com/gpu": "4"})
        );
        w.assert_empty_plan();

        // An out-of-band edit of the overlay's capacity shows in the pool's manifests and is restored.
        kube.edit(
            NODE_OVERLAY,
            "shared-g5.xlarge",
            json!({"spec": {"capacity": {"nvidia.com/gpu": "9"}}}),
            "kubectl-edit",
        );
        assert_eq!(
            w.planned_changes(),
            ["pools[\"shared\"].manifests_yaml"],
            "{}",
            tf.label
        );
        w.write("main.tf", &config(&kube, gates, &shared_pool(4), true));
        w.apply();
        assert_eq!(
            kube.get(NODE_OVERLAY, "shared-g5.xlarge").unwrap()["spec"]["capacity"],
            json!({"nvidia.com/gpu": "4"}),
            "{}",
            tf.label
        );
        w.assert_empty_plan();

        // Without the gate the overlays go (and the warning comes back, saying how to enable it).
        w.write("main.tf", &config(&kube, "", &shared_pool(4), true));
        let plan = w.ok(&["plan", "-no-color"]).combined();
        assert!(
            plan.contains("EKSGPU011") && plan.contains("karpenter_feature_gates"),
            "{}: {plan}",
            tf.label
        );
        w.apply();
        assert!(kube.get(NODE_OVERLAY, "shared-g5.xlarge").is_none(), "{}", tf.label);
        assert!(kube.get(NODE_POOL, "shared").is_some());

        // With the gate again, and then the pool removed: its overlays are deleted with it.
        w.write("main.tf", &config(&kube, gates, &shared_pool(4), true));
        w.apply();
        assert!(kube.get(NODE_OVERLAY, "shared-g5.xlarge").is_some(), "{}", tf.label);
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
        for (kind, name) in [
            (NODE_OVERLAY, "shared-g6e.12xlarge"),
            (NODE_OVERLAY, "shared-g5.xlarge"),
            (NODE_POOL, "shared"),
            (EC2_NODE_CLASS, "shared"),
        ] {
            assert!(kube.get(kind, name).is_none(), "{} {name} left behind", kind.kind);
        }
    }
}
