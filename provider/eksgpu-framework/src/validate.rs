//! Validation of a configuration against its schema's declared validators.
//!
//! Runs at `ValidateResourceConfig` (`ValidateDataResourceConfig`,
//! `ValidateProviderConfig`) and again at plan, where values may be unknown:
//! every known value is checked at its own attribute path, whatever else is
//! unknown. Unknown values are checked when they become known (at the plan of
//! the apply, or by the resource's checks at apply).
//!
//! A required attribute set to a known `null` (`name = null`, or a variable
//! that is null) is refused here: Terraform core refuses only an attribute left
//! out and leaves this to providers (hashicorp/terraform#30669), and
//! terraform-plugin-framework refuses it in validation (`AttributeValidate`,
//! internal/fwserver/attribute_validation.go). Unknown is not null: it is
//! checked once known.

use eksgpu_tfplugin::diag::Step;
use eksgpu_tfplugin::schema::{Attribute, Block, Mode, Nesting};
use eksgpu_tfplugin::{AttributePath, Diagnostic, Diagnostics, Value};

use crate::{nested, path};

/// Checks `config` (an object of `block`'s type) and reports at attribute paths.
pub fn validate_block(block: &Block, config: &Value, diags: &mut Diagnostics) {
    walk(block, config, &AttributePath::root(), diags);
}

fn walk(block: &Block, v: &Value, at: &AttributePath, diags: &mut Diagnostics) {
    // Null (absent block) and unknown (a dynamic block over unknown values) have nothing to check yet.
    let Value::Object(m) = v else {
        return;
    };
    for a in &block.attributes {
        // Terraform sends every attribute; a key left out (a hand-built value) reads as null.
        let x = m.get(&a.name).unwrap_or(&Value::Null);
        let here = at.clone().attribute(&a.name);
        if a.mode == Mode::Required && x.is_null() {
            diags.push(required(&here));
        }
        attribute(a, x, &here, diags);
        if let Some(n) = &a.nested {
            // Each object at its own path: `pools["gpu"].node_class.role`.
            for (place, object) in nested::objects(n.nesting, x) {
                walk(&n.object, object, &place.under(&here), diags);
            }
        }
    }
    for b in &block.blocks {
        let x = m.get(&b.name).unwrap_or(&Value::Null);
        let here = at.clone().attribute(&b.name);
        match b.nesting {
            Nesting::Single => walk(&b.block, x, &here, diags),
            Nesting::List => {
                for (i, e) in x.elements().iter().enumerate() {
                    walk(&b.block, e, &here.clone().index(i), diags);
                }
            }
            // Set elements have no index: their problems are reported at the set.
            Nesting::Set => {
                for e in x.elements() {
                    walk(&b.block, e, &here, diags);
                }
            }
        }
    }
}

/// terraform-plugin-framework's summary and words (`AttributeValidate`), so the
/// error reads as Terraform users know it from other providers.
fn required(at: &AttributePath) -> Diagnostic {
    Diagnostic::error(
        "Missing Configuration for Required Attribute",
        format!(
            "Must set a configuration value for the {at} attribute as the provider has marked it as required. \
             It is set to null here: give it a value (a null, e.g. from a variable or a conditional, counts as not set)."
        ),
    )
    .at(at.clone())
}

fn attribute(a: &Attribute, v: &Value, at: &AttributePath, diags: &mut Diagnostics) {
    if v.is_null() || v.is_unknown() {
        return;
    }
    let nulls = null_elements(v);
    for steps in &nulls {
        diags.push(
            Diagnostic::error(
                "Null inside a collection",
                format!(
                    "{}: null is not allowed inside `{}`. Remove the element, or give it a value.",
                    path::join(at, steps),
                    a.name
                ),
            )
            .at(path::join(at, steps)),
        );
    }
    if !nulls.is_empty() {
        return;
    }
    for validator in &a.validators {
        for p in validator.check(v) {
            let here = path::join(at, &p.at);
            let summary = validator
                .code
                .map_or_else(|| "Invalid value".to_owned(), |c| format!("{c}: Invalid value"));
            diags.push(Diagnostic::error(summary, format!("{here}: {}", p.message)).at(here));
        }
    }
}

