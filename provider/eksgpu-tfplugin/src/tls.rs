//! AutoMTLS as go-plugin does it: a server certificate made per start, and a
//! client certificate pinned byte-for-byte to the one Terraform passed in
//! `PLUGIN_CLIENT_CERT`. Terraform's certificate is P-521 and marked CA, which
//! webpki rejects as an end entity, hence the custom verifier
//! (hashicorp/go-plugin client.go, AutoMTLS).

use std::sync::Arc;

use rustls::client::danger::HandshakeSignatureValid;
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{DigitallySignedStruct, DistinguishedName, SignatureScheme};

#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("PLUGIN_CLIENT_CERT holds no PEM certificate")]
    NoClientCertificate,
    #[error("failed to generate the server certificate: {0}")]
    Generate(#[from] rcgen::Error),
    #[error("failed to read entropy from the OS: {0}")]
    Entropy(std::io::Error),
    #[error("failed to build the TLS configuration: {0}")]
    Config(#[from] rustls::Error),
}

/// The server's identity for one process lifetime.
pub struct ServerIdentity {
    pub cert_der: CertificateDer<'static>,
    key_der: PrivatePkcs8KeyDer<'static>,
}

impl ServerIdentity {
    /// A self-signed Ed25519 certificate for `localhost`, the name go-plugin dials.
    ///
    /// Ed25519 because nothing here may touch AWS-LC's random generator: its
    /// first use seeds the DRBG with CPU-jitter entropy, which measured ~27 ms
    /// of a 33 ms start (benches/provider.rs). The private key comes from the
    /// OS (/dev/urandom), Ed25519 signatures are deterministic, and rcgen
    /// derives the serial from the public key. Go's TLS (Terraform) accepts
    /// Ed25519 certificates since Go 1.13; Terraform 1.0.3 is Go 1.16.
    pub fn generate() -> Result<Self, TlsError> {
        let mut seed = [0u8; 32];
        std::fs::File::open("/dev/urandom")
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut seed))
            .map_err(TlsError::Entropy)?;
        // PKCS#8 v1 of an Ed25519 key (RFC 8410): fixed header, then the 32-byte seed.
        let mut pkcs8 = ED25519_PKCS8_HEADER.to_vec();
        pkcs8.extend_from_slice(&seed);
        let key = rcgen::KeyPair::from_pkcs8_der_and_sign_algo(
            &PrivatePkcs8KeyDer::from(pkcs8.as_slice()),
            &rcgen::PKCS_ED25519,
        )?;
        let mut params = rcgen::CertificateParams::new(vec!["localhost".to_owned()])?;
        params.distinguished_name.push(rcgen::DnType::CommonName, "localhost");
        params
            .distinguished_name
            .push(rcgen::DnType::OrganizationName, "terraform-provider-eksgpu");
        params.extended_key_usages = vec![
            rcgen::ExtendedKeyUsagePurpose::ServerAuth,
            rcgen::ExtendedKeyUsagePurpose::ClientAuth,
        ];
        let now = std::time::SystemTime::now();
        params.not_before = (now - std::time::Duration::from_secs(30)).into();
        params.not_after = (now + std::time::Duration::from_secs(30 * 24 * 3600)).into();
        let cert = params.self_signed(&key)?;
        Ok(Self {
            cert_der: cert.der().clone(),
            key_der: PrivatePkcs8KeyDer::from(pkcs8).clone_key(),
        })
    }
}

/// `SEQUENCE { INTEGER 0, SEQUENCE { OID 1.3.101.112 }, OCTET STRING { OCTET STRING (32 bytes) } }`.
const ED25519_PKCS8_HEADER: [u8; 16] = [
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];

pub fn crypto_provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// Parses the first certificate of `PLUGIN_CLIENT_CERT`.
pub fn parse_client_cert(pem: &str) -> Result<CertificateDer<'static>, TlsError> {
    CertificateDer::pem_slice_iter(pem.as_bytes())
        .next()
        .and_then(Result::ok)
        .ok_or(TlsError::NoClientCertificate)
}

/// TLS 1.2/1.3 with ALPN `h2` (Terraform ≥ 1.12 rejects servers without it) and
/// only the pinned client certificate accepted.
pub fn server_config(
    identity: &ServerIdentity,
    client_cert: CertificateDer<'static>,
) -> Result<rustls::ServerConfig, TlsError> {
    let provider = crypto_provider();
    let verifier = PinnedClientCert {
        expected: client_cert,
        algorithms: provider.signature_verification_algorithms,
    };
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_client_cert_verifier(Arc::new(verifier))
        .with_single_cert(
            vec![identity.cert_der.clone()],
            PrivateKeyDer::Pkcs8(identity.key_der.clone_key()),
        )?;
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok(config)
}

#[derive(Debug)]
struct PinnedClientCert {
    expected: CertificateDer<'static>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ClientCertVerifier for PinnedClientCert {
    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        if end_entity.as_ref() == self.expected.as_ref() {
            Ok(ClientCertVerified::assertion())
        } else {
            tracing::warn!("refused a TLS client whose certificate is not the one Terraform handed over");
            Err(rustls::Error::InvalidCertificate(
                rustls::CertificateError::ApplicationVerificationFailure,
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        // With aws-lc-rs this includes ECDSA_NISTP521_SHA512; without it Go sends no certificate.
        self.algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p521_is_offered_for_client_certificates() {
        let schemes = crypto_provider().signature_verification_algorithms.supported_schemes();
        assert!(schemes.contains(&SignatureScheme::ECDSA_NISTP521_SHA512));
    }

    #[test]
    fn only_the_pinned_certificate_is_accepted() {
        let pinned = ServerIdentity::generate().unwrap().cert_der;
        let other = ServerIdentity::generate().unwrap().cert_der;
        let v = PinnedClientCert {
            expected: pinned.clone(),
            algorithms: crypto_provider().signature_verification_algorithms,
        };
        assert!(v.verify_client_cert(&pinned, &[], UnixTime::now()).is_ok());
        assert!(v.verify_client_cert(&other, &[], UnixTime::now()).is_err());
    }

    #[test]
    fn client_cert_pem_parses() {
        let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P384_SHA384).unwrap();
        let cert = rcgen::CertificateParams::new(vec!["localhost".into()])
            .unwrap()
            .self_signed(&key)
            .unwrap();
        assert_eq!(parse_client_cert(&cert.pem()).unwrap().as_ref(), cert.der().as_ref());
        assert!(matches!(
            parse_client_cert("garbage"),
            Err(TlsError::NoClientCertificate)
        ));
    }
}
