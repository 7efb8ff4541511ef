//! EKS API capacity of `eksgpu_node_strategy` (managed node groups, Hybrid
//! Nodes) and `data.eksgpu_cluster`, through the real Terraform CLI against
//! moto behind the AWS front (access entries, status sequences, faults):
//! lifecycles with import and drift, apply-time checks, throttling, timeouts,
//! partial failure and Ctrl-C.

use std::time::{Duration, Instant};

use eksgpu_acceptance_tests::hcl::{Provider, provider_header};
use eksgpu_acceptance_tests::{Moto, Workdir, eks_cluster, kube::KubeTarget, terraform_versions};
use serde_json::{Value, json};

const NODE_ROLE: &str = "arn:aws:iam::123456789012:role/gpu-nodes";
const HYBRID_ROLE: &str = "arn:aws:iam::123456789012:role/hybrid-nodes";

/// The provider header and the cluster's data source.
fn header() -> String {
    format!(
        "{}data \"eksgpu_cluster\" \"gpu\" {{\n  name = \"gpu\"\n}}\n",
        provider_header()
    )
}

fn mng_pool(name: &str, labels: &str) -> String {
    format!(
        r#"
  "{name}" = {{
    capacity       = "managed_node_group"
    instance_types = ["p5.48xlarge"]
    capacity_types = ["spot"]
    labels         = {labels}
    managed_node_group = {{
      node_role_arn = "{NODE_ROLE}"
      subnet_ids    = data.eksgpu_cluster.gpu.subnet_ids
      scaling = {{
        min     = 0
        max     = 4
        desired = 1
      }}
      update = {{
        max_unavailable = 1
      }}
    }}
  }}"#
    )
}

fn hybrid_pool(nodes: &str) -> String {
    format!(
        r#"
  onprem = {{
    capacity = "hybrid"
    hybrid = {{
      remote_node_networks = {nodes}
      remote_pod_networks  = ["192.168.200.0/24"]
      node_role_arn        = "{HYBRID_ROLE}"
    }}
  }}"#
    )
}

/// The strategy; `create_timeout` (e.g. `"4s"`) adds a `timeouts` block, which
/// lives only in configuration (an import cannot read it back).
fn strategy(create_timeout: Option<&str>, pools: &str) -> String {
    let timeouts = create_timeout.map_or(String::new(), |t| {
        format!("  timeouts {{\n    create = \"{t}\"\n  }}\n")
    });
    format!(
        r#"{}
resource "eksgpu_node_strategy" "s" {{
  cluster_name = "gpu"
  name         = "genai"
{timeouts}  pools = {{{pools}
  }}
}}
"#,
        header()
    )
}

/// A cluster "gpu" in moto (VPC 10.0.0.0/16, service CIDR 172.20.0.0/16) and a workdir pointed at it.
fn setup(tf: &eksgpu_acceptance_tests::TerraformVersion, main_tf: &str) -> (KubeTarget, Moto, Workdir) {
    let (kube, moto) = eks_cluster("gpu");
    let w = workdir(tf, main_tf, &moto);
    (kube, moto, w)
}

/// An initialised working directory whose AWS calls go to `moto`.
fn workdir(tf: &eksgpu_acceptance_tests::TerraformVersion, main_tf: &str, moto: &Moto) -> Workdir {
    let mut w = Workdir::new(tf, main_tf);
    w.env("AWS_ENDPOINT_URL", &moto.url());
    w.init();
    w
}

fn node_group(moto: &Moto, name: &str) -> Value {
    moto.eks("GET", &format!("/clusters/gpu/node-groups/{name}"), &Value::Null)
}

fn access_entry(moto: &Moto, principal: &str) -> Value {
    moto.eks(
        "GET",
        &format!("/clusters/gpu/access-entries/{principal}"),
        &Value::Null,
    )
}

fn pool_names(w: &Workdir) -> Vec<String> {
    let state = w.state();
    state["values"]["root_module"]["resources"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["type"] == "eksgpu_node_strategy")
        .flat_map(|r| r["values"]["pools"].as_object().cloned().unwrap_or_default())
        .map(|(name, _)| name)
        .collect()
}

