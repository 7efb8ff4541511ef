//! The provider packaged exactly as a release is: `scripts/release` with the
//! dev profile for the host platform, signed by a throwaway GPG key made in a
//! temporary GNUPGHOME, read into memory once per test process.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::provider_bin::PROVIDER_VERSION;

pub const NAME: &str = "terraform-provider-eksgpu";

pub struct Package {
    pub version: String,
    /// `linux_amd64`-style platform of the host.
    pub platform: String,
    pub zip_name: String,
    pub zip: Vec<u8>,
    pub shasums_name: String,
    pub shasums: Vec<u8>,
    pub signature: Vec<u8>,
    pub manifest_name: String,
    pub manifest: Vec<u8>,
    /// The signing key: its 16-hex-digit ID and its ASCII-armored public key.
    pub key_id: String,
    pub public_key: String,
    /// Names and modes of the files in the zip.
    pub zip_entries: Vec<(String, u32)>,
    /// `h1:` (hash of the unpacked files) and `zh:` (SHA-256 of the zip), as
    /// Terraform writes them into `.terraform.lock.hcl`, computed here without Terraform.
    pub h1: String,
    pub zh: String,
}

/// The host build, packaged and signed once per test process.
pub fn package() -> &'static Package {
    static PACKAGE: OnceLock<Package> = OnceLock::new();
    PACKAGE.get_or_init(|| build().unwrap_or_else(|e| panic!("packaging the provider as a release: {e}")))
}

/// The registry's name for the platform this runs on.
pub fn host_platform() -> String {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("{}_{arch}", std::env::consts::OS)
}

fn build() -> Result<Package, String> {
    which("gpg").ok_or("gpg is not installed: scripts/test installs it (apt-get install gnupg)")?;
    let work = std::env::temp_dir().join(format!("eksgpu-release-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    // Short path: gpg-agent's socket lives in GNUPGHOME and socket paths are limited to ~100 bytes.
    let gnupg = work.join("g");
    let dist = work.join("dist");
    std::fs::create_dir_all(&gnupg).map_err(|e| format!("create {}: {e}", gnupg.display()))?;
    set_private(&gnupg)?;
    let result = sign_and_package(&gnupg, &dist);
    // The agent the key generation started must not outlive the test.
    let _ = Command::new("gpgconf")
        .args(["--kill", "all"])
        .env("GNUPGHOME", &gnupg)
        .output();
    let _ = std::fs::remove_dir_all(&work);
    result
}

fn sign_and_package(gnupg: &Path, dist: &Path) -> Result<Package, String> {
    let gpg = |args: &[&str]| -> Result<Vec<u8>, String> {
        run(Command::new("gpg")
            .args(["--batch", "--no-tty", "--quiet"])
            .args(args)
            .env("GNUPGHOME", gnupg))
    };
    // RSA: Terraform 1.0's OpenPGP code cannot verify EdDSA signatures.
    gpg(&[
        "--passphrase",
        "",
        "--quick-gen-key",
        "eksgpu throwaway test key <release-test@example.invalid>",
        "rsa2048",
        "sign",
        "never",
    ])?;
    let listing = String::from_utf8_lossy(&gpg(&["--with-colons", "--list-keys"])?).into_owned();
    let fingerprint = listing
        .lines()
        .find_map(|l| l.strip_prefix("fpr:").map(|r| r.trim_matches(':').to_owned()))
        .ok_or_else(|| format!("no fingerprint in gpg's listing:\n{listing}"))?;
    let public_key = String::from_utf8_lossy(&gpg(&["--armor", "--export", &fingerprint])?).into_owned();

    run(Command::new("bash")
        .arg(crate::repo_root().join("scripts/release"))
        .args(["--profile", "dev", "--out"])
        .arg(dist)
        .arg("host")
        .env("GNUPGHOME", gnupg)
        .env("EKSGPU_GPG_KEY_ID", &fingerprint))?;

    let version = PROVIDER_VERSION.to_owned();
    let platform = host_platform();
    let read = |name: &str| std::fs::read(dist.join(name)).map_err(|e| format!("read {name}: {e}"));
    let zip_name = format!("{NAME}_{version}_{platform}.zip");
    let shasums_name = format!("{NAME}_{version}_SHA256SUMS");
    let manifest_name = format!("{NAME}_{version}_manifest.json");
    let ZipHashes {
        entries: zip_entries,
        h1,
        zh,
    } = hashes(&dist.join(&zip_name))?;
    Ok(Package {
        zip: read(&zip_name)?,
        shasums: read(&shasums_name)?,
        signature: read(&format!("{shasums_name}.sig"))?,
        manifest: read(&manifest_name)?,
        key_id: fingerprint[fingerprint.len().saturating_sub(16)..].to_owned(),
        public_key,
        zip_entries,
        h1,
        zh,
        version,
        platform,
        zip_name,
        shasums_name,
        manifest_name,
    })
}

/// The zip's entries and its `h1:`/`zh:` hashes. h1 is Go's dirhash Hash1 of
/// the unpacked files: SHA-256 over the lines `<sha256 hex>  <name>\n`,
/// sorted by name, base64. Python's zipfile reads the archive independently
/// of the script's writer and of Terraform.
struct ZipHashes {
    entries: Vec<(String, u32)>,
    h1: String,
    zh: String,
}

fn hashes(zip: &Path) -> Result<ZipHashes, String> {
    const SCRIPT: &str = r#"
import base64, hashlib, json, sys, zipfile
data = open(sys.argv[1], "rb").read()
z = zipfile.ZipFile(sys.argv[1])
names = sorted(z.namelist())
lines = "".join("%s  %s\n" % (hashlib.sha256(z.read(n)).hexdigest(), n) for n in names)
print(json.dumps({
    "entries": [[i.filename, i.external_attr >> 16] for i in z.infolist()],
    "h1": "h1:" + base64.b64encode(hashlib.sha256(lines.encode()).digest()).decode(),
    "zh": "zh:" + hashlib.sha256(data).hexdigest(),
}))
"#;
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let out = run(Command::new(python).arg("-c").arg(SCRIPT).arg(zip))?;
    let v: serde_json::Value = serde_json::from_slice(&out).map_err(|e| format!("hash script output: {e}"))?;
    let entries = v["entries"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| {
                    (
                        e[0].as_str().unwrap_or_default().to_owned(),
                        u32::try_from(e[1].as_u64().unwrap_or_default()).unwrap_or_default(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let text = |k: &str| v[k].as_str().unwrap_or_default().to_owned();
    Ok(ZipHashes {
        entries,
        h1: text("h1"),
        zh: text("zh"),
    })
}

fn set_private(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    // gpg refuses to trust a home directory others can read.
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| format!("chmod {}: {e}", dir.display()))
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(program))
            .find(|p| p.is_file())
    })
}

fn run(cmd: &mut Command) -> Result<Vec<u8>, String> {
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(format!(
            "{cmd:?} failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}