/// Paths of `null` elements inside a list, set or map value (which Terraform
/// allows and a model would otherwise drop silently).
fn null_elements(v: &Value) -> Vec<Vec<Step>> {
    match v {
        Value::List(l) | Value::Tuple(l) => l
            .iter()
            .enumerate()
            .filter(|(_, x)| x.is_null())
            .map(|(i, _)| vec![Step::Index(i64::try_from(i).unwrap_or(i64::MAX))])
            .collect(),
        Value::Set(l) if l.iter().any(Value::is_null) => vec![Vec::new()],
        Value::Map(m) => m
            .iter()
            .filter(|(_, x)| x.is_null())
            .map(|(k, _)| vec![Step::Key(k.clone())])
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use eksgpu_tfplugin::schema::{Attribute, NestedBlock};
    use eksgpu_tfplugin::{Number, Type};

    use super::*;
    use crate::validators;

    fn schema() -> Block {
        Block::new("r")
            .attribute(Attribute::optional("name", Type::String, "n").validate(validators::one_of(&["a", "b"])))
            .block(NestedBlock::list(
                "pool",
                Block::new("p")
                    .attribute(
                        Attribute::optional("limit", Type::Number, "l").validate(validators::int32(1, 100, "limit")),
                    )
                    .attribute(Attribute::optional("labels", Type::map(Type::String), "l")),
            ))
    }

    fn paths(d: &Diagnostics) -> Vec<String> {
        d.iter()
            .map(|d| d.path.as_ref().map(ToString::to_string).unwrap_or_default())
            .collect()
    }

    #[test]
    fn known_values_are_checked_at_their_paths_whatever_else_is_unknown() {
        let config = Value::object([
            ("name", Value::Unknown),
            (
                "pool",
                Value::List(vec![
                    Value::object([("limit", Value::Unknown), ("labels", Value::Unknown)]),
                    Value::object([("limit", Value::Number(Number::Float(1.5))), ("labels", Value::Null)]),
                ]),
            ),
        ]);
        let mut d = Diagnostics::new();
        validate_block(&schema(), &config, &mut d);
        assert_eq!(paths(&d), vec!["pool[1].limit"]);
        assert!(d.iter().next().unwrap().detail.contains("1.5"));
    }

    #[test]
    fn unknown_block_lists_are_left_for_later() {
        let config = Value::object([("name", Value::from("c")), ("pool", Value::Unknown)]);
        let mut d = Diagnostics::new();
        validate_block(&schema(), &config, &mut d);
        assert_eq!(paths(&d), vec!["name"]);
    }

    fn required_schema() -> Block {
        let leaf = |d: &str| Block::new(d).attribute(Attribute::required("role_arn", Type::String, "r"));
        Block::new("r")
            .attribute(Attribute::required("name", Type::String, "n").validate(validators::one_of(&["a"])))
            .attribute(Attribute::optional("note", Type::String, "o"))
            .block(NestedBlock::single("assume_role", leaf("single")))
            .block(NestedBlock::list(
                "pool",
                Block::new("p")
                    .attribute(Attribute::required("limit", Type::Number, "l"))
                    .block(NestedBlock::optional_one("node_class", leaf("one"))),
            ))
            .block(NestedBlock {
                nesting: Nesting::Set,
                ..NestedBlock::list("rule", leaf("set"))
            })
    }

    fn summaries(d: &Diagnostics) -> Vec<(String, String)> {
        d.iter()
            .map(|d| {
                (
                    d.summary.clone(),
                    d.path.as_ref().map(ToString::to_string).unwrap_or_default(),
                )
            })
            .collect()
    }

    #[test]
    fn a_required_attribute_set_to_null_is_refused_at_its_path_at_any_depth() {
        let role = |v: Value| Value::object([("role_arn", v)]);
        let config = Value::object([
            ("name", Value::Null),
            ("note", Value::Null),
            ("assume_role", role(Value::Null)),
            (
                "pool",
                Value::List(vec![
                    Value::object([("limit", Value::from(1)), ("node_class", Value::List(vec![]))]),
                    Value::object([
                        ("limit", Value::Null),
                        ("node_class", Value::List(vec![role(Value::Null)])),
                    ]),
                ]),
            ),
            ("rule", Value::Set(vec![role(Value::from("arn")), role(Value::Null)])),
        ]);
        let mut d = Diagnostics::new();
        validate_block(&required_schema(), &config, &mut d);
        let missing = "Missing Configuration for Required Attribute".to_owned();
        assert_eq!(
            summaries(&d),
            [
                (missing.clone(), "name".to_owned()),
                (missing.clone(), "assume_role.role_arn".to_owned()),
                (missing.clone(), "pool[1].limit".to_owned()),
                (missing.clone(), "pool[1].node_class[0].role_arn".to_owned()),
                // Set elements have no index: through the set, as other findings.
                (missing, "rule.role_arn".to_owned()),
            ]
        );
        let first = d.iter().next().unwrap();
        assert!(first.detail.contains("name attribute"), "{}", first.detail);
        assert!(d.has_errors());
    }

    #[test]
    fn unknown_required_values_and_absent_blocks_are_not_missing() {
        let config = Value::object([
            ("name", Value::Unknown),
            ("note", Value::Null),
            // An absent block: its required attributes are not asked for.
            ("assume_role", Value::Null),
            (
                "pool",
                Value::List(vec![
                    Value::object([("limit", Value::Unknown), ("node_class", Value::Unknown)]),
                    Value::Unknown,
                ]),
            ),
            ("rule", Value::Unknown),
        ]);
        let mut d = Diagnostics::new();
        validate_block(&required_schema(), &config, &mut d);
        assert!(d.is_empty(), "{d:?}");
        // Set, the same configuration passes and its validators run.
        let config = Value::object([
            ("name", Value::from("b")),
            ("note", Value::Null),
            ("assume_role", Value::Null),
            ("pool", Value::List(vec![])),
            ("rule", Value::Set(vec![])),
        ]);
        validate_block(&required_schema(), &config, &mut d);
        assert_eq!(summaries(&d), [("Invalid value".to_owned(), "name".to_owned())]);
    }

    #[test]
    fn null_inside_a_map_is_an_error_at_its_key() {
        let config = Value::object([(
            "pool",
            Value::List(vec![Value::object([(
                "labels",
                Value::Map([("team".to_owned(), Value::Null)].into()),
            )])]),
        )]);
        let mut d = Diagnostics::new();
        validate_block(&schema(), &config, &mut d);
        assert_eq!(paths(&d), vec![r#"pool[0].labels["team"]"#]);
    }

    #[test]
    fn objects_of_nested_attributes_are_checked_at_their_keys_whatever_else_is_unknown() {
        use eksgpu_tfplugin::schema::{NestedType, ObjectNesting};
        let class = Block::new("n").attribute(Attribute::required("role", Type::String, "r"));
        let pool = Block::new("p")
            .attribute(Attribute::optional("limit", Type::Number, "l").validate(validators::int32(1, 100, "limit")))
            .attribute(Attribute::optional("types", Type::list(Type::String), "t"))
            .attribute(Attribute::nested(
                "node_class",
                Mode::Optional,
                NestedType::new(ObjectNesting::Single, class),
                "n",
            ));
        let block = Block::new("r").attribute(Attribute::nested(
            "pools",
            Mode::Required,
            NestedType::new(ObjectNesting::Map, pool),
            "p",
        ));
        let entry = |limit: Value, role: Value| {
            Value::object([
                ("limit", limit),
                ("types", Value::List(vec![Value::Null])),
                ("node_class", Value::object([("role", role)])),
            ])
        };
        let config = Value::object([(
            "pools",
            Value::Map(
                [
                    ("gpu".to_owned(), entry(Value::from(500), Value::Null)),
                    ("later".to_owned(), Value::Unknown),
                    ("other".to_owned(), entry(Value::Unknown, Value::Unknown)),
                ]
                .into(),
            ),
        )]);
        let mut d = Diagnostics::new();
        validate_block(&block, &config, &mut d);
        assert_eq!(
            paths(&d),
            vec![
                r#"pools["gpu"].limit"#,
                r#"pools["gpu"].types[0]"#,
                r#"pools["gpu"].node_class.role"#,
                r#"pools["other"].types[0]"#,
            ]
        );
        let mut d = Diagnostics::new();
        validate_block(&block, &Value::object([("pools", Value::Null)]), &mut d);
        assert_eq!(summaries(&d)[0].1, "pools", "a required nested attribute set to null");
    }
}