#[test]
fn managed_node_group_lifecycle_create_import_drift_restore_destroy() {
    for tf in terraform_versions() {
        let main_tf = strategy(None, &mng_pool("training", r#"{ team = "ml" }"#));
        let (_kube, moto, w) = setup(&tf, &main_tf);
        // As real EKS: CREATING for a while, then ACTIVE; apply waits it out.
        moto.status_sequence("nodegroup", "gpu-training", "create", &["CREATING", "CREATING"]);
        moto.status_sequence("nodegroup", "gpu-training", "delete", &["DELETING", "DELETING"]);
        moto.clear_requests();
        w.apply();
        assert!(
            moto.count("GET", "/node-groups/gpu-training") >= 3,
            "apply polled until ACTIVE"
        );
        let ng = &node_group(&moto, "gpu-training")["nodegroup"];
        assert_eq!(ng["status"], "ACTIVE", "{}: {ng}", tf.label);

        // A refresh reads the node group once; the data source reads the cluster and its VPC.
        moto.clear_requests();
        let (code, _) = w.plan_code(&[]);
        assert_eq!(code, 0);
        assert_eq!(moto.count("GET", "/node-groups/gpu-training"), 1);
        assert_eq!(moto.count("GET", "/clusters/gpu"), 2, "{:?}", moto.requests());
        assert_eq!(moto.requests().len(), 3, "{:?}", moto.requests());
        assert_eq!(ng["amiType"], "AL2023_x86_64_NVIDIA");
        assert_eq!(ng["capacityType"], "SPOT");
        assert_eq!(ng["labels"]["team"], "ml");
        assert_eq!(
            ng["taints"],
            json!([{"key": "nvidia.com/gpu", "value": "true", "effect": "NO_SCHEDULE"}])
        );
        assert_eq!(ng["tags"]["eksgpu.terraform.io/strategy"], "genai");
        assert_eq!(ng["tags"]["eksgpu.terraform.io/pool"], "training");
        assert_eq!(ng["updateConfig"]["maxUnavailable"], 1);
        w.assert_empty_plan();

        // Import into a fresh state: the next plan is empty.
        let imported = workdir(&tf, &main_tf, &moto);
        imported.ok(&["import", "-no-color", "eksgpu_node_strategy.s", "gpu/genai"]);
        imported.assert_empty_plan();

        // An autoscaler changing the desired size is not drift.
        moto.eks(
            "POST",
            "/clusters/gpu/node-groups/gpu-training/update-config",
            &json!({"scalingConfig": {"minSize": 0, "maxSize": 4, "desiredSize": 3}}),
        );
        w.assert_empty_plan();

        // An out-of-band label change is a one-field diff; apply restores it.
        moto.eks(
            "POST",
            "/clusters/gpu/node-groups/gpu-training/update-config",
            &json!({"labels": {"addOrUpdateLabels": {"team": "web"}}}),
        );
        assert_eq!(
            w.planned_changes(),
            ["pools[\"training\"].labels.team", "pools[\"training\"].manifests_yaml"],
            "{}",
            tf.label
        );
        w.apply();
        let ng = &node_group(&moto, "gpu-training")["nodegroup"];
        assert_eq!(ng["labels"]["team"], "ml");
        assert_eq!(ng["scalingConfig"]["desiredSize"], 3, "the autoscaler's size is kept");
        w.assert_empty_plan();

        moto.clear_requests();
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
        assert!(
            moto.count("GET", "/node-groups/gpu-training") >= 3,
            "destroy waited through DELETING"
        );
        assert!(node_group(&moto, "gpu-training").get("nodegroup").is_none());
    }
}

/// An import ID that names nothing says so: a part no attribute takes is refused before any
/// request, naming the part; a well-formed ID of a cluster that does not exist leads with
/// "Nothing to import" before the AWS error.
#[test]
fn import_ids_that_name_nothing_say_which_part_and_why() {
    for tf in terraform_versions() {
        let main_tf = strategy(None, &mng_pool("training", r#"{ team = "ml" }"#));
        let (_kube, moto, w) = setup(&tf, &main_tf);
        moto.clear_requests();
        let r = w.run(&["import", "-no-color", "eksgpu_node_strategy.s", "bad!cluster/genai"]);
        let out = r.combined();
        assert_ne!(r.code, 0, "{}: {out}", tf.label);
        assert!(out.contains("Invalid import ID"), "{}: {out}", tf.label);
        assert!(out.contains("`cluster_name` part of the ID"), "{}: {out}", tf.label);
        // The configuration's data source reads cluster "gpu"; nothing asks for the ID's cluster.
        assert_eq!(
            moto.count("GET", "bad"),
            0,
            "no request for an invalid ID: {:?}",
            moto.requests()
        );
        assert_eq!(moto.count("GET", "/node-groups"), 0, "{:?}", moto.requests());

        let r = w.run(&["import", "-no-color", "eksgpu_node_strategy.s", "nosuch/genai"]);
        let out = r.combined();
        assert_ne!(r.code, 0, "{}: {out}", tf.label);
        let lead = out.find("Nothing to import");
        assert!(lead.is_some(), "{}: {out}", tf.label);
        assert!(out.contains("\"nosuch\""), "{}: {out}", tf.label);
        let state = w.state();
        assert!(
            state["values"]["root_module"]["resources"]
                .as_array()
                .is_none_or(Vec::is_empty),
            "{}: nothing was imported: {state}",
            tf.label
        );
    }
}

#[test]
fn hybrid_lifecycle_create_import_drift_restore_destroy() {
    for tf in terraform_versions() {
        let main_tf = strategy(None, &hybrid_pool(r#"["192.168.100.0/24"]"#));
        let (_kube, moto, w) = setup(&tf, &main_tf);
        w.apply();
        let cluster = &moto.eks("GET", "/clusters/gpu", &Value::Null)["cluster"];
        assert_eq!(
            cluster["remoteNetworkConfig"]["remoteNodeNetworks"],
            json!([{"cidrs": ["192.168.100.0/24"]}]),
            "{}",
            tf.label
        );
        let entry = &access_entry(&moto, HYBRID_ROLE)["accessEntry"];
        assert_eq!(entry["type"], "HYBRID_LINUX");
        assert_eq!(entry["tags"]["eksgpu.terraform.io/pool"], "onprem");
        w.assert_empty_plan();

        // A refresh reads the access entry once; the cluster is described once per run.
        moto.clear_requests();
        let (code, _) = w.plan_code(&[]);
        assert_eq!(code, 0);
        // Terraform refreshes in parallel: compare the calls, not their order.
        let mut ops: Vec<String> = moto
            .requests()
            .iter()
            .map(|r| r["operation"].as_str().unwrap_or_default().to_owned())
            .collect();
        ops.sort();
        assert_eq!(
            ops,
            [
                "DescribeVpcs".to_owned(),
                "GET /clusters/gpu".to_owned(),
                format!("GET /clusters/gpu/access-entries/{HYBRID_ROLE}")
            ]
        );

        let imported = workdir(&tf, &main_tf, &moto);
        imported.ok(&["import", "-no-color", "eksgpu_node_strategy.s", "gpu/genai"]);
        imported.assert_empty_plan();

        moto.eks(
            "POST",
            "/clusters/gpu/update-config",
            &json!({"remoteNetworkConfig": {
                "remoteNodeNetworks": [{"cidrs": ["192.168.100.0/24"]}],
                "remotePodNetworks": [{"cidrs": ["192.168.201.0/24"]}],
            }}),
        );
        assert_eq!(
            w.planned_changes(),
            [
                "pools[\"onprem\"].hybrid.remote_pod_networks[0]",
                "pools[\"onprem\"].manifests_yaml"
            ],
            "{}",
            tf.label
        );
        w.apply();
        let cluster = &moto.eks("GET", "/clusters/gpu", &Value::Null)["cluster"];
        assert_eq!(
            cluster["remoteNetworkConfig"]["remotePodNetworks"],
            json!([{"cidrs": ["192.168.200.0/24"]}])
        );
        w.assert_empty_plan();

        w.ok(&["destroy", "-auto-approve", "-no-color"]);
        let cluster = &moto.eks("GET", "/clusters/gpu", &Value::Null)["cluster"];
        assert_eq!(cluster["remoteNetworkConfig"]["remoteNodeNetworks"], json!([]));
        assert!(access_entry(&moto, HYBRID_ROLE).get("accessEntry").is_none());
    }
}

#[test]
fn eksgpu007_remote_networks_overlapping_the_vpc_fail_apply_before_any_change() {
    for tf in terraform_versions() {
        // 10.0.128.0/20 passes every offline check but lies inside the cluster VPC 10.0.0.0/16.
        let main_tf = strategy(None, &hybrid_pool(r#"["10.0.128.0/20"]"#));
        let (_kube, moto, w) = setup(&tf, &main_tf);
        let (code, _) = w.plan_code(&[]);
        assert_eq!(code, 2, "the plan cannot know the VPC");
        moto.clear_requests();
        let r = w.run(&["apply", "-auto-approve", "-no-color"]);
        let out = r.combined();
        assert_ne!(r.code, 0, "{out}");
        let code = "EKSGPU007";
        assert!(
            out.contains(code) && out.contains("overlaps the cluster VPC's CIDR 10.0.0.0/16"),
            "{out}"
        );
        assert_eq!(moto.count("POST", "/update-config"), 0, "no change was made");
        assert_eq!(moto.count("POST", "/access-entries"), 0, "no change was made");
    }
}

#[test]
fn cluster_data_source_reports_the_cluster_and_rejects_inconsistent_auto_mode_flags() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let moto = Moto::start();
        let flags = |storage: bool| {
            json!({
                "computeConfig": {"enabled": true, "nodePools": ["system"], "nodeRoleArn": NODE_ROLE},
                "storageConfig": {"blockStorage": {"enabled": storage}},
                "kubernetesNetworkConfig": {"serviceIpv4Cidr": "172.20.0.0/16", "elasticLoadBalancing": {"enabled": true}},
                "remoteNetworkConfig": {"remoteNodeNetworks": [{"cidrs": ["192.168.100.0/24"]}]},
            })
        };
        let ca = kube.ca_pem.as_deref().unwrap_or_default();
        moto.create_cluster_with("auto", "1.34", &kube.url, ca, flags(true));
        moto.create_cluster_with("half", "1.34", &kube.url, ca, flags(false));
        let main_tf = |name: &str| {
            format!(
                r#"{}
data "eksgpu_cluster" "c" {{
  name = "{name}"
}}
output "cluster" {{
  value = data.eksgpu_cluster.c
}}
"#,
                provider_header()
            )
        };
        let w = workdir(&tf, &main_tf("auto"), &moto);
        w.apply();
        let c = &w.outputs()["cluster"]["value"];
        assert_eq!(c["auto_mode"], true, "{}: {c}", tf.label);
        assert_eq!(c["kubernetes_version"], "1.34");
        assert_eq!(c["vpc_cidrs"], json!(["10.0.0.0/16"]));
        assert_eq!(c["service_cidr"], "172.20.0.0/16");
        assert_eq!(c["remote_node_networks"], json!(["192.168.100.0/24"]));
        assert!(c["vpc_id"].as_str().is_some_and(|v| v.starts_with("vpc-")));

        let bad = workdir(&tf, &main_tf("half"), &moto);
        let (code, r) = bad.plan_code(&[]);
        let out = r.combined();
        assert_eq!(code, 1, "{out}");
        let code = "EKSGPU018";
        assert!(out.contains(code) && out.contains("block storage false"), "{out}");
    }
}

#[test]
fn throttled_calls_are_retried_and_succeed() {
    let tf = &terraform_versions()[0];
    let (_kube, moto, w) = setup(tf, &strategy(None, &mng_pool("training", "{}")));
    moto.fault(
        &json!({"method": "POST", "path": "/node-groups$", "status": 429, "code": "ThrottlingException", "count": 2}),
    );
    // A slow 503 while waiting is retried too.
    moto.fault(&json!({"method": "GET", "path": "/node-groups/", "status": 503, "code": "ServiceUnavailableException", "latency_ms": 300, "count": 1}));
    moto.clear_requests();
    w.apply();
    assert_eq!(
        moto.count("POST", "/node-groups"),
        3,
        "two throttled attempts, then success"
    );
    assert!(
        moto.count("GET", "/node-groups/gpu-training") >= 2,
        "the 503 was retried"
    );
    assert_eq!(node_group(&moto, "gpu-training")["nodegroup"]["status"], "ACTIVE");
}

#[test]
fn node_group_stuck_creating_times_out_and_the_next_apply_takes_it_over() {
    for tf in terraform_versions() {
        let tf = &tf;
        let (_kube, moto, w) = setup(tf, &strategy(Some("4s"), &mng_pool("training", "{}")));
        moto.status_sequence("nodegroup", "gpu-training", "create", &["CREATING"; 500]);
        let r = w.run(&["apply", "-auto-approve", "-no-color"]);
        // Terraform wraps diagnostics; compare words.
        let out = r.combined().split_whitespace().collect::<Vec<_>>().join(" ");
        assert_ne!(r.code, 0, "{out}");
        assert!(
            out.contains("Timed out waiting for AWS") && out.contains("still CREATING"),
            "{out}"
        );
        // A failed create keeps nothing in state (Terraform would taint it and
        // replace the node group); the node group stays for the next apply.
        assert!(pool_names(&w).is_empty());
        assert!(
            out.contains("AWS objects kept for the next apply") && out.contains("node group gpu-training"),
            "{out}"
        );
        let arn = node_group(&moto, "gpu-training")["nodegroup"]["nodegroupArn"].clone();
        assert!(arn.is_string());

        // EKS finishes; the next apply takes the same node group over.
        moto.status_sequence("nodegroup", "gpu-training", "create", &[]);
        w.apply();
        w.assert_empty_plan();
        let ng = node_group(&moto, "gpu-training");
        assert_eq!(ng["nodegroup"]["status"], "ACTIVE");
        assert_eq!(
            ng["nodegroup"]["nodegroupArn"], arn,
            "the same node group, not a new one"
        );
        let creates = moto
            .requests()
            .iter()
            .filter(|r| r["method"] == "POST" && r["path"].as_str().is_some_and(|p| p.ends_with("/node-groups")))
            .count();
        assert_eq!(creates, 1, "one CreateNodegroup in all");
    }
}

#[test]
fn a_node_group_made_outside_terraform_is_refused_until_adopted() {
    let tf = &terraform_versions()[0];
    let (_kube, moto, w) = setup(tf, &strategy(None, &mng_pool("training", "{}")));
    let subnets = moto.eks("GET", "/clusters/gpu", &Value::Null)["cluster"]["resourcesVpcConfig"]["subnetIds"].clone();
    moto.eks(
        "POST",
        "/clusters/gpu/node-groups",
        &json!({"nodegroupName": "gpu-training", "nodeRole": NODE_ROLE, "subnets": subnets,
                "instanceTypes": ["p5.48xlarge"], "capacityType": "SPOT", "amiType": "AL2023_x86_64_NVIDIA",
                "scalingConfig": {"minSize": 0, "maxSize": 4, "desiredSize": 1},
                "tags": {"alpha.eksctl.io/cluster-name": "gpu"}}),
    );
    let r = w.run(&["apply", "-auto-approve", "-no-color"]);
    let out = r.combined().split_whitespace().collect::<Vec<_>>().join(" ");
    assert_ne!(r.code, 0, "{out}");
    assert!(
        out.contains("node group gpu-training") && out.contains("eksctl gpu"),
        "{out}"
    );
    assert!(
        node_group(&moto, "gpu-training")["nodegroup"]["tags"]
            .get("eksgpu.terraform.io/strategy")
            .is_none()
    );

    // Adopted: tagged as the strategy's, the same node group.
    let arn = node_group(&moto, "gpu-training")["nodegroup"]["nodegroupArn"].clone();
    w.write(
        "main.tf",
        &strategy(
            None,
            &mng_pool("training", "{}").replace(
                "capacity_types = [\"spot\"]",
                "capacity_types = [\"spot\"]\n    adopt          = true",
            ),
        ),
    );
    w.apply();
    let ng = node_group(&moto, "gpu-training");
    assert_eq!(ng["nodegroup"]["tags"]["eksgpu.terraform.io/strategy"], "genai");
    assert_eq!(ng["nodegroup"]["nodegroupArn"], arn);
    w.assert_empty_plan();
}

#[test]
fn a_failure_between_pools_keeps_the_first_in_state_and_the_next_apply_continues() {
    let tf = &terraform_versions()[0];
    let (_kube, moto, w) = setup(tf, &strategy(None, &mng_pool("a", "{}")));
    w.apply();
    let three = format!("{}{}{}", mng_pool("a", "{}"), mng_pool("b", "{}"), mng_pool("c", "{}"));
    w.write("main.tf", &strategy(None, &three));
    // The second CreateNodegroup (pool c) is refused; pool b's goes through.
    moto.fault(&json!({"method": "POST", "path": "/node-groups$", "status": 400, "code": "InvalidParameterException", "after": 1}));
    let r = w.run(&["apply", "-auto-approve", "-no-color"]);
    let out = r.combined();
    assert_ne!(r.code, 0, "{out}");
    assert!(out.contains("eks:CreateNodegroup") && out.contains("gpu-c"), "{out}");
    assert_eq!(pool_names(&w), ["a", "b"]);
    moto.clear_faults();
    w.apply();
    assert_eq!(pool_names(&w), ["a", "b", "c"]);
    w.assert_empty_plan();
}

#[test]
fn ctrl_c_during_a_wait_ends_the_run_promptly() {
    let tf = &terraform_versions()[0];
    let (_kube, moto, w) = setup(tf, &strategy(Some("30m"), &mng_pool("training", "{}")));
    moto.status_sequence("nodegroup", "gpu-training", "create", &["CREATING"; 500]);
    moto.clear_requests();
    let mut child = w.spawn(&["apply", "-auto-approve", "-no-color"]);
    // Bounded wait until the provider polls the node group.
    let deadline = Instant::now() + Duration::from_secs(60);
    while moto.count("GET", "/node-groups/gpu-training") == 0 {
        assert!(Instant::now() < deadline, "the provider never started waiting");
        std::thread::sleep(Duration::from_millis(200));
    }
    let interrupted = Instant::now();
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    loop {
        if let Some(code) = child.try_wait().expect("wait") {
            assert!(!code.success());
            break;
        }
        assert!(
            interrupted.elapsed() < Duration::from_secs(15),
            "terraform still running 15 s after Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    eprintln!("terraform exited {:?} after Ctrl-C", interrupted.elapsed());
    let out = child.wait_with_output().expect("output");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("cancel"), "{text}");
    // The create was cut short: nothing in state; the node group stays for the next apply.
    assert!(pool_names(&w).is_empty());
    assert!(node_group(&moto, "gpu-training")["nodegroup"].is_object());
}

#[test]
fn an_instance_type_change_replaces_only_that_node_group() {
    let tf = &terraform_versions()[0];
    let two = format!("{}{}", mng_pool("a", "{}"), mng_pool("b", "{}"));
    let (_kube, moto, w) = setup(tf, &strategy(None, &two));
    w.apply();
    w.write(
        "main.tf",
        &strategy(None, &two.replacen(r#"["p5.48xlarge"]"#, r#"["p4d.24xlarge"]"#, 1)),
    );
    let (code, r) = w.plan_code(&[]);
    let out = r.combined().split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("Node group gpu-a will be replaced"), "{out}");
    moto.clear_requests();
    w.apply();
    assert_eq!(
        node_group(&moto, "gpu-a")["nodegroup"]["instanceTypes"],
        json!(["p4d.24xlarge"])
    );
    assert_eq!(moto.count("DELETE", "/node-groups/gpu-a"), 1);
    assert_eq!(
        moto.count("DELETE", "/node-groups/gpu-b"),
        0,
        "the other node group is untouched"
    );
    assert_eq!(moto.count("POST", "/node-groups"), 1);
    w.assert_empty_plan();
}

#[test]
fn a_node_group_whose_creation_failed_is_created_again() {
    let tf = &terraform_versions()[0];
    let (_kube, moto, w) = setup(tf, &strategy(None, &mng_pool("training", "{}")));
    w.apply();
    // EKS reports the creation failed (to the refresh and to apply's own look).
    moto.status_sequence("nodegroup", "gpu-training", "now", &["CREATE_FAILED", "CREATE_FAILED"]);
    moto.clear_requests();
    w.apply();
    assert_eq!(moto.count("DELETE", "/node-groups/gpu-training"), 1);
    assert_eq!(moto.count("POST", "/node-groups"), 1);
    assert_eq!(node_group(&moto, "gpu-training")["nodegroup"]["status"], "ACTIVE");
    w.assert_empty_plan();
}

/// A fault at each EKS request of a node group pool's create (its
/// DescribeNodegroup, CreateNodegroup and the waits): the next apply
/// converges on one node group, made once, and destroy removes it.
#[test]
fn a_fault_at_any_step_of_a_node_group_create_converges_on_one_node_group() {
    let tf = &terraform_versions()[0];
    for after in 0..4 {
        let (_kube, moto, w) = setup(tf, &strategy(None, &mng_pool("training", "{}")));
        moto.status_sequence("nodegroup", "gpu-training", "create", &["CREATING", "CREATING"]);
        moto.clear_requests();
        moto.fault(
            &json!({"path": "/node-groups", "status": 400, "code": "InvalidParameterException", "after": after}),
        );
        let r = w.run(&["apply", "-auto-approve", "-no-color"]);
        assert_ne!(r.code, 0, "request {after}: {}", r.combined());
        moto.clear_faults();
        let made = node_group(&moto, "gpu-training")["nodegroup"]["nodegroupArn"].clone();
        moto.clear_requests();
        w.apply();
        w.assert_empty_plan();
        let creates = moto
            .requests()
            .iter()
            .filter(|r| r["method"] == "POST" && r["path"].as_str().is_some_and(|p| p.ends_with("/node-groups")))
            .count();
        if made.is_string() {
            assert_eq!(
                creates, 0,
                "request {after}: the node group made before the fault is taken over"
            );
            assert_eq!(node_group(&moto, "gpu-training")["nodegroup"]["nodegroupArn"], made);
        } else {
            assert_eq!(creates, 1, "request {after}: made once");
        }
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
        assert!(
            moto.eks("GET", "/clusters/gpu/node-groups", &Value::Null)["nodegroups"]
                .as_array()
                .is_some_and(Vec::is_empty)
        );
    }
}

#[test]
fn a_second_strategy_with_the_same_node_group_pool_fails_and_the_first_is_untouched() {
    for tf in terraform_versions() {
        let tf = &tf;
        let (_kube, moto, first) = setup(tf, &strategy(None, &mng_pool("training", "{}")));
        first.apply();
        let arn = node_group(&moto, "gpu-training")["nodegroup"]["nodegroupArn"].clone();
        let second = workdir(
            tf,
            &strategy(None, &mng_pool("training", r#"{ team = "other" }"#))
                .replace(r#"name         = "genai""#, r#"name         = "other""#),
            &moto,
        );
        let r = second.run(&["apply", "-auto-approve", "-no-color"]);
        let out = r.combined().split_whitespace().collect::<Vec<_>>().join(" ");
        assert_ne!(r.code, 0, "{out}");
        assert!(out.contains(r#"belongs to eksgpu_node_strategy "genai""#), "{out}");
        second.ok(&["destroy", "-auto-approve", "-no-color"]);
        let ng = node_group(&moto, "gpu-training");
        assert_eq!(ng["nodegroup"]["nodegroupArn"], arn);
        assert_eq!(ng["nodegroup"]["tags"]["eksgpu.terraform.io/strategy"], "genai");
        assert!(ng["nodegroup"]["labels"].get("team").is_none());
        first.assert_empty_plan();
    }
}

/// An access entry made outside Terraform (say by terraform-aws-modules/eks)
/// is used as it is and left at destroy; adopted, it becomes the strategy's.
#[test]
fn a_hybrid_access_entry_made_elsewhere_is_left_alone_unless_adopted() {
    let tf = &terraform_versions()[0];
    let main_tf = strategy(None, &hybrid_pool(r#"["192.168.100.0/24"]"#));
    let (_kube, moto, w) = setup(tf, &main_tf);
    moto.eks(
        "POST",
        "/clusters/gpu/access-entries",
        &json!({"principalArn": HYBRID_ROLE, "type": "HYBRID_LINUX", "tags": {"team": "platform"}}),
    );
    w.apply();
    assert!(
        access_entry(&moto, HYBRID_ROLE)["accessEntry"]["tags"]
            .get("eksgpu.terraform.io/strategy")
            .is_none()
    );
    w.ok(&["destroy", "-auto-approve", "-no-color"]);
    assert_eq!(
        access_entry(&moto, HYBRID_ROLE)["accessEntry"]["tags"]["team"],
        "platform",
        "not ours: kept"
    );

    let adopted = main_tf.replace("capacity = \"hybrid\"", "capacity = \"hybrid\"\n    adopt    = true");
    w.write("main.tf", &adopted);
    w.apply();
    let tags = &access_entry(&moto, HYBRID_ROLE)["accessEntry"]["tags"];
    assert_eq!(tags["eksgpu.terraform.io/strategy"], "genai");
    // Adopted, its tags are the strategy's to set (refresh reports them as the pool's `tags`).
    assert!(tags.get("team").is_none(), "{tags}");
    w.assert_empty_plan();
    w.ok(&["destroy", "-auto-approve", "-no-color"]);
    assert!(
        access_entry(&moto, HYBRID_ROLE).get("accessEntry").is_none(),
        "adopted: deleted with the strategy"
    );
}

/// Remote networks another owner set (terraform-aws-modules/eks's
/// `remote_network_config`): a hybrid pool with other CIDRs is refused, one
/// with the same CIDRs uses them and leaves them at destroy; adopted, they
/// are the strategy's and go with it.
#[test]
fn remote_networks_set_elsewhere_are_never_replaced_or_cleared_unless_adopted() {
    let tf = &terraform_versions()[0];
    let (_kube, moto, w) = setup(tf, &strategy(None, &hybrid_pool(r#"["192.168.100.0/24"]"#)));
    moto.eks(
        "POST",
        "/clusters/gpu/update-config",
        &json!({"remoteNetworkConfig": {"remoteNodeNetworks": [{"cidrs": ["192.168.50.0/24"]}],
                                        "remotePodNetworks": [{"cidrs": ["192.168.200.0/24"]}]}}),
    );
    let networks = || moto.eks("GET", "/clusters/gpu", &Value::Null)["cluster"]["remoteNetworkConfig"].clone();
    let r = w.run(&["apply", "-auto-approve", "-no-color"]);
    let out = r.combined().split_whitespace().collect::<Vec<_>>().join(" ");
    assert_ne!(r.code, 0, "{out}");
    assert!(out.contains("did not set") && out.contains("192.168.50.0/24"), "{out}");
    assert_eq!(
        networks()["remoteNodeNetworks"],
        json!([{"cidrs": ["192.168.50.0/24"]}])
    );

    // The same CIDRs: used as they are, left at destroy.
    w.write("main.tf", &strategy(None, &hybrid_pool(r#"["192.168.50.0/24"]"#)));
    w.apply();
    w.assert_empty_plan();
    w.ok(&["destroy", "-auto-approve", "-no-color"]);
    assert_eq!(
        networks()["remoteNodeNetworks"],
        json!([{"cidrs": ["192.168.50.0/24"]}])
    );

    // Adopted: replaced, and cleared with the strategy.
    let adopted = strategy(None, &hybrid_pool(r#"["192.168.100.0/24"]"#))
        .replace("capacity = \"hybrid\"", "capacity = \"hybrid\"\n    adopt    = true");
    w.write("main.tf", &adopted);
    w.apply();
    assert_eq!(
        networks()["remoteNodeNetworks"],
        json!([{"cidrs": ["192.168.100.0/24"]}])
    );
    w.ok(&["destroy", "-auto-approve", "-no-color"]);
    let left = networks();
    assert!(
        left["remoteNodeNetworks"].as_array().is_none_or(Vec::is_empty),
        "{left}"
    );
}

/// Issue #14's node group settings: sent at creation, read back with an empty plan; a new
/// release is an `UpdateNodegroupVersion`, node repair and the update percentage change in place.
#[test]
fn node_group_release_disk_repair_and_update_percentage() {
    let pool = |release: &str, repair: bool| {
        format!(
            r#"
  training = {{
    capacity       = "managed_node_group"
    instance_types = ["p5.48xlarge"]
    managed_node_group = {{
      node_role_arn   = "{NODE_ROLE}"
      subnet_ids      = data.eksgpu_cluster.gpu.subnet_ids
      release_version = "{release}"
      disk_size       = 200
      scaling = {{
        min     = 0
        max     = 4
        desired = 1
      }}
      update = {{
        max_unavailable_percentage = 25
      }}
      node_repair_config = {{
        enabled = {repair}
      }}
    }}
  }}"#
        )
    };
    for tf in terraform_versions() {
        let (_kube, moto, w) = setup(&tf, &strategy(None, &pool("1.33.0-20260701", true)));
        w.apply();
        let ng = &node_group(&moto, "gpu-training")["nodegroup"];
        assert_eq!(ng["releaseVersion"], "1.33.0-20260701", "{}: {ng}", tf.label);
        assert_eq!(ng["diskSize"], 200);
        assert_eq!(ng["updateConfig"]["maxUnavailablePercentage"], 25);
        assert_eq!(ng["nodeRepairConfig"]["enabled"], true);
        w.assert_empty_plan();

        w.write("main.tf", &strategy(None, &pool("1.33.0-20260801", false)));
        let changes = w.planned_changes();
        assert!(
            changes.contains(&"pools[\"training\"].managed_node_group.release_version".to_owned()),
            "{changes:?}"
        );
        moto.clear_requests();
        w.apply();
        assert_eq!(moto.count("POST", "/node-groups/gpu-training/update-version"), 1);
        assert_eq!(moto.count("POST", "/node-groups/gpu-training/update-config"), 1);
        let creates = moto
            .requests()
            .into_iter()
            .filter(|r| r["method"] == "POST" && r["path"] == "/clusters/gpu/node-groups")
            .count();
        assert_eq!(creates, 0, "no new node group");
        assert_eq!(moto.count("DELETE", "/node-groups/gpu-training"), 0);
        let ng = &node_group(&moto, "gpu-training")["nodegroup"];
        assert_eq!(ng["releaseVersion"], "1.33.0-20260801");
        assert_eq!(ng["nodeRepairConfig"]["enabled"], false);
        w.assert_empty_plan();
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
    }
}

/// `kubernetes_version`: CreateNodegroup `version`, read back with an empty plan; a new minor is
/// an `UpdateNodegroupVersion` with `version`, in place; one newer than the cluster (moto's is
/// 1.33) is EKSGPU307 at plan. (Unset, every other case here: the version EKS chose is not drift.)
#[test]
fn node_group_kubernetes_version() {
    let pool = |version: &str| {
        format!(
            r#"
  training = {{
    capacity       = "managed_node_group"
    instance_types = ["p5.48xlarge"]
    managed_node_group = {{
      node_role_arn      = "{NODE_ROLE}"
      subnet_ids         = data.eksgpu_cluster.gpu.subnet_ids
      kubernetes_version = "{version}"
      disk_size          = 200
      scaling = {{
        min     = 0
        max     = 4
        desired = 1
      }}
    }}
  }}"#
        )
    };
    let tf = &terraform_versions()[0];
    let (_kube, moto, w) = setup(tf, &strategy(None, &pool("1.32")));
    w.apply();
    assert_eq!(node_group(&moto, "gpu-training")["nodegroup"]["version"], "1.32");
    w.assert_empty_plan();

    w.write("main.tf", &strategy(None, &pool("1.33")));
    let changes = w.planned_changes();
    assert!(
        changes.contains(&"pools[\"training\"].managed_node_group.kubernetes_version".to_owned()),
        "{changes:?}"
    );
    moto.clear_requests();
    w.apply();
    let updates: Vec<Value> = moto
        .requests()
        .into_iter()
        .filter(|r| r["method"] == "POST" && r["path"] == "/clusters/gpu/node-groups/gpu-training/update-version")
        .collect();
    assert_eq!(updates.len(), 1, "{updates:?}");
    assert_eq!(moto.count("DELETE", "/node-groups/gpu-training"), 0, "in place");
    assert_eq!(node_group(&moto, "gpu-training")["nodegroup"]["version"], "1.33");
    w.assert_empty_plan();

    w.write("main.tf", &strategy(None, &pool("1.34")));
    let (code, run) = w.plan_code(&[]);
    assert_ne!(code, 0);
    assert!(run.combined().contains("EKSGPU307"), "{}", run.combined());
    w.write("main.tf", &strategy(None, &pool("1.33")));
    w.ok(&["destroy", "-auto-approve", "-no-color"]);
}

/// The provider's `default_tags` and a pool's `tags` on the node group and the hybrid access
/// entry: pool tags win, the next apply retags in place, and an outside edit is drift.
#[test]
fn default_tags_and_pool_tags_on_node_groups_and_access_entries() {
    let main_tf = |team: &str| {
        let pools = format!(
            r#"
  training = {{
    capacity       = "managed_node_group"
    instance_types = ["p5.48xlarge"]
    tags           = {{ team = "{team}" }}
    managed_node_group = {{
      node_role_arn = "{NODE_ROLE}"
      subnet_ids    = data.eksgpu_cluster.gpu.subnet_ids
      disk_size     = 200
      scaling = {{
        min     = 0
        max     = 4
        desired = 1
      }}
    }}
  }}{}"#,
            hybrid_pool(r#"["10.80.0.0/16"]"#)
        );
        strategy(None, &pools).replace(
            &provider_header(),
            &Provider::new()
                .setting("default_tags {\n  tags = { cost-center = \"ml-platform\", team = \"infra\" }\n}")
                .header(),
        )
    };
    for tf in terraform_versions() {
        let (_kube, moto, w) = setup(&tf, &main_tf("ml"));
        w.apply();
        let tags = &node_group(&moto, "gpu-training")["nodegroup"]["tags"];
        assert_eq!(tags["cost-center"], "ml-platform", "{}: {tags}", tf.label);
        assert_eq!(tags["team"], "ml", "pool tags override default tags");
        assert_eq!(tags["eksgpu.terraform.io/pool"], "training");
        let entry = &access_entry(&moto, HYBRID_ROLE)["accessEntry"]["tags"];
        assert_eq!(entry["cost-center"], "ml-platform", "{entry}");
        assert_eq!(entry["team"], "infra");
        w.assert_empty_plan();

        // A changed pool tag is retagged in place, no new node group.
        w.write("main.tf", &main_tf("research"));
        moto.clear_requests();
        w.apply();
        assert_eq!(moto.count("POST", "/tags/"), 1, "{:?}", moto.requests());
        assert_eq!(moto.count("DELETE", "/node-groups/gpu-training"), 0);
        assert_eq!(
            node_group(&moto, "gpu-training")["nodegroup"]["tags"]["team"],
            "research"
        );
        w.assert_empty_plan();

        // A tag added outside Terraform is drift of the pool's `tags`; apply removes it.
        let arn = node_group(&moto, "gpu-training")["nodegroup"]["nodegroupArn"]
            .as_str()
            .unwrap()
            .to_owned();
        moto.eks("POST", &format!("/tags/{arn}"), &json!({"tags": {"owner": "someone"}}));
        // State's YAML (the node group request) says what was read back too.
        assert_eq!(
            w.planned_changes(),
            ["pools[\"training\"].manifests_yaml", "pools[\"training\"].tags.owner"],
            "{}",
            tf.label
        );
        w.apply();
        assert!(
            node_group(&moto, "gpu-training")["nodegroup"]["tags"]
                .get("owner")
                .is_none()
        );
        w.assert_empty_plan();
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
    }
}

/// An on-demand (capacity types unset) EFA node group of p5s with a `disk` GiB disk: it gets a launch template.
fn efa_pool(disk: u32) -> String {
    mng_pool("training", "{}")
        .replace(r#"capacity_types = ["spot"]"#, "efa            = true")
        .replace(
            "      update = {",
            &format!("      disk_size     = {disk}\n      update = {{"),
        )
}

/// The launch template `gpu-training` as EC2 (moto) describes its latest version, or its error.
fn template_version(moto: &Moto) -> String {
    moto.ec2("Action=DescribeLaunchTemplateVersions&LaunchTemplateName=gpu-training&Versions.1=%24Latest")
}

fn template_exists(moto: &Moto) -> bool {
    moto.ec2("Action=DescribeLaunchTemplates&LaunchTemplateName.1=gpu-training")
        .contains("<launchTemplateId>")
}

/// A launch-template node group: created with its template (EFA interfaces, the disk), a disk
/// change is a new template version the node group rolls to, destroy removes both.
#[test]
fn a_launch_template_node_group_is_created_versioned_rolled_and_deleted() {
    for tf in terraform_versions() {
        let (_kube, moto, w) = setup(&tf, &strategy(None, &efa_pool(200)));
        let (code, r) = w.plan_code(&[]);
        assert_eq!(code, 2);
        assert!(
            r.stdout.contains("CreateLaunchTemplate"),
            "{}: the plan shows the template",
            tf.label
        );
        w.apply();
        let ng = &node_group(&moto, "gpu-training")["nodegroup"];
        assert_eq!(ng["launchTemplate"]["name"], "gpu-training", "{}: {ng}", tf.label);
        assert_eq!(ng["launchTemplate"]["version"], "1");
        assert_eq!(ng["tags"]["k8s.io/cluster-autoscaler/enabled"], "true");
        assert_eq!(ng["tags"]["k8s.io/cluster-autoscaler/gpu"], "owned");
        assert_eq!(
            ng["tags"]["k8s.io/cluster-autoscaler/node-template/taint/nvidia.com/gpu"],
            "true:NoSchedule"
        );
        // The autoscaler's GPU label on the nodes and in its node-template tag (#33 class 4).
        let gpu_label = ng["labels"]["k8s.amazonaws.com/accelerator"].as_str();
        assert!(gpu_label.is_some_and(|v| v.starts_with("nvidia-")), "{ng}");
        assert_eq!(
            ng["tags"]["k8s.io/cluster-autoscaler/node-template/label/k8s.amazonaws.com/accelerator"].as_str(),
            gpu_label
        );
        let v1 = template_version(&moto);
        assert_eq!(v1.matches("<interfaceType>efa</interfaceType>").count(), 32, "{v1}");
        assert!(v1.contains("<volumeSize>200</volumeSize>"), "{v1}");
        // Refresh reads the template version: no drift, autoscaler tags included.
        w.assert_empty_plan();
        // Import reads the template too: EFA and the disk come back, the autoscaler's tags are not the pool's.
        let imported = workdir(&tf, &strategy(None, &efa_pool(200)), &moto);
        imported.ok(&["import", "-no-color", "eksgpu_node_strategy.s", "gpu/genai"]);
        imported.assert_empty_plan();

        w.write("main.tf", &strategy(None, &efa_pool(300)));
        moto.clear_requests();
        w.apply();
        let ng = &node_group(&moto, "gpu-training")["nodegroup"];
        assert_eq!(
            ng["launchTemplate"]["version"], "2",
            "{}: rolled to the new version",
            tf.label
        );
        assert_eq!(moto.count("POST", "/update-version"), 1);
        assert_eq!(moto.count("DELETE", "/node-groups/gpu-training"), 0, "in place");
        assert!(template_version(&moto).contains("<volumeSize>300</volumeSize>"));
        w.assert_empty_plan();

        w.ok(&["destroy", "-auto-approve", "-no-color"]);
        assert!(node_group(&moto, "gpu-training").get("nodegroup").is_none());
        assert!(
            !template_exists(&moto),
            "{}: the template went after the node group",
            tf.label
        );
    }
}

/// The launch template's tags follow the pool's: a tag changed is set (CreateTags), a tag dropped is
/// removed (DeleteTags), on both CLIs, and the template keeps its version (tags are not template
/// data). Read through DescribeTags: moto's DescribeLaunchTemplates reports a template's tags as
/// they were at creation, while its tag store (what DescribeTags reads) follows CreateTags and DeleteTags.
#[test]
fn a_tag_dropped_from_a_pool_leaves_its_launch_template() {
    let tagged =
        |tags: &str| efa_pool(200).replace("    labels ", &format!("    tags           = {tags}\n    labels "));
    let template_tags = |moto: &Moto| {
        let listed = moto.ec2("Action=DescribeLaunchTemplates&LaunchTemplateName.1=gpu-training");
        let id = listed
            .split("<launchTemplateId>")
            .nth(1)
            .and_then(|r| r.split('<').next())
            .unwrap_or_else(|| panic!("no template: {listed}"))
            .to_owned();
        moto.ec2(&format!(
            "Action=DescribeTags&Filter.1.Name=resource-id&Filter.1.Value.1={id}"
        ))
    };
    for tf in terraform_versions() {
        let (_kube, moto, w) = setup(&tf, &strategy(None, &tagged(r#"{ team = "ml", cost = "c1" }"#)));
        w.apply();
        let before = template_tags(&moto);
        assert!(
            before.contains("<key>cost</key>") && before.contains("<value>ml</value>"),
            "{before}"
        );
        w.write("main.tf", &strategy(None, &tagged(r#"{ team = "research" }"#)));
        w.apply();
        let after = template_tags(&moto);
        assert!(
            !after.contains("<key>cost</key>"),
            "{}: the dropped tag is gone: {after}",
            tf.label
        );
        assert!(after.contains("<value>research</value>"), "{}: {after}", tf.label);
        assert!(
            after.contains("<key>eksgpu.terraform.io/strategy</key>"),
            "{}: ownership tags stay",
            tf.label
        );
        assert!(
            template_version(&moto).contains("<versionNumber>1</versionNumber>"),
            "{}",
            tf.label
        );
        w.assert_empty_plan();
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
    }
}

/// A fault at each EC2 and EKS request of a launch-template node group's create: the next apply
/// converges on one template and one node group, and destroy leaves neither.
#[test]
fn a_fault_at_any_step_of_a_launch_template_node_group_create_leaves_nothing_unknown() {
    let tf = &terraform_versions()[0];
    // DescribeLaunchTemplates, CreateLaunchTemplate, then the node group's describe and create.
    for (action, path) in [
        (Some("DescribeLaunchTemplates"), None),
        (Some("CreateLaunchTemplate"), None),
        (None, Some("/node-groups$")),
    ] {
        let (_kube, moto, w) = setup(tf, &strategy(None, &efa_pool(200)));
        let mut fault = json!({"status": 400, "code": "InvalidParameterException"});
        if let Some(a) = action {
            fault["action"] = json!(a);
        }
        if let Some(p) = path {
            fault["path"] = json!(p);
            fault["method"] = json!("POST");
        }
        moto.fault(&fault);
        let r = w.run(&["apply", "-auto-approve", "-no-color"]);
        assert_ne!(r.code, 0, "{fault}: {}", r.combined());
        moto.clear_faults();
        // A node group EKS refused leaves no template behind.
        if path.is_some() {
            assert!(!template_exists(&moto), "{fault}: the template made for it was deleted");
        }
        w.apply();
        w.assert_empty_plan();
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
        assert!(!template_exists(&moto), "{fault}");
    }
}

/// A template of the same name another owner tagged is never changed or deleted.
#[test]
fn a_launch_template_made_elsewhere_is_refused_naming_its_owner() {
    let tf = &terraform_versions()[0];
    let (_kube, moto, w) = setup(tf, &strategy(None, &efa_pool(200)));
    moto.ec2(
        "Action=CreateLaunchTemplate&LaunchTemplateName=gpu-training&LaunchTemplateData.InstanceType=p5.48xlarge\
         &TagSpecification.1.ResourceType=launch-template&TagSpecification.1.Tag.1.Key=team&TagSpecification.1.Tag.1.Value=infra",
    );
    let r = w.run(&["apply", "-auto-approve", "-no-color"]);
    assert_ne!(r.code, 0);
    let out = r.combined().split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(out.contains("launch template gpu-training"), "{out}");
    assert!(node_group(&moto, "gpu-training").get("nodegroup").is_none());
    assert!(
        template_version(&moto).contains("<instanceType>p5.48xlarge</instanceType>"),
        "left as it was"
    );
}

/// A P5 Capacity Block node group with EFA: created (not refused) on a launch template with the
/// reservation and `capacity-block` market, `CAPACITY_BLOCK` on the node group, no drift.
#[test]
fn a_capacity_block_node_group_with_efa_is_created_on_its_launch_template() {
    for tf in terraform_versions() {
        let pool = efa_pool(200)
            .replace(
                "efa            = true",
                "efa            = true\n    capacity_types = [\"capacity-block\"]",
            )
            .replace(
                "      disk_size     = 200",
                "      disk_size     = 200\n      capacity_reservation_id = \"cr-0123456789abcdef0\"",
            );
        let (_kube, moto, w) = setup(&tf, &strategy(None, &pool));
        w.apply();
        let ng = &node_group(&moto, "gpu-training")["nodegroup"];
        assert_eq!(ng["capacityType"], "CAPACITY_BLOCK", "{}: {ng}", tf.label);
        let v = template_version(&moto);
        assert!(v.contains("<marketType>capacity-block</marketType>"), "{v}");
        assert!(
            v.contains("<capacityReservationId>cr-0123456789abcdef0</capacityReservationId>"),
            "{v}"
        );
        assert!(v.contains("<instanceType>p5.48xlarge</instanceType>"), "{v}");
        w.assert_empty_plan();
        // An upgrade in place (a new template version: the disk) warns EKSGPU190, at the node group;
        // a configuration whose node group is at 0 says so and the warning goes.
        let bigger = pool.replace("disk_size     = 200", "disk_size     = 300");
        w.write("main.tf", &strategy(None, &bigger));
        let (code, r) = w.plan_code(&[]);
        let out = r.combined();
        assert_eq!(code, 2, "{}: {out}", tf.label);
        assert!(
            out.contains("Warning: EKSGPU190: Capacity Block node group upgraded in place")
                && out.contains(r#"pools["training"].managed_node_group"#),
            "{}: {out}",
            tf.label
        );
        let acknowledged = strategy(None, &bigger).replace(
            "  name         = \"genai\"\n",
            "  name         = \"genai\"\n  acknowledged_warnings = [\"EKSGPU190\"]\n",
        );
        w.write("main.tf", &acknowledged);
        let (_, r) = w.plan_code(&[]);
        // ("EKSGPU190" itself shows in the plan, as the acknowledged code.)
        assert!(
            !r.combined().contains("Warning: EKSGPU190"),
            "{}: {}",
            tf.label,
            r.combined()
        );
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
        assert!(!template_exists(&moto));
    }
}

/// Faults at the requests of a template update (CreateLaunchTemplateVersion,
/// UpdateNodegroupVersion) and of the delete (DeleteLaunchTemplate): the next run converges,
/// one new version made, and nothing is left once destroy succeeds.
#[test]
fn faults_at_a_template_update_and_delete_converge_and_leave_nothing() {
    let tf = &terraform_versions()[0];
    for fault in [
        json!({"action": "CreateLaunchTemplateVersion", "status": 400, "code": "InvalidParameterValue"}),
        json!({"path": "/update-version$", "status": 400, "code": "InvalidParameterException"}),
    ] {
        let (_kube, moto, w) = setup(tf, &strategy(None, &efa_pool(200)));
        w.apply();
        w.write("main.tf", &strategy(None, &efa_pool(300)));
        moto.fault(&fault);
        let r = w.run(&["apply", "-auto-approve", "-no-color"]);
        assert_ne!(r.code, 0, "{fault}: {}", r.combined());
        moto.clear_faults();
        w.apply();
        w.assert_empty_plan();
        assert_eq!(
            node_group(&moto, "gpu-training")["nodegroup"]["launchTemplate"]["version"],
            "2",
            "{fault}"
        );
        let versions = moto.ec2("Action=DescribeLaunchTemplateVersions&LaunchTemplateName=gpu-training");
        assert_eq!(
            versions.matches("<versionNumber>").count(),
            2,
            "{fault}: one new version: {versions}"
        );
        moto.fault(&json!({"action": "DeleteLaunchTemplate", "status": 500, "code": "InternalError", "count": 10}));
        let r = w.run(&["destroy", "-auto-approve", "-no-color"]);
        assert_ne!(r.code, 0, "{fault}: {}", r.combined());
        assert!(template_exists(&moto), "a failed delete keeps the template in state");
        moto.clear_faults();
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
        assert!(!template_exists(&moto), "{fault}");
    }
}

/// Turning EFA on replaces the node group (EKS adds no launch template to a node group made
/// without one), as the plan warns; turning it off replaces it again and the template goes.
#[test]
fn adding_or_dropping_the_launch_template_replaces_the_node_group() {
    let tf = &terraform_versions()[0];
    let plain = mng_pool("training", "{}")
        .replace(r#"capacity_types = ["spot"]"#, "")
        .replace("      update = {", "      disk_size     = 200\n      update = {");
    let (_kube, moto, w) = setup(tf, &strategy(None, &plain));
    w.apply();
    w.write("main.tf", &strategy(None, &efa_pool(200)));
    let (code, r) = w.plan_code(&[]);
    let out = r.combined().split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("Node group gpu-training will be replaced"), "{out}");
    assert!(out.contains("launch_template"), "{out}");
    moto.clear_requests();
    w.apply();
    assert_eq!(moto.count("DELETE", "/node-groups/gpu-training"), 1);
    assert_eq!(
        node_group(&moto, "gpu-training")["nodegroup"]["launchTemplate"]["name"],
        "gpu-training"
    );
    w.assert_empty_plan();

    w.write("main.tf", &strategy(None, &plain));
    w.apply();
    assert!(
        node_group(&moto, "gpu-training")["nodegroup"]
            .get("launchTemplate")
            .is_none()
    );
    assert!(
        !template_exists(&moto),
        "the template went with the node group that used it"
    );
    w.assert_empty_plan();
}

/// `metadata_options` (eksctl's IMDS settings of every managed node group, #34) and
/// `security_group_ids` (its cluster and EFA groups): in the pool's launch template
/// (`MetadataOptions`, `SecurityGroupIds` without interfaces), read back with no drift, a change a
/// new template version the node group rolls to (current CLI).
#[test]
fn metadata_options_and_security_groups_go_in_the_launch_template_and_a_change_is_a_new_version() {
    let Some(tf) = terraform_versions().into_iter().last() else {
        return;
    };
    let pool = |hops: u32| {
        mng_pool("training", "{}").replace(
            "      update = {",
            &format!(
                "      metadata_options = {{\n        http_tokens                 = \"required\"\n        \
                 http_put_response_hop_limit = {hops}\n      }}\n      \
                 security_group_ids = [\"sg-0123456789abcdef0\"]\n      update = {{"
            ),
        )
    };
    let (_kube, moto, w) = setup(&tf, &strategy(None, &pool(2)));
    w.apply();
    let ng = &node_group(&moto, "gpu-training")["nodegroup"];
    assert_eq!(ng["launchTemplate"]["name"], "gpu-training", "{ng}");
    let v1 = template_version(&moto);
    assert!(v1.contains("<httpTokens>required</httpTokens>"), "{v1}");
    assert!(
        v1.contains("<httpPutResponseHopLimit>2</httpPutResponseHopLimit>"),
        "{v1}"
    );
    assert!(v1.contains("sg-0123456789abcdef0"), "{v1}");
    w.assert_empty_plan();

    w.write("main.tf", &strategy(None, &pool(1)));
    moto.clear_requests();
    w.apply();
    assert_eq!(
        node_group(&moto, "gpu-training")["nodegroup"]["launchTemplate"]["version"],
        "2"
    );
    assert_eq!(moto.count("DELETE", "/node-groups/gpu-training"), 0, "in place");
    assert!(template_version(&moto).contains("<httpPutResponseHopLimit>1</httpPutResponseHopLimit>"));
    w.assert_empty_plan();
    w.ok(&["destroy", "-auto-approve", "-no-color"]);
    assert!(!template_exists(&moto), "the template went with the node group");
}

/// terraform-aws-modules/eks `ebs_optimized` against EC2 (moto), on an AL2 node group with a
/// second volume from a snapshot (terraform-aws-eks-blueprints ml-container-cache): `EbsOptimized`
/// reaches the launch template, refresh reads it back (no drift), and a change is a new template
/// version the node group rolls to.
#[test]
fn ebs_optimized_reaches_the_launch_template_and_a_change_rolls_it() {
    let tf = &terraform_versions()[0];
    let pool = |ebs: bool| {
        mng_pool("training", "{}")
            .replace(r#"capacity_types = ["spot"]"#, "")
            .replace(
                "      update = {",
                &format!(
                    r#"      ami_type      = "AL2_x86_64_GPU"
      ebs_optimized = {ebs}
      block_device_mappings = [{{
        device_name = "/dev/xvdb"
        snapshot_id = "snap-0123456789abcdef0"
        volume_size = 64
        volume_type = "gp3"
      }}]
      update = {{"#
                ),
            )
    };
    // AL2 AMIs end with Kubernetes 1.32 (EKSGPU013).
    let main = |ebs: bool| {
        strategy(None, &pool(ebs)).replace(
            "  name         = \"genai\"\n",
            "  name         = \"genai\"\n  kubernetes_version = \"1.32\"\n",
        )
    };
    let (_kube, moto, w) = setup(tf, &main(true));
    w.apply();
    let v1 = template_version(&moto);
    assert!(v1.contains("<ebsOptimized>true</ebsOptimized>"), "{v1}");
    assert!(v1.contains("<snapshotId>snap-0123456789abcdef0</snapshotId>"), "{v1}");
    w.assert_empty_plan();
    w.write("main.tf", &main(false));
    w.apply();
    assert_eq!(
        node_group(&moto, "gpu-training")["nodegroup"]["launchTemplate"]["version"],
        "2"
    );
    assert!(template_version(&moto).contains("<ebsOptimized>false</ebsOptimized>"));
    w.assert_empty_plan();
}

/// A node group pool as terraform-aws-modules/eks lays out its launch template (#34): IMDS
/// `metadata_options`, `detailed_monitoring`, and the user data its cloudinit provider renders
/// (`Content-Type` first, CRLF) kept as written. EC2 (moto) stores them in the template, refresh
/// and import read them back (no drift), and a changed hop limit is a new template version.
#[test]
fn metadata_options_monitoring_and_cloudinit_user_data_reach_the_launch_template() {
    let user_data = r#"join("", [
        "Content-Type: multipart/mixed; boundary=\"MIMEBOUNDARY\"\nMIME-Version: 1.0\r\n\r\n",
        "--MIMEBOUNDARY\r\nContent-Transfer-Encoding: 7bit\r\nContent-Type: application/node.eks.aws\r\nMime-Version: 1.0\r\n\r\n",
        "---\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  instance:\n    localStorage:\n      strategy: RAID0\n",
        "\r\n--MIMEBOUNDARY--\r\n",
      ])"#;
    let pool = |hop: u32| {
        mng_pool("training", "{}").replace(
            "      update = {",
            &format!(
                "      detailed_monitoring = true\n      metadata_options = {{\n        \
                 http_endpoint = \"enabled\"\n        http_tokens = \"required\"\n        \
                 http_put_response_hop_limit = {hop}\n      }}\n      user_data = {user_data}\n      update = {{"
            ),
        )
    };
    for tf in terraform_versions() {
        let (_kube, moto, w) = setup(&tf, &strategy(None, &pool(2)));
        let plan = w.ok(&["plan", "-no-color"]);
        assert!(
            plan.stdout.contains("MetadataOptions") && plan.stdout.contains("Monitoring"),
            "{}: the plan shows them",
            tf.label
        );
        w.apply();
        let v1 = template_version(&moto);
        for want in [
            "<httpEndpoint>enabled</httpEndpoint>",
            "<httpTokens>required</httpTokens>",
            "<httpPutResponseHopLimit>2</httpPutResponseHopLimit>",
        ] {
            assert!(v1.contains(want), "{}: {want} in {v1}", tf.label);
        }
        assert!(
            v1.replace(['\n', ' '], "")
                .contains("<monitoring><enabled>true</enabled></monitoring>"),
            "{v1}"
        );
        // The cloudinit document is MIME already: sent as written, not wrapped again.
        let encoded = v1
            .split("<userData>")
            .nth(1)
            .and_then(|r| r.split("</userData>").next())
            .unwrap_or_default();
        use base64::Engine as _;
        let text = base64::engine::general_purpose::STANDARD
            .decode(encoded.trim())
            .unwrap_or_default();
        let text = String::from_utf8_lossy(&text);
        assert!(
            text.starts_with("Content-Type: multipart/mixed; boundary=\"MIMEBOUNDARY\"\n"),
            "{text}"
        );
        assert_eq!(text.matches("multipart/mixed").count(), 1, "{text}");
        w.assert_empty_plan();
        let imported = workdir(&tf, &strategy(None, &pool(2)), &moto);
        imported.ok(&["import", "-no-color", "eksgpu_node_strategy.s", "gpu/genai"]);
        imported.assert_empty_plan();

        w.write("main.tf", &strategy(None, &pool(1)));
        w.apply();
        assert!(
            template_version(&moto).contains("<httpPutResponseHopLimit>1</httpPutResponseHopLimit>"),
            "{}: a new version",
            tf.label
        );
        assert_eq!(
            node_group(&moto, "gpu-training")["nodegroup"]["launchTemplate"]["version"],
            "2"
        );
        w.assert_empty_plan();
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
    }
}

/// Explicit network interfaces with the fields terraform-aws-modules/eks sets on its EFA
/// interfaces (#34): no public address, deleted with the node, a description and the
/// interface's security groups reach the template (EC2, moto), and refresh and import read
/// them back without drift.
#[test]
fn network_interface_public_ip_deletion_description_and_groups_reach_the_launch_template() {
    let interfaces = r#"network_interfaces = [for i in range(32) : {
        network_card_index          = i
        device_index                = i == 0 ? 0 : 1
        interface_type              = "efa"
        associate_public_ip_address = false
        delete_on_termination       = true
        description                 = "EFA Network Interface ${i}"
        security_group_ids          = ["sg-0123456789abcdef0"]
      }]"#;
    let pool = efa_pool(200).replace("      update = {", &format!("      {interfaces}\n      update = {{"));
    for tf in terraform_versions() {
        let (_kube, moto, w) = setup(&tf, &strategy(None, &pool));
        w.apply();
        let v1 = template_version(&moto).replace(['\n', ' '], "");
        assert_eq!(v1.matches("<interfaceType>efa</interfaceType>").count(), 32, "{v1}");
        assert_eq!(
            v1.matches("<associatePublicIpAddress>false</associatePublicIpAddress>")
                .count(),
            32,
            "{v1}"
        );
        assert!(v1.contains("<description>EFANetworkInterface31</description>"), "{v1}");
        assert!(v1.contains("sg-0123456789abcdef0"), "{v1}");
        w.assert_empty_plan();
        let imported = workdir(&tf, &strategy(None, &pool), &moto);
        imported.ok(&["import", "-no-color", "eksgpu_node_strategy.s", "gpu/genai"]);
        imported.assert_empty_plan();
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
    }
}

/// `launch_template_description` and `launch_template_tags` (#34), as terraform-aws-modules/eks
/// writes its templates: the version's `VersionDescription`, and the template's own tags without
/// the node group's `Name` (the provider's identifying tags kept). Refresh and import read them
/// back (no drift); a new description is a new template version the node group rolls to.
#[test]
fn launch_template_description_and_tags_apart_from_the_node_group() {
    let pool = |description: &str| {
        mng_pool("training", "{}")
            .replace(
                "    capacity_types = [\"spot\"]\n",
                "    capacity_types = [\"spot\"]\n    tags = {\n      Team = \"ml\"\n      Name = \"training\"\n    }\n",
            )
            .replace(
                "      update = {",
                &format!(
                    "      launch_template_description = \"{description}\"\n      \
                     launch_template_tags = {{\n        Team = \"ml\"\n      }}\n      update = {{"
                ),
            )
    };
    let tf = &terraform_versions()[0];
    let (_kube, moto, w) = setup(tf, &strategy(None, &pool("first")));
    w.apply();
    assert!(
        template_version(&moto).contains("<versionDescription>first</versionDescription>"),
        "{}",
        template_version(&moto)
    );
    let template = moto.ec2("Action=DescribeLaunchTemplates&LaunchTemplateName.1=gpu-training");
    let compact = template.replace(['\n', ' '], "");
    assert!(compact.contains("<key>Team</key><value>ml</value>"), "{template}");
    assert!(
        !compact.contains("<key>Name</key>"),
        "Name only on the node group: {template}"
    );
    assert!(
        compact.contains("<key>eksgpu.terraform.io/pool</key>"),
        "ownership kept: {template}"
    );
    let ng = &node_group(&moto, "gpu-training")["nodegroup"];
    assert_eq!(ng["tags"]["Name"], "training", "{ng}");
    w.assert_empty_plan();
    let imported = workdir(tf, &strategy(None, &pool("first")), &moto);
    imported.ok(&["import", "-no-color", "eksgpu_node_strategy.s", "gpu/genai"]);
    imported.assert_empty_plan();

    w.write("main.tf", &strategy(None, &pool("second")));
    w.apply();
    assert!(template_version(&moto).contains("<versionDescription>second</versionDescription>"));
    assert_eq!(
        node_group(&moto, "gpu-training")["nodegroup"]["launchTemplate"]["version"],
        "2"
    );
    w.assert_empty_plan();
    w.ok(&["destroy", "-auto-approve", "-no-color"]);
}
