//! Generated files are fresh: docs/ matches the schema snapshot and examples,
//! and docs/guides/iam.md lists every AWS action the provider calls.
//! Regenerate with `scripts/generate`.

use std::path::PathBuf;

use eksgpu_acceptance_tests::hcl::provider_header;
use eksgpu_acceptance_tests::repo_root;

#[test]
fn docs_are_fresh() {
    let root = repo_root();
    let update = std::env::var_os("EKSGPU_UPDATE_SNAPSHOTS").is_some();
    let mut stale = Vec::new();
    for (path, content) in eksgpu_acceptance_tests::docs::render(&root) {
        let file = root.join(&path);
        if update {
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, &content).unwrap();
        } else if std::fs::read_to_string(&file).ok().as_deref() != Some(content.as_str()) {
            stale.push(path);
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated docs {stale:?}: run scripts/generate and commit"
    );
}

/// Every `"service:Action"` the cloud adapters name (the operation of each
/// AwsError) appears in docs/guides/iam.md, and the policy there lists nothing else.
#[test]
fn iam_doc_lists_exactly_the_actions_the_code_calls() {
    let root = repo_root();
    let mut in_code = std::collections::BTreeSet::new();
    let mut stack = vec![root.join("provider/eksgpu-cloud/src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().filter_map(Result::ok) {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&p).unwrap();
                for piece in text.split('"').skip(1).step_by(2) {
                    if let Some((service, action)) = piece.split_once(':')
                        && ["eks", "ec2", "iam", "sts"].contains(&service)
                        && action.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                        && action.chars().all(|c| c.is_ascii_alphanumeric())
                    {
                        in_code.insert(piece.to_owned());
                    }
                }
            }
        }
    }
    let doc = std::fs::read_to_string(root.join("docs/guides/iam.md")).unwrap();
    let policy = doc
        .split("```json")
        .nth(1)
        .and_then(|s| s.split("```").next())
        .expect("docs/guides/iam.md has a JSON policy");
    let policy: serde_json::Value = serde_json::from_str(policy).expect("the policy in docs/guides/iam.md is JSON");
    let in_doc: std::collections::BTreeSet<String> = policy["Statement"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| {
            s["Action"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap().to_owned())
        })
        .collect();
    assert!(!in_code.is_empty());
    assert_eq!(
        in_doc, in_code,
        "docs/guides/iam.md must list exactly the actions in provider/eksgpu-cloud"
    );
}

/// The ```terraform blocks of a page, with the indentation of their fence
/// (blocks inside list items) taken off.
fn terraform_blocks(page: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut open: Option<(usize, String)> = None;
    for line in page.lines() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        match &mut open {
            None if trimmed == "```terraform" => open = Some((indent, String::new())),
            Some((_, text)) if trimmed == "```" => {
                blocks.push(std::mem::take(text));
                open = None;
            }
            Some((fence, text)) => {
                text.push_str(line.get(*fence..).unwrap_or(line.trim_start()));
                text.push('\n');
            }
            None => {}
        }
    }
    blocks
}

