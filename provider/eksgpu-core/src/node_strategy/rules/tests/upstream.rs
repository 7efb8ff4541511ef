//! The rules on requirements and the upstream node-class inputs: one test that fires and one
//! that does not per rule, and the older rules run on requirement-matched types.

use crate::fixture;
use crate::model::{BlockDeviceMapping, Kubelet, NetworkInterface, NodeClass, Requirement};
use crate::node_strategy::rules::*;
use crate::render::MIG_CONFIG;
use crate::rules::Code;

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

fn nvidia() -> Requirement {
    req("karpenter.k8s.aws/instance-gpu-manufacturer", "In", &["nvidia"])
}

fn karpenter(requirements: Vec<Requirement>) -> Pool {
    Pool {
        requirements,
        ..fixture::valid_pool("gpu", Capacity::Karpenter, &[])
    }
}

fn codes(pool: Pool) -> Vec<Code> {
    let s = NodeStrategy {
        cluster_name: "c".into(),
        name: "s".into(),
        kubernetes_version: None,
        device_plugin: None,
        gpu_operator: Some(crate::model::GpuOperator {
            mig_strategy: "single".into(),
            dcgm_exporter: false,
            service_monitor: false,
        }),
        pools: vec![pool],
        default_tags: Default::default(),
        karpenter_gates: Default::default(),
    };
    check_node_strategy(&s, &CTX)
        .into_iter()
        .map(|v| v.code)
        .filter(|c| *c != Code::EKSGPU130)
        .collect()
}

#[test]
fn requirements_that_select_gpus_need_no_instance_types() {
    let p = karpenter(vec![
        req("karpenter.k8s.aws/instance-category", "In", &["g", "p"]),
        req("karpenter.k8s.aws/instance-generation", "Gt", &["4"]),
        nvidia(),
    ]);
    assert_eq!(codes(p), Vec::<Code>::new());
}

#[test]
fn every_operator_with_the_values_it_takes_is_clean() {
    let p = karpenter(vec![
        nvidia(),
        req("karpenter.k8s.aws/instance-family", "NotIn", &["g4dn"]),
        req("karpenter.k8s.aws/instance-gpu-count", "Exists", &[]),
        req("karpenter.k8s.aws/instance-accelerator-count", "DoesNotExist", &[]),
        req("karpenter.k8s.aws/instance-gpu-memory", "Gt", &["20000"]),
        req("karpenter.k8s.aws/instance-gpu-count", "Lt", &["9"]),
    ]);
    assert_eq!(codes(p), Vec::<Code>::new());
}

#[test]
fn restricted_keys_and_misfit_values_are_refused() {
    for r in [
        req("karpenter.sh/nodepool", "In", &["x"]),
        req("kubernetes.io/hostname", "Exists", &[]),
        req("karpenter.k8s.aws/instance-made-up", "Exists", &[]),
        req("karpenter.k8s.aws/instance-gpu-count", "Gt", &["one"]),
        req("karpenter.k8s.aws/instance-gpu-count", "Lt", &["1", "2"]),
        req("karpenter.k8s.aws/instance-gpu-count", "Exists", &["1"]),
        req("karpenter.k8s.aws/instance-family", "In", &[]),
    ] {
        let c = codes(karpenter(vec![nvidia(), r.clone()]));
        assert!(c.contains(&Code::EKSGPU170), "{r:?}: {c:?}");
    }
}

#[test]
fn labels_the_pool_renders_itself_are_refused_as_requirements() {
    for r in [
        req("karpenter.sh/capacity-type", "In", &["spot"]),
        req("node.kubernetes.io/instance-type", "In", &["p5.48xlarge"]),
        req("topology.kubernetes.io/zone", "In", &["us-west-2a"]),
    ] {
        assert!(codes(karpenter(vec![nvidia(), r])).contains(&Code::EKSGPU171));
    }
    assert!(
        !codes(karpenter(vec![
            nvidia(),
            req("topology.kubernetes.io/zone", "NotIn", &["a"])
        ]))
        .contains(&Code::EKSGPU171)
    );
}

