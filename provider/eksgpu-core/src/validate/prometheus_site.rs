//! Inputs of a burst scaler's site blocks, as KEDA v2.20.2's Prometheus scaler and the APIs
//! behind it read them: the `namespace` query parameter, `customHeaders` and `queryParameters`
//! (`k1=v1,k2=v2`), the parameters and Secret keys of a TriggerAuthentication, an AWS region.

use super::{Validation, ValidationError};

const SCALER: &str = "kedacore/keda v2.20.2 pkg/scalers/prometheus_scaler.go ExecutePromQuery (namespace \
     appended unescaped, L211) and pkg/scalers/scalersconfig/typed_config.go setConfigValueMap (items split on ',' \
     and '=', trimmed)";
const HEADER: &str = "RFC 9110 section 5.1 (field names are tokens), section 5.5 (field values); kedacore/keda \
     v2.20.2 pkg/scalers/scalersconfig/typed_config.go setConfigValueMap";
const AUTH: &str = "kedacore/keda v2.20.2 pkg/scalers/authentication/authentication_types.go (authParams tags L41-78)";
const SECRET_KEY: &str = "k8s.io/apimachinery v0.36.3 pkg/util/validation/validation.go (IsConfigMapKey, which \
     kubernetes/kubernetes pkg/apis/core/validation ValidateSecret applies to Secret data keys)";
const REGION: &str = "AWS General Reference, Regions and Availability Zones \
     (https://docs.aws.amazon.com/global-infrastructure/latest/regions/aws-regions.html)";

/// The `namespace` KEDA appends as `&namespace=<value>` without escaping it: URL-unreserved
/// characters only (RFC 3986 section 2.3), so the query cannot be broken or extended.
pub fn prometheus_namespace(s: &str) -> Validation {
    let ok = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'));
    if ok {
        return Ok(());
    }
    Err(ValidationError::new(
        format!("{s:?} is not a namespace KEDA can send: it appends it to the query URL unescaped."),
        "letters, digits, '-', '.', '_' and '~', e.g. tenant-a",
        SCALER,
    ))
}

/// One side of a `k=v` item KEDA splits on `,` and `=` and trims: neither character, no
/// surrounding spaces (they would be cut), no control characters.
fn item(what: &str, s: &str, empty_ok: bool, source: &'static str) -> Validation {
    let problem = if s.is_empty() && !empty_ok {
        Some("it is empty")
    } else if s.contains([',', '=']) {
        Some("KEDA splits the list on ',' and '=', so neither can appear in it")
    } else if s.trim() != s {
        Some("KEDA trims the spaces around it")
    } else if s.chars().any(char::is_control) {
        Some("it has control characters")
    } else {
        None
    };
    match problem {
        None => Ok(()),
        Some(why) => Err(ValidationError::new(
            format!("{s:?} cannot be a {what}: {why}."),
            "text without ',', '=', control characters or surrounding spaces",
            source,
        )),
    }
}

/// A header name of `custom_headers`: an HTTP token, and not one that carries credentials
/// (custom headers are plain text in the state, the plan and the ScaledObject).
pub fn custom_header_name(s: &str) -> Validation {
    item("header name", s, false, HEADER)?;
    let token = s
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
    if !token {
        return Err(ValidationError::new(
            format!("{s:?} is not an HTTP header name."),
            "a token: letters, digits and !#$%&'*+-.^_`|~, e.g. X-Scope-OrgID",
            HEADER,
        ));
    }
    if ["authorization", "proxy-authorization", "cookie"].contains(&s.to_ascii_lowercase().as_str()) {
        return Err(ValidationError::new(
            format!(
                "{s:?} carries credentials, and custom_headers are plain text in the state, the plan and the \
                 ScaledObject."
            ),
            "a header without credentials; send a token from a Secret with secret_auth (mode bearer, or mode custom \
             with keys customAuthHeader and customAuthValue)",
            HEADER,
        ));
    }
    Ok(())
}

/// A header value of `custom_headers`.
pub fn custom_header_value(s: &str) -> Validation {
    item("header value", s, true, HEADER)
}

