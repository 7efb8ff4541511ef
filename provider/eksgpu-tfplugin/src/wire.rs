//! The generated protocol code, private to this crate, and the one place that
//! translates between it and the crate's own types.

#[allow(dead_code, clippy::all, clippy::pedantic, missing_docs, unreachable_pub)]
pub mod tfplugin6 {
    tonic::include_proto!("tfplugin6");
}

#[allow(dead_code, clippy::all, clippy::pedantic, missing_docs, unreachable_pub)]
pub mod plugin {
    tonic::include_proto!("plugin");
}

use crate::diag::{AttributePath, Diagnostic, Diagnostics, Severity, Step};
use crate::schema::{Attribute, Block, Mode, NestedBlock, NestedType, Nesting, ObjectNesting, Schema};
use crate::types::Type;
use crate::value::{DecodeError, EncodeError, Value, decode_json, decode_msgpack, encode_msgpack};

use tfplugin6::schema::nested_block::NestingMode;

pub(crate) fn function_to_proto(f: &crate::provider::FunctionSignature) -> tfplugin6::Function {
    let param = |p: &crate::provider::Parameter| tfplugin6::function::Parameter {
        name: p.name.to_owned(),
        r#type: p.ty.to_json().to_string().into_bytes(),
        // Terraform then calls only with known, non-null arguments.
        allow_null_value: false,
        allow_unknown_values: false,
        description: p.description.to_owned(),
        description_kind: tfplugin6::StringKind::Markdown.into(),
    };
    tfplugin6::Function {
        parameters: f.parameters.iter().map(param).collect(),
        variadic_parameter: None,
        r#return: Some(tfplugin6::function::Return {
            r#type: f.returns.to_json().to_string().into_bytes(),
        }),
        summary: f.summary.to_owned(),
        description: f.description.to_owned(),
        description_kind: tfplugin6::StringKind::Markdown.into(),
        deprecation_message: String::new(),
    }
}

pub(crate) fn schema_to_proto(schema: &Schema) -> tfplugin6::Schema {
    tfplugin6::Schema {
        version: schema.version,
        block: Some(block_to_proto(&schema.block)),
    }
}

fn block_to_proto(block: &Block) -> tfplugin6::schema::Block {
    let Block {
        attributes,
        blocks,
        description,
        deprecated,
    } = block;
    tfplugin6::schema::Block {
        version: 0,
        attributes: attributes.iter().map(attribute_to_proto).collect(),
        block_types: blocks.iter().map(nested_block_to_proto).collect(),
        description: description.clone(),
        description_kind: tfplugin6::StringKind::Markdown.into(),
        deprecated: *deprecated,
    }
}

fn attribute_to_proto(a: &Attribute) -> tfplugin6::schema::Attribute {
    // Replacement, defaults, modifiers and validators are provider-side plan
    // logic (the framework's), not part of the wire schema.
    let Attribute {
        name,
        ty,
        mode,
        description,
        sensitive,
        deprecated,
        forces_replacement: _,
        default: _,
        use_state_for_unknown: _,
        validators: _,
        nested,
    } = a;
    tfplugin6::schema::Attribute {
        name: name.clone(),
        // A nested attribute has its type in `nested_type` and none of its own.
        r#type: if nested.is_some() {
            Vec::new()
        } else {
            ty.to_json().to_string().into_bytes()
        },
        nested_type: nested.as_ref().map(nested_type_to_proto),
        description: description.clone(),
        required: *mode == Mode::Required,
        optional: matches!(mode, Mode::Optional | Mode::OptionalComputed),
        computed: matches!(mode, Mode::Computed | Mode::OptionalComputed),
        sensitive: *sensitive,
        description_kind: tfplugin6::StringKind::Markdown.into(),
        deprecated: *deprecated,
    }
}

fn nested_type_to_proto(n: &NestedType) -> tfplugin6::schema::Object {
    use tfplugin6::schema::object::NestingMode as Mode;
    tfplugin6::schema::Object {
        attributes: n.object.attributes.iter().map(attribute_to_proto).collect(),
        nesting: match n.nesting {
            ObjectNesting::Single => Mode::Single,
            ObjectNesting::List => Mode::List,
            ObjectNesting::Set => Mode::Set,
            ObjectNesting::Map => Mode::Map,
        }
        .into(),
        min_items: 0,
        max_items: 0,
    }
}

