//! Never touch what is not yours, and a plan that says what apply will do:
//! ownership of the objects a node strategy writes (another strategy's, a
//! foreign one, adoption), renames with `create_before_destroy`, pools gone
//! out of band or removed, and failures that leave nothing behind. Through
//! the real Terraform CLI against the Kubernetes emulator (or, in the real
//! API server lane, the real server behind it).

use eksgpu_acceptance_tests::hcl::Provider;
use eksgpu_acceptance_tests::kube::{EC2_NODE_CLASS, KubeTarget, NODE_POOL};
use eksgpu_acceptance_tests::{Workdir, terraform_versions};
use serde_json::{Value, json};

/// A Karpenter pool `name` with `limit` GPUs.
fn pool(name: &str, limit: u32, extra: &str) -> String {
    format!(
        r#"
  "{name}" = {{
    capacity       = "karpenter"
    instance_types = ["g6e.xlarge"]
    gpu_limit      = {limit}{extra}
    node_class = {{
      role = "KarpenterNodeRole-gpu"
    }}
  }}"#
    )
}

fn config(kube: &KubeTarget, strategy: &str, pools: &str, lifecycle: &str) -> String {
    format!(
        r#"{}
resource "eksgpu_node_strategy" "s" {{
  cluster_name = "gpu"
  name         = "{strategy}"
  pools = {{{pools}
  }}
{lifecycle}
}}
"#,
        Provider::new().kube(kube).header()
    )
}

fn labels(o: &Value) -> &Value {
    &o["metadata"]["labels"]
}

fn limit(kube: &KubeTarget, pool: &str) -> Value {
    kube.get(NODE_POOL, pool).unwrap_or_default()["spec"]["limits"]["nvidia.com/gpu"].clone()
}

/// Words of a run's output, joined by single spaces (Terraform wraps diagnostics).
fn words(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn strategies_in_state(w: &Workdir) -> usize {
    w.state()["values"]["root_module"]["resources"]
        .as_array()
        .map_or(0, |r| r.iter().filter(|r| r["type"] == "eksgpu_node_strategy").count())
}

#[test]
fn a_second_strategy_with_the_same_pool_name_fails_and_the_first_is_untouched() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let first = Workdir::new(&tf, &config(&kube, "training", &pool("gpu", 4, ""), ""));
        first.init();
        first.apply();

        // Another team's configuration declares a pool of the same name next to one of its own.
        let pools = format!("{}{}", pool("other", 2, ""), pool("gpu", 64, ""));
        let second = Workdir::new(&tf, &config(&kube, "inference", &pools, ""));
        second.init();
        let r = second.run(&["apply", "-auto-approve", "-no-color"]);
        let out = words(&r.combined());
        assert_ne!(r.code, 0, "{out}");
        assert!(
            out.contains(r#"belongs to eksgpu_node_strategy "training""#) && out.contains("adopt = true"),
            "{}: {out}",
            tf.label
        );
        // The first strategy's NodePool is as it made it.
        let np = kube.get(NODE_POOL, "gpu").unwrap();
        assert_eq!(labels(&np)["eksgpu.terraform.io/strategy"], "training");
        assert_eq!(limit(&kube, "gpu"), 4);
        // Nothing of the failed create is left that no state knows.
        assert_eq!(strategies_in_state(&second), 0);
        assert!(kube.get(NODE_POOL, "other").is_none(), "{}", tf.label);
        assert!(kube.get(EC2_NODE_CLASS, "other").is_none(), "{}", tf.label);

        second.ok(&["destroy", "-auto-approve", "-no-color"]);
        assert_eq!(limit(&kube, "gpu"), 4);
        assert!(kube.get(EC2_NODE_CLASS, "gpu").is_some());
        first.assert_empty_plan();
    }
}

