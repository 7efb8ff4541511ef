//! AWS failures with what users and operators need: the operation, the
//! service's error code and message, and the request ID.

use aws_sdk_ec2::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};

#[derive(Debug, thiserror::Error)]
#[error("{operation} failed: {message}{}{}",
    .code.as_ref().map(|c| format!(" ({c})")).unwrap_or_default(),
    .request_id.as_ref().map(|r| format!(", request ID {r}")).unwrap_or_default())]
pub struct AwsError {
    /// `service:Action`, as in IAM policies.
    pub operation: &'static str,
    pub code: Option<String>,
    pub message: String,
    pub request_id: Option<String>,
}

impl AwsError {
    pub(crate) fn from_sdk<E, R>(operation: &'static str, err: SdkError<E, R>) -> Self
    where
        E: ProvideErrorMetadata + std::error::Error + 'static,
        R: std::fmt::Debug,
    {
        let (code, request_id, service_message) = match &err {
            SdkError::ServiceError(s) => (
                s.err().code().map(str::to_owned),
                s.err().meta().extra("aws_request_id").map(str::to_owned),
                s.err().message().map(str::to_owned),
            ),
            _ => (None, None, None),
        };
        let message = service_message.unwrap_or_else(|| DisplayErrorContext(&err).to_string());
        Self {
            operation,
            code,
            message,
            request_id,
        }
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
