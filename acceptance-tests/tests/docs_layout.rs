//! docs/ follows the layout the Terraform Registry publishes from: the rules
//! of its provider documentation format (index.md, one directory per kind of
//! page, file names without the provider prefix, YAML front matter with only
//! `page_title`, `subcategory` and `description`, pages under 500 KB), plus
//! links between pages and error hints that point at published pages that exist.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use eksgpu_acceptance_tests::repo_root;

/// The directories the registry reads inside docs/.
const KINDS: [&str; 7] = [
    "guides",
    "resources",
    "data-sources",
    "functions",
    "ephemeral-resources",
    "list-resources",
    "actions",
];
const FRONT_MATTER_KEYS: [&str; 3] = ["page_title", "subcategory", "description"];
/// The registry refuses documentation files above this size.
const MAX_PAGE_BYTES: u64 = 500 * 1024;

fn pages() -> Vec<PathBuf> {
    let docs = repo_root().join("docs");
    let mut out = vec![docs.join("index.md")];
    for kind in KINDS {
        if let Ok(entries) = std::fs::read_dir(docs.join(kind)) {
            out.extend(entries.filter_map(Result::ok).map(|e| e.path()));
        }
    }
    out.sort();
    out
}

fn rel(p: &Path) -> String {
    p.strip_prefix(repo_root().join("docs"))
        .unwrap_or(p)
        .display()
        .to_string()
}

#[test]
fn docs_holds_only_what_the_registry_reads() {
    let docs = repo_root().join("docs");
    let mut wrong = Vec::new();
    for entry in std::fs::read_dir(&docs).unwrap().filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_dir = entry.path().is_dir();
        if !(name == "index.md" && !is_dir || is_dir && KINDS.contains(&name.as_str())) {
            wrong.push(name);
        }
    }
    assert!(
        wrong.is_empty(),
        "docs/ may hold index.md and {KINDS:?} only; move {wrong:?} (design notes live in design/)"
    );
    assert!(docs.join("index.md").is_file(), "docs/index.md is the provider's page");
    for page in pages() {
        assert!(
            page.is_file() && page.extension().is_some_and(|e| e == "md"),
            "{}: the registry reads only .md files, no subdirectories",
            rel(&page)
        );
        let size = page.metadata().map(|m| m.len()).unwrap_or_default();
        assert!(
            size < MAX_PAGE_BYTES,
            "{}: {size} bytes, above the registry's limit",
            rel(&page)
        );
    }
}

#[test]
fn every_page_has_one_front_matter_with_the_registry_keys() {
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        let name = rel(&page);
        let body = text
            .strip_prefix("---\n")
            .unwrap_or_else(|| panic!("{name}: no YAML front matter at the top"));
        let (front, rest) = body
            .split_once("\n---\n")
            .unwrap_or_else(|| panic!("{name}: front matter not closed"));
        let keys: Vec<&str> = front
            .lines()
            .filter(|l| !l.starts_with(' ') && !l.trim().is_empty())
            .map(|l| l.split(':').next().unwrap_or_default())
            .collect();
        let unique: BTreeSet<&str> = keys.iter().copied().collect();
        assert_eq!(keys.len(), unique.len(), "{name}: a front matter key repeats: {keys:?}");
        assert_eq!(
            unique,
            FRONT_MATTER_KEYS.into_iter().collect(),
            "{name}: front matter keys must be exactly {FRONT_MATTER_KEYS:?}"
        );
        assert!(
            !rest.trim_start().starts_with("---") && !rest.contains("\npage_title:"),
            "{name}: a second front matter block"
        );
    }
}

