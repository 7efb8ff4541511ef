//! Kubernetes object names: what the API server accepts in `metadata.name`
//! and `metadata.namespace`, and therefore what may appear in a request path.

use super::{Validation, ValidationError, labels};

pub(crate) const DNS: &str = "k8s.io/apimachinery v0.36.3 pkg/api/validate/content/dns.go \
     (IsDNS1123Label, IsDNS1123Subdomain; re-exported by pkg/util/validation/validation.go)";
const NAMESPACE: &str = "k8s.io/apimachinery v0.36.3 pkg/api/validation/generic.go \
     (ValidateNamespaceName = NameIsDNSLabel)";
const CONFIG_MAP: &str = "kubernetes/kubernetes pkg/apis/core/validation/validation.go \
     (ValidateConfigMapName = NameIsDNSSubdomain)";
const CONFIG_MAP_KEY: &str = "k8s.io/apimachinery v0.36.3 pkg/util/validation/validation.go (IsConfigMapKey)";
const DEVICE_CLASS: &str = "kubernetes/kubernetes pkg/apis/resource/validation/validation.go \
     (ValidateDeviceClass: ValidateClassName = NameIsDNSSubdomain; validateDeviceClassName)";
const CUSTOM_RESOURCE: &str = "kubernetes/apiextensions-apiserver v0.36.3 pkg/registry/customresource/validator.go \
     (metadata.name: NameIsDNSSubdomain)";
const CLUSTER_LABEL: &str = "k8s.io/apimachinery v0.36.3 pkg/api/validate/content/kube.go (IsLabelValue), \
     as the value of the label eksgpu.terraform.io/cluster (names past 63 characters shortened with a hash)";

pub(crate) const LABEL_MAX: usize = 63;
pub(crate) const SUBDOMAIN_MAX: usize = 253;

const LABEL_ACCEPTED: &str =
    "at most 63 characters: lower-case letters, digits and '-', starting and ending with a letter or digit";
