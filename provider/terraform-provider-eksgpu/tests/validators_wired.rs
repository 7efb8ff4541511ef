//! Every exported validator of `eksgpu_core::validate` is wired to the
//! attributes whose upstream constraint it encodes, or it is deleted: a
//! validator nothing calls lets the value it exists to refuse pass plan and
//! fail at apply. Rust cannot list a module's functions, so this reads the
//! source: the validators are the top-level `pub fn`s of
//! `eksgpu-core/src/validate.rs` and `validate/**` (test code left out), and a
//! use is the path `validate::NAME` (or `validate::{.., NAME, ..}`) in code
//! that is not a test or a comment.
//!
//! The policy:
//! - **wired**: named in this crate's code or in an input's declaration
//!   (`eksgpu-core/src/node_strategy/inputs/`), as a schema validator
//!   (`checks::string(.., validate::NAME)`, `Check::Str(.., validate::NAME)`) or a plan-time check for what a
//!   schema validator cannot know (the Karpenter version, the cluster name
//!   next to a pool's). Nothing to list.
//! - **a rule's**: named only by a rule in eksgpu-core (outside `validate/`).
//!   Fine when the rule reports the validator's own error, so it cites the
//!   same constraint: listed in [`RULES`] with the rule's code, which must
//!   appear in the file that calls it.
//! - **a request guard**: named only in eksgpu-cloud, which refuses the value
//!   before it reaches a request; listed in [`GUARDS`] with the file.
//! - **not wired yet**: listed in [`NOT_WIRED`] with the attribute it belongs
//!   on and a `TODO`.
//!
//! Anything else fails, and so does an entry of the lists that is no longer
//! true (the validator is gone, or wired, or used elsewhere now).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Validators only a rule of eksgpu-core calls: (validator, rule code).
const RULES: &[(&str, &str)] = &[
    // block_device_mappings[].device_name (node class and node group): reported with the mapping's other EBS
    // problems under one code, the root volume's.
    ("ebs_device_name", "EKSGPU133"),
    // pool[].capacity_types: `reserved` needs Karpenter 1.3, which the rule knows from the provider block.
    ("karpenter_capacity_type", "EKSGPU106"),
    // pool[].cpu_limit, memory_limit: the quantity's value, compared with the smallest type's capacity
    // (the attributes' own validator is `quantity`).
    ("quantity_value", "EKSGPU135"),
    // pool[].disruption.consolidation_policy: `Balanced` needs Karpenter 1.14, which the rule knows.
    ("karpenter_consolidation_policy", "EKSGPU005"),
    // pool[].node_class.ami_alias: families per Karpenter and Kubernetes version, which the rule knows.
    ("ami_alias", "EKSGPU118"),
    // pool[].labels["nvidia.com/mig.config"] and a sharing pool's mig.config: only `all-<profile>` needs the
    // GPU, which the rule knows from the instance types.
    ("mig_config_name", "EKSGPU003"),
    // pool[].node_class.root_volume: the volume type, size, IOPS and throughput together, per capacity kind.
    ("ebs_volume", "EKSGPU133"),
    ("auto_mode_ephemeral_storage", "EKSGPU133"),
    // pool[].labels: the count includes the labels the provider adds.
    ("node_pool_label_count", "EKSGPU134"),
    // pool[].taint on a node group: the count includes the provider's GPU taint.
    ("node_group_taint_count", "EKSGPU117"),
    // pool[].managed_node_group.release_version against the strategy's kubernetes_version.
    ("node_group_release_for", "EKSGPU117"),
];

/// Validators only eksgpu-cloud calls, before a request: (validator, file under eksgpu-cloud/src).
/// (`dns1123_subdomain`, the kube client's guard on every name in a request path, is wired to
/// `eksgpu_workload_placement.name` too now, so it is checked as wired.)
const GUARDS: &[(&str, &str)] = &[];

/// Validators not wired yet: (validator, the attribute(s) whose constraint it encodes). All are the node
/// strategy's, whose schema and model are being rewritten as one declaration per field (issue 19).
const NOT_WIRED: &[(&str, &str)] = &[];

fn provider_dir() -> PathBuf {
    // The running test's package directory: the shared build directory may hold
    // this test as compiled in another clone (see acceptance-tests' repo_root).
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
        .join("..")
}

