//! The provider block's credentials through the real CLIs: `kubernetes.exec`
//! against the emulator (which accepts only its bearer token), and
//! `assume_role` / `assume_role_with_web_identity` against moto's STS, whose
//! request log shows the parameters the provider sent.

use std::os::unix::fs::PermissionsExt;

use eksgpu_acceptance_tests::hcl::{Provider, REQUIRED_PROVIDERS};
use eksgpu_acceptance_tests::kube::{KubeTarget, NODE_POOL};
use eksgpu_acceptance_tests::{Moto, Workdir, eks_cluster, terraform_versions};

/// A credential plugin on PATH: prints an ExecCredential with the token in
/// `$EKSGPU_TEST_TOKEN`, valid for an hour, and logs each run (with the
/// KUBERNETES_EXEC_INFO it got) to the file named by its first argument.
const PLUGIN: &str = r#"#!/bin/sh
echo "run $KUBERNETES_EXEC_INFO" >> "$1"
if [ "$EKSGPU_TEST_FAIL" = 1 ]; then echo "no session: run the login first" >&2; exit 4; fi
expires=$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s","expirationTimestamp":"%s"}}' "$EKSGPU_TEST_TOKEN" "$expires"
"#;

/// The emulator's `kubernetes` block with `exec` instead of `token`.
fn exec_header(kube: &KubeTarget, log: &str, token: &str, fail: bool) -> String {
    let token_line = format!("    token                  = {:?}\n", kube.token().unwrap_or_default());
    let exec = format!(
        "    exec {{\n      api_version = \"client.authentication.k8s.io/v1\"\n      command     = \"eksgpu-test-credential\"\n      \
         args        = [{log:?}]\n      env         = {{ EKSGPU_TEST_TOKEN = {token:?}, EKSGPU_TEST_FAIL = \"{}\" }}\n    }}\n",
        u8::from(fail)
    );
    Provider::new()
        .offline()
        .kube(kube)
        .header()
        .replacen(&token_line, &exec, 1)
}

fn strategy(header: &str) -> String {
    format!(
        "{header}resource \"eksgpu_node_strategy\" \"s\" {{\n  cluster_name = \"gpu\"\n  name         = \"genai\"\n  \
         pools = {{\n    inference = {{\n      capacity       = \"karpenter\"\n      \
         instance_types = [\"g6e.12xlarge\"]\n      node_class     = {{ role = \"KarpenterNodeRole-gpu\" }}\n    }}\n  }}\n}}\n"
    )
}

/// A workdir whose PATH starts with a directory holding the plugin.
fn with_plugin(w: &mut Workdir) -> String {
    let bin = w.path().join("_bin");
    std::fs::create_dir_all(&bin).unwrap_or_else(|e| panic!("{e}"));
    let plugin = bin.join("eksgpu-test-credential");
    std::fs::write(&plugin, PLUGIN).unwrap_or_else(|e| panic!("{e}"));
    std::fs::set_permissions(&plugin, std::fs::Permissions::from_mode(0o755)).unwrap_or_else(|e| panic!("{e}"));
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    w.env("PATH", &path);
    w.path().join("_plugin.log").display().to_string()
}

#[test]
fn exec_credentials_reach_the_cluster_and_their_failures_name_the_block() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        if !kube.is_emulator() {
            return eksgpu_acceptance_tests::skip("exec auth needs the emulator's own token");
        }
        let token = kube.token().unwrap_or_default().to_owned();
        // Accepted: the token the command prints is the emulator's.
        let mut w = Workdir::new(&tf, "");
        let log = with_plugin(&mut w);
        w.write("main.tf", &strategy(&exec_header(&kube, &log, &token, false)));
        w.init();
        let applied = w.apply();
        // The provider's requests only (the test's own client below uses the same token).
        let requests = kube.requests();
        let auth: Vec<_> = requests.iter().map(|r| r["auth"].clone()).collect();
        assert!(
            !auth.is_empty() && auth.iter().all(|a| a == "static"),
            "{}: {auth:?}",
            tf.label
        );
        assert!(
            kube.get(NODE_POOL, "inference").is_some(),
            "{}: {}",
            tf.label,
            applied.combined()
        );
        let runs = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(
            runs.lines()
                .all(|l| l.contains(r#""apiVersion":"client.authentication.k8s.io/v1""#)),
            "{}: KUBERNETES_EXEC_INFO: {runs}",
            tf.label
        );
        // One run per provider process that reached the cluster (refresh, apply), not per call.
        let calls = requests.len();
        assert!(
            runs.lines().count() < calls,
            "{}: {} runs for {calls} calls",
            tf.label,
            runs.lines().count()
        );
        assert!(
            !applied.combined().contains(&token),
            "{}: the token was printed",
            tf.label
        );

        // Refused: a token the cluster does not know names the command.
        w.write("main.tf", &strategy(&exec_header(&kube, &log, "not-the-token", false)));
        let r = w.run(&["plan", "-no-color"]);
        let out = words(&r.combined());
        assert_eq!(r.code, 1, "{}: {out}", tf.label);
        assert!(
            out.contains(
                "did not accept the credential the kubernetes.exec command \"eksgpu-test-credential\" printed"
            ),
            "{}: {out}",
            tf.label
        );

        // Failed: the command's exit and stderr, under the block's name.
        w.write("main.tf", &strategy(&exec_header(&kube, &log, &token, true)));
        let r = w.run(&["plan", "-no-color"]);
        let out = words(&r.combined());
        assert_eq!(r.code, 1, "{}: {out}", tf.label);
        assert!(
            out.contains("Kubernetes credential command failed")
                && out.contains("the kubernetes.exec command \"eksgpu-test-credential\" failed (exit status: 4)")
                && out.contains("no session: run the login first"),
            "{}: {out}",
            tf.label
        );
    }
}

