//! A Terraform working directory with its own CLI config and a filesystem
//! mirror holding the provider under test, and the CLI calls tests make.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

use crate::provider_bin::{PROVIDER_VERSION, provider_binary};

/// One Terraform CLI to run scenarios with.
#[derive(Debug, Clone)]
pub struct TerraformVersion {
    pub label: &'static str,
    pub path: PathBuf,
}

/// The CLIs every scenario runs under: the current one (`TF_ACC_TERRAFORM_PATH`
/// or `terraform` on PATH). The oldest supported release (1.4.0, design/0010) has no
/// package these machines can install; a CLI added here runs every scenario.
/// `EKSGPU_TF_VERSIONS=current` narrows the set.
pub fn terraform_versions() -> Vec<TerraformVersion> {
    let current = std::env::var_os("TF_ACC_TERRAFORM_PATH").map_or_else(|| PathBuf::from("terraform"), PathBuf::from);
    let all = [TerraformVersion {
        label: "current",
        path: current,
    }];
    let only = std::env::var("EKSGPU_TF_VERSIONS").ok();
    all.into_iter()
        .filter(|v| {
            only.as_deref()
                .is_none_or(|o| o.split(',').any(|x| x.trim() == v.label))
        })
        .collect()
}

/// The outcome of one CLI call.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    fn from(out: Output) -> Self {
        Self {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    pub fn combined(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }
}

/// A provider other than eksgpu served from a working directory's filesystem
/// mirror, at `registry.terraform.io/<namespace>/<name>/<version>/linux_amd64/<file_name>`.
#[derive(Debug, Clone, Copy)]
pub struct MirroredProvider<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
    pub version: &'a str,
    pub binary: &'a Path,
    /// The executable's name in the mirror (`terraform-provider-null_v2.1.2_x4`).
    pub file_name: &'a str,
}

pub struct Workdir {
    pub dir: PathBuf,
    pub tf: TerraformVersion,
    env: Vec<(String, String)>,
    /// The example copied in, if any: names the values the Helm lane collects.
    example: Option<String>,
}

impl Workdir {
    /// A fresh directory holding `main.tf`, set up for `tf`.
    pub fn new(tf: &TerraformVersion, main_tf: &str) -> Workdir {
        Self::with_provider(tf, main_tf, provider_binary())
    }

    /// Like `new`, with a given provider binary (benchmarks use a release build).
    pub fn with_provider(tf: &TerraformVersion, main_tf: &str, provider: &Path) -> Workdir {
        Self::with_providers(tf, main_tf, provider, &[])
    }

