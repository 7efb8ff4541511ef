//! Names and shapes the EKS API (and EC2) accept: cluster and node group
//! names, availability zones, node group labels and taints.

use super::labels::{label_key, label_value, taint_key, taint_value};
use super::{Validation, ValidationError};

const CLUSTER: &str = "Amazon EKS API Reference, CreateCluster (name), as documented in aws-sdk-eks 1.160.0 \
     CreateClusterInput::name";
const NODE_GROUP: &str = "Amazon EKS User Guide, Create a managed node group (name: at most 63 characters, \
     starting with a letter or digit, then letters, digits, '-' and '_'); Amazon EKS API Reference, CreateNodegroup";
const NODE_GROUP_FIELDS: &str = "Amazon EKS API Reference, CreateNodegroup: labels (key 1-63, value 1-63 characters) \
     and Taint (key 1-63, value 0-63 characters)";
const ZONES: &str = "Amazon EC2 User Guide, Regions and Zones (a zone is its Region's code and a letter, e.g. \
     us-west-2a; Local Zones add a location, e.g. us-west-2-lax-1a)";

const IAM_ROLE: &str = "AWS IAM API Reference, CreateRole (RoleName: 1-64 characters of [\\w+=,.@-])";

/// Longest EKS cluster name.
pub const EKS_CLUSTER_NAME_MAX: usize = 100;
/// Longest managed node group name.
pub const NODE_GROUP_NAME_MAX: usize = 63;

