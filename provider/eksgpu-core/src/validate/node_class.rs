//! EC2NodeClass values: the AMI alias, the root volume, kubelet eviction
//! thresholds and tags, as the EC2NodeClass CRD (v1.14.1) and Karpenter's
//! AMI resolution accept them.

use super::quantity::parts;
use super::{Validation, ValidationError, Version};

const EC2NODECLASS_CRD: &str = "aws/karpenter-provider-aws v1.14.1 pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml";
const ALIAS: &str = "aws/karpenter-provider-aws v1.14.1 pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml \
     (amiSelectorTerms.alias CEL rules; windows2025 since v1.9.0), pkg/providers/amifamily/ami.go (AL2 refused on \
     Kubernetes 1.33+, Windows Server 2025 needs 1.35+), website docs/concepts/nodeclasses.md";
const EC2_TAGS: &str = "aws/karpenter-provider-aws v1.14.1 pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml \
     (spec.tags CEL rules); Amazon EC2 User Guide, Tag restrictions (aws: prefix, 128/256 characters)";

/// AMI families an alias may name, and the Karpenter release that added each.
const ALIAS_FAMILIES: [(&str, Version); 6] = [
    ("al2", (1, 0)),
    ("al2023", (1, 0)),
    ("bottlerocket", (1, 0)),
    ("windows2019", (1, 0)),
    ("windows2022", (1, 0)),
    ("windows2025", (1, 9)),
];
const ALIAS_MAX: usize = 30;

