//! Registry-layout docs (`docs/index.md`, `docs/data-sources/*.md`,
//! `docs/resources/*.md`, `docs/functions/*.md`, `docs/guides/rules.md`) generated from the schema snapshot and the examples,
//! and the burst scaler's simulated day (`examples/resources/eksgpu_burst_scaler/simulated_day.svg`),
//! as tfplugindocs does. A template in `schemas/templates/` (same relative
//! path, `.md.tmpl`) may supply the prose; `{{ .Example }}` and `{{ .Schema }}`
//! mark where the example and the schema go.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value as J;

const ADDRESS: &str = "registry.terraform.io/eksgpu/eksgpu";

/// Every generated doc as (path relative to the repo root, content).
pub fn render(root: &Path) -> Vec<(String, String)> {
    let schema: J =
        serde_json::from_str(&std::fs::read_to_string(root.join("schemas/provider.json")).unwrap_or_default())
            .unwrap_or(J::Null);
    let entry = &schema["provider_schemas"][ADDRESS];
    let mut docs = Vec::new();
    docs.push((
        "docs/index.md".to_owned(),
        page(
            root,
            "index",
            "eksgpu Provider",
            "",
            &entry["provider"],
            "examples/provider/provider.tf",
        ),
    ));
    for (kind, dir, key) in [
        ("Data Source", "data-sources", "data_source_schemas"),
        ("Resource", "resources", "resource_schemas"),
    ] {
        let Some(map) = entry[key].as_object() else {
            continue;
        };
        for (type_name, s) in map {
            let short = type_name.trim_start_matches("eksgpu_");
            let example = format!(
                "examples/{dir}/{type_name}/{}.tf",
                if kind == "Resource" { "resource" } else { "data-source" }
            );
            let front = format!(
                "---\npage_title: \"{type_name} {kind} - eksgpu\"\nsubcategory: \"\"\ndescription: |-\n  {}\n---\n\n",
                first_sentence(s)
            );
            let title = format!("{type_name} ({kind})");
            let mut body = page(root, &format!("{dir}/{short}"), &title, &front, s, &example);
            let import = root.join(format!("examples/{dir}/{type_name}/import.sh"));
            if let Ok(import) = std::fs::read_to_string(import) {
                body.push_str(&import_section(&import));
            }
            docs.push((format!("docs/{dir}/{short}.md"), body));
        }
    }
    if let Some(functions) = entry["functions"].as_object() {
        for (name, f) in functions {
            docs.push((format!("docs/functions/{name}.md"), function_page(root, name, f)));
        }
    }
    docs.push(("docs/guides/rules.md".to_owned(), rules()));
    docs.push((crate::burst_day::PATH.to_owned(), crate::burst_day::render().0));
    docs
}

/// Where the repository's files are served at this release's tag: the registry
/// publishes from github.com/<namespace>/terraform-provider-<name> and shows no
/// files of its own but Markdown, so images are linked there.
pub fn release_file_url(path: &str) -> String {
    format!(
        "https://raw.githubusercontent.com/eksgpu/terraform-provider-eksgpu/v{}/{path}",
        env!("CARGO_PKG_VERSION")
    )
}

/// The simulated day on the burst scaler's page: the SVG and its caption.
fn burst_day() -> String {
    let (_, caption) = crate::burst_day::render();
    format!(
        "![A simulated day of the burst scaler: load, on-prem waiting and cloud running requests, and on-prem and \
         cloud replicas over 24 hours]({})\n\n{caption}",
        release_file_url(crate::burst_day::PATH)
    )
}

/// The Import section of a resource page from its `import.sh`: an `import {}`
/// block (Terraform 1.5 and later) for each `terraform import ADDRESS ID` line,
/// then the command itself, as tfplugindocs lays out `import.tf` and `import.sh`.
fn import_section(import_sh: &str) -> String {
    let blocks: Vec<String> = import_sh
        .lines()
        .filter_map(|l| l.trim().strip_prefix("terraform import "))
        .filter_map(|rest| {
            let mut words = rest.split_whitespace();
            Some((words.next()?.to_owned(), words.next()?.to_owned()))
        })
        .map(|(to, id)| format!("import {{\n  to = {to}\n  id = \"{id}\"\n}}"))
        .collect();
    let mut out = String::from("\n## Import\n\n");
    if !blocks.is_empty() {
        let _ = write!(
            out,
            "In Terraform 1.5 and later, use an [`import` block](https://developer.hashicorp.com/terraform/language/import) \
             to import an existing object. For example:\n\n```terraform\n{}\n```\n\n\
             The [`terraform import` command](https://developer.hashicorp.com/terraform/cli/commands/import) \
             imports it too (every supported version, including those before 1.5). For example:\n\n",
            blocks.join("\n\n")
        );
    } else {
        out.push_str("Import is supported using the following syntax:\n\n");
    }
    let _ = writeln!(out, "```shell\n{}\n```", import_sh.trim_end());
    out
}

