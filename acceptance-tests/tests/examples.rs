//! Every example under examples/ applies against the local emulators and
//! re-plans empty, under every supported Terraform version.

use eksgpu_acceptance_tests::hcl::{Provider, REQUIRED_PROVIDERS};
use eksgpu_acceptance_tests::{Workdir, skip, terraform_versions};

fn apply_and_replan(example: &str, vars: &[(&str, String)]) -> Vec<serde_json::Value> {
    let mut outputs = Vec::new();
    for tf in terraform_versions() {
        let mut w = Workdir::from_example(&tf, example);
        for (k, v) in vars {
            w.env(&format!("TF_VAR_{k}"), v);
        }
        w.init();
        w.apply();
        w.assert_empty_plan();
        outputs.push(w.outputs());
    }
    outputs
}

/// The placement example against the emulator: the L40S placement asks for 4 GPUs with a budget,
/// the Trainium2 one for 8 NeuronCores on the pool's nodes.
#[test]
fn workload_placement_example_places_vllm_on_both_pools() {
    for out in apply_against_cluster("examples/data-sources/eksgpu_workload_placement") {
        let v = &out["vllm"]["value"];
        assert_eq!(
            v["resources"]["limits"],
            serde_json::json!({"nvidia.com/gpu": "4"}),
            "{v}"
        );
        assert_eq!(
            v["neuron_resources"]["limits"],
            serde_json::json!({"aws.amazon.com/neuroncore": "8"})
        );
        assert_eq!(
            v["neuron_node_selector"],
            serde_json::json!({"karpenter.sh/nodepool": "trn2"})
        );
        assert!(
            v["pod_disruption_budget"]
                .as_str()
                .unwrap_or_default()
                .contains("minAvailable: 1"),
            "{v}"
        );
    }
}

#[test]
fn provider_example() {
    apply_and_replan("examples/provider", &[]);
}

#[test]
fn gpu_catalog_example() {
    apply_and_replan("examples/data-sources/eksgpu_gpu_catalog", &[]);
}

#[test]
fn recommendation_example_reproduces_the_billed_instance_example() {
    for out in apply_and_replan("examples/data-sources/eksgpu_recommendation", &[]) {
        let small = &out["small_models"]["value"];
        // MIG on static capacity: Karpenter counts nvidia.com/mig-* as zero (EKSGPU122).
        assert_eq!(small["capacity"], "managed_node_group");
        assert_eq!(small["sharing"], "mig");
        assert_eq!(small["mig_profile"], "1g.20gb");
        assert_eq!(small["gpus_used"], 2);
        assert_eq!(small["billed_instances"], 1);
        assert_eq!(small["monthly_cost"], 40179.2);
        let large = &out["large_model"]["value"];
        assert_eq!(large["capacity"], "auto_mode");
        let volume = &out["volume"]["value"];
        assert_eq!(volume["accelerator"], "neuron");
        assert_eq!(volume["instance_types"][0], "trn2.48xlarge");
        assert!(large["monthly_cost"].is_null());
        assert!(
            out["rationale"]["value"][0]
                .as_str()
                .is_some_and(|r| r.starts_with("EKSGPU210: "))
        );
    }
}

#[test]
fn quickstart_against_the_emulators() {
    for out in apply_against_cluster("examples/quickstart") {
        // 168 GB per replica: two H100s each, so both replicas fit one p5.48xlarge.
        let llama = &out["llama_70b"]["value"];
        assert_eq!(llama["capacity"], "auto_mode", "outputs: {out}");
        assert_eq!(llama["billed_instances"], 1, "outputs: {out}");
        assert_eq!(out["h200"]["value"]["p5en.48xlarge"]["gpus"], 8);
        assert_eq!(
            out["small_models_pod"]["value"]["limits"],
            serde_json::json!({"nvidia.com/gpu": "1"})
        );
        assert_eq!(
            out["small_models_pod"]["value"]["node_selector"]["karpenter.sh/nodepool"],
            "small-models"
        );
    }
}

