//! Auto Mode pools select types by `eks.amazonaws.com/instance-*` labels (EKS user guide, Create a
//! Node Pool for EKS Auto Mode, supported labels): those are matched against the catalog, a
//! Karpenter label is refused (EKSGPU313), and the fixes name Auto Mode's labels. Karpenter pools
//! are as before.

use crate::fixture;
use crate::model::{Capacity, Pool, Requirement};
use crate::node_strategy::matching::matched_instance_types;
use crate::node_strategy::rules::*;
use crate::rules::{Code, Violation};

const CTX: Context = Context {
    karpenter_version: (1, 15),
};

fn req(key: &str, operator: &str, values: &[&str]) -> Requirement {
    Requirement {
        key: key.into(),
        operator: operator.into(),
        values: values.iter().map(|v| (*v).to_owned()).collect(),
    }
}

fn pool(capacity: Capacity, r: Requirement) -> Pool {
    let mut p = fixture::valid_pool("gpu", capacity, &[]);
    p.requirements = vec![r];
    p
}

fn violations(p: Pool) -> Vec<Violation> {
    check_node_strategy(&fixture::strategy("s", vec![p]), &CTX)
}

fn of(vs: &[Violation], code: Code) -> Vec<&Violation> {
    vs.iter().filter(|v| v.code == code).collect()
}

const REQUIREMENT_CODES: [Code; 4] = [Code::EKSGPU170, Code::EKSGPU172, Code::EKSGPU173, Code::EKSGPU313];

#[test]
fn auto_mode_instance_family_matches_only_its_family_and_warns_nothing() {
    let p = pool(
        Capacity::AutoMode,
        req("eks.amazonaws.com/instance-family", "In", &["g6e"]),
    );
    let names = matched_instance_types(&p);
    assert!(
        !names.is_empty() && names.iter().all(|n| n.starts_with("g6e.")),
        "{names:?}"
    );
    let vs = violations(p);
    for code in REQUIREMENT_CODES {
        assert!(of(&vs, code).is_empty(), "{code:?}: {vs:?}");
    }
}

#[test]
fn every_auto_mode_label_the_catalog_reads_narrows_the_match() {
    // Each narrows to a strict, non-empty subset of the catalog's whole-GPU types.
    let all = matched_instance_types(&pool(
        Capacity::AutoMode,
        req("eks.amazonaws.com/instance-gpu-manufacturer", "In", &["nvidia"]),
    ));
    for r in [
        req("eks.amazonaws.com/instance-category", "In", &["p"]),
        req("eks.amazonaws.com/instance-generation", "Gt", &["5"]),
        req("eks.amazonaws.com/instance-size", "In", &["48xlarge"]),
        req("eks.amazonaws.com/instance-gpu-count", "Gt", &["4"]),
        req("eks.amazonaws.com/instance-gpu-name", "In", &["l40s"]),
        req("eks.amazonaws.com/instance-cpu", "Lt", &["16"]),
        req("eks.amazonaws.com/instance-memory", "Gt", &["1048576"]),
        req("eks.amazonaws.com/instance-gpu-memory", "Gt", &["100000"]),
    ] {
        let key = r.key.clone();
        let some = matched_instance_types(&pool(Capacity::AutoMode, r));
        assert!(!some.is_empty() && some.len() < all.len(), "{key}: {some:?}");
    }
}

#[test]
fn a_karpenter_label_on_an_auto_mode_pool_is_refused_with_its_twin() {
    let vs = violations(pool(
        Capacity::AutoMode,
        req("karpenter.k8s.aws/instance-family", "In", &["g6e"]),
    ));
    let refused = of(&vs, Code::EKSGPU313);
    assert_eq!(refused.len(), 1, "{vs:?}");
    assert!(
        refused[0].detail.contains("`eks.amazonaws.com/instance-family`"),
        "{}",
        refused[0].detail
    );
    // A Karpenter label Auto Mode has no twin of is refused too.
    let vs = violations(pool(
        Capacity::AutoMode,
        req("karpenter.k8s.aws/instance-accelerator-count", "Gt", &["0"]),
    ));
    assert!(
        of(&vs, Code::EKSGPU313)
            .first()
            .is_some_and(|v| v.detail.contains("no label of that meaning")),
        "{vs:?}"
    );
}