/// `^[0-9A-Za-z][A-Za-z0-9\-_]*$`.
fn is_eks_name(s: &str) -> bool {
    s.as_bytes().first().is_some_and(u8::is_ascii_alphanumeric)
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn eks_name(kind: &str, s: &str, max: usize, source: &'static str) -> Validation {
    let accepted = format!("1 to {max} characters: letters, digits, '-' and '_', starting with a letter or digit");
    if s.is_empty() || s.len() > max {
        return Err(ValidationError::new(
            format!("{kind} {s:?} has {} characters; 1 to {max} are allowed.", s.len()),
            accepted,
            source,
        ));
    }
    if !is_eks_name(s) {
        return Err(ValidationError::new(
            format!("{kind} {s:?} may hold only letters, digits, '-' and '_', and must start with a letter or digit."),
            accepted,
            source,
        ));
    }
    Ok(())
}

/// An EKS cluster name: 1–100 characters of `[0-9A-Za-z][A-Za-z0-9\-_]*`.
/// (The provider also uses it as a label value: see `cluster_name_label_value`.)
pub fn eks_cluster_name(s: &str) -> Validation {
    eks_name("Cluster name", s, EKS_CLUSTER_NAME_MAX, CLUSTER)
}

/// A managed node group name: 1–63 characters of `[0-9A-Za-z][A-Za-z0-9\-_]*` (a pool's
/// `managed_node_group.name`; the default `<cluster>-<pool>` is checked whole by
/// [`node_group_name_for`]).
pub fn node_group_name(s: &str) -> Validation {
    eks_name("Node group name", s, NODE_GROUP_NAME_MAX, NODE_GROUP)
}

/// Characters the provider appends to a `name_prefix` (`eks::node_group_name`).
pub const NODE_GROUP_NAME_SUFFIX: usize = 8;

/// A node group name prefix: with the provider's eight-character suffix it must be a node group
/// name, so at most 55 characters.
pub fn node_group_name_prefix(s: &str) -> Validation {
    let max = NODE_GROUP_NAME_MAX - NODE_GROUP_NAME_SUFFIX;
    eks_name("Node group name prefix", s, max, NODE_GROUP)
}

const RESOURCE_GROUP: &str = "Amazon EC2 API Reference, CapacityReservationTarget (CapacityReservationResourceGroupArn); \
     AWS Resource Groups ARN format arn:<partition>:resource-groups:<region>:<account>:group/<name>";

/// The ARN of an AWS Resource Groups group of capacity reservations.
pub fn resource_group_arn(s: &str) -> Validation {
    let parts: Vec<&str> = s.splitn(6, ':').collect();
    let ok = parts.len() == 6
        && parts[0] == "arn"
        && !parts[1].is_empty()
        && parts[2] == "resource-groups"
        && !parts[3].is_empty()
        && parts[4].len() == 12
        && parts[4].bytes().all(|b| b.is_ascii_digit())
        && parts[5].strip_prefix("group/").is_some_and(|n| !n.is_empty());
    if ok {
        return Ok(());
    }
    Err(ValidationError::new(
        format!("{s:?} is not the ARN of a resource group."),
        "arn:aws:resource-groups:<region>:<12-digit account>:group/<name>",
        RESOURCE_GROUP,
    ))
}

/// The provider's node group name `<cluster>-<pool>` must itself be a node
/// group name: with a pool name of `p` characters, the cluster name may have
/// at most `62 - p`.
pub fn node_group_name_for(cluster: &str, pool: &str) -> Validation {
    let name = format!("{cluster}-{pool}");
    node_group_name(&name).map_err(|e| ValidationError {
        message: format!(
            "The node group name {name:?} (cluster name, '-', pool name) is not valid: {}",
            e.message
        ),
        accepted: format!(
            "a cluster name and pool name of at most {} characters together, letters, digits, '-' and '_'",
            NODE_GROUP_NAME_MAX - 1
        )
        .into(),
        ..e
    })
}

/// An IAM role name (not an ARN), as an EC2NodeClass `role` takes it:
/// 1–64 characters of letters, digits and `_+=,.@-`.
pub fn iam_role_name(s: &str) -> Validation {
    let ok = (1..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"_+=,.@-".contains(&b));
    if ok {
        return Ok(());
    }
    let hint = if s.starts_with("arn:") {
        " (give the role's name, not its ARN)"
    } else {
        ""
    };
    Err(ValidationError::new(
        format!("{s:?} is not an IAM role name{hint}."),
        "1 to 64 characters: letters, digits and _+=,.@-",
        IAM_ROLE,
    ))
}

const IAM_ARN: &str = "AWS IAM User Guide, IAM identifiers (arn:partition:iam::account-id:role/path/name); AWS IAM API \
     Reference, CreateRole (RoleName 1-64 characters of [\\w+=,.@-], Path 1-512 characters, / or /.../ of \
     U+0021-U+007E)";

/// An IAM role ARN, as a node group's `nodeRole` and an access entry's principal take it:
/// `arn:<partition>:iam::<12-digit account>:role/<path><name>`, the partition `aws` or
/// `aws-…` (aws-cn, aws-us-gov, aws-iso, …), the path `/` or `/…/` of at most 512
/// characters of U+0021–U+007E, the name a role name ([`iam_role_name`]).
pub fn iam_role_arn(s: &str) -> Validation {
    let why = role_arn_problem(s);
    match why {
        None => Ok(()),
        Some(why) => Err(ValidationError::new(
            format!("{s:?} is not an IAM role ARN: {why}."),
            "arn:aws:iam::123456789012:role/NAME or arn:aws:iam::123456789012:role/PATH/NAME, the name 1 to 64 \
             characters of letters, digits and _+=,.@-",
            IAM_ARN,
        )),
    }
}

fn role_arn_problem(s: &str) -> Option<String> {
    let parts: Vec<&str> = s.splitn(6, ':').collect();
    let [arn, partition, service, region, account, resource] = parts[..] else {
        return Some("it does not have the six ':'-separated parts of an ARN".into());
    };
    let partition_ok = partition == "aws"
        || partition.strip_prefix("aws-").is_some_and(|p| {
            !p.is_empty()
                && p.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        });
    if arn != "arn" || !partition_ok {
        return Some("it must start with arn:aws: (or another AWS partition)".into());
    }
    if service != "iam" || !region.is_empty() {
        return Some("it must be an IAM ARN, arn:<partition>:iam::<account>:…".into());
    }
    if account.len() != 12 || !account.bytes().all(|b| b.is_ascii_digit()) {
        return Some(format!("the account {account:?} is not 12 digits"));
    }
    let Some(path_and_name) = resource.strip_prefix("role") else {
        return Some("it names no role (role/…)".into());
    };
    // `role` then the path, which starts and ends with '/': the name is what follows the last '/'.
    let Some(last) = path_and_name.rfind('/') else {
        return Some("it names no role (role/…)".into());
    };
    let (path, name) = (&path_and_name[..=last], &path_and_name[last + 1..]);
    if !path.starts_with('/') || path.len() > 512 || !path.chars().all(|c| ('\u{21}'..='\u{7e}').contains(&c)) {
        return Some(format!(
            "the path {path:?} is not / or /…/ of at most 512 printable ASCII characters"
        ));
    }
    iam_role_name(name).err().map(|e| e.message)
}

/// Most taints a managed node group takes (EKS API CreateNodegroup `taints`: at most 50
/// items), the provider's own GPU taint counted.
pub const NODE_GROUP_TAINTS_MAX: usize = 50;

/// The number of taints on a managed node group.
pub fn node_group_taint_count(n: usize) -> Validation {
    if n <= NODE_GROUP_TAINTS_MAX {
        return Ok(());
    }
    Err(ValidationError::new(
        format!("A node group takes at most {NODE_GROUP_TAINTS_MAX} taints; this one would have {n}."),
        "at most 50 taints, counting the provider's nvidia.com/gpu taint (gpu_taint)",
        "Amazon EKS API Reference, CreateNodegroup (taints: maximum number of 50 items), \
         https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html",
    ))
}

/// A node group `releaseVersion` for a cluster of Kubernetes `kubernetes` (major, minor):
/// EKS-optimized AL2023 and AL2 AMIs are released per Kubernetes minor, so their release
/// (`1.34.0-20260801`) starts with that minor, and CreateNodegroup refuses one of another
/// minor. Bottlerocket releases (`1.42.0-4f5d8ea2`) carry the OS version instead and are
/// not checked here.
pub fn node_group_release_for(release: &str, ami_type: &str, kubernetes: super::Version) -> Validation {
    node_group_release_version(release)?;
    if ami_type.starts_with("BOTTLEROCKET") {
        return Ok(());
    }
    let mut parts = release.split(['.', '-']);
    let (major, minor) = (parts.next(), parts.next());
    let (k_major, k_minor) = (kubernetes.0.to_string(), kubernetes.1.to_string());
    if major == Some(k_major.as_str()) && minor == Some(k_minor.as_str()) {
        return Ok(());
    }
    Err(ValidationError::new(
        format!(
            "{release:?} is an AMI release for Kubernetes {}.{}, but the cluster runs {}.{}.",
            major.unwrap_or_default(),
            minor.unwrap_or_default(),
            kubernetes.0,
            kubernetes.1
        ),
        format!(
            "a {ami_type} release of Kubernetes {}.{}, such as {}.{}.0-20260801, or none (the latest)",
            kubernetes.0, kubernetes.1, kubernetes.0, kubernetes.1
        ),
        "Amazon EKS API Reference, CreateNodegroup (releaseVersion: an AMI version of the node group's Kubernetes \
         version); awslabs/amazon-eks-ami release tags (v<date>, AMIs named by Kubernetes version)",
    ))
}

/// A cluster's Kubernetes version as the EKS API writes it (`version` of CreateCluster and
/// DescribeCluster, e.g. `1.34`): `MAJOR.MINOR`, digits only, no leading `v`, no patch,
/// no leading zeros. (Karpenter and KEDA releases, written `v1.14.1`, are read elsewhere.)
pub fn kubernetes_version(s: &str) -> Validation {
    let number = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) && (p == "0" || !p.starts_with('0'));
    if s.split_once('.')
        .is_some_and(|(major, minor)| number(major) && number(minor) && major.len() <= 3 && minor.len() <= 3)
    {
        return Ok(());
    }
    let hint = if s.starts_with('v') || s.matches('.').count() > 1 {
        " (EKS names versions MAJOR.MINOR only, without v or a patch)"
    } else {
        ""
    };
    Err(ValidationError::new(
        format!("{s:?} is not an EKS Kubernetes version{hint}."),
        "MAJOR.MINOR such as 1.34",
        "Amazon EKS API Reference, CreateCluster and DescribeCluster (version, e.g. \"1.34\"), \
         https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateCluster.html",
    ))
}