/// Examples that reach a cluster run against moto and the emulator, through
/// the default EKS path (DescribeCluster + EKS IAM token).
fn apply_against_cluster(example: &str) -> Vec<serde_json::Value> {
    let mut outputs = Vec::new();
    for tf in terraform_versions() {
        let (kube, moto) = eksgpu_acceptance_tests::eks_cluster("gpu-cluster");
        if !kube.is_emulator() {
            // moto's DescribeCluster must answer with the emulator's endpoint.
            skip("needs the emulator behind moto's DescribeCluster, not EKSGPU_TEST_KUBECONFIG");
            return outputs;
        }
        let mut w = Workdir::from_example(&tf, example);
        w.env("AWS_ENDPOINT_URL", &moto.url());
        // The examples take the cluster's subnets as a variable: moto's, here.
        let cluster = moto.eks("GET", "/clusters/gpu-cluster", &serde_json::Value::Null);
        w.env(
            "TF_VAR_subnet_ids",
            &cluster["cluster"]["resourcesVpcConfig"]["subnetIds"].to_string(),
        );
        w.init();
        w.apply();
        w.assert_empty_plan();
        outputs.push(w.outputs());
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
    }
    outputs
}

/// Every scenario, the node strategy example and the quickstart (the README's example) plan with
/// no AWS and no cluster: AWS endpoints that refuse every connection, and no kubeconfig. And with
/// no warning: each says something the configuration can act on, so an example that shows one
/// teaches users to ignore them.
#[test]
fn scenarios_plan_offline() {
    let mut examples: Vec<String> = std::fs::read_dir(eksgpu_acceptance_tests::repo_root().join("examples/scenarios"))
        .unwrap_or_else(|e| panic!("{e}"))
        .filter_map(Result::ok)
        .map(|e| format!("examples/scenarios/{}", e.file_name().to_string_lossy()))
        .collect();
    examples.sort();
    examples.push("examples/resources/eksgpu_node_strategy".into());
    examples.push("examples/quickstart".into());
    assert!(examples.len() > 8, "{examples:?}");
    let mut warned = Vec::new();
    for tf in terraform_versions() {
        for example in &examples {
            let mut w = Workdir::from_example(&tf, example);
            w.env("AWS_ENDPOINT_URL", eksgpu_acceptance_tests::hcl::DEAD_ENDPOINT);
            w.init();
            let r = w.run(&["plan", "-no-color", "-input=false"]);
            assert_eq!(
                r.code,
                0,
                "{} {example} does not plan offline:\n{}",
                tf.label,
                r.combined()
            );
            for w in r.combined().lines().filter(|l| l.contains("Warning:")) {
                warned.push(format!(
                    "{} {example}: {}",
                    tf.label,
                    w.trim_matches(|c: char| c == '│' || c == ' ')
                ));
            }
        }
    }
    assert!(warned.is_empty(), "examples plan with warnings:\n{}", warned.join("\n"));
}

/// The short first example of each resource and data source page (`basic/main.tf`): at most 30
/// lines, no provider block, and it plans under the provider block a reader already has (the
/// `eksgpu_cluster` data source against moto, the rest with AWS unreachable).
#[test]
fn short_examples_are_short_and_plan() {
    let root = eksgpu_acceptance_tests::repo_root();
    let mut examples = Vec::new();
    for dir in ["examples/resources", "examples/data-sources"] {
        for e in std::fs::read_dir(root.join(dir))
            .unwrap_or_else(|e| panic!("{e}"))
            .filter_map(Result::ok)
        {
            let basic = e.path().join("basic/main.tf");
            let text = std::fs::read_to_string(&basic).unwrap_or_else(|e| panic!("{}: {e}", basic.display()));
            assert!(
                text.lines().count() <= 30,
                "{} is longer than 30 lines",
                basic.display()
            );
            assert!(
                !text.contains("provider \""),
                "{} has a provider block",
                basic.display()
            );
            examples.push((e.file_name().to_string_lossy().into_owned(), text));
        }
    }
    assert_eq!(examples.len(), 9, "one per resource and data source");
    for tf in terraform_versions() {
        for (name, text) in &examples {
            let (header, moto) = if name == "eksgpu_cluster" {
                let (_, moto) = eksgpu_acceptance_tests::eks_cluster("gpu-cluster");
                (Provider::new().header(), Some(moto))
            } else {
                (Provider::new().offline().header(), None)
            };
            let mut w = Workdir::new(&tf, &format!("{header}{text}"));
            if let Some(moto) = &moto {
                w.env("AWS_ENDPOINT_URL", &moto.url());
            }
            w.init();
            let r = w.run(&["plan", "-no-color", "-input=false"]);
            assert_eq!(r.code, 0, "{} {name}: {}", tf.label, r.combined());
        }
    }
}