#[test]
fn a_strategy_rename_with_create_before_destroy_relabels_in_place() {
    let cbd = "  lifecycle {\n    create_before_destroy = true\n  }";
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let w = Workdir::new(&tf, &config(&kube, "old", &pool("gpu", 4, ""), cbd));
        w.init();
        w.apply();
        w.write("main.tf", &config(&kube, "new", &pool("gpu", 4, ""), cbd));
        let (code, r) = w.plan_code(&[]);
        let out = words(&r.combined());
        assert_eq!(code, 2, "{out}");
        assert!(
            out.contains("0 to add, 1 to change, 0 to destroy") && !out.contains("replaced"),
            "{}: a rename is an update in place: {out}",
            tf.label
        );
        w.apply();
        for kind in [NODE_POOL, EC2_NODE_CLASS] {
            let o = kube.get(kind, "gpu").expect("kept");
            assert_eq!(labels(&o)["eksgpu.terraform.io/strategy"], "new", "{}", tf.label);
        }
        w.assert_empty_plan();
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
        assert!(kube.get(NODE_POOL, "gpu").is_none());
        assert!(kube.get(EC2_NODE_CLASS, "gpu").is_none());
    }
}

/// `-replace` of a strategy. With `create_before_destroy`, Terraform creates the new instance
/// (it writes over the same objects, with its own owner token) and then destroys the old one,
/// whose destroy must leave what its successor wrote; without it, the old objects go first. Either
/// way the objects are there afterwards, carry the new instance's token, and nothing is planned.
#[test]
fn replacing_a_strategy_keeps_its_objects_with_and_without_create_before_destroy() {
    let cbd = "  lifecycle {\n    create_before_destroy = true\n  }";
    let token = |o: &Value| labels(o)["eksgpu.terraform.io/owner-token"].clone();
    for tf in terraform_versions() {
        for lifecycle in [cbd, ""] {
            let kube = KubeTarget::start();
            let w = Workdir::new(&tf, &config(&kube, "s", &pool("gpu", 4, ""), lifecycle));
            w.init();
            w.apply();
            let first = token(&kube.get(NODE_POOL, "gpu").expect("created"));
            assert!(
                first.is_string(),
                "{}: the objects carry the instance's token",
                tf.label
            );
            let out = words(
                &w.ok(&["apply", "-auto-approve", "-no-color", "-replace=eksgpu_node_strategy.s"])
                    .combined(),
            );
            let state_token = w.state()["values"]["root_module"]["resources"][0]["values"]["owner_token"].clone();
            for kind in [NODE_POOL, EC2_NODE_CLASS] {
                let o = kube.get(kind, "gpu").unwrap_or_else(|| {
                    panic!("{} {lifecycle:?}: the replacement deleted the objects: {out}", tf.label)
                });
                assert_eq!(token(&o), state_token, "{} {lifecycle:?}", tf.label);
                assert_ne!(token(&o), first, "{} {lifecycle:?}", tf.label);
            }
            if lifecycle == cbd {
                assert!(
                    out.contains("kept for the strategy that replaced this one"),
                    "{}: {out}",
                    tf.label
                );
            }
            w.assert_empty_plan();
            w.ok(&["destroy", "-auto-approve", "-no-color"]);
            assert!(
                kube.get(NODE_POOL, "gpu").is_none(),
                "{}: destroy deletes them",
                tf.label
            );
            assert!(kube.get(EC2_NODE_CLASS, "gpu").is_none(), "{}", tf.label);
        }
    }
}

#[test]
fn a_pool_deleted_out_of_band_plans_only_that_pool_and_a_removed_pool_is_named() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let three = format!("{}{}{}", pool("a", 1, ""), pool("b", 2, ""), pool("c", 3, ""));
        let w = Workdir::new(&tf, &config(&kube, "s", &three, ""));
        w.init();
        w.apply();

        kube.delete(NODE_POOL, None, "b");
        assert_eq!(w.planned_changes(), ["pools[\"b\"].manifests_yaml"], "{}", tf.label);
        let (_, r) = w.plan_code(&[]);
        assert!(words(&r.combined()).contains("Pool b is gone"), "{}", r.combined());
        w.apply();
        assert_eq!(limit(&kube, "b"), 2);
        w.assert_empty_plan();

        // Removing a pool from the configuration: the plan names what apply deletes.
        let two = format!("{}{}", pool("a", 1, ""), pool("c", 3, ""));
        w.write("main.tf", &config(&kube, "s", &two, ""));
        let (_, r) = w.plan_code(&[]);
        let out = words(&r.combined());
        assert!(
            out.contains("Pool b will be deleted") && out.contains("deletes EC2NodeClass b and NodePool b"),
            "{}: {out}",
            tf.label
        );
        w.apply();
        assert!(kube.get(NODE_POOL, "b").is_none());
        assert_eq!(limit(&kube, "c"), 3);
    }
}

