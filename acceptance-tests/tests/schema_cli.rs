//! The checked-in schema snapshot is what the real CLI reports for the built
//! provider (`terraform providers schema -json`), so docs generated from it
//! describe what users get.

use eksgpu_acceptance_tests::{Workdir, terraform_versions};

#[test]
fn snapshot_matches_terraform_providers_schema() {
    let snapshot: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(eksgpu_acceptance_tests::repo_root().join("schemas/provider.json")).unwrap(),
    )
    .unwrap();
    let address = "registry.terraform.io/eksgpu/eksgpu";
    for tf in terraform_versions().into_iter().filter(|t| t.label == "current") {
        let w = Workdir::from_example(&tf, "examples/provider");
        w.init();
        let r = w.ok(&["providers", "schema", "-json"]);
        let cli: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(
            cli["provider_schemas"][address], snapshot["provider_schemas"][address],
            "schemas/provider.json differs from the CLI"
        );
    }
}