    /// Like `with_provider`, with more providers in the mirror (the benchmark's
    /// hashicorp/null).
    pub fn with_providers(
        tf: &TerraformVersion,
        main_tf: &str,
        provider: &Path,
        extra: &[MirroredProvider<'_>],
    ) -> Workdir {
        let w = Self::empty_with(tf, provider, extra);
        w.write("main.tf", main_tf);
        w
    }

    /// A fresh directory with a copy of `example` (relative to the repo root):
    /// its `.tf` files and its local modules.
    pub fn from_example(tf: &TerraformVersion, example: &str) -> Workdir {
        let mut w = Self::empty(tf);
        copy_tree(&crate::repo_root().join(example), &w.dir);
        w.example = Some(example.to_owned());
        w
    }

    fn empty(tf: &TerraformVersion) -> Workdir {
        Self::empty_with(tf, provider_binary(), &[])
    }

    fn empty_with(tf: &TerraformVersion, provider: &Path, extra: &[MirroredProvider<'_>]) -> Workdir {
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "eksgpu-acc-{}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed),
            tf.label
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let mirror = dir
            .join("_mirror/registry.terraform.io/eksgpu/eksgpu")
            .join(PROVIDER_VERSION)
            .join("linux_amd64");
        std::fs::create_dir_all(&mirror).unwrap_or_else(|e| panic!("create {}: {e}", mirror.display()));
        std::os::unix::fs::symlink(
            provider,
            mirror.join(format!("terraform-provider-eksgpu_v{PROVIDER_VERSION}")),
        )
        .unwrap_or_else(|e| panic!("symlink provider: {e}"));
        let mut include = vec!["\"registry.terraform.io/eksgpu/*\"".to_owned()];
        for p in extra {
            let at = dir
                .join("_mirror/registry.terraform.io")
                .join(p.namespace)
                .join(p.name)
                .join(p.version)
                .join("linux_amd64");
            std::fs::create_dir_all(&at).unwrap_or_else(|e| panic!("create {}: {e}", at.display()));
            std::os::unix::fs::symlink(p.binary, at.join(p.file_name))
                .unwrap_or_else(|e| panic!("symlink {}: {e}", p.binary.display()));
            include.push(format!("\"registry.terraform.io/{}/{}\"", p.namespace, p.name));
        }
        // Only the mirror: no `direct {}`, so Terraform never reaches for a registry.
        let rc = format!(
            "provider_installation {{\n  filesystem_mirror {{\n    path    = \"{}\"\n    include = [{}]\n  }}\n}}\n",
            dir.join("_mirror").display(),
            include.join(", ")
        );
        std::fs::write(dir.join("_terraformrc"), rc).unwrap_or_else(|e| panic!("write terraformrc: {e}"));
        Workdir {
            dir,
            tf: tf.clone(),
            env: Vec::new(),
            example: None,
        }
    }

    /// Writes `name` (a path in the directory, such as `team/main.tf` for a module), making its
    /// folders.
    pub fn write(&self, name: &str, content: &str) {
        let path = self.dir.join(name);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("mkdir for {name}: {e}"));
        }
        std::fs::write(path, content).unwrap_or_else(|e| panic!("write {name}: {e}"));
    }

    /// Adds an environment variable for every later CLI call (e.g. `TF_VAR_…`).
    pub fn env(&mut self, key: &str, value: &str) {
        self.env.push((key.to_owned(), value.to_owned()));
    }

    pub fn run(&self, args: &[&str]) -> Run {
        let r = Run::from(
            self.command(args)
                .output()
                .unwrap_or_else(|e| panic!("failed to run {}: {e}", self.tf.path.display())),
        );
        if r.code == 0 && args.first() == Some(&"apply") {
            // The Helm lane renders every values output an apply produced (src/helm/records.rs).
            let test = std::thread::current().name().unwrap_or("?").to_owned();
            let source = self.example.clone().unwrap_or(test);
            crate::helm::records::log_state(&self.dir, &format!("{source} ({})", self.tf.label));
        }
        r
    }