/// The module test example (`examples/module-test`): `terraform test` with `command = plan`
/// passes offline on the current CLI (`terraform test` is Terraform 1.6+).
#[test]
fn module_test_example_passes_offline() {
    let Some(tf) = terraform_versions().into_iter().find(|t| t.label == "current") else {
        return skip("`terraform test` needs Terraform 1.6+; EKSGPU_TF_VERSIONS left out the current CLI");
    };
    let example = "examples/module-test";
    let mut w = Workdir::from_example(&tf, example);
    // The harness copies `.tf` files; the test file is copied here.
    let test_file = "tests/plan.tftest.hcl";
    let text = std::fs::read_to_string(eksgpu_acceptance_tests::repo_root().join(example).join(test_file))
        .unwrap_or_else(|e| panic!("{e}"));
    w.write(test_file, &text);
    w.env("AWS_ENDPOINT_URL", eksgpu_acceptance_tests::hcl::DEAD_ENDPOINT);
    w.init();
    let r = w.run(&["test", "-no-color"]);
    let out = r.combined();
    assert_eq!(r.code, 0, "{out}");
    assert!(out.contains("2 passed, 0 failed"), "{out}");
}

#[test]
fn node_strategy_example() {
    for out in apply_against_cluster("examples/resources/eksgpu_node_strategy") {
        assert_eq!(
            out["inference_node_selector"]["value"]["karpenter.sh/nodepool"],
            "gpu-inference"
        );
        assert_eq!(
            out["onprem_node_selector"]["value"]["eks.amazonaws.com/compute-type"],
            "hybrid"
        );
    }
}

#[test]
fn cluster_example() {
    for out in apply_against_cluster("examples/data-sources/eksgpu_cluster") {
        assert_eq!(
            out["reserved_ranges"]["value"],
            serde_json::json!(["10.0.0.0/16", "172.20.0.0/16"])
        );
        assert_eq!(out["auto_mode"]["value"], false);
        assert!(
            out["subnet_ids"]["value"][0]
                .as_str()
                .is_some_and(|s| s.starts_with("subnet-"))
        );
    }
}

#[test]
fn sharing_pool_example_reproduces_the_a10g_setups() {
    for out in apply_against_cluster("examples/resources/eksgpu_sharing_pool") {
        assert_eq!(
            out["time_sliced_requests"]["value"],
            serde_json::json!({"nvidia.com/gpu": "1"})
        );
        assert_eq!(out["dra_claim"]["value"], "a10g-dra");
        assert_eq!(
            out["dra_pod_resource_claims"]["value"],
            serde_json::json!([{"name": "gpu", "resource_claim_name": "a10g-dra"}])
        );
        assert_eq!(
            out["hami_requests"]["value"],
            serde_json::json!({"nvidia.com/gpu": "1", "nvidia.com/gpumem": "6144", "nvidia.com/gpucores": "50"})
        );
    }
}

