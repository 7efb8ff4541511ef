//! The schema is a contract: it must pass Terraform's own load-time checks, and
//! `schemas/provider.json` must be the snapshot of what the code declares.
//! Regenerate with `EKSGPU_UPDATE_SNAPSHOTS=1 cargo test -p terraform-provider-eksgpu --test schema`.

use std::path::PathBuf;

use eksgpu_tfplugin::Provider;
use eksgpu_tfplugin::schema::internal_validate;

fn snapshot_path() -> PathBuf {
    // The running test's package directory: the shared build directory may hold
    // this test as compiled in another clone (see acceptance-tests' repo_root).
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
        .join("../../schemas/provider.json")
}

#[test]
fn schemas_pass_terraform_internal_validate() {
    let provider = eksgpu_provider::new();
    let mut problems = internal_validate(&provider.schema().block, "provider.");
    for d in provider.data_sources() {
        problems.extend(internal_validate(&d.schema().block, &format!("{}.", d.type_name())));
        assert!(d.type_name().starts_with("eksgpu_"));
    }
    for r in provider.resources() {
        problems.extend(internal_validate(&r.schema().block, &format!("{}.", r.type_name())));
        assert!(r.type_name().starts_with("eksgpu_"));
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn schema_snapshot_is_fresh() {
    let current = serde_json::to_string_pretty(&eksgpu_provider::schema_json::provider_schemas()).unwrap() + "\n";
    let path = snapshot_path();
    if std::env::var_os("EKSGPU_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &current).unwrap();
        return;
    }
    let stored = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        stored == current,
        "schemas/provider.json is stale. Regenerate it with `scripts/generate` and commit the result."
    );
}
