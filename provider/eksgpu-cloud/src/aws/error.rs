//! AWS failures with what users and operators need: the operation, the
//! service's error code and message, and the request ID, or, when no answer
//! came, why (no region, no credentials, endpoint unreachable and how).

use aws_sdk_ec2::error::{ProvideErrorMetadata, SdkError};

use crate::net::{self, Unreachable};

#[derive(Debug, thiserror::Error)]
#[error("{operation} failed: {message}{}{}",
    .code.as_ref().map(|c| format!(" ({c})")).unwrap_or_default(),
    .request_id.as_ref().map(|r| format!(", request ID {r}")).unwrap_or_default())]
pub struct AwsError {
    /// `service:Action`, as in IAM policies.
    pub operation: &'static str,
    pub code: Option<String>,
    /// Plain text: the service's message or the error chain's `Display`, never `Debug`.
    pub message: String,
    pub request_id: Option<String>,
    /// Boxed: it rides in every `Result` of the AWS and Kubernetes adapters.
    pub failure: Box<AwsFailure>,
}

/// What kind of failure, for a message of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AwsFailure {
    /// The service answered with an error (`code`).
    Service,
    /// Neither the provider block nor the AWS default chain gives a region.
    MissingRegion,
    /// No credentials in the AWS default chain (or `assume_role` failed).
    Credentials,
    /// The endpoint did not answer.
    Unreachable {
        endpoint: Option<String>,
        cause: Unreachable,
    },
    /// Anything else; `message` says what.
    Other,
}

impl AwsError {
    pub(crate) fn from_sdk<E, R>(operation: &'static str, err: SdkError<E, R>) -> Self
    where
        E: ProvideErrorMetadata + std::error::Error + 'static,
        R: std::fmt::Debug + Send + Sync + 'static,
    {
        if let SdkError::ServiceError(s) = &err {
            return Self {
                operation,
                code: s.err().code().map(str::to_owned),
                message: s
                    .err()
                    .message()
                    .map_or_else(|| net::chain_text(s.err()), str::to_owned),
                request_id: s.err().meta().extra("aws_request_id").map(str::to_owned),
                failure: Box::new(AwsFailure::Service),
            };
        }
        let message = net::chain_text(&err);
        let timed_out = match &err {
            SdkError::TimeoutError(_) => true,
            SdkError::DispatchFailure(d) => d.is_timeout(),
            _ => false,
        };
        let failure = if timed_out {
            AwsFailure::Unreachable {
                endpoint: None,
                cause: Unreachable::Timeout,
            }
        } else {
            classify(&err, &message)
        };
        Self {
            operation,
            code: None,
            message,
            request_id: None,
            failure: Box::new(failure),
        }
    }

    /// An error with no SDK error behind it (e.g. minting an EKS token).
    pub(crate) fn local(operation: &'static str, failure: AwsFailure, message: String) -> Self {
        Self {
            operation,
            code: None,
            message,
            request_id: None,
            failure: Box::new(failure),
        }
    }

    /// Names the endpoint the call went to, when it could not be reached.
    pub(crate) fn at(mut self, url: Option<String>) -> Self {
        if let AwsFailure::Unreachable { endpoint, .. } = self.failure.as_mut() {
            *endpoint = url;
        }
        self
    }

    /// The resource does not exist (EKS `ResourceNotFoundException`).
    pub fn is_not_found(&self) -> bool {
        self.code.as_deref() == Some("ResourceNotFoundException")
    }

    /// Access problems deserve a hint about the IAM policy in the docs.
    pub fn is_access_denied(&self) -> bool {
        self.code
            .as_deref()
            .is_some_and(|c| c.contains("AccessDenied") || c == "UnauthorizedOperation")
    }
}

/// The SDK reports a missing region and missing credentials only as text in
/// its chain (`MissingSigningRegion`, the endpoint resolver's "Missing
/// Region", the credentials chain's "loading credentials").
fn classify(err: &(dyn std::error::Error + 'static), text: &str) -> AwsFailure {
    let lower = text.to_ascii_lowercase();
    if lower.contains("missing signing region") || lower.contains("missing region") {
        AwsFailure::MissingRegion
    } else if lower.contains("loading credentials") || lower.contains("no credentials") {
        AwsFailure::Credentials
    } else if let Some(cause) = net::classify(err) {
        AwsFailure::Unreachable { endpoint: None, cause }
    } else {
        AwsFailure::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_eks::error::ConnectorError;
    use aws_sdk_eks::operation::describe_cluster::DescribeClusterError;

    type Sdk = aws_sdk_eks::error::SdkError<DescribeClusterError>;

    #[test]
    fn sdk_transport_failures_read_without_debug_text() {
        let refused = Sdk::dispatch_failure(ConnectorError::io(Box::new(std::io::Error::from(
            std::io::ErrorKind::ConnectionRefused,
        ))));
        let e = AwsError::from_sdk("eks:DescribeCluster", refused).at(Some("http://127.0.0.1:1".into()));
        assert_eq!(
            *e.failure,
            AwsFailure::Unreachable {
                endpoint: Some("http://127.0.0.1:1".into()),
                cause: Unreachable::Refused
            }
        );
        assert!(
            !e.to_string().contains("DispatchFailure") && !e.to_string().contains("{"),
            "{e}"
        );
        let timed_out = Sdk::timeout_error("operation timeout occurred after 3s");
        let e = AwsError::from_sdk("eks:DescribeCluster", timed_out);
        assert!(matches!(
            *e.failure,
            AwsFailure::Unreachable {
                cause: Unreachable::Timeout,
                ..
            }
        ));
    }

    #[test]
    fn missing_region_and_credentials_are_told_apart() {
        let e = std::io::Error::other("x");
        assert_eq!(
            classify(&e, "dispatch failure: other: missing signing region"),
            AwsFailure::MissingRegion
        );
        assert_eq!(
            classify(&e, "dispatch failure: other: Invalid Configuration: Missing Region"),
            AwsFailure::MissingRegion
        );
        assert_eq!(
            classify(&e, "an error occurred while loading credentials: …"),
            AwsFailure::Credentials
        );
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert_eq!(
            classify(&refused, "io error"),
            AwsFailure::Unreachable {
                endpoint: None,
                cause: Unreachable::Refused
            }
        );
    }
}
