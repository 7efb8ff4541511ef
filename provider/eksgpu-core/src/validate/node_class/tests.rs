use std::collections::BTreeSet;

use regex::Regex;

use super::*;
use crate::validate::{cel_rules, crd_node, vendored_crd};

const SPEC: &str = "/properties/spec/properties";

fn ec2nodeclass() -> serde_json::Value {
    vendored_crd("karpenter.k8s.aws_ec2nodeclasses.yaml")
}

/// The quoted strings of every rule of a node, e.g. a CEL list.
fn quoted(rules: &[String]) -> BTreeSet<String> {
    let q = Regex::new(r"'([^']*)'").unwrap();
    rules
        .iter()
        .flat_map(|r| q.captures_iter(r).map(|c| c[1].to_owned()).collect::<Vec<_>>())
        .collect()
}

#[test]
fn alias_families_agree_with_the_crd() {
    let crd = ec2nodeclass();
    let node = crd_node(&crd, &format!("{SPEC}/amiSelectorTerms/items/properties/alias"));
    assert_eq!(node["maxLength"].as_u64(), Some(ALIAS_MAX as u64));
    let rules = cel_rules(&node);
    let family_rule = rules.iter().find(|r| r.contains("split('@')[0] in")).unwrap();
    let list = Regex::new(r"in \[([^\]]*)\]").unwrap().captures(family_rule).unwrap()[1].to_owned();
    let families = quoted(&[list]);
    let ours: BTreeSet<String> = ALIAS_FAMILIES.iter().map(|(f, _)| (*f).to_owned()).collect();
    assert_eq!(ours, families);
    let windows_rule = rules.iter().find(|r| r.contains("== 'latest'")).unwrap();
    for f in quoted(std::slice::from_ref(windows_rule))
        .iter()
        .filter(|f| f.starts_with("windows"))
    {
        assert!(ami_alias(&format!("{f}@latest"), None, (1, 14)).is_ok(), "{f}");
        assert!(ami_alias(&format!("{f}@v20240807"), None, (1, 14)).is_err(), "{f}");
    }
}

#[test]
fn aliases() {
    let k = (1, 14);
    for ok in [
        "al2023@latest",
        "al2023@v20240807",
        "bottlerocket@v1.20.4",
        "al2@latest",
        "windows2022@latest",
    ] {
        assert!(ami_alias(ok, Some((1, 32)), k).is_ok(), "{ok}");
    }
    for bad in [
        "",
        "al2023",
        "@latest",
        "al2023@",
        "ubuntu@latest",
        "AL2023@latest",
        "al-2023@latest",
        "al2023@v20240807000000000000000",
    ] {
        let e = ami_alias(bad, None, k).unwrap_err();
        assert_eq!(e.source, ALIAS, "{bad}");
    }
    // AL2 ends at Kubernetes 1.33; Windows Server 2025 starts at 1.35 and Karpenter 1.9.
    assert!(ami_alias("al2@latest", Some((1, 33)), k).is_err());
    assert!(ami_alias("al2@latest", None, k).is_ok());
    assert!(ami_alias("windows2025@latest", Some((1, 34)), k).is_err());
    assert!(ami_alias("windows2025@latest", Some((1, 35)), k).is_ok());
    assert!(ami_alias("windows2025@latest", Some((1, 35)), (1, 8)).is_err());
    assert!(ami_alias("al2023@latest", Some((1, 36)), (1, 0)).is_ok());
}