/// `amiSelectorTerms[].alias`: `family@version` of at most 30 characters;
/// the family one of `al2`, `al2023`, `bottlerocket`, `windows2019`,
/// `windows2022`, `windows2025` (Karpenter 1.9+); Windows only `@latest`;
/// `al2` not on Kubernetes 1.33 or later, `windows2025` only on 1.35 or
/// later (when the Kubernetes version is known).
pub fn ami_alias(alias: &str, kubernetes: Option<Version>, karpenter: Version) -> Validation {
    let families = || {
        ALIAS_FAMILIES
            .iter()
            .filter(|(_, since)| karpenter >= *since)
            .map(|(f, _)| *f)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let err = |message: String| {
        Err(ValidationError::new(
            message,
            format!(
                "family@version with family one of {}, version latest or a release tag such as v20240807",
                families()
            ),
            ALIAS,
        ))
    };
    let Some((family, version)) = alias.split_once('@') else {
        return err(format!("{alias:?} is not an AMI alias: it has no '@'."));
    };
    if family.is_empty() || !family.bytes().all(|b| b.is_ascii_alphanumeric()) || version.is_empty() {
        return err(format!("{alias:?} is not an AMI alias of the form family@version."));
    }
    if alias.len() > ALIAS_MAX {
        return err(format!(
            "{alias:?} has {} characters, more than {ALIAS_MAX}.",
            alias.len()
        ));
    }
    match ALIAS_FAMILIES.iter().find(|(f, _)| *f == family) {
        None => return err(format!("{family:?} is not an AMI alias family.")),
        Some((_, since)) if karpenter < *since => {
            return err(format!(
                "{family} needs Karpenter {}.{}; this is {}.{}.",
                since.0, since.1, karpenter.0, karpenter.1
            ));
        }
        Some(_) => {}
    }
    if family.starts_with("windows") && version != "latest" {
        return err(format!("{alias:?}: Windows families may only use version latest."));
    }
    if let Some(k8s) = kubernetes {
        if family == "al2" && k8s >= (1, 33) {
            return err(format!(
                "AL2 aliases are not supported on Kubernetes {}.{} (1.33 and later); use al2023 or bottlerocket.",
                k8s.0, k8s.1
            ));
        }
        if family == "windows2025" && k8s < (1, 35) {
            return err(format!(
                "windows2025 needs Kubernetes 1.35 or later; this is {}.{}.",
                k8s.0, k8s.1
            ));
        }
    }
    Ok(())
}

/// The EBS volume types of `blockDeviceMappings[].ebs.volumeType` (the CRD's enum).
pub const EBS_VOLUME_TYPES: [&str; 7] = ["standard", "io1", "io2", "gp2", "sc1", "st1", "gp3"];

/// An EBS volume type.
pub fn ebs_volume_type(s: &str) -> Validation {
    if EBS_VOLUME_TYPES.contains(&s) {
        Ok(())
    } else {
        Err(ValidationError::new(
            format!("{s:?} is not an EBS volume type."),
            "gp3, gp2, io1, io2, sc1, st1 or standard",
            EC2NODECLASS_CRD,
        ))
    }
}

/// Keys of `kubelet.evictionHard` / `evictionSoft` (the CRD's CEL rule).
pub const EVICTION_SIGNALS: [&str; 6] = [
    "memory.available",
    "nodefs.available",
    "nodefs.inodesFree",
    "imagefs.available",
    "imagefs.inodesFree",
    "pid.available",
];

/// A kubelet eviction signal.
pub fn eviction_signal(s: &str) -> Validation {
    if EVICTION_SIGNALS.contains(&s) {
        Ok(())
    } else {
        Err(ValidationError::new(
            format!("{s:?} is not an eviction signal the EC2NodeClass accepts."),
            EVICTION_SIGNALS.join(", "),
            EC2NODECLASS_CRD,
        ))
    }
}

/// An eviction threshold: a percentage with up to two decimals (0–100%) or
/// a quantity. The CRD's pattern also matches the empty string, which the
/// kubelet cannot parse; it is refused here.
pub fn eviction_threshold(s: &str) -> Validation {
    let percent_ok = s.strip_suffix('%').is_some_and(|p| {
        let (int, frac) = p.split_once('.').unwrap_or((p, ""));
        let digits = |d: &str| d.bytes().all(|b| b.is_ascii_digit());
        let frac_ok = !p.contains('.') || (1..=2).contains(&frac.len());
        if int == "100" {
            frac_ok && frac.bytes().all(|b| b == b'0')
        } else {
            (1..=2).contains(&int.len()) && digits(int) && digits(frac) && frac_ok
        }
    });
    if percent_ok || (!s.ends_with('%') && parts(s).is_ok()) {
        return Ok(());
    }
    Err(ValidationError::new(
        format!("{s:?} is not an eviction threshold."),
        "a percentage such as 5% or 10.5% (at most 100%), or a quantity such as 500Mi",
        EC2NODECLASS_CRD,
    ))
}

/// A key of the EC2NodeClass's `tags`: not empty, not one Karpenter or EKS
/// sets (`eks:eks-cluster-name`, `kubernetes.io/cluster*`,
/// `karpenter.sh/nodepool`, `karpenter.sh/nodeclaim`,
/// `karpenter.k8s.aws/ec2nodeclass`), not AWS-reserved (`aws:`), at most
/// 128 characters.
pub fn node_class_tag_key(key: &str) -> Validation {
    const EXACT: [&str; 4] = [
        "eks:eks-cluster-name",
        "karpenter.sh/nodepool",
        "karpenter.sh/nodeclaim",
        "karpenter.k8s.aws/ec2nodeclass",
    ];
    let accepted = "a tag key of 1 to 128 characters that Karpenter, EKS or AWS do not set: not \
         eks:eks-cluster-name, kubernetes.io/cluster…, karpenter.sh/nodepool, karpenter.sh/nodeclaim, \
         karpenter.k8s.aws/ec2nodeclass, nor starting with aws:";
    let problem = if key.is_empty() {
        Some("tag keys may not be empty".to_owned())
    } else if EXACT.contains(&key) || key.starts_with("kubernetes.io/cluster") {
        Some("Karpenter sets this tag on the instances it launches".to_owned())
    } else if key.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("aws:")) {
        Some("the aws: prefix is reserved for AWS".to_owned())
    } else if key.chars().count() > 128 {
        Some(format!("{} characters, more than 128", key.chars().count()))
    } else {
        None
    };
    match problem {
        None => Ok(()),
        Some(why) => Err(ValidationError::new(
            format!("Tag key {key:?} is not allowed: {why}."),
            accepted,
            EC2_TAGS,
        )),
    }
}

