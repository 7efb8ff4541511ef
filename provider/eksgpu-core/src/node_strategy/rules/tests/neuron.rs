//! The Neuron and Auto Mode table rules: one test per rule that fires and one that does not.

use crate::fixture;
use crate::node_strategy::rules::*;
use crate::render::{DEPLOY_DEVICE_PLUGIN, DEVICE_PLUGIN_CONFIG, MIG_CONFIG};
use crate::rules::{Code, Severity};

const NONE: [Code; 0] = [];

const CTX: Context = Context {
    karpenter_version: (1, 15),
};

fn strategy(pools: Vec<Pool>) -> NodeStrategy {
    fixture::strategy("gpu", pools)
}

/// Codes, without EKSGPU132 (NVIDIA AMI without the operator) and EKSGPU130 (Karpenter DRA opt-in).
fn codes(pools: Vec<Pool>) -> Vec<Code> {
    check_node_strategy(&strategy(pools), &CTX)
        .into_iter()
        .map(|v| v.code)
        .filter(|c| *c != Code::EKSGPU132 && *c != Code::EKSGPU130)
        .collect()
}

fn pool(name: &str, capacity: Capacity, types: &[&str]) -> Pool {
    fixture::valid_pool(name, capacity, types)
}

#[test]
fn neuron_pools_are_clean_on_every_ec2_kind() {
    for c in [Capacity::Karpenter, Capacity::AutoMode, Capacity::ManagedNodeGroup] {
        assert_eq!(
            codes(vec![pool("n", c, &["trn2.48xlarge", "trn1.32xlarge"])]),
            NONE,
            "{c:?}"
        );
        assert_eq!(codes(vec![pool("n", c, &["inf2.48xlarge"])]), NONE, "{c:?}");
    }
    // The Neuron AMI type is the one that fits; an NVIDIA one does not.
    let mut mng = pool("n", Capacity::ManagedNodeGroup, &["inf2.xlarge"]);
    mng.managed_node_group.as_mut().unwrap().ami_type = Some("AL2023_x86_64_NEURON".into());
    assert_eq!(codes(vec![mng.clone()]), NONE);
    // Bottlerocket's aws-k8s variant carries the Neuron driver too (AL2: the test below).
    mng.managed_node_group.as_mut().unwrap().ami_type = Some("BOTTLEROCKET_x86_64".into());
    assert_eq!(codes(vec![mng.clone()]), NONE);
    mng.managed_node_group.as_mut().unwrap().ami_type = Some("AL2023_x86_64_NVIDIA".into());
    assert_eq!(codes(vec![mng.clone()]), [Code::EKSGPU013]);
    mng.managed_node_group.as_mut().unwrap().ami_type = Some("BOTTLEROCKET_x86_64_NVIDIA".into());
    assert_eq!(codes(vec![mng]), [Code::EKSGPU013]);
    let mut gpu = pool("g", Capacity::ManagedNodeGroup, &["g6e.xlarge"]);
    gpu.managed_node_group.as_mut().unwrap().ami_type = Some("AL2023_x86_64_NEURON".into());
    assert_eq!(codes(vec![gpu]), [Code::EKSGPU013]);
}

#[test]
fn eksgpu150_one_vendor_per_pool_names_both_types() {
    let v = check_node_strategy(
        &strategy(vec![pool("m", Capacity::Karpenter, &["p5.48xlarge", "trn2.48xlarge"])]),
        &CTX,
    );
    let mixed: Vec<_> = v.iter().filter(|v| v.code == Code::EKSGPU150).collect();
    assert_eq!(mixed.len(), 1);
    assert!(mixed[0].detail.contains("p5.48xlarge") && mixed[0].detail.contains("trn2.48xlarge"));
    assert_eq!(mixed[0].path.last(), Some(&crate::rules::Step::Index(1)));
}

#[test]
fn eksgpu151_neuron_is_refused_on_hybrid() {
    let h = pool("h", Capacity::Hybrid, &["trn2.48xlarge"]);
    let c = codes(vec![h]);
    assert!(c.contains(&Code::EKSGPU151), "{c:?}");
    // An NVIDIA hybrid pool without types is what Hybrid Nodes take.
    assert!(!codes(vec![pool("h", Capacity::Hybrid, &[])]).contains(&Code::EKSGPU151));
}

#[test]
fn eksgpu152_nvidia_stack_labels_on_neuron_pools() {
    for (k, v) in [
        (MIG_CONFIG, "all-1g.10gb"),
        (DEVICE_PLUGIN_CONFIG, "slice-4"),
        (DEPLOY_DEVICE_PLUGIN, "false"),
        ("nvidia.com/gpu.deploy.operands", "false"),
        ("gpu", "on"),
    ] {
        let mut p = pool("n", Capacity::Karpenter, &["trn1.32xlarge"]);
        p.labels.insert(k.into(), v.into());
        assert_eq!(codes(vec![p]), [Code::EKSGPU152], "{k}");
    }
    let mut p = pool("n", Capacity::Karpenter, &["trn1.32xlarge"]);
    p.labels.insert("team.example.com/owner".into(), "ml".into());
    assert_eq!(codes(vec![p]), NONE);
}