/// resources/, data-sources/ and functions/ have one page per schema entry,
/// named without the `eksgpu_` prefix, and nothing else.
#[test]
fn page_names_match_the_schema() {
    let root = repo_root();
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("schemas/provider.json")).unwrap()).unwrap();
    let entry = &schema["provider_schemas"]["registry.terraform.io/eksgpu/eksgpu"];
    for (kind, key) in [
        ("resources", "resource_schemas"),
        ("data-sources", "data_source_schemas"),
        ("functions", "functions"),
    ] {
        let expected: BTreeSet<String> = entry[key]
            .as_object()
            .map(|m| {
                m.keys()
                    .map(|k| format!("{}.md", k.trim_start_matches("eksgpu_")))
                    .collect()
            })
            .unwrap_or_default();
        let found: BTreeSet<String> = std::fs::read_dir(root.join("docs").join(kind))
            .map(|d| {
                d.filter_map(Result::ok)
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(found, expected, "docs/{kind}/ must match the schema's {key}");
    }
}

/// Where docs are published: links between pages use it, since the registry
/// serves pages without `.md` and does not rewrite relative links.
const PUBLISHED: &str = "https://registry.terraform.io/providers/eksgpu/eksgpu/latest/docs";

/// Every published-docs URL in `text` that names no page of docs/.
fn dead_published_links(text: &str) -> Vec<String> {
    let docs = repo_root().join("docs");
    text.match_indices(PUBLISHED)
        .map(|(i, _)| {
            let url: String = text[i..]
                .chars()
                .take_while(|c| !c.is_whitespace() && !matches!(c, ')' | '"' | '`' | '\\' | '>'))
                .collect();
            url.trim_end_matches(['.', ',', ';']).to_owned()
        })
        .filter(|url| {
            let page = url[PUBLISHED.len()..].split('#').next().unwrap_or_default();
            let file = match page.trim_matches('/') {
                "" => docs.join("index.md"),
                p => docs.join(format!("{p}.md")),
            };
            !file.is_file()
        })
        .collect()
}

/// Links between pages are published URLs of pages that exist (relative
/// `.md` links would break on the registry); in-page anchors are fine.
#[test]
fn links_between_pages_are_published_urls_that_resolve() {
    let mut wrong = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for target in text.split("](").skip(1).filter_map(|s| s.split(')').next()) {
            if !(target.starts_with('#') || target.contains("://") || target.starts_with("mailto:")) {
                wrong.push(format!("{}: relative link {target}", rel(&page)));
            }
        }
        wrong.extend(
            dead_published_links(&text)
                .into_iter()
                .map(|u| format!("{}: no page for {u}", rel(&page))),
        );
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// Users read diagnostics and schema descriptions far from this repository:
/// they link to the published docs, never to a path in the repository.
#[test]
fn messages_point_at_published_docs_not_repo_paths() {
    let repo_paths = [
        "docs/index.md",
        "docs/guides/",
        "docs/resources/",
        "docs/data-sources/",
        "docs/functions/",
        "docs/iam.md",
        "docs/rules.md",
    ];
    let mut found = Vec::new();
    let mut stack = vec![repo_root().join("provider")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().filter_map(Result::ok) {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&p).unwrap();
                for (n, line) in text.lines().enumerate() {
                    // Comments may name repo paths: they are for readers of the code.
                    if line.trim_start().starts_with("//") {
                        continue;
                    }
                    // Preceded by `/`, it is part of a URL (`…/latest/docs/guides/iam`).
                    let names_repo_path = repo_paths
                        .iter()
                        .any(|r| line.match_indices(r).any(|(i, _)| !line[..i].ends_with('/')));
                    if names_repo_path {
                        found.push(format!("{}:{}", p.display(), n + 1));
                    }
                    for url in dead_published_links(line) {
                        found.push(format!("{}:{}: no page for {url}", p.display(), n + 1));
                    }
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "messages name repo doc paths or published pages that do not exist; link {PUBLISHED}/<page>: {found:?}"
    );
}

/// The import ID formats a resource accepts, read from its `ImportId` in the
/// provider's source (`formats: &[&["cluster_name", "name"], …]`).
fn import_formats(short: &str) -> Vec<Vec<String>> {
    let file = repo_root().join(format!("provider/terraform-provider-eksgpu/src/resources/{short}.rs"));
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let start = text
        .find("formats: &[")
        .unwrap_or_else(|| panic!("{}: no ImportId formats", file.display()));
    let list = &text[start + "formats: &[".len()..];
    let list = &list[..list.find("],\n").unwrap_or(list.len())];
    list.split("&[")
        .skip(1)
        .map(|f| {
            f.split(']')
                .next()
                .unwrap_or_default()
                .split(',')
                .map(|p| p.trim().trim_matches('"').to_owned())
                .filter(|p| !p.is_empty())
                .collect()
        })
        .collect()
}

/// Every resource page shows an `import {}` block (Terraform 1.5+) for the
/// page's resource whose ID has the shape of one of the formats the provider
/// parses, and the page names exactly those formats.
#[test]
fn every_resource_page_has_an_import_block_in_the_resources_id_format() {
    let docs = repo_root().join("docs/resources");
    let mut checked = 0;
    for entry in std::fs::read_dir(&docs).unwrap().filter_map(Result::ok) {
        let page = entry.path();
        let short = page.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&page).unwrap();
        let import = text
            .split("\n## Import\n")
            .nth(1)
            .unwrap_or_else(|| panic!("resources/{short}.md: no Import section"));
        // A resource that refuses import says so instead (a capacity probe is the record of a run).
        if import.contains("cannot be imported") {
            checked += 1;
            continue;
        }
        let block = import
            .split("```terraform\n")
            .nth(1)
            .and_then(|b| b.split("```").next())
            .unwrap_or_else(|| panic!("resources/{short}.md: no import block in the Import section"));
        assert!(block.starts_with("import {\n"), "resources/{short}.md: {block}");
        let field = |key: &str| {
            block
                .lines()
                .find_map(|l| l.trim().strip_prefix(key)?.trim_start().strip_prefix('='))
                .map(|v| v.trim().to_owned())
                .unwrap_or_else(|| panic!("resources/{short}.md: import block without `{key}`"))
        };
        let to = field("to");
        assert!(
            to.starts_with(&format!("eksgpu_{short}.")),
            "resources/{short}.md: the import block imports {to}"
        );
        let id = field("id");
        let id = id
            .strip_prefix('"')
            .and_then(|i| i.strip_suffix('"'))
            .unwrap_or_else(|| panic!("resources/{short}.md: id {id} is not a string"));
        let formats = import_formats(&short);
        let parts: Vec<&str> = id.split('/').collect();
        assert!(
            parts.iter().all(|p| !p.is_empty()) && formats.iter().any(|f| f.len() == parts.len()),
            "resources/{short}.md: import ID {id:?} fits none of {formats:?}"
        );
        // The command's comment names each format the provider accepts, in its order.
        let named: Vec<String> = formats.iter().map(|f| format!("<{}>", f.join(">/<"))).collect();
        let comment = import.split("Import ID: ").nth(1).unwrap_or_default();
        let mut at = 0;
        for n in &named {
            let i = comment[at..]
                .find(n.as_str())
                .unwrap_or_else(|| panic!("resources/{short}.md: the import comment does not name {n}"));
            at += i + n.len();
        }
        checked += 1;
    }
    assert!(checked >= 4, "{checked} resource pages");
}

/// A type as the registry writes it in a page's schema: `String`, `Bool`,
/// `List of String`, `Map of Number`, `List of Object`.
fn registry_type(t: &serde_json::Value) -> String {
    let word = |s: &str| {
        let mut c = s.chars();
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect())
            .unwrap_or_default()
    };
    match t {
        serde_json::Value::String(s) => word(s),
        serde_json::Value::Array(a) if a[0] == "object" => "Object".to_owned(),
        serde_json::Value::Array(a) => format!(
            "{} of {}",
            word(a[0].as_str().unwrap_or_default()),
            registry_type(&a[1])
        ),
        _ => "Dynamic".to_owned(),
    }
}

/// What a schema says each entry of one page section must look like:
/// (section anchor, name, heading, type text). Sections are anchored as tfplugindocs anchors them
/// (terraform-plugin-docs `internal/schemamd`): `nestedblock--` or `nestedatt--` and the names of
/// the path joined by `--`.
fn expected_entries(
    block: &serde_json::Value,
    path: &[String],
    anchor: &str,
    out: &mut Vec<(String, String, &'static str, String)>,
) {
    for (name, a) in block["attributes"].as_object().into_iter().flatten() {
        let heading = if a["required"] == true {
            "Required"
        } else if a["optional"] == true {
            "Optional"
        } else {
            "Read-Only"
        };
        let sensitive = if a["sensitive"] == true { ", Sensitive" } else { "" };
        let nested = &a["nested_type"];
        let kind = if nested.is_object() {
            match nested["nesting_mode"].as_str() {
                Some("list") => "Attributes List".to_owned(),
                Some("set") => "Attributes Set".to_owned(),
                Some("map") => "Attributes Map".to_owned(),
                _ => "Attributes".to_owned(),
            }
        } else {
            format!("{}{sensitive}", registry_type(&a["type"]))
        };
        out.push((anchor.to_owned(), name.clone(), heading, kind));
        if nested.is_object() {
            let here = [path, std::slice::from_ref(name)].concat();
            let object = serde_json::json!({ "attributes": nested["attributes"] });
            expected_entries(&object, &here, &format!("nestedatt--{}", here.join("--")), out);
        }
    }
    for (name, b) in block["block_types"].as_object().into_iter().flatten() {
        let min = b["min_items"].as_i64().unwrap_or(0);
        let max = b["max_items"].as_i64().unwrap_or(0);
        let mut kind = match b["nesting_mode"].as_str() {
            Some("list") => "Block List".to_owned(),
            Some("set") => "Block Set".to_owned(),
            Some("map") => "Block Map".to_owned(),
            // tfplugindocs: a single block says whether it must be written.
            _ if min > 0 => "Block, Required".to_owned(),
            _ => "Block, Optional".to_owned(),
        };
        if min > 0 && b["nesting_mode"] != "single" {
            kind.push_str(&format!(", Min: {min}"));
        }
        if max > 0 {
            kind.push_str(&format!(", Max: {max}"));
        }
        let heading = if min > 0 { "Required" } else { "Optional" };
        out.push((anchor.to_owned(), name.clone(), heading, kind));
        let here = [path, std::slice::from_ref(name)].concat();
        expected_entries(&b["block"], &here, &format!("nestedblock--{}", here.join("--")), out);
    }
}

/// The entries a page lists: (section anchor, name, heading, type text).
fn listed_entries(page: &str) -> Vec<(String, String, String, String)> {
    let schema = page.split("\n## Schema\n").nth(1).unwrap_or_default();
    let schema = schema.split("\n## ").next().unwrap_or_default();
    let (mut anchor, mut heading) = (String::new(), String::new());
    let mut out = Vec::new();
    for line in schema.lines() {
        if let Some(a) = line.strip_prefix("<a id=\"").and_then(|l| l.strip_suffix("\"></a>")) {
            anchor = a.to_owned();
        } else if let Some(h) = line.strip_prefix("### ").filter(|h| !h.starts_with("Nested Schema")) {
            // tfplugindocs: headings at the top level only…
            heading = if anchor.is_empty() {
                h.to_owned()
            } else {
                format!("### {h} in a nested section")
            };
        } else if let Some(h) = line
            .strip_suffix(':')
            .filter(|h| ["Required", "Optional", "Read-Only"].contains(h))
        {
            // … and `Required:` paragraphs in nested sections.
            heading = if anchor.is_empty() {
                format!("{h}: at the top level")
            } else {
                h.to_owned()
            };
        } else if let Some(rest) = line.strip_prefix("- `") {
            let (name, rest) = rest.split_once("` (").unwrap_or_default();
            let kind = rest.split(')').next().unwrap_or_default();
            out.push((anchor.clone(), name.to_owned(), heading.clone(), kind.to_owned()));
        }
    }
    out
}

/// Each argument, block and attribute of the provider, resources and data
/// sources is listed under the heading the registry uses (a block with
/// `min_items` ≥ 1 under Required) with its type spelled as the registry
/// spells it (`String`, `Map of String`, `Block List, Max: 1`), as
/// hashicorp/terraform-plugin-docs `internal/schemamd` writes them.
#[test]
fn schema_entries_are_listed_as_required_optional_or_read_only_with_registry_types() {
    let root = repo_root();
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("schemas/provider.json")).unwrap()).unwrap();
    let entry = &schema["provider_schemas"]["registry.terraform.io/eksgpu/eksgpu"];
    let mut pages = vec![("index.md".to_owned(), &entry["provider"])];
    for (dir, key) in [
        ("resources", "resource_schemas"),
        ("data-sources", "data_source_schemas"),
    ] {
        for (name, s) in entry[key].as_object().into_iter().flatten() {
            pages.push((format!("{dir}/{}.md", name.trim_start_matches("eksgpu_")), s));
        }
    }
    let mut wrong = Vec::new();
    for (page, s) in pages {
        let text = std::fs::read_to_string(root.join("docs").join(&page)).unwrap();
        let listed = listed_entries(&text);
        let mut expected = Vec::new();
        expected_entries(&s["block"], &[], "", &mut expected);
        for (anchor, name, heading, kind) in &expected {
            let found = listed.iter().find(|(a, n, _, _)| a == anchor && n == name);
            match found {
                None => wrong.push(format!("{page}: `{name}` ({anchor}) is not listed")),
                Some((_, _, h, k)) if h != heading || k != kind => wrong.push(format!(
                    "{page}: `{name}` ({anchor}) is under {h} as ({k}); the registry writes it under {heading} as ({kind})"
                )),
                Some(_) => {}
            }
        }
        if listed.len() != expected.len() {
            wrong.push(format!(
                "{page}: {} entries listed, the schema has {}",
                listed.len(),
                expected.len()
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// Files the pages show from the repository (images: the registry serves only
/// the Markdown) are linked at this release's tag and exist in the repository.
#[test]
fn repository_files_the_pages_link_exist_at_this_release() {
    let prefix = "https://raw.githubusercontent.com/eksgpu/terraform-provider-eksgpu/";
    let tag = format!("v{}/", env!("CARGO_PKG_VERSION"));
    let mut found = 0;
    let mut wrong = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for (i, _) in text.match_indices(prefix) {
            let url: String = text[i + prefix.len()..]
                .chars()
                .take_while(|c| !c.is_whitespace() && !matches!(c, ')' | '"' | '>'))
                .collect();
            found += 1;
            match url.strip_prefix(&tag) {
                Some(path) if repo_root().join(path).is_file() => {}
                Some(path) => wrong.push(format!("{}: no file {path}", rel(&page))),
                None => wrong.push(format!("{}: {url} is not at tag {tag}", rel(&page))),
            }
        }
    }
    assert!(found > 0, "the burst scaler page shows its simulated day");
    assert!(wrong.is_empty(), "{wrong:#?}");
}
