//! `eksgpu_node_strategy` through the real Terraform CLI against the
//! Kubernetes API emulator (or the API server of `EKSGPU_TEST_KUBECONFIG`) and
//! moto: lifecycle, drift, import, offline plans, missing CRDs, call counts.

use eksgpu_acceptance_tests::hcl::Provider;
use eksgpu_acceptance_tests::kube::{EC2_NODE_CLASS, EmulatorOptions, KubeTarget, NODE_POOL};
use eksgpu_acceptance_tests::{Moto, Workdir, skip, terraform_versions};
use serde_json::{Value, json};

fn config(kube: &KubeTarget, limit: u32, force: bool) -> String {
    format!(
        r#"{}
resource "eksgpu_node_strategy" "s" {{
  cluster_name    = "gpu"
  name            = "genai"
  force_conflicts = {force}
  gpu_operator {{}}
  pools = {{
    inference = {{
      capacity       = "karpenter"
      instance_types = ["p5.48xlarge", "g6e.12xlarge"]
      gpu_limit      = {limit}
      labels         = {{ "node-type" = "gpu-inference" }}
      disruption = {{
        consolidation_policy = "WhenEmpty"
        consolidate_after    = "5m"
      }}
      node_class = {{
        role = "KarpenterNodeRole-gpu"
        kubelet = {{
          max_pods = 110
        }}
      }}
    }}
    auto = {{
      capacity       = "auto_mode"
      instance_types = ["g6e.12xlarge"]
    }}
  }}
}}
"#,
        Provider::new().kube(kube).header()
    )
}

#[test]
fn lifecycle_create_import_drift_restore_destroy() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let w = Workdir::new(&tf, &config(&kube, 32, false));
        w.init();
        w.apply();
        // Server defaults (budgets, expireAfter) are set but never drift.
        let np = kube.get(NODE_POOL, "inference").expect("NodePool applied");
        assert_eq!(
            np["spec"]["disruption"]["budgets"],
            json!([{"nodes": "10%"}]),
            "{}",
            tf.label
        );
        assert_eq!(np["spec"]["template"]["spec"]["expireAfter"], "720h");
        assert_eq!(
            kube.get(EC2_NODE_CLASS, "inference").unwrap()["spec"]["kubelet"]["maxPods"],
            110
        );
        w.assert_empty_plan();

        // Import into a fresh state: the next plan is empty.
        let imported = Workdir::new(&tf, &config(&kube, 32, false));
        imported.init();
        imported.ok(&["import", "-no-color", "eksgpu_node_strategy.s", "gpu/genai"]);
        imported.assert_empty_plan();

        // An out-of-band edit of an owned field is a one-field diff.
        kube.edit(
            NODE_POOL,
            "inference",
            json!({"spec": {"limits": {"nvidia.com/gpu": 64}}}),
            "kubectl-edit",
        );
        // State's YAML says what was read back too.
        assert_eq!(
            w.planned_changes(),
            ["pools[\"inference\"].gpu_limit", "pools[\"inference\"].manifests_yaml"],
            "{}",
            tf.label
        );
        // The field now belongs to another manager: applying without force is a clear conflict.
        let r = w.run(&["apply", "-auto-approve", "-no-color"]);
        assert_eq!(r.code, 1);
        assert!(
            r.combined().contains("kubectl-edit") && r.combined().contains("force_conflicts"),
            "{}",
            r.combined()
        );
        // Opting in to take ownership restores it.
        w.write("main.tf", &config(&kube, 32, true));
        w.apply();
        w.assert_empty_plan();
        assert_eq!(
            kube.get(NODE_POOL, "inference").unwrap()["spec"]["limits"]["nvidia.com/gpu"],
            32
        );

        // Changing an owned field is an in-place update of exactly that field.
        w.write("main.tf", &config(&kube, 48, true));
        let changes = w.planned_changes();
        assert!(
            changes.contains(&"pools[\"inference\"].gpu_limit".to_owned()),
            "{changes:?}"
        );
        w.apply();
        assert_eq!(
            kube.get(NODE_POOL, "inference").unwrap()["spec"]["limits"]["nvidia.com/gpu"],
            48
        );

        w.ok(&["destroy", "-auto-approve", "-no-color"]);
        for (kind, name) in [
            (NODE_POOL, "inference"),
            (EC2_NODE_CLASS, "inference"),
            (NODE_POOL, "auto"),
        ] {
            assert!(kube.get(kind, name).is_none(), "{} {name} left behind", kind.kind);
        }
    }
}