/// An availability zone name (not a zone ID): a Region code such as
/// `us-west-2` followed by a letter (`us-west-2a`), or by a Local or
/// Wavelength Zone location (`us-west-2-lax-1a`, `us-east-1-wl1-bos-wlz-1`).
/// Zone IDs (`usw2-az1`) are a different label (`topology.k8s.aws/zone-id`).
pub fn availability_zone(s: &str) -> Validation {
    if is_zone(s) {
        return Ok(());
    }
    Err(ValidationError::new(
        format!("{s:?} is not an availability zone name."),
        "a zone name such as us-west-2a or us-west-2-lax-1a (lower case)",
        ZONES,
    ))
}

fn is_zone(s: &str) -> bool {
    // Region: `xx(-word)+-N`, e.g. us-west-2, us-gov-west-1, ap-southeast-7.
    let parts: Vec<&str> = s.split('-').collect();
    let is_word = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase());
    let Some(region_end) = parts
        .iter()
        .position(|p| p.bytes().next().is_some_and(|b| b.is_ascii_digit()))
    else {
        return false;
    };
    if region_end < 2 || parts[0].len() != 2 || !parts[..region_end].iter().all(|p| is_word(p)) {
        return false;
    }
    let number = parts[region_end];
    let digits_end = number.find(|c: char| !c.is_ascii_digit()).unwrap_or(number.len());
    let (digits, letter) = number.split_at(digits_end);
    if digits.is_empty() || digits.len() > 2 {
        return false;
    }
    let rest = &parts[region_end + 1..];
    if rest.is_empty() {
        // A zone of the Region itself: exactly one letter after the number.
        return letter.len() == 1 && letter.bytes().all(|b| b.is_ascii_lowercase());
    }
    // A Local or Wavelength Zone: the Region's number, then location parts.
    letter.is_empty()
        && rest
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
}