#[test]
fn mig_inference_scenario_composes_labels_and_requests() {
    for out in apply_against_cluster("examples/scenarios/mig-inference") {
        let deployment = out["deployment_yaml"]["value"].as_str().unwrap();
        assert!(deployment.contains("\"nvidia.com/mig-1g.18gb\": \"1\""), "{deployment}");
        // MIG mixed on static capacity (EKSGPU122): the node group's nodes.
        assert!(
            deployment.contains("\"eks.amazonaws.com/nodegroup\": \"gpu-cluster-h200-mig\""),
            "{deployment}"
        );
        assert!(
            out["gpu_operator_values"]["value"]
                .as_str()
                .unwrap()
                .contains("strategy: mixed")
        );
    }
}

/// The probe example against the emulator, whose Karpenter simulation provisions the node: the
/// probe's evidence answers the strategy's EKSGPU009 and its precondition lets the pool through.
#[test]
fn capacity_probe_example_proves_the_type_before_the_pool() {
    for tf in terraform_versions() {
        let (kube, moto) = eksgpu_acceptance_tests::eks_cluster("gpu-cluster");
        if !kube.is_emulator() || eksgpu_acceptance_tests::kube::upstream_kubeconfig().is_some() {
            return skip("needs the emulator's Karpenter simulation (the real API server lane runs no controllers)");
        }
        kube.simulate_karpenter(serde_json::json!({"enabled": true, "flavor": "auto_mode", "outcome": "provisioned"}))
            .unwrap_or_else(|e| panic!("{e}"));
        let mut w = Workdir::from_example(&tf, "examples/resources/eksgpu_capacity_probe");
        w.env("AWS_ENDPOINT_URL", &moto.url());
        w.init();
        // Before the probe ran its `answers` are unknown, so the plan warns; once it provisioned
        // the type they answer the warning.
        assert!(w.apply().combined().contains("EKSGPU009"));
        let again = w.ok(&["plan", "-no-color"]).combined();
        assert!(!again.contains("EKSGPU009") && again.contains("No changes"), "{again}");
        let probe = &w.outputs()["probe"]["value"];
        assert_eq!(probe["result"], "provisioned", "{probe}");
        assert_eq!(probe["zone"], "us-west-2a");
        assert!(
            kube.get(eksgpu_acceptance_tests::kube::NODE_POOL, "eksgpu-probe-p5en")
                .is_none()
        );
        assert_eq!(
            kube.list(
                eksgpu_acceptance_tests::kube::NODE_POOL,
                "eksgpu.terraform.io/strategy=h200"
            )
            .len(),
            1,
            "the pool, applied after the probe"
        );
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
    }
}

#[test]
fn burst_scaler_example() {
    for out in apply_against_cluster("examples/resources/eksgpu_burst_scaler") {
        assert!(out["formula"]["value"].as_str().unwrap().contains("prewarm_0 == 0"));
    }
}

#[test]
fn onprem_burst_scenario() {
    for out in apply_against_cluster("examples/scenarios/onprem-burst") {
        assert_eq!(
            out["burst_node_selector"]["value"]["karpenter.sh/nodepool"],
            "burst-spot"
        );
        assert_eq!(
            out["formula"]["value"],
            "onprem_waiting > 20 || cloud_running > 10 ? 2 : (cloud_running < 5 ? 0 : 1)"
        );
        let ranges = &out["ranges"]["value"];
        assert_eq!(ranges["onprem_nodes"], serde_json::json!(["192.168.10.0/24"]));
        assert_eq!(ranges["onprem_pods"], serde_json::json!(["192.168.128.0/18"]));
        assert_eq!(ranges["vpc"], serde_json::json!(["10.0.0.0/16"]));
        assert_eq!(ranges["services"], "172.20.0.0/16");
        // Two sites: a Secret-backed bearer token on-prem, Amazon Managed Prometheus in the cloud.
        let manifests = out["burst_manifests"]["value"].as_str().unwrap_or_default();
        let docs: Vec<serde_json::Value> = manifests
            .split("\n---\n")
            .map(|d| serde_saphyr::from_str(d).unwrap_or_else(|e| panic!("{e}: {d}")))
            .collect();
        let kinds: Vec<&str> = docs.iter().filter_map(|d| d["kind"].as_str()).collect();
        assert_eq!(
            kinds,
            ["TriggerAuthentication", "TriggerAuthentication", "ScaledObject"]
        );
        assert_eq!(
            docs[0]["spec"]["secretTargetRef"][0],
            serde_json::json!({"parameter": "bearerToken", "name": "prom-onprem-token", "key": "token"})
        );
        assert_eq!(docs[1]["spec"]["podIdentity"]["provider"], "aws");
        let triggers = &docs[2]["spec"]["triggers"];
        assert_eq!(triggers[0]["metadata"]["authModes"], "bearer");
        assert_eq!(triggers[1]["metadata"]["awsRegion"], "us-west-2");
        assert!(
            !manifests.contains("prometheus.monitoring"),
            "no shared address: {manifests}"
        );
    }
}

