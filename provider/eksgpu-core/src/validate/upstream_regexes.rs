//! The name and label validators against apimachinery's own regular
//! expressions (k8s.io/apimachinery v0.36.3 pkg/api/validate/content/dns.go
//! and kube.go), on random strings over the characters that matter.

use std::sync::LazyLock;

use proptest::prelude::*;
use regex::Regex;

use super::*;

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap()
}

static DNS1123_LABEL: LazyLock<Regex> = LazyLock::new(|| re("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"));
static DNS1123_SUBDOMAIN: LazyLock<Regex> =
    LazyLock::new(|| re("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"));
static LABEL_KEY_NAME: LazyLock<Regex> = LazyLock::new(|| re("^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$"));
static LABEL_VALUE: LazyLock<Regex> = LazyLock::new(|| re("^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$"));

/// Strings of the characters the rules care about, short and long.
fn names() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9._/ -]{0,8}",
        "[a-z0-9.-]{0,70}",
        "[a-z0-9.-]{240,260}",
        "[a-z0-9]{1,63}(\\.[a-z0-9-]{0,63}){0,3}/[A-Za-z0-9_.-]{0,66}",
    ]
}

/// apimachinery's IsLabelKey, written with its regexes.
fn upstream_label_key(key: &str) -> bool {
    let parts: Vec<&str> = key.split('/').collect();
    let (prefix, name) = match parts.as_slice() {
        [n] => (None, *n),
        [p, n] => (Some(*p), *n),
        _ => return false,
    };
    let prefix_ok = prefix.is_none_or(|p| !p.is_empty() && p.len() <= 253 && DNS1123_SUBDOMAIN.is_match(p));
    prefix_ok && !name.is_empty() && name.len() <= 63 && LABEL_KEY_NAME.is_match(name)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn agree_with_apimachinery(s in names()) {
        // A Namespace name is exactly an RFC 1123 label.
        prop_assert_eq!(namespace_name(&s).is_ok(), s.len() <= 63 && DNS1123_LABEL.is_match(&s));
        prop_assert_eq!(dns1123_subdomain(&s).is_ok(), s.len() <= 253 && DNS1123_SUBDOMAIN.is_match(&s));
        prop_assert_eq!(label_value(&s).is_ok(), s.len() <= 63 && LABEL_VALUE.is_match(&s));
        prop_assert_eq!(label_key(&s).is_ok(), upstream_label_key(&s));
    }
}
