//! Serving the provider: handshake, unix socket, AutoMTLS, the gRPC services,
//! and a clean exit when Terraform calls `GRPCController/Shutdown`.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use tokio::net::{UnixListener, UnixStream};
use tokio::sync::Notify;
use tokio_stream::wrappers::{ReceiverStream, UnixListenerStream};

use crate::handshake::{self, HandshakeError};
use crate::provider::Provider;
use crate::server::ProviderService;
use crate::tls::{self, ServerIdentity, TlsError};
use crate::wire::{plugin, tfplugin6};

/// Terraform's clients accept up to 256 MiB (terraform-plugin-go uses the same);
/// tonic's default is 4 MiB.
const MAX_MESSAGE_SIZE: usize = 256 << 20;

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    Handshake(#[from] HandshakeError),
    #[error("failed to set up AutoMTLS: {0}")]
    Tls(#[from] TlsError),
    #[error("failed to listen on {path}: {source}")]
    Listen { path: PathBuf, source: std::io::Error },
    #[error("failed to write the handshake to stdout: {0}")]
    Stdout(std::io::Error),
    #[error("gRPC server failed: {0}")]
    Transport(#[from] tonic::transport::Error),
}

pub struct ServeOptions {
    /// e.g. `registry.terraform.io/eksgpu/eksgpu`, printed in debug mode.
    pub provider_address: String,
    /// Serve without a handshake or TLS and print `TF_REATTACH_PROVIDERS`.
    pub debug: bool,
}

/// Serves `provider` until Terraform shuts it down (or Ctrl-C in debug mode).
pub async fn serve(provider: Arc<dyn Provider>, opts: ServeOptions) -> Result<(), ServeError> {
    if !opts.debug {
        handshake::negotiate(
            std::env::var(handshake::MAGIC_COOKIE_KEY).ok().as_deref(),
            std::env::var("PLUGIN_PROTOCOL_VERSIONS").ok().as_deref(),
        )?;
    }
    let socket = SocketPath::new()?;
    let listener = UnixListener::bind(&socket.0).map_err(|source| ServeError::Listen {
        path: socket.0.clone(),
        source,
    })?;
    let shutdown = Arc::new(Notify::new());
    let router = router(provider, shutdown.clone());
    let path = socket.0.to_string_lossy().into_owned();
    let stop = {
        let shutdown = shutdown.clone();
        async move { shutdown.notified().await }
    };

    if opts.debug {
        let reattach = handshake::reattach_json(&opts.provider_address, &path, std::process::id());
        print_line(&format!(
            "Provider started in debug mode. To attach Terraform, run in another shell:\n\n    \
             export TF_REATTACH_PROVIDERS='{reattach}'\n\nStop with Ctrl-C.\n"
        ))?;
        tokio::spawn(async move {
            let _ = tokio::signal::ctrl_c().await;
            shutdown.notify_one();
        });
        router
            .serve_with_incoming_shutdown(UnixListenerStream::new(listener), stop)
            .await?;
        return Ok(());
    }

    // go-plugin servers ignore SIGINT: Terraform forwards Ctrl-C to the whole
    // process group, then calls StopProvider and Shutdown itself.
    tokio::spawn(async {
        while tokio::signal::ctrl_c().await.is_ok() {
            tracing::debug!("ignoring interrupt; Terraform will call StopProvider");
        }
    });

    match std::env::var("PLUGIN_CLIENT_CERT").ok().filter(|s| !s.is_empty()) {
        Some(pem) => {
            let client_cert = tls::parse_client_cert(&pem)?;
            let identity = ServerIdentity::generate()?;
            let config = Arc::new(tls::server_config(&identity, client_cert)?);
            print_line(&handshake::line(&path, Some(identity.cert_der.as_ref())))?;
            router
                .serve_with_incoming_shutdown(tls_incoming(listener, config), stop)
                .await?;
        }
        None => {
            // Only TF_DISABLE_PLUGIN_TLS (test frameworks) launches without a certificate.
            print_line(&handshake::line(&path, None))?;
            router
                .serve_with_incoming_shutdown(UnixListenerStream::new(listener), stop)
                .await?;
        }
    }
    Ok(())
}

fn router(provider: Arc<dyn Provider>, shutdown: Arc<Notify>) -> tonic::transport::server::Router {
    let provider = tfplugin6::provider_server::ProviderServer::new(ProviderService::new(provider))
        .max_decoding_message_size(MAX_MESSAGE_SIZE)
        .max_encoding_message_size(MAX_MESSAGE_SIZE);
    let controller = plugin::grpc_controller_server::GrpcControllerServer::new(Controller { shutdown });
    let (health_reporter, health) = tonic_health::server::health_reporter();
    // go-plugin's Ping asks for the service named "plugin".
    tokio::spawn(async move {
        health_reporter
            .set_service_status("plugin", tonic_health::ServingStatus::Serving)
            .await;
    });
    tonic::transport::Server::builder()
        .add_service(provider)
        .add_service(controller)
        .add_service(health)
}

/// Accepts unix connections and completes TLS on each in its own task, so one
/// bad client (wrong certificate) neither blocks nor ends the server.
fn tls_incoming(
    listener: UnixListener,
    config: Arc<rustls::ServerConfig>,
) -> ReceiverStream<Result<tokio_rustls::server::TlsStream<UnixStream>, std::io::Error>> {
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    let acceptor = tokio_rustls::TlsAcceptor::from(config);
    tokio::spawn(async move {
        loop {
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                Err(e) => {
                    tracing::warn!(error = %e, "accept failed");
                    continue;
                }
            };
            let (acceptor, tx) = (acceptor.clone(), tx.clone());
            tokio::spawn(async move {
                match acceptor.accept(stream).await {
                    Ok(tls) => {
                        let _ = tx.send(Ok(tls)).await;
                    }
                    Err(e) => tracing::warn!(error = %e, "TLS handshake with a client failed"),
                }
            });
        }
    });
    ReceiverStream::new(rx)
}

struct Controller {
    shutdown: Arc<Notify>,
}

#[tonic::async_trait]
impl plugin::grpc_controller_server::GrpcController for Controller {
    async fn shutdown(
        &self,
        _req: tonic::Request<plugin::Empty>,
    ) -> Result<tonic::Response<plugin::Empty>, tonic::Status> {
        tracing::debug!("Shutdown requested by Terraform");
        // Graceful shutdown finishes in-flight calls, this reply included.
        self.shutdown.notify_one();
        Ok(tonic::Response::new(plugin::Empty {}))
    }
}

fn print_line(s: &str) -> Result<(), ServeError> {
    let mut out = std::io::stdout().lock();
    out.write_all(s.as_bytes())
        .and_then(|()| out.flush())
        .map_err(ServeError::Stdout)
}

/// A socket path that is removed when serving ends.
struct SocketPath(PathBuf);

impl SocketPath {
    fn new() -> Result<Self, ServeError> {
        let dir = std::env::var_os("PLUGIN_UNIX_SOCKET_DIR").map_or_else(std::env::temp_dir, PathBuf::from);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        // sun_path is limited to 108 bytes: keep the name short.
        let path = dir.join(format!("plugin-eksgpu-{}-{nanos:x}.sock", std::process::id()));
        let _ = std::fs::remove_file(&path);
        Ok(Self(path))
    }
}

impl Drop for SocketPath {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
