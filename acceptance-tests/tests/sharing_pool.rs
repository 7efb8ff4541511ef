//! `eksgpu_sharing_pool` through the real Terraform CLI against the Kubernetes
//! API emulator: each strategy's lifecycle, shared ConfigMaps, rules.

use eksgpu_acceptance_tests::hcl::Provider;
use eksgpu_acceptance_tests::kube::{CONFIG_MAP, KubeTarget, NAMESPACE, RESOURCE_CLAIM};
use eksgpu_acceptance_tests::{Workdir, skip, terraform_versions};
use serde_json::{Value, json};

fn config(kube: &KubeTarget, pools: &str) -> String {
    format!("{}{pools}", Provider::new().kube(kube).header())
}

fn pool(name: &str, strategy: &str, body: &str) -> String {
    pool_with(name, strategy, body, true)
}

/// `force`: take back fields another manager changed (the drift steps need it).
fn pool_with(name: &str, strategy: &str, body: &str, force: bool) -> String {
    format!(
        "resource \"eksgpu_sharing_pool\" \"{name}\" {{\n  cluster_name    = \"gpu\"\n  name            = \"{name}\"\n  instance_type   = \"{}\"\n  strategy        = \"{strategy}\"\n  force_conflicts = {force}\n{body}\n}}\n",
        if strategy == "mig" {
            "p5en.48xlarge"
        } else {
            "g5.2xlarge"
        }
    )
}

fn plan_changes(w: &Workdir) -> Vec<String> {
    w.ok(&["plan", "-no-color", "-out", "p.tfplan"]);
    let plan: Value =
        serde_json::from_str(&w.ok(&["show", "-json", "p.tfplan"]).stdout).unwrap_or_else(|e| panic!("{e}"));
    let mut out = Vec::new();
    for rc in plan["resource_changes"].as_array().into_iter().flatten() {
        let (b, a) = (&rc["change"]["before"], &rc["change"]["after"]);
        for (k, v) in a.as_object().into_iter().flatten() {
            if b.get(k) != Some(v) && rc["change"]["after_unknown"].get(k) != Some(&Value::Bool(true)) {
                // A settings block is a list of at most one: name the changed attribute in it.
                let (inner, before, name) = match v {
                    Value::Array(l) if l.len() == 1 && l[0].is_object() => (&l[0], &b[k][0], format!("{k}[0]")),
                    v => (v, &b[k], k.clone()),
                };
                for (sub, sv) in inner.as_object().into_iter().flatten() {
                    if before.get(sub) != Some(sv) {
                        out.push(format!("{name}.{sub}"));
                    }
                }
                if !inner.is_object() {
                    out.push(k.clone());
                }
            }
        }
    }
    out
}

/// Create → empty plan → import → empty plan → out-of-band edit → one-field diff → apply → destroy.
fn lifecycle(
    strategy: &str,
    body: &str,
    edit: impl Fn(&KubeTarget),
    changed: &str,
    gone: impl Fn(&KubeTarget) -> bool,
) {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        if !kube.is_emulator() && strategy == "dra" {
            return skip("a cluster from EKSGPU_TEST_KUBECONFIG is not assumed to serve resource.k8s.io/v1");
        }
        let main = config(&kube, &pool("small", strategy, body));
        let w = Workdir::new(&tf, &main);
        w.init();
        w.apply();
        w.assert_empty_plan();
        // force_conflicts lives in configuration only: an import reads it as false.
        let imported = Workdir::new(&tf, &config(&kube, &pool_with("small", strategy, body, false)));
        imported.init();
        imported.ok(&["import", "-no-color", "eksgpu_sharing_pool.small", "gpu/small"]);
        imported.assert_empty_plan();
        edit(&kube);
        let changes = plan_changes(&w);
        assert_eq!(changes, [changed], "{} {strategy}", tf.label);
        w.apply();
        w.assert_empty_plan();
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
        assert!(gone(&kube), "{} {strategy}: objects left behind", tf.label);
    }
}

fn record(kube: &KubeTarget) -> Value {
    kube.get_in(CONFIG_MAP, Some("gpu-operator"), "eksgpu-sharing-pools")
        .unwrap_or(Value::Null)
}

fn record_gone(kube: &KubeTarget) -> bool {
    record(kube)["data"].get("small").is_none()
}

/// Rewrites the pool's record key as another manager would.
fn edit_record(kube: &KubeTarget, f: impl Fn(&mut Value)) {
    let mut r: Value = serde_json::from_str(record(kube)["data"]["small"].as_str().unwrap_or("{}")).unwrap_or_default();
    f(&mut r);
    kube.edit_in(
        CONFIG_MAP,
        Some("gpu-operator"),
        "eksgpu-sharing-pools",
        json!({"data": {"small": r.to_string()}}),
        "kubectl-edit",
    );
}

#[test]
fn time_slicing_lifecycle() {
    lifecycle(
        "time_slicing",
        "  time_slicing {\n    replicas = 2\n  }",
        |kube| {
            let cm = kube
                .get_in(CONFIG_MAP, Some("gpu-operator"), "device-plugin-config")
                .unwrap_or_default();
            let edited = cm["data"]["small"]
                .as_str()
                .unwrap_or_default()
                .replace("replicas: 2", "replicas: 4");
            kube.edit_in(
                CONFIG_MAP,
                Some("gpu-operator"),
                "device-plugin-config",
                json!({"data": {"small": edited}}),
                "kubectl-edit",
            );
        },
        "time_slicing[0].replicas",
        |kube| {
            kube.get_in(CONFIG_MAP, Some("gpu-operator"), "device-plugin-config")
                .is_none_or(|cm| cm["data"].get("small").is_none())
        },
    );
}

