//! Talking to a provider process the way Terraform does: read its handshake
//! line, dial its unix socket with mutual TLS (or plaintext in debug mode),
//! and call RPCs with the raw protocol client.

pub mod config;
pub mod plan;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use base64::Engine;
use eksgpu_tfplugin::handshake::{MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE};
use eksgpu_tfplugin::testing::{GrpcControllerClient, ProviderClient};
use hyper_util::rt::TokioIo;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use tonic::transport::{Channel, Endpoint};

/// A client identity like Terraform's: ECDSA P-521, self-signed, marked CA.
pub struct ClientIdentity {
    pub cert_pem: String,
    cert_der: CertificateDer<'static>,
    key_der: Vec<u8>,
}

impl ClientIdentity {
    pub fn generate() -> ClientIdentity {
        let key =
            rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P521_SHA512).unwrap_or_else(|e| panic!("keygen: {e}"));
        let mut params = rcgen::CertificateParams::new(vec!["localhost".to_owned()]).unwrap_or_else(|e| panic!("{e}"));
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(rcgen::DnType::OrganizationName, "HashiCorp");
        params.distinguished_name.push(rcgen::DnType::CommonName, "localhost");
        let cert = params.self_signed(&key).unwrap_or_else(|e| panic!("self-sign: {e}"));
        ClientIdentity {
            cert_pem: cert.pem(),
            cert_der: cert.der().clone(),
            key_der: key.serialize_der(),
        }
    }
}

/// A running provider process and what its handshake said.
pub struct ProviderProcess {
    pub child: Child,
    pub socket: PathBuf,
    pub server_cert: Option<Vec<u8>>,
    pub handshake: String,
}

impl ProviderProcess {
    /// Starts `binary` as Terraform would, with `client` as the AutoMTLS identity.
    pub fn start(binary: &Path, client: &ClientIdentity) -> ProviderProcess {
        Self::start_protocol(binary, client, "6,5", "6")
    }

    /// Starts `binary` offering `offered` plugin protocol versions and expecting
    /// it to choose `expected` (the benchmark starts a protocol-5 Go provider).
    pub fn start_protocol(binary: &Path, client: &ClientIdentity, offered: &str, expected: &str) -> ProviderProcess {
        let mut cmd = Command::new(binary);
        // As for the CLI (terraform.rs): the machine's TF_* and AWS_* settings
        // stay out; AWS is fake credentials, no metadata service, no user files.
        for (k, _) in std::env::vars() {
            if k.starts_with("TF_") || k.starts_with("AWS_") {
                cmd.env_remove(k);
            }
        }
        let mut child = cmd
            .env("AWS_ACCESS_KEY_ID", "testing")
            .env("AWS_SECRET_ACCESS_KEY", "testing")
            .env("AWS_EC2_METADATA_DISABLED", "true")
            .env("AWS_CONFIG_FILE", "/dev/null")
            .env("AWS_SHARED_CREDENTIALS_FILE", "/dev/null")
            .env(MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE)
            .env("PLUGIN_PROTOCOL_VERSIONS", offered)
            .env("PLUGIN_CLIENT_CERT", &client.cert_pem)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", binary.display()));
        let stdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .unwrap_or_else(|e| panic!("read handshake: {e}"));
        let fields: Vec<&str> = line.trim_end().split('|').collect();
        assert_eq!(fields.len(), 6, "bad handshake line {line:?}");
        assert_eq!(&fields[..3], ["1", expected, "unix"], "bad handshake line {line:?}");
        assert_eq!(fields[4], "grpc");
        let server_cert = (!fields[5].is_empty()).then(|| {
            base64::engine::general_purpose::STANDARD_NO_PAD
                .decode(fields[5])
                .unwrap_or_else(|e| panic!("cert: {e}"))
        });
        ProviderProcess {
            socket: PathBuf::from(fields[3]),
            server_cert,
            handshake: line,
            child,
        }
    }

    /// A channel over mutual TLS presenting `client`, trusting exactly the handshake's certificate.
    pub async fn channel(&self, client: &ClientIdentity) -> Result<Channel, tonic::transport::Error> {
        let server_cert = self
            .server_cert
            .clone()
            .unwrap_or_else(|| panic!("provider serves without TLS"));
        let mut config =
            rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::aws_lc_rs::default_provider()))
                .with_safe_default_protocol_versions()
                .unwrap_or_else(|e| panic!("{e}"))
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(PinnedServer(server_cert)))
                .with_client_auth_cert(
                    vec![client.cert_der.clone()],
                    PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(client.key_der.clone())),
                )
                .unwrap_or_else(|e| panic!("{e}"));
        config.alpn_protocols = vec![b"h2".to_vec()];
        let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
        let socket = self.socket.clone();
        Endpoint::from_static("http://localhost")
            .connect_with_connector(tower::service_fn(move |_| {
                let (connector, socket) = (connector.clone(), socket.clone());
                async move {
                    let stream = tokio::net::UnixStream::connect(socket).await?;
                    let tls = connector
                        .connect(
                            ServerName::try_from("localhost").map_err(std::io::Error::other)?,
                            stream,
                        )
                        .await?;
                    Ok::<_, std::io::Error>(TokioIo::new(tls))
                }
            }))
            .await
    }

    pub async fn provider(&self, client: &ClientIdentity) -> ProviderClient<Channel> {
        let channel = self.channel(client).await.unwrap_or_else(|e| panic!("connect: {e}"));
        ProviderClient::new(channel).max_decoding_message_size(256 << 20)
    }

    /// Protocol 5's `GetSchema`, answer discarded (the response is decoded as an
    /// empty message, skipping every field): enough to make a protocol-5
    /// provider build its schema, for the benchmark's memory measure.
    pub async fn get_schema_v5(&self, client: &ClientIdentity) {
        let channel = self.channel(client).await.unwrap_or_else(|e| panic!("connect: {e}"));
        let mut grpc = tonic::client::Grpc::new(channel).max_decoding_message_size(256 << 20);
        grpc.ready().await.unwrap_or_else(|e| panic!("not ready: {e}"));
        grpc.unary(
            tonic::Request::new(()),
            tonic::codegen::http::uri::PathAndQuery::from_static("/tfplugin5.Provider/GetSchema"),
            tonic_prost::ProstCodec::<(), ()>::default(),
        )
        .await
        .unwrap_or_else(|e| panic!("GetSchema: {e}"));
    }

    pub async fn controller(&self, client: &ClientIdentity) -> GrpcControllerClient<Channel> {
        GrpcControllerClient::new(self.channel(client).await.unwrap_or_else(|e| panic!("connect: {e}")))
    }
}

impl Drop for ProviderProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // A killed Go plugin leaves its socket behind.
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// A plaintext channel to a unix socket (debug mode / reattach).
pub async fn plaintext_channel(socket: PathBuf) -> Result<Channel, tonic::transport::Error> {
    Endpoint::from_static("http://localhost")
        .connect_with_connector(tower::service_fn(move |_| {
            let socket = socket.clone();
            async move { Ok::<_, std::io::Error>(TokioIo::new(tokio::net::UnixStream::connect(socket).await?)) }
        }))
        .await
}

#[derive(Debug)]
struct PinnedServer(Vec<u8>);

impl ServerCertVerifier for PinnedServer {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if end_entity.as_ref() == self.0.as_slice() {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::UnknownIssuer,
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &rustls::crypto::aws_lc_rs::default_provider().signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &rustls::crypto::aws_lc_rs::default_provider().signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        rustls::crypto::aws_lc_rs::default_provider()
            .signature_verification_algorithms
            .supported_schemes()
    }
}
