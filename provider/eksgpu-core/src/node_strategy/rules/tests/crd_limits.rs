//! The CRDs' counts and lengths (validate::crd_limits): one case at each limit that passes and
//! one past it that fails, counting what the provider renders with the pool's own.

use crate::fixture;
use crate::model::Requirement;
use crate::node_strategy::rules::*;
use crate::render::selection::node_pool_requirements;
use crate::rules::Code;

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

fn strategy(pool: Pool) -> NodeStrategy {
    NodeStrategy {
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
    }
}

pub(super) fn codes_on(pool: Pool, karpenter: (u32, u32)) -> Vec<Code> {
    let ctx = Context {
        karpenter_version: karpenter,
    };
    check_node_strategy(&strategy(pool), &ctx)
        .into_iter()
        .map(|v| v.code)
        .collect()
}

pub(super) fn codes(pool: Pool) -> Vec<Code> {
    codes_on(pool, (1, 15))
}

fn karpenter(requirements: Vec<Requirement>) -> Pool {
    Pool {
        requirements,
        ..fixture::valid_pool("gpu", Capacity::Karpenter, &["g6e.xlarge"])
    }
}

/// A pool whose NodePool renders exactly `n` requirements.
fn rendering(mut pool: Pool, n: usize) -> Pool {
    pool.requirements = vec![nvidia()];
    let provider = node_pool_requirements(&pool).len() - 1;
    pool.requirements.extend(
        (pool.requirements.len() + provider..n)
            .map(|i| req("karpenter.k8s.aws/instance-family", "NotIn", &[&format!("x{i}")])),
    );
    assert_eq!(node_pool_requirements(&pool).len(), n);
    pool
}

#[test]
fn requirements_are_counted_with_those_the_provider_renders() {
    let max = crate::validate::NODE_POOL_REQUIREMENTS_MAX;
    let pool = karpenter(vec![]);
    assert!(!codes(rendering(pool.clone(), max)).contains(&Code::EKSGPU141));
    assert!(codes(rendering(pool, max + 1)).contains(&Code::EKSGPU141));
}

#[test]
fn an_auto_mode_neuron_pool_at_100_requirements_of_its_own_is_over_the_limit() {
    // The case: the provider adds its own to an Auto Mode Neuron pool's requirements.
    let mut pool = fixture::valid_pool("neuron", Capacity::AutoMode, &["trn2.48xlarge"]);
    pool.requirements = (0..crate::validate::NODE_POOL_REQUIREMENTS_MAX)
        .map(|i| req("karpenter.k8s.aws/instance-family", "NotIn", &[&format!("x{i}")]))
        .collect();
    assert!(node_pool_requirements(&pool).len() > crate::validate::NODE_POOL_REQUIREMENTS_MAX);
    assert!(codes(pool).contains(&Code::EKSGPU141));
}

#[test]
fn requirement_keys_are_at_most_the_crds_316_characters() {
    let key = |len: usize| format!("{}/{}", "a".repeat(len - 1 - 63), "b".repeat(63));
    let at = key(crate::validate::REQUIREMENT_KEY_MAX_LEN);
    let over = key(crate::validate::REQUIREMENT_KEY_MAX_LEN + 1);
    // 317 characters is still a valid Kubernetes label key (a 253-character prefix).
    assert!(crate::validate::label_key(&over).is_ok());
    assert!(!codes(karpenter(vec![nvidia(), req(&at, "Exists", &[])])).contains(&Code::EKSGPU170));
    assert!(codes(karpenter(vec![nvidia(), req(&over, "Exists", &[])])).contains(&Code::EKSGPU170));
}

#[test]
fn gt_and_lt_values_must_fit_an_int64() {
    let gpu_memory = |v: &str| karpenter(vec![nvidia(), req("karpenter.k8s.aws/instance-gpu-memory", "Gt", &[v])]);
    assert!(!codes(gpu_memory("9223372036854775807")).contains(&Code::EKSGPU170));
    assert!(codes(gpu_memory("9223372036854775808")).contains(&Code::EKSGPU170));
    assert!(codes(gpu_memory("-1")).contains(&Code::EKSGPU170));
}

#[test]
fn gte_and_lte_need_karpenter_1_9() {
    for op in ["Gte", "Lte"] {
        let pool = karpenter(vec![nvidia(), req("karpenter.k8s.aws/instance-gpu-count", op, &["1"])]);
        assert!(!codes_on(pool.clone(), (1, 9)).contains(&Code::EKSGPU170), "{op}");
        assert!(codes_on(pool, (1, 8)).contains(&Code::EKSGPU170), "{op}");
    }
}

fn with_class(f: impl FnOnce(&mut crate::model::NodeClass)) -> Pool {
    let mut pool = karpenter(vec![]);
    if let Some(nc) = pool.node_class.as_mut() {
        f(nc);
    }
    pool
}