#[test]
fn three_kind_cluster_scenario() {
    for out in apply_against_cluster("examples/scenarios/three-kind-cluster") {
        let selectors = &out["node_selectors"]["value"];
        assert_eq!(
            selectors["simple-inference"]["karpenter.sh/nodepool"],
            "simple-inference"
        );
        assert_eq!(selectors["mig-inference"]["karpenter.sh/nodepool"], "mig-inference");
        assert_eq!(selectors["onprem"]["eks.amazonaws.com/compute-type"], "hybrid");
        assert_eq!(out["simple_inference"]["value"]["capacity"], "auto_mode");
        let values = out["gpu_operator_values"]["value"].as_str().unwrap();
        // Hybrid nodes need the operator's driver; MIG Manager runs for the MIG pool.
        assert!(values.contains("driver:\n  enabled: true"), "{values}");
        assert!(values.contains("migManager:\n  enabled: true"), "{values}");
    }
}

#[test]
fn mng_dra_scenario() {
    for out in apply_against_cluster("examples/scenarios/mng-dra") {
        assert!(out["dra_gpu_resource_name"]["value"].is_null());
        let request = out["dra_node_labels"]["value"].as_str().unwrap();
        assert!(request.contains("CreateNodegroup"), "{request}");
        assert!(request.contains("nvidia.com/gpu.deploy.device-plugin"), "{request}");
        // The DRA driver's values: GPUs (with the chart's override), no ComputeDomains, the kubelet
        // plugin on the DRA node group only (not on the Karpenter inference pool).
        let values = out["dra_driver_values"]["value"].as_str().unwrap();
        assert!(values.contains("gpus:\n    enabled: true"), "{values}");
        assert!(values.contains("computeDomains:\n    enabled: false"), "{values}");
        assert!(values.contains("gpuResourcesEnabledOverride: true"), "{values}");
        assert!(values.contains("gpu-cluster-h100-dra"), "{values}");
        assert!(!values.contains("karpenter.sh/nodepool"), "{values}");
    }
}

#[test]
fn a10g_sharing_scenario() {
    for out in apply_against_cluster("examples/scenarios/a10g-sharing") {
        let requests = &out["requests"]["value"];
        assert_eq!(requests["time_sliced"], serde_json::json!({"nvidia.com/gpu": "1"}));
        assert_eq!(requests["hami"]["nvidia.com/gpumem"], "6144");
        assert_eq!(
            out["node_selectors"]["value"]["hami"]["eks.amazonaws.com/nodegroup"],
            "gpu-cluster-hami"
        );
    }
}

#[test]
fn efa_training_scenario() {
    for out in apply_against_cluster("examples/scenarios/efa-training") {
        let m = out["manifests"]["value"].as_str().unwrap();
        assert!(m.contains("expireAfter: Never"), "{m}");
        assert!(m.contains("schedule: 0 6 * * 1-5"), "{m}");
        assert!(m.contains("instanceStorePolicy: RAID0"), "{m}");
        assert!(m.contains("httpPutResponseHopLimit: 2"), "{m}");
        assert_eq!(out["node_selector"]["value"]["karpenter.sh/nodepool"], "training");
    }
}

