//! `eksgpu_burst_scaler` through the real Terraform CLI against the emulator
//! (the real KEDA v2.20.2 ScaledObject CRD): lifecycle, drift, import, rules.

use eksgpu_acceptance_tests::hcl::Provider;
use eksgpu_acceptance_tests::kube::{KubeTarget, TestKind};
use eksgpu_acceptance_tests::{Workdir, terraform_versions};
use serde_json::{Value, json};

const SCALED_OBJECT: TestKind = TestKind {
    group: "keda.sh",
    version: "v1alpha1",
    kind: "ScaledObject",
    plural: "scaledobjects",
};

fn config(kube: &KubeTarget, max: u32, force: bool, extra: &str) -> String {
    format!(
        r#"{}
resource "eksgpu_burst_scaler" "b" {{
  cluster_name          = "gpu"
  namespace             = "llm"
  name                  = "vllm-burst"
  max_replicas          = {max}
  force_conflicts       = {force}
  prometheus_address    = "http://prometheus.monitoring:9090"
  on_prem_waiting_query = "sum(vllm:num_requests_waiting)"
  cloud_running_query   = "sum(vllm:num_requests_running)"
  target {{
    kind = "StatefulSet"
    name = "vllm"
  }}
{extra}
}}
"#,
        Provider::new().kube(kube).header()
    )
}

/// The `import {}` block of docs/resources/burst_scaler.md, pointed at this
/// test's resource (`eksgpu_burst_scaler.b`, cluster `gpu`).
fn docs_import_block() -> String {
    let page = std::fs::read_to_string(eksgpu_acceptance_tests::repo_root().join("docs/resources/burst_scaler.md"))
        .unwrap_or_else(|e| panic!("docs/resources/burst_scaler.md: {e}"));
    let block = page
        .split("\n## Import\n")
        .nth(1)
        .and_then(|s| s.split("```terraform\n").nth(1))
        .and_then(|s| s.split("```").next())
        .unwrap_or_else(|| panic!("the burst scaler page has no import block"));
    assert!(
        block.contains("to = eksgpu_burst_scaler.vllm\n") && block.contains("id = \"gpu-cluster/llm/vllm-burst\"\n"),
        "{block}"
    );
    block
        .replace("eksgpu_burst_scaler.vllm", "eksgpu_burst_scaler.b")
        .replace("gpu-cluster/llm/vllm-burst", "gpu/llm/vllm-burst")
}

#[test]
fn lifecycle_create_import_drift_restore_destroy() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let w = Workdir::new(&tf, &config(&kube, 3, true, ""));
        w.init();
        w.apply();
        let so = kube
            .get_in(SCALED_OBJECT, Some("llm"), "vllm-burst")
            .expect("ScaledObject applied");
        assert_eq!(so["spec"]["advanced"]["scalingModifiers"]["metricType"], "Value");
        assert_eq!(so["spec"]["fallback"]["behavior"], "currentReplicas");
        w.assert_empty_plan();

        let imported = Workdir::new(&tf, &config(&kube, 3, false, ""));
        imported.init();
        if tf.label == "current" {
            // The `import {}` block the resource page shows, with this test's
            // address and ID. Terraform 1.0.3 has no import blocks (they came
            // in 1.5): it imports with the command.
            imported.write("import.tf", &docs_import_block());
            let r = imported.ok(&["apply", "-auto-approve", "-no-color"]);
            assert!(r.stdout.contains("1 imported, 0 added, 0 changed"), "{}", r.combined());
        } else {
            imported.ok(&["import", "-no-color", "eksgpu_burst_scaler.b", "gpu/llm/vllm-burst"]);
        }
        imported.assert_empty_plan();

        kube.edit_in(
            SCALED_OBJECT,
            Some("llm"),
            "vllm-burst",
            json!({"spec": {"maxReplicaCount": 5}}),
            "kubectl-edit",
        );
        w.ok(&["plan", "-no-color", "-out", "drift.tfplan"]);
        let plan: Value = serde_json::from_str(&w.ok(&["show", "-json", "drift.tfplan"]).stdout).unwrap();
        let change = &plan["resource_changes"][0]["change"];
        let changed: Vec<&String> = change["after"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(k, v)| change["before"].get(k.as_str()) != Some(v))
            .map(|(k, _)| k)
            .collect();
        assert_eq!(changed, ["max_replicas"], "{}", tf.label);
        assert_eq!(change["before"]["max_replicas"], 5);
        w.apply();
        w.assert_empty_plan();
        assert_eq!(
            kube.get_in(SCALED_OBJECT, Some("llm"), "vllm-burst")
                .unwrap_or(Value::Null)["spec"]["maxReplicaCount"],
            3
        );

        w.ok(&["destroy", "-auto-approve", "-no-color"]);
        assert!(kube.get_in(SCALED_OBJECT, Some("llm"), "vllm-burst").is_none());
    }
}

