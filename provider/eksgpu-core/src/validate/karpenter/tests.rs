use std::collections::BTreeSet;

use regex::Regex;

use super::*;
use crate::validate::{cel_rules, crd_node, vendored_crd};

const V1_14: Version = (1, 14);

const TEMPLATE_LABELS: &str = "/properties/spec/properties/template/properties/metadata/properties/labels";
const REQUIREMENT_KEY: &str =
    "/properties/spec/properties/template/properties/spec/properties/requirements/items/properties/key";

/// The CEL rules on NodePool label keys, read from the vendored v1.14.1 CRD:
/// `(domain, allowed keys)` per domain rule, and the single keys refused.
fn crd_label_rules(pointer: &str) -> (Vec<(String, BTreeSet<String>)>, BTreeSet<String>) {
    let crd = vendored_crd("karpenter.sh_nodepools.yaml");
    let rules = cel_rules(&crd_node(&crd, pointer));
    assert!(!rules.is_empty(), "no CEL rules at {pointer}");
    let domain_rule =
        Regex::new(r#"in \[([^\]]*)\] \|\| !(?:x|self)\.find\("\^\(\[\^/\]\+\)"\)\.endsWith\("([^"]+)"\)"#).unwrap();
    let key_rule = Regex::new(r#"(?:x|self) != "([^"]+)""#).unwrap();
    let quoted = Regex::new(r#""([^"]+)""#).unwrap();
    let (mut domains, mut keys) = (Vec::new(), BTreeSet::new());
    for rule in rules {
        if let Some(c) = domain_rule.captures(&rule) {
            let allowed = quoted.captures_iter(&c[1]).map(|q| q[1].to_owned()).collect();
            domains.push((c[2].to_owned(), allowed));
        } else if let Some(c) = key_rule.captures(&rule) {
            keys.insert(c[1].to_owned());
        } else {
            panic!("a label rule this test does not understand: {rule}");
        }
    }
    (domains, keys)
}

#[test]
fn agrees_with_the_vendored_nodepool_crd() {
    for pointer in [TEMPLATE_LABELS, REQUIREMENT_KEY] {
        let (domains, keys) = crd_label_rules(pointer);
        // The same restricted domains as the CRD, no more and no fewer.
        let crd_domains: BTreeSet<&str> = domains.iter().map(|(d, _)| d.as_str()).collect();
        assert_eq!(crd_domains, RESTRICTED_DOMAINS.iter().map(|(d, _)| *d).collect());
        for (domain, allowed) in &domains {
            for key in allowed {
                let refused = karpenter_node_label_key(key, V1_14).is_err();
                // Allowed by CEL unless a single-key rule (or the runtime check) refuses it.
                assert_eq!(
                    refused,
                    keys.contains(key) || RESTRICTED_KEYS.contains(&key.as_str()),
                    "{key}"
                );
            }
            for key in [
                format!("{domain}/made-up"),
                format!("sub.{domain}/x"),
                format!("x{domain}/y"),
                domain.clone(),
            ] {
                assert!(karpenter_node_label_key(&key, V1_14).is_err(), "{key}");
            }
        }
        for key in &keys {
            assert!(karpenter_node_label_key(key, V1_14).is_err(), "{key}");
            assert!(RESTRICTED_KEYS.contains(&key.as_str()), "{key}");
        }
    }
    // The AWS list is the CRD's, less the one the runtime check refuses.
    let (domains, _) = crd_label_rules(TEMPLATE_LABELS);
    let aws = domains.iter().find(|(d, _)| d == "karpenter.k8s.aws").unwrap();
    let mut expected = aws.1.clone();
    expected.remove("karpenter.k8s.aws/ec2nodeclass");
    assert_eq!(
        KARPENTER_AWS_WELL_KNOWN_LABELS
            .into_iter()
            .map(str::to_owned)
            .collect::<BTreeSet<_>>(),
        expected
    );
}

#[test]
fn node_labels_per_version() {
    for ok in [
        "team",
        "nvidia.com/gpu.deploy.device-plugin",
        "karpenter.sh/capacity-type",
        "karpenter.k8s.aws/instance-gpu-name",
        "topology.kubernetes.io/zone",
        "node.kubernetes.io/role",
        "kops.k8s.io/x",
    ] {
        assert!(karpenter_node_label_key(ok, (1, 8)).is_ok(), "{ok}");
        assert!(karpenter_node_label_key(ok, V1_14).is_ok(), "{ok}");
    }
    // Restricted before 1.9 only.
    for key in [
        "kubernetes.io/role",
        "example.kubernetes.io/x",
        "k8s.io/x",
        "foo.k8s.io/x",
    ] {
        assert!(karpenter_node_label_key(key, (1, 8)).is_err(), "{key}");
        assert!(karpenter_node_label_key(key, (1, 9)).is_ok(), "{key}");
    }
    // Always restricted.
    for key in [
        "karpenter.sh/nodepool",
        "kubernetes.io/hostname",
        "karpenter.sh/foo",
        "karpenter.k8s.aws/ec2nodeclass",
        "karpenter.k8s.aws/foo",
    ] {
        let e = karpenter_node_label_key(key, V1_14).unwrap_err();
        assert_eq!(e.source, LABELS);
    }
    // Not a label key at all.
    assert!(karpenter_node_label_key("a b", V1_14).is_err());
}

#[test]
fn capacity_types() {
    for ok in ["on-demand", "spot", "reserved"] {
        assert!(karpenter_capacity_type(ok, (1, 3)).is_ok(), "{ok}");
    }
    assert!(karpenter_capacity_type("reserved", (1, 2)).is_err());
    assert!(karpenter_capacity_type("spot", (1, 0)).is_ok());
    for bad in ["", "ON_DEMAND", "Spot", "ondemand"] {
        assert!(karpenter_capacity_type(bad, V1_14).is_err(), "{bad}");
    }
}

#[test]
fn consolidation_policies() {
    let crd = vendored_crd("karpenter.sh_nodepools.yaml");
    let node = crd_node(
        &crd,
        "/properties/spec/properties/disruption/properties/consolidationPolicy",
    );
    for v in node["enum"].as_array().unwrap() {
        assert!(
            karpenter_consolidation_policy(v.as_str().unwrap(), V1_14).is_ok(),
            "{v}"
        );
    }
    assert!(karpenter_consolidation_policy("Balanced", (1, 13)).is_err());
    assert!(karpenter_consolidation_policy("WhenEmpty", (1, 0)).is_ok());
    let e = karpenter_consolidation_policy("WhenUnderutilized", V1_14).unwrap_err();
    assert!(e.message.contains("v1beta1"), "{e}");
    assert!(karpenter_consolidation_policy("", V1_14).is_err());
}

#[test]
fn durations_match_the_crd_pattern() {
    let crd = vendored_crd("karpenter.sh_nodepools.yaml");
    for pointer in [
        "/properties/spec/properties/disruption/properties/consolidateAfter",
        "/properties/spec/properties/template/properties/spec/properties/expireAfter",
    ] {
        let pattern = crd_node(&crd, pointer)["pattern"].as_str().unwrap().to_owned();
        let re = Regex::new(&pattern).unwrap();
        for s in [
            "", "0s", "30s", "5m", "1h30m", "720h", "Never", "never", "1.5h", "100ms", "1d", "h", "5", "5m ", "-5m",
            "1h1h", "s5",
        ] {
            assert_eq!(karpenter_duration(s).is_ok(), re.is_match(s), "{s:?} vs {pattern}");
        }
    }
}

#[test]
fn budget_nodes_and_durations_match_the_crd_patterns() {
    let crd = vendored_crd("karpenter.sh_nodepools.yaml");
    let budget = "/properties/spec/properties/disruption/properties/budgets/items/properties";
    let re = |field: &str| {
        Regex::new(
            crd_node(&crd, &format!("{budget}/{field}"))["pattern"]
                .as_str()
                .unwrap(),
        )
        .unwrap()
    };
    let nodes = re("nodes");
    for s in [
        "0", "2", "10", "1000", "0%", "10%", "99%", "100%", "101%", "1000%", "%", "", "-1", "5 ", "10.5%", "a",
    ] {
        assert_eq!(budget_nodes(s).is_ok(), nodes.is_match(s), "{s:?}");
    }
    let duration = re("duration");
    for s in [
        "30m", "8h", "1h30m", "1h30m0s", "8h0s", "0s", "30s", "1h30", "h", "m", "", "1.5h", "1m1h", "10h5m0s", "5m0s0s",
    ] {
        assert_eq!(budget_duration(s).is_ok(), duration.is_match(s), "{s:?}");
    }
}

/// RE2's reading of a CRD pattern with the `regex` crate: the same `.` (any
/// character but `\n`) and `$` (end of text), with `\s` narrowed to RE2's ASCII class.
fn re2(pattern: &str) -> Regex {
    Regex::new(&pattern.replace(r"\s", r"[\t\n\x0C\r ]")).unwrap()
}

#[test]
fn the_schedule_matcher_is_the_crd_pattern_under_re2() {
    let crd = vendored_crd("karpenter.sh_nodepools.yaml");
    let pattern = crd_node(
        &crd,
        "/properties/spec/properties/disruption/properties/budgets/items/properties/schedule",
    )["pattern"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(pattern, SCHEDULE_PATTERN);
    let re = re2(&pattern);
    let mut samples: Vec<String> = [
        "",
        "@daily",
        "@daily ",
        "@dailyx",
        " @daily",
        "@every 5m",
        "0 9 * * 1-5",
        "0 9 * * 1-5\n",
        "\n0 9 * * 1-5",
        "0 9 * *",
        "0\t9\t*\t*\t*",
        "0\u{b}9 * * *",
        "0\u{2028}9 * * * *",
        "0 9 * * *\u{2028}",
        "0 9 * *\n*",
        "a b c d e f",
        "     ",
        "      x",
        "a\r\rb c d e",
        "@hourly\n",
        "x\n@daily",
        "0 9 * * \u{a0}",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    // Every string of up to five characters over the alphabet that matters.
    let alphabet = ['a', ' ', '\n', '\t', '\u{2028}'];
    let mut frontier = vec![String::new()];
    for _ in 0..5 {
        frontier = frontier
            .iter()
            .flat_map(|p| alphabet.iter().map(move |c| format!("{p}{c}")))
            .collect();
        samples.extend(frontier.iter().cloned());
    }
    samples.extend(frontier.iter().map(|s| format!("{s}{s}")));
    for s in &samples {
        assert_eq!(matches_schedule_pattern(s), re.is_match(s), "{s:?}");
    }
}

#[test]
fn budget_schedules_pass_the_api_server_and_karpenters_cron() {
    for s in [
        "0 9 * * 1-5",
        "@daily",
        "@hourly",
        "*/15 * * * *",
        "0 0 1 jan *",
        "0\t9\t*\t*\t*",
        // The pattern anchors only a descriptor's start, and cron trims: both take these.
        "@daily ",
        "@weekly\n",
        // Both split on a newline: RE2's \s and Go's strings.Fields.
        "0 9 * *\n*",
    ] {
        assert!(budget_schedule(s).is_ok(), "{s:?}");
    }
    for s in [
        "",
        "@every 5m",
        "@dailyx",
        "0 9 * *",
        "61 * * * *",
        "TZ=Europe/Paris 0 9 * * *",
        "CRON_TZ=UTC 0 9 * * *",
        "0 9 * * * *",
        // RE2's $ is the end of the text, not the place before a final newline.
        "0 9 * * 1-5\n",
        // U+2028 is white space to cron's strings.Fields but not to RE2's \s.
        "0\u{2028}9 * * *",
        "0\u{2028}9 * * * *",
        // \v is not in RE2's \s either.
        "0\u{b}9 * * *",
        " @daily",
    ] {
        let e = budget_schedule(s).unwrap_err();
        assert!(e.source.contains("karpenter"), "{e}");
    }
}

#[test]
fn durations_fit_gos_time_duration() {
    for ok in ["2562047h47m16s", "2562047h", "153722867m"] {
        assert!(karpenter_duration(ok).is_ok(), "{ok}");
    }
    for over in [
        "2562047h47m17s",
        "2562048h",
        "2562047h2562047h",
        "99999999999999999999s",
    ] {
        let e = karpenter_duration(over).unwrap_err();
        assert!(e.message.contains("time.Duration"), "{e}");
        assert!(e.source.contains("ParseDuration"), "{e}");
    }
    for ok in ["2562047h", "2562047h47m", "153722867m0s"] {
        assert!(budget_duration(ok).is_ok(), "{ok}");
    }
    for over in ["2562048h", "2562047h48m", "153722868m", "1000000000000000000000h0s"] {
        let e = budget_duration(over).unwrap_err();
        assert!(e.message.contains("time.Duration"), "{e}");
    }
}