#[test]
fn requirements_that_match_nothing_are_refused_naming_the_requirement() {
    let p = karpenter(vec![
        req("karpenter.k8s.aws/instance-category", "In", &["p"]),
        req("karpenter.k8s.aws/instance-gpu-name", "In", &["l40s"]),
    ]);
    let s = NodeStrategy {
        cluster_name: "c".into(),
        name: "s".into(),
        kubernetes_version: None,
        gpu_operator: None,
        device_plugin: None,
        pools: vec![p],
        default_tags: Default::default(),
        karpenter_gates: Default::default(),
    };
    let v: Vec<_> = check_node_strategy(&s, &CTX)
        .into_iter()
        .filter(|v| v.code == Code::EKSGPU172)
        .collect();
    assert_eq!(v.len(), 1);
    assert_eq!(
        v[0].path,
        [
            Step::Attr("pools"),
            Step::Key("gpu".into()),
            Step::Attr("requirements"),
            Step::Index(1)
        ]
    );
    // Only Neuron types left: a Neuron pool chosen by its requirements, which match its devices.
    let neuron = karpenter(vec![req("karpenter.k8s.aws/instance-family", "In", &["trn2"])]);
    assert_eq!(neuron.vendor(), crate::catalog::Vendor::Neuron);
    assert!(!codes(neuron).contains(&Code::EKSGPU172));
}

#[test]
fn auto_mode_documented_families_bound_its_pools() {
    let undocumented = Pool {
        requirements: vec![req("eks.amazonaws.com/instance-family", "In", &["g7"])],
        ..fixture::pool("a", Capacity::AutoMode, &[])
    };
    assert!(codes(undocumented).contains(&Code::EKSGPU172));
    let documented = Pool {
        requirements: vec![req("eks.amazonaws.com/instance-family", "In", &["g6e", "g7"])],
        ..fixture::pool("a", Capacity::AutoMode, &[])
    };
    assert!(!codes(documented).contains(&Code::EKSGPU172));
}

#[test]
fn requirements_that_do_not_confine_to_gpus_warn() {
    let p = karpenter(vec![req("karpenter.k8s.aws/instance-generation", "Gt", &["4"])]);
    assert!(codes(p).contains(&Code::EKSGPU173));
}

#[test]
fn a_mig_label_with_requirements_matching_l40s_is_refused() {
    let mut p = karpenter(vec![req("karpenter.k8s.aws/instance-family", "In", &["p5", "g6e"])]);
    p.labels.insert(MIG_CONFIG.into(), "all-1g.10gb".into());
    assert!(codes(p.clone()).contains(&Code::EKSGPU002));
    p.requirements = vec![req("karpenter.k8s.aws/instance-family", "In", &["p5"])];
    assert!(!codes(p).contains(&Code::EKSGPU002));
}

#[test]
fn efa_runs_on_the_matched_types() {
    let mut p = karpenter(vec![req("karpenter.k8s.aws/instance-family", "In", &["p5", "g5"])]);
    p.efa = true;
    p.zones = vec!["us-west-2a".into()];
    assert!(codes(p.clone()).contains(&Code::EKSGPU126));
    p.requirements = vec![req("karpenter.k8s.aws/instance-family", "In", &["p5"])];
    assert!(!codes(p).contains(&Code::EKSGPU126));
}

fn with_class(f: impl FnOnce(&mut NodeClass)) -> Pool {
    let mut p = fixture::valid_pool("gpu", Capacity::Karpenter, &["p5.48xlarge"]);
    if let Some(nc) = p.node_class.as_mut() {
        f(nc);
    }
    p
}

#[test]
fn exactly_one_of_role_and_instance_profile() {
    assert!(codes(with_class(|nc| nc.instance_profile = Some("Profile".into()))).contains(&Code::EKSGPU104));
    assert_eq!(
        codes(with_class(|nc| {
            nc.role = None;
            nc.instance_profile = Some("Profile".into());
        })),
        Vec::<Code>::new()
    );
}

#[test]
fn user_data_that_sets_the_kubelet_settings_rendered_too_is_refused() {
    let kubelet = Some(Kubelet {
        max_pods: Some(110),
        ..Kubelet::default()
    });
    let both = with_class(|nc| {
        nc.kubelet = kubelet.clone();
        nc.user_data = Some("[settings.kubernetes]\nmax-pods = 50\n".into());
    });
    assert!(codes(both).contains(&Code::EKSGPU174));
    let apart = with_class(|nc| {
        nc.kubelet = kubelet.clone();
        nc.user_data = Some("[settings.kernel]\nlockdown = \"integrity\"\n".into());
    });
    assert!(!codes(apart).contains(&Code::EKSGPU174));
}