/// `wait_for_ready`: an apply waits for KEDA's `Ready` condition and fails with
/// KEDA's own message when it does not come (the emulator's control endpoint
/// plays KEDA); a condition KEDA writes is not drift.
#[test]
fn wait_for_ready_fails_with_the_condition_message_and_passes_once_ready() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let w = Workdir::new(&tf, &config(&kube, 3, false, ""));
        w.init();
        w.apply();

        let message = "error parsing prometheus metadata: no serverAddress given";
        let ready = |status: &str, reason: &str, message: &str| json!({"conditions": [{"type": "Ready", "status": status, "reason": reason, "message": message}]});
        kube.set_status(
            SCALED_OBJECT,
            Some("llm"),
            "vllm-burst",
            ready("False", "ScaledObjectCheckFailed", message),
        );
        w.assert_empty_plan();

        let waiting = "  wait_for_ready = true\n  ready_timeout  = \"2s\"\n";
        w.write("main.tf", &config(&kube, 3, false, waiting));
        let r = w.run(&["apply", "-auto-approve", "-no-color"]);
        assert_ne!(
            r.code,
            0,
            "{}: the apply waited for nothing:\n{}",
            tf.label,
            r.combined()
        );
        let out = r.combined().replace('\n', " ").replace("│", "");
        let out = out.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            out.contains("ScaledObject llm/vllm-burst not Ready"),
            "{}: {out}",
            tf.label
        );
        assert!(
            out.contains(&format!("Ready=False (ScaledObjectCheckFailed): {message}")),
            "{}: {out}",
            tf.label
        );

        // KEDA comes round: the next change applies and its wait passes.
        kube.set_status(
            SCALED_OBJECT,
            Some("llm"),
            "vllm-burst",
            ready("True", "ScaledObjectReady", ""),
        );
        w.write("main.tf", &config(&kube, 4, false, waiting));
        w.apply();
        w.assert_empty_plan();
        assert_eq!(
            kube.get_in(SCALED_OBJECT, Some("llm"), "vllm-burst")
                .unwrap_or(Value::Null)["spec"]["maxReplicaCount"],
            4
        );

        // A new scaler KEDA never reports on: the apply fails saying so, and the
        // scaler, applied, is in the state marked tainted (replaced next time).
        w.write(
            "other.tf",
            r#"
resource "eksgpu_burst_scaler" "other" {
  cluster_name          = "gpu"
  namespace             = "llm"
  name                  = "other-burst"
  max_replicas          = 2
  prometheus_address    = "http://prometheus.monitoring:9090"
  on_prem_waiting_query = "sum(vllm:num_requests_waiting)"
  cloud_running_query   = "sum(vllm:num_requests_running)"
  wait_for_ready        = true
  ready_timeout         = "1s"
  target {
    name = "other"
  }
}
"#,
        );
        let r = w.run(&["apply", "-auto-approve", "-no-color"]);
        assert_ne!(r.code, 0, "{}:\n{}", tf.label, r.combined());
        assert!(
            r.combined().contains("no Ready condition"),
            "{}: {}",
            tf.label,
            r.combined()
        );
        assert!(kube.get_in(SCALED_OBJECT, Some("llm"), "other-burst").is_some());
        let other = w.state()["values"]["root_module"]["resources"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|r| r["address"] == "eksgpu_burst_scaler.other")
            .cloned()
            .unwrap_or(Value::Null);
        assert_eq!(other["tainted"], true, "{}: {other}", tf.label);
    }
}

#[test]
fn every_burst_scaler_rule_fails_or_warns_a_plan_with_its_code() {
    let cases: &[(&str, bool, &str)] = &[
        ("EKSGPU111", true, "  scale_in_threshold = 12"),
        ("EKSGPU112", true, "  keda_version = \"2.11\""),
        ("EKSGPU113", false, "  keda_version = \"2.16\""),
        ("EKSGPU114", false, "  target_capacity_types = [\"spot\"]"),
    ];
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        for (code, is_error, extra) in cases {
            let w = Workdir::new(&tf, &config(&kube, 3, false, extra));
            w.init();
            let (exit, r) = w.plan_code(&[]);
            assert!(r.combined().contains(code), "{} {code}:\n{}", tf.label, r.combined());
            assert_eq!(
                exit,
                if *is_error { 1 } else { 2 },
                "{} {code}:\n{}",
                tf.label,
                r.combined()
            );
        }
    }
}

