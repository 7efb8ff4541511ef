//! Who the provider's AWS credentials are, for messages only.

use std::time::Duration;

use super::{AwsClients, AwsError, AwsFailure};

/// A message must not wait long for a name in it.
const LOOKUP_TIMEOUT: Duration = Duration::from_secs(5);

impl AwsClients {
    /// The ARN of the identity behind the AWS credentials (`sts:GetCallerIdentity`,
    /// which needs no permission). Called only to name who a cluster refused.
    pub async fn caller_arn(&self) -> Result<String, AwsError> {
        const OP: &str = "sts:GetCallerIdentity";
        let config = self.sdk_config().await;
        let mut builder = aws_sdk_sts::config::Builder::from(config);
        if let Some(url) = &self.settings.endpoints.sts {
            builder = builder.endpoint_url(url);
        }
        let call = aws_sdk_sts::Client::from_conf(builder.build())
            .get_caller_identity()
            .send();
        let out = tokio::time::timeout(LOOKUP_TIMEOUT, call)
            .await
            .map_err(|_| AwsError::local(OP, AwsFailure::Other, "no answer within 5 s".into()))?
            .map_err(|e| self.sdk_error(OP, e))?;
        out.arn()
            .map(str::to_owned)
            .ok_or_else(|| AwsError::local(OP, AwsFailure::Other, "STS returned no ARN".into()))
    }
}
