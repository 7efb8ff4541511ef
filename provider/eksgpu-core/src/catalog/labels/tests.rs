//! The matcher against the catalog: each well-known label and each operator.

use super::*;
use crate::catalog::instance_type;

fn req<'a>(key: &'a str, operator: &'a str, values: &'a [String]) -> Selector<'a> {
    Selector { key, operator, values }
}

fn v(values: &[&str]) -> Vec<String> {
    values.iter().map(|s| (*s).to_owned()).collect()
}

fn names(rs: &[Selector<'_>]) -> Vec<&'static str> {
    matching(rs).iter().map(|t| t.name).collect()
}

#[test]
fn labels_follow_karpenters_instance_type_scheme() {
    let t = |n| instance_type(n).expect(n);
    let is = |s: &str| LabelValue::Is(s.to_owned());
    assert_eq!(
        label(t("p6-b200.48xlarge"), "karpenter.k8s.aws/instance-category"),
        is("p")
    );
    assert_eq!(
        label(t("p6-b200.48xlarge"), "karpenter.k8s.aws/instance-generation"),
        is("6")
    );
    assert_eq!(
        label(t("p6-b200.48xlarge"), "karpenter.k8s.aws/instance-family"),
        is("p6-b200")
    );
    assert_eq!(label(t("gr6.4xlarge"), "karpenter.k8s.aws/instance-category"), is("gr"));
    assert_eq!(
        label(t("g6e.12xlarge"), "karpenter.k8s.aws/instance-size"),
        is("12xlarge")
    );
    assert_eq!(
        label(t("g6e.12xlarge"), "karpenter.k8s.aws/instance-gpu-name"),
        is("l40s")
    );
    assert_eq!(
        label(t("g7e.2xlarge"), "karpenter.k8s.aws/instance-gpu-name"),
        is("rtx-pro-6000")
    );
    assert_eq!(label(t("g5g.xlarge"), "kubernetes.io/arch"), is("arm64"));
    assert_eq!(label(t("p5.48xlarge"), "karpenter.k8s.aws/instance-gpu-count"), is("8"));
    assert_eq!(
        label(t("trn2.48xlarge"), "karpenter.k8s.aws/instance-gpu-count"),
        LabelValue::Absent
    );
    assert_eq!(
        label(
            t("trn2.48xlarge"),
            "karpenter.k8s.aws/instance-accelerator-manufacturer"
        ),
        is("aws")
    );
    assert_eq!(
        label(t("p5.48xlarge"), "topology.kubernetes.io/zone"),
        LabelValue::Unknown
    );
}

#[test]
fn every_operator_narrows_as_node_selectors_do() {
    let g = v(&["g"]);
    let four = v(&["4"]);
    let six = v(&["6"]);
    let nvidia = v(&["nvidia"]);
    let cat = names(&[req("karpenter.k8s.aws/instance-category", "In", &g)]);
    assert!(
        cat.iter().all(|n| n.starts_with('g') && !n.starts_with("gr")),
        "{cat:?}"
    );
    let not_g = names(&[req("karpenter.k8s.aws/instance-category", "NotIn", &g)]);
    assert!(not_g.contains(&"p5.48xlarge") && not_g.contains(&"trn2.48xlarge") && !not_g.contains(&"g5.xlarge"));
    let gpus = names(&[req("karpenter.k8s.aws/instance-gpu-manufacturer", "Exists", &[])]);
    assert!(gpus.contains(&"g5.xlarge") && !gpus.iter().any(|n| n.starts_with("inf") || n.starts_with("trn")));
    let no_gpus = names(&[req("karpenter.k8s.aws/instance-gpu-count", "DoesNotExist", &[])]);
    assert!(
        no_gpus
            .iter()
            .all(|n| n.starts_with("inf") || n.starts_with("trn") || n.starts_with("g6f") || n.starts_with("gr6f")),
        "{no_gpus:?}"
    );
    let newer = names(&[
        req("karpenter.k8s.aws/instance-gpu-manufacturer", "In", &nvidia),
        req("karpenter.k8s.aws/instance-generation", "Gt", &four),
    ]);
    assert!(!newer.contains(&"g4dn.xlarge") && !newer.contains(&"p3.2xlarge") && newer.contains(&"g5.xlarge"));
    let older = names(&[req("karpenter.k8s.aws/instance-generation", "Lt", &four)]);
    assert!(
        older
            .iter()
            .all(|n| n.starts_with("p3") || n.starts_with("inf") || n.starts_with("trn")),
        "{older:?}"
    );
    let at_least_six = names(&[req("karpenter.k8s.aws/instance-generation", "Gte", &six)]);
    assert!(at_least_six.contains(&"g6.xlarge") && !at_least_six.contains(&"g5.xlarge"));
    let at_most_four = names(&[req("karpenter.k8s.aws/instance-generation", "Lte", &four)]);
    assert!(at_most_four.contains(&"g4dn.xlarge") && !at_most_four.contains(&"g5.xlarge"));
}

#[test]
fn labels_the_catalog_cannot_read_do_not_narrow() {
    let zones = v(&["us-west-2a"]);
    let all = names(&[req("topology.kubernetes.io/zone", "In", &zones)]);
    assert_eq!(all.len(), crate::catalog::instance_types().len());
}

#[test]
fn confinement_needs_a_requirement_only_accelerated_types_meet() {
    let g = v(&["g", "p"]);
    let c = v(&["c", "g"]);
    let zero = v(&["0"]);
    assert!(confines_to_accelerators(req(
        "karpenter.k8s.aws/instance-category",
        "In",
        &g
    )));
    assert!(!confines_to_accelerators(req(
        "karpenter.k8s.aws/instance-category",
        "In",
        &c
    )));
    assert!(confines_to_accelerators(req(
        "karpenter.k8s.aws/instance-gpu-count",
        "Gt",
        &zero
    )));
    assert!(!confines_to_accelerators(req(
        "karpenter.k8s.aws/instance-gpu-count",
        "DoesNotExist",
        &[]
    )));
    assert!(!confines_to_accelerators(req(
        "karpenter.k8s.aws/instance-generation",
        "Gt",
        &zero
    )));
}