#[test]
fn example_applies_through_describe_cluster_and_eks_tokens() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start_with(&EmulatorOptions {
            eks_cluster: Some("gpu-cluster".into()),
            ..Default::default()
        });
        if !kube.is_emulator() {
            // moto's DescribeCluster must answer with the emulator's endpoint.
            return skip("needs the emulator behind moto's DescribeCluster, not EKSGPU_TEST_KUBECONFIG");
        }
        let moto = Moto::start();
        moto.create_cluster(
            "gpu-cluster",
            "1.33",
            &kube.url,
            kube.ca_pem.as_deref().unwrap_or_default(),
        );
        let mut w = Workdir::from_example(&tf, "examples/resources/eksgpu_node_strategy");
        // The in-cluster half of the example: its EKS API strategy is counted in aws_capacity.rs.
        let example = std::fs::read_to_string(w.path().join("resource.tf")).unwrap();
        let in_cluster = example.split("# The AWS side of the same cluster").next().unwrap();
        w.write("resource.tf", in_cluster);
        w.env("AWS_ENDPOINT_URL", &moto.url());
        let log = w.path().join("trace.log");
        w.env("TF_LOG", "TRACE");
        w.env("TF_LOG_PATH", log.to_str().unwrap_or_default());
        w.init();
        w.apply();
        // Tokens are secrets: never in a log line, even at TRACE.
        let trace = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(
            trace.contains("described cluster"),
            "the provider's own logs reach the TF log"
        );
        assert!(
            !trace.contains("k8s-aws-v1."),
            "{}: an EKS token leaked into the log",
            tf.label
        );
        let describes = |m: &Moto| {
            m.requests()
                .iter()
                .filter(|r| r["operation"] == "GET /clusters/gpu-cluster")
                .count()
        };
        // The plan's provider process describes the cluster once, to list its DaemonSets (the
        // device managers beside the pools, EKSGPU192: what it shows does not depend on it); the
        // apply's describes it once.
        assert_eq!(describes(&moto), 2, "{}: {:?}", tf.label, moto.requests());
        let reqs = kube.requests();
        assert!(
            reqs.iter().all(|r| r["auth"] == "eks"),
            "every call carries an EKS IAM token: {reqs:?}"
        );
        let discovery = |r: &&Value| {
            let p = r["path"].as_str().unwrap_or_default();
            p == "/api" || p == "/apis" || p.split('/').count() == 4 && p.starts_with("/apis/")
        };
        assert_eq!(reqs.iter().filter(discovery).count(), 0, "no discovery calls: {reqs:?}");

        // A refresh reads each owned object once, after one DescribeCluster.
        kube.clear_requests();
        let (code, r) = w.plan_code(&[]);
        assert_eq!(code, 0, "{}", r.combined());
        assert_eq!(
            describes(&moto),
            3,
            "the plan's DaemonSet list reuses the refresh's DescribeCluster"
        );
        let (lists, gets): (Vec<_>, Vec<_>) = kube
            .requests()
            .into_iter()
            .filter(|r| r["method"] == "GET")
            .partition(|r| r["path"] == "/apis/apps/v1/daemonsets");
        // gpu-inference and gpu-training: NodePool + EC2NodeClass; auto-gpu: NodePool (built-in NodeClass).
        assert_eq!(gets.len(), 5, "{gets:?}");
        assert_eq!(
            lists.len(),
            1,
            "the device managers are listed once per plan: {lists:?}"
        );
        let out = w.outputs();
        assert_eq!(
            out["inference_node_selector"]["value"],
            json!({"karpenter.sh/nodepool": "gpu-inference"})
        );
        assert!(
            out["gpu_operator_values"]["value"]
                .as_str()
                .unwrap()
                .contains("serviceMonitor:\n    enabled: true")
        );
    }
}

