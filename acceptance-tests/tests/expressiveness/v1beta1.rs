//! Definitions written against Karpenter's `v1beta1` API, held in Terraform `kubectl_manifest`
//! heredocs (`doeks-jark-gpu-v1beta1`): the heredocs of the resources the definition's `SOURCE`
//! names are read out of the `.tf` file, given the interpolation values (normalisation 1), and
//! converted to `v1` the way Karpenter's v1 migration guide says (normalisation "v1beta1 converted").
//!
//! The guide: aws/karpenter-provider-aws v1.14.1 `website/content/en/v1.0/upgrading/v1-migration.md`
//! (https://karpenter.sh/v1.0/upgrading/v1-migration/), "Manifest Migration" (migrate by the
//! changelog, or read back what the conversion webhooks make of a `v1beta1` manifest) and
//! "Changelog". Each step below names the changelog line it follows and, where the changelog
//! leaves a detail open, the conversion webhook that settles it:
//! - NodePool (kubernetes-sigs/karpenter v1.0.9 `pkg/apis/v1/nodepool_conversion.go`, `ConvertFrom`):
//!   `apiVersion: karpenter.sh/v1`; "ExpireAfter has moved from the `NodePool.Spec.Disruption`
//!   block to `NodePool.Spec.Template.Spec`"; "ConsolidationPolicy `WhenUnderutilized` is now
//!   renamed to `WhenEmptyOrUnderutilized`" (its `consolidateAfter` becomes `0s`); "ConsolidateAfter
//!   is required ... Users can set it to 0 to have the same behavior as in v1beta1"; "All
//!   `NodeClassRef` fields are now all required, and apiVersion has been renamed to group" (a
//!   reference by name alone gets the provider's one node class kind, `EC2NodeClass` in
//!   `karpenter.k8s.aws`); "`Kubelet` was moved to the EC2NodeClass from the NodePool" (the
//!   webhook does not move it: the guide has the user move it to the node class the pool refers to,
//!   and asks for separate node classes where pools sharing one differ).
//! - EC2NodeClass (aws/karpenter-provider-aws v1.0.9 `pkg/apis/v1/ec2nodeclass_conversion.go`,
//!   `ConvertFrom`): `apiVersion: karpenter.k8s.aws/v1`; "AMISelectorTerms are required": a
//!   `v1beta1` class with an `amiFamily` of AL2, AL2023, Bottlerocket or Windows and no
//!   `amiSelectorTerms` becomes `amiSelectorTerms: [{alias: <family in lower case>@latest}]` without
//!   `amiFamily`; with terms, both are kept. (Ubuntu, dropped in v1, needs a manual migration and is
//!   refused here.)
//!
//! The `v1` CRD defaults the guide lists (`httpPutResponseHopLimit` 1 and the like) are defaults
//! the API server adds, not fields of the manifest, so nothing is added for them.

use serde_json::{Map, Value, json};

/// The YAML stream of the `yaml_body` heredocs of `resources` (`kubectl_manifest` names) in a
/// Terraform file, each with `values` substituted first (normalisation 1: an interpolation is no
/// YAML until it has its value), converted to `v1`, as JSON documents.
pub fn translate(tf: &str, resources: &[&str], values: &[(&str, &str)]) -> String {
    let docs: Vec<Value> = resources
        .iter()
        .map(|r| {
            let mut body = heredoc(tf, r).unwrap_or_else(|| panic!("no yaml_body heredoc in kubectl_manifest.{r}"));
            for (k, v) in values {
                body = body.replace(k, v);
            }
            assert!(
                !body.contains("${"),
                "kubectl_manifest.{r}: an interpolation without a value:\n{body}"
            );
            serde_saphyr::from_str::<Value>(&body).unwrap_or_else(|e| panic!("kubectl_manifest.{r}: {e}\n{body}"))
        })
        .collect();
    to_v1(docs)
        .iter()
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n---\n")
}

