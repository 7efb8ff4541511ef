//! The provider binary under test, built once per test process by the same
//! cargo that runs the tests, so a test can never run a stale build.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

pub const PROVIDER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Path of a freshly built `terraform-provider-eksgpu` (debug profile), or
/// `EKSGPU_PROVIDER_BIN` when set.
pub fn provider_binary() -> &'static PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        std::env::var_os("EKSGPU_PROVIDER_BIN").map_or_else(|| build("terraform-provider-eksgpu", false), PathBuf::from)
    })
}

/// A release build, for benchmarks.
pub fn provider_binary_release() -> &'static PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| build("terraform-provider-eksgpu", true))
}

/// The Kubernetes API emulator (a test part of this workspace).
pub fn emulator_binary() -> &'static PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| build("eksgpu-kube-emulator", false))
}

/// Builds binary `name` of the package of the same name.
fn build(name: &str, release: bool) -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut args = vec!["build", "--quiet", "-p", name, "--bin", name, "--message-format=json"];
    if release {
        args.push("--release");
    }
    let out = Command::new(cargo)
        .args(args)
        .current_dir(crate::repo_root())
        .output()
        .unwrap_or_else(|e| panic!("failed to run cargo build: {e}"));
    assert!(
        out.status.success(),
        "cargo build failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let exe = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == name)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("cargo build reported no {name} executable"));
    own_build(&exe, name).unwrap_or(exe)
}

/// The copy of `exe` built from this clone. Cargo reports the binary it links
/// to `target/debug/NAME`, but clones share the build directory
/// (scripts/env.sh), so another clone's build may replace that link at any
/// time. Each clone's build also stays in `deps/` under a hash of its own;
/// the one built here records this clone's path as its debug info's
/// compilation directory (a NUL-terminated string).
/// `deps/` also holds the package's unit-test binaries (`cargo test -p NAME`),
/// named alike and often newer: they are libtest harnesses, never the binary.
fn own_build(exe: &std::path::Path, name: &str) -> Option<PathBuf> {
    let root = crate::repo_root().canonicalize().ok()?;
    let root = root.as_os_str().as_encoded_bytes();
    let ours = |bytes: &[u8]| bytes.split(|b| *b == 0).any(|s| s == root);
    let harness = |bytes: &[u8]| bytes.windows(17).any(|w| w == b"RUST_TEST_THREADS");
    // Usually the binary cargo reported is this clone's own.
    if std::fs::read(exe).is_ok_and(|bytes| ours(&bytes)) {
        return Some(exe.to_path_buf());
    }
    let prefix = format!("{}-", name.replace('-', "_"));
    let mut candidates: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(exe.parent()?.join("deps"))
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_none() && p.file_name().is_some_and(|f| f.to_string_lossy().starts_with(&prefix)))
        .filter_map(|p| Some((std::fs::metadata(&p).and_then(|m| m.modified()).ok()?, p)))
        .collect();
    // Newest first: the build that just finished is usually the one.
    candidates.sort_by_key(|c| std::cmp::Reverse(c.0));
    candidates
        .into_iter()
        .map(|(_, p)| p)
        .find(|p| std::fs::read(p).is_ok_and(|bytes| ours(&bytes) && !harness(&bytes)))
}
