//! EKS cluster facts and the EKS IAM token for a cluster's API.

use std::time::{Duration, SystemTime};

use aws_credential_types::provider::ProvideCredentials;
use base64::Engine;

use super::{AwsClients, AwsError};

/// What `DescribeCluster` says about reaching a cluster.
#[derive(Debug, Clone, Default)]
pub struct ClusterInfo {
    pub endpoint: Option<String>,
    /// Base64 of the PEM CA bundle.
    pub certificate_authority: Option<String>,
    pub version: Option<String>,
}

/// The header that binds a token to one cluster (aws-iam-authenticator).
const CLUSTER_ID_HEADER: &str = "x-k8s-aws-id";
const TOKEN_PREFIX: &str = "k8s-aws-v1.";

impl AwsClients {
    pub(crate) async fn eks(&self) -> aws_sdk_eks::Client {
        let config = self.sdk_config().await;
        let mut builder = aws_sdk_eks::config::Builder::from(config);
        if let Some(url) = &self.settings.endpoints.eks {
            builder = builder.endpoint_url(url);
        }
        aws_sdk_eks::Client::from_conf(builder.build())
    }

    /// `eks:DescribeCluster`.
    pub async fn describe_cluster(&self, name: &str) -> Result<ClusterInfo, AwsError> {
        let out = self
            .eks()
            .await
            .describe_cluster()
            .name(name)
            .send()
            .await
            .map_err(|e| AwsError::from_sdk("eks:DescribeCluster", e))?;
        tracing::debug!(cluster = name, "described cluster");
        let c = out.cluster();
        Ok(ClusterInfo {
            endpoint: c.and_then(|c| c.endpoint()).map(str::to_owned),
            certificate_authority: c
                .and_then(|c| c.certificate_authority())
                .and_then(|a| a.data())
                .map(str::to_owned),
            version: c.and_then(|c| c.version()).map(str::to_owned),
        })
    }

    /// A bearer token for cluster `name`, made as `aws eks get-token` makes it:
    /// an STS `GetCallerIdentity` URL presigned (60 s) with the `x-k8s-aws-id`
    /// header signed, base64url-encoded behind `k8s-aws-v1.`. The API server's
    /// authenticator calls that URL to learn who we are. No AWS call is made here.
    pub async fn eks_token(&self, name: &str) -> Result<String, AwsError> {
        let config = self.sdk_config().await;
        let fail = |message: String| AwsError {
            operation: "sts:GetCallerIdentity",
            code: None,
            message,
            request_id: None,
        };
        let provider = config
            .credentials_provider()
            .ok_or_else(|| fail("no AWS credentials are configured".into()))?;
        let credentials = provider
            .provide_credentials()
            .await
            .map_err(|e| fail(format!("no AWS credentials: {e}")))?;
        let region = config
            .region()
            .map_or_else(|| "us-east-1".to_owned(), |r| r.to_string());
        let base = self
            .settings
            .endpoints
            .sts
            .clone()
            .unwrap_or_else(|| format!("https://sts.{region}.amazonaws.com"));
        let url = format!(
            "{}/?Action=GetCallerIdentity&Version=2011-06-15",
            base.trim_end_matches('/')
        );

        let identity = credentials.into();
        let mut settings = aws_sigv4::http_request::SigningSettings::default();
        settings.signature_location = aws_sigv4::http_request::SignatureLocation::QueryParams;
        settings.expires_in = Some(Duration::from_secs(60));
        let params = aws_sigv4::sign::v4::SigningParams::builder()
            .identity(&identity)
            .region(&region)
            .name("sts")
            .time(SystemTime::now())
            .settings(settings)
            .build()
            .map_err(|e| fail(e.to_string()))?
            .into();
        let headers = [(CLUSTER_ID_HEADER, name)];
        let request = aws_sigv4::http_request::SignableRequest::new(
            "GET",
            &url,
            headers.into_iter(),
            aws_sigv4::http_request::SignableBody::Bytes(&[]),
        )
        .map_err(|e| fail(e.to_string()))?;
        let (instructions, _) = aws_sigv4::http_request::sign(request, &params)
            .map_err(|e| fail(e.to_string()))?
            .into_parts();
        let mut presigned = url;
        for (k, v) in instructions.params() {
            presigned.push('&');
            presigned.push_str(k);
            presigned.push('=');
            presigned.extend(percent_encoding::utf8_percent_encode(v, QUERY));
        }
        Ok(format!(
            "{TOKEN_PREFIX}{}",
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(presigned)
        ))
    }
}

/// RFC 3986 unreserved characters stay; everything else is escaped, as SigV4 expects.
const QUERY: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');