/// A key of `query_parameters`.
pub fn query_parameter_name(s: &str) -> Validation {
    item("query parameter name", s, false, SCALER)
}

/// A value of `query_parameters`.
pub fn query_parameter_value(s: &str) -> Validation {
    item("query parameter value", s, true, SCALER)
}

/// Every `authParams` parameter the Prometheus scaler reads with one of the four modes.
pub const AUTH_PARAMETERS: &[&str] = &[
    "bearerToken",
    "username",
    "password",
    "cert",
    "key",
    "ca",
    "customAuthHeader",
    "customAuthValue",
];

/// A KEDA parameter name in `secret_auth.keys`.
pub fn keda_auth_parameter(s: &str) -> Validation {
    if AUTH_PARAMETERS.contains(&s) {
        return Ok(());
    }
    Err(ValidationError::new(
        format!("{s:?} is not a parameter KEDA's Prometheus scaler reads from a TriggerAuthentication."),
        format!("one of {}", AUTH_PARAMETERS.join(", ")),
        AUTH,
    ))
}

/// A key of a Secret's `data`.
pub fn secret_key(s: &str) -> Validation {
    super::config_map_key(s).map_err(|_| {
        ValidationError::new(
            format!("{s:?} is not a valid Secret key."),
            "at most 253 characters of letters, digits, '-', '_' and '.', not '.', '..' or starting with '..'",
            SECRET_KEY,
        )
    })
}

/// An AWS Region code: `us-west-2`, `eu-central-1`, `us-gov-west-1`, `cn-north-1`.
pub fn aws_region(s: &str) -> Validation {
    let parts: Vec<&str> = s.split('-').collect();
    let ok = parts.len() >= 3
        && parts[0].len() == 2
        && parts[..parts.len() - 1]
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase()))
        && parts[parts.len() - 1].parse::<u8>().is_ok();
    if ok {
        return Ok(());
    }
    Err(ValidationError::new(
        format!("{s:?} is not an AWS Region code."),
        "a Region code such as us-west-2 or eu-central-1",
        REGION,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn site_inputs() {
        for ok in ["tenant-a", "a.b_c~1"] {
            assert!(prometheus_namespace(ok).is_ok(), "{ok}");
        }
        for bad in ["", "a&b=c", "a b", "x/y"] {
            assert!(prometheus_namespace(bad).is_err(), "{bad}");
        }
        assert!(custom_header_name("X-Scope-OrgID").is_ok());
        for bad in [
            "",
            "X Y",
            "a=b",
            " X",
            "Authorization",
            "proxy-authorization",
            "Cookie",
            "X:Y",
        ] {
            assert!(custom_header_name(bad).is_err(), "{bad}");
        }
        for ok in ["", "tenant-a", "a b"] {
            assert!(custom_header_value(ok).is_ok(), "{ok:?}");
            assert!(query_parameter_value(ok).is_ok(), "{ok:?}");
        }
        for bad in ["a,b", "a=b", " a", "a\n"] {
            assert!(custom_header_value(bad).is_err(), "{bad:?}");
            assert!(query_parameter_value(bad).is_err(), "{bad:?}");
        }
        assert!(query_parameter_name("dedup").is_ok());
        assert!(query_parameter_name("").is_err());
        assert!(keda_auth_parameter("bearerToken").is_ok());
        assert!(
            keda_auth_parameter("token").is_err(),
            "the alias is refused: one name per parameter"
        );
        assert!(secret_key("tls.crt").is_ok());
        assert!(secret_key("a/b").unwrap_err().message.contains("Secret key"));
        for ok in [
            "us-west-2",
            "eu-central-1",
            "us-gov-west-1",
            "cn-north-1",
            "ap-southeast-5",
        ] {
            assert!(aws_region(ok).is_ok(), "{ok}");
        }
        for bad in ["", "us-west", "US-WEST-2", "uswest2", "us-west-2a", "usa-west-2"] {
            assert!(aws_region(bad).is_err(), "{bad}");
        }
    }
}
