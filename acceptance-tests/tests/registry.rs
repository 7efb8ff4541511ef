//! Installation as users do it, from the artifacts `scripts/release` makes
//! (a dev build of the host platform, signed by a throwaway key): through the
//! provider registry protocol over HTTPS with checksum and signature checks,
//! through a network mirror, through a filesystem mirror of the release zip,
//! and `terraform providers lock` — on Terraform current and 1.0.3.

use eksgpu_acceptance_tests::https::HttpsServer;
use eksgpu_acceptance_tests::release::{NAME, Package, package};
use eksgpu_acceptance_tests::{Workdir, terraform_versions};
use serde_json::json;

/// Reads a data source and prints its result: only the provider, no cloud.
fn config(source: &str) -> String {
    format!(
        r#"terraform {{
  required_providers {{
    eksgpu = {{
      source  = "{source}"
      version = "~> 0.1"
    }}
  }}
}}

data "eksgpu_gpu_catalog" "h100" {{
  gpu_model = "H100"
}}

output "h100" {{
  value = [for t in data.eksgpu_gpu_catalog.h100.instance_types : t.instance_type]
}}
"#
    )
}

/// What the release says the provider serves (the registry reads the same file).
fn protocols(p: &Package) -> serde_json::Value {
    let manifest: serde_json::Value = serde_json::from_slice(&p.manifest).unwrap_or_default();
    manifest["metadata"]["protocol_versions"].clone()
}

#[derive(Clone, Copy, PartialEq)]
enum Tamper {
    None,
    /// SHA256SUMS changed after signing.
    Shasums,
    /// The zip changed after SHA256SUMS was made.
    Zip,
}

/// A provider registry (service discovery, versions, download) serving the release.
fn registry(p: &Package, tamper: Tamper) -> HttpsServer {
    let s = HttpsServer::start();
    let base = s.base_url();
    let (os, arch) = p.platform.split_once('_').unwrap_or_default();
    s.put_json(
        "/.well-known/terraform.json",
        &json!({ "providers.v1": "/v1/providers/" }),
    );
    s.put_json(
        "/v1/providers/eksgpu/eksgpu/versions",
        &json!({ "versions": [{
            "version": p.version,
            "protocols": protocols(p),
            "platforms": [{ "os": os, "arch": arch }],
        }] }),
    );
    s.put_json(
        &format!("/v1/providers/eksgpu/eksgpu/{}/download/{os}/{arch}", p.version),
        &json!({
            "protocols": protocols(p),
            "os": os,
            "arch": arch,
            "filename": p.zip_name,
            "download_url": format!("{base}/files/{}", p.zip_name),
            "shasums_url": format!("{base}/files/{}", p.shasums_name),
            "shasums_signature_url": format!("{base}/files/{}.sig", p.shasums_name),
            "shasum": p.zh.trim_start_matches("zh:"),
            "signing_keys": { "gpg_public_keys": [{
                "key_id": p.key_id,
                "ascii_armor": p.public_key,
                "trust_signature": "",
                "source": "eksgpu",
                "source_url": null,
            }] },
        }),
    );
    let mut zip = p.zip.clone();
    let mut shasums = p.shasums.clone();
    match tamper {
        Tamper::None => {}
        Tamper::Shasums => {
            shasums.extend_from_slice(b"0000000000000000000000000000000000000000000000000000000000000000  extra.zip\n")
        }
        // Past the end of the archive: unzip still reads it, only the checksum can tell.
        Tamper::Zip => zip.extend_from_slice(b"tampered"),
    }
    s.put(&format!("/files/{}", p.zip_name), "application/zip", zip);
    s.put(&format!("/files/{}", p.shasums_name), "text/plain", shasums);
    s.put(
        &format!("/files/{}.sig", p.shasums_name),
        "application/octet-stream",
        p.signature.clone(),
    );
    s
}

