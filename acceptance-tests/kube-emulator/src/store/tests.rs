//! Server-side apply against the real Karpenter CRD, as a real apiextensions-apiserver (Kubernetes libraries 0.36) behaves with it.

use serde_json::json;

use super::*;
use crate::kinds::Registry;

const TF: &str = "terraform-provider-eksgpu";

fn nodepools() -> KindInfo {
    Registry::builtin().find("karpenter.sh", "nodepools").unwrap().clone()
}

fn pool(limit: i64) -> Value {
    json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "gpu", "labels": {"team": "ml"}},
        "spec": {"template": {"spec": {
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
            "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["p5.48xlarge"]}],
            "taints": [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]}},
          "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "5m"},
          "limits": {"nvidia.com/gpu": limit}}})
}

#[test]
fn apply_creates_defaults_and_reapply_is_a_no_op() {
    let mut s = Store::default();
    let k = nodepools();
    let a = s.apply(&k, None, "gpu", &pool(32), TF, false, false).unwrap();
    assert_eq!(a["spec"]["disruption"]["budgets"], json!([{"nodes": "10%"}]));
    assert_eq!(a["spec"]["template"]["spec"]["expireAfter"], "720h");
    let fv1 = &a["metadata"]["managedFields"][0]["fieldsV1"];
    assert!(
        fv1["f:spec"]["f:disruption"].get("f:budgets").is_none(),
        "defaults are owned by nobody"
    );
    assert_eq!(
        fv1["f:spec"]["f:template"]["f:spec"]["f:requirements"],
        json!({}),
        "atomic list"
    );
    let b = s.apply(&k, None, "gpu", &pool(32), TF, false, false).unwrap();
    assert_eq!(a["metadata"]["resourceVersion"], b["metadata"]["resourceVersion"]);
    assert_eq!(a["metadata"]["generation"], 1);
}

#[test]
fn another_managers_edit_conflicts_until_forced() {
    let mut s = Store::default();
    let k = nodepools();
    s.apply(&k, None, "gpu", &pool(32), TF, false, false).unwrap();
    let edited = s
        .update(
            &k,
            None,
            "gpu",
            &json!({"spec": {"limits": {"nvidia.com/gpu": 64}}}),
            "kubectl-edit",
        )
        .unwrap();
    assert_eq!(edited["metadata"]["generation"], 2);
    let err = s.apply(&k, None, "gpu", &pool(32), TF, false, false).unwrap_err();
    assert_eq!(err.code, 409);
    assert!(
        err.message.contains("kubectl-edit") && err.message.contains(".spec.limits.nvidia.com/gpu"),
        "{}",
        err.message
    );
    let forced = s.apply(&k, None, "gpu", &pool(32), TF, true, false).unwrap();
    assert_eq!(forced["spec"]["limits"]["nvidia.com/gpu"], 32);
    // The same value from another manager is shared ownership, not a conflict.
    s.update(
        &k,
        None,
        "gpu",
        &json!({"metadata": {"labels": {"team": "ml"}}}),
        "other",
    )
    .unwrap();
    s.apply(&k, None, "gpu", &pool(32), TF, false, false).unwrap();
}

#[test]
fn omitted_fields_are_removed_unless_someone_else_owns_them() {
    let mut s = Store::default();
    let k = nodepools();
    s.apply(&k, None, "gpu", &pool(32), TF, false, false).unwrap();
    s.update(
        &k,
        None,
        "gpu",
        &json!({"metadata": {"labels": {"extra": "x"}}}),
        "kubectl",
    )
    .unwrap();
    let mut p = pool(32);
    p["spec"].as_object_mut().unwrap().remove("limits");
    p["metadata"]["labels"].as_object_mut().unwrap().remove("team");
    let a = s.apply(&k, None, "gpu", &p, TF, false, false).unwrap();
    assert!(
        a["spec"]
            .get("limits")
            .is_none_or(|l| l.get("nvidia.com/gpu").is_none()),
        "{a}"
    );
    assert!(a["metadata"]["labels"].get("team").is_none());
    assert_eq!(a["metadata"]["labels"]["extra"], "x");
}

#[test]
fn invalid_and_undeclared_fields_are_rejected() {
    let mut s = Store::default();
    let k = nodepools();
    let mut p = pool(32);
    p["spec"]["disruption"]["consolidationPolicy"] = json!("WhenUnderutilized");
    let err = s.apply(&k, None, "gpu", &p, TF, false, false).unwrap_err();
    assert_eq!((err.code, err.reason), (422, "Invalid"));
    assert_eq!(err.details["causes"][0]["field"], "spec.disruption.consolidationPolicy");
    let mut p = pool(32);
    p["spec"]["template"]["spec"]["kubelet"] = json!({"maxPods": 110});
    let err = s.apply(&k, None, "gpu", &p, TF, false, false).unwrap_err();
    assert_eq!(err.code, 500);
    assert!(
        err.message
            .contains(".spec.template.spec.kubelet: field not declared in schema")
    );
    // Plain create prunes instead, with a warning.
    let (created, warnings) = s.create(&k, None, &p, "kubectl").unwrap();
    assert!(created["spec"]["template"]["spec"].get("kubelet").is_none());
    assert_eq!(warnings, ["unknown field \"spec.template.spec.kubelet\""]);
}

#[test]
fn dry_run_stores_nothing() {
    let mut s = Store::default();
    let k = nodepools();
    s.apply(&k, None, "gpu", &pool(32), TF, false, true).unwrap();
    assert!(s.get(&k, None, "gpu").is_none());
}

#[test]
fn list_filters_by_label() {
    let mut s = Store::default();
    let k = nodepools();
    s.apply(&k, None, "gpu", &pool(32), TF, false, false).unwrap();
    assert_eq!(s.list(&k, None, "team=ml").len(), 1);
    assert_eq!(s.list(&k, None, "team=infra").len(), 0);
    assert_eq!(s.list(&k, None, "team").len(), 1);
}
