//! A pool's root volume as EC2 creates it from an EC2NodeClass, or as Auto Mode's
//! `ephemeralStorage` takes it: values the attribute's type allows that the node class's API or
//! EC2 refuse at launch.

use crate::model::{Capacity, Pool};
use crate::rules::{At, Code, Step, Violation};

/// EKSGPU133: on a `karpenter` pool, the EBS volume Karpenter asks EC2 for (the CRD's
/// `volumeSize` pattern, then the volume type's sizes, IOPS and throughput, with the 20Gi
/// Karpenter renders when no size is given: render::KARPENTER_DEFAULT_VOLUME_SIZE); on an
/// `auto_mode` pool, the ranges of `ephemeralStorage`. Each problem at its attribute.
pub(super) fn root_volume(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    let Some(rv) = pool.node_class.as_ref().and_then(|nc| nc.root_volume.as_ref()) else {
        return;
    };
    let problems = match pool.capacity {
        Capacity::Karpenter => crate::validate::ebs_volume(
            rv.volume_type.as_deref().unwrap_or("gp3"),
            Some(
                rv.size
                    .as_deref()
                    .unwrap_or(crate::render::KARPENTER_DEFAULT_VOLUME_SIZE),
            ),
            rv.iops,
            rv.throughput,
        ),
        Capacity::AutoMode => crate::validate::auto_mode_ephemeral_storage(rv.size.as_deref(), rv.iops, rv.throughput),
        Capacity::ManagedNodeGroup | Capacity::Hybrid => return,
    };
    for (attr, e) in problems.err().unwrap_or_default() {
        out.push(Violation::new(
            Code::EKSGPU133,
            at(&[Step::Attr("node_class"), Step::Attr("root_volume"), Step::Attr(attr)]),
            e.to_string(),
        ));
    }
}

/// One block device mapping as written, from an EC2NodeClass or a node group's launch template.
struct Mapping<'a> {
    device_name: &'a str,
    /// As the EC2NodeClass writes it (`100Gi`); `None` with a snapshot and no size.
    size: Option<String>,
    volume_type: Option<&'a str>,
    iops: Option<i64>,
    throughput: Option<i64>,
    encrypted: Option<bool>,
    kms_key_id: Option<&'a str>,
}

/// What EC2 refuses in one mapping, each with its attribute: the device name, then the rules
/// `root_volume` has (validate::ebs_volume, when the volume type is written: without one EC2
/// picks it), then a KMS key on a volume written as unencrypted (EC2 EbsBlockDevice: KmsKeyId
/// needs Encrypted true, https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_EbsBlockDevice.html).
fn mapping_problems(m: &Mapping<'_>) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if let Err(e) = crate::validate::ebs_device_name(m.device_name) {
        out.push(("device_name", e.to_string()));
    }
    if let Some(t) = m.volume_type
        && let Err(problems) = crate::validate::ebs_volume(t, m.size.as_deref(), m.iops, m.throughput)
    {
        for (attr, e) in problems {
            let attr = if attr == "size" { "volume_size" } else { attr };
            // The volume type's own value is the schema's check (validate::ebs_volume_type).
            if attr != "volume_type" {
                out.push((attr, e.to_string()));
            }
        }
    }
    if m.kms_key_id.is_some() && m.encrypted == Some(false) {
        out.push((
            "kms_key_id",
            "A KMS key on a volume with `encrypted = false`: EC2 takes KmsKeyId only on encrypted volumes \
             (Amazon EC2 API Reference, EbsBlockDevice KmsKeyId)."
                .into(),
        ));
    }
    out
}

/// EKSGPU133 on `block_device_mappings`: the same EC2 rules as the root volume, on a `karpenter`
/// pool's EC2NodeClass mappings and a `managed_node_group`'s launch-template mappings.
pub(super) fn block_device_mappings(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    let mut push = |base: &[Step], j: usize, problems: Vec<(&'static str, String)>| {
        for (attr, detail) in problems {
            let mut p = base.to_vec();
            p.extend([Step::Index(j), Step::Attr(attr)]);
            out.push(Violation::new(
                Code::EKSGPU133,
                at(&p),
                format!("Block device mapping {j}: {detail}"),
            ));
        }
    };
    if pool.capacity == Capacity::Karpenter
        && let Some(nc) = &pool.node_class
    {
        let base = [Step::Attr("node_class"), Step::Attr("block_device_mappings")];
        for (j, m) in nc.block_device_mappings.iter().enumerate() {
            let problems = mapping_problems(&Mapping {
                device_name: &m.device_name,
                size: m.volume_size.clone(),
                volume_type: m.volume_type.as_deref(),
                iops: m.iops,
                throughput: m.throughput,
                encrypted: m.encrypted,
                kms_key_id: m.kms_key_id.as_deref(),
            });
            push(&base, j, problems);
        }
    }
    if pool.capacity == Capacity::ManagedNodeGroup
        && let Some(mng) = &pool.managed_node_group
    {
        let base = [Step::Attr("managed_node_group"), Step::Attr("block_device_mappings")];
        for (j, m) in mng.block_device_mappings.iter().enumerate() {
            // Whole GiB; beyond the EC2NodeClass pattern's 59000Gi the size checks are skipped
            // (ebs_volume reads sizes as the EC2NodeClass writes them).
            let size = m
                .volume_size
                .filter(|g| (1..=59_000).contains(g))
                .map(|g| format!("{g}Gi"));
            let problems = mapping_problems(&Mapping {
                device_name: &m.device_name,
                size,
                volume_type: m.volume_type.as_deref(),
                iops: m.iops,
                throughput: m.throughput,
                encrypted: m.encrypted,
                kms_key_id: m.kms_key_id.as_deref(),
            });
            push(&base, j, problems);
        }
    }
}