/// `text` with comments removed and the contents of string and character
/// literals blanked (newlines kept), so braces and paths can be searched.
fn code_only(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |ch: char| if ch == '\n' { '\n' } else { ' ' };
    while i < c.len() {
        let ident_before = i > 0 && (c[i - 1].is_alphanumeric() || c[i - 1] == '_');
        match c[i] {
            '/' if c.get(i + 1) == Some(&'/') => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
            }
            '/' if c.get(i + 1) == Some(&'*') => {
                i += 2;
                while i < c.len() && !(c[i] == '*' && c.get(i + 1) == Some(&'/')) {
                    out.push(blank(c[i]));
                    i += 1;
                }
                i += 2;
            }
            'r' if !ident_before && matches!(c.get(i + 1), Some('"' | '#')) => {
                let mut j = i + 1;
                let mut hashes = 0;
                while c.get(j) == Some(&'#') {
                    hashes += 1;
                    j += 1;
                }
                if c.get(j) != Some(&'"') {
                    out.push('r');
                    i += 1;
                    continue;
                }
                out.push('"');
                j += 1;
                loop {
                    match c.get(j) {
                        None => break,
                        Some('"') if (0..hashes).all(|h| c.get(j + 1 + h) == Some(&'#')) => {
                            j += 1 + hashes;
                            break;
                        }
                        Some(&ch) => out.push(blank(ch)),
                    }
                    j += 1;
                }
                out.push('"');
                i = j;
            }
            '"' => {
                out.push('"');
                i += 1;
                while i < c.len() && c[i] != '"' {
                    if c[i] == '\\' {
                        out.push(' ');
                        i += 1;
                    }
                    if i < c.len() {
                        out.push(blank(c[i]));
                        i += 1;
                    }
                }
                out.push('"');
                i += 1;
            }
            // A character literal ('{', '\n', '\''); a lifetime ('a) is left alone.
            '\'' if c.get(i + 1) == Some(&'\\') || c.get(i + 2) == Some(&'\'') => {
                let end = if c.get(i + 1) == Some(&'\\') {
                    (i + 3..c.len()).find(|&j| c[j] == '\'').unwrap_or(c.len() - 1)
                } else {
                    i + 2
                };
                out.push_str("' '");
                i = end + 1;
            }
            ch => {
                out.push(ch);
                i += 1;
            }
        }
    }
    out
}

/// The index just past the `}` that closes the `{` at `open`.
fn closing(code: &str, open: usize) -> usize {
    let mut depth = 0usize;
    for (i, b) in code.bytes().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    code.len()
}

/// Code without its `#[cfg(test)]` items, and the names of test-only modules
/// it declares in other files (`#[cfg(test)] mod tests;`).
fn without_tests(code: &str) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut modules = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        let semi = item.find(';').unwrap_or(item.len());
        let brace = item.find('{').unwrap_or(item.len());
        let end = if semi < brace {
            let decl = item["#[cfg(test)]".len()..semi].trim();
            if let Some(name) = decl
                .strip_prefix("mod ")
                .or_else(|| decl.strip_prefix("pub(crate) mod "))
            {
                modules.push(name.trim().to_owned());
            }
            semi + 1
        } else {
            closing(item, brace)
        };
        rest = &item[end.min(item.len())..];
    }
    out.push_str(rest);
    (out, modules)
}

/// The `.rs` files under `dir` and their code without tests (a test-only
/// module's file, `tests.rs` or declared `#[cfg(test)] mod x;`, left out).
fn sources(dir: &Path) -> BTreeMap<PathBuf, String> {
    fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap_or_else(|e| panic!("{}: {e}", dir.display())).path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, files);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, &mut files);
    let mut code = BTreeMap::new();
    let mut test_only = BTreeSet::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let (c, modules) = without_tests(&code_only(&text));
        // `a.rs` declares its modules in `a/`; `lib.rs`, `main.rs` and `mod.rs` beside themselves.
        let stem = f
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let base = if ["lib", "main", "mod"].contains(&stem.as_str()) {
            f.parent().unwrap_or(f).to_path_buf()
        } else {
            f.with_extension("")
        };
        for m in modules {
            test_only.insert(base.join(format!("{m}.rs")));
            test_only.insert(base.join(&m));
        }
        code.insert(f.clone(), c);
    }
    code.retain(|f, _| f.file_name().is_some_and(|n| n != "tests.rs") && !test_only.iter().any(|t| f.starts_with(t)));
    code
}

/// Names of top-level `pub fn`s.
fn public_functions(code: &str) -> BTreeSet<String> {
    code.lines()
        .filter_map(|l| l.strip_prefix("pub fn "))
        .map(|rest| rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect())
        .collect()
}