/// A working directory whose CLI config installs providers only as `rc` says,
/// trusting the test CA.
fn workdir(
    tf: &eksgpu_acceptance_tests::TerraformVersion,
    main_tf: &str,
    rc: &str,
    s: Option<&HttpsServer>,
) -> Workdir {
    let mut w = Workdir::new(tf, main_tf);
    w.write("_terraformrc", rc);
    if let Some(s) = s {
        // Go reads the roots from SSL_CERT_FILE on Linux.
        w.env("SSL_CERT_FILE", &s.ca_file.to_string_lossy());
    }
    w
}

fn lock_file(w: &Workdir) -> String {
    std::fs::read_to_string(w.path().join(".terraform.lock.hcl")).unwrap_or_default()
}

fn assert_plans_with_the_provider(w: &Workdir) {
    let r = w.ok(&["plan", "-no-color"]);
    assert!(
        r.stdout.contains("p5.48xlarge"),
        "plan ({}) did not read the catalog through the installed provider:\n{}",
        w.tf.label,
        r.combined()
    );
}

#[test]
fn release_artifacts_have_the_registry_layout() {
    let p = package();
    assert_eq!(
        p.version,
        env!("CARGO_PKG_VERSION"),
        "the version comes from Cargo.toml"
    );
    assert_eq!(p.zip_name, format!("{NAME}_{}_{}.zip", p.version, p.platform));
    let binary = format!("{NAME}_v{}", p.version);
    assert_eq!(
        p.zip_entries.len(),
        1,
        "only the binary in the zip: {:?}",
        p.zip_entries
    );
    assert_eq!(p.zip_entries[0].0, binary);
    assert_eq!(p.zip_entries[0].1 & 0o111, 0o111, "the binary is executable");

    let sums = String::from_utf8_lossy(&p.shasums);
    let listed: Vec<(&str, &str)> = sums.lines().filter_map(|l| l.split_once("  ")).collect();
    assert!(
        listed.contains(&(p.zh.trim_start_matches("zh:"), p.zip_name.as_str())),
        "{sums}"
    );
    assert!(listed.iter().any(|(_, name)| *name == p.manifest_name), "{sums}");
    assert_eq!(listed.len(), 2, "{sums}");

    // The manifest names exactly the protocol the provider serves, as the registry reads it.
    let manifest: serde_json::Value = serde_json::from_slice(&p.manifest).unwrap_or_default();
    assert_eq!(
        manifest,
        json!({ "version": 1, "metadata": {
            "protocol_versions": [format!("{}.0", eksgpu_tfplugin::handshake::PROTOCOL_VERSION)]
        } })
    );
    assert!(!p.signature.is_empty() && p.public_key.contains("BEGIN PGP PUBLIC KEY BLOCK"));
}

#[test]
fn installs_from_a_registry_with_checksum_and_signature() {
    let p = package();
    for tf in terraform_versions() {
        let s = registry(p, Tamper::None);
        let source = format!("localhost:{}/eksgpu/eksgpu", s.port);
        let w = workdir(
            &tf,
            &config(&source),
            "provider_installation {\n  direct {}\n}\n",
            Some(&s),
        );
        let init = w.ok(&["init", "-no-color"]);
        let installed = format!("Installed {source} v{} (self-signed, key ID {})", p.version, p.key_id);
        assert!(
            init.stdout.to_uppercase().contains(&installed.to_uppercase()),
            "init ({}) did not report the signed install {installed:?}:\n{}",
            tf.label,
            init.combined()
        );
        let requests = s.requests();
        for file in [&p.zip_name, &p.shasums_name, &format!("{}.sig", p.shasums_name)] {
            assert!(
                requests.iter().any(|r| r == &format!("/files/{file}")),
                "Terraform ({}) never fetched {file}: {requests:?}",
                tf.label
            );
        }
        assert_plans_with_the_provider(&w);

        // The lock file records the package hash and every zip SHA256SUMS lists.
        std::fs::remove_file(w.path().join(".terraform.lock.hcl")).unwrap_or_else(|e| panic!("remove lock: {e}"));
        w.ok(&["providers", "lock", "-no-color", &format!("-platform={}", p.platform)]);
        let lock = lock_file(&w);
        assert!(
            lock.contains(&source) && lock.contains(&p.h1) && lock.contains(&p.zh),
            "lock file ({}) lacks {} or {}:\n{lock}",
            tf.label,
            p.h1,
            p.zh
        );
        // A fresh init checks the package against the locked hashes.
        let _ = std::fs::remove_dir_all(w.path().join(".terraform"));
        w.ok(&["init", "-no-color"]);
        assert_plans_with_the_provider(&w);
    }
}