fn nested_block_to_proto(b: &NestedBlock) -> tfplugin6::schema::NestedBlock {
    let NestedBlock {
        name,
        nesting,
        block,
        min_items,
        max_items,
        forces_replacement: _,
    } = b;
    tfplugin6::schema::NestedBlock {
        type_name: name.clone(),
        block: Some(block_to_proto(block)),
        nesting: match nesting {
            Nesting::Single => NestingMode::Single,
            Nesting::List => NestingMode::List,
            Nesting::Set => NestingMode::Set,
        }
        .into(),
        min_items: *min_items,
        max_items: *max_items,
    }
}

pub(crate) fn diagnostics_to_proto(diags: Diagnostics) -> Vec<tfplugin6::Diagnostic> {
    diags.into_vec().into_iter().map(diagnostic_to_proto).collect()
}

fn diagnostic_to_proto(d: Diagnostic) -> tfplugin6::Diagnostic {
    let Diagnostic {
        severity,
        summary,
        detail,
        path,
    } = d;
    tfplugin6::Diagnostic {
        severity: match severity {
            Severity::Error => tfplugin6::diagnostic::Severity::Error,
            Severity::Warning => tfplugin6::diagnostic::Severity::Warning,
        }
        .into(),
        // Bounded here, where every diagnostic leaves the provider (diag/bounded.rs).
        summary: crate::diag::bounded(summary, crate::diag::SUMMARY_MAX),
        detail: crate::diag::bounded(detail, crate::diag::DETAIL_MAX),
        attribute: path.filter(|p| !p.is_empty()).map(|p| path_to_proto(&p)),
    }
}

pub(crate) fn path_to_proto(path: &AttributePath) -> tfplugin6::AttributePath {
    use tfplugin6::attribute_path::step::Selector;
    tfplugin6::AttributePath {
        steps: path
            .steps()
            .iter()
            .map(|s| tfplugin6::attribute_path::Step {
                selector: Some(match s {
                    Step::Attribute(n) => Selector::AttributeName(n.clone()),
                    Step::Key(k) => Selector::ElementKeyString(k.clone()),
                    Step::Index(i) => Selector::ElementKeyInt(*i),
                }),
            })
            .collect(),
    }
}

/// Decodes a `DynamicValue`: msgpack when present, else JSON, else null
/// (the same preference as Terraform's own `decodeDynamicValue`).
pub(crate) fn decode_dynamic(v: Option<&tfplugin6::DynamicValue>, ty: &Type) -> Result<Value, DecodeError> {
    match v {
        Some(dv) if !dv.msgpack.is_empty() => decode_msgpack(&dv.msgpack, ty),
        Some(dv) if !dv.json.is_empty() => decode_json(&dv.json, ty),
        _ => Ok(Value::Null),
    }
}

pub(crate) fn encode_dynamic(v: &Value, ty: &Type) -> Result<tfplugin6::DynamicValue, EncodeError> {
    Ok(tfplugin6::DynamicValue {
        msgpack: encode_msgpack(v, ty)?,
        json: Vec::new(),
    })
}

/// A value Terraform sent that does not fit the schema: the user sees where.
pub(crate) fn decode_failed(what: &str, err: &DecodeError) -> Diagnostic {
    let d = Diagnostic::error(
        format!("Invalid {what}"),
        format!(
            "Terraform sent a {what} this provider could not read: {err}. This usually means the \
             Terraform CLI and the provider disagree about the schema; run `terraform init -upgrade` \
             and report it if it persists."
        ),
    );
    if err.path.is_empty() { d } else { d.at(err.path.clone()) }
}

/// A value the provider built that does not fit its own schema: a provider bug.
pub(crate) fn encode_failed(what: &str, err: &EncodeError) -> Diagnostic {
    Diagnostic::error(
        format!("Provider produced an invalid {what}"),
        format!("{err}. This is a bug in terraform-provider-eksgpu; please report it with this message."),
    )
}