/// The names `code` uses through a `validate` path: `validate::NAME` and
/// `validate::{A, B as C}` (A and B).
fn uses(code: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String { s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect() };
    let mut found = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find("validate::") {
        // A path segment of its own: not `my_validate::x`.
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "validate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(list) = rest.strip_prefix('{') {
            let end = list.find('}').unwrap_or(list.len());
            for name in list[..end].split(',') {
                let name = ident(name.trim());
                if !name.is_empty() {
                    found.insert(name);
                }
            }
        } else {
            let name = ident(rest);
            if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

/// File names for messages, relative to `provider/`.
fn shown(files: &[PathBuf]) -> Vec<String> {
    let root = provider_dir();
    files
        .iter()
        .map(|f| f.strip_prefix(&root).unwrap_or(f).display().to_string())
        .collect()
}

/// Which files of `code` use each name.
fn users(code: &BTreeMap<PathBuf, String>) -> BTreeMap<String, Vec<PathBuf>> {
    let mut by_name: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for (f, c) in code {
        for name in uses(c) {
            by_name.entry(name).or_default().push(f.clone());
        }
    }
    by_name
}

#[test]
fn every_exported_validator_is_wired_or_listed() {
    let root = provider_dir();
    let core_src = root.join("eksgpu-core/src");
    let core = sources(&core_src);
    let is_validate = |f: &Path| f == core_src.join("validate.rs") || f.starts_with(core_src.join("validate"));
    let validators: BTreeSet<String> = core
        .iter()
        .filter(|(f, _)| is_validate(f))
        .flat_map(|(_, c)| public_functions(c))
        .collect();
    // The scan works: the cluster name's validator is one, on every resource's `cluster_name`.
    assert!(validators.contains("eks_cluster_name"), "{validators:?}");

    // The inputs' declarations (eksgpu-core node_strategy/inputs/) are schema: their checks
    // become the attributes' validators.
    let is_declaration = |f: &Path| f.starts_with(core_src.join("node_strategy/inputs"));
    let mut schema = sources(&root.join("terraform-provider-eksgpu/src"));
    schema.extend(
        core.iter()
            .filter(|(f, _)| is_declaration(f))
            .map(|(f, c)| (f.clone(), c.clone())),
    );
    let provider = users(&schema);
    let rules = users(
        &core
            .iter()
            .filter(|(f, _)| !is_validate(f) && !is_declaration(f))
            .map(|(f, c)| (f.clone(), c.clone()))
            .collect(),
    );
    let cloud_src = root.join("eksgpu-cloud/src");
    let cloud = users(&sources(&cloud_src));
    let listed = |table: &[(&'static str, &'static str)], name: &str| {
        table.iter().find(|(v, _)| *v == name).map(|(_, why)| *why)
    };

    let mut problems = Vec::new();
    for v in &validators {
        let rule = listed(RULES, v);
        let guard = listed(GUARDS, v);
        let todo = listed(NOT_WIRED, v);
        if provider.contains_key(v) {
            if rule.or(guard).or(todo).is_some() {
                problems.push(format!("{v} is wired now: take it off the lists of this test"));
            }
            continue;
        }
        if let Some(files) = rules.get(v) {
            match rule {
                Some(code) if files.iter().any(|f| core[f].contains(code)) => {}
                Some(code) => problems.push(format!("{v}: no rule {code} where it is called ({:?})", shown(files))),
                None => problems.push(format!(
                    "{v} is used only by a rule ({:?}): list it in RULES with the rule's code, or wire it",
                    shown(files)
                )),
            }
            continue;
        }
        if let Some(files) = cloud.get(v) {
            match guard {
                Some(file) if files.iter().any(|f| f.ends_with(file)) => {}
                Some(file) => problems.push(format!(
                    "{v}: not called in eksgpu-cloud/src/{file} ({:?})",
                    shown(files)
                )),
                None => problems.push(format!(
                    "{v} is used only by eksgpu-cloud ({:?}): list it in GUARDS, or wire it",
                    shown(files)
                )),
            }
            continue;
        }
        if todo.is_none() {
            problems.push(format!(
                "{v} is used by no schema, plan check, rule or guard: wire it on the attributes whose upstream \
                 constraint it encodes, or delete it"
            ));
        }
        if rule.or(guard).is_some() {
            problems.push(format!("{v} is listed as a rule's or a guard's, but nothing calls it"));
        }
    }
    for (v, _) in RULES.iter().chain(GUARDS).chain(NOT_WIRED) {
        if !validators.contains(*v) {
            problems.push(format!(
                "{v} is listed but is no exported validator (deleted or renamed?)"
            ));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn the_scan_reads_code_not_comments_strings_or_tests() {
    let text = r##"
use eksgpu_core::validate::{self, label_key, taint_value as tv};
// validate::in_a_comment
/* validate::in_a_block_comment */
fn f() -> bool {
    let _ = "validate::in_a_string {";
    let _ = r#"validate::in_a_raw_string }"#;
    let _ = '{';
    my_validate::not_this();
    validate::eks_cluster_name("x").is_ok()
}
#[cfg(test)]
mod tests {
    fn t() { validate::in_a_test(); }
}
#[cfg(test)]
mod more;
pub fn after_tests() { validate::quantity("1"); }
"##;
    let (code, modules) = without_tests(&code_only(text));
    let names: Vec<_> = uses(&code).into_iter().collect();
    assert_eq!(
        names,
        ["eks_cluster_name", "label_key", "quantity", "self", "taint_value"]
    );
    assert_eq!(modules, ["more"]);
    assert_eq!(public_functions(&code).into_iter().collect::<Vec<_>>(), ["after_tests"]);
}
