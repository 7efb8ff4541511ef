//! No credential reaches a log: a whole apply at TF_LOG=TRACE, with canary
//! values for the AWS secret key, the AWS session token and the kubernetes
//! block's token, leaves none of them in Terraform's log (which holds every
//! line the provider writes to stderr, as go-plugin forwards them) nor in the
//! CLI's own output.

use eksgpu_acceptance_tests::{Workdir, eks_cluster, terraform_versions};

const SECRET_KEY: &str = "canarySecretKeyQ7wZ3xV9";
const SESSION_TOKEN: &str = "canarySessionTokenM4kP8rT2";

/// Two providers: the default one finds the cluster through DescribeCluster and
/// mints an EKS IAM token from the canary AWS credentials (the presigned
/// path aws-sigv4 logs at TRACE); `static` sends the kubernetes block's token.
fn config(kube: &eksgpu_acceptance_tests::kube::KubeTarget) -> String {
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
provider "eksgpu" {{
  alias  = "static"
  region = "us-west-2"
{}}}
resource "eksgpu_node_strategy" "minted" {{
  cluster_name = "gpu"
  name         = "minted"
  pool {{
    name           = "minted-pool"
    capacity       = "karpenter"
    instance_types = ["g6e.12xlarge"]
    gpu_limit      = 8
    node_class {{
      role = "KarpenterNodeRole-gpu"
    }}
  }}
}}
resource "eksgpu_node_strategy" "static" {{
  provider     = eksgpu.static
  cluster_name = "gpu"
  name         = "static"
  pool {{
    name           = "static-pool"
    capacity       = "karpenter"
    instance_types = ["g6e.12xlarge"]
    gpu_limit      = 8
    node_class {{
      role = "KarpenterNodeRole-gpu"
    }}
  }}
}}
"#,
        kube.provider_block()
    )
}

#[test]
fn a_trace_log_of_a_whole_apply_holds_no_secret() {
    for tf in terraform_versions() {
        let (kube, moto) = eks_cluster("gpu");
        if !kube.is_emulator() {
            return; // The DescribeCluster path needs the emulator's endpoint registered in moto.
        }
        let kube_token = kube.token().unwrap_or_default().to_owned();
        let mut w = Workdir::new(&tf, &config(&kube));
        w.env("AWS_ENDPOINT_URL", &moto.url());
        w.env("AWS_SECRET_ACCESS_KEY", SECRET_KEY);
        w.env("AWS_SESSION_TOKEN", SESSION_TOKEN);
        let log = w.path().join("trace.log");
        w.env("TF_LOG", "TRACE");
        w.env("TF_LOG_PATH", log.to_str().unwrap_or_default());
        w.init();
        let mut runs = vec![w.apply()];
        runs.push(w.ok(&["plan", "-no-color"]));
        runs.push(w.ok(&["destroy", "-auto-approve", "-no-color"]));
        let trace = std::fs::read_to_string(&log).unwrap_or_default();

        // The log is the one asked for: TRACE, with the provider's own lines in it.
        assert!(trace.contains("[TRACE]"), "{}: not a TRACE log", tf.label);
        assert!(trace.contains("described cluster"), "{}: no provider lines", tf.label);
        // Both credentials were used: the emulator saw a minted EKS token and the static token.
        let auth: Vec<_> = kube.requests().iter().map(|r| r["auth"].clone()).collect();
        assert!(
            auth.iter().any(|a| a == "eks"),
            "{}: no EKS token used: {auth:?}",
            tf.label
        );
        assert!(
            auth.iter().any(|a| a == "static"),
            "{}: static token unused: {auth:?}",
            tf.label
        );

        let output: String = runs.iter().map(|r| r.combined()).collect();
        for (what, text) in [("Terraform's log", &trace), ("the CLI output", &output)] {
            for (canary, name) in [
                (SECRET_KEY, "AWS secret key"),
                (SESSION_TOKEN, "AWS session token"),
                (kube_token.as_str(), "kubernetes token"),
                // An EKS IAM token is a presigned URL holding the session token.
                ("k8s-aws-v1.", "EKS IAM token"),
                ("X-Amz-Security-Token", "presigned session token parameter"),
            ] {
                let at = text.find(canary);
                assert!(
                    at.is_none(),
                    "{}: the {name} leaked into {what}: …{}…",
                    tf.label,
                    at.map(|i| &text[i.saturating_sub(200)..(i + 100).min(text.len())])
                        .unwrap_or_default()
                );
            }
        }
    }
}
