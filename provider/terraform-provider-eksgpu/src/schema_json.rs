//! The provider's schema in the JSON form of `terraform providers schema -json`
//! (format 1.0): the contract snapshot in `schemas/` and the input of the
//! generated docs. The acceptance tests check it against the real CLI's output.

use eksgpu_tfplugin::Provider;
use eksgpu_tfplugin::schema::{Attribute, Block, Mode, Nesting, ObjectNesting, Schema};
use serde_json::{Map, Value as J, json};

/// `{"format_version":"1.0","provider_schemas":{<address>:{…}}}`.
pub fn provider_schemas() -> J {
    let provider = crate::new();
    let data_sources: Map<String, J> = provider
        .data_sources()
        .iter()
        .map(|d| (d.type_name().to_owned(), schema(&d.schema())))
        .collect();
    let resources: Map<String, J> = provider
        .resources()
        .iter()
        .map(|r| (r.type_name().to_owned(), schema(&r.schema())))
        .collect();
    let mut entry = Map::new();
    entry.insert("provider".into(), schema(&provider.schema()));
    if !resources.is_empty() {
        entry.insert("resource_schemas".into(), J::Object(resources));
    }
    if !data_sources.is_empty() {
        entry.insert("data_source_schemas".into(), J::Object(data_sources));
    }
    let functions: Map<String, J> = provider
        .functions()
        .iter()
        .map(|f| (f.name().to_owned(), function(&f.signature())))
        .collect();
    if !functions.is_empty() {
        entry.insert("functions".into(), J::Object(functions));
    }
    json!({ "format_version": "1.0", "provider_schemas": { crate::PROVIDER_ADDRESS: entry } })
}

/// A function as Terraform 1.8+ prints it.
fn function(f: &eksgpu_tfplugin::FunctionSignature) -> J {
    let parameters: Vec<J> = f
        .parameters
        .iter()
        .map(|p| json!({ "name": p.name, "description": p.description, "type": p.ty.to_json() }))
        .collect();
    json!({
        "description": f.description,
        "summary": f.summary,
        "return_type": f.returns.to_json(),
        "parameters": parameters,
    })
}

fn schema(s: &Schema) -> J {
    json!({ "version": s.version, "block": block(&s.block) })
}

fn block(b: &Block) -> J {
    let mut out = Map::new();
    if !b.attributes.is_empty() {
        out.insert(
            "attributes".into(),
            J::Object(b.attributes.iter().map(|a| (a.name.clone(), attribute(a))).collect()),
        );
    }
    if !b.blocks.is_empty() {
        let blocks = b.blocks.iter().map(|nb| {
            let mut o = Map::new();
            let mode = match nb.nesting {
                Nesting::Single => "single",
                Nesting::List => "list",
                Nesting::Set => "set",
            };
            o.insert("nesting_mode".into(), mode.into());
            o.insert("block".into(), block(&nb.block));
            if nb.min_items > 0 {
                o.insert("min_items".into(), nb.min_items.into());
            }
            if nb.max_items > 0 {
                o.insert("max_items".into(), nb.max_items.into());
            }
            (nb.name.clone(), J::Object(o))
        });
        out.insert("block_types".into(), J::Object(blocks.collect()));
    }
    if !b.description.is_empty() {
        out.insert("description".into(), b.description.clone().into());
    }
    out.insert("description_kind".into(), "markdown".into());
    if b.deprecated {
        out.insert("deprecated".into(), true.into());
    }
    J::Object(out)
}

fn attribute(a: &Attribute) -> J {
    let mut o = Map::new();
    match &a.nested {
        // As Terraform prints a nested attribute (command/jsonprovider/attribute.go): its
        // objects' attributes and how they are nested, and no `type`.
        Some(n) => {
            let attributes: Map<String, J> = n
                .object
                .attributes
                .iter()
                .map(|a| (a.name.clone(), attribute(a)))
                .collect();
            let mode = match n.nesting {
                ObjectNesting::Single => "single",
                ObjectNesting::List => "list",
                ObjectNesting::Set => "set",
                ObjectNesting::Map => "map",
            };
            o.insert(
                "nested_type".into(),
                json!({ "attributes": attributes, "nesting_mode": mode }),
            );
        }
        None => {
            o.insert("type".into(), a.ty.to_json());
        }
    }
    if !a.description.is_empty() {
        o.insert("description".into(), a.description.clone().into());
    }
    o.insert("description_kind".into(), "markdown".into());
    match a.mode {
        Mode::Required => {
            o.insert("required".into(), true.into());
        }
        Mode::Optional => {
            o.insert("optional".into(), true.into());
        }
        Mode::Computed => {
            o.insert("computed".into(), true.into());
        }
        Mode::OptionalComputed => {
            o.insert("optional".into(), true.into());
            o.insert("computed".into(), true.into());
        }
    }
    if a.sensitive {
        o.insert("sensitive".into(), true.into());
    }
    if a.deprecated {
        o.insert("deprecated".into(), true.into());
    }
    J::Object(o)
}