#[test]
fn subnet_and_security_group_terms_are_counted_as_rendered() {
    let max = crate::validate::SELECTOR_TERMS_MAX;
    let ids = |prefix: &str, n: usize| (0..n).map(|i| format!("{prefix}-{i:017x}")).collect::<Vec<_>>();
    // IDs alone: one term each.
    let at = with_class(|nc| nc.subnet_selector_ids = ids("subnet", max));
    assert!(!codes(at).contains(&Code::EKSGPU142));
    let over = with_class(|nc| nc.subnet_selector_ids = ids("subnet", max + 1));
    assert!(codes(over).contains(&Code::EKSGPU142));
    // Tags and IDs: the tags term counts too.
    let tagged = with_class(|nc| {
        nc.security_group_selector_ids = ids("sg", max);
        nc.security_group_selector_tags.insert("team".into(), "ml".into());
    });
    assert!(codes(tagged).contains(&Code::EKSGPU142));
    let tagged_at = with_class(|nc| {
        nc.security_group_selector_ids = ids("sg", max - 1);
        nc.security_group_selector_tags.insert("team".into(), "ml".into());
    });
    assert!(!codes(tagged_at).contains(&Code::EKSGPU142));
}

#[test]
fn block_device_mappings_are_counted_with_the_root_volumes() {
    let max = crate::validate::BLOCK_DEVICE_MAPPINGS_MAX;
    // Device names EC2 takes on HVM instances: /dev/xvd[a-d][a-z] (validate::ebs_device_name).
    let names: Vec<String> = ('a'..='d')
        .flat_map(|a| ('a'..='z').map(move |b| format!("/dev/xvd{a}{b}")))
        .collect();
    let mappings = |n: usize| {
        names[..n]
            .iter()
            .map(|d| crate::model::BlockDeviceMapping {
                device_name: d.clone(),
                volume_size: Some("10Gi".into()),
                ..Default::default()
            })
            .collect::<Vec<_>>()
    };
    // The fixture's root_volume renders one mapping on AL2023.
    let at = with_class(|nc| nc.block_device_mappings = mappings(max - 1));
    assert!(!codes(at).contains(&Code::EKSGPU142));
    let over = with_class(|nc| nc.block_device_mappings = mappings(max));
    assert!(codes(over).contains(&Code::EKSGPU142));
}

type Edit = fn(&mut crate::model::BlockDeviceMapping);

/// A Karpenter pool with one block device mapping, and a node group with one.
fn mapping_codes(f: impl Fn(&mut crate::model::BlockDeviceMapping)) -> (Vec<Code>, Vec<Code>) {
    let mut m = crate::model::BlockDeviceMapping {
        device_name: "/dev/xvdc".into(),
        volume_size: Some("200Gi".into()),
        ..Default::default()
    };
    f(&mut m);
    let karpenter_pool = with_class(|nc| nc.block_device_mappings = vec![m.clone()]);
    let mut mng = fixture::valid_pool("gpu", Capacity::ManagedNodeGroup, &["g6e.xlarge"]);
    if let Some(g) = mng.managed_node_group.as_mut() {
        g.block_device_mappings = vec![crate::model::NodeGroupVolume {
            device_name: m.device_name.clone(),
            volume_size: Some(200),
            volume_type: m.volume_type.clone(),
            iops: m.iops,
            throughput: m.throughput,
            encrypted: m.encrypted,
            delete_on_termination: None,
            snapshot_id: None,
            kms_key_id: m.kms_key_id.clone(),
        }];
        // The root device stays sized by disk_size; the mapping is a second volume.
    }
    (codes(karpenter_pool), codes(mng))
}