#[test]
fn a_karpenter_label_exclusion_on_an_auto_mode_pool_excludes_nothing_and_warns() {
    // `NotIn` and `DoesNotExist` hold on a node without the label: the NodePool launches, every
    // type stays matched (the Karpenter label is on no Auto Mode node), and EKSGPU312 says so.
    let both = [
        req("eks.amazonaws.com/instance-gpu-manufacturer", "In", &["nvidia"]),
        req("karpenter.k8s.aws/instance-family", "NotIn", &["g6e"]),
    ];
    let mut p = fixture::valid_pool("gpu", Capacity::AutoMode, &[]);
    p.requirements = both[..1].to_vec();
    let without = matched_instance_types(&p);
    p.requirements = both.to_vec();
    let with = matched_instance_types(&p);
    assert!(with.iter().any(|n| n.starts_with("g6e.")), "{with:?}");
    assert_eq!(with, without);
    let vs = violations(pool(
        Capacity::AutoMode,
        req("karpenter.k8s.aws/instance-family", "DoesNotExist", &[]),
    ));
    assert!(of(&vs, Code::EKSGPU313).is_empty(), "{vs:?}");
    let warned = of(&vs, Code::EKSGPU312);
    assert!(
        warned.len() == 1 && warned[0].detail.contains("`eks.amazonaws.com/instance-family`"),
        "{vs:?}"
    );
    // On a Karpenter pool the same exclusion is read from the catalog, with no warning.
    let mut k = fixture::valid_pool("gpu", Capacity::Karpenter, &[]);
    k.requirements = both.to_vec();
    assert!(!matched_instance_types(&k).iter().any(|n| n.starts_with("g6e.")));
    assert!(of(&violations(k), Code::EKSGPU312).is_empty());
}

#[test]
fn auto_mode_fixes_name_auto_mode_labels() {
    // Not confined to accelerated types: EKSGPU173, whose fix is Auto Mode's label.
    let vs = violations(pool(
        Capacity::AutoMode,
        req("eks.amazonaws.com/instance-cpu", "Gt", &["4"]),
    ));
    let warned = of(&vs, Code::EKSGPU173);
    assert_eq!(warned.len(), 1, "{vs:?}");
    assert!(warned[0].detail.contains("eks.amazonaws.com/instance-gpu-manufacturer"));
    assert!(!warned[0].detail.contains("karpenter.k8s.aws"), "{}", warned[0].detail);
    // An operator without its values: EKSGPU170, with Auto Mode's labels in the fix.
    let vs = violations(pool(
        Capacity::AutoMode,
        req("eks.amazonaws.com/instance-family", "In", &[]),
    ));
    let shape = of(&vs, Code::EKSGPU170);
    assert!(!shape.is_empty(), "{vs:?}");
    assert!(
        shape.iter().all(
            |v| v.detail.contains("eks.amazonaws.com/instance-category") && !v.detail.contains("karpenter.k8s.aws")
        )
    );
}

#[test]
fn karpenter_pools_are_unchanged() {
    let vs = violations(pool(
        Capacity::Karpenter,
        req("karpenter.k8s.aws/instance-family", "In", &["g6e"]),
    ));
    for code in REQUIREMENT_CODES {
        assert!(of(&vs, code).is_empty(), "{code:?}: {vs:?}");
    }
    let p = pool(
        Capacity::Karpenter,
        req("karpenter.k8s.aws/instance-family", "In", &["g6e"]),
    );
    assert!(matched_instance_types(&p).iter().all(|n| n.starts_with("g6e.")));
    // Their fixes keep Karpenter's labels; Auto Mode's narrow nothing there (EKSGPU173 warns).
    let vs = violations(pool(
        Capacity::Karpenter,
        req("eks.amazonaws.com/instance-family", "In", &["g6e"]),
    ));
    let warned = of(&vs, Code::EKSGPU173);
    assert!(
        warned.len() == 1 && warned[0].detail.contains("karpenter.k8s.aws/instance-gpu-manufacturer"),
        "{vs:?}"
    );
    assert!(of(&vs, Code::EKSGPU313).is_empty());
}
