//! A small deterministic YAML emitter for JSON values: block style, keys in
//! the order given, strings quoted whenever YAML could read them as anything
//! else. Used for `manifests_yaml` and Helm values, which users read in plans.

use std::fmt::Write as _;

use serde_json::Value;

/// Renders one document (no `---`).
pub fn to_yaml(v: &Value) -> String {
    let mut out = String::new();
    match v {
        Value::Object(m) if !m.is_empty() => write_map(&mut out, m, 0),
        Value::Array(a) if !a.is_empty() => write_seq(&mut out, a, 0),
        other => {
            out.push_str(&scalar(other));
            out.push('\n');
        }
    }
    out
}

/// Renders several documents separated by `---`.
pub fn to_yaml_stream<'a>(docs: impl IntoIterator<Item = &'a Value>) -> String {
    docs.into_iter().map(to_yaml).collect::<Vec<_>>().join("---\n")
}

fn write_map(out: &mut String, m: &serde_json::Map<String, Value>, indent: usize) {
    for (k, v) in m {
        let _ = write!(out, "{:indent$}{}:", "", key(k));
        write_value_after_key(out, v, indent);
    }
}

fn write_value_after_key(out: &mut String, v: &Value, indent: usize) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            write_map(out, m, indent + 2);
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            write_seq(out, a, indent);
        }
        other => {
            out.push(' ');
            out.push_str(&scalar(other));
            out.push('\n');
        }
    }
}

fn write_seq(out: &mut String, a: &[Value], indent: usize) {
    for item in a {
        let _ = write!(out, "{:indent$}-", "");
        match item {
            Value::Object(m) if !m.is_empty() => {
                // First entry on the dash line, the rest aligned under it.
                let mut first = true;
                for (k, v) in m {
                    if first {
                        let _ = write!(out, " {}:", key(k));
                        first = false;
                    } else {
                        let _ = write!(out, "{:w$}{}:", "", key(k), w = indent + 2);
                    }
                    write_value_after_key(out, v, indent + 2);
                }
            }
            Value::Array(inner) if !inner.is_empty() => {
                out.push('\n');
                write_seq(out, inner, indent + 2);
            }
            other => {
                out.push(' ');
                out.push_str(&scalar(other));
                out.push('\n');
            }
        }
    }
}

fn key(k: &str) -> String {
    if needs_quotes(k) { quote(k) } else { k.to_owned() }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) if needs_quotes(s) => quote(s),
        Value::String(s) => s.clone(),
        Value::Object(_) => "{}".into(),
        Value::Array(_) => "[]".into(),
    }
}

/// Whether a plain scalar would be read back as something other than this string.
fn needs_quotes(s: &str) -> bool {
    const WORDS: [&str; 22] = [
        "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~", "True", "False", "TRUE", "FALSE", "Yes",
        "No", "On", "Off", "Null", "NULL", "YES", "NO",
    ];
    s.is_empty()
        || WORDS.contains(&s)
        || s.parse::<f64>().is_ok()
        || s.starts_with(|c: char| " -?:,[]{}#&*!|>'\"%@`".contains(c))
        || s.ends_with(' ')
        || s.contains(": ")
        || s.contains(" #")
        || s.contains(['\n', '\t'])
        || s.starts_with("0x")
        || s.starts_with("0o")
}

fn quote(s: &str) -> String {
    serde_json::Value::String(s.to_owned()).to_string()
}

#[cfg(test)]
mod tests {
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
}
