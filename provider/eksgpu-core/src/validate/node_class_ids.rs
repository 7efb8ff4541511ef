//! Single values of the inputs upstream GPU NodePools and EC2NodeClasses use beyond the
//! provider's first set: selector IDs, the instance profile, EBS snapshots and the
//! termination grace period, each as the CRD (or the AWS API behind it) accepts it.

use super::{Validation, ValidationError};

const EC2NODECLASS_CRD: &str = "aws/karpenter-provider-aws v1.14.1 pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml";
const NODEPOOL_CRD: &str = "aws/karpenter-provider-aws v1.14.1 pkg/apis/crds/karpenter.sh_nodepools.yaml";
const IAM_NAMES: &str = "AWS IAM API reference, CreateInstanceProfile (InstanceProfileName: 1–128 of [\\w+=,.@-])";
const EBS_SNAPSHOT: &str = "Amazon EC2 API reference, EbsBlockDevice SnapshotId (snap- followed by hexadecimal digits)";

/// `prefix` and then one or more lower-case letters or digits: the CRD patterns of selector
/// IDs (`subnet-[0-9a-z]+`, `sg-[0-9a-z]+`).
fn prefixed_id(s: &str, prefix: &str) -> bool {
    s.strip_prefix(prefix)
        .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
}

/// A subnet ID (`subnetSelectorTerms[].id`, pattern `subnet-[0-9a-z]+`).
pub fn subnet_id(s: &str) -> Validation {
    if prefixed_id(s, "subnet-") {
        return Ok(());
    }
    Err(ValidationError::new(
        format!("{s:?} is not a subnet ID."),
        "subnet- followed by lower-case letters and digits, e.g. subnet-0123456789abcdef0",
        EC2NODECLASS_CRD,
    ))
}

/// A security group ID (`securityGroupSelectorTerms[].id`, pattern `sg-[0-9a-z]+`).
pub fn security_group_id(s: &str) -> Validation {
    if prefixed_id(s, "sg-") {
        return Ok(());
    }
    Err(ValidationError::new(
        format!("{s:?} is not a security group ID."),
        "sg- followed by lower-case letters and digits, e.g. sg-0123456789abcdef0",
        EC2NODECLASS_CRD,
    ))
}

/// An IAM instance profile name (`instanceProfile`: the CRD refuses an empty one, IAM takes
/// 1–128 characters of letters, digits and `_+=,.@-`).
pub fn instance_profile_name(s: &str) -> Validation {
    let ok = (1..=128).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"_+=,.@-".contains(&b));
    if ok {
        return Ok(());
    }
    let hint = if s.starts_with("arn:") {
        " (give the profile's name, not its ARN)"
    } else {
        ""
    };
    Err(ValidationError::new(
        format!("{s:?} is not an IAM instance profile name{hint}."),
        "1 to 128 characters: letters, digits and _+=,.@-",
        IAM_NAMES,
    ))
}

/// An EBS snapshot ID (`blockDeviceMappings[].ebs.snapshotID`).
pub fn ebs_snapshot_id(s: &str) -> Validation {
    let ok = s
        .strip_prefix("snap-")
        .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
    if ok {
        return Ok(());
    }
    Err(ValidationError::new(
        format!("{s:?} is not an EBS snapshot ID."),
        "snap- followed by lower-case hexadecimal digits, e.g. snap-0123456789abcdef0",
        EBS_SNAPSHOT,
    ))
}

/// `terminationGracePeriod`: whole numbers with `s`, `m` or `h` (pattern `^([0-9]+(s|m|h))+$`;
/// unlike `expireAfter` it has no `Never`: leave it unset to wait for pods indefinitely).
pub fn termination_grace_period(s: &str) -> Validation {
    if s != "Never" && crate::duration::KarpenterDuration::parse(s).is_ok() {
        return Ok(());
    }
    Err(ValidationError::new(
        format!("{s:?} is not a termination grace period."),
        "whole numbers with s, m or h such as 30s, 10m, 24h or 1h30m (the NodePool CRD pattern ^([0-9]+(s|m|h))+$; \
         no Never: leave it unset to wait for pods without limit)",
        NODEPOOL_CRD,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::{crd_node, vendored_crd};

    #[test]
    fn ids_and_names_follow_the_patterns() {
        assert!(subnet_id("subnet-0abc123").is_ok());
        assert!(subnet_id("subnet-").is_err() && subnet_id("sg-0abc").is_err() && subnet_id("subnet-0ABC").is_err());
        assert!(security_group_id("sg-0abc123").is_ok() && security_group_id("sg_1").is_err());
        assert!(instance_profile_name("KarpenterNodeInstanceProfile").is_ok());
        assert!(instance_profile_name("").is_err());
        assert!(instance_profile_name("arn:aws:iam::1:instance-profile/x").is_err());
        assert!(ebs_snapshot_id("snap-0123456789abcdef0").is_ok() && ebs_snapshot_id("snap-xyz").is_err());
    }

    #[test]
    fn the_grace_period_is_the_crd_pattern_without_never() {
        let crd = vendored_crd("karpenter.sh_nodepools.yaml");
        let node = crd_node(
            &crd,
            "/properties/spec/properties/template/properties/spec/properties/terminationGracePeriod",
        );
        assert_eq!(node["pattern"], "^([0-9]+(s|m|h))+$");
        for ok in ["30s", "10m", "24h", "1h30m"] {
            assert!(termination_grace_period(ok).is_ok(), "{ok}");
        }
        for bad in ["Never", "1.5h", "10ms", "", "5d"] {
            assert!(termination_grace_period(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn selector_id_patterns_are_the_crds() {
        let crd = vendored_crd("karpenter.k8s.aws_ec2nodeclasses.yaml");
        let subnet = crd_node(
            &crd,
            "/properties/spec/properties/subnetSelectorTerms/items/properties/id",
        );
        assert_eq!(subnet["pattern"], "subnet-[0-9a-z]+");
        let sg = crd_node(
            &crd,
            "/properties/spec/properties/securityGroupSelectorTerms/items/properties/id",
        );
        assert_eq!(sg["pattern"], "sg-[0-9a-z]+");
    }
}