/// A value of the EC2NodeClass's `tags`: at most 256 characters, not
/// starting with `aws:`.
pub fn node_class_tag_value(value: &str) -> Validation {
    let reserved = value.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("aws:"));
    if reserved || value.chars().count() > 256 {
        return Err(ValidationError::new(
            format!("Tag value {value:?} is not allowed."),
            "at most 256 characters, not starting with aws:",
            EC2_TAGS,
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;

/// A capacity reservation ID: `cr-` and 17 lower-case hexadecimal digits. The EC2NodeClass CRD's
/// pattern (`capacityReservationSelectorTerms[].id`, `^cr-[0-9a-z]+$`) is looser; EC2 gives every
/// Capacity Reservation (a 2018 resource, after the move to long IDs) a 17-digit hexadecimal ID
/// (Amazon EC2 User Guide, Resource IDs: https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/resource-ids.html),
/// so any other ID selects nothing and the pool never launches into its reservation.
pub fn capacity_reservation_id(s: &str) -> Validation {
    let ok = s
        .strip_prefix("cr-")
        .is_some_and(|r| r.len() == 17 && r.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
    if ok {
        Ok(())
    } else {
        Err(ValidationError::new(
            format!("{s:?} is not a capacity reservation ID."),
            "cr- followed by 17 lower-case hexadecimal digits, e.g. cr-0123456789abcdef0",
            "Amazon EC2 User Guide, Resource IDs (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/resource-ids.html); \
             aws/karpenter-provider-aws v1.14.1 pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml (^cr-[0-9a-z]+$)",
        ))
    }
}

/// An AWS account ID (`ownerID`, pattern `^[0-9]{12}$`).
pub fn aws_account_id(s: &str) -> Validation {
    if s.len() == 12 && s.bytes().all(|b| b.is_ascii_digit()) {
        Ok(())
    } else {
        Err(ValidationError::new(
            format!("{s:?} is not an AWS account ID."),
            "12 digits",
            EC2NODECLASS_CRD,
        ))
    }
}

#[cfg(test)]
mod reservation_tests {
    use super::{aws_account_id, capacity_reservation_id};
    use crate::validate::{crd_node, vendored_crd};

    #[test]
    fn reservation_ids_and_owners_match_the_crd_patterns() {
        let crd = vendored_crd("karpenter.k8s.aws_ec2nodeclasses.yaml");
        let at = "/properties/spec/properties/capacityReservationSelectorTerms/items/properties";
        let re =
            |f: &str| regex::Regex::new(crd_node(&crd, &format!("{at}/{f}"))["pattern"].as_str().unwrap()).unwrap();
        let (id, owner) = (re("id"), re("ownerID"));
        for s in [
            "cr-0123456789abcdef0",
            "cr-",
            "cr-ABC",
            "cr-a b",
            "xr-123",
            "",
            "cr-abc1",
            "cr-0123456789abcdef",
            "cr-0123456789abcdef01",
            "cr-0123456789abcdefg",
        ] {
            // Never looser than the CRD; stricter where EC2 is (17 hexadecimal digits).
            if capacity_reservation_id(s).is_ok() {
                assert!(id.is_match(s), "{s:?}");
            }
        }
        assert!(capacity_reservation_id("cr-0123456789abcdef0").is_ok());
        for s in [
            "cr-abc1",
            "cr-0123456789abcdef",
            "cr-0123456789abcdef01",
            "cr-0123456789abcdefg",
            "cr-0123456789ABCDEF0",
        ] {
            assert!(capacity_reservation_id(s).is_err(), "{s:?}");
        }
        for s in ["123456789012", "12345678901", "1234567890123", "12345678901a", ""] {
            assert_eq!(aws_account_id(s).is_ok(), owner.is_match(s), "{s:?}");
        }
    }
}
