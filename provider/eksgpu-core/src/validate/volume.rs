//! Node volumes: the EC2NodeClass's EBS root volume (its CRD pattern, then
//! what EC2 accepts for the volume type) and the Auto Mode NodeClass's
//! `ephemeralStorage` (its documented ranges).

use super::quantity::parts;
use super::{EBS_VOLUME_TYPES, Validation, ValidationError};

const EC2NODECLASS_CRD: &str = "aws/karpenter-provider-aws v1.14.1 pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml \
     (blockDeviceMappings[].ebs.volumeSize pattern)";
const EBS: &str = "Amazon EC2 API Reference, CreateVolume and EbsBlockDevice (Iops, Size, Throughput), as documented in \
     aws-sdk-ec2 1.274.0; Amazon EBS User Guide, Amazon EBS volume types (gp3 at most 500 IOPS per GiB and 0.25 MiB/s \
     per IOPS, io1 50 and io2 1000 IOPS per GiB); karpenter-provider-aws v1.14.1 \
     pkg/providers/launchtemplate/launchtemplate.go (volumeSize: rounded up to whole GiB)";
const AUTO_MODE: &str = "Amazon EKS User Guide, Create a Node Class for Amazon EKS \
     (https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html), ephemeralStorage: size 1-59000Gi, \
     64000G, 58Ti or 64T, iops 3000-16000, throughput 125-1000";

/// A size as a whole number and one of `Gi`, `G`, `Ti`, `T`, or `None`.
fn whole_size(s: &str) -> Option<(u32, &str)> {
    let digits_end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (number, unit) = s.split_at(digits_end);
    if number.starts_with('0') || !matches!(unit, "Gi" | "G" | "Ti" | "T") {
        return None;
    }
    Some((number.parse().ok()?, unit))
}

fn size_error(s: &str, accepted: &'static str, source: &'static str) -> ValidationError {
    let message = if parts(s).is_ok() {
        format!("{s:?} is a quantity, but not a volume size this node class accepts.")
    } else {
        format!("{s:?} is not a volume size.")
    };
    ValidationError::new(message, accepted, source)
}

/// `blockDeviceMappings[].ebs.volumeSize` as the EC2NodeClass CRD's pattern accepts it:
/// a whole number of `Gi` (1–59000), `G` (1–64000), `T` (1–64), or `Ti` in 1–17,
/// 20–27, 30–37, 40–47, 50–58. So `200000Mi`, `1.5Ti` and `0200Gi` are refused.
///
/// The Ti gaps are the pattern's (`([1-9]||[1-5][0-7]|58)Ti`): the API server
/// refuses `18Ti` although EBS would take it. The pattern's empty
/// alternatives also let a bare `Ti` or `T` through, which Karpenter's
/// `resource.Quantity` cannot decode; it is refused here.
pub fn ec2_node_class_volume_size(s: &str) -> Validation {
    let ok = whole_size(s).is_some_and(|(n, unit)| match unit {
        "Gi" => (1..=59_000).contains(&n),
        "G" => (1..=64_000).contains(&n),
        "T" => (1..=64).contains(&n),
        _ => (1..=9).contains(&n) || (10..=57).contains(&n) && n % 10 <= 7 || n == 58,
    });
    if ok {
        return Ok(());
    }
    Err(size_error(
        s,
        "a whole number of Gi (1–59000), G (1–64000), T (1–64) or Ti (1–58, not 18, 19, 28, 29, 38, 39, 48, 49), \
         such as 200Gi",
        EC2NODECLASS_CRD,
    ))
}

/// The whole GiB Karpenter asks EC2 for: `ceil(bytes / 2^30)`, so `100G` is 94 GiB.
/// `None` unless `s` is an EC2NodeClass volume size.
fn ec2_node_class_volume_gib(s: &str) -> Option<u64> {
    ec2_node_class_volume_size(s).ok()?;
    let (n, unit) = whole_size(s)?;
    let bytes = u128::from(n)
        * match unit {
            "Gi" => 1 << 30,
            "Ti" => 1 << 40,
            "G" => 1_000_000_000,
            _ => 1_000_000_000_000,
        };
    u64::try_from(bytes.div_ceil(1 << 30)).ok()
}

/// What EC2 accepts per volume type: (size in GiB, IOPS if it takes any, IOPS per GiB).
struct EbsLimits {
    size_gib: (u64, u64),
    iops: Option<(i64, i64)>,
    iops_per_gib: i64,
}

