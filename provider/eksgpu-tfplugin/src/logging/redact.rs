//! Values the schema marks sensitive never reach the log, whichever library would print
//! them: the server registers every sensitive value of the configuration it decodes, and
//! each log line has them replaced before it is written. Muting a library's target (see
//! [`super::init_muting`]) covers what a library logs of its own; this covers what it
//! echoes of ours (the AWS SDK's orchestrator prints an operation's input at TRACE,
//! AssumeRole's `ExternalId` included, which the STS model does not mark `@sensitive`).

use std::sync::RwLock;

use crate::schema::{Block, Nesting, ObjectNesting};
use crate::value::Value;

/// What a sensitive value becomes in a log line.
pub const REDACTED: &str = "(sensitive value)";

static SECRETS: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Registers the string values of every attribute `block` marks sensitive in `value`
/// (nested blocks included) so that no log line carries them.
pub fn register_sensitive(block: &Block, value: &Value) {
    let mut found = Vec::new();
    collect(block, value, &mut found);
    if found.is_empty() {
        return;
    }
    if let Ok(mut secrets) = SECRETS.write() {
        for s in found {
            if !secrets.contains(&s) {
                secrets.push(s);
            }
        }
        // Longest first, so that a secret containing another is replaced whole.
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    }
}

fn collect(block: &Block, value: &Value, out: &mut Vec<String>) {
    for a in block.attributes.iter().filter(|a| a.sensitive) {
        strings(value.get(&a.name), out);
    }
    for (a, n) in block
        .attributes
        .iter()
        .filter_map(|a| a.nested.as_ref().map(|n| (a, n)))
    {
        match (n.nesting, value.get(&a.name)) {
            (ObjectNesting::Single, v) => collect(&n.object, v, out),
            (_, Value::List(items) | Value::Set(items)) => items.iter().for_each(|v| collect(&n.object, v, out)),
            (_, Value::Map(m)) => m.values().for_each(|v| collect(&n.object, v, out)),
            _ => {}
        }
    }
    for b in &block.blocks {
        match (&b.nesting, value.get(&b.name)) {
            (Nesting::Single, v) => collect(&b.block, v, out),
            (Nesting::List | Nesting::Set, Value::List(items) | Value::Set(items)) => {
                items.iter().for_each(|v| collect(&b.block, v, out));
            }
            _ => {}
        }
    }
}

fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) if !s.is_empty() => out.push(s.clone()),
        Value::List(v) | Value::Set(v) | Value::Tuple(v) => v.iter().for_each(|v| strings(v, out)),
        Value::Map(m) | Value::Object(m) => m.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// `text` with every registered sensitive value (as written, and as Rust's `Debug` escapes
/// it inside a quoted string) replaced by [`REDACTED`].
pub(crate) fn redact(text: String) -> String {
    let Ok(secrets) = SECRETS.read() else {
        return text;
    };
    let mut text = text;
    for s in secrets.iter() {
        let escaped = format!("{s:?}");
        let escaped = &escaped[1..escaped.len() - 1];
        for form in [s.as_str(), escaped] {
            if text.contains(form) {
                text = text.replace(form, REDACTED);
            }
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{Attribute, NestedBlock};
    use crate::types::Type;

    #[test]
    fn sensitive_values_of_nested_blocks_are_replaced() {
        let block = Block::new("")
            .attribute(Attribute::optional("region", Type::String, ""))
            .block(NestedBlock::optional_one(
                "assume_role",
                Block::new("").attribute(Attribute::optional("external_id", Type::String, "").sensitive()),
            ));
        let config = Value::object([
            ("region", "us-west-2".into()),
            (
                "assume_role",
                Value::List(vec![Value::object([("external_id", "ext\"canary".into())])]),
            ),
        ]);
        register_sensitive(&block, &config);
        let line = r#"input: AssumeRoleInput { external_id: Some("ext\"canary") } raw ext"canary us-west-2"#;
        let out = redact(line.to_owned());
        assert!(!out.contains("canary"), "{out}");
        assert!(out.contains("us-west-2"), "only sensitive values go: {out}");
    }

    #[test]
    fn sensitive_values_inside_nested_attributes_are_replaced() {
        use crate::schema::{Mode, NestedType, ObjectNesting};
        let object = Block::new("").attribute(Attribute::optional("token", Type::String, "").sensitive());
        let block = Block::new("").attribute(Attribute::nested(
            "sites",
            Mode::Optional,
            NestedType::new(ObjectNesting::Map, object),
            "",
        ));
        let config = Value::object([(
            "sites",
            Value::Map([("a".to_owned(), Value::object([("token", "nested-canary".into())]))].into()),
        )]);
        register_sensitive(&block, &config);
        assert!(!redact("token=nested-canary".to_owned()).contains("canary"));
    }
}