#[test]
fn registry_install_refuses_a_bad_signature_or_checksum() {
    let p = package();
    for tf in terraform_versions() {
        for (tamper, what) in [(Tamper::Shasums, "signature"), (Tamper::Zip, "checksum")] {
            let s = registry(p, tamper);
            let source = format!("localhost:{}/eksgpu/eksgpu", s.port);
            let w = workdir(
                &tf,
                &config(&source),
                "provider_installation {\n  direct {}\n}\n",
                Some(&s),
            );
            let r = w.run(&["init", "-no-color"]);
            assert_ne!(
                r.code,
                0,
                "init ({}) accepted a package with a bad {what}:\n{}",
                tf.label,
                r.combined()
            );
            // Both versions word it the same: "error checking signature" / "archive has incorrect checksum".
            assert!(
                r.combined().contains("Failed to install provider") && r.combined().to_lowercase().contains(what),
                "init ({}) failed, but not on the {what}:\n{}",
                tf.label,
                r.combined()
            );
        }
    }
}

#[test]
fn installs_from_a_network_mirror() {
    let p = package();
    for tf in terraform_versions() {
        let s = HttpsServer::start();
        let dir = "/mirror/registry.terraform.io/eksgpu/eksgpu";
        s.put_json(
            &format!("{dir}/index.json"),
            &json!({ "versions": { p.version.as_str(): {} } }),
        );
        s.put_json(
            &format!("{dir}/{}.json", p.version),
            &json!({ "archives": { p.platform.as_str(): { "url": p.zip_name, "hashes": [p.h1, p.zh] } } }),
        );
        s.put(&format!("{dir}/{}", p.zip_name), "application/zip", p.zip.clone());
        let rc = format!(
            "provider_installation {{\n  network_mirror {{\n    url = \"{}/mirror/\"\n  }}\n}}\n",
            s.base_url()
        );
        // The public source address: a mirror stands in for the registry.
        let w = workdir(&tf, &config("eksgpu/eksgpu"), &rc, Some(&s));
        w.ok(&["init", "-no-color"]);
        assert!(
            s.requests().iter().any(|r| r == &format!("{dir}/{}", p.zip_name)),
            "{:?}",
            s.requests()
        );
        let lock = lock_file(&w);
        assert!(lock.contains(&p.h1), "lock file ({}) lacks {}:\n{lock}", tf.label, p.h1);
        assert_plans_with_the_provider(&w);
    }
}

#[test]
fn installs_from_a_filesystem_mirror_of_the_release_zip() {
    let p = package();
    for tf in terraform_versions() {
        let w = workdir(&tf, &config("eksgpu/eksgpu"), "", None);
        // The packed layout: HOST/NAMESPACE/TYPE/<the release zip>.
        let mirror = w.path().join("_packed");
        let dir = mirror.join("registry.terraform.io/eksgpu/eksgpu");
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
        std::fs::write(dir.join(&p.zip_name), &p.zip).unwrap_or_else(|e| panic!("write zip: {e}"));
        w.write(
            "_terraformrc",
            &format!(
                "provider_installation {{\n  filesystem_mirror {{\n    path = \"{}\"\n  }}\n}}\n",
                mirror.display()
            ),
        );
        let mirror_arg = format!("-fs-mirror={}", mirror.display());
        w.ok(&[
            "providers",
            "lock",
            "-no-color",
            &mirror_arg,
            &format!("-platform={}", p.platform),
        ]);
        let lock = lock_file(&w);
        assert!(lock.contains(&p.h1), "lock file ({}) lacks {}:\n{lock}", tf.label, p.h1);
        w.ok(&["init", "-no-color"]);
        assert_plans_with_the_provider(&w);
    }
}