const SUBDOMAIN_ACCEPTED: &str = "at most 253 characters: dot-separated parts of lower-case letters, digits and '-', \
     each starting and ending with a letter or digit";

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?` without the length limit.
pub(crate) fn is_label_shape(s: &str) -> bool {
    let b = s.as_bytes();
    let inner = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-';
    match (b.first(), b.last()) {
        (Some(f), Some(l)) => f != &b'-' && l != &b'-' && b.iter().all(inner),
        _ => false,
    }
}

pub(crate) fn is_subdomain(s: &str) -> bool {
    s.len() <= SUBDOMAIN_MAX && s.split('.').all(is_label_shape)
}

fn what(kind: &str, s: &str, rule: &str) -> String {
    format!("{s:?} is not a valid {kind}: {rule}.")
}

/// An RFC 1123 label named `kind`: at most 63 characters of `[a-z0-9]([-a-z0-9]*[a-z0-9])?`.
fn label_as(kind: &str, s: &str, source: &'static str) -> Validation {
    if s.len() > LABEL_MAX {
        return Err(ValidationError::new(
            what(kind, s, &format!("{} characters, more than {LABEL_MAX}", s.len())),
            LABEL_ACCEPTED,
            source,
        ));
    }
    if !is_label_shape(s) {
        return Err(ValidationError::new(
            what(
                kind,
                s,
                "only lower-case letters, digits and '-', starting and ending with a letter or digit",
            ),
            LABEL_ACCEPTED,
            source,
        ));
    }
    Ok(())
}

/// An RFC 1123 subdomain (the name of most objects): at most 253
/// characters of dot-separated RFC 1123 labels.
pub fn dns1123_subdomain(s: &str) -> Validation {
    subdomain_as("RFC 1123 subdomain", s, DNS)
}

fn subdomain_as(kind: &str, s: &str, source: &'static str) -> Validation {
    if s.len() > SUBDOMAIN_MAX {
        return Err(ValidationError::new(
            what(kind, s, &format!("{} characters, more than {SUBDOMAIN_MAX}", s.len())),
            SUBDOMAIN_ACCEPTED,
            source,
        ));
    }
    if !is_subdomain(s) {
        return Err(ValidationError::new(
            what(
                kind,
                s,
                "only lower-case letters, digits, '-' and '.', each part starting and ending with a letter or digit",
            ),
            SUBDOMAIN_ACCEPTED,
            source,
        ));
    }
    Ok(())
}

/// A Namespace name: an RFC 1123 label (apimachinery IsDNS1123Label).
pub fn namespace_name(s: &str) -> Validation {
    label_as("namespace name", s, NAMESPACE)
}

/// A ConfigMap name: an RFC 1123 subdomain.
pub fn config_map_name(s: &str) -> Validation {
    subdomain_as("ConfigMap name", s, CONFIG_MAP)
}

/// A key of a ConfigMap's `data`: at most 253 characters of `[-._a-zA-Z0-9]`,
/// not `.` or `..` and not starting with `..`.
pub fn config_map_key(s: &str) -> Validation {
    let accepted = "at most 253 characters of letters, digits, '-', '_' and '.', not '.', '..' or starting with '..'";
    let ok = !s.is_empty()
        && s.len() <= SUBDOMAIN_MAX
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && s != "."
        && !s.starts_with("..");
    if ok {
        Ok(())
    } else {
        Err(ValidationError::new(
            format!("{s:?} is not a valid ConfigMap key."),
            accepted,
            CONFIG_MAP_KEY,
        ))
    }
}

/// A DRA DeviceClass name (and a ResourceClaim's `deviceClassName`): an RFC 1123 subdomain.
pub fn device_class_name(s: &str) -> Validation {
    subdomain_as("DeviceClass name", s, DEVICE_CLASS)
}

/// The name of a custom resource (NodePool, EC2NodeClass, NodeClass,
/// ScaledObject, ResourceClaim): an RFC 1123 subdomain.
pub fn object_name(s: &str) -> Validation {
    subdomain_as("object name", s, CUSTOM_RESOURCE)
}

/// An EKS cluster name as the provider uses it: the value of the label
/// `eksgpu.terraform.io/cluster` on every object it creates is the name, or,
/// for names that are no label value (64–100 characters, a trailing `-` or
/// `_`), a deterministic shortening (`kinds::labels::cluster_value`). So every
/// EKS cluster name is usable; this refuses only what yields no label value.
pub fn cluster_name_label_value(s: &str) -> Validation {
    if s.is_empty() {
        return Err(ValidationError::new(
            "The cluster name may not be empty.",
            "an EKS cluster name of 1 to 100 characters",
            CLUSTER_LABEL,
        ));
    }
    let value = crate::kinds::labels::cluster_value(s);
    labels::label_value(&value).map_err(|e| ValidationError {
        message: format!(
            "Cluster name {s:?} cannot label objects (eksgpu.terraform.io/cluster = {value:?}): {}",
            e.message
        ),
        accepted: "an EKS cluster name: letters, digits, '-' and '_', starting with a letter or digit".into(),
        source: CLUSTER_LABEL,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        for ok in ["a", "gpu-inference", "0", "a1-b2", &"a".repeat(63)] {
            assert!(namespace_name(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "-a",
            "a-",
            "A",
            "a_b",
            "a.b",
            "a b",
            &"a".repeat(64),
            "é",
            "..",
            "a/b",
        ] {
            let e = namespace_name(bad).unwrap_err();
            assert_eq!(e.source, NAMESPACE);
        }
    }

    #[test]
    fn subdomains() {
        let long_ok = format!(
            "{}.{}.{}.{}",
            "a".repeat(63),
            "b".repeat(63),
            "c".repeat(63),
            "d".repeat(61)
        );
        assert_eq!(long_ok.len(), 253);
        for ok in [
            "a",
            "gpu.nvidia.com",
            "device-plugin-config",
            "a.b-c.d",
            long_ok.as_str(),
        ] {
            assert!(dns1123_subdomain(ok).is_ok(), "{ok}");
            assert!(config_map_name(ok).is_ok(), "{ok}");
            assert!(device_class_name(ok).is_ok(), "{ok}");
            assert!(object_name(ok).is_ok(), "{ok}");
        }
        let too_long = format!("{long_ok}a");
        for bad in [
            "",
            ".",
            "..",
            "a..b",
            ".a",
            "a.",
            "A.b",
            "a_b",
            "a/b",
            "a?b",
            "%2e%2e",
            too_long.as_str(),
        ] {
            assert!(dns1123_subdomain(bad).is_err(), "{bad}");
            assert!(config_map_name(bad).is_err(), "{bad}");
            assert!(device_class_name(bad).is_err(), "{bad}");
            assert!(object_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn config_map_keys() {
        for ok in ["gpu-inference", "A_b.c", ".a", "a..b"] {
            assert!(config_map_key(ok).is_ok(), "{ok}");
        }
        for bad in ["", ".", "..", "..a", "a/b", "a b", &"a".repeat(254)] {
            assert!(config_map_key(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn cluster_names_as_label_values() {
        // Every EKS cluster name (1-100 characters) labels objects, shortened past 63.
        for ok in [
            "gpu-cluster",
            "My_Cluster-1",
            &"c".repeat(63),
            &"c".repeat(64),
            &"c".repeat(100),
            "gpu-",
        ] {
            assert!(cluster_name_label_value(ok).is_ok(), "{ok}");
        }
        for bad in ["", "-a", "a b", "a/b"] {
            let e = cluster_name_label_value(bad).unwrap_err();
            assert_eq!(e.source, CLUSTER_LABEL);
        }
    }
}
