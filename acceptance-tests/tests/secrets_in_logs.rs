//! No credential reaches a log: a whole apply at TF_LOG=TRACE, with canary
//! values for the AWS secret key, the AWS session token, a kubeconfig's client key
//! and every attribute the provider's schema marks sensitive (the kubernetes block's
//! token, assume_role's external_id, …: enumerated from the schema the provider
//! serves, so a new sensitive attribute without a canary fails the test), leaves none
//! of them in Terraform's log (which holds every line the provider writes to stderr,
//! as go-plugin forwards them) nor in the CLI's own output. A burst scaler's Prometheus
//! token, kept in a Secret, is in no state, plan or log either.

use eksgpu_acceptance_tests::hcl::REQUIRED_PROVIDERS;
use eksgpu_acceptance_tests::kube::SECRET;
use eksgpu_acceptance_tests::prometheus::{Demand, Prometheus};
use eksgpu_acceptance_tests::{Workdir, eks_cluster, terraform_versions};

const SECRET_KEY: &str = "canarySecretKeyQ7wZ3xV9";
const SESSION_TOKEN: &str = "canarySessionTokenM4kP8rT2";
const EXTERNAL_ID: &str = "canaryExternalIdH6nB1sD5";
const WEB_IDENTITY_TOKEN: &str = "canaryWebIdentityTokenR3vJ8qL1";

/// Every attribute the provider's schema marks sensitive, as `type.name.block….attribute`
/// (`provider.kubernetes.token`), walked from `terraform providers schema -json`.
fn sensitive_attributes(schema: &serde_json::Value) -> Vec<String> {
    fn walk(block: &serde_json::Value, path: &str, out: &mut Vec<String>) {
        for (name, a) in block["attributes"].as_object().into_iter().flatten() {
            if a["sensitive"] == true {
                out.push(format!("{path}.{name}"));
            }
        }
        for (name, b) in block["block_types"].as_object().into_iter().flatten() {
            walk(&b["block"], &format!("{path}.{name}"), out);
        }
    }
    let mut out = Vec::new();
    for p in schema["provider_schemas"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(_, p)| p)
    {
        walk(&p["provider"]["block"], "provider", &mut out);
        for kind in ["resource_schemas", "data_source_schemas", "ephemeral_resource_schemas"] {
            for (name, r) in p[kind].as_object().into_iter().flatten() {
                walk(&r["block"], name, &mut out);
            }
        }
    }
    out.sort();
    out
}

