//! `eksgpu_burst_scaler` across two sites, each with its own Prometheus and credentials, through
//! the current Terraform CLI against the emulator (in the real API server lane, the real
//! server with KEDA's v2.20.2 ScaledObject, TriggerAuthentication and ClusterTriggerAuthentication
//! CRDs). The emulator's KEDA simulation builds the triggers from what the provider applied and
//! queries two loopback Prometheus servers with the credentials it resolves, so what a site
//! sends is what KEDA would send.

use eksgpu_acceptance_tests::hcl::Provider;
use eksgpu_acceptance_tests::kube::{
    CLUSTER_TRIGGER_AUTHENTICATION, KubeTarget, SCALED_OBJECT, SECRET, TRIGGER_AUTHENTICATION,
};
use eksgpu_acceptance_tests::prometheus::{Demand, Prometheus};
use eksgpu_acceptance_tests::{TerraformVersion, Workdir, skip, terraform_versions};
use serde_json::{Value, json};

/// The current CLI: these cases are about what the provider and KEDA do, not what an old CLI does.
fn current() -> Option<TerraformVersion> {
    terraform_versions().into_iter().find(|t| t.label == "current")
}

fn config(kube: &KubeTarget, on_prem: &str, cloud: &str, extra: &str) -> String {
    format!(
        r#"{}
resource "eksgpu_burst_scaler" "b" {{
  cluster_name          = "gpu"
  namespace             = "llm"
  name                  = "vllm-burst"
  max_replicas          = 3
  on_prem_waiting_query = "sum(vllm:num_requests_waiting)"
  cloud_running_query   = "sum(vllm:num_requests_running)"
  target {{
    kind = "StatefulSet"
    name = "vllm"
  }}
  on_prem_prometheus {{
{on_prem}
  }}
  cloud_prometheus {{
{cloud}
  }}
{extra}
}}
"#,
        Provider::new().kube(kube).header()
    )
}

fn secret(kube: &KubeTarget, name: &str, data: Value) {
    kube.create(
        SECRET,
        Some("llm"),
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name, "namespace": "llm"}, "stringData": data}),
        "kubectl",
    );
}

fn trigger(kube: &KubeTarget, index: usize) -> Value {
    kube.get_in(SCALED_OBJECT, Some("llm"), "vllm-burst")
        .unwrap_or_else(|| panic!("no ScaledObject"))["spec"]["triggers"][index]
        .clone()
}

fn ta(kube: &KubeTarget, name: &str) -> Option<Value> {
    kube.get_in(TRIGGER_AUTHENTICATION, Some("llm"), name)
}