/// `text` with Terraform's line wrapping undone.
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `client_certificate` and `client_key` alone authenticate: the emulator sees the client
/// certificate its CA issued, and no bearer token (no EKS token is minted either).
#[test]
fn a_client_certificate_authenticates_without_a_token() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let Some((cert, key)) = kube.client_pem.clone() else {
            return eksgpu_acceptance_tests::skip("client certificates need the emulator's CA");
        };
        let token_line = format!("    token                  = {:?}\n", kube.token().unwrap_or_default());
        let heredoc = |pem: &str| format!("<<-EOT\n{pem}EOT\n");
        let certs = format!(
            "    client_certificate = {}    client_key = {}",
            heredoc(&cert),
            heredoc(&key)
        );
        let header = Provider::new()
            .offline()
            .kube(&kube)
            .header()
            .replacen(&token_line, &certs, 1);
        let w = Workdir::new(&tf, &strategy(&header));
        w.init();
        let applied = w.apply();
        // The provider's requests only: the test's own client below uses the token.
        let auth: Vec<_> = kube.requests().iter().map(|r| r["auth"].clone()).collect();
        assert!(
            kube.get(NODE_POOL, "inference").is_some(),
            "{}: {}",
            tf.label,
            applied.combined()
        );
        assert!(
            !auth.is_empty() && auth.iter().all(|a| a == "client-certificate"),
            "{}: {auth:?}",
            tf.label
        );
    }
}

/// The STS calls moto saw, with their parameters.
fn sts_calls(moto: &Moto) -> Vec<serde_json::Value> {
    moto.requests()
        .into_iter()
        .filter(|r| r["operation"].as_str().is_some_and(|o| o.starts_with("AssumeRole")))
        .collect()
}

#[test]
fn assume_role_sends_duration_tags_and_source_identity_after_the_web_identity() {
    for tf in terraform_versions() {
        let (_kube, moto) = eks_cluster("gpu");
        let main_tf = format!(
            r#"{REQUIRED_PROVIDERS}provider "eksgpu" {{
  region = "us-west-2"
  assume_role_with_web_identity {{
    role_arn                = "arn:aws:iam::123456789012:role/ci"
    session_name            = "ci-pipeline"
    web_identity_token_file = "${{path.module}}/token"
    duration                = "30m"
  }}
  assume_role {{
    role_arn            = "arn:aws:iam::123456789012:role/platform"
    session_name        = "platform"
    duration            = "2h"
    tags                = {{ team = "ml", cost-center = "42" }}
    transitive_tag_keys = ["team"]
    source_identity     = "alice@example.com"
  }}
}}
data "eksgpu_cluster" "gpu" {{
  name = "gpu"
}}
output "version" {{
  value = data.eksgpu_cluster.gpu.kubernetes_version
}}
"#
        );
        let mut w = Workdir::new(&tf, &main_tf);
        w.write("token", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjaSJ9.c2ln\n");
        w.env("AWS_ENDPOINT_URL", &moto.url());
        w.init();
        moto.clear_requests();
        w.apply();
        assert_eq!(w.outputs()["version"]["value"], "1.33", "{}", tf.label);
        let calls = sts_calls(&moto);
        let web = calls
            .iter()
            .find(|c| c["operation"] == "AssumeRoleWithWebIdentity")
            .unwrap_or_else(|| panic!("{}: no AssumeRoleWithWebIdentity in {calls:?}", tf.label));
        let p = &web["params"];
        assert_eq!(
            (&p["RoleArn"], &p["RoleSessionName"], &p["DurationSeconds"]),
            (
                &"arn:aws:iam::123456789012:role/ci".into(),
                &"ci-pipeline".into(),
                &"1800".into()
            ),
            "{}",
            tf.label
        );
        assert_eq!(
            p["WebIdentityToken"], "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJjaSJ9.c2ln",
            "{}",
            tf.label
        );
        let role = calls
            .iter()
            .find(|c| c["operation"] == "AssumeRole")
            .unwrap_or_else(|| panic!("{}: no AssumeRole in {calls:?}", tf.label));
        let p = &role["params"];
        let tags: std::collections::BTreeMap<String, String> = (1..=2)
            .map(|i| {
                let get = |f: &str| {
                    p[format!("Tags.member.{i}.{f}")]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned()
                };
                (get("Key"), get("Value"))
            })
            .collect();
        assert_eq!(
            (
                &p["RoleArn"],
                &p["DurationSeconds"],
                &p["SourceIdentity"],
                &p["TransitiveTagKeys.member.1"]
            ),
            (
                &"arn:aws:iam::123456789012:role/platform".into(),
                &"7200".into(),
                &"alice@example.com".into(),
                &"team".into()
            ),
            "{}: {p}",
            tf.label
        );
        assert_eq!(
            tags,
            [("cost-center".into(), "42".into()), ("team".into(), "ml".into())].into(),
            "{}",
            tf.label
        );
        // The web identity's role comes first: AssumeRole is signed with its credentials.
        let order: Vec<_> = calls.iter().map(|c| c["operation"].clone()).collect();
        assert_eq!(order[0], "AssumeRoleWithWebIdentity", "{}: {order:?}", tf.label);
    }
}