#[test]
fn plans_offline_with_unknown_inputs() {
    // EKS and STS refuse connections at once: planning must not need them.
    let main_tf = format!(
        r#"{}
resource "eksgpu_node_strategy" "first" {{
  cluster_name = "gpu"
  name         = "first"
  pools = {{
    inference = {{
      capacity       = "auto_mode"
      instance_types = ["g6e.xlarge"]
    }}
  }}
}}
# Its cluster name is known only after the first strategy is applied.
resource "eksgpu_node_strategy" "second" {{
  cluster_name = "gpu-${{eksgpu_node_strategy.first.kubernetes_version}}"
  name         = "second"
  pools = {{
    training = {{
      capacity       = "auto_mode"
      instance_types = ["g6e.xlarge"]
    }}
  }}
}}
"#,
        Provider::new().offline().header()
    );
    for tf in terraform_versions() {
        let w = Workdir::new(&tf, &main_tf);
        w.init();
        w.ok(&["plan", "-no-color", "-out", "offline.tfplan"]);
        let plan: Value = serde_json::from_str(&w.ok(&["show", "-json", "offline.tfplan"]).stdout).unwrap();
        let changes = plan["resource_changes"].as_array().unwrap();
        let first = changes.iter().find(|c| c["name"] == "first").unwrap();
        assert!(
            first["change"]["after"]["pools"]["inference"]["manifests_yaml"]
                .as_str()
                .unwrap()
                .contains("kind: NodePool")
        );
        let second = changes.iter().find(|c| c["name"] == "second").unwrap();
        assert_eq!(
            second["change"]["after_unknown"]["pools"]["training"]["manifests_yaml"], true,
            "{}",
            tf.label
        );
    }
}

#[test]
fn a_missing_crd_names_what_to_install() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start_with(&EmulatorOptions {
            without: vec![
                "nodepools.karpenter.sh".into(),
                "ec2nodeclasses.karpenter.k8s.aws".into(),
            ],
            ..Default::default()
        });
        if !kube.is_emulator() {
            return skip("needs the emulator to hide the Karpenter CRDs, not EKSGPU_TEST_KUBECONFIG");
        }
        let w = Workdir::new(&tf, &config(&kube, 32, false));
        w.init();
        let r = w.run(&["apply", "-auto-approve", "-no-color"]);
        assert_eq!(r.code, 1);
        let err = r.combined();
        assert!(
            err.contains("Kubernetes kind not installed") && err.contains("install Karpenter"),
            "{err}"
        );
        assert!(!err.contains("panic"));
    }
}

/// A create that fails half-way keeps nothing: Terraform would taint a
/// strategy in state and replace it, deleting what worked.
#[test]
fn a_create_failing_between_pools_leaves_nothing_and_the_next_apply_makes_all() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        if !kube.is_emulator() {
            return skip("needs the emulator's fault injection, not EKSGPU_TEST_KUBECONFIG");
        }
        let w = Workdir::new(&tf, &config(&kube, 32, false));
        w.init();
        // The second pool's NodePool fails once with a server error.
        kube.fault(&json!({"method": "PATCH", "path": "/nodepools/auto$", "status": 500, "count": 1}));
        let r = w.run(&["apply", "-auto-approve", "-no-color"]);
        assert_eq!(r.code, 1, "{}", r.combined());
        assert!(r.combined().contains("applying NodePool auto"), "{}", r.combined());
        let state: Value = serde_json::from_str(&w.ok(&["show", "-json"]).stdout).unwrap();
        assert!(
            state["values"]["root_module"]["resources"].is_null(),
            "{}: {state}",
            tf.label
        );
        assert!(
            kube.get(NODE_POOL, "inference").is_none(),
            "the first pool's objects were deleted again"
        );
        assert!(kube.get(EC2_NODE_CLASS, "inference").is_none());
        // The next apply continues where this one stopped.
        w.apply();
        w.assert_empty_plan();
        assert!(kube.get(NODE_POOL, "auto").is_some());
    }
}

/// One pool, `inference`, of the given capacity kind.
fn single_pool(kube: &KubeTarget, capacity: &str) -> String {
    format!(
        "{}resource \"eksgpu_node_strategy\" \"s\" {{\n  cluster_name = \"gpu\"\n  name         = \"genai\"\n  \
         pools = {{\n  inference = {{\n    capacity       = \"{capacity}\"\n    \
         instance_types = [\"g6e.12xlarge\"]\n{}  }}\n  }}\n}}\n",
        Provider::new().kube(kube).header(),
        if capacity == "karpenter" {
            "    node_class = {\n      role = \"KarpenterNodeRole-gpu\"\n    }\n"
        } else {
            ""
        }
    )
}