#[test]
fn mps_lifecycle() {
    lifecycle(
        "mps",
        "  mps {\n    replicas = 4\n  }",
        |kube| {
            let cm = kube
                .get_in(CONFIG_MAP, Some("gpu-operator"), "device-plugin-config")
                .unwrap_or_default();
            let edited = cm["data"]["small"]
                .as_str()
                .unwrap_or_default()
                .replace("replicas: 4", "replicas: 2");
            kube.edit_in(
                CONFIG_MAP,
                Some("gpu-operator"),
                "device-plugin-config",
                json!({"data": {"small": edited}}),
                "kubectl-edit",
            );
        },
        "mps[0].replicas",
        record_gone,
    );
}

#[test]
fn mig_lifecycle() {
    lifecycle(
        "mig",
        "  mig {\n    strategy = \"mixed\"\n    profiles = { \"1g.18gb\" = 7 }\n  }",
        |kube| edit_record(kube, |r| r["mig"]["strategy"] = json!("single")),
        "mig[0].strategy",
        record_gone,
    );
}

#[test]
fn hami_lifecycle() {
    lifecycle(
        "hami",
        "  hami {\n    memory_mib    = 6144\n    cores_percent = 50\n  }",
        |kube| edit_record(kube, |r| r["hami"]["split_count"] = json!(5)),
        "hami[0].split_count",
        record_gone,
    );
}

#[test]
fn exclusive_lifecycle() {
    lifecycle(
        "exclusive",
        "",
        |kube| edit_record(kube, |r| r["capacity"] = json!("karpenter")),
        "capacity",
        record_gone,
    );
}

#[test]
fn dra_lifecycle() {
    lifecycle(
        "dra",
        "  dra {\n    namespace        = \"inference\"\n    sharing          = \"time_slicing\"\n    create_namespace = true\n  }",
        |kube| {
            let patch = json!({"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.nvidia.com", "allocationMode": "ExactCount", "count": 2}}]}}});
            kube.edit_in(RESOURCE_CLAIM, Some("inference"), "small", patch, "kubectl-edit");
        },
        "dra[0].count",
        |kube| {
            kube.get_in(RESOURCE_CLAIM, Some("inference"), "small").is_none()
                && kube.get(NAMESPACE, "inference").is_none()
        },
    );
}

#[test]
fn two_time_slicing_pools_share_one_config_map() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let both = format!(
            "{}{}",
            pool("alpha", "time_slicing", "  time_slicing {\n    replicas = 2\n  }"),
            pool("beta", "time_slicing", "  time_slicing {\n    replicas = 3\n  }")
        );
        let w = Workdir::new(&tf, &config(&kube, &both));
        w.init();
        w.apply();
        let cm = kube
            .get_in(CONFIG_MAP, Some("gpu-operator"), "device-plugin-config")
            .unwrap_or_default();
        assert!(
            cm["data"]["alpha"].as_str().unwrap_or_default().contains("replicas: 2"),
            "{cm}"
        );
        assert!(
            cm["data"]["beta"].as_str().unwrap_or_default().contains("replicas: 3"),
            "{cm}"
        );
        w.assert_empty_plan();
        // Deleting one pool leaves the other's key intact.
        w.write(
            "main.tf",
            &config(
                &kube,
                &pool("beta", "time_slicing", "  time_slicing {\n    replicas = 3\n  }"),
            ),
        );
        w.apply();
        let cm = kube
            .get_in(CONFIG_MAP, Some("gpu-operator"), "device-plugin-config")
            .unwrap_or_default();
        assert!(cm["data"].get("alpha").is_none(), "{}: {cm}", tf.label);
        assert!(
            cm["data"]["beta"].as_str().unwrap_or_default().contains("replicas: 3"),
            "{}: {cm}",
            tf.label
        );
        w.assert_empty_plan();
    }
}

/// A sharing pool of the same name from another configuration is refused;
/// the first pool's key is untouched, and destroying the second leaves it.
#[test]
fn a_second_sharing_pool_of_the_same_name_is_refused() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let first = Workdir::new(
            &tf,
            &config(
                &kube,
                &pool("alpha", "time_slicing", "  time_slicing {\n    replicas = 2\n  }"),
            ),
        );
        first.init();
        first.apply();
        let second = Workdir::new(
            &tf,
            &config(
                &kube,
                &pool("alpha", "time_slicing", "  time_slicing {\n    replicas = 4\n  }"),
            ),
        );
        second.init();
        let r = second.run(&["apply", "-auto-approve", "-no-color"]);
        let out = r.combined().split_whitespace().collect::<Vec<_>>().join(" ");
        assert_ne!(r.code, 0, "{out}");
        assert!(
            out.contains(r#"Sharing pool "alpha" already exists"#),
            "{}: {out}",
            tf.label
        );
        second.ok(&["destroy", "-auto-approve", "-no-color"]);
        let cm = kube
            .get_in(CONFIG_MAP, Some("gpu-operator"), "device-plugin-config")
            .unwrap_or_default();
        assert!(
            cm["data"]["alpha"].as_str().unwrap_or_default().contains("replicas: 2"),
            "{}: {cm}",
            tf.label
        );
        first.assert_empty_plan();
    }
}
