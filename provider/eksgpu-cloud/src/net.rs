//! Why a connection failed, read from an error's source chain, for messages a
//! person can act on. The AWS SDK and kube-rs both connect through hyper-util
//! and rustls, so one reading serves both; their own `Display` of such errors
//! either hides the cause or (the SDK's `DisplayErrorContext`) appends a Rust
//! `Debug` dump, and neither is shown to users.

use std::error::Error;
use std::fmt;

/// Why an endpoint could not be reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreachable {
    /// Nothing listens at the address (TCP RST).
    Refused,
    /// The host name does not resolve.
    Dns,
    /// The server's certificate is not signed by a CA the provider trusts.
    UnknownCa,
    /// The server's certificate does not name the host connected to.
    HostnameMismatch,
    /// Another TLS failure; the text is rustls' description.
    Tls(String),
    /// No answer in time (connect or read timeout).
    Timeout,
    /// Any other transport failure; the text is the error chain.
    Other(String),
}

impl fmt::Display for Unreachable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Refused => f.write_str("connection refused (nothing listens at that address and port)"),
            Self::Dns => f.write_str("the host name does not resolve (DNS lookup failed)"),
            Self::UnknownCa => f.write_str("TLS failed: the server's certificate is signed by an unknown CA"),
            Self::HostnameMismatch => {
                f.write_str("TLS failed: the server's certificate is not valid for this host name")
            }
            Self::Tls(t) => write!(f, "TLS failed: {t}"),
            Self::Timeout => f.write_str("timed out waiting for an answer"),
            Self::Other(t) => f.write_str(t),
        }
    }
}

impl Unreachable {
    /// What to do about it, for the detail of a diagnostic.
    pub fn hint(&self) -> &'static str {
        match self {
            Self::Refused => {
                "Check the address and port, and that the server runs and is reachable from where Terraform runs."
            }
            Self::Dns => {
                "Check the host name for typos, and that it resolves from where Terraform runs (private endpoints need the VPC's DNS)."
            }
            Self::UnknownCa => {
                "Give the CA bundle that signed the server's certificate (`kubernetes.cluster_ca_certificate`, or the cluster's CA in EKS)."
            }
            Self::HostnameMismatch => {
                "Connect with a host name the certificate names (its subject alternative names), not an IP or alias it lacks."
            }
            Self::Tls(_) => "Check the CA bundle and that the address serves TLS (https://).",
            Self::Timeout => {
                "Check network paths (security groups, proxies, private endpoint access) from where Terraform runs."
            }
            Self::Other(_) => "Check that the endpoint is reachable from where Terraform runs.",
        }
    }
}

/// Reads why `err` failed to reach its endpoint; `None` when nothing in its
/// chain is a transport failure.
pub fn classify(err: &(dyn Error + 'static)) -> Option<Unreachable> {
    let mut found = None;
    let mut current = Some(err);
    while let Some(e) = current {
        if let Some(u) = one(e) {
            // The innermost cause is the most precise (a TLS error inside an I/O error).
            found = Some(u);
        }
        // io::Error's `source()` skips the error it wraps, which is where
        // tokio-rustls puts the rustls::Error, itself inside another io::Error
        // from hyper-rustls: look inside each layer explicitly.
        let mut layer = e;
        while let Some(inner) = layer.downcast_ref::<std::io::Error>().and_then(|io| io.get_ref()) {
            let inner: &(dyn Error + 'static) = inner;
            if let Some(u) = one(inner) {
                found = Some(u);
            }
            layer = inner;
        }
        current = e.source();
    }
    found
}

fn one(e: &(dyn Error + 'static)) -> Option<Unreachable> {
    if let Some(tls) = e.downcast_ref::<rustls::Error>() {
        use rustls::CertificateError as C;
        return Some(match tls {
            rustls::Error::InvalidCertificate(C::UnknownIssuer | C::BadSignature) => Unreachable::UnknownCa,
            rustls::Error::InvalidCertificate(C::NotValidForName | C::NotValidForNameContext { .. }) => {
                Unreachable::HostnameMismatch
            }
            other => Unreachable::Tls(other.to_string()),
        });
    }
    if let Some(io) = e.downcast_ref::<std::io::Error>() {
        match io.kind() {
            std::io::ErrorKind::ConnectionRefused => return Some(Unreachable::Refused),
            std::io::ErrorKind::TimedOut => return Some(Unreachable::Timeout),
            _ => {}
        }
    }
    // hyper-util names its connect stages only in text ("dns error", "tcp connect error").
    let text = e.to_string();
    if text.starts_with("dns error") || text.contains("failed to lookup address") {
        return Some(Unreachable::Dns);
    }
    if text.contains("deadline has elapsed") || text.contains("operation timed out") {
        return Some(Unreachable::Timeout);
    }
    None
}

/// The error and its sources as one line (`a: b: c`), skipping a source whose
/// text its parent already includes: `Display` only, never `Debug`.
pub fn chain_text(err: &(dyn Error + 'static)) -> String {
    let mut out = err.to_string();
    let mut current = err.source();
    while let Some(e) = current {
        let t = e.to_string();
        if !t.is_empty() && !out.contains(&t) {
            out.push_str(": ");
            out.push_str(&t);
        }
        current = e.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Wrap(&'static str, Box<dyn Error + Send + Sync>);
    impl fmt::Display for Wrap {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }
    impl Error for Wrap {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            Some(self.1.as_ref())
        }
    }

    #[test]
    fn causes_are_read_through_the_chain() {
        let refused = Wrap(
            "client error (Connect)",
            Box::new(std::io::Error::from(std::io::ErrorKind::ConnectionRefused)),
        );
        assert_eq!(classify(&refused), Some(Unreachable::Refused));
        let dns = Wrap(
            "client error (Connect)",
            Box::new(Wrap(
                "dns error",
                Box::new(std::io::Error::other("failed to lookup address information")),
            )),
        );
        assert_eq!(classify(&dns), Some(Unreachable::Dns));
        let tls = std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer),
        );
        assert_eq!(
            classify(&Wrap("client error", Box::new(tls))),
            Some(Unreachable::UnknownCa)
        );
        let name = rustls::Error::InvalidCertificate(rustls::CertificateError::NotValidForName);
        assert_eq!(classify(&name), Some(Unreachable::HostnameMismatch));
        assert_eq!(classify(&std::io::Error::other("something else")), None);
    }

    #[test]
    fn chain_text_has_no_debug_and_no_repeats() {
        let e = Wrap(
            "dispatch failure",
            Box::new(Wrap("io error: refused", Box::new(std::io::Error::other("refused")))),
        );
        assert_eq!(chain_text(&e), "dispatch failure: io error: refused");
    }
}
