//! Label keys and values, taints and annotations, as the API server checks
//! them on every object (and the kubelet on node labels and taints).

use super::names::{DNS, is_subdomain};
use super::{Validation, ValidationError};

const KUBE: &str = "k8s.io/apimachinery v0.36.3 pkg/api/validate/content/kube.go (IsLabelKey, IsLabelValue; \
     re-exported as IsQualifiedName, IsValidLabelValue by pkg/util/validation/validation.go)";
const TAINTS: &str = "kubernetes/kubernetes pkg/apis/core/validation/validation.go \
     (validateNodeTaints: key is a qualified name, value a label value; validateTaintEffect)";

const NAME_MAX: usize = 63;
const KEY_ACCEPTED: &str = "an optional DNS subdomain prefix (at most 253 characters) and '/', then a name of at most \
     63 characters: letters, digits, '-', '_' and '.', starting and ending with a letter or digit";
const VALUE_ACCEPTED: &str =
    "empty, or at most 63 characters: letters, digits, '-', '_' and '.', starting and ending with a letter or digit";

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`, length unchecked.
fn is_name_shape(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(f), Some(l)) => {
            f.is_ascii_alphanumeric()
                && l.is_ascii_alphanumeric()
                && b.iter()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// Why `key` is not a qualified name, or `None`.
fn key_problem(key: &str) -> Option<String> {
    let (prefix, name) = match key.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    if name.contains('/') {
        return Some("it has more than one '/'".into());
    }
    if let Some(p) = prefix {
        if p.is_empty() {
            return Some("the prefix before '/' is empty".into());
        }
        if !is_subdomain(p) {
            return Some(format!("the prefix {p:?} is not a DNS subdomain ({DNS})"));
        }
    }
    if name.is_empty() {
        return Some("the name part is empty".into());
    }
    if name.len() > NAME_MAX {
        return Some(format!(
            "the name part has {} characters, more than {NAME_MAX}",
            name.len()
        ));
    }
    if !is_name_shape(name) {
        return Some(format!(
            "the name part {name:?} may hold only letters, digits, '-', '_' and '.', and must start and end with a letter or digit"
        ));
    }
    None
}

/// A label key (a "qualified name"): `[prefix/]name`, the prefix a DNS
/// subdomain of at most 253 characters, the name at most 63 characters of
/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`. Annotation keys follow the same rule.
pub fn label_key(key: &str) -> Validation {
    match key_problem(key) {
        None => Ok(()),
        Some(why) => Err(ValidationError::new(
            format!("{key:?} is not a valid label key: {why}."),
            KEY_ACCEPTED,
            KUBE,
        )),
    }
}

/// A label value: empty, or at most 63 characters of `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`.
pub fn label_value(value: &str) -> Validation {
    if value.len() > NAME_MAX {
        return Err(ValidationError::new(
            format!(
                "{value:?} is not a valid label value: {} characters, more than {NAME_MAX}.",
                value.len()
            ),
            VALUE_ACCEPTED,
            KUBE,
        ));
    }
    if !value.is_empty() && !is_name_shape(value) {
        return Err(ValidationError::new(
            format!(
                "{value:?} is not a valid label value: only letters, digits, '-', '_' and '.', starting and ending with a letter or digit."
            ),
            VALUE_ACCEPTED,
            KUBE,
        ));
    }
    Ok(())
}

/// A label value that names something and so may not be empty: the strategy
/// and sharing pool names the provider puts in labels.
pub fn non_empty_label_value(value: &str) -> Validation {
    if value.is_empty() {
        return Err(ValidationError::new(
            "The value may not be empty: it names an object in a label.",
            VALUE_ACCEPTED.trim_start_matches("empty, or "),
            KUBE,
        ));
    }
    label_value(value)
}

/// A taint key: the same rule as a label key.
pub fn taint_key(key: &str) -> Validation {
    match key_problem(key) {
        None => Ok(()),
        Some(why) => Err(ValidationError::new(
            format!("{key:?} is not a valid taint key: {why}."),
            KEY_ACCEPTED,
            TAINTS,
        )),
    }
}

/// A taint value: the same rule as a label value (empty is legal).
pub fn taint_value(value: &str) -> Validation {
    label_value(value).map_err(|e| ValidationError {
        message: e.message.replace("label value", "taint value"),
        source: TAINTS,
        ..e
    })
}

/// A taint effect in Kubernetes spelling.
pub fn taint_effect(effect: &str) -> Validation {
    if matches!(effect, "NoSchedule" | "PreferNoSchedule" | "NoExecute") {
        Ok(())
    } else {
        Err(ValidationError::new(
            format!("{effect:?} is not a taint effect."),
            "NoSchedule, PreferNoSchedule or NoExecute (the EKS API's NO_SCHEDULE style is mapped by the provider)",
            TAINTS,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_keys() {
        let prefix = format!(
            "{}.{}.{}.{}",
            "a".repeat(63),
            "b".repeat(63),
            "c".repeat(63),
            "d".repeat(61)
        );
        let long_ok = format!("{prefix}/{}", "N".repeat(63));
        for ok in [
            "team",
            "Team_1",
            "nvidia.com/gpu",
            "nvidia.com/gpu.deploy.device-plugin",
            "karpenter.sh/capacity-type",
            "a/b",
            "x",
            long_ok.as_str(),
        ] {
            assert!(label_key(ok).is_ok(), "{ok}");
            assert!(taint_key(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "/a",
            "a/",
            "a/b/c",
            "A.com/b",
            "-a",
            "a-",
            "a b",
            "a:b",
            "é",
            &"n".repeat(64),
            &format!("{prefix}x/a"),
            "under_score.com/a",
        ] {
            let e = label_key(bad).unwrap_err();
            assert_eq!(e.source, KUBE, "{bad}");
            assert_eq!(taint_key(bad).unwrap_err().source, TAINTS, "{bad}");
        }
    }

    #[test]
    fn label_values() {
        for ok in ["", "a", "true", "A-b_c.d", "0", &"v".repeat(63)] {
            assert!(label_value(ok).is_ok(), "{ok:?}");
            assert!(taint_value(ok).is_ok(), "{ok:?}");
        }
        for bad in ["-a", "a-", ".a", "a b", "a/b", "a:b", &"v".repeat(64), "\n"] {
            assert!(label_value(bad).is_err(), "{bad:?}");
            let e = taint_value(bad).unwrap_err();
            assert!(e.message.contains("taint value"), "{e}");
        }
    }

    #[test]
    fn non_empty_label_values() {
        assert!(non_empty_label_value("genai").is_ok());
        assert!(non_empty_label_value("").is_err());
        assert!(non_empty_label_value("a b").is_err());
    }

    #[test]
    fn taint_effects() {
        for ok in ["NoSchedule", "PreferNoSchedule", "NoExecute"] {
            assert!(taint_effect(ok).is_ok());
        }
        for bad in ["", "NO_SCHEDULE", "noschedule", "NoScheduleNoAdmit"] {
            assert!(taint_effect(bad).is_err(), "{bad}");
        }
    }
}
