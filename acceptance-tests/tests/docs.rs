//! Generated files are fresh: docs/ matches the schema snapshot and examples,
//! and docs/guides/iam.md lists every AWS action the provider calls.
//! Regenerate with `scripts/generate`.

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