/// A provider-defined function's page, as tfplugindocs lays it out.
fn function_page(root: &Path, name: &str, f: &J) -> String {
    let summary = f["summary"].as_str().unwrap_or_default();
    let mut out = format!(
        "---\npage_title: \"{name} function - eksgpu\"\nsubcategory: \"\"\ndescription: |-\n  {summary}\n---\n\n\
         # function: {name}\n\n{}\n\nProvider-defined functions need Terraform 1.8 or later; older versions \
         use the provider without them.\n\n",
        f["description"].as_str().unwrap_or_default()
    );
    if let Ok(example) = std::fs::read_to_string(root.join(format!("examples/functions/{name}/function.tf"))) {
        let _ = write!(out, "## Example Usage\n\n```terraform\n{}\n```\n\n", example.trim_end());
    }
    let params: Vec<&J> = f["parameters"]
        .as_array()
        .map(|p| p.iter().collect())
        .unwrap_or_default();
    let signature: Vec<String> = params
        .iter()
        .map(|p| format!("{} {}", p["name"].as_str().unwrap_or_default(), type_text(&p["type"])))
        .collect();
    let _ = write!(
        out,
        "## Signature\n\n```text\n{name}({}) {}\n```\n\n## Arguments\n\n",
        signature.join(", "),
        type_text(&f["return_type"])
    );
    for (i, p) in params.iter().enumerate() {
        let _ = writeln!(
            out,
            "{}. `{}` ({}) {}",
            i + 1,
            p["name"].as_str().unwrap_or_default(),
            type_text(&p["type"]),
            p["description"].as_str().unwrap_or_default()
        );
    }
    out
}

/// A cty type as Terraform writes type constraints: `list(object({name = string}))`.
fn type_text(t: &J) -> String {
    match t {
        J::String(s) => s.clone(),
        J::Array(a) if a.len() == 2 => match (&a[0], &a[1]) {
            (J::String(k), J::Object(attrs)) if k == "object" => {
                let fields: Vec<String> = attrs.iter().map(|(n, t)| format!("{n} = {}", type_text(t))).collect();
                format!("object({{{}}})", fields.join(", "))
            }
            (J::String(k), inner) => format!("{k}({})", type_text(inner)),
            _ => t.to_string(),
        },
        _ => t.to_string(),
    }
}

/// `docs/guides/rules.md` from the rule catalogue in eksgpu-core.
fn rules() -> String {
    let mut out = String::from(
        "---\npage_title: \"Rules - eksgpu\"\nsubcategory: \"\"\ndescription: |-\n  Every configuration \
         the provider rejects at plan, with its code, what to do instead and the source.\n---\n\n\
         # Rules\n\nEvery configuration that cannot work on EKS is rejected at `terraform plan` with a stable code. \
         Errors stop the plan; warnings inform it. Each diagnostic points at the attribute it is about and says \
         what to do instead. Codes EKSGPU001–018 are fixed; the provider's own additions are EKSGPU1xx.\n\n\
         Errors that hold whatever the provider block says (its `karpenter_version` and \
         `karpenter_feature_gates`) and need no value unknown before apply are reported by `terraform validate` \
         already; the others, and every warning, by `terraform plan`. A warning whose finding is intended is \
         answered by listing its code in the strategy's `acknowledged_warnings` (e.g. `[\"EKSGPU132\"]` when the \
         NVIDIA device plugin is installed another way), after which it is silent; a warning found for several \
         pools is said once, naming each.\n\n\
         This page is generated from the rule catalogue in `provider/eksgpu-core/src/rules/catalogue.rs`.\n\n\
         | code | severity | when | what to do | source |\n|---|---|---|---|---|\n",
    );
    for r in eksgpu_core::rules::RULES {
        let severity = match r.severity {
            eksgpu_core::rules::Severity::Error => "error",
            eksgpu_core::rules::Severity::Warning => "warning",
        };
        let cell = |s: &str| s.replace('|', "\\|");
        let _ = writeln!(
            out,
            "| {} | {severity} | {} | {} | {} |",
            r.code,
            cell(r.trigger),
            cell(r.fix),
            cell(r.source)
        );
    }
    out.push_str(
        "\n## Inputs by capacity kind\n\nThe inputs of a pool that only some capacity kinds take, and the rule that \
         refuses them on the others (generated from the inputs' declarations, \
         `provider/eksgpu-core/src/node_strategy/inputs/`).\n\n| input | taken by | refused with |\n|---|---|---|\n",
    );
    for (path, kinds, code) in eksgpu_core::model::inputs::by_kind() {
        let kinds: Vec<String> = kinds.iter().map(|k| format!("`{}`", k.as_str())).collect();
        let _ = writeln!(out, "| `{path}` | {} | {code} |", kinds.join(", "));
    }
    out.push_str(
        "\n## Decision rules of `eksgpu_recommendation`\n\nEach line of a recommendation's `rationale` names one \
         of these, with what it decided for the model at hand. They are defaults drawn from the field reports, \
         not limits: every number is an estimate to validate for your workload.\n\n\
         | code | decision | source |\n|---|---|---|\n",
    );
    for d in eksgpu_core::recommend::DECISIONS {
        let cell = |s: &str| s.replace('|', "\\|");
        let _ = writeln!(out, "| {} | {} | {} |", d.code, cell(d.summary), cell(d.source));
    }
    out
}

