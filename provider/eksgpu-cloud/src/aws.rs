//! AWS access: settings from the provider block, a lazily loaded SDK
//! configuration (nothing contacts AWS until a resource or data source needs
//! it), and the operations the provider uses.

mod assume;
mod ec2;
mod eks;
mod error;
mod hybrid;
mod launch_templates;
mod node_groups;
mod placement_groups;
mod sts;
pub mod wait;

use std::collections::HashMap;

use aws_config::{BehaviorVersion, Region, SdkConfig};
use aws_credential_types::provider::SharedCredentialsProvider;
use aws_sdk_ec2::error::{ProvideErrorMetadata, SdkError};
use eksgpu_core::eks::ClusterFacts;
use tokio::sync::{Mutex, OnceCell};

pub use assume::{AssumeRole, WebIdentity};
pub use ec2::InstanceTypes;
pub use error::{AwsError, AwsFailure};
pub use hybrid::AccessEntry;

/// `endpoints { … }` of the provider block: per-service URL overrides.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Endpoints {
    pub eks: Option<String>,
    pub ec2: Option<String>,
    pub sts: Option<String>,
}

/// The AWS part of the provider configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AwsSettings {
    pub region: Option<String>,
    pub profile: Option<String>,
    pub assume_role: Option<AssumeRole>,
    pub assume_role_with_web_identity: Option<WebIdentity>,
    pub endpoints: Endpoints,
}

/// Clients built on first use from [`AwsSettings`] and the standard
/// credential chain (environment, shared config and credentials files, web
/// identity, container and instance metadata), as the AWS CLI reads them.
pub struct AwsClients {
    settings: AwsSettings,
    config: OnceCell<SdkConfig>,
    /// `DescribeCluster` answers of this process, by cluster name.
    clusters: Mutex<HashMap<String, ClusterFacts>>,
}

impl AwsClients {
    pub fn new(settings: AwsSettings) -> Self {
        Self {
            settings,
            config: OnceCell::new(),
            clusters: Mutex::new(HashMap::new()),
        }
    }

    pub fn settings(&self) -> &AwsSettings {
        &self.settings
    }

    pub(crate) async fn sdk_config(&self) -> &SdkConfig {
        self.config.get_or_init(|| load(&self.settings)).await
    }

    pub(crate) async fn ec2(&self) -> aws_sdk_ec2::Client {
        let config = self.sdk_config().await;
        let mut builder = aws_sdk_ec2::config::Builder::from(config);
        if let Some(url) = &self.settings.endpoints.ec2 {
            builder = builder.endpoint_url(url);
        }
        aws_sdk_ec2::Client::from_conf(builder.build())
    }

    /// EC2 instance-type facts (`ec2:DescribeInstanceTypes`).
    pub async fn instance_types(&self) -> ec2::Ec2InstanceTypes {
        ec2::Ec2InstanceTypes::new(self.ec2().await, self.endpoint("ec2"))
    }

    /// An SDK failure of `operation`, naming the endpoint when it could not be reached.
    pub(crate) fn sdk_error<E, R>(&self, operation: &'static str, err: SdkError<E, R>) -> AwsError
    where
        E: ProvideErrorMetadata + std::error::Error + 'static,
        R: std::fmt::Debug + Send + Sync + 'static,
    {
        let service = operation.split(':').next().unwrap_or_default();
        AwsError::from_sdk(operation, err).at(self.endpoint(service))
    }

    /// The URL calls to `service` go to, as the SDK picks it: the provider
    /// block's override, then `AWS_ENDPOINT_URL` (or the profile's), then the
    /// regional default. For error messages only.
    pub(crate) fn endpoint(&self, service: &str) -> Option<String> {
        let e = &self.settings.endpoints;
        let configured = match service {
            "eks" => e.eks.clone(),
            "ec2" => e.ec2.clone(),
            "sts" => e.sts.clone(),
            _ => None,
        };
        let config = self.config.get();
        configured
            .or_else(|| config.and_then(|c| c.endpoint_url()).map(str::to_owned))
            .or_else(|| {
                let region = config.and_then(|c| c.region()).map(ToString::to_string);
                region.map(|r| format!("https://{service}.{r}.amazonaws.com"))
            })
    }
}

async fn load(settings: &AwsSettings) -> SdkConfig {
    let mut loader = aws_config::defaults(BehaviorVersion::latest());
    if let Some(region) = &settings.region {
        loader = loader.region(Region::new(region.clone()));
    }
    if let Some(profile) = &settings.profile {
        loader = loader.profile_name(profile);
    }
    let base = loader.load().await;
    if settings.assume_role.is_none() && settings.assume_role_with_web_identity.is_none() {
        return base;
    }
    // Roles are assumed through STS, at the overridden endpoint when one is set.
    let sts = |config: &SdkConfig| {
        let mut builder = aws_sdk_sts::config::Builder::from(config);
        if let Some(url) = &settings.endpoints.sts {
            builder = builder.endpoint_url(url);
        }
        aws_sdk_sts::Client::from_conf(builder.build())
    };
    let with = |config: &SdkConfig, provider: assume::StsCredentials| {
        config
            .to_builder()
            .credentials_provider(SharedCredentialsProvider::new(provider))
            .build()
    };
    // hashicorp/aws order: the web identity's role gives the base credentials, which assume `assume_role`.
    let mut config = base;
    if let Some(identity) = &settings.assume_role_with_web_identity {
        let client = sts(&config);
        config = with(
            &config,
            assume::StsCredentials::WebIdentity {
                client,
                identity: identity.clone(),
            },
        );
    }
    if let Some(role) = &settings.assume_role {
        let client = sts(&config);
        config = with(
            &config,
            assume::StsCredentials::Role {
                client,
                role: role.clone(),
            },
        );
    }
    config
}