/// Three providers: the default one assumes a role with the canary external ID (the
/// AWS SDK's orchestrator prints AssumeRole's input at TRACE), finds the cluster
/// through DescribeCluster and mints an EKS IAM token from the credentials (the
/// presigned path aws-sigv4 logs at TRACE); `static` sends the kubernetes block's token;
/// `kubeconfig` reads a kubeconfig with a client certificate and key; `client`
/// is the static provider's `client_certificate` and `client_key` (PEM).
fn config(kube: &eksgpu_acceptance_tests::kube::KubeTarget, kubeconfig: &str, client: &(String, String)) -> String {
    let heredoc = |pem: &str| format!("<<-EOT\n{pem}EOT");
    let static_block = kube.provider_block().replacen(
        "  kubernetes {\n",
        &format!(
            "  kubernetes {{\n    client_certificate = {}\n    client_key = {}\n",
            heredoc(&client.0),
            heredoc(&client.1)
        ),
        1,
    );
    format!(
        r#"{REQUIRED_PROVIDERS}provider "eksgpu" {{
  region = "us-west-2"
  assume_role {{
    role_arn    = "arn:aws:iam::123456789012:role/eksgpu-canary"
    external_id = "{EXTERNAL_ID}"
  }}
}}
provider "eksgpu" {{
  alias  = "static"
  region = "us-west-2"
{}}}
provider "eksgpu" {{
  alias  = "web_identity"
  region = "us-west-2"
  assume_role_with_web_identity {{
    role_arn           = "arn:aws:iam::123456789012:role/eksgpu-ci"
    web_identity_token = "{WEB_IDENTITY_TOKEN}"
  }}
}}
provider "eksgpu" {{
  alias  = "kubeconfig"
  region = "us-west-2"
  kubernetes {{
    config_path = {kubeconfig:?}
  }}
}}
resource "eksgpu_node_strategy" "from_kubeconfig" {{
  provider     = eksgpu.kubeconfig
  cluster_name = "gpu"
  name         = "from-kubeconfig"
  pools = {{
    kubeconfig-pool = {{
      capacity       = "karpenter"
      instance_types = ["g6e.12xlarge"]
      gpu_limit      = 8
      node_class = {{
        role = "KarpenterNodeRole-gpu"
      }}
    }}
  }}
}}
resource "eksgpu_node_strategy" "minted" {{
  cluster_name = "gpu"
  name         = "minted"
  pools = {{
    minted-pool = {{
      capacity       = "karpenter"
      instance_types = ["g6e.12xlarge"]
      gpu_limit      = 8
      node_class = {{
        role = "KarpenterNodeRole-gpu"
      }}
    }}
  }}
}}
resource "eksgpu_node_strategy" "web_identity" {{
  provider     = eksgpu.web_identity
  cluster_name = "gpu"
  name         = "web-identity"
  pools = {{
    web-identity-pool = {{
      capacity       = "karpenter"
      instance_types = ["g6e.12xlarge"]
      gpu_limit      = 8
      node_class = {{
        role = "KarpenterNodeRole-gpu"
      }}
    }}
  }}
}}
resource "eksgpu_node_strategy" "static" {{
  provider     = eksgpu.static
  cluster_name = "gpu"
  name         = "static"
  pools = {{
    static-pool = {{
      capacity       = "karpenter"
      instance_types = ["g6e.12xlarge"]
      gpu_limit      = 8
      node_class = {{
        role = "KarpenterNodeRole-gpu"
      }}
    }}
  }}
}}
"#,
        static_block
    )
}

/// The client certificate and key (PEM) the emulator issued: a handshake with any other fails.
fn client_certificate(kube: &eksgpu_acceptance_tests::kube::KubeTarget) -> (String, String) {
    kube.client_pem.clone().unwrap_or_default()
}

/// A kubeconfig for the emulator whose user has its token and the emulator's
/// client certificate; returns the file's text and the key's PEM.
fn kubeconfig(kube: &eksgpu_acceptance_tests::kube::KubeTarget) -> (String, String) {
    use base64::Engine;
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    let (cert_pem, key_pem) = client_certificate(kube);
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: emu\n  cluster:\n    server: {}\n    certificate-authority-data: {}\n\
         users:\n- name: canary\n  user:\n    token: {}\n    client-certificate-data: {}\n    client-key-data: {}\n\
         contexts:\n- name: emu\n  context:\n    cluster: emu\n    user: canary\ncurrent-context: emu\n",
        kube.url,
        b64(kube.ca_pem.as_deref().unwrap_or_default()),
        kube.token().unwrap_or_default(),
        b64(&cert_pem),
        b64(&key_pem),
    );
    (text, key_pem)
}