#[test]
fn capacity_block_scenario() {
    for out in apply_against_cluster("examples/scenarios/capacity-block") {
        let m = out["capacity_block_manifests"]["value"].as_str().unwrap();
        assert!(m.contains("capacityReservationSelectorTerms"), "{m}");
        assert!(m.contains("- reserved"), "{m}");
        assert!(m.contains("weight: 100"), "{m}");
        let r = out["inference_request"]["value"].as_str().unwrap();
        // Default tags, overridden by the pool's, under the provider's own.
        assert!(r.contains("cost-center: ml-platform"), "{r}");
        assert!(r.contains("team: inference"), "{r}");
        assert!(r.contains("nodeRepairConfig"), "{r}");
    }
}

#[test]
fn bottlerocket_scenario() {
    for out in apply_against_cluster("examples/scenarios/bottlerocket") {
        let m = out["karpenter_manifests"]["value"].as_str().unwrap();
        assert!(m.contains("bottlerocket@latest"), "{m}");
        assert!(m.contains("/dev/xvdb"), "{m}");
        assert!(
            m.contains("nvidia.com/gpu.deploy.device-plugin: 'false'")
                || m.contains("nvidia.com/gpu.deploy.device-plugin: \"false\""),
            "{m}"
        );
        let r = out["node_group_request"]["value"].as_str().unwrap();
        assert!(r.contains("BOTTLEROCKET_x86_64_NVIDIA"), "{r}");
        assert!(r.contains("diskSize: 150"), "{r}");
    }
}

/// Provider-defined functions need Terraform 1.8: run under the current CLI only.
fn apply_current(example: &str) -> Option<serde_json::Value> {
    let tf = terraform_versions().into_iter().find(|t| t.label == "current")?;
    let w = Workdir::from_example(&tf, example);
    w.init();
    w.apply();
    w.assert_empty_plan();
    Some(w.outputs())
}

#[test]
fn function_examples() {
    if !terraform_versions().iter().any(|t| t.label == "current") {
        return skip("provider functions need Terraform 1.8+; EKSGPU_TF_VERSIONS left out the current CLI");
    }
    if let Some(out) = apply_current("examples/functions/mig_capable") {
        assert_eq!(
            out["mig_capable_types"]["value"],
            serde_json::json!(["p5.48xlarge", "p5en.48xlarge"])
        );
    }
    if let Some(out) = apply_current("examples/functions/mig_profiles") {
        assert_eq!(
            out["slice"]["value"],
            serde_json::json!({"profile": "1g.18gb", "per_gpu": 7})
        );
    }
    if let Some(out) = apply_current("examples/functions/replica_memory_gb") {
        assert_eq!(out["llama_70b_fp8_gb"]["value"], 84);
    }
}

#[test]
fn a_function_error_names_the_argument() {
    let Some(tf) = terraform_versions().into_iter().find(|t| t.label == "current") else {
        return skip("provider functions need Terraform 1.8+; EKSGPU_TF_VERSIONS left out the current CLI");
    };
    let w = Workdir::new(
        &tf,
        &format!(
            "{REQUIRED_PROVIDERS}output \"x\" {{\n  value = provider::eksgpu::replica_memory_gb(70, \"fp4\")\n}}\n"
        ),
    );
    w.init();
    let (code, r) = w.plan_code(&[]);
    let out = r.combined();
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("\"fp4\" is not a precision"), "{out}");
    assert!(out.contains("Invalid value for \"precision\" parameter"), "{out}");
}

#[test]
fn neuron_inference_scenario() {
    for out in apply_against_cluster("examples/scenarios/neuron-inference") {
        assert_eq!(out["accelerators"]["value"], serde_json::json!(["neuron", "neuron"]));
        assert_eq!(out["device_resource"]["value"], "aws.amazon.com/neuron");
        let values = out["neuron_values"]["value"].as_str().unwrap();
        assert!(values.contains("aws.amazon.com/neuron"), "{values}");
        let why = out["recommendation"]["value"].to_string();
        assert!(why.contains("EKSGPU211") && why.contains("EKSGPU212"), "{why}");
    }
}

