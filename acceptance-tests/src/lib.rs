//! Acceptance harness for terraform-provider-eksgpu, in the spirit of
//! terraform-plugin-testing: it drives the real `terraform` CLI (the one on
//! PATH or `TF_ACC_TERRAFORM_PATH`) against the freshly built provider and
//! local emulators.
//!
//! Nothing here reaches beyond 127.0.0.1: Terraform gets its own CLI config
//! with a filesystem mirror, and AWS calls go to moto on a loopback port.

pub mod burst_day;
pub mod docs;
pub mod grpc;
pub mod hcl;
pub mod helm;
pub mod https;
pub mod kube;
pub mod moto;
pub mod prometheus;
pub mod provider_bin;
pub mod release;
pub mod skip;
pub mod terraform;
pub mod tools;

pub use moto::Moto;
pub use skip::skip;
pub use terraform::{MirroredProvider, TerraformVersion, Workdir, terraform_versions};

/// The root of the repository (for `examples/`).
pub fn repo_root() -> std::path::PathBuf {
    // From the running process's environment (cargo sets it for test, bench and
    // run), not only the compile-time value: the build directory is shared across
    // clones (scripts/env.sh), and cargo may reuse this library as compiled in
    // another clone, whose path would then point at that clone's files.
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(
            || std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")),
            std::path::PathBuf::from,
        )
        .join("..")
}

/// An EKS cluster as the provider finds it by default: moto knows the cluster
/// (DescribeCluster answers with the emulator's endpoint and CA) and the
/// emulator accepts EKS IAM tokens. Point a working directory at it with
/// `AWS_ENDPOINT_URL`.
pub fn eks_cluster(name: &str) -> (kube::KubeTarget, Moto) {
    let kube = kube::KubeTarget::start_with(&kube::EmulatorOptions {
        eks_cluster: Some(name.to_owned()),
        ..Default::default()
    });
    let moto = Moto::start();
    moto.create_cluster(name, "1.33", &kube.url, kube.ca_pem.as_deref().unwrap_or_default());
    (kube, moto)
}