#[test]
fn moving_a_pool_from_karpenter_to_auto_mode_keeps_one_node_pool() {
    // The NodePool keeps its name, and its nodeClassRef changes group and kind,
    // which the upstream CRD's CEL rules make immutable on a real server.
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let w = Workdir::new(&tf, &single_pool(&kube, "karpenter"));
        w.init();
        w.apply();
        w.write("main.tf", &single_pool(&kube, "auto_mode"));
        // The plan says what apply will do: delete, then create.
        let plan = w.ok(&["plan", "-no-color"]).combined();
        assert!(plan.contains("Pool inference will be replaced"), "{}: {plan}", tf.label);
        w.apply();
        let np = kube.get(NODE_POOL, "inference").expect("the NodePool of the pool");
        assert_eq!(
            np["spec"]["template"]["spec"]["nodeClassRef"]["group"], "eks.amazonaws.com",
            "{}",
            tf.label
        );
        assert!(kube.get(EC2_NODE_CLASS, "inference").is_none(), "{}", tf.label);
        w.assert_empty_plan();
    }
}

/// `wait_for_ready`: an apply fails with the node class's own condition
/// message while Karpenter says it cannot work, and passes once it is Ready.
#[test]
fn wait_for_ready_fails_with_the_node_class_condition_message() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        if !kube.is_emulator() {
            return skip("needs the emulator's control endpoint to play Karpenter");
        }
        let waiting = |limit: u32, wait: bool| {
            single_pool(&kube, "karpenter")
                .replace(
                    "  name         = \"genai\"\n",
                    &format!("  name         = \"genai\"\n  wait_for_ready = {wait}\n  ready_timeout  = \"3s\"\n"),
                )
                .replace(
                    "instance_types = [\"g6e.12xlarge\"]",
                    &format!("instance_types = [\"g6e.12xlarge\"]\n    gpu_limit      = {limit}"),
                )
        };
        let w = Workdir::new(&tf, &waiting(4, false));
        w.init();
        w.apply();
        // Karpenter cannot resolve the node role.
        let not_ready = json!({"conditions": [{"type": "Ready", "status": "False", "reason": "InstanceProfileNotReady",
            "message": "role KarpenterNodeRole-gpu not found", "lastTransitionTime": "2026-11-30T00:00:00Z"}]});
        kube.set_status(EC2_NODE_CLASS, None, "inference", not_ready);
        w.write("main.tf", &waiting(8, true));
        let r = w.run(&["apply", "-auto-approve", "-no-color"]);
        let out = r.combined().split_whitespace().collect::<Vec<_>>().join(" ");
        assert_ne!(r.code, 0, "{out}");
        assert!(
            out.contains("EC2NodeClass inference not Ready")
                && out.contains("InstanceProfileNotReady")
                && out.contains("role KarpenterNodeRole-gpu not found"),
            "{}: {out}",
            tf.label
        );
        // Once Karpenter reports both Ready, the apply passes.
        let ready = json!({"conditions": [{"type": "Ready", "status": "True", "reason": "Ready", "message": "",
            "lastTransitionTime": "2026-11-30T00:00:00Z"}]});
        kube.set_status(EC2_NODE_CLASS, None, "inference", ready.clone());
        kube.set_status(NODE_POOL, None, "inference", ready);
        w.write("main.tf", &waiting(12, true));
        w.apply();
        w.assert_empty_plan();
    }
}

/// `wait_for_ready` compares the condition's `observedGeneration` with the object's
/// `metadata.generation`: a Ready=True Karpenter computed for the previous spec is no
/// answer for the spec just applied, so the apply waits and then says so.
#[test]
fn wait_for_ready_does_not_take_a_condition_of_an_older_generation() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        if !kube.is_emulator() {
            return skip("needs the emulator's control endpoint to play Karpenter");
        }
        let waiting = |limit: u32, wait: bool| {
            single_pool(&kube, "karpenter")
                .replace(
                    "  name         = \"genai\"\n",
                    &format!("  name         = \"genai\"\n  wait_for_ready = {wait}\n  ready_timeout  = \"3s\"\n"),
                )
                .replace(
                    "instance_types = [\"g6e.12xlarge\"]",
                    &format!("instance_types = [\"g6e.12xlarge\"]\n    gpu_limit      = {limit}"),
                )
        };
        let ready_for = |generation: i64| {
            json!({"conditions": [{"type": "Ready", "status": "True", "reason": "Ready", "message": "",
                "observedGeneration": generation, "lastTransitionTime": "2026-11-30T00:00:00Z"}]})
        };
        let generation = |kind| {
            kube.get(kind, "inference").expect("applied")["metadata"]["generation"]
                .as_i64()
                .expect("a generation")
        };
        let w = Workdir::new(&tf, &waiting(4, false));
        w.init();
        w.apply();
        let pool_generation = generation(NODE_POOL);
        kube.set_status(NODE_POOL, None, "inference", ready_for(pool_generation));
        kube.set_status(EC2_NODE_CLASS, None, "inference", ready_for(generation(EC2_NODE_CLASS)));
        // A new limit is a new NodePool generation; Karpenter has not looked at it yet.
        w.write("main.tf", &waiting(8, true));
        let r = w.run(&["apply", "-auto-approve", "-no-color"]);
        let out = r.combined().split_whitespace().collect::<Vec<_>>().join(" ");
        assert_ne!(r.code, 0, "{}: a stale Ready=True passed: {out}", tf.label);
        assert_eq!(generation(NODE_POOL), pool_generation + 1, "{}", tf.label);
        assert!(
            out.contains("NodePool inference not Ready")
                && out.contains(&format!("not yet reported on generation {}", pool_generation + 1))
                && out.contains(&format!("is for generation {pool_generation}")),
            "{}: {out}",
            tf.label
        );
        // Once Karpenter reports on the generation applied, the apply passes.
        kube.set_status(NODE_POOL, None, "inference", ready_for(pool_generation + 2));
        w.write("main.tf", &waiting(12, true));
        w.apply();
        w.assert_empty_plan();
    }
}