#[test]
fn eksgpu153_device_plugin_and_dra_neuron_pools_in_one_strategy() {
    let plugin = pool("plugin", Capacity::ManagedNodeGroup, &["trn2.48xlarge"]);
    let dra = Pool {
        dra: true,
        ..pool("claims", Capacity::ManagedNodeGroup, &["trn2.48xlarge"])
    };
    let v = check_node_strategy(&strategy(vec![plugin.clone(), dra.clone()]), &CTX);
    let both: Vec<_> = v.iter().filter(|v| v.code == Code::EKSGPU153).collect();
    assert_eq!(both.len(), 1);
    assert!(both[0].detail.contains("\"plugin\"") && both[0].detail.contains("\"claims\""));
    // Auto Mode Neuron pools run Auto Mode's plugin, not the chart's: no conflict.
    let auto = pool("auto", Capacity::AutoMode, &["trn2.48xlarge"]);
    let static_dra = Pool {
        dra: true,
        ..pool("claims", Capacity::Karpenter, &["trn2.48xlarge"])
    };
    assert_eq!(codes(vec![auto, static_dra]), NONE);
    assert_eq!(codes(vec![dra]), NONE);
}

#[test]
fn eksgpu004_neuron_dra_only_on_trainium_and_not_on_auto_mode() {
    let auto = Pool {
        dra: true,
        ..pool("a", Capacity::AutoMode, &["trn2.48xlarge"])
    };
    let mut s = strategy(vec![auto]);
    s.kubernetes_version = Some("1.36".into());
    let c: Vec<_> = check_node_strategy(&s, &CTX).into_iter().map(|v| v.code).collect();
    assert_eq!(c, [Code::EKSGPU004]);
    let inf = Pool {
        dra: true,
        ..pool("i", Capacity::ManagedNodeGroup, &["inf2.48xlarge"])
    };
    assert_eq!(codes(vec![inf]), [Code::EKSGPU004]);
    let mut old = strategy(vec![Pool {
        dra: true,
        ..pool("t", Capacity::ManagedNodeGroup, &["trn2.48xlarge"])
    }]);
    old.kubernetes_version = Some("1.33".into());
    let c: Vec<_> = check_node_strategy(&old, &CTX).into_iter().map(|v| v.code).collect();
    assert_eq!(c, [Code::EKSGPU004]);
}

#[test]
fn eksgpu154_auto_mode_refuses_families_the_table_does_not_list() {
    let v = check_node_strategy(
        &strategy(vec![pool("a", Capacity::AutoMode, &["g6f.xlarge", "g6e.xlarge"])]),
        &CTX,
    );
    let refused: Vec<_> = v.iter().filter(|v| v.code == Code::EKSGPU154).collect();
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0].severity, Severity::Error);
    assert!(refused[0].detail.contains("g6f.xlarge") && refused[0].detail.contains("karpenter"));
    let gb = check_node_strategy(
        &strategy(vec![pool("a", Capacity::AutoMode, &["p6e-gb200.36xlarge"])]),
        &CTX,
    );
    let gb = gb
        .iter()
        .find(|v| v.code == Code::EKSGPU154)
        .expect("p6e-gb200 refused");
    assert!(
        gb.detail.contains("managed or self-managed node groups"),
        "{}",
        gb.detail
    );
    // Documented families, NVIDIA and Neuron, pass; the same type on Karpenter passes.
    for t in [
        "p5e.48xlarge",
        "p6-b300.48xlarge",
        "g6e.xlarge",
        "trn1n.32xlarge",
        "inf1.24xlarge",
    ] {
        assert!(
            !codes(vec![pool("a", Capacity::AutoMode, &[t])]).contains(&Code::EKSGPU154),
            "{t}"
        );
    }
    assert!(!codes(vec![pool("k", Capacity::Karpenter, &["p6e-gb200.36xlarge"])]).contains(&Code::EKSGPU154));
}

#[test]
fn eksgpu009_is_a_dated_warning() {
    let v = check_node_strategy(
        &strategy(vec![pool("a", Capacity::AutoMode, &["p6-b200.48xlarge"])]),
        &CTX,
    );
    let w = v.iter().find(|v| v.code == Code::EKSGPU009).expect("observed failure");
    assert_eq!(w.severity, Severity::Warning);
    assert!(w.detail.contains("2026-04") && w.detail.contains(crate::catalog::AUTO_MODE_TABLE_READ));
    assert!(!codes(vec![pool("a", Capacity::AutoMode, &["p5.48xlarge"])]).contains(&Code::EKSGPU009));
}

#[test]
fn eksgpu155_auto_mode_node_lifetime() {
    for (expire, warns) in [("Never", true), ("505h", true), ("504h", false), ("336h", false)] {
        let p = Pool {
            expire_after: Some(expire.into()),
            ..pool("a", Capacity::AutoMode, &["trn2.48xlarge"])
        };
        let v = check_node_strategy(&strategy(vec![p]), &CTX);
        let found = v.iter().find(|v| v.code == Code::EKSGPU155);
        assert_eq!(found.is_some(), warns, "{expire}");
        if let Some(f) = found {
            assert_eq!(f.severity, Severity::Warning);
        }
    }
    let k = Pool {
        expire_after: Some("Never".into()),
        ..pool("k", Capacity::Karpenter, &["trn2.48xlarge"])
    };
    assert_eq!(codes(vec![k]), NONE);
}

#[test]
fn eksgpu013_al2_serves_neuron_pools_only_through_kubernetes_1_32() {
    let mut mng = pool("n", Capacity::ManagedNodeGroup, &["inf2.xlarge"]);
    mng.managed_node_group.as_mut().unwrap().ami_type = Some("AL2_x86_64_GPU".into());
    let mut s = strategy(vec![mng]);
    s.kubernetes_version = Some("1.32".into());
    assert!(check_node_strategy(&s, &CTX).iter().all(|v| v.code != Code::EKSGPU013));
    s.kubernetes_version = Some("1.33".into());
    let v = check_node_strategy(&s, &CTX);
    let al2: Vec<_> = v.iter().filter(|v| v.code == Code::EKSGPU013).collect();
    assert_eq!(al2.len(), 1, "{v:?}");
    assert!(al2[0].detail.contains("1.32 was the last"), "{}", al2[0].detail);
}