#[test]
fn a_prometheus_address_with_credentials_is_rejected_without_echoing_them() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let main_tf = config(&kube, 3, false, "").replace(
            "http://prometheus.monitoring:9090",
            "http://grafana:canaryPassw0rd@prometheus.monitoring:9090",
        );
        let w = Workdir::new(&tf, &main_tf);
        w.init();
        let r = w.run(&["validate", "-no-color"]);
        assert_eq!(r.code, 1, "{}: {}", tf.label, r.combined());
        let flat = r
            .stderr
            .replace('│', " ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            flat.contains("Invalid value") && flat.contains("prometheus_address:"),
            "{flat}"
        );
        assert!(
            flat.contains("authenticationRef"),
            "points at KEDA's TriggerAuthentication: {flat}"
        );
        assert!(flat.contains("http://***@prometheus.monitoring:9090"), "{flat}");
        // Terraform quotes the configuration line; the provider's own text never repeats the password.
        assert_eq!(flat.matches("canaryPassw0rd").count(), 1, "{flat}");
    }
}

/// A ScaledObject made outside Terraform under the scaler's name is refused
/// (the error points at import) and left untouched.
#[test]
fn a_scaled_object_made_elsewhere_is_refused_and_untouched() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let w = Workdir::new(&tf, &config(&kube, 4, false, ""));
        w.init();
        w.apply();
        // Make it foreign: what another tool would have created under that name.
        w.ok(&["state", "rm", "eksgpu_burst_scaler.b"]);
        kube.edit_in(
            SCALED_OBJECT,
            Some("llm"),
            "vllm-burst",
            json!({"metadata": {"labels": {"app.kubernetes.io/managed-by": "Helm", "eksgpu.terraform.io/burst-scaler": null}},
                   "spec": {"maxReplicaCount": 7}}),
            "helm",
        );
        let r = w.run(&["apply", "-auto-approve", "-no-color"]);
        let out = r.combined().split_whitespace().collect::<Vec<_>>().join(" ");
        assert_ne!(r.code, 0, "{out}");
        assert!(
            out.contains("app.kubernetes.io/managed-by=Helm") && out.contains("terraform import"),
            "{}: {out}",
            tf.label
        );
        let so = kube
            .get_in(SCALED_OBJECT, Some("llm"), "vllm-burst")
            .unwrap_or_default();
        assert_eq!(so["spec"]["maxReplicaCount"], 7, "{}: untouched", tf.label);
    }
}

/// `-replace` with and without `create_before_destroy`: the ScaledObject survives, bearing the
/// new instance's token, and the old instance's destroy says it left it (the same promise as a
/// node strategy's).
#[test]
fn replacing_a_scaler_keeps_its_scaled_object_with_and_without_create_before_destroy() {
    let cbd = "  lifecycle {\n    create_before_destroy = true\n  }";
    for tf in terraform_versions() {
        for lifecycle in [cbd, ""] {
            let kube = KubeTarget::start();
            let w = Workdir::new(&tf, &config(&kube, 3, false, lifecycle));
            w.init();
            w.apply();
            let token = |kube: &KubeTarget| {
                kube.get_in(SCALED_OBJECT, Some("llm"), "vllm-burst")
                    .map(|o| o["metadata"]["labels"]["eksgpu.terraform.io/owner-token"].clone())
            };
            let first = token(&kube).expect("created");
            assert!(first.is_string(), "{}: the object bears the instance's token", tf.label);
            let out = w
                .ok(&["apply", "-auto-approve", "-no-color", "-replace=eksgpu_burst_scaler.b"])
                .combined();
            let now =
                token(&kube).unwrap_or_else(|| panic!("{} {lifecycle:?}: the replacement deleted it: {out}", tf.label));
            let state = w.state()["values"]["root_module"]["resources"][0]["values"]["owner_token"].clone();
            assert_eq!(now, state, "{} {lifecycle:?}", tf.label);
            assert_ne!(now, first, "{} {lifecycle:?}", tf.label);
            if lifecycle == cbd {
                assert!(
                    out.contains("kept for the scaler that replaced this one"),
                    "{}: {out}",
                    tf.label
                );
            }
            w.assert_empty_plan();
            w.ok(&["destroy", "-auto-approve", "-no-color"]);
            assert!(token(&kube).is_none(), "{}: destroy deletes it", tf.label);
        }
    }
}