#[test]
fn block_device_mappings_get_the_root_volumes_ebs_rules() {
    let (k, g) = mapping_codes(|_| {});
    assert!(!k.contains(&Code::EKSGPU133), "{k:?}");
    assert!(!g.contains(&Code::EKSGPU133), "{g:?}");
    let fine = |m: &mut crate::model::BlockDeviceMapping| {
        m.volume_type = Some("gp3".into());
        m.iops = Some(3000);
        m.throughput = Some(750);
        m.encrypted = Some(true);
        m.kms_key_id = Some("arn:aws:kms:us-west-2:123456789012:key/abc".into());
    };
    let (k, g) = mapping_codes(fine);
    assert!(
        !k.contains(&Code::EKSGPU133) && !g.contains(&Code::EKSGPU133),
        "{k:?} {g:?}"
    );
    let refused: [(&str, Edit); 8] = [
        ("an NVMe device name", |m| m.device_name = "/dev/nvme1n1".into()),
        ("gp2 with IOPS", |m| {
            m.volume_type = Some("gp2".into());
            m.iops = Some(3000);
        }),
        ("io1 without IOPS", |m| m.volume_type = Some("io1".into())),
        ("gp3 below 3000 IOPS", |m| {
            m.volume_type = Some("gp3".into());
            m.iops = Some(2000);
        }),
        ("st1 below 125 GiB", |m| {
            m.volume_type = Some("st1".into());
            m.volume_size = Some("100Gi".into());
        }),
        ("throughput on io2", |m| {
            m.volume_type = Some("io2".into());
            m.iops = Some(3000);
            m.throughput = Some(200);
        }),
        ("throughput over 0.25 MiB/s per IOPS", |m| {
            m.volume_type = Some("gp3".into());
            m.iops = Some(3000);
            m.throughput = Some(751);
        }),
        ("a KMS key on an unencrypted volume", |m| {
            m.encrypted = Some(false);
            m.kms_key_id = Some("arn:aws:kms:us-west-2:123456789012:key/abc".into());
        }),
    ];
    for (why, f) in refused {
        let (k, g) = mapping_codes(f);
        assert!(k.contains(&Code::EKSGPU133), "karpenter, {why}: {k:?}");
        // st1's size is the EC2NodeClass's string; the node group's size is 200 GiB in every case.
        if why != "st1 below 125 GiB" {
            assert!(g.contains(&Code::EKSGPU133), "node group, {why}: {g:?}");
        }
    }
    // gp3 at most 500 IOPS per GiB: 16000 IOPS need 32 GiB.
    let (k, _) = mapping_codes(|m| {
        m.volume_type = Some("gp3".into());
        m.volume_size = Some("31Gi".into());
        m.iops = Some(16_000);
    });
    assert!(k.contains(&Code::EKSGPU133));
    let (k, _) = mapping_codes(|m| {
        m.volume_type = Some("gp3".into());
        m.volume_size = Some("32Gi".into());
        m.iops = Some(16_000);
    });
    assert!(!k.contains(&Code::EKSGPU133));
}

fn bottlerocket(user_data: &str) -> Pool {
    with_class(|nc| {
        nc.ami_alias = Some("bottlerocket@latest".into());
        nc.user_data = Some(user_data.into());
    })
}

fn node_group(ami_type: &str, user_data: &str) -> Pool {
    let mut pool = fixture::valid_pool("gpu", Capacity::ManagedNodeGroup, &["g6e.xlarge"]);
    if let Some(m) = pool.managed_node_group.as_mut() {
        m.ami_type = Some(ami_type.into());
        m.user_data = Some(user_data.into());
    }
    pool
}

#[test]
fn user_data_is_at_most_ec2s_16_kb_before_base64() {
    let max = super::super::user_data::USER_DATA_MAX_BYTES;
    let toml = |n: usize| {
        let head = "[settings.kubernetes]\n# ";
        format!("{head}{}", "x".repeat(n - head.len()))
    };
    assert!(!codes(bottlerocket(&toml(max))).contains(&Code::EKSGPU143));
    assert!(codes(bottlerocket(&toml(max + 1))).contains(&Code::EKSGPU143));
    // A node group's script goes into a MIME part: the wrapping counts.
    let script = format!("#!/bin/bash\n# {}\n", "x".repeat(max - 20));
    assert!(script.len() < max);
    assert!(codes(node_group("AL2023_x86_64_NVIDIA", &script)).contains(&Code::EKSGPU143));
    let short = "#!/bin/bash\necho hi\n";
    assert!(!codes(node_group("AL2023_x86_64_NVIDIA", short)).contains(&Code::EKSGPU143));
}

#[test]
fn bottlerocket_user_data_must_be_toml() {
    let good = "[settings.kubernetes]\nmax-pods = 110\n\n[settings.kubelet-device-plugins.nvidia]\nenabled = false\n";
    assert!(!codes(bottlerocket(good)).contains(&Code::EKSGPU144));
    assert!(!codes(node_group("BOTTLEROCKET_x86_64_NVIDIA", good)).contains(&Code::EKSGPU144));
    for bad in [
        "[settings.kubernetes\nmax-pods = 110\n",
        "settings.kubernetes.max-pods: 110\n",
        "[settings.kubernetes]\nmax-pods = 110\nmax-pods = 111\n",
    ] {
        assert!(codes(bottlerocket(bad)).contains(&Code::EKSGPU144), "{bad}");
        assert!(
            codes(node_group("BOTTLEROCKET_x86_64_NVIDIA", bad)).contains(&Code::EKSGPU144),
            "{bad}"
        );
    }
    // Not TOML, but AL2023 does not read TOML.
    assert!(!codes(node_group("AL2023_x86_64_NVIDIA", "#!/bin/bash\n[x\n")).contains(&Code::EKSGPU144));
}
