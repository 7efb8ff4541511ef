//! A small deterministic YAML emitter for JSON values: block style, keys in
//! the order given. Used for `manifests_yaml` and Helm values, which users
//! read in plans and tools (Helm, kubectl, PyYAML, Go's yaml.v2/v3) read back.
//!
//! A string is written plain only when it is provably a string to every YAML
//! 1.1 and 1.2 resolver: printable ASCII, starting with a letter, digit, `_`,
//! `/`, `$` or `(`, not a word any schema resolves (booleans `y`/`yes`/`on`…,
//! nulls, `.inf`, merge `<<`, value `=`), nothing shaped like a number,
//! sexagesimal or timestamp, and no `: ` or ` #` inside. Everything else is
//! double-quoted with escapes, so line breaks YAML 1.1 knows beyond `\n`
//! (U+0085, U+2028, U+2029), control characters and the BOM never appear
//! literally. Keys follow the same rule; keys too long for an implicit key
//! (YAML limits those to 1024 characters) are written as explicit `? ` keys.

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

/// Keys longer than this (as written) become explicit keys: YAML caps implicit
/// keys at 1024 characters, and some parsers count bytes.
const MAX_IMPLICIT_KEY: usize = 1000;

/// Writes `key:` after `pad` spaces, or, when the key is too long for an
/// implicit key, `? key` and a `:` line at `value_indent`.
fn write_key(out: &mut String, k: &str, pad: usize, value_indent: usize) {
    let k = key(k);
    if k.len() > MAX_IMPLICIT_KEY {
        let _ = write!(out, "{:pad$}? {k}\n{:value_indent$}:", "", "");
    } else {
        let _ = write!(out, "{:pad$}{k}:", "");
    }
}

fn write_map(out: &mut String, m: &serde_json::Map<String, Value>, indent: usize) {
    for (k, v) in m {
        write_key(out, k, indent, indent);
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
                        write_key(out, k, 1, indent + 2);
                        first = false;
                    } else {
                        write_key(out, k, indent + 2, indent + 2);
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
    if is_plain_safe(k) { k.to_owned() } else { quote(k) }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number(n),
        Value::String(s) if is_plain_safe(s) => s.clone(),
        Value::String(s) => quote(s),
        Value::Object(_) => "{}".into(),
        Value::Array(_) => "[]".into(),
    }
}

/// Integers as they are; floats always with a `.` and a signed exponent, the
/// only float spelling YAML 1.1 resolves (`1e100` is a string there).
fn number(n: &serde_json::Number) -> String {
    let s = n.to_string();
    if !n.is_f64() {
        return s;
    }
    let (mantissa, exp) = match s.split_once(['e', 'E']) {
        Some((m, e)) => (m.to_owned(), Some(e)),
        None => (s.clone(), None),
    };
    let mantissa = if mantissa.contains('.') {
        mantissa
    } else {
        format!("{mantissa}.0")
    };
    match exp {
        Some(e) if e.starts_with(['-', '+']) => format!("{mantissa}e{e}"),
        Some(e) => format!("{mantissa}e+{e}"),
        None => mantissa,
    }
}

/// Words some YAML schema resolves to a non-string, compared case-insensitively
/// (quoting `yEs` costs nothing): YAML 1.1 booleans and null, YAML 1.2 core
/// booleans and null. (`~`, `.inf`, `.nan` start with an indicator or a dot.)
const RESOLVED_WORDS: [&str; 9] = ["y", "n", "yes", "no", "on", "off", "true", "false", "null"];

/// Whether `s` may be written as a plain scalar and still be read back as
/// exactly this string by every YAML 1.1 and 1.2 reader.
fn is_plain_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    let bytes = s.as_bytes();
    // Printable ASCII only: no line breaks of any YAML version, no control
    // characters, no BOM, no tabs.
    if !bytes.iter().all(|b| (0x20..0x7f).contains(b)) {
        return false;
    }
    // No indicator, sign, dot or quote first: that rules out `-`, `?`, `:`,
    // `#`, `&`, `*`, `!`, `|`, `>`, `'`, `"`, `%`, `@`, `` ` ``, flow
    // indicators, `~`, `.inf`, `---`, `...`, `<<`, `=` and signed numbers.
    if !(first.is_ascii_alphanumeric() || matches!(first, '_' | '/' | '$' | '(')) {
        return false;
    }
    if s.ends_with([' ', ':']) || s.contains(": ") || s.contains(" #") {
        return false;
    }
    if RESOLVED_WORDS.iter().any(|w| s.eq_ignore_ascii_case(w)) {
        return false;
    }
    !number_like(s)
}

/// A superset of every YAML 1.1 and 1.2 int, float, sexagesimal and timestamp
/// spelling: a digit, and nothing but digits, hex letters, radix letters,
/// `_ . : + -`, the timestamp's `t`/`z` and spaces. So `0x1F`, `0o17`, `017`,
/// `1_000`, `1:30`, `6.8523015e+5`, `2001-12-14t21:59:43.10-05:00` are
/// quoted, while `200Gi`, `1g.18gb` and `p5.48xlarge` stay plain.
fn number_like(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_digit())
        && s.bytes()
            .all(|b| b.is_ascii_hexdigit() || b"xXoObB_.:+-tTzZ ".contains(&b))
}

/// A double-quoted scalar. Only `"`, `\` and characters that are not safe to
/// write literally are escaped, so the result is one line whatever `s` holds.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{0085}' => out.push_str("\\N"),
            '\u{2028}' => out.push_str("\\L"),
            '\u{2029}' => out.push_str("\\P"),
            // C0 and C1 controls, DEL, the BOM and the non-characters at the
            // end of the BMP are not printable in YAML; NBSP is escaped so it
            // cannot hide in a plan.
            c if (c as u32) < 0x20
                || (0x7f..=0xa0).contains(&(c as u32))
                || matches!(c, '\u{feff}' | '\u{fffe}' | '\u{ffff}') =>
            {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests;