fn ebs_limits(volume_type: &str) -> Option<EbsLimits> {
    let l = |size_gib, iops, iops_per_gib| EbsLimits {
        size_gib,
        iops,
        iops_per_gib,
    };
    Some(match volume_type {
        "gp3" => l((1, 65_536), Some((3_000, 80_000)), 500),
        "gp2" => l((1, 16_384), None, 0),
        "io1" => l((4, 16_384), Some((100, 64_000)), 50),
        "io2" => l((4, 65_536), Some((100, 256_000)), 1_000),
        "st1" | "sc1" => l((125, 16_384), None, 0),
        "standard" => l((1, 1_024), None, 0),
        _ => return None,
    })
}

/// Problems of one node class field: the attribute (`size`, `volume_type`, `iops`,
/// `throughput`) and why.
pub type FieldProblems = Vec<(&'static str, ValidationError)>;

/// An EBS root volume as EC2 launches it from an EC2NodeClass: `size` as the
/// CRD writes it (`None`: unknown, size checks skipped), its volume type's
/// size range, IOPS only on gp3 (3000–80000), io1 (100–64000, required) and
/// io2 (100–256000, required) and within their IOPS-per-GiB ratio, throughput
/// only on gp3 (125–2000 MiB/s, at most 0.25 MiB/s per IOPS). Every problem is
/// reported with the attribute it belongs to.
pub fn ebs_volume(
    volume_type: &str,
    size: Option<&str>,
    iops: Option<i64>,
    throughput: Option<i64>,
) -> Result<(), FieldProblems> {
    let mut out: FieldProblems = Vec::new();
    let mut push =
        |field, message: String, accepted: String| out.push((field, ValidationError::new(message, accepted, EBS)));
    let Some(limits) = ebs_limits(volume_type) else {
        push(
            "volume_type",
            format!("{volume_type:?} is not an EBS volume type."),
            EBS_VOLUME_TYPES.join(", "),
        );
        return Err(out);
    };
    let gib = match size {
        Some(s) => match ec2_node_class_volume_gib(s) {
            Some(g) => Some(g),
            None => {
                out.push((
                    "size",
                    ec2_node_class_volume_size(s)
                        .err()
                        .unwrap_or_else(|| size_error(s, "", EBS)),
                ));
                None
            }
        },
        None => None,
    };
    let mut push =
        |field, message: String, accepted: String| out.push((field, ValidationError::new(message, accepted, EBS)));
    let (min, max) = limits.size_gib;
    if let Some(g) = gib
        && !(min..=max).contains(&g)
    {
        push(
            "size",
            format!("A {volume_type} volume of {g} GiB (as Karpenter rounds it) is outside what EC2 creates."),
            format!("{min} to {max} GiB for {volume_type}"),
        );
    }
    match (limits.iops, iops) {
        (None, Some(i)) => push(
            "iops",
            format!("{volume_type} volumes take no provisioned IOPS; {i} was given."),
            "no iops, or volume_type gp3, io1 or io2".into(),
        ),
        (Some((lo, hi)), Some(i)) if !(lo..=hi).contains(&i) => push(
            "iops",
            format!("{i} IOPS is outside what a {volume_type} volume takes."),
            format!("{lo} to {hi} IOPS for {volume_type}"),
        ),
        (Some((lo, _)), Some(i)) => {
            if let Some(g) = gib
                && i > lo.max(limits.iops_per_gib.saturating_mul(i64::try_from(g).unwrap_or(i64::MAX)))
            {
                push(
                    "iops",
                    format!(
                        "{i} IOPS on {g} GiB is more than {} IOPS per GiB, the most a {volume_type} volume takes.",
                        limits.iops_per_gib
                    ),
                    format!("at most {} IOPS per GiB (or a larger volume)", limits.iops_per_gib),
                );
            }
        }
        (Some(_), None) if volume_type != "gp3" => push(
            "iops",
            format!("{volume_type} volumes need provisioned IOPS."),
            format!("iops for {volume_type}"),
        ),
        _ => {}
    }
    if let Some(t) = throughput {
        if volume_type != "gp3" {
            push(
                "throughput",
                format!("Only gp3 volumes take a throughput; this one is {volume_type}."),
                "no throughput, or volume_type gp3".into(),
            );
        } else if !(125..=2_000).contains(&t) {
            push(
                "throughput",
                format!("{t} MiB/s is outside what a gp3 volume takes."),
                "125 to 2000 MiB/s".into(),
            );
        } else {
            // gp3: at most 0.25 MiB/s per provisioned IOPS (3000 IOPS, the default, allow 750).
            let i = iops.unwrap_or(3_000);
            if t > 125 && t.saturating_mul(4) > i {
                push(
                    "throughput",
                    format!("{t} MiB/s with {i} IOPS is more than 0.25 MiB/s per IOPS."),
                    format!("at most {} MiB/s with {i} IOPS, or more IOPS", (i / 4).max(125)),
                );
            }
        }
    }
    if out.is_empty() { Ok(()) } else { Err(out) }
}

const DEVICE_NAMES: &str = "Amazon EC2 User Guide, Device names for volumes on Amazon EC2 instances \
     (https://docs.aws.amazon.com/ebs/latest/userguide/device_naming.html): on HVM instances /dev/sd[a-z], \
     /dev/xvd[a-d][a-z] and /dev/xvd[e-z], the root /dev/sda1 or /dev/xvda";

/// A device name EC2 takes in a block device mapping of an HVM instance (every GPU and Neuron
/// type is HVM): `/dev/sd[a-z]`, `/dev/sda1` (a root), `/dev/xvd[e-z]`, `/dev/xvd[a-d][a-z]` and
/// `/dev/xvda` (a root), and `/dev/xvd[b-d]`, which EC2 takes as well. NVMe names (`/dev/nvme1n1`) are what the kernel calls the volume, not
/// what a mapping takes.
pub fn ebs_device_name(s: &str) -> Validation {
    let letter = |b: u8| b.is_ascii_lowercase();
    let ok = match (s.strip_prefix("/dev/sd"), s.strip_prefix("/dev/xvd")) {
        (Some(rest), _) => matches!(rest.as_bytes(), [a] if letter(*a)) || rest == "a1",
        (_, Some(rest)) => match rest.as_bytes() {
            // /dev/xvd[b-d] too: Karpenter's own Bottlerocket data volume is /dev/xvdb
            // (karpenter-provider-aws v1.14.1 pkg/providers/amifamily/bottlerocket.go).
            [a] => letter(*a),
            [a, b] => (b'a'..=b'd').contains(a) && letter(*b),
            _ => false,
        },
        _ => false,
    };
    if ok {
        return Ok(());
    }
    Err(ValidationError::new(
        format!("{s:?} is not a device name EC2 takes in a block device mapping."),
        "/dev/sd[a-z], /dev/xvd[a-z] or /dev/xvd[a-d][a-z] (the root /dev/xvda or /dev/sda1), e.g. /dev/xvdb",
        DEVICE_NAMES,
    ))
}

/// `ephemeralStorage.size` of an Auto Mode NodeClass: a whole number of `Gi`
/// (1–59000), `G` (1–64000), `Ti` (1–58) or `T` (1–64), per the EKS user guide.
/// The guide gives the ranges, not a pattern: `Ti` values the EC2NodeClass
/// pattern skips (18Ti) are accepted here.
fn auto_mode_ephemeral_storage_size(s: &str) -> Validation {
    let ok = whole_size(s).is_some_and(|(n, unit)| match unit {
        "Gi" => (1..=59_000).contains(&n),
        "G" => (1..=64_000).contains(&n),
        "Ti" => (1..=58).contains(&n),
        _ => (1..=64).contains(&n),
    });
    if ok {
        return Ok(());
    }
    Err(size_error(
        s,
        "a whole number of Gi (1–59000), G (1–64000), Ti (1–58) or T (1–64), such as 200Gi",
        AUTO_MODE,
    ))
}

/// An Auto Mode NodeClass's `ephemeralStorage`: the size above, `iops`
/// 3000–16000 and `throughput` 125–1000 MiB/s (EKS user guide; Auto Mode
/// chooses the volume type itself, gp3).
pub fn auto_mode_ephemeral_storage(
    size: Option<&str>,
    iops: Option<i64>,
    throughput: Option<i64>,
) -> Result<(), FieldProblems> {
    let mut out: FieldProblems = Vec::new();
    if let Some(s) = size
        && let Err(e) = auto_mode_ephemeral_storage_size(s)
    {
        out.push(("size", e));
    }
    if let Some(i) = iops
        && !(3_000..=16_000).contains(&i)
    {
        out.push((
            "iops",
            ValidationError::new(
                format!("{i} IOPS is outside what Auto Mode's ephemeral storage takes."),
                "3000 to 16000",
                AUTO_MODE,
            ),
        ));
    }
    if let Some(t) = throughput
        && !(125..=1_000).contains(&t)
    {
        out.push((
            "throughput",
            ValidationError::new(
                format!("{t} MiB/s is outside what Auto Mode's ephemeral storage takes."),
                "125 to 1000 MiB/s",
                AUTO_MODE,
            ),
        ));
    }
    if out.is_empty() { Ok(()) } else { Err(out) }
}

#[cfg(test)]
mod tests;
