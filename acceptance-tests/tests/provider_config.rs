//! The provider block through the real CLI: AWS is configured lazily, bad
//! values are diagnostics with their attribute path, and the provider's logs
//! reach Terraform's log with levels and fields.

use eksgpu_acceptance_tests::hcl::REQUIRED_PROVIDERS;
use eksgpu_acceptance_tests::{Workdir, terraform_versions};

#[test]
fn nothing_contacts_aws_until_something_needs_it() {
    // Every endpoint is dead and the role cannot be assumed: if configuring the
    // provider touched AWS (STS for the role, EC2 for the catalog), this would fail.
    // Port 1: nothing listens there, so connections are refused at once.
    let dead = "http://127.0.0.1:1";
    let main_tf = format!(
        r#"{REQUIRED_PROVIDERS}provider "eksgpu" {{
  region = "us-west-2"
  assume_role {{
    role_arn = "arn:aws:iam::123456789012:role/nobody"
  }}
  endpoints {{
    ec2 = "{dead}"
    eks = "{dead}"
    sts = "{dead}"
  }}
}}
data "eksgpu_gpu_catalog" "l40s" {{
  gpu_model = "L40S"
}}
output "count" {{
  value = length(data.eksgpu_gpu_catalog.l40s.instance_types)
}}
"#
    );
    for tf in terraform_versions() {
        let w = Workdir::new(&tf, &main_tf);
        w.init();
        w.apply();
        assert_eq!(w.outputs()["count"]["value"], 8, "{}", tf.label);
    }
}

#[test]
fn bad_provider_values_point_at_their_attribute() {
    let main_tf = REQUIRED_PROVIDERS.to_owned()
        + r#"provider "eksgpu" {
  karpenter_version = "0.37"
  endpoints {
    ec2 = "localhost:5000"
    iam = "https://iam.local"
  }
  kubernetes {
    host        = "https://127.0.0.1:6443"
    config_path = "/tmp/kubeconfig"
  }
  default_tags {
    tags = { "eksgpu.terraform.io/strategy" = "mine", "aws:owner" = "me" }
  }
}
data "eksgpu_gpu_catalog" "all" {}
"#;
    for tf in terraform_versions() {
        let w = Workdir::new(&tf, &main_tf);
        w.init();
        let r = w.run(&["validate", "-no-color"]);
        assert_eq!(r.code, 1, "{}", r.combined());
        let err = r.combined();
        assert!(
            err.contains("Invalid Karpenter version") && err.contains(r#"karpenter_version = "0.37""#),
            "{err}"
        );
        assert!(
            err.contains("Invalid endpoint URL") && err.contains(r#"ec2 = "localhost:5000""#),
            "{err}"
        );
        // Settings that conflict (one would win silently) or do nothing are said at their line.
        assert!(
            err.contains("Conflicting cluster settings") && err.contains(r#"config_path = "/tmp/kubeconfig""#),
            "{err}"
        );
        // Warnings wait for ConfigureProvider (once per run), so validate shows none.
        assert!(!err.contains("Endpoint not used"), "{err}");
        // The provider's identifying tags are its own (EKSGPU125); aws: keys are AWS's.
        assert!(
            err.contains("EKSGPU125") && err.contains("Invalid default tag") && err.contains("aws:owner"),
            "{err}"
        );
    }
}

#[test]
fn provider_logs_reach_terraforms_log_and_processes_exit_cleanly() {
    let main_tf = REQUIRED_PROVIDERS.to_owned()
        + r#"provider "eksgpu" {
  region = "eu-west-1"
}
data "eksgpu_gpu_catalog" "a10g" {
  gpu_model = "A10G"
}
"#;
    for tf in terraform_versions() {
        let mut w = Workdir::new(&tf, &main_tf);
        w.init();
        let log = w.path().join("tf-debug.log");
        w.env("TF_LOG", "DEBUG");
        w.env("TF_LOG_PATH", log.to_str().unwrap());
        w.apply();
        let text = std::fs::read_to_string(&log).unwrap();
        let line = text
            .lines()
            .find(|l| l.contains("provider configured"))
            .unwrap_or_else(|| panic!("{}: no provider log line in the TF log", tf.label));
        assert!(
            line.contains("[DEBUG]") && line.contains("eu-west-1"),
            "{}: {line}",
            tf.label
        );
        assert!(
            !text.contains("plugin failed to exit gracefully"),
            "{}: a provider process was killed",
            tf.label
        );
    }
}

#[test]
fn insecure_tls_and_plain_http_tokens_warn_at_configure() {
    let main_tf = REQUIRED_PROVIDERS.to_owned()
        + r#"provider "eksgpu" {
  region = "us-west-2"
  kubernetes {
    host     = "http://10.0.0.1:8080"
    token    = "canary-bearer-token"
    insecure = true
  }
}
data "eksgpu_gpu_catalog" "a10g" {
  gpu_model = "A10G"
}
"#;
    for tf in terraform_versions() {
        let w = Workdir::new(&tf, &main_tf);
        w.init();
        // Configuring contacts nothing: the apply succeeds, with both warnings.
        let r = w.apply();
        let out = r
            .combined()
            .replace('│', " ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            out.contains("Warning: TLS verification of the cluster API is off"),
            "{}: {out}",
            tf.label
        );
        assert!(
            out.contains("Warning: Bearer token sent over plain HTTP"),
            "{}: {out}",
            tf.label
        );
        assert!(out.contains("http://10.0.0.1:8080 is plain HTTP"), "{out}");
        assert!(!out.contains("canary-bearer-token"), "{out}");
    }
}