#[test]
fn volume_types_agree_with_the_crd_enum() {
    let crd = ec2nodeclass();
    let node = crd_node(
        &crd,
        &format!("{SPEC}/blockDeviceMappings/items/properties/ebs/properties/volumeType"),
    );
    let crd_types: BTreeSet<&str> = node["enum"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert_eq!(crd_types, EBS_VOLUME_TYPES.into_iter().collect());
    for t in EBS_VOLUME_TYPES {
        assert!(ebs_volume_type(t).is_ok());
    }
    for bad in ["", "GP3", "gp4", "io3"] {
        assert!(ebs_volume_type(bad).is_err(), "{bad}");
    }
}

#[test]
fn volume_sizes_agree_with_the_crd_pattern() {
    let crd = ec2nodeclass();
    let node = crd_node(
        &crd,
        &format!("{SPEC}/blockDeviceMappings/items/properties/ebs/properties/volumeSize"),
    );
    let pattern = node["pattern"].as_str().unwrap().to_owned();
    let re = Regex::new(&pattern).unwrap();
    for unit in ["Gi", "G", "Ti", "T", "Mi", "", "gi"] {
        for n in (0..=100).chain([
            999, 1000, 9999, 10000, 49999, 50000, 58999, 59000, 59001, 63999, 64000, 64001,
        ]) {
            let s = format!("{n}{unit}");
            assert_eq!(karpenter_volume_size(&s).is_ok(), re.is_match(&s), "{s} vs {pattern}");
        }
    }
    for s in ["", "01Gi", "1.5Gi", "200Gi ", "+200Gi"] {
        assert_eq!(karpenter_volume_size(s).is_ok(), re.is_match(s), "{s:?}");
    }
    // The pattern's empty alternatives: a bare unit matches it but is no size.
    for s in ["Ti", "T"] {
        assert!(re.is_match(s) && karpenter_volume_size(s).is_err(), "{s}");
    }
    assert!(karpenter_volume_size("200Gi").is_ok());
    assert!(karpenter_volume_size("18Ti").is_err());
}

#[test]
fn eviction_signals_agree_with_the_crd_rule() {
    let crd = ec2nodeclass();
    for field in ["evictionHard", "evictionSoft", "evictionSoftGracePeriod"] {
        let node = crd_node(&crd, &format!("{SPEC}/kubelet/properties/{field}"));
        let signals = quoted(&cel_rules(&node));
        assert_eq!(
            signals,
            EVICTION_SIGNALS.into_iter().map(str::to_owned).collect(),
            "{field}"
        );
    }
    assert!(eviction_signal("memory.available").is_ok());
    for bad in ["", "memory", "nodefs.inodesfree", "allocatableMemory.available"] {
        assert!(eviction_signal(bad).is_err(), "{bad}");
    }
}

#[test]
fn eviction_thresholds_agree_with_the_crd_pattern() {
    let crd = ec2nodeclass();
    let node = crd_node(&crd, &format!("{SPEC}/kubelet/properties/evictionHard"));
    let pattern = node["additionalProperties"]["pattern"].as_str().unwrap().to_owned();
    let re = Regex::new(&pattern).unwrap();
    for s in [
        "5%", "10.5%", "10.55%", "10.555%", "100%", "100.0%", "100.00%", "100.1%", "101%", "0%", "05%", "%", ".5%",
        "5.%", "500Mi", "1Gi", "1.5Gi", "1e3", "abc", "5 %", "-1Gi",
    ] {
        assert_eq!(eviction_threshold(s).is_ok(), re.is_match(s), "{s:?} vs {pattern}");
    }
    // The pattern's empty alternative: the kubelet cannot parse an empty threshold.
    assert!(re.is_match("") && eviction_threshold("").is_err());
}

#[test]
fn tag_keys_agree_with_the_crd_rules() {
    let crd = ec2nodeclass();
    let rules = cel_rules(&crd_node(&crd, &format!("{SPEC}/tags")));
    let exact = Regex::new(r"k ?!= ?'([^']+)'").unwrap();
    let prefix = Regex::new(r"!k\.startsWith\('([^']+)'\)").unwrap();
    let mut understood = 0;
    for rule in &rules {
        if rule.contains("k != ''") {
            assert!(node_class_tag_key("").is_err());
            understood += 1;
        } else if let Some(c) = exact.captures(rule) {
            assert!(node_class_tag_key(&c[1]).is_err(), "{}", &c[1]);
            understood += 1;
        } else if let Some(c) = prefix.captures(rule) {
            for key in [c[1].to_owned(), format!("{}/my-cluster", &c[1]), format!("{}x", &c[1])] {
                assert!(node_class_tag_key(&key).is_err(), "{key}");
            }
            understood += 1;
        }
    }
    assert_eq!(
        understood,
        rules.len(),
        "a tag rule this test does not understand: {rules:?}"
    );
    for ok in [
        "team",
        "Name",
        "eks:other",
        "karpenter.sh/discovery",
        "kubernetes.io/role",
    ] {
        assert!(node_class_tag_key(ok).is_ok(), "{ok}");
    }
    for bad in ["aws:foo", "AWS:foo", &"k".repeat(129)] {
        assert!(node_class_tag_key(bad).is_err(), "{bad}");
    }
    assert!(node_class_tag_value("").is_ok());
    assert!(node_class_tag_value("aws:x").is_err());
    assert!(node_class_tag_value(&"v".repeat(257)).is_err());
}

#[test]
fn selector_tags_agree_with_the_crd_rule() {
    let crd = ec2nodeclass();
    for term in ["subnetSelectorTerms", "securityGroupSelectorTerms"] {
        let rules = cel_rules(&crd_node(&crd, &format!("{SPEC}/{term}/items/properties/tags")));
        assert!(
            rules.iter().any(|r| r == "self.all(k, k != '' && self[k] != '')"),
            "{term}: {rules:?}"
        );
    }
}
