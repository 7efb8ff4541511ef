//! Errors a person can act on, through the real CLI: a refused token (401), an
//! identity the cluster denies (403, named by its ARN), a refused connection,
//! a name that does not resolve, a wrong CA, no AWS region, an unreachable AWS
//! endpoint and Ctrl-C each get their own message naming the cluster or
//! endpoint, and no Rust `Debug` text reaches the user.

use std::time::{Duration, Instant};

use eksgpu_acceptance_tests::hcl::REQUIRED_PROVIDERS;
use eksgpu_acceptance_tests::kube::KubeTarget;
use eksgpu_acceptance_tests::{TerraformVersion, Workdir, eks_cluster, terraform_versions};
use serde_json::json;

/// The provider block (`provider_body` inside it) and one in-cluster strategy on cluster `gpu`.
fn config(provider_body: &str) -> String {
    format!(
        r#"{REQUIRED_PROVIDERS}provider "eksgpu" {{
{provider_body}
}}
resource "eksgpu_node_strategy" "s" {{
  cluster_name = "gpu"
  name         = "genai"
  pools = {{
    inference = {{
      capacity       = "karpenter"
      instance_types = ["g6e.12xlarge"]
      gpu_limit      = 8
      node_class = {{
        role = "KarpenterNodeRole-gpu"
      }}
    }}
  }}
}}
"#
    )
}

/// A `kubernetes` block for `host` with `token` and the CA bundle `ca`.
fn kubernetes(host: &str, token: &str, ca: &str) -> String {
    let ca: String = ca.lines().map(|l| format!("      {l}\n")).collect();
    format!(
        "  region = \"us-west-2\"\n  kubernetes {{\n    host                   = {host:?}\n    token                  = {token:?}\n    cluster_ca_certificate = <<-EOT\n{ca}    EOT\n  }}"
    )
}

/// A CA nobody signed the emulator's certificate with.
fn stranger_ca() -> String {
    rcgen::generate_simple_self_signed(vec!["stranger.example".to_owned()])
        .unwrap_or_else(|e| panic!("{e}"))
        .cert
        .pem()
}

/// Applies expecting failure; returns the diagnostics (stderr) with box-drawing and line breaks flattened.
fn failed_apply(w: &Workdir) -> String {
    let r = w.run(&["apply", "-auto-approve", "-no-color"]);
    let out = flatten(&r.stderr);
    assert_ne!(r.code, 0, "{}: apply succeeded: {}", w.tf.label, r.combined());
    assert_no_debug(&out);
    out
}

/// Kubernetes failures name the cluster and its API server.
fn assert_names_cluster(out: &str, host: &str) {
    assert!(
        out.contains(&format!("the API server of cluster gpu at {host}")),
        "{out}"
    );
}

fn flatten(s: &str) -> String {
    s.replace('│', " ").split_whitespace().collect::<Vec<_>>().join(" ")
}

/// No Rust `Debug` dump and no catch-all hint in a message.
fn assert_no_debug(out: &str) {
    for debug in [
        "DispatchFailure",
        "ConnectorError",
        "ConnectError(",
        "Os {",
        "kind: ",
        "Some(",
        "check that the cluster is reachable",
    ] {
        assert!(!out.contains(debug), "Debug output {debug:?} reached the user: {out}");
    }
}

fn workdir(tf: &TerraformVersion, main_tf: &str) -> Workdir {
    let w = Workdir::new(tf, main_tf);
    w.init();
    w
}

#[test]
fn refused_and_denied_credentials_name_the_identity() {
    for tf in terraform_versions() {
        // 401: the kubernetes block's token is not one the cluster knows.
        let kube = KubeTarget::start();
        if !kube.is_emulator() {
            return;
        }
        let ca = kube.ca_pem.clone().unwrap_or_default();
        let w = workdir(&tf, &config(&kubernetes(&kube.url, "not-the-token", &ca)));
        let out = failed_apply(&w);
        assert!(
            out.contains("Cluster did not accept the provider's credentials"),
            "{out}"
        );
        assert!(out.contains("the token from the provider's kubernetes block"), "{out}");
        assert!(out.contains("401"), "{out}");
        assert_names_cluster(&out, &kube.url);

        // 403: the EKS token is accepted but the identity is not allowed; STS names it.
        let (kube, moto) = eks_cluster("gpu");
        kube.fault(&json!({"path": "nodepools|ec2nodeclasses", "status": 403, "count": 100}));
        let mut w = Workdir::new(&tf, &config("  region = \"us-west-2\""));
        w.env("AWS_ENDPOINT_URL", &moto.url());
        w.init();
        let out = failed_apply(&w);
        assert!(out.contains("Cluster denied access"), "{out}");
        assert!(
            out.contains("the EKS IAM token made from the provider's AWS credentials"),
            "{out}"
        );
        assert!(out.contains("arn:aws:"), "the identity's ARN is named: {out}");
        assert!(out.contains("403"), "{out}");
        assert_names_cluster(&out, &kube.url);
    }
}

