//! `assume_role` and `assume_role_with_web_identity` of the provider block, as
//! hashicorp/aws v6 reads them (docs/index.md "assume_role Configuration Block",
//! "assume_role_with_web_identity Configuration Block"): the base credentials
//! (the default chain, or the web identity's role when that block is set) assume
//! `assume_role`'s role. Each is an STS call of aws-sdk-sts, whose every
//! parameter is passed through (aws-config's `AssumeRoleProvider` has no
//! `SourceIdentity` or `TransitiveTagKeys`); the SDK's identity cache keeps the
//! credentials until shortly before they expire.

use std::collections::BTreeMap;
use std::fmt;
use std::time::{Duration, SystemTime};

use aws_credential_types::Credentials;
use aws_credential_types::provider::{self, ProvideCredentials, error::CredentialsError, future};
use aws_sdk_sts::types::Tag;

/// hashicorp/aws's default session name is empty (then the SDK's); STS needs one.
const DEFAULT_SESSION_NAME: &str = "terraform-provider-eksgpu";

/// `assume_role { … }` of the provider block.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AssumeRole {
    pub role_arn: String,
    pub session_name: Option<String>,
    pub external_id: Option<String>,
    /// `DurationSeconds`; `None`: STS's default (1 hour).
    pub duration: Option<Duration>,
    /// Session tags.
    pub tags: BTreeMap<String, String>,
    pub transitive_tag_keys: Vec<String>,
    pub source_identity: Option<String>,
}

/// `assume_role_with_web_identity { … }`: the token itself, or a file read at each refresh
/// (tokens projected into pods rotate).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct WebIdentity {
    pub role_arn: String,
    pub session_name: Option<String>,
    pub web_identity_token: Option<String>,
    pub web_identity_token_file: Option<String>,
    pub duration: Option<Duration>,
}

impl fmt::Debug for WebIdentity {
    // The token never reaches a log line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WebIdentity")
            .field("role_arn", &self.role_arn)
            .field("session_name", &self.session_name)
            .field("web_identity_token", &self.web_identity_token.as_ref().map(|_| "***"))
            .field("web_identity_token_file", &self.web_identity_token_file)
            .field("duration", &self.duration)
            .finish()
    }
}

fn seconds(d: Option<Duration>) -> Option<i32> {
    d.and_then(|d| i32::try_from(d.as_secs()).ok())
}

/// One STS call that yields credentials.
#[derive(Debug)]
pub(crate) enum StsCredentials {
    Role {
        client: aws_sdk_sts::Client,
        role: AssumeRole,
    },
    WebIdentity {
        client: aws_sdk_sts::Client,
        identity: WebIdentity,
    },
}

impl StsCredentials {
    async fn credentials(&self) -> provider::Result {
        match self {
            Self::Role { client, role } => {
                let tags = role
                    .tags
                    .iter()
                    .map(|(k, v)| Tag::builder().key(k).value(v).build())
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(CredentialsError::invalid_configuration)?;
                let out = client
                    .assume_role()
                    .role_arn(&role.role_arn)
                    .role_session_name(role.session_name.as_deref().unwrap_or(DEFAULT_SESSION_NAME))
                    .set_external_id(role.external_id.clone())
                    .set_duration_seconds(seconds(role.duration))
                    .set_tags((!tags.is_empty()).then_some(tags))
                    .set_transitive_tag_keys(
                        (!role.transitive_tag_keys.is_empty()).then(|| role.transitive_tag_keys.clone()),
                    )
                    .set_source_identity(role.source_identity.clone())
                    .send()
                    .await
                    .map_err(CredentialsError::provider_error)?;
                tracing::debug!(role_arn = %role.role_arn, "obtained assumed credentials");
                convert(out.credentials, "eksgpu assume_role")
            }
            Self::WebIdentity { client, identity } => {
                let token = match (&identity.web_identity_token, &identity.web_identity_token_file) {
                    (Some(t), _) => t.clone(),
                    (None, Some(path)) => std::fs::read_to_string(path)
                        .map_err(|e| {
                            CredentialsError::invalid_configuration(format!(
                                "assume_role_with_web_identity.web_identity_token_file {path}: {e}"
                            ))
                        })?
                        .trim()
                        .to_owned(),
                    (None, None) => {
                        return Err(CredentialsError::invalid_configuration(
                            "assume_role_with_web_identity needs web_identity_token or web_identity_token_file",
                        ));
                    }
                };
                let out = client
                    .assume_role_with_web_identity()
                    .role_arn(&identity.role_arn)
                    .role_session_name(identity.session_name.as_deref().unwrap_or(DEFAULT_SESSION_NAME))
                    .web_identity_token(token)
                    .set_duration_seconds(seconds(identity.duration))
                    .send()
                    .await
                    .map_err(CredentialsError::provider_error)?;
                tracing::debug!(role_arn = %identity.role_arn, "obtained web identity credentials");
                convert(out.credentials, "eksgpu assume_role_with_web_identity")
            }
        }
    }
}

fn convert(c: Option<aws_sdk_sts::types::Credentials>, provider: &'static str) -> provider::Result {
    let c = c.ok_or_else(|| CredentialsError::unhandled("STS returned no credentials"))?;
    let expiry = SystemTime::try_from(c.expiration)
        .map_err(|_| CredentialsError::unhandled("STS returned an expiration out of range"))?;
    Ok(Credentials::new(
        c.access_key_id,
        c.secret_access_key,
        Some(c.session_token),
        Some(expiry),
        provider,
    ))
}

impl ProvideCredentials for StsCredentials {
    fn provide_credentials<'a>(&'a self) -> future::ProvideCredentials<'a>
    where
        Self: 'a,
    {
        future::ProvideCredentials::new(self.credentials())
    }
}
