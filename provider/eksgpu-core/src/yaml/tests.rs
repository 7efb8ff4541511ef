use super::*;
use serde_json::json;

#[test]
fn renders_block_yaml_with_safe_quoting() {
    let v = json!({
        "kind": "NodePool",
        "labels": {"nvidia.com/gpu.deploy.device-plugin": "false", "team": "ml"},
        "limits": {"nvidia.com/gpu": 32},
        "requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]}],
        "empty": {},
        "none": [],
        "ratio": "0.5",
        "text": "a: b",
    });
    let y = to_yaml(&v);
    assert_eq!(
        y,
        "kind: NodePool\nlabels:\n  nvidia.com/gpu.deploy.device-plugin: \"false\"\n  team: ml\nlimits:\n  nvidia.com/gpu: 32\nrequirements:\n- key: karpenter.sh/capacity-type\n  operator: In\n  values:\n  - spot\n  - on-demand\nempty: {}\nnone: []\nratio: \"0.5\"\ntext: \"a: b\"\n"
    );
}

#[test]
fn streams_join_documents() {
    assert_eq!(
        to_yaml_stream(&[json!({"a": 1}), json!({"b": "x"})]),
        "a: 1\n---\nb: x\n"
    );
}

// ---- Round trips through a real YAML parser ----

use std::collections::BTreeMap;
use std::sync::LazyLock;

use proptest::prelude::*;
use regex::Regex;

/// Fragments that have tricked YAML emitters: 1.1 booleans, nulls, numbers in
/// every radix, sexagesimal, timestamps, indicators, document markers, line
/// breaks of both versions, the BOM, tabs, spaces at the ends.
const TRICKY: &[&str] = &[
    "y",
    "Y",
    "n",
    "N",
    "yes",
    "No",
    "ON",
    "off",
    "true",
    "False",
    "null",
    "Null",
    "~",
    "",
    " ",
    "  ",
    "\t",
    "\r",
    "\n",
    "\r\n",
    "\u{85}",
    "\u{2028}",
    "\u{2029}",
    "\u{feff}",
    "\u{0}",
    "\u{7}",
    "\u{1b}",
    "\u{7f}",
    "\u{a0}",
    "\u{fffe}",
    "\u{ffff}",
    "0",
    "-0",
    "+1",
    "012",
    "0o17",
    "0x1F",
    "0b101",
    "1_000",
    "1:30",
    "190:20:30.15",
    "1e3",
    "6.8523015e+5",
    ".5",
    "1.",
    ".inf",
    "-.Inf",
    ".NaN",
    "2001-12-14",
    "2001-12-14t21:59:43.10-05:00",
    "<<",
    "=",
    "---",
    "...",
    "- ",
    "? ",
    ": ",
    ":",
    " #",
    "#",
    "&a",
    "*a",
    "!tag",
    "!!str",
    "|",
    ">",
    "'",
    "\"",
    "%YAML 1.2",
    "@",
    "`",
    "[",
    "]",
    "{",
    "}",
    ",",
    "\\",
    "a",
    "B",
    "gpu",
    "200Gi",
    "é",
    "日本",
    "😀",
    "/",
    "_",
    "$",
    "(",
    "%",
];

fn tricky_string() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => proptest::sample::select(TRICKY).prop_map(str::to_owned),
        1 => any::<char>().prop_map(String::from),
        1 => "[a-z0-9./-]{1,8}",
    ];
    prop_oneof![
        4 => proptest::collection::vec(piece, 0..5).prop_map(|v| v.concat()),
        1 => any::<String>(),
    ]
}

/// Parses with YAML 1.1 booleans (serde-saphyr's default) and, separately,
/// with YAML 1.1 octals; both must give back exactly `expected`.
fn assert_round_trip(yaml: &str, expected: &Value) {
    let parsed: Value = serde_saphyr::from_str(yaml).unwrap_or_else(|e| panic!("{e}\n---\n{yaml}"));
    assert_eq!(&parsed, expected, "\n{yaml}");
    let legacy = serde_saphyr::options! { legacy_octal_numbers: true };
    let parsed: Value = serde_saphyr::from_str_with_options(yaml, legacy).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
    assert_eq!(&parsed, expected, "YAML 1.1 octals\n{yaml}");
    let docs: Vec<Value> = serde_saphyr::from_multiple(yaml).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
    assert_eq!(docs.len(), 1, "exactly one document\n{yaml}");
}