#[test]
fn a_failure_between_a_node_class_and_its_node_pool_leaves_nothing_behind() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let w = Workdir::new(&tf, &config(&kube, "s", &pool("a", 1, ""), ""));
        w.init();
        w.apply();

        // Pool b's EC2NodeClass is applied, then its NodePool is refused.
        let two = format!("{}{}", pool("a", 1, ""), pool("b", 2, ""));
        w.write("main.tf", &config(&kube, "s", &two, ""));
        kube.fault(&json!({"method": "PATCH", "path": "nodepools/b", "status": 422, "count": 1}));
        let r = w.run(&["apply", "-auto-approve", "-no-color"]);
        assert_ne!(r.code, 0, "{}", r.combined());
        assert!(
            kube.get(EC2_NODE_CLASS, "b").is_none(),
            "{}: no orphan node class",
            tf.label
        );
        assert!(kube.get(NODE_POOL, "a").is_some());

        // The same on a create: nothing in state, nothing in the cluster, destroy has nothing to do.
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
        w.write("main.tf", &config(&kube, "s", &two, ""));
        kube.fault(&json!({"method": "PATCH", "path": "nodepools/b", "status": 422, "count": 1}));
        let r = w.run(&["apply", "-auto-approve", "-no-color"]);
        assert_ne!(r.code, 0, "{}", r.combined());
        assert_eq!(strategies_in_state(&w), 0);
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
        for (kind, name) in [
            (NODE_POOL, "a"),
            (EC2_NODE_CLASS, "a"),
            (NODE_POOL, "b"),
            (EC2_NODE_CLASS, "b"),
        ] {
            assert!(
                kube.get(kind, name).is_none(),
                "{}: {} {name} left",
                tf.label,
                kind.kind
            );
        }

        // And the next apply makes everything.
        w.apply();
        w.assert_empty_plan();
    }
}

#[test]
fn a_node_pool_made_outside_terraform_is_refused_until_adopted() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        kube.create(
            NODE_POOL,
            None,
            json!({
                "apiVersion": "karpenter.sh/v1", "kind": "NodePool",
                "metadata": {"name": "gpu", "labels": {"team": "ml"}},
                "spec": {"template": {"spec": {
                    "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
                    "requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}]
                }}, "limits": {"nvidia.com/gpu": 16}}
            }),
            "kubectl",
        );
        let w = Workdir::new(&tf, &config(&kube, "s", &pool("gpu", 4, ""), ""));
        w.init();
        let r = w.run(&["apply", "-auto-approve", "-no-color"]);
        let out = words(&r.combined());
        assert_ne!(r.code, 0, "{out}");
        assert!(
            out.contains("NodePool gpu is not this strategy's") && out.contains("field manager kubectl"),
            "{}: {out}",
            tf.label
        );
        assert_eq!(limit(&kube, "gpu"), 16, "untouched");

        // Adopted by name: relabelled as the strategy's, its fields taken over.
        w.write(
            "main.tf",
            &config(&kube, "s", &pool("gpu", 4, "\n    adopt          = true"), ""),
        );
        w.apply();
        let np = kube.get(NODE_POOL, "gpu").unwrap();
        assert_eq!(labels(&np)["eksgpu.terraform.io/strategy"], "s");
        assert_eq!(labels(&np)["team"], "ml", "a label the strategy does not set stays");
        assert_eq!(limit(&kube, "gpu"), 4);
        w.assert_empty_plan();
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
        assert!(kube.get(NODE_POOL, "gpu").is_none());
    }
}

#[test]
fn auto_modes_built_in_node_pools_are_refused_at_plan() {
    let tf = &terraform_versions()[0];
    let kube = KubeTarget::start();
    let p = r#"
  general-purpose = {
    capacity       = "auto_mode"
    instance_types = ["g6e.xlarge"]
  }"#;
    let w = Workdir::new(tf, &config(&kube, "s", p, ""));
    w.init();
    let (code, r) = w.plan_code(&[]);
    let out = words(&r.combined());
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("EKSGPU140") && out.contains(r#"pools["general-purpose"]"#),
        "{out}"
    );
}