fn first_sentence(s: &J) -> String {
    let d = s["block"]["description"].as_str().unwrap_or_default();
    d.split(". ")
        .next()
        .unwrap_or_default()
        .trim_end_matches('.')
        .to_owned()
        + "."
}

fn page(root: &Path, template: &str, title: &str, front: &str, schema: &J, example: &str) -> String {
    let example_text = std::fs::read_to_string(root.join(example)).ok();
    // A short first example (`basic/main.tf` next to the full one: no provider block), then the
    // full root module.
    let basic = Path::new(example)
        .parent()
        .and_then(|d| std::fs::read_to_string(root.join(d).join("basic/main.tf")).ok());
    let example_md = match (basic, example_text) {
        (Some(b), Some(t)) => format!(
            "## Example Usage\n\n```terraform\n{}\n```\n\n### Complete configuration\n\nA root module with its \
             provider block:\n\n```terraform\n{}\n```\n",
            b.trim_end(),
            t.trim_end()
        ),
        (None, Some(t)) => format!("## Example Usage\n\n```terraform\n{}\n```\n", t.trim_end()),
        _ => String::new(),
    };
    let schema_md = schema_markdown(&schema["block"]);
    let body = match std::fs::read_to_string(root.join(format!("schemas/templates/{template}.md.tmpl"))) {
        Ok(t) => t
            .replace("{{ .Example }}", example_md.trim_end())
            .replace("{{ .Schema }}", schema_md.trim_end())
            .replace("{{ .BurstSimulation }}", &burst_simulation())
            .replace("{{ .BurstDay }}", &burst_day()),
        Err(_) => {
            let description = schema["block"]["description"].as_str().unwrap_or_default();
            format!("# {title}\n\n{description}\n\n{example_md}\n{schema_md}")
        }
    };
    // A template that brings its own front matter keeps it: the registry reads only one.
    let front = if body.starts_with("---\n") { "" } else { front };
    let mut out = format!("{front}{}", body.trim_end());
    out.push('\n');
    out
}

/// The schema as hashicorp/terraform-plugin-docs v0.22 `internal/schemamd` writes it: the top
/// level under `### Required` / `### Optional` / `### Read-Only` headings, each nested block and
/// nested attribute in its own `<a id="nestedblock--…"></a>` (`nestedatt--…`) / `### Nested
/// Schema for `…`` section (in the order they are met) with `Required:` / `Optional:` / `Read-Only:` paragraphs; within a group,
/// attributes and blocks sorted by name together.
fn schema_markdown(block: &J) -> String {
    let mut out = String::from("## Schema\n");
    let mut nested = std::collections::VecDeque::new();
    write_block(&mut out, block, &[], true, &mut nested);
    while let Some((anchor, path, b)) = nested.pop_front() {
        let _ = write!(
            out,
            "\n<a id=\"{anchor}\"></a>\n### Nested Schema for `{}`\n",
            path.join(".")
        );
        write_block(&mut out, &b, &path, false, &mut nested);
    }
    out
}