/// The implicit resolvers of YAML 1.1 (yaml.org/type: bool, null, int, float,
/// merge, value, timestamp), as PyYAML's `resolver.py` applies them to plain
/// scalars. The Rust parser knows YAML 1.2 plus 1.1 booleans; this covers the
/// rest of 1.1 (sexagesimal, timestamps, `=`).
static YAML11_RESOLVERS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        r"^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$",
        r"^(?:~|null|Null|NULL|)$",
        r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$",
        r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        r"^(?:<<)$",
        r"^(?:=)$",
        r"^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$",
    ]
    .iter()
    .map(|r| Regex::new(r).unwrap())
    .collect()
});

fn assert_not_resolved_by_yaml11(s: &str) {
    if is_plain_safe(s) {
        for r in YAML11_RESOLVERS.iter() {
            assert!(!r.is_match(s), "{s:?} is written plain but YAML 1.1 resolves it ({r})");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn any_string_value_and_key_round_trips(k in tricky_string(), v in tricky_string()) {
        let doc = json!({ "k": v.clone(), k.clone(): "v", "list": [v.clone(), {k.clone(): v.clone()}] });
        assert_round_trip(&to_yaml(&doc), &doc);
        // Typed and strict: serde-saphyr's `no_schema` refuses a plain scalar
        // that any schema would read as a boolean or number.
        let map = BTreeMap::from([(k.clone(), v.clone())]);
        let yaml = to_yaml(&json!(map));
        let strict = serde_saphyr::options! { no_schema: true };
        let parsed: BTreeMap<String, String> = serde_saphyr::from_str_with_options(&yaml, strict)
            .unwrap_or_else(|e| panic!("{e}\n{yaml}"));
        prop_assert_eq!(parsed, map);
        assert_not_resolved_by_yaml11(&k);
        assert_not_resolved_by_yaml11(&v);
    }

    #[test]
    fn a_string_document_round_trips(v in tricky_string()) {
        assert_round_trip(&to_yaml(&json!(v)), &json!(v));
    }

    #[test]
    fn streams_keep_their_documents(vs in proptest::collection::vec(tricky_string(), 1..5)) {
        let docs: Vec<Value> = vs
            .iter()
            .enumerate()
            .map(|(i, v)| if i % 2 == 0 { json!(v) } else { json!({ v.clone(): [v.clone()] }) })
            .collect();
        let yaml = to_yaml_stream(&docs);
        let parsed: Vec<Value> = serde_saphyr::from_multiple(&yaml).unwrap_or_else(|e| panic!("{e}\n{yaml}"));
        prop_assert_eq!(parsed, docs);
    }

    #[test]
    fn floats_are_yaml11_floats(f in any::<f64>().prop_filter("finite", |f| f.is_finite())) {
        let n = json!(f);
        let s = scalar(&n);
        prop_assert!(YAML11_RESOLVERS[3].is_match(&s) || YAML11_RESOLVERS[2].is_match(&s), "{}", s);
        let back: Value = serde_saphyr::from_str(&s).unwrap();
        prop_assert_eq!(back.as_f64(), Some(f));
    }
}

#[test]
fn tricky_fragments_round_trip_alone() {
    for t in TRICKY {
        let doc = json!({ *t: *t, "seq": [*t] });
        assert_round_trip(&to_yaml(&doc), &doc);
        assert_not_resolved_by_yaml11(t);
    }
}

#[test]
fn everyday_strings_stay_plain() {
    for s in [
        "NodePool",
        "karpenter.sh/capacity-type",
        "nvidia.com/gpu.deploy.device-plugin",
        "on-demand",
        "al2023@latest",
        "200Gi",
        "1g.18gb",
        "p5.48xlarge",
        "gp3",
        "http://prometheus.monitoring:9090",
        "sum(rate(x[5m]))",
        "5%",
    ] {
        assert!(is_plain_safe(s), "{s}");
    }
}

#[test]
fn line_breaks_and_controls_are_escaped_on_one_line() {
    let y = to_yaml(&json!({"a\u{2028}b": "c\rd\u{85}e\u{feff}\t"}));
    assert_eq!(y, "\"a\\Lb\": \"c\\rd\\Ne\\ufeff\\t\"\n");
}

#[test]
fn very_long_keys_are_explicit() {
    let k = "k".repeat(2000);
    let doc = json!({ k.clone(): "v", "list": [{ k.clone(): {"x": 1} }, { "a": 1, k.clone(): [] }] });
    let y = to_yaml(&doc);
    assert!(y.starts_with("? k"), "{y}");
    assert_round_trip(&y, &doc);
}