#[test]
fn unreachable_clusters_say_why_and_where() {
    let ca = stranger_ca();
    for tf in terraform_versions() {
        // Nothing listens on port 1 of loopback: refused at once.
        let w = workdir(&tf, &config(&kubernetes("https://127.0.0.1:1", "t", &ca)));
        let out = failed_apply(&w);
        assert!(out.contains("Cluster API refused the connection"), "{out}");
        assert!(
            out.contains("https://127.0.0.1:1") && out.contains("connection refused"),
            "{out}"
        );

        // `.invalid` never resolves (RFC 2606); a resolver that does not answer
        // ends in the 10 s connect timeout instead, so the case stays bounded.
        let host = "https://gpu-cluster.eksgpu.invalid";
        let w = workdir(&tf, &config(&kubernetes(host, "t", &ca)));
        let started = Instant::now();
        let out = failed_apply(&w);
        assert!(started.elapsed() < Duration::from_secs(90), "{out}");
        assert_names_cluster(&out, host);
        assert!(
            out.contains("Cluster API host name does not resolve")
                || out.contains("Cluster API did not answer in time"),
            "{out}"
        );

        // The emulator, with a CA that did not sign its certificate.
        let kube = KubeTarget::start();
        if !kube.is_emulator() {
            return;
        }
        let w = workdir(
            &tf,
            &config(&kubernetes(&kube.url, kube.token().unwrap_or_default(), &ca)),
        );
        let out = failed_apply(&w);
        assert!(out.contains("TLS verification of the cluster API failed"), "{out}");
        assert!(out.contains("unknown CA"), "{out}");
        assert_names_cluster(&out, &kube.url);
    }
}

#[test]
fn aws_without_region_or_endpoint_says_so() {
    for tf in terraform_versions() {
        // No region anywhere: the harness strips AWS_REGION and friends and points at empty config files.
        let w = workdir(&tf, &config(""));
        let out = failed_apply(&w);
        assert!(out.contains("No AWS region configured"), "{out}");
        assert!(
            out.contains("connecting to cluster gpu") && out.contains("AWS_REGION"),
            "{out}"
        );

        let dead = "  region = \"us-west-2\"\n  endpoints {\n    eks = \"http://127.0.0.1:1\"\n  }";
        let w = workdir(&tf, &config(dead));
        let out = failed_apply(&w);
        assert!(out.contains("Cannot reach AWS at http://127.0.0.1:1"), "{out}");
        assert!(
            out.contains("eks:DescribeCluster") && out.contains("connection refused"),
            "{out}"
        );
    }
}

#[test]
fn ctrl_c_during_a_cluster_call_reads_as_a_stop() {
    // The current CLI only: Terraform 1.0.3 runs behind PyPI's Python launcher,
    // which does not pass a SIGINT on to the Terraform process.
    let Some(tf) = terraform_versions().into_iter().find(|v| v.label == "current") else {
        return;
    };
    let tf = &tf;
    let kube = KubeTarget::start();
    if !kube.is_emulator() {
        return;
    }
    // The first write hangs for a minute: the run is inside a cluster call when interrupted.
    kube.fault(&json!({"method": "PATCH", "latency_ms": 60_000, "count": 1}));
    let w = workdir(
        tf,
        &config(&format!("  region = \"us-west-2\"\n{}", kube.provider_block())),
    );
    let child = w.spawn(&["apply", "-auto-approve", "-no-color"]);
    let deadline = Instant::now() + Duration::from_secs(60);
    while !kube.requests().iter().any(|r| r["method"] == "PATCH") {
        assert!(Instant::now() < deadline, "the provider never called the cluster");
        std::thread::sleep(Duration::from_millis(200));
    }
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap_or_else(|e| panic!("kill: {e}"));
    assert!(status.success());
    let out = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    assert!(!out.status.success());
    let text = flatten(&String::from_utf8_lossy(&out.stderr));
    assert_no_debug(&text);
    assert!(text.contains("Operation cancelled"), "{text}");
    assert!(
        text.contains("Terraform asked the provider to stop (Ctrl-C) while applying"),
        "{text}"
    );
    assert!(!text.contains("reachable"), "{text}");
}