#[test]
fn a_trace_log_of_a_whole_apply_holds_no_secret() {
    for tf in terraform_versions() {
        let (kube, moto) = eks_cluster("gpu");
        if !kube.is_emulator() {
            return; // The DescribeCluster path needs the emulator's endpoint registered in moto.
        }
        let kube_token = kube.token().unwrap_or_default().to_owned();
        let (kubeconfig_text, key_pem) = kubeconfig(&kube);
        let kubeconfig_path =
            std::env::temp_dir().join(format!("eksgpu-canary-{}-{}.yaml", std::process::id(), tf.label));
        std::fs::write(&kubeconfig_path, &kubeconfig_text).unwrap_or_else(|e| panic!("{e}"));
        let client = client_certificate(&kube);
        // A line of the block's client key's base64 body.
        let client_key_line = client.1.lines().nth(1).unwrap_or_default().to_owned();
        let mut w = Workdir::new(
            &tf,
            &config(&kube, kubeconfig_path.to_str().unwrap_or_default(), &client),
        );
        w.env("AWS_ENDPOINT_URL", &moto.url());
        w.env("AWS_SECRET_ACCESS_KEY", SECRET_KEY);
        w.env("AWS_SESSION_TOKEN", SESSION_TOKEN);
        let log = w.path().join("trace.log");
        w.env("TF_LOG", "TRACE");
        w.env("TF_LOG_PATH", log.to_str().unwrap_or_default());
        w.init();
        // Each sensitive attribute of the schema served has a canary in the configuration.
        let schema = w.ok(&["providers", "schema", "-json"]);
        let schema: serde_json::Value = serde_json::from_str(&schema.stdout).unwrap_or_else(|e| panic!("{e}"));
        let canaries = [
            ("provider.assume_role.external_id", EXTERNAL_ID),
            (
                "provider.assume_role_with_web_identity.web_identity_token",
                WEB_IDENTITY_TOKEN,
            ),
            ("provider.kubernetes.client_key", client_key_line.as_str()),
            ("provider.kubernetes.token", kube_token.as_str()),
        ];
        let sensitive = sensitive_attributes(&schema);
        let covered: Vec<String> = canaries.iter().map(|(path, _)| (*path).to_owned()).collect();
        assert_eq!(
            sensitive, covered,
            "{}: every sensitive attribute needs a canary in this test's configuration",
            tf.label
        );
        let mut runs = vec![w.apply()];
        runs.push(w.ok(&["plan", "-no-color"]));
        runs.push(w.ok(&["destroy", "-auto-approve", "-no-color"]));
        let trace = std::fs::read_to_string(&log).unwrap_or_default();
        let _ = std::fs::remove_file(&kubeconfig_path);
        // A line of the key's base64 body, and of the kubeconfig's base64 of the whole PEM.
        let key_line = key_pem.lines().nth(1).unwrap_or_default().to_owned();
        let key_data = kubeconfig_text
            .lines()
            .find_map(|l| l.trim().strip_prefix("client-key-data: "))
            .map(|d| d[..d.len().min(60)].to_owned())
            .unwrap_or_default();
        assert!(key_line.len() > 40 && key_data.len() > 40, "canaries are long enough");

        // The log is the one asked for: TRACE, with the provider's own lines in it.
        assert!(trace.contains("[TRACE]"), "{}: not a TRACE log", tf.label);
        assert!(trace.contains("described cluster"), "{}: no provider lines", tf.label);
        // The canary external ID was sent: the role was assumed.
        assert!(
            trace.contains("obtained assumed credentials"),
            "{}: no AssumeRole",
            tf.label
        );
        assert!(
            trace.contains("obtained web identity credentials"),
            "{}: no AssumeRoleWithWebIdentity",
            tf.label
        );
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
            let sensitive = canaries.iter().map(|(path, canary)| (*canary, *path));
            for (canary, name) in sensitive.chain([
                (SECRET_KEY, "AWS secret key"),
                (SESSION_TOKEN, "AWS session token"),
                (key_line.as_str(), "kubeconfig client key"),
                (key_data.as_str(), "kubeconfig client-key-data"),
                // An EKS IAM token is a presigned URL holding the session token.
                ("k8s-aws-v1.", "EKS IAM token"),
                ("X-Amz-Security-Token", "presigned session token parameter"),
            ]) {
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

/// A site's token lives in a Secret: the provider names it for KEDA and never reads it. With a
/// canary token that KEDA (the emulator's simulation) does send to the on-prem Prometheus, a
/// whole apply, plan and destroy at TF_LOG=TRACE leave it in no state, plan, log or output,
/// and the provider makes no request for Secrets.
#[test]
fn a_prometheus_token_in_a_secret_is_in_no_state_plan_or_trace_log() {
    const TOKEN: &str = "canaryPrometheusTokenW8cN5hY2";
    for tf in terraform_versions() {
        let kube = eksgpu_acceptance_tests::kube::KubeTarget::start();
        if !kube.is_emulator() {
            return eksgpu_acceptance_tests::skip("the KEDA simulation is the emulator's");
        }
        let onprem = Prometheus::start(Demand::Header("Authorization".into(), format!("Bearer {TOKEN}")));
        let cloud = Prometheus::start(Demand::Nothing);
        kube.simulate_keda();
        kube.create(
            SECRET,
            Some("llm"),
            serde_json::json!({"apiVersion": "v1", "kind": "Secret",
                "metadata": {"name": "prom-token", "namespace": "llm"}, "stringData": {"token": TOKEN}}),
            "kubectl",
        );
        // From here on every request in the log is the provider's.
        kube.clear_requests();
        let main_tf = format!(
            r#"{}
resource "eksgpu_burst_scaler" "b" {{
  cluster_name          = "gpu"
  namespace             = "llm"
  name                  = "vllm-burst"
  max_replicas          = 3
  on_prem_waiting_query = "sum(vllm:num_requests_waiting)"
  cloud_running_query   = "sum(vllm:num_requests_running)"
  wait_for_ready        = true
  ready_timeout         = "20s"
  target {{
    name = "vllm"
  }}
  on_prem_prometheus {{
    address = "{}"
    secret_auth {{
      mode        = "bearer"
      secret_name = "prom-token"
      keys        = {{ bearerToken = "token" }}
    }}
  }}
  cloud_prometheus {{
    address = "{}"
  }}
}}
"#,
            eksgpu_acceptance_tests::hcl::Provider::new().kube(&kube).header(),
            onprem.url(),
            cloud.url()
        );
        let mut w = Workdir::new(&tf, &main_tf);
        let log = w.path().join("trace.log");
        w.env("TF_LOG", "TRACE");
        w.env("TF_LOG_PATH", log.to_str().unwrap_or_default());
        w.init();
        // The wait passes only once KEDA's query with the canary was accepted.
        let mut runs = vec![w.apply()];
        assert!(
            onprem
                .received()
                .iter()
                .any(|r| r.header("Authorization") == Some(&format!("Bearer {TOKEN}"))),
            "{}: the canary never reached the Prometheus: the test would prove nothing",
            tf.label
        );
        runs.push(w.ok(&["plan", "-no-color", "-out", "p.tfplan"]));
        runs.push(w.ok(&["show", "-json", "p.tfplan"]));
        runs.push(w.ok(&["show", "-json"]));
        let state_file = std::fs::read_to_string(w.path().join("terraform.tfstate")).unwrap_or_default();
        assert!(
            state_file.contains("prom-token"),
            "{}: the state names the Secret",
            tf.label
        );
        runs.push(w.ok(&["destroy", "-auto-approve", "-no-color"]));
        let trace = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(trace.contains("[TRACE]"), "{}: not a TRACE log", tf.label);
        let output: String = runs.iter().map(|r| r.combined()).collect();
        for (what, text) in [
            ("Terraform's log", &trace),
            ("the CLI output, the plan and the state as JSON", &output),
            ("terraform.tfstate", &state_file),
        ] {
            assert!(!text.contains(TOKEN), "{}: the token leaked into {what}", tf.label);
        }
        let secrets: Vec<_> = kube
            .requests()
            .into_iter()
            .filter(|r| r["path"].as_str().unwrap_or_default().contains("/secrets"))
            .collect();
        assert!(
            secrets.is_empty(),
            "{}: the provider asked for Secrets: {secrets:?}",
            tf.label
        );
    }
}