/// A label key on a managed node group: a Kubernetes label key of at most
/// 63 characters in all (the EKS API's limit, prefix included).
pub fn eks_label_key(key: &str) -> Validation {
    label_key(key)?;
    limit("label key", key, 1, NODE_GROUP_NAME_MAX)
}

/// A label value on a managed node group: a Kubernetes label value, not empty.
pub fn eks_label_value(value: &str) -> Validation {
    label_value(value)?;
    limit("label value", value, 1, NODE_GROUP_NAME_MAX)
}

/// A taint key on a managed node group: a Kubernetes taint key of at most 63 characters in all.
pub fn eks_taint_key(key: &str) -> Validation {
    taint_key(key)?;
    limit("taint key", key, 1, NODE_GROUP_NAME_MAX)
}

/// A taint value on a managed node group: a Kubernetes taint value (may be empty).
pub fn eks_taint_value(value: &str) -> Validation {
    taint_value(value)?;
    limit("taint value", value, 0, NODE_GROUP_NAME_MAX)
}

fn limit(what: &str, s: &str, min: usize, max: usize) -> Validation {
    if (min..=max).contains(&s.len()) {
        return Ok(());
    }
    Err(ValidationError::new(
        format!(
            "A node group {what} has {min} to {max} characters; {s:?} has {}.",
            s.len()
        ),
        format!("{min} to {max} characters, prefix included"),
        NODE_GROUP_FIELDS,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_names() {
        for ok in ["gpu-cluster", "A", "0_a-B", &"c".repeat(100)] {
            assert!(eks_cluster_name(ok).is_ok(), "{ok}");
        }
        for bad in ["", "-a", "_a", "a.b", "a b", "a/b", "..", &"c".repeat(101)] {
            assert_eq!(eks_cluster_name(bad).unwrap_err().source, CLUSTER, "{bad}");
        }
    }

    #[test]
    fn node_group_names() {
        for ok in ["gpu-inference", "G_1", &"n".repeat(63)] {
            assert!(node_group_name(ok).is_ok(), "{ok}");
        }
        for bad in ["", "-a", "a.b", &"n".repeat(64)] {
            assert!(node_group_name(bad).is_err(), "{bad}");
        }
        assert!(node_group_name_for("gpu", "inference").is_ok());
        assert!(node_group_name_for(&"c".repeat(31), &"p".repeat(31)).is_ok());
        let e = node_group_name_for(&"c".repeat(32), &"p".repeat(31)).unwrap_err();
        assert!(e.message.contains("cluster name, '-', pool name"), "{e}");
        // A valid EKS cluster name can be too long for any node group.
        assert!(eks_cluster_name(&"c".repeat(70)).is_ok());
        assert!(node_group_name_for(&"c".repeat(70), "p").is_err());
    }

    #[test]
    fn role_names() {
        for ok in ["KarpenterNodeRole-gpu-cluster", "a", "r_+=,.@-", &"r".repeat(64)] {
            assert!(iam_role_name(ok).is_ok(), "{ok}");
        }
        for bad in ["", "a b", "a/b", &"r".repeat(65)] {
            assert!(iam_role_name(bad).is_err(), "{bad}");
        }
        let e = iam_role_name("arn:aws:iam::123456789012:role/x").unwrap_err();
        assert!(e.message.contains("not its ARN"), "{e}");
    }

    #[test]
    fn role_arns() {
        for ok in [
            "arn:aws:iam::123456789012:role/KarpenterNodeRole",
            "arn:aws:iam::123456789012:role/eks/nodes/GpuNodes",
            "arn:aws-cn:iam::123456789012:role/x",
            "arn:aws-us-gov:iam::123456789012:role/r_+=,.@-",
            &format!("arn:aws:iam::123456789012:role/{}", "r".repeat(64)),
            &format!("arn:aws:iam::123456789012:role/{}/r", "p".repeat(510)),
        ] {
            assert!(iam_role_arn(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "KarpenterNodeRole",
            "arn:aws:iam::123456789012:role/",
            "arn:aws:iam::123456789012:role",
            "arn:aws:iam::123456789012:user/x",
            "arn:aws:iam::123456789012:instance-profile/x",
            "arn:aws:iam::12345678901:role/x",
            "arn:aws:iam:us-east-1:123456789012:role/x",
            "arn:aws:sts::123456789012:role/x",
            "arn:azure:iam::123456789012:role/x",
            "arn:aws-:iam::123456789012:role/x",
            "arn:aws:iam::123456789012:role/a b",
            "arn:aws:iam::123456789012:role/p\u{e9}/x",
            &format!("arn:aws:iam::123456789012:role/{}", "r".repeat(65)),
            &format!("arn:aws:iam::123456789012:role/{}/r", "p".repeat(511)),
        ] {
            assert_eq!(iam_role_arn(bad).unwrap_err().source, IAM_ARN, "{bad}");
        }
    }

    #[test]
    fn kubernetes_versions_as_eks_writes_them() {
        for ok in ["1.34", "1.30", "1.9", "2.0"] {
            assert!(kubernetes_version(ok).is_ok(), "{ok}");
        }
        for bad in [
            "v1.30", "1.30.1", "1", "1.", ".30", "1.030", "01.30", "1.x", " 1.30", "1.30 ", "+1.30", "1.3a",
        ] {
            assert!(kubernetes_version(bad).is_err(), "{bad}");
        }
        assert!(kubernetes_version("v1.30").unwrap_err().message.contains("without v"));
    }

    #[test]
    fn taint_counts() {
        assert!(node_group_taint_count(0).is_ok());
        assert!(node_group_taint_count(50).is_ok());
        assert!(node_group_taint_count(51).is_err());
    }

    #[test]
    fn releases_belong_to_the_clusters_minor() {
        let k = (1, 34);
        assert!(node_group_release_for("1.34.0-20260801", "AL2023_x86_64_NVIDIA", k).is_ok());
        assert!(node_group_release_for("1.34.2-20261101", "AL2023_ARM_64_NVIDIA", k).is_ok());
        let e = node_group_release_for("1.33.0-20260801", "AL2023_x86_64_NVIDIA", k).unwrap_err();
        assert!(e.message.contains("1.33") && e.message.contains("1.34"), "{e}");
        assert!(node_group_release_for("2.34.0-20260801", "AL2023_x86_64_NVIDIA", k).is_err());
        assert!(node_group_release_for("1.3.0-20260801", "AL2_x86_64_GPU", (1, 34)).is_err());
        assert!(node_group_release_for("1.3.0-20260801", "AL2_x86_64_GPU", (1, 3)).is_ok());
        // Bottlerocket versions its OS, not Kubernetes.
        assert!(node_group_release_for("1.42.0-4f5d8ea2", "BOTTLEROCKET_x86_64_NVIDIA", k).is_ok());
        // Not a release at all.
        assert!(node_group_release_for("latest", "BOTTLEROCKET_x86_64_NVIDIA", k).is_err());
    }

    #[test]
    fn zones() {
        for ok in [
            "us-west-2a",
            "eu-central-1b",
            "ap-southeast-7a",
            "us-gov-west-1a",
            "us-west-2-lax-1a",
            "us-east-1-wl1-bos-wlz-1",
        ] {
            assert!(availability_zone(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "us-west-2",
            "usw2-az1",
            "US-WEST-2A",
            "us-west-2ab",
            "us-west-2a ",
            "west-2a",
            "u-west-2a",
            "us--2a",
        ] {
            assert!(availability_zone(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn node_group_labels_and_taints() {
        assert!(eks_label_key("nvidia.com/gpu.deploy.device-plugin").is_ok());
        let long = format!("{}/x", "a".repeat(62));
        assert!(label_key(&long).is_ok() && eks_label_key(&long).is_err());
        assert!(label_value("").is_ok() && eks_label_value("").is_err());
        assert!(eks_label_value("true").is_ok());
        assert!(eks_taint_key("nvidia.com/gpu").is_ok());
        assert!(eks_taint_key(&long).is_err());
        assert!(eks_taint_value("").is_ok());
        assert!(eks_taint_value("a b").is_err());
    }
}

/// A node group AMI release (`releaseVersion`): `<major>.<minor>.<patch>-<build>`, as EKS
/// publishes them for AL2023 (`1.34.0-20260801`, the Kubernetes version and a date) and
/// Bottlerocket (`1.42.0-4f5d8ea2`, the OS version and a commit).
pub fn node_group_release_version(s: &str) -> Validation {
    let ok = s.split_once('-').is_some_and(|(version, build)| {
        let parts: Vec<&str> = version.split('.').collect();
        parts.len() == 3
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            && !build.is_empty()
            && build.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    });
    if ok {
        Ok(())
    } else {
        Err(ValidationError::new(
            format!("{s:?} is not an EKS AMI release version."),
            "MAJOR.MINOR.PATCH-BUILD such as 1.34.0-20260801 (AL2023) or 1.42.0-4f5d8ea2 (Bottlerocket), as listed in \
             the AMI release notes",
            "EKS API CreateNodegroup releaseVersion (https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html); \
             awslabs/amazon-eks-ami and bottlerocket-os/bottlerocket release tags",
        ))
    }
}

#[cfg(test)]
mod release_version_tests {
    use super::node_group_release_version as v;

    #[test]
    fn al2023_and_bottlerocket_releases() {
        for ok in ["1.34.0-20260801", "1.31.2-20241213", "1.42.0-4f5d8ea2"] {
            assert!(v(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "latest",
            "1.34",
            "1.34.0",
            "1.34.0-",
            "v1.34.0-20260801",
            "1.34.0-2026 0801",
            "1.34.x-1",
        ] {
            assert!(v(bad).is_err(), "{bad}");
        }
    }
}

const AWS_TAGS: &str = "EKS API TagResource (https://docs.aws.amazon.com/eks/latest/APIReference/API_TagResource.html): \
     keys 1-128 characters, values at most 256, the aws: prefix reserved";

/// A tag key EKS accepts on a node group or access entry.
pub fn aws_tag_key(key: &str) -> Validation {
    let why = if key.is_empty() || key.chars().count() > 128 {
        "it must be 1 to 128 characters"
    } else if key.to_ascii_lowercase().starts_with("aws:") {
        "the aws: prefix is reserved for AWS"
    } else {
        return Ok(());
    };
    Err(ValidationError::new(
        format!("{key:?} is not a tag key EKS accepts: {why}."),
        "1 to 128 characters, not starting with aws:",
        AWS_TAGS,
    ))
}

/// A tag value EKS accepts.
pub fn aws_tag_value(value: &str) -> Validation {
    if value.chars().count() <= 256 {
        Ok(())
    } else {
        Err(ValidationError::new(
            "A tag value is longer than 256 characters.",
            "at most 256 characters",
            AWS_TAGS,
        ))
    }
}

/// A network interface or launch template version description EC2 accepts: at most 255
/// characters (EC2 API reference, CreateNetworkInterface `Description`, CreateLaunchTemplate
/// `VersionDescription`).
pub fn ec2_description(value: &str) -> Validation {
    if value.chars().count() <= 255 {
        Ok(())
    } else {
        Err(ValidationError::new(
            "The description is longer than 255 characters.",
            "at most 255 characters",
            "EC2 API reference, CreateNetworkInterface `Description` \
             (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CreateNetworkInterface.html), \
             CreateLaunchTemplate `VersionDescription` \
             (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CreateLaunchTemplate.html)",
        ))
    }
}

#[cfg(test)]
mod aws_tag_tests {
    use super::{aws_tag_key, aws_tag_value};

    #[test]
    fn eks_tag_limits() {
        assert!(aws_tag_key("cost-center").is_ok());
        assert!(aws_tag_key("").is_err());
        assert!(aws_tag_key("aws:createdBy").is_err());
        assert!(aws_tag_key(&"k".repeat(129)).is_err());
        assert!(aws_tag_value("").is_ok());
        assert!(aws_tag_value(&"v".repeat(257)).is_err());
    }
}

const SELF_MANAGED: &str = "EKS user guide, Maintain nodes yourself with self-managed nodes \
     (https://docs.aws.amazon.com/eks/latest/userguide/worker.html); EKS API reference, CreateNodegroup (managed node \
     groups only)";

/// A pool's `capacity`: one of the provider's kinds. A self-managed node group (eksctl
/// `nodeGroups`, an Auto Scaling group the user bootstraps) is refused with the reason and the
/// nearest kind (EKSGPU156).
pub fn capacity_kind(s: &str) -> Validation {
    if crate::model::Capacity::parse(s).is_some() {
        return Ok(());
    }
    let accepted = "`auto_mode`, `karpenter`, `managed_node_group` or `hybrid`";
    let lower = s.to_ascii_lowercase().replace('-', "_");
    if lower.starts_with("self_managed") || lower == "node_group" || lower == "nodegroups" {
        return Err(ValidationError::new(
            format!(
                "EKSGPU156: {s:?} is not a capacity kind of this provider: a self-managed node group is an Auto Scaling \
                 group whose AMI, bootstrap command and upgrades its owner runs, outside what a plan can check. The \
                 nearest kind is `managed_node_group` (EKS runs the group, drains and upgrades its nodes; an NVIDIA AMI \
                 carries the driver, `user_data` takes what a bootstrap override did); on-prem machines are `hybrid`."
            ),
            accepted,
            SELF_MANAGED,
        ));
    }
    Err(ValidationError::new(
        format!("{s:?} is not a capacity kind."),
        accepted,
        "provider/eksgpu-core/src/node_strategy.rs CAPACITY_KINDS",
    ))
}
