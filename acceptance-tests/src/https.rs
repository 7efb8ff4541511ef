//! A static HTTPS file server on 127.0.0.1 with a CA made per start, for
//! installing the provider the way users do (registry protocol, network
//! mirror). Terraform trusts the CA through `SSL_CERT_FILE`, which Go reads
//! on Linux. HTTP/1.1 only, one request per connection: Terraform needs no
//! more, and a hand-written responder keeps hyper's server out of the harness.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Files by request path (`/v1/providers/…`), with their content type.
type Files = Arc<Mutex<HashMap<String, (&'static str, Arc<Vec<u8>>)>>>;

pub struct HttpsServer {
    pub port: u16,
    /// PEM of the CA that signed the server's certificate (for `localhost`).
    pub ca_file: PathBuf,
    files: Files,
    log: Arc<Mutex<Vec<String>>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl HttpsServer {
    /// Listens on 127.0.0.1 (any free port) and serves what `put` adds.
    pub fn start() -> HttpsServer {
        let (config, ca_pem) = tls_config();
        let std_listener =
            std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap_or_else(|e| panic!("bind 127.0.0.1: {e}"));
        std_listener
            .set_nonblocking(true)
            .unwrap_or_else(|e| panic!("nonblocking: {e}"));
        let port = std_listener.local_addr().map(|a| a.port()).unwrap_or_default();
        let ca_file = std::env::temp_dir().join(format!("eksgpu-ca-{}-{port}.pem", std::process::id()));
        std::fs::write(&ca_file, ca_pem).unwrap_or_else(|e| panic!("write {}: {e}", ca_file.display()));
        let files: Files = Arc::default();
        let log: Arc<Mutex<Vec<String>>> = Arc::default();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let (f, l) = (files.clone(), log.clone());
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap_or_else(|e| panic!("runtime: {e}"));
            rt.block_on(async move {
                let listener =
                    tokio::net::TcpListener::from_std(std_listener).unwrap_or_else(|e| panic!("listener: {e}"));
                tokio::pin!(stopped);
                loop {
                    tokio::select! {
                        _ = &mut stopped => break,
                        accepted = listener.accept() => {
                            let Ok((stream, _)) = accepted else { break };
                            let (acceptor, f, l) = (acceptor.clone(), f.clone(), l.clone());
                            tokio::spawn(async move {
                                // A stuck client must not keep a task alive past the test.
                                let _ = tokio::time::timeout(Duration::from_secs(60), async {
                                    if let Ok(tls) = acceptor.accept(stream).await {
                                        serve(tls, &f, &l).await;
                                    }
                                })
                                .await;
                            });
                        }
                    }
                }
            });
        });
        HttpsServer {
            port,
            ca_file,
            files,
            log,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// `https://localhost:PORT` (no trailing slash).
    pub fn base_url(&self) -> String {
        format!("https://localhost:{}", self.port)
    }

    pub fn put(&self, path: &str, content_type: &'static str, body: Vec<u8>) {
        if let Ok(mut files) = self.files.lock() {
            files.insert(path.to_owned(), (content_type, Arc::new(body)));
        }
    }

    pub fn put_json(&self, path: &str, body: &serde_json::Value) {
        self.put(path, "application/json", body.to_string().into_bytes());
    }

    /// Paths requested so far, in order, with a ` 404` suffix for misses.
    pub fn requests(&self) -> Vec<String> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

impl Drop for HttpsServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        let _ = std::fs::remove_file(&self.ca_file);
    }
}

async fn serve<S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin>(
    mut stream: S,
    files: &Files,
    log: &Mutex<Vec<String>>,
) {
    // The request head only: every request here is a GET without a body.
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => head.extend_from_slice(&buf[..n]),
        }
        if head.len() > 64 * 1024 {
            return;
        }
    }
    let head = String::from_utf8_lossy(&head);
    let mut words = head.split_whitespace();
    let (method, target) = (words.next().unwrap_or_default(), words.next().unwrap_or_default());
    let path = target.split('?').next().unwrap_or_default();
    let found = files.lock().ok().and_then(|f| f.get(path).cloned());
    if let Ok(mut log) = log.lock() {
        log.push(if found.is_some() {
            path.to_owned()
        } else {
            format!("{path} 404")
        });
    }
    let (status, content_type, body) = match found {
        Some((t, b)) => ("200 OK", t, b),
        None => ("404 Not Found", "text/plain", Arc::new(b"not found".to_vec())),
    };
    let header = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(header.as_bytes()).await;
    if method != "HEAD" {
        let _ = stream.write_all(&body).await;
    }
    let _ = stream.shutdown().await;
}

/// A CA made per start and a serving certificate for `localhost` and 127.0.0.1.
fn tls_config() -> (rustls::ServerConfig, String) {
    let fail = |e: rcgen::Error| -> ! { panic!("test CA: {e}") };
    let ca_key = rcgen::KeyPair::generate().unwrap_or_else(|e| fail(e));
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap_or_else(|e| fail(e));
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "eksgpu throwaway test CA");
    ca_params.key_usages = vec![
        rcgen::KeyUsagePurpose::KeyCertSign,
        rcgen::KeyUsagePurpose::DigitalSignature,
    ];
    let ca = ca_params.self_signed(&ca_key).unwrap_or_else(|e| fail(e));
    let issuer = rcgen::Issuer::new(ca_params, ca_key);
    let key = rcgen::KeyPair::generate().unwrap_or_else(|e| fail(e));
    let params =
        rcgen::CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()]).unwrap_or_else(|e| fail(e));
    let cert = params.signed_by(&key, &issuer).unwrap_or_else(|e| fail(e));
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::aws_lc_rs::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap_or_else(|e| panic!("TLS versions: {e}"))
        .with_no_client_auth()
        .with_single_cert(
            vec![cert.der().clone()],
            rustls::pki_types::PrivateKeyDer::Pkcs8(rustls::pki_types::PrivatePkcs8KeyDer::from(key.serialize_der())),
        )
        .unwrap_or_else(|e| panic!("TLS config: {e}"));
    (config, ca.pem())
}
