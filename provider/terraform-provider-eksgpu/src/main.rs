//! terraform-provider-eksgpu: started by Terraform, or by hand with `--debug`.

use std::process::ExitCode;

use eksgpu_tfplugin::{ServeError, ServeOptions};

fn main() -> ExitCode {
    // kube and the AWS SDK share rustls; with aws-lc-rs installed as the
    // process default, no client can fall back to (or panic over) ring.
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();

    let mut debug = false;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--debug" => debug = true,
            "--version" => {
                eprintln!("terraform-provider-eksgpu {}", env!("CARGO_PKG_VERSION"));
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("unknown argument {other:?}; usage: terraform-provider-eksgpu [--debug | --version]");
                return ExitCode::from(2);
            }
        }
    }
    // aws-sigv4 logs each canonical request at TRACE (1.6.4, http_request/sign.rs,
    // `calculated signing parameters`). It redacts secret *headers* only: when the
    // provider presigns the EKS token's GetCallerIdentity URL, the session token is
    // a query parameter (X-Amz-Security-Token) and is printed in full, along with
    // the rest of the URL that is the token. The crate has no switch to sign
    // without that logging, so its target never reaches the provider's log.
    // aws-smithy-runtime's orchestrator (1.16.2, client/orchestrator.rs) prints at TRACE
    // each request and response it transmits and the operation's output: AssumeRole's
    // form body (ExternalId) and the temporary credentials STS returns. Its DEBUG lines
    // (attempts, retries) stay. Sensitive provider inputs are also redacted from every
    // line, whatever logs them (eksgpu_tfplugin::logging::register_sensitive).
    eksgpu_tfplugin::logging::init_muting(
        "provider.terraform-provider-eksgpu",
        &[
            ("aws_sigv4", tracing::Level::ERROR),
            ("aws_smithy_runtime::client::orchestrator", tracing::Level::TRACE),
        ],
    );

    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("failed to start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let opts = ServeOptions {
        provider_address: eksgpu_provider::PROVIDER_ADDRESS.to_owned(),
        debug,
    };
    let result = runtime.block_on(eksgpu_tfplugin::serve(eksgpu_provider::new(), opts));
    // Do not wait for idle connection pools or timers: Terraform is waiting for us to exit.
    runtime.shutdown_background();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(ServeError::Handshake(e)) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
        Err(e) => {
            tracing::error!(error = %e, "provider stopped");
            eprintln!("terraform-provider-eksgpu: {e}");
            ExitCode::FAILURE
        }
    }
}
