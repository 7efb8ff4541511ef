//! The go-plugin handshake: the magic cookie, protocol negotiation and the
//! one line Terraform reads from stdout (hashicorp/go-plugin docs/internals.md).

use base64::Engine;

/// Terraform's plugin magic cookie (`TF_PLUGIN_MAGIC_COOKIE`).
pub const MAGIC_COOKIE_KEY: &str = "TF_PLUGIN_MAGIC_COOKIE";
pub const MAGIC_COOKIE_VALUE: &str = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";
/// go-plugin's core protocol version.
const CORE_PROTOCOL: u32 = 1;
/// The only application protocol this provider speaks.
pub const PROTOCOL_VERSION: u32 = 6;

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum HandshakeError {
    #[error(
        "This binary is a plugin for Terraform and is not meant to be run directly.\n\
         Declare it in a configuration's required_providers and run `terraform init`;\n\
         to debug it, run it with --debug and follow the instructions it prints."
    )]
    NotLaunchedByTerraform,
    #[error(
        "Terraform offered plugin protocol versions {offered:?}, but this provider speaks only \
         version {PROTOCOL_VERSION} (Terraform 1.0 and later). Upgrade Terraform."
    )]
    NoCommonProtocol { offered: String },
}

/// Checks that Terraform launched us and agrees on protocol 6.
/// `PLUGIN_PROTOCOL_VERSIONS` is a set: both `5,6` and `6,5` are seen.
pub fn negotiate(cookie: Option<&str>, versions: Option<&str>) -> Result<u32, HandshakeError> {
    if cookie != Some(MAGIC_COOKIE_VALUE) {
        return Err(HandshakeError::NotLaunchedByTerraform);
    }
    match versions {
        // Absent: go-plugin falls back to the plugin's own version.
        None => Ok(PROTOCOL_VERSION),
        Some(list) if list.split(',').any(|v| v.trim().parse() == Ok(PROTOCOL_VERSION)) => Ok(PROTOCOL_VERSION),
        Some(list) => Err(HandshakeError::NoCommonProtocol {
            offered: list.to_owned(),
        }),
    }
}

/// The handshake line: `1|6|unix|<path>|grpc|<base64 DER, no padding>`.
/// The certificate field is empty when serving without TLS.
pub fn line(socket_path: &str, server_cert_der: Option<&[u8]>) -> String {
    let cert = server_cert_der
        .map(|der| base64::engine::general_purpose::STANDARD_NO_PAD.encode(der))
        .unwrap_or_default();
    format!("{CORE_PROTOCOL}|{PROTOCOL_VERSION}|unix|{socket_path}|grpc|{cert}\n")
}

/// The `TF_REATTACH_PROVIDERS` value for debug mode. `Test: true` is required
/// for protocol 6 on Terraform 1.0.3, which otherwise crashes (observed with Terraform 1.0.3).
pub fn reattach_json(provider_address: &str, socket_path: &str, pid: u32) -> String {
    serde_json::json!({
        provider_address: {
            "Protocol": "grpc",
            "ProtocolVersion": PROTOCOL_VERSION,
            "Pid": pid,
            "Test": true,
            "Addr": { "Network": "unix", "String": socket_path },
        }
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_to_run_without_the_cookie() {
        assert_eq!(negotiate(None, Some("6")), Err(HandshakeError::NotLaunchedByTerraform));
        assert_eq!(
            negotiate(Some("nope"), Some("6")),
            Err(HandshakeError::NotLaunchedByTerraform)
        );
    }

    #[test]
    fn accepts_protocol_6_in_any_order() {
        for v in ["5,6", "6,5", "6", " 5 , 6 "] {
            assert_eq!(negotiate(Some(MAGIC_COOKIE_VALUE), Some(v)), Ok(6), "{v}");
        }
        assert_eq!(negotiate(Some(MAGIC_COOKIE_VALUE), None), Ok(6));
        assert!(matches!(
            negotiate(Some(MAGIC_COOKIE_VALUE), Some("4,5")),
            Err(HandshakeError::NoCommonProtocol { .. })
        ));
    }

    #[test]
    fn line_has_unpadded_base64_der() {
        assert_eq!(
            line("/tmp/p.sock", Some(&[1, 2, 3, 4])),
            "1|6|unix|/tmp/p.sock|grpc|AQIDBA\n"
        );
        assert_eq!(line("/tmp/p.sock", None), "1|6|unix|/tmp/p.sock|grpc|\n");
    }

    #[test]
    fn reattach_marks_the_provider_as_test() {
        let v: serde_json::Value = serde_json::from_str(&reattach_json("registry.terraform.io/a/b", "/s", 7)).unwrap();
        assert_eq!(v["registry.terraform.io/a/b"]["Test"], true);
        assert_eq!(v["registry.terraform.io/a/b"]["Addr"]["String"], "/s");
    }
}