#[test]
fn a_foreign_label_in_an_atomic_map_is_told_in_the_plan_and_never_dropped_silently() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let labelled = |labels: &str, force: bool| {
            let p = pool("gpu", 4, &format!("\n    labels         = {labels}"));
            config(&kube, "s", &p, "").replace(
                "  name         = \"s\"",
                &format!("  name         = \"s\"\n  force_conflicts = {force}"),
            )
        };
        let w = Workdir::new(&tf, &labelled(r#"{ team = "ml" }"#, false));
        w.init();
        w.apply();
        // Another team adds a node label: the NodePool CRD makes the map one field, now theirs.
        kube.edit(
            NODE_POOL,
            "gpu",
            json!({"spec": {"template": {"metadata": {"labels": {"owner": "data"}}}}}),
            "kubectl-edit",
        );
        let (code, r) = w.plan_code(&[]);
        let out = words(&r.combined());
        assert_eq!(code, 2, "{}: not \"No changes\": {out}", tf.label);
        assert!(
            out.contains(r#"spec.template.metadata.labels is shared with "kubectl-edit""#)
                && out.contains("drops owner"),
            "{}: {out}",
            tf.label
        );
        assert_eq!(
            w.planned_changes(),
            ["pools[\"gpu\"].labels.owner", "pools[\"gpu\"].manifests_yaml"],
            "{}",
            tf.label
        );

        // Apply does not drop their label silently: it fails, naming the manager.
        let r = w.run(&["apply", "-auto-approve", "-no-color"]);
        assert_ne!(r.code, 0, "{}", r.combined());
        assert!(r.combined().contains("kubectl-edit"), "{}", r.combined());
        let np = kube.get(NODE_POOL, "gpu").unwrap();
        assert_eq!(np["spec"]["template"]["metadata"]["labels"]["owner"], "data");

        // Keeping it: declared in the configuration, the map taken back once with force.
        w.write("main.tf", &labelled(r#"{ team = "ml", owner = "data" }"#, true));
        w.apply();
        let np = kube.get(NODE_POOL, "gpu").unwrap();
        assert_eq!(np["spec"]["template"]["metadata"]["labels"]["owner"], "data");
        w.assert_empty_plan();
    }
}

/// A fault at every request of a create and of an update: the failed apply
/// leaves nothing that no state knows, the next apply converges, and destroy
/// leaves nothing.
#[test]
fn a_fault_at_any_step_leaves_nothing_behind_and_the_next_apply_converges() {
    let tf = &terraform_versions()[0];
    let kube = KubeTarget::start();
    if !kube.is_emulator() {
        return eksgpu_acceptance_tests::skip("needs the emulator's fault injection");
    }
    let two = format!("{}{}", pool("a", 1, ""), pool("b", 2, ""));
    let grown = format!("{}{}", pool("a", 3, ""), pool("b", 2, ""));
    let mut steps = Vec::new();
    for object in ["ec2nodeclasses/a", "nodepools/a", "ec2nodeclasses/b", "nodepools/b"] {
        for method in ["GET", "PATCH"] {
            steps.push((method, object));
        }
    }
    let mut failures = 0;
    let total = steps.len() * 2;
    for (method, object) in steps {
        let step = format!("{method} {object}");
        for (before, after) in [(None, &two), (Some(pool("a", 1, "")), &grown)] {
            let w = Workdir::new(tf, &config(&kube, "s", before.as_deref().unwrap_or(after), ""));
            w.init();
            if before.is_some() {
                w.apply();
                w.write("main.tf", &config(&kube, "s", after, ""));
            }
            kube.fault(&json!({"method": method, "path": format!("{object}$"), "status": 403, "count": 1}));
            let r = w.run(&["apply", "-auto-approve", "-no-color"]);
            // A step this apply does not make (the update leaves pool a's node class as it is) passes.
            kube.clear_faults();
            failures += usize::from(r.code != 0);
            let state = w.state();
            let pools_in_state: Vec<&str> = state["values"]["root_module"]["resources"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|r| r["values"]["pools"].as_object().into_iter().flatten())
                .map(|(name, _)| name.as_str())
                .collect();
            for name in ["a", "b"] {
                let in_state = pools_in_state.contains(&name);
                let exists = kube.get(NODE_POOL, name).is_some();
                let class = kube.get(EC2_NODE_CLASS, name).is_some();
                assert!(
                    exists == class || !exists,
                    "{step}: NodePool {name} without its node class"
                );
                if exists || class {
                    assert!(in_state, "{step}: {name} exists but no state knows it");
                }
            }
            w.apply();
            w.assert_empty_plan();
            assert_eq!(limit(&kube, "a"), if before.is_some() { 3 } else { 1 }, "{step}");
            w.ok(&["destroy", "-auto-approve", "-no-color"]);
            for name in ["a", "b"] {
                assert!(kube.get(NODE_POOL, name).is_none(), "{step}: NodePool {name} left");
                assert!(
                    kube.get(EC2_NODE_CLASS, name).is_none(),
                    "{step}: EC2NodeClass {name} left"
                );
            }
        }
    }
    assert!(
        failures * 4 >= total * 3,
        "the faults hit {failures} of {total} applies"
    );
}

/// Adoption of a NodePool and EC2NodeClass made by hand, then hand-back: a
/// `removed {}` block (Terraform 1.7+) forgets the strategy without deleting
/// anything, and another strategy adopts the objects.
#[test]
fn node_pools_and_node_classes_are_adopted_and_handed_back() {
    let tf = &terraform_versions()[0];
    if tf.label != "current" {
        return eksgpu_acceptance_tests::skip("removed {} blocks need Terraform 1.7+");
    }
    let kube = KubeTarget::start();
    kube.create(
        EC2_NODE_CLASS,
        None,
        json!({"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "gpu"},
               "spec": {"role": "KarpenterNodeRole-gpu", "amiSelectorTerms": [{"alias": "al2023@latest"}],
                        "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "gpu"}}],
                        "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "gpu"}}]}}),
        "helm",
    );
    kube.create(
        NODE_POOL,
        None,
        json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "gpu"},
               "spec": {"template": {"spec": {
                   "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
                   "requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}]}}}}),
        "helm",
    );
    let adopting = pool("gpu", 4, "\n    adopt          = true");
    let w = Workdir::new(tf, &config(&kube, "s", &adopting, ""));
    w.init();
    w.apply();
    for kind in [NODE_POOL, EC2_NODE_CLASS] {
        let o = kube.get(kind, "gpu").unwrap();
        assert_eq!(labels(&o)["eksgpu.terraform.io/strategy"], "s", "{}", kind.kind);
    }
    w.assert_empty_plan();

    // Hand back: Terraform forgets the strategy, nothing is deleted.
    let header = config(&kube, "s", &adopting, "")
        .split("resource \"eksgpu_node_strategy\"")
        .next()
        .unwrap_or_default()
        .to_owned();
    let handed_back =
        format!("{header}removed {{\n  from = eksgpu_node_strategy.s\n  lifecycle {{\n    destroy = false\n  }}\n}}\n");
    w.write("main.tf", &handed_back);
    w.apply();
    assert_eq!(strategies_in_state(&w), 0);
    assert_eq!(limit(&kube, "gpu"), 4, "kept");

    // Another strategy takes them over explicitly.
    let other = Workdir::new(
        tf,
        &config(&kube, "other", &pool("gpu", 8, "\n    adopt          = true"), ""),
    );
    other.init();
    other.apply();
    assert_eq!(
        labels(&kube.get(NODE_POOL, "gpu").unwrap())["eksgpu.terraform.io/strategy"],
        "other"
    );
    assert_eq!(limit(&kube, "gpu"), 8);
    other.ok(&["destroy", "-auto-approve", "-no-color"]);
    assert!(kube.get(NODE_POOL, "gpu").is_none());
    assert!(kube.get(EC2_NODE_CLASS, "gpu").is_none());
}

/// A pool added between others in key order, and the entries of `pools` written in another
/// order: Terraform's plan shows only the added pool (the others' before equals after), the order
/// they are written in changes nothing, and apply touches no other pool's spec.
#[test]
fn inserting_and_reordering_pools_plans_only_the_new_pool_and_changes_no_other() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let pools = |names: &[(&str, u32)]| names.iter().map(|(n, l)| pool(n, *l, "")).collect::<String>();
        let w = Workdir::new(&tf, &config(&kube, "s", &pools(&[("a", 1), ("c", 2), ("d", 3)]), ""));
        w.init();
        w.apply();
        let generation = |name: &str| kube.get(NODE_POOL, name).unwrap_or_default()["metadata"]["generation"].clone();
        let before: Vec<Value> = ["a", "c", "d"].iter().map(|n| generation(n)).collect();

        w.write(
            "main.tf",
            &config(&kube, "s", &pools(&[("a", 1), ("b", 9), ("c", 2), ("d", 3)]), ""),
        );
        assert_eq!(
            w.planned_changes(),
            [r#"pools["b"]"#,],
            "{}: only the new pool",
            tf.label
        );
        let (_, r) = w.plan_code(&[]);
        let out = words(&r.combined());
        assert!(!out.contains("will be deleted"), "{}: {out}", tf.label);
        w.apply();
        assert_eq!(limit(&kube, "b"), 9);

        // Written in another order: the same map.
        w.write(
            "main.tf",
            &config(&kube, "s", &pools(&[("d", 3), ("c", 2), ("b", 9), ("a", 1)]), ""),
        );
        w.assert_empty_plan();
        let after: Vec<Value> = ["a", "c", "d"].iter().map(|n| generation(n)).collect();
        assert_eq!(before, after, "{}: no spec of a, c or d changed", tf.label);
    }
}

/// When the API server fails mid-apply and the rollback cannot delete what it created, each
/// strategy's "Objects left" warning names its strategy and objects in the summary: Terraform
/// folds warnings of equal summary and detail into "(and N more similar warnings)", which would
/// name the node classes of only one strategy.
#[test]
fn objects_left_by_a_failed_apply_are_named_per_strategy() {
    let tf = &terraform_versions()[0];
    let kube = KubeTarget::start();
    if !kube.is_emulator() {
        return eksgpu_acceptance_tests::skip("needs the emulator's fault injection");
    }
    let strategy = |resource: &str, name: &str, pool_name: &str| {
        format!(
            r#"
resource "eksgpu_node_strategy" "{resource}" {{
  cluster_name = "gpu"
  name         = "{name}"
  pools = {{{}
  }}
}}
"#,
            pool(pool_name, 1, "")
        )
    };
    let main_tf = format!(
        "{}{}{}",
        Provider::new().kube(&kube).header(),
        strategy("one", "s1", "a"),
        strategy("two", "s2", "b")
    );
    let w = Workdir::new(tf, &main_tf);
    w.init();
    for object in ["a", "b"] {
        kube.fault(&json!({"method": "PATCH", "path": format!("nodepools/{object}$"), "status": 403, "count": 1}));
        kube.fault(
            &json!({"method": "DELETE", "path": format!("ec2nodeclasses/{object}$"), "status": 403, "count": 1}),
        );
    }
    let r = w.run(&["apply", "-auto-approve", "-no-color"]);
    kube.clear_faults();
    let out = words(&r.combined());
    assert_ne!(r.code, 0, "{out}");
    for (strategy, class) in [("s1", "a"), ("s2", "b")] {
        let summary = format!("Objects left after a failed apply of strategy \"{strategy}\": EC2NodeClass {class}");
        assert!(out.contains(&summary), "{summary:?} missing: {out}");
    }
    assert_eq!(out.matches("Objects left after a failed apply").count(), 2, "{out}");
    // The next apply takes the left objects over and converges; destroy leaves nothing.
    w.apply();
    w.assert_empty_plan();
    w.ok(&["destroy", "-auto-approve", "-no-color"]);
    for name in ["a", "b"] {
        assert!(kube.get(EC2_NODE_CLASS, name).is_none(), "EC2NodeClass {name} left");
    }
}