#[test]
fn frontier_and_volume_scenario() {
    for out in apply_against_cluster("examples/scenarios/frontier-and-volume") {
        let layers = &out["layers"]["value"];
        assert_eq!(layers["frontier"], "nvidia");
        assert_eq!(layers["volume"], "neuron");
        assert_eq!(
            layers["pools"],
            serde_json::json!({"frontier": "nvidia", "volume": "neuron", "onprem": "nvidia"})
        );
        assert!(!out["neuron_values"]["value"].as_str().unwrap().is_empty());
        assert!(!out["gpu_operator_values"]["value"].as_str().unwrap().is_empty());
    }
}

#[test]
fn karpenter_mig_overlay_scenario() {
    for out in apply_against_cluster("examples/scenarios/karpenter-mig-overlay") {
        let m = out["manifests"]["value"].as_str().unwrap();
        assert!(m.contains("kind: NodeOverlay"), "{m}");
        // Two 3g.40gb slices on each of 8 H100s.
        assert!(
            m.contains("nvidia.com/mig-3g.40gb: '16'") || m.contains("nvidia.com/mig-3g.40gb: \"16\""),
            "{m}"
        );
        assert_eq!(out["resource_requests"]["value"]["nvidia.com/mig-3g.40gb"], "1");
        // Four time-sliced replicas on each of 4 L40S.
        let shared = out["shared_manifests"]["value"].as_str().unwrap();
        assert!(shared.contains("kind: NodeOverlay"), "{shared}");
        assert!(
            shared.contains("nvidia.com/gpu: '16'") || shared.contains("nvidia.com/gpu: \"16\""),
            "{shared}"
        );
    }
}

#[test]
fn static_dra_scenario() {
    for out in apply_against_cluster("examples/scenarios/static-dra") {
        let m = out["warm_manifests"]["value"].as_str().unwrap();
        assert!(m.contains("replicas: 2"), "{m}");
        assert!(m.contains("nodes: 3"), "{m}");
        assert_eq!(out["burst_node_selector"]["value"]["karpenter.sh/nodepool"], "burst");
        let driver = out["dra_driver_values"]["value"].as_str().unwrap();
        assert!(driver.contains("gpus:") && driver.contains("enabled: true"), "{driver}");
    }
}

#[test]
fn gpu_stack_example_merges_two_teams_into_one_release() {
    for out in apply_against_cluster("examples/data-sources/eksgpu_gpu_stack") {
        let values = out["gpu_operator_values"]["value"].as_str().unwrap();
        // Both teams' taints are tolerated by the one release's DaemonSets.
        for team in ["research", "serving"] {
            assert!(values.contains(&format!("key: example.com/{team}")), "{team}: {values}");
        }
        assert!(values.contains("daemonsets:"), "{values}");
    }
}

/// The GB200 scenario against moto and the emulator: the Capacity Block node group on its launch
/// template with EFA, the autoscaler's tags, the DRA driver's values with ComputeDomains, and the
/// ComputeDomain (upstream's CRD from `../shared/crds`, judged by the real API server in its lane).
#[test]
fn gb200_training_scenario() {
    if let Err(why) = eksgpu_acceptance_tests::kube::compute_domain_crds() {
        return skip(&why);
    }
    for out in apply_against_cluster("examples/scenarios/gb200-training") {
        let m = out["node_group_request"]["value"].as_str().unwrap();
        assert!(m.contains("capacity-block") || m.contains("CAPACITY_BLOCK"), "{m}");
        assert!(m.contains("cr-0123456789abcdef0"), "{m}");
        assert!(m.contains("efa"), "{m}");
        assert!(m.contains("k8s.io/cluster-autoscaler/enabled"), "{m}");
        assert!(m.contains("kind: ComputeDomain"), "{m}");
        assert_eq!(out["claim_template"]["value"], "nvl72-channel");
        assert_eq!(out["clique_topology_key"]["value"], "nvidia.com/gpu.clique");
        let values = out["dra_driver_values"]["value"].as_str().unwrap();
        assert!(values.contains("computeDomains:"), "{values}");
    }
}