fn flat(s: &str) -> String {
    s.replace('│', " ").split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Each way a site authenticates, one apply after the other on one scaler (so each change
/// updates, renders or deletes the scaler's TriggerAuthentications), with what KEDA then sends
/// to each Prometheus, an empty plan after each apply, and a destroy that leaves what is not
/// the scaler's.
#[test]
fn every_authentication_of_a_site_reaches_its_prometheus_as_keda_sends_it() {
    let Some(tf) = current() else {
        return skip("needs the current Terraform CLI (EKSGPU_TF_VERSIONS)");
    };
    let kube = KubeTarget::start();
    if !kube.is_emulator() {
        return skip("the KEDA simulation is the emulator's");
    }
    let onprem = Prometheus::start(Demand::Nothing);
    let cloud = Prometheus::start(Demand::Nothing);
    kube.simulate_keda();
    secret(
        &kube,
        "prom-creds",
        json!({"token": "t0ken", "user": "grafana", "pass": "pa55", "crt": "C", "key": "K", "ca": "CA",
               "header": "X-Api-Key", "value": "v4lue"}),
    );
    let onprem_at = |auth: &str| format!("    address = {:?}\n{auth}", onprem.url());
    let cloud_plain = format!("    address = {:?}", cloud.url());
    let w = Workdir::new(&tf, &config(&kube, &onprem_at(""), &cloud_plain, ""));
    w.init();
    let step = |label: &str, on_prem: &str, cloud_site: &str| {
        w.write("main.tf", &config(&kube, &onprem_at(on_prem), cloud_site, ""));
        let r = w.run(&["apply", "-auto-approve", "-no-color"]);
        assert_eq!(r.code, 0, "{label}: {}", r.combined());
        w.assert_empty_plan();
        let last = onprem.received().last().cloned();
        (last, r)
    };

    // Bearer: a TriggerAuthentication of the scaler points at the Secret; KEDA sends the token.
    let (got, _) = step(
        "bearer",
        "    secret_auth {\n      mode = \"bearer\"\n      secret_name = \"prom-creds\"\n      keys = { bearerToken = \"token\" }\n    }",
        &cloud_plain,
    );
    let t = ta(&kube, "vllm-burst-onprem").expect("the scaler's TriggerAuthentication");
    assert_eq!(
        t["spec"]["secretTargetRef"],
        json!([{"parameter": "bearerToken", "name": "prom-creds", "key": "token"}])
    );
    assert_eq!(
        t["metadata"]["labels"]["eksgpu.terraform.io/burst-scaler"],
        "vllm-burst"
    );
    assert_eq!(trigger(&kube, 0)["metadata"]["authModes"], "bearer");
    assert_eq!(
        trigger(&kube, 0)["authenticationRef"],
        json!({"name": "vllm-burst-onprem", "kind": "TriggerAuthentication"})
    );
    assert_eq!(
        got.as_ref().and_then(|g| g.header("Authorization")),
        Some("Bearer t0ken")
    );
    assert!(
        cloud
            .received()
            .last()
            .is_some_and(|c| c.header("Authorization").is_none())
    );

    // Basic with a CA (KEDA trusts `ca` only with a mode on), then TLS, then a custom header.
    let (got, _) = step(
        "basic",
        "    secret_auth {\n      mode = \"basic\"\n      secret_name = \"prom-creds\"\n      keys = { username = \"user\", password = \"pass\", ca = \"ca\" }\n    }",
        &cloud_plain,
    );
    // base64("grafana:pa55")
    assert_eq!(
        got.as_ref().and_then(|g| g.header("Authorization")),
        Some("Basic Z3JhZmFuYTpwYTU1")
    );
    step(
        "tls",
        "    secret_auth {\n      mode = \"tls\"\n      secret_name = \"prom-creds\"\n      keys = { cert = \"crt\", key = \"key\" }\n    }",
        &cloud_plain,
    );
    assert_eq!(trigger(&kube, 0)["metadata"]["authModes"], "tls");
    let refs = ta(&kube, "vllm-burst-onprem").unwrap_or_default()["spec"]["secretTargetRef"].clone();
    assert_eq!(refs.as_array().map(Vec::len), Some(2), "{refs}");
    let (got, _) = step(
        "custom",
        "    custom_headers = { \"X-Scope-OrgID\" = \"tenant-a\" }\n    query_parameters = { dedup = \"true\" }\n    namespace = \"tenant-a\"\n    secret_auth {\n      mode = \"custom\"\n      secret_name = \"prom-creds\"\n      keys = { customAuthHeader = \"header\", customAuthValue = \"value\" }\n    }",
        &cloud_plain,
    );
    let got = got.unwrap_or_else(|| panic!("no query"));
    assert_eq!(got.header("X-Api-Key"), Some("v4lue"));
    assert_eq!(got.header("X-Scope-OrgID"), Some("tenant-a"));
    assert!(
        got.path.contains("&namespace=tenant-a") && got.path.contains("&dedup=true"),
        "{}",
        got.path
    );

    // Amazon Managed Prometheus in the cloud: a pod identity TriggerAuthentication, no authModes.
    // The simulation has no AWS credentials, so the cloud query fails as KEDA's would there.
    let amp = "    address = \"https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-0123\"\n    aws_sigv4 {\n      region = \"us-west-2\"\n      role_arn = \"arn:aws:iam::123456789012:role/keda-amp\"\n    }";
    step("aws_sigv4", "", amp);
    assert!(ta(&kube, "vllm-burst-onprem").is_none(), "no longer rendered: deleted");
    let t = ta(&kube, "vllm-burst-cloud").expect("the cloud site's TriggerAuthentication");
    assert_eq!(
        t["spec"]["podIdentity"],
        json!({"provider": "aws", "roleArn": "arn:aws:iam::123456789012:role/keda-amp"})
    );
    assert_eq!(trigger(&kube, 1)["metadata"]["awsRegion"], "us-west-2");
    assert!(trigger(&kube, 1)["metadata"].get("authModes").is_none());
    let so = kube
        .get_in(SCALED_OBJECT, Some("llm"), "vllm-burst")
        .unwrap_or_default();
    assert_eq!(
        so["status"]["health"]["s1-prometheus"]["status"], "Failing",
        "{}",
        so["status"]
    );
    assert_eq!(so["status"]["health"]["s0-prometheus"]["status"], "Happy");

    // References to objects that exist: the user's TriggerAuthentication (left alone) and a
    // ClusterTriggerAuthentication with a pod identity.
    kube.create(
        TRIGGER_AUTHENTICATION,
        Some("llm"),
        json!({"apiVersion": "keda.sh/v1alpha1", "kind": "TriggerAuthentication",
               "metadata": {"name": "team-prom", "namespace": "llm"},
               "spec": {"secretTargetRef": [{"parameter": "bearerToken", "name": "prom-creds", "key": "token"}]}}),
        "kubectl",
    );
    kube.create(
        CLUSTER_TRIGGER_AUTHENTICATION,
        None,
        json!({"apiVersion": "keda.sh/v1alpha1", "kind": "ClusterTriggerAuthentication",
               "metadata": {"name": "amp-sigv4"}, "spec": {"podIdentity": {"provider": "aws"}}}),
        "kubectl",
    );
    let cloud_cta = format!(
        "{cloud_plain}\n    authentication_ref {{\n      name = \"amp-sigv4\"\n      kind = \"ClusterTriggerAuthentication\"\n    }}"
    );
    let (got, _) = step(
        "references",
        "    authentication_ref {\n      name = \"team-prom\"\n      auth_modes = [\"bearer\"]\n    }",
        &cloud_cta,
    );
    assert_eq!(
        got.as_ref().and_then(|g| g.header("Authorization")),
        Some("Bearer t0ken")
    );
    assert!(ta(&kube, "vllm-burst-cloud").is_none());
    assert_eq!(
        trigger(&kube, 1)["authenticationRef"],
        json!({"name": "amp-sigv4", "kind": "ClusterTriggerAuthentication"})
    );

    // At apply, before any change: a pod identity with auth modes (EKSGPU241), a reference to
    // nothing (EKSGPU247), and credentials with no mode on (EKSGPU240).
    let generation = |kube: &KubeTarget| {
        kube.get_in(SCALED_OBJECT, Some("llm"), "vllm-burst")
            .unwrap_or_default()["metadata"]["generation"]
            .clone()
    };
    let before = generation(&kube);
    for (code, on_prem, cloud_site) in [
        (
            "EKSGPU241",
            "    authentication_ref {\n      name = \"team-prom\"\n      auth_modes = [\"bearer\"]\n    }".to_owned(),
            cloud_cta.replace("    }", "      auth_modes = [\"bearer\"]\n    }"),
        ),
        (
            "EKSGPU247",
            "    authentication_ref {\n      name = \"nobody\"\n      auth_modes = [\"bearer\"]\n    }".to_owned(),
            cloud_cta.clone(),
        ),
        (
            "EKSGPU240",
            "    authentication_ref {\n      name = \"team-prom\"\n    }".to_owned(),
            cloud_cta.clone(),
        ),
    ] {
        w.write("main.tf", &config(&kube, &onprem_at(&on_prem), &cloud_site, ""));
        let r = w.run(&["apply", "-auto-approve", "-no-color"]);
        assert_ne!(r.code, 0, "{code}: {}", r.combined());
        assert!(
            r.combined().contains(&format!("Error: {code}")),
            "{code}: {}",
            r.combined()
        );
        assert_eq!(generation(&kube), before, "{code}: nothing changed");
    }

    w.write("main.tf", &config(&kube, &onprem_at(""), &cloud_plain, ""));
    w.apply();
    w.ok(&["destroy", "-auto-approve", "-no-color"]);
    assert!(kube.get_in(SCALED_OBJECT, Some("llm"), "vllm-burst").is_none());
    assert!(ta(&kube, "team-prom").is_some(), "the user's object stays");
    assert!(kube.get_in(CLUSTER_TRIGGER_AUTHENTICATION, None, "amp-sigv4").is_some());
    assert!(kube.get_in(SECRET, Some("llm"), "prom-creds").is_some());
}

/// `wait_for_ready` names the site KEDA cannot authenticate to (the Fallback condition and
/// `status.health`), and KEDA's own message when a trigger cannot be built; it passes once both
/// sites answer. The on-prem Prometheus demands a token the Secret does not hold yet.
#[test]
fn wait_for_ready_names_the_site_keda_cannot_query_or_authenticate() {
    let Some(tf) = current() else {
        return skip("needs the current Terraform CLI (EKSGPU_TF_VERSIONS)");
    };
    let kube = KubeTarget::start();
    if !kube.is_emulator() {
        return skip("the KEDA simulation is the emulator's");
    }
    let onprem = Prometheus::start(Demand::Header("Authorization".into(), "Bearer right".into()));
    let cloud = Prometheus::start(Demand::Nothing);
    kube.simulate_keda();
    secret(&kube, "prom-token", json!({"other": "x"}));
    let on_prem = format!(
        "    address = {:?}\n    secret_auth {{\n      mode = \"bearer\"\n      secret_name = \"prom-token\"\n      keys = {{ bearerToken = \"token\" }}\n    }}",
        onprem.url()
    );
    let cloud_site = format!("    address = {:?}", cloud.url());
    // Each apply changes `min_replicas`, so each has something to apply and wait for.
    let waiting = |min: u32| format!("  wait_for_ready = true\n  ready_timeout = \"3s\"\n  min_replicas = {min}\n");
    let w = Workdir::new(&tf, &config(&kube, &on_prem, &cloud_site, &waiting(0)));
    w.init();

    // The Secret has no `token` key: KEDA cannot build the trigger, and says why.
    let r = w.run(&["apply", "-auto-approve", "-no-color"]);
    assert_ne!(r.code, 0, "{}", r.combined());
    let out = flat(&r.combined());
    assert!(out.contains("ScaledObject llm/vllm-burst not Ready"), "{out}");
    assert!(
        out.contains("Ready=False (ScaledObjectCheckFailed): failed to ensure HPA is correctly created for ScaledObject: error parsing prometheus metadata: error parsing prometheus metadata: bearer token=<empty> is required when bearer auth is enabled"),
        "{out}"
    );

    // A wrong token: the trigger builds, the query is refused, the fallback holds.
    secret(&kube, "prom-token", json!({"token": "wrong"}));
    w.write("main.tf", &config(&kube, &on_prem, &cloud_site, &waiting(1)));
    let r = w.run(&["apply", "-auto-approve", "-no-color"]);
    assert_ne!(r.code, 0, "{}", r.combined());
    let out = flat(&r.combined());
    assert!(
        out.contains("Fallback=True (FallbackExists): At least one trigger is falling back on this scaled object"),
        "{out}"
    );
    let site = format!(
        "the on-prem Prometheus (trigger onprem_waiting, {}) fails: 4 failed queries (status.health s0-prometheus)",
        onprem.url()
    );
    assert!(out.contains(&site), "{out}");
    assert!(!out.contains("the cloud Prometheus"), "{out}");
    assert_eq!(
        onprem
            .received()
            .last()
            .and_then(|g| g.header("Authorization").map(str::to_owned)),
        Some("Bearer wrong".to_owned())
    );

    // The right token: the Secret's change reaches KEDA, and the next apply's wait passes.
    secret(&kube, "prom-token", json!({"token": "right"}));
    w.write("main.tf", &config(&kube, &on_prem, &cloud_site, &waiting(2)));
    w.apply();
    w.assert_empty_plan();
    let so = kube
        .get_in(SCALED_OBJECT, Some("llm"), "vllm-burst")
        .unwrap_or_default();
    assert_eq!(
        so["status"]["health"]["s0-prometheus"]["status"], "Happy",
        "{}",
        so["status"]
    );
    w.ok(&["destroy", "-auto-approve", "-no-color"]);
}

/// A TriggerAuthentication under the name the scaler would render that is another owner's is
/// refused at apply with its owner named, and left as it is; destroy leaves one another owner
/// took over.
#[test]
fn a_trigger_authentication_of_another_owner_is_refused_and_untouched() {
    let Some(tf) = current() else {
        return skip("needs the current Terraform CLI (EKSGPU_TF_VERSIONS)");
    };
    let kube = KubeTarget::start();
    let bearer = "    address = \"http://prometheus.onprem:9090\"\n    secret_auth {\n      mode = \"bearer\"\n      secret_name = \"prom-token\"\n      keys = { bearerToken = \"token\" }\n    }";
    let cloud_site = "    address = \"http://prometheus.cloud:9090\"";
    kube.create(
        TRIGGER_AUTHENTICATION,
        Some("llm"),
        json!({"apiVersion": "keda.sh/v1alpha1", "kind": "TriggerAuthentication",
               "metadata": {"name": "vllm-burst-onprem", "namespace": "llm",
                            "labels": {"app.kubernetes.io/managed-by": "Helm"}},
               "spec": {"secretTargetRef": [{"parameter": "bearerToken", "name": "theirs", "key": "t"}]}}),
        "helm",
    );
    let w = Workdir::new(&tf, &config(&kube, bearer, cloud_site, ""));
    w.init();
    let r = w.run(&["apply", "-auto-approve", "-no-color"]);
    assert_ne!(r.code, 0, "{}", r.combined());
    let out = flat(&r.combined());
    assert!(
        out.contains("TriggerAuthentication llm/vllm-burst-onprem is not this scaler's")
            && out.contains("app.kubernetes.io/managed-by=Helm"),
        "{out}"
    );
    assert!(out.contains("on_prem_prometheus"), "points at the site: {out}");
    assert!(
        kube.get_in(SCALED_OBJECT, Some("llm"), "vllm-burst").is_none(),
        "nothing applied"
    );
    assert_eq!(
        ta(&kube, "vllm-burst-onprem").unwrap_or_default()["spec"]["secretTargetRef"][0]["name"],
        "theirs"
    );

    // Once it is gone the scaler renders its own; one another tool then takes over stays.
    kube.delete(TRIGGER_AUTHENTICATION, Some("llm"), "vllm-burst-onprem");
    w.apply();
    kube.edit_in(
        TRIGGER_AUTHENTICATION,
        Some("llm"),
        "vllm-burst-onprem",
        json!({"metadata": {"labels": {"app.kubernetes.io/managed-by": "Helm", "eksgpu.terraform.io/burst-scaler": null}}}),
        "helm",
    );
    // (The refresh before the destroy already reads it as not the scaler's: nothing deletes it.)
    w.ok(&["destroy", "-auto-approve", "-no-color"]);
    assert!(kube.get_in(SCALED_OBJECT, Some("llm"), "vllm-burst").is_none());
    assert!(ta(&kube, "vllm-burst-onprem").is_some());
    // Without the refresh the destroy itself checks, and says so.
    kube.edit_in(
        TRIGGER_AUTHENTICATION,
        Some("llm"),
        "vllm-burst-onprem",
        json!({"metadata": {"labels": {"app.kubernetes.io/managed-by": "terraform-provider-eksgpu",
                                       "eksgpu.terraform.io/burst-scaler": "vllm-burst",
                                       "eksgpu.terraform.io/cluster": "gpu"}}}),
        "helm",
    );
    w.apply();
    kube.edit_in(
        TRIGGER_AUTHENTICATION,
        Some("llm"),
        "vllm-burst-onprem",
        json!({"metadata": {"labels": {"app.kubernetes.io/managed-by": "Helm", "eksgpu.terraform.io/burst-scaler": null}}}),
        "helm",
    );
    let r = w.ok(&["destroy", "-auto-approve", "-refresh=false", "-no-color"]);
    assert!(
        flat(&r.combined()).contains("TriggerAuthentication llm/vllm-burst-onprem left in place"),
        "{}",
        r.combined()
    );
    assert!(ta(&kube, "vllm-burst-onprem").is_some());
}

/// Drift of a rendered TriggerAuthentication (a key changed, the object deleted) shows in the
/// plan and apply restores it; import reads both sites back and plans nothing.
#[test]
fn trigger_authentication_drift_is_restored_and_import_reads_both_sites() {
    let Some(tf) = current() else {
        return skip("needs the current Terraform CLI (EKSGPU_TF_VERSIONS)");
    };
    let kube = KubeTarget::start();
    let bearer = "    secret_auth {\n      mode = \"bearer\"\n      secret_name = \"prom-token\"\n      keys = { bearerToken = \"token\" }\n    }";
    let amp = "    address = \"https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-0123\"\n    aws_sigv4 {\n      region = \"us-west-2\"\n      role_arn = \"arn:aws:iam::123456789012:role/keda-amp\"\n    }";
    let extra = "  prometheus_address = \"http://prometheus.onprem:9090\"\n  force_conflicts = true";
    let main_tf = config(&kube, bearer, amp, extra);
    let w = Workdir::new(&tf, &main_tf);
    w.init();
    w.apply();
    w.assert_empty_plan();
    kube.edit_in(
        TRIGGER_AUTHENTICATION,
        Some("llm"),
        "vllm-burst-onprem",
        json!({"spec": {"secretTargetRef": [{"parameter": "bearerToken", "name": "prom-token", "key": "other"}]}}),
        "kubectl-edit",
    );
    let changed = w.planned_changes();
    assert_eq!(
        changed,
        ["on_prem_prometheus[0].secret_auth[0].keys.bearerToken"],
        "{changed:?}"
    );
    w.apply();
    w.assert_empty_plan();
    kube.delete(TRIGGER_AUTHENTICATION, Some("llm"), "vllm-burst-cloud");
    let (code, r) = w.plan_code(&[]);
    assert_eq!(code, 2, "a deleted TriggerAuthentication is a change: {}", r.combined());
    w.apply();
    assert!(ta(&kube, "vllm-burst-cloud").is_some(), "applied again");
    w.assert_empty_plan();

    // As the existing scaler tests import: without force_conflicts, a setting of the apply.
    let imported = Workdir::new(
        &tf,
        &config(
            &kube,
            bearer,
            amp,
            "  prometheus_address = \"http://prometheus.onprem:9090\"",
        ),
    );
    imported.init();
    imported.ok(&["import", "-no-color", "eksgpu_burst_scaler.b", "gpu/llm/vllm-burst"]);
    imported.assert_empty_plan();
    w.ok(&["destroy", "-auto-approve", "-no-color"]);
    assert!(ta(&kube, "vllm-burst-onprem").is_none() && ta(&kube, "vllm-burst-cloud").is_none());
}

/// A state written by the one-address form (schema version 0, `acceptance-tests/fixtures/
/// burst_scaler_v0.tfstate`, captured from an apply of the provider before site blocks) over its
/// live ScaledObject upgrades and plans nothing; the scaler then takes site blocks.
#[test]
fn a_one_address_state_upgrades_and_plans_empty() {
    let Some(tf) = current() else {
        return skip("needs the current Terraform CLI (EKSGPU_TF_VERSIONS)");
    };
    let kube = KubeTarget::start();
    let fixture = eksgpu_acceptance_tests::repo_root().join("acceptance-tests/fixtures/burst_scaler_v0.tfstate");
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(&fixture).unwrap_or_else(|e| panic!("{e}")))
        .unwrap_or_else(|e| panic!("{e}"));
    let attributes = &stored["resources"][0]["instances"][0]["attributes"];
    assert_eq!(stored["resources"][0]["instances"][0]["schema_version"], 0);
    // The ScaledObject that provider applied: its manifest, its owner token, its field manager.
    let mut so: Value = serde_saphyr::from_str(attributes["manifests_yaml"].as_str().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}"));
    so["metadata"]["labels"]["eksgpu.terraform.io/owner-token"] = attributes["owner_token"].clone();
    kube.create(SCALED_OBJECT, Some("llm"), so, "terraform-provider-eksgpu");

    let one_address = format!(
        r#"{}
resource "eksgpu_burst_scaler" "b" {{
  cluster_name          = "gpu"
  namespace             = "llm"
  name                  = "vllm-burst"
  max_replicas          = 3
  prometheus_address    = "http://prometheus.monitoring:9090"
  on_prem_waiting_query = "sum(vllm:num_requests_waiting)"
  cloud_running_query   = "sum(vllm:num_requests_running)"
  target {{
    kind = "StatefulSet"
    name = "vllm"
  }}
}}
"#,
        Provider::new().kube(&kube).header()
    );
    let w = Workdir::new(&tf, &one_address);
    w.write("terraform.tfstate", &stored.to_string());
    w.init();
    w.assert_empty_plan();
    // A refresh-only apply writes the upgraded state: version 1, no site blocks.
    w.ok(&["apply", "-refresh-only", "-auto-approve", "-no-color"]);
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(w.path().join("terraform.tfstate")).unwrap_or_default())
            .unwrap_or_default();
    let instance = &state["resources"][0]["instances"][0];
    assert_eq!(instance["schema_version"], 1, "{instance}");
    assert_eq!(instance["attributes"]["on_prem_prometheus"], json!([]));
    assert_eq!(instance["attributes"]["owner_token"], attributes["owner_token"]);
    w.assert_empty_plan();

    // The upgraded scaler takes a second site.
    let two = one_address.replace(
        "  target {\n",
        "  cloud_prometheus {\n    address = \"http://prometheus.cloud:9090\"\n  }\n  target {\n",
    );
    w.write("main.tf", &two);
    w.apply();
    w.assert_empty_plan();
    assert_eq!(
        trigger(&kube, 1)["metadata"]["serverAddress"],
        "http://prometheus.cloud:9090"
    );
    assert_eq!(
        trigger(&kube, 0)["metadata"]["serverAddress"],
        "http://prometheus.monitoring:9090"
    );
    w.ok(&["destroy", "-auto-approve", "-no-color"]);
    assert!(kube.get_in(SCALED_OBJECT, Some("llm"), "vllm-burst").is_none());
}