    /// Starts a CLI call without waiting (to interrupt it, say); output is piped.
    pub fn spawn(&self, args: &[&str]) -> std::process::Child {
        self.command(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("failed to start {}: {e}", self.tf.path.display()))
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(&self.tf.path);
        cmd.args(args).current_dir(&self.dir);
        for (k, _) in std::env::vars() {
            // The machine's TF_* settings (a CLI config path that does not exist, log levels) must not leak in.
            if k.starts_with("TF_") || k.starts_with("AWS_") {
                cmd.env_remove(k);
            }
        }
        cmd.env("TF_CLI_CONFIG_FILE", self.dir.join("_terraformrc"))
            .env("CHECKPOINT_DISABLE", "1")
            .env("TF_IN_AUTOMATION", "1")
            .env("TF_INPUT", "0")
            // Hermetic AWS: fixed fake credentials, no IMDS probing, no user config files.
            .env("AWS_ACCESS_KEY_ID", "testing")
            .env("AWS_SECRET_ACCESS_KEY", "testing")
            .env("AWS_EC2_METADATA_DISABLED", "true")
            .env("AWS_CONFIG_FILE", self.dir.join("_aws_config"))
            .env("AWS_SHARED_CREDENTIALS_FILE", self.dir.join("_aws_credentials"));
        if std::env::var_os("EKSGPU_TF_LOG").is_some() {
            cmd.env("TF_LOG", "DEBUG")
                .env("TF_LOG_PATH", self.dir.join("terraform.log"));
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd
    }

    /// Runs and asserts success, returning the run.
    pub fn ok(&self, args: &[&str]) -> Run {
        let r = self.run(args);
        assert_eq!(
            r.code,
            0,
            "terraform {} ({}) failed in {}:\n{}",
            args.join(" "),
            self.tf.label,
            self.dir.display(),
            r.combined()
        );
        r
    }

    pub fn init(&self) {
        self.ok(&["init", "-no-color"]);
    }

    pub fn apply(&self) -> Run {
        self.ok(&["apply", "-auto-approve", "-no-color"])
    }

    /// `plan -detailed-exitcode`: 0 = no changes, 2 = changes, 1 = error.
    pub fn plan_code(&self, extra: &[&str]) -> (i32, Run) {
        let mut args = vec!["plan", "-detailed-exitcode", "-no-color"];
        args.extend_from_slice(extra);
        let r = self.run(&args);
        (r.code, r)
    }

    /// Asserts the plan is empty, with and without refresh (as terraform-plugin-testing does).
    pub fn assert_empty_plan(&self) {
        for extra in [&["-refresh=false"][..], &[][..]] {
            let (code, r) = self.plan_code(extra);
            assert_eq!(
                code,
                0,
                "plan {extra:?} ({}) was not empty in {}:\n{}",
                self.tf.label,
                self.dir.display(),
                r.combined()
            );
        }
    }

    /// Leaf attribute paths (`pool[0].labels.team`) the next plan changes on
    /// the first resource: what drift a refresh found.
    pub fn planned_changes(&self) -> Vec<String> {
        self.ok(&["plan", "-no-color", "-out", "drift.tfplan"]);
        let plan: serde_json::Value = serde_json::from_str(&self.ok(&["show", "-json", "drift.tfplan"]).stdout)
            .unwrap_or_else(|e| panic!("plan JSON: {e}"));
        let change = plan["resource_changes"]
            .as_array()
            .and_then(|c| c.iter().find(|c| c["mode"] == "managed"))
            .map(|c| c["change"].clone())
            .unwrap_or_default();
        let mut out = Vec::new();
        diff_paths(&change["before"], &change["after"], String::new(), &mut out);
        out
    }

    /// The state as `terraform show -json` gives it.
    pub fn state(&self) -> serde_json::Value {
        serde_json::from_str(&self.ok(&["show", "-json", "-no-color"]).stdout).unwrap_or_default()
    }

    pub fn outputs(&self) -> serde_json::Value {
        let r = self.ok(&["output", "-json"]);
        serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("output -json is not JSON ({e}): {}", r.stdout))
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Workdir {
    fn drop(&mut self) {
        // Keep the directory of a failing test for inspection.
        if !std::thread::panicking() && std::env::var_os("EKSGPU_KEEP_WORKDIRS").is_none() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

fn copy_tree(src: &Path, dst: &Path) {
    let entries = std::fs::read_dir(src).unwrap_or_else(|e| panic!("read {}: {e}", src.display()));
    for entry in entries.filter_map(Result::ok) {
        let p = entry.path();
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        if p.is_dir() {
            let sub = dst.join(&name);
            std::fs::create_dir_all(&sub).unwrap_or_else(|e| panic!("create {}: {e}", sub.display()));
            copy_tree(&p, &sub);
        } else if p.extension().is_some_and(|e| e == "tf") {
            std::fs::copy(&p, dst.join(&name)).unwrap_or_else(|e| panic!("copy {}: {e}", p.display()));
        }
    }
}

/// Leaf paths where two JSON values differ.
fn diff_paths(a: &serde_json::Value, b: &serde_json::Value, path: String, out: &mut Vec<String>) {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys().filter(|k| !x.contains_key(*k))) {
                // Keys of the pools map as Terraform writes them: `pools["gpu"].gpu_limit`.
                let p = if path.is_empty() {
                    k.clone()
                } else if path == "pools" {
                    format!("{path}[{k:?}]")
                } else {
                    format!("{path}.{k}")
                };
                diff_paths(
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                    p,
                    out,
                );
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                diff_paths(u, v, format!("{path}[{i}]"), out);
            }
        }
        _ if a != b => out.push(path),
        _ => {}
    }
}