/// One entry of a block: an attribute or a nested block type.
enum Child<'a> {
    Attr(&'a J),
    Block(&'a J),
}

/// Nested sections still to write: anchor, path of names, and the block (or object) itself.
type Queue = std::collections::VecDeque<(String, Vec<String>, J)>;

fn write_block(out: &mut String, block: &J, prefix: &[String], top: bool, nested: &mut Queue) {
    let mut children: Vec<(&String, Child<'_>)> = Vec::new();
    for (name, a) in block["attributes"].as_object().into_iter().flatten() {
        children.push((name, Child::Attr(a)));
    }
    for (name, b) in block["block_types"].as_object().into_iter().flatten() {
        children.push((name, Child::Block(b)));
    }
    children.sort_by(|a, b| a.0.cmp(b.0));
    // A block with `min_items` ≥ 1 must be written: the registry lists it as required.
    let block_required = |b: &J| b["min_items"].as_i64().is_some_and(|n| n > 0);
    for heading in ["Required", "Optional", "Read-Only"] {
        let mut lines = Vec::new();
        for (name, child) in &children {
            match child {
                Child::Attr(a) => {
                    let group = if a["required"] == true {
                        "Required"
                    } else if a["optional"] == true {
                        "Optional"
                    } else {
                        "Read-Only"
                    };
                    if group == heading && a["nested_type"].is_object() {
                        lines.push(nested_attribute_line(name, a, prefix, nested));
                    } else if group == heading {
                        let sensitive = if a["sensitive"] == true { ", Sensitive" } else { "" };
                        lines.push(format!(
                            "- `{name}` ({}{sensitive}) {}",
                            type_name(&a["type"]),
                            a["description"].as_str().unwrap_or_default()
                        ));
                    }
                }
                Child::Block(b) => {
                    let group = if block_required(b) { "Required" } else { "Optional" };
                    if group == heading {
                        lines.push(block_line(name, b, prefix, nested));
                    }
                }
            }
        }
        if !lines.is_empty() {
            let title = if top {
                format!("### {heading}")
            } else {
                format!("{heading}:")
            };
            let _ = write!(out, "\n{title}\n\n{}\n", lines.join("\n"));
        }
    }
}

/// A nested block's line, as tfplugindocs writes it for the registry: "(Block List, Max: 1)",
/// "(Block, Optional)" for a single block; its section is queued.
fn block_line(name: &str, b: &J, prefix: &[String], nested: &mut Queue) -> String {
    let path = [prefix, &[name.to_owned()]].concat();
    let anchor = format!("nestedblock--{}", path.join("--"));
    let required = b["min_items"].as_i64().is_some_and(|n| n > 0);
    let single = matches!(b["nesting_mode"].as_str(), Some("single") | None);
    let mut limit = match b["nesting_mode"].as_str() {
        Some(mode) if !single => format!("Block {}", capitalise(mode)),
        _ => "Block".to_owned(),
    };
    if single {
        limit.push_str(if required { ", Required" } else { ", Optional" });
    } else if let Some(n) = b["min_items"].as_i64().filter(|n| *n > 0) {
        limit.push_str(&format!(", Min: {n}"));
    }
    if let Some(n) = b["max_items"].as_i64().filter(|n| *n > 0) {
        limit.push_str(&format!(", Max: {n}"));
    }
    let desc = b["block"]["description"].as_str().unwrap_or_default();
    nested.push_back((anchor.clone(), path, b["block"].clone()));
    format!("- `{name}` ({limit}) {desc} (see [below for nested schema](#{anchor}))")
}

/// A nested attribute's line, as tfplugindocs writes it: "(Attributes)", "(Attributes List)",
/// "(Attributes Map)"; its objects' section is queued under a `nestedatt--<path>` anchor
/// (terraform-plugin-docs `internal/schemamd/render.go`: the path's names joined by `--`).
fn nested_attribute_line(name: &str, a: &J, prefix: &[String], nested: &mut Queue) -> String {
    let path = [prefix, &[name.to_owned()]].concat();
    let anchor = format!("nestedatt--{}", path.join("--"));
    let kind = match a["nested_type"]["nesting_mode"].as_str() {
        Some("single") | None => "Attributes".to_owned(),
        Some(mode) => format!("Attributes {}", capitalise(mode)),
    };
    let desc = a["description"].as_str().unwrap_or_default();
    let object = serde_json::json!({ "attributes": a["nested_type"]["attributes"] });
    nested.push_back((anchor.clone(), path, object));
    format!("- `{name}` ({kind}) {desc} (see [below for nested schema](#{anchor}))")
}

/// A type as the registry's docs write it: `String`, `List of String`, `Map of Number`, `List of Object`.
fn type_name(t: &J) -> String {
    match t {
        J::String(s) => capitalise(s),
        J::Array(a) if a.len() >= 2 => match a[0].as_str() {
            Some("object") => "Object".to_owned(),
            Some(kind) => format!("{} of {}", capitalise(kind), type_name(&a[1])),
            None => "Dynamic".to_owned(),
        },
        _ => "Dynamic".to_owned(),
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// The on-prem-first simulation over the two-site morning, one row per minute, for the burst
/// scaler's page.
fn burst_simulation() -> String {
    use eksgpu_core::burst;
    let scaler = burst::seed_004_scaler();
    let mut out = String::from(
        "| time | on-prem waiting | cloud running | Prometheus down | formula | replicas | decision |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for d in burst::simulate(&scaler, &burst::seed_004_two_site_morning())
        .iter()
        .filter(|d| d.seconds % 60 == 0)
    {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            &d.clock()[..5],
            d.sample.onprem_waiting,
            d.sample.cloud_running,
            d.sample.failing.words(),
            d.value.map_or_else(|| "—".to_owned(), |v| v.to_string()),
            d.replicas,
            d.action
        );
    }
    out
}