#[test]
fn user_data_that_only_mentions_a_kubelet_setting_sets_nothing() {
    let kubelet = Some(Kubelet {
        max_pods: Some(110),
        ..Kubelet::default()
    });
    let with = |ud: &str| {
        let (ud, k) = (ud.to_owned(), kubelet.clone());
        with_class(move |nc| {
            nc.kubelet = k;
            nc.user_data = Some(ud);
        })
    };
    for mentions in [
        "#!/bin/bash\n# maxPods is set by the EC2NodeClass, not here\necho ready\n",
        "#!/bin/bash\n# do not pass --max-pods here\n",
        "#!/bin/bash\necho \"maxPods comes from Karpenter\"\n",
    ] {
        assert!(!codes(with(mentions)).contains(&Code::EKSGPU174), "{mentions}");
    }
    for sets in [
        "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      maxPods: 50\n",
        "#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args '--max-pods=50'\n",
        "#!/bin/bash\n/etc/eks/bootstrap.sh c --kubelet-extra-args '--max-pods 50'\n",
        "settings.kubernetes.max-pods = 50\n",
    ] {
        assert!(codes(with(sets)).contains(&Code::EKSGPU174), "{sets}");
    }
}

#[test]
fn block_device_mappings_need_a_size_their_own_device_and_not_the_root_volumes() {
    let bdm = |d: &str, size: Option<&str>| BlockDeviceMapping {
        device_name: d.into(),
        volume_size: size.map(str::to_owned),
        ..BlockDeviceMapping::default()
    };
    for mappings in [
        vec![bdm("/dev/xvdc", None)],
        vec![bdm("/dev/xvdc", Some("10Gi")), bdm("/dev/xvdc", Some("10Gi"))],
        vec![bdm("/dev/xvda", Some("10Gi"))],
    ] {
        assert!(codes(with_class(|nc| nc.block_device_mappings = mappings)).contains(&Code::EKSGPU175));
    }
    // Bottlerocket: the OS volume beside the root (data) volume.
    let os = with_class(|nc| {
        nc.ami_alias = Some("bottlerocket@latest".into());
        nc.block_device_mappings = vec![bdm("/dev/xvda", Some("10Gi"))];
    });
    assert!(!codes(os).contains(&Code::EKSGPU175));
}

#[test]
fn network_interfaces_follow_the_crd_and_the_types_efa_count() {
    let ni = |c, d, t: &str| NetworkInterface {
        network_card_index: c,
        device_index: d,
        interface_type: t.into(),
        ..NetworkInterface::default()
    };
    let no_primary = with_class(|nc| nc.network_interfaces = vec![ni(1, 0, "efa-only")]);
    assert!(codes(no_primary).contains(&Code::EKSGPU176));
    let twice = with_class(|nc| {
        nc.network_interfaces = vec![ni(0, 0, "interface"), ni(1, 0, "efa-only"), ni(1, 1, "efa-only")]
    });
    assert!(codes(twice).contains(&Code::EKSGPU176));
    let good: Vec<_> = std::iter::once(ni(0, 0, "interface"))
        .chain((1..4).map(|c| ni(c, 0, "efa-only")))
        .collect();
    assert_eq!(
        codes(with_class(|nc| nc.network_interfaces = good.clone())),
        Vec::<Code>::new()
    );
    let mut g5 = with_class(|nc| nc.network_interfaces = good);
    g5.instance_types = vec!["g5.xlarge".into()];
    assert!(codes(g5).contains(&Code::EKSGPU126));
}

#[test]
fn a_neuron_pool_narrowed_by_requirements_matches_its_neuron_types() {
    let p = Pool {
        requirements: vec![req("karpenter.k8s.aws/instance-family", "NotIn", &["trn1"])],
        ..fixture::valid_pool("neuron", Capacity::Karpenter, &["trn1.32xlarge", "trn2.48xlarge"])
    };
    assert_eq!(
        crate::node_strategy::matching::matched_instance_types(&p),
        ["trn2.48xlarge"]
    );
    assert_eq!(codes(p), Vec::<Code>::new());
}

#[test]
fn the_vendor_rule_still_runs_with_requirements() {
    let p = Pool {
        requirements: vec![req("karpenter.k8s.aws/instance-generation", "Gt", &["0"])],
        ..fixture::valid_pool("mixed", Capacity::Karpenter, &["trn2.48xlarge", "p5.48xlarge"])
    };
    let c = codes(p);
    assert!(c.contains(&Code::EKSGPU150), "{c:?}");
    // The NVIDIA type is another vendor's: it is not matched, so nothing else is said of it.
    assert!(!c.contains(&Code::EKSGPU172), "{c:?}");
}