/// The body of `resource "kubectl_manifest" "<name>"`'s `yaml_body = <<-TAG … TAG` heredoc, with
/// the common indentation removed as Terraform's `<<-` does (Terraform language, Strings and
/// Templates, "Indented Heredocs").
fn heredoc(tf: &str, name: &str) -> Option<String> {
    let (_, rest) = tf.split_once(&format!("resource \"kubectl_manifest\" \"{name}\""))?;
    let (_, rest) = rest.split_once("yaml_body")?;
    let (_, rest) = rest.split_once("<<-")?;
    let (tag, rest) = rest.split_once('\n')?;
    let tag = tag.trim();
    let lines: Vec<&str> = rest.lines().take_while(|l| l.trim() != tag).collect();
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    Some(
        lines
            .iter()
            .map(|l| l.get(indent..).unwrap_or("").trim_end())
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// The migration guide's steps (module comment), on every document of one definition.
fn to_v1(mut docs: Vec<Value>) -> Vec<Value> {
    let mut kubelets: Vec<(String, Value)> = Vec::new();
    for d in &mut docs {
        match (d["apiVersion"].as_str(), d["kind"].as_str()) {
            (Some("karpenter.sh/v1beta1"), Some("NodePool")) => {
                if let Some(k) = node_pool(d) {
                    kubelets.push(k);
                }
            }
            (Some("karpenter.k8s.aws/v1beta1"), Some("EC2NodeClass")) => node_class(d),
            _ => {}
        }
    }
    for (class, kubelet) in kubelets {
        let nc = docs
            .iter_mut()
            .find(|d| d["kind"] == "EC2NodeClass" && d["metadata"]["name"] == class.as_str())
            .unwrap_or_else(|| panic!("kubelet of a NodePool whose EC2NodeClass {class} is not in the definition"));
        let spec = obj(&mut nc["spec"]);
        if let Some(other) = spec.get("kubelet") {
            assert_eq!(
                other, &kubelet,
                "NodePools sharing EC2NodeClass {class} with different kubelets: the guide asks for a class each"
            );
        }
        spec.insert("kubelet".into(), kubelet);
    }
    docs
}

fn obj(v: &mut Value) -> &mut Map<String, Value> {
    if !v.is_object() {
        *v = Value::Object(Map::new());
    }
    v.as_object_mut().unwrap_or_else(|| unreachable!())
}

/// A `v1beta1` NodePool as `v1`; the kubelet it drops, with the node class it goes to.
fn node_pool(d: &mut Value) -> Option<(String, Value)> {
    d["apiVersion"] = json!("karpenter.sh/v1");
    let spec = obj(&mut d["spec"]);
    let disruption = obj(spec.entry("disruption").or_insert_with(|| json!({})));
    let expire = disruption.remove("expireAfter");
    if disruption.get("consolidationPolicy") == Some(&json!("WhenUnderutilized")) {
        disruption.insert("consolidationPolicy".into(), json!("WhenEmptyOrUnderutilized"));
        disruption.insert("consolidateAfter".into(), json!("0s"));
    }
    disruption.entry("consolidateAfter").or_insert_with(|| json!("0s"));
    let template = obj(spec.entry("template").or_insert_with(|| json!({})));
    let tspec = obj(template.entry("spec").or_insert_with(|| json!({})));
    if let Some(e) = expire {
        tspec.insert("expireAfter".into(), e);
    }
    let r = tspec.get("nodeClassRef").cloned().unwrap_or_default();
    let group = r["apiVersion"]
        .as_str()
        .map_or("karpenter.k8s.aws", |a| a.split('/').next().unwrap_or_default());
    let name = r["name"].as_str().unwrap_or_default().to_owned();
    tspec.insert(
        "nodeClassRef".into(),
        json!({"group": group, "kind": r["kind"].as_str().unwrap_or("EC2NodeClass"), "name": name}),
    );
    tspec.remove("kubelet").map(|k| (name, k))
}

/// A `v1beta1` EC2NodeClass as `v1`.
fn node_class(d: &mut Value) {
    d["apiVersion"] = json!("karpenter.k8s.aws/v1");
    let spec = obj(&mut d["spec"]);
    let family = spec.get("amiFamily").and_then(Value::as_str).map(str::to_owned);
    let terms = spec
        .get("amiSelectorTerms")
        .and_then(Value::as_array)
        .is_some_and(|t| !t.is_empty());
    match family.as_deref() {
        Some("Ubuntu") => panic!("Ubuntu EC2NodeClasses need the guide's manual migration"),
        Some(f @ ("AL2" | "AL2023" | "Bottlerocket" | "Windows2019" | "Windows2022")) if !terms => {
            spec.remove("amiFamily");
            spec.insert(
                "amiSelectorTerms".into(),
                json!([{"alias": format!("{}@latest", f.to_lowercase())}]),
            );
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The guide's own example ("Manifest Migration"), as the webhooks convert it.
    #[test]
    fn the_guide_s_example_converts_as_the_webhooks_do() {
        let np = json!({"apiVersion": "karpenter.sh/v1beta1", "kind": "NodePool", "metadata": {"name": "default"},
            "spec": {"template": {"spec": {"nodeClassRef": {"apiVersion": "karpenter.k8s.aws/v1beta1", "kind": "EC2NodeClass", "name": "default"}}},
                     "disruption": {"consolidationPolicy": "WhenUnderutilized", "expireAfter": "720h"}}});
        let nc = json!({"apiVersion": "karpenter.k8s.aws/v1beta1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
            "spec": {"amiFamily": "AL2023", "role": "r"}});
        let out = to_v1(vec![np, nc]);
        assert_eq!(out[0]["apiVersion"], "karpenter.sh/v1");
        assert_eq!(
            out[0]["spec"]["disruption"],
            json!({"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s"})
        );
        assert_eq!(out[0]["spec"]["template"]["spec"]["expireAfter"], "720h");
        assert_eq!(
            out[0]["spec"]["template"]["spec"]["nodeClassRef"],
            json!({"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"})
        );
        assert_eq!(
            out[1]["spec"],
            json!({"amiSelectorTerms": [{"alias": "al2023@latest"}], "role": "r"})
        );
    }

    #[test]
    fn a_pool_s_kubelet_moves_to_its_node_class() {
        let np = json!({"apiVersion": "karpenter.sh/v1beta1", "kind": "NodePool", "metadata": {"name": "p"},
            "spec": {"template": {"spec": {"nodeClassRef": {"name": "c"}, "kubelet": {"maxPods": 110}}}}});
        let nc = json!({"apiVersion": "karpenter.k8s.aws/v1beta1", "kind": "EC2NodeClass", "metadata": {"name": "c"},
            "spec": {"amiFamily": "Bottlerocket", "amiSelectorTerms": [{"id": "ami-1"}]}});
        let out = to_v1(vec![np, nc]);
        assert!(out[0]["spec"]["template"]["spec"].get("kubelet").is_none());
        assert_eq!(out[1]["spec"]["kubelet"], json!({"maxPods": 110}));
        // Terms given: the family stays, no alias.
        assert_eq!(out[1]["spec"]["amiFamily"], "Bottlerocket");
        assert_eq!(out[1]["spec"]["amiSelectorTerms"], json!([{"id": "ami-1"}]));
    }

    #[test]
    fn a_heredoc_loses_its_common_indentation() {
        let tf = "resource \"kubectl_manifest\" \"x\" {\n  yaml_body  = <<-YAML\n    a:\n      b: 1\n  YAML\n}\n";
        assert_eq!(heredoc(tf, "x").as_deref(), Some("a:\n  b: 1"));
    }
}