/// Every HCL block of the docs is as `terraform fmt` writes it (which also
/// means it parses). Offline, `terraform validate` cannot run on the guides:
/// they use hashicorp/aws, hashicorp/helm and registry modules.
#[test]
fn every_terraform_block_in_the_docs_is_fmt_clean() {
    let root = repo_root();
    let terraform = std::env::var_os("TF_ACC_TERRAFORM_PATH").map_or_else(|| "terraform".into(), PathBuf::from);
    let dir = std::env::temp_dir().join(format!("eksgpu-docs-fmt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut stack = vec![root.join("docs")];
    let (mut checked, mut wrong) = (0, Vec::new());
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().filter_map(Result::ok) {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            for (i, block) in terraform_blocks(&text).iter().enumerate() {
                let file = dir.join("main.tf");
                std::fs::write(&file, block).unwrap();
                let out = std::process::Command::new(&terraform)
                    .args(["fmt", "-check", "-diff", "-no-color"])
                    .arg(&file)
                    .env_remove("TF_CLI_CONFIG_FILE")
                    .output()
                    .unwrap_or_else(|e| panic!("run {}: {e}", terraform.display()));
                checked += 1;
                if !out.status.success() {
                    wrong.push(format!(
                        "{} block {}:\n{}{}",
                        p.strip_prefix(&root).unwrap_or(&p).display(),
                        i + 1,
                        String::from_utf8_lossy(&out.stdout),
                        String::from_utf8_lossy(&out.stderr)
                    ));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(checked > 10, "{checked} blocks");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The composition guide installs the chart releases whose CRDs the
/// acceptance tests run against (acceptance-tests/kube-emulator/crds/README.md),
/// from the charts' public repositories.
#[test]
fn composition_guide_pins_the_releases_the_tests_use() {
    let root = repo_root();
    let crds = std::fs::read_to_string(root.join("acceptance-tests/kube-emulator/crds/README.md")).unwrap();
    let tag = |file: &str| {
        crds.lines()
            .find(|l| l.contains(file))
            .and_then(|l| l.split('|').nth(3))
            .and_then(|c| c.trim().split(',').next())
            .map(str::to_owned)
            .unwrap_or_else(|| panic!("no release tag for {file} in crds/README.md"))
    };
    let guide = std::fs::read_to_string(root.join("docs/guides/composition.md")).unwrap();
    let releases: Vec<String> = terraform_blocks(&guide)
        .into_iter()
        .flat_map(|b| {
            b.split("resource \"helm_release\"")
                .skip(1)
                .map(|r| r.split("\n}\n").next().unwrap_or_default().to_owned())
                .collect::<Vec<_>>()
        })
        .collect();
    let value = |release: &str, key: &str| {
        release
            .lines()
            .find_map(|l| l.trim().strip_prefix(key)?.trim_start().strip_prefix('='))
            .map(|v| v.trim().trim_matches('"').to_owned())
            .unwrap_or_default()
    };
    for (chart, repository, version) in [
        (
            "karpenter",
            "oci://public.ecr.aws/karpenter",
            tag("karpenter.sh_nodepools.yaml").trim_start_matches('v').to_owned(),
        ),
        (
            "gpu-operator",
            "https://helm.ngc.nvidia.com/nvidia",
            tag("nvidia.com_clusterpolicies.yaml"),
        ),
        (
            "keda",
            "https://kedacore.github.io/charts",
            tag("keda.sh_scaledobjects.yaml").trim_start_matches('v').to_owned(),
        ),
    ] {
        let release = releases
            .iter()
            .find(|r| value(r, "chart") == chart)
            .unwrap_or_else(|| panic!("the composition guide installs no {chart} chart"));
        assert_eq!(value(release, "repository"), repository, "{chart}");
        assert_eq!(value(release, "version"), version, "{chart}");
    }
}

/// The composition guide names every chart the Helm lane renders the values outputs through
/// (`src/helm.rs`), each next to the outputs rendered through it.
#[test]
fn composition_guide_names_the_charts_the_values_are_rendered_against() {
    use eksgpu_acceptance_tests::helm::OUTPUTS;
    let guide = std::fs::read_to_string(repo_root().join("docs/guides/composition.md")).unwrap();
    for out in OUTPUTS {
        let row = guide
            .lines()
            .find(|l| l.starts_with(&format!("| `{}`", out.attribute)))
            .unwrap_or_else(|| panic!("the composition guide has no chart row for {}", out.attribute));
        for chart in out.charts {
            assert!(
                row.contains(chart.label),
                "{}: the guide's row names no {}:\n{row}",
                out.attribute,
                chart.label
            );
        }
    }
}

/// Every `eksgpu_<type>.<name>.<attribute>` the guides read names an
/// attribute or block of that resource in the schema.
#[test]
fn guides_read_only_attributes_the_schema_has() {
    let root = repo_root();
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("schemas/provider.json")).unwrap()).unwrap();
    let resources = &schema["provider_schemas"]["registry.terraform.io/eksgpu/eksgpu"]["resource_schemas"];
    let mut wrong = Vec::new();
    for entry in std::fs::read_dir(root.join("docs/guides"))
        .unwrap()
        .filter_map(Result::ok)
    {
        let text = std::fs::read_to_string(entry.path()).unwrap();
        for block in terraform_blocks(&text) {
            for (i, _) in block.match_indices("eksgpu_") {
                // A reference, not a resource label: `eksgpu_x.name.attr` outside quotes.
                if block[..i].ends_with('"') {
                    continue;
                }
                let reference: String = block[i..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.'))
                    .collect();
                let parts: Vec<&str> = reference.split('.').collect();
                if parts.len() < 3 {
                    continue;
                }
                let block_schema = &resources[parts[0]]["block"];
                let known = block_schema["attributes"].get(parts[2]).is_some()
                    || block_schema["block_types"].get(parts[2]).is_some();
                if !known {
                    wrong.push(format!("{}: {reference}", entry.file_name().to_string_lossy()));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "references to attributes the schema does not have: {wrong:?}"
    );
}

/// The composition guide's `eksgpu_*` resources (with its `locals`) plan with
/// the provider, the other providers', modules' and variables' values put in as
/// literals: the HCL is valid for this provider's schema and passes its rules
/// without a warning.
#[test]
fn composition_guide_resources_plan_with_the_provider() {
    let guide = std::fs::read_to_string(repo_root().join("docs/guides/composition.md")).unwrap();
    let mut main_tf = provider_header();
    let mut resources = 0;
    for block in terraform_blocks(&guide) {
        let mut inside = false;
        for line in block.lines() {
            if line.starts_with("resource \"eksgpu_") || line == "locals {" {
                inside = true;
                resources += usize::from(line.starts_with("resource"));
            }
            if inside && !line.trim_start().starts_with("depends_on") {
                main_tf.push_str(line);
                main_tf.push('\n');
            }
            if line == "}" {
                inside = false;
            }
        }
    }
    assert!(resources >= 3, "{main_tf}");
    let main_tf = main_tf
        .replace("module.eks.cluster_name", "\"gpu-cluster\"")
        .replace(
            "module.karpenter.node_iam_role_name",
            "\"KarpenterNodeRole-gpu-cluster\"",
        )
        .replace(
            "var.gpu_node_role_arn",
            "\"arn:aws:iam::123456789012:role/eks-gpu-nodes\"",
        )
        .replace("var.private_subnet_ids", "[\"subnet-0a1b2c3d\", \"subnet-4e5f6a7b\"]")
        .replace("var.capacity_block_id", "\"cr-0123456789abcdef0\"");
    assert!(!main_tf.contains("module.") && !main_tf.contains("var."), "{main_tf}");
    let tf = eksgpu_acceptance_tests::terraform_versions()
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no Terraform CLI"));
    let w = eksgpu_acceptance_tests::Workdir::new(&tf, &main_tf);
    w.init();
    let (code, run) = w.plan_code(&[]);
    assert_eq!(code, 2, "{main_tf}\n{}", run.combined());
    // The guide shows what the rules recommend: the plan warns about nothing.
    assert!(!run.combined().contains("Warning:"), "{}", run.combined());
}

/// Phrases of behaviours the code changed (CHANGELOG.md, Unreleased), which no page under
/// docs/ may still say: each with the entry that removed the behaviour. A doc whose
/// description is declared in code (attribute docs) is fixed there and regenerated.
const REMOVED_BEHAVIOURS: &[(&str, &str)] = &[
    (
        "launch template this provider does not manage",
        "node groups with `efa = true` get the launch template the provider creates (EFA interfaces)",
    ),
    (
        "eksgpu.terraform.io/pool-index",
        "Changed (breaking): objects no longer record a pool's position",
    ),
    (
        "tested with Terraform 1.0.3",
        "Changed (breaking): Terraform 1.4.0 is the floor, 1.0.3 left the test matrix",
    ),
    (
        "Supported Terraform versions: 1.0 and later",
        "Changed (breaking): Terraform 1.4.0 or later is required",
    ),
    (
        "default_tags[0]",
        "Changed: `default_tags` is a single nested block; diagnostics say `default_tags.tags[…]`",
    ),
    ("endpoints.iam", "Changed: `endpoints.iam` is gone"),
];

#[test]
fn docs_say_nothing_the_code_no_longer_does() {
    let root = repo_root();
    let mut found = Vec::new();
    let mut pages = 0;
    let mut stack = vec![root.join("docs")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().filter_map(Result::ok) {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "md") {
                pages += 1;
                let text = std::fs::read_to_string(&p).unwrap();
                for (phrase, why) in REMOVED_BEHAVIOURS {
                    if text.contains(phrase) {
                        found.push(format!("{}: {phrase:?} ({why})", p.display()));
                    }
                }
            }
        }
    }
    assert!(pages > 5, "docs/ has its pages");
    assert!(
        found.is_empty(),
        "docs say what the code no longer does:\n{}",
        found.join("\n")
    );
}