/// Issue #14's NodePool and EC2NodeClass settings: applied as the CRDs accept them, read back
/// with an empty plan, and an out-of-band edit of each is drift in its own attribute.
#[test]
fn node_pool_limits_budgets_and_imds_apply_and_drift() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let main_tf = format!(
            r#"{}
resource "eksgpu_node_strategy" "s" {{
  cluster_name = "gpu"
  name         = "genai"
  pools = {{
    training = {{
      capacity       = "karpenter"
      instance_types = ["p5.48xlarge"]
      capacity_types = ["reserved", "on-demand"]
      gpu_limit      = 64
      cpu_limit      = "1536"
      memory_limit   = "16384Gi"
      weight         = 50
      expire_after   = "Never"
      disruption = {{
        consolidation_policy = "WhenEmpty"
        consolidate_after    = "30m"
        budgets = [
          {{
            nodes    = "0"
            schedule = "0 8 * * 1-5"
            duration = "10h"
            reasons  = ["Underutilized", "Empty"]
          }},
          {{
            nodes = "10%"
          }},
        ]
      }}
      node_class = {{
        role                  = "KarpenterNodeRole-gpu"
        instance_store_policy = "RAID0"
        capacity_reservations = [
          {{
            id = "cr-0123456789abcdef0"
          }},
          {{
            tags     = {{ purpose = "training" }}
            owner_id = "123456789012"
          }},
        ]
        metadata_options = {{
          http_put_response_hop_limit = 2
        }}
      }}
    }}
  }}
}}
"#,
            Provider::new().kube(&kube).header()
        );
        let w = Workdir::new(&tf, &main_tf);
        w.init();
        w.apply();
        let np = kube.get(NODE_POOL, "training").expect("NodePool applied");
        assert_eq!(
            np["spec"]["limits"],
            json!({"nvidia.com/gpu": 64, "cpu": "1536", "memory": "16384Gi"}),
            "{}",
            tf.label
        );
        assert_eq!(np["spec"]["weight"], 50);
        assert_eq!(np["spec"]["template"]["spec"]["expireAfter"], "Never");
        assert_eq!(np["spec"]["disruption"]["budgets"][0]["schedule"], "0 8 * * 1-5");
        let nc = kube.get(EC2_NODE_CLASS, "training").unwrap();
        assert_eq!(nc["spec"]["metadataOptions"]["httpTokens"], "required");
        assert_eq!(nc["spec"]["metadataOptions"]["httpPutResponseHopLimit"], 2);
        assert_eq!(nc["spec"]["instanceStorePolicy"], "RAID0");
        assert_eq!(
            nc["spec"]["capacityReservationSelectorTerms"],
            json!([{"id": "cr-0123456789abcdef0"}, {"tags": {"purpose": "training"}, "ownerID": "123456789012"}])
        );
        w.assert_empty_plan();

        kube.edit(NODE_POOL, "training", json!({"spec": {"weight": 10}}), "kubectl-edit");
        assert_eq!(
            w.planned_changes(),
            ["pools[\"training\"].manifests_yaml", "pools[\"training\"].weight"],
            "{}",
            tf.label
        );
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
    }
}
