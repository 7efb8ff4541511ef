//! `eksgpu-kube-emulator [--tls] [--token T] [--eks-cluster NAME] [--without plural.group]… [--upstream KUBECONFIG] [--crd FILE]…`
//! Prints one JSON line (`url`, `control_url`, `ca_pem`, `client_cert_pem`, `client_key_pem`) and serves until
//! stdin closes.

#![allow(clippy::print_stdout)] // The first line on stdout is this program's answer.

use tokio::io::AsyncReadExt;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut opts = eksgpu_kube_emulator::Options::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--tls" => opts.tls = true,
            "--token" => opts.token = args.next(),
            "--eks-cluster" => opts.eks_cluster = args.next(),
            "--without" => opts.without.extend(args.next()),
            "--upstream" => opts.upstream = args.next(),
            "--crd" => opts.crds.extend(args.next()),
            other => {
                eprintln!("unknown argument {other:?}");
                std::process::exit(2);
            }
        }
    }
    let emulator = match eksgpu_kube_emulator::Emulator::start(opts).await {
        Ok(e) => e,
        Err(e) => {
            eprintln!("failed to start: {e}");
            std::process::exit(1);
        }
    };
    println!(
        "{}",
        serde_json::json!({
            "url": emulator.url,
            "control_url": emulator.control_url,
            "ca_pem": emulator.ca_pem,
            "client_cert_pem": emulator.client_pem.as_ref().map(|c| &c.0),
            "client_key_pem": emulator.client_pem.as_ref().map(|c| &c.1),
        })
    );
    // Serve until the parent goes away (stdin closes), so no emulator outlives its test.
    let mut sink = Vec::new();
    let _ = tokio::io::stdin().read_to_end(&mut sink).await;
}
