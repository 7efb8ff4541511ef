//! Reaching each cluster's API: by default endpoint and CA from EKS
//! `DescribeCluster` and an EKS IAM token (as `aws eks get-token` makes), or
//! what the provider's `kubernetes` block says. One connection per cluster
//! for the provider process, renewed before its token expires.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use tokio::sync::Mutex;

use super::{Cluster, KubeCluster, KubeError};
use crate::AwsClients;

/// EKS tokens live 15 minutes; renew well before.
const TOKEN_REUSE: Duration = Duration::from_secs(10 * 60);

/// How the provider reaches cluster APIs.
#[derive(Clone, Default)]
pub enum Access {
    /// `DescribeCluster` plus an EKS IAM token (the default).
    #[default]
    Eks,
    /// A fixed API server; without a token, an EKS IAM token for the cluster name.
    Static {
        host: String,
        ca_pem: Option<String>,
        insecure: bool,
        token: Option<String>,
    },
    /// A kubeconfig file and context.
    Kubeconfig { path: String, context: Option<String> },
}

impl std::fmt::Debug for Access {
    // Tokens never reach a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Access::Eks => f.write_str("Eks"),
            Access::Static { host, insecure, .. } => write!(f, "Static {{ host: {host:?}, insecure: {insecure} }}"),
            Access::Kubeconfig { path, context } => write!(f, "Kubeconfig {{ path: {path:?}, context: {context:?} }}"),
        }
    }
}

/// Who the provider presents itself as to a cluster's API, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identity {
    /// `kubernetes.token` of the provider block.
    BlockToken,
    /// An EKS IAM token the provider made from its AWS credentials.
    EksToken,
    /// What a kubeconfig context says.
    Kubeconfig { path: String, context: Option<String> },
}

impl std::fmt::Display for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::BlockToken => f.write_str("the token from the provider's kubernetes block"),
            Self::EksToken => f.write_str("the EKS IAM token made from the provider's AWS credentials"),
            Self::Kubeconfig { path, context: Some(c) } => write!(f, "the credentials of context {c:?} in {path}"),
            Self::Kubeconfig { path, context: None } => write!(f, "the credentials of the current context in {path}"),
        }
    }
}

/// What a connection was made with: its config, whether its token expires, who it presents.
struct Made {
    config: kube::Config,
    expires: bool,
    identity: Identity,
}

struct Entry {
    cluster: Arc<dyn Cluster>,
    made: Instant,
    expires: bool,
}

/// Connections to clusters by name, made on first use.
pub struct Clusters {
    access: Access,
    aws: Arc<AwsClients>,
    cache: Mutex<HashMap<String, Entry>>,
}

impl Clusters {
    pub fn new(access: Access, aws: Arc<AwsClients>) -> Self {
        Self {
            access,
            aws,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The API of cluster `name`.
    pub async fn get(&self, name: &str) -> Result<Arc<dyn Cluster>, KubeError> {
        let mut cache = self.cache.lock().await;
        if let Some(e) = cache.get(name)
            && (!e.expires || e.made.elapsed() < TOKEN_REUSE)
        {
            return Ok(e.cluster.clone());
        }
        let Made {
            config,
            expires,
            identity,
        } = self.config(name).await?;
        let host = config.cluster_url.to_string().trim_end_matches('/').to_owned();
        let client = kube::Client::try_from(config).map_err(|e| KubeError::Config(e.to_string()))?;
        // The AWS clients name the identity behind a refused EKS token.
        let aws = (identity == Identity::EksToken).then(|| self.aws.clone());
        let cluster: Arc<dyn Cluster> = Arc::new(KubeCluster::new(client).named(name, host, identity, aws));
        cache.insert(
            name.to_owned(),
            Entry {
                cluster: cluster.clone(),
                made: Instant::now(),
                expires,
            },
        );
        Ok(cluster)
    }

    async fn config(&self, name: &str) -> Result<Made, KubeError> {
        match &self.access {
            Access::Kubeconfig { path, context } => {
                let kubeconfig =
                    kube::config::Kubeconfig::read_from(path).map_err(|e| KubeError::Config(format!("{path}: {e}")))?;
                let options = kube::config::KubeConfigOptions {
                    context: context.clone(),
                    ..Default::default()
                };
                let config = kube::Config::from_custom_kubeconfig(kubeconfig, &options)
                    .await
                    .map_err(|e| KubeError::Config(e.to_string()))?;
                let identity = Identity::Kubeconfig {
                    path: path.clone(),
                    context: context.clone(),
                };
                Ok(Made {
                    config,
                    expires: false,
                    identity,
                })
            }
            Access::Static {
                host,
                ca_pem,
                insecure,
                token,
            } => {
                let mut config = base_config(host, ca_pem.as_deref())?;
                config.accept_invalid_certs = *insecure;
                let (token, expires, identity) = match token {
                    Some(t) => (t.clone(), false, Identity::BlockToken),
                    None => (self.aws.eks_token(name).await?, true, Identity::EksToken),
                };
                config.auth_info.token = Some(token.into());
                Ok(Made {
                    config,
                    expires,
                    identity,
                })
            }
            Access::Eks => {
                let (endpoint, ca_b64) = self.endpoint(name).await?;
                // EKS returns the CA bundle as base64 of PEM.
                let ca_pem = base64::engine::general_purpose::STANDARD
                    .decode(ca_b64.trim())
                    .ok()
                    .and_then(|b| String::from_utf8(b).ok())
                    .ok_or_else(|| {
                        KubeError::Config(format!("cluster {name}: certificateAuthority.data is not base64 PEM"))
                    })?;
                let mut config = base_config(&endpoint, Some(&ca_pem))?;
                config.auth_info.token = Some(self.aws.eks_token(name).await?.into());
                Ok(Made {
                    config,
                    expires: true,
                    identity: Identity::EksToken,
                })
            }
        }
    }

    async fn endpoint(&self, name: &str) -> Result<(String, String), KubeError> {
        let facts = self.aws.cluster(name).await?;
        let endpoint = facts
            .endpoint
            .ok_or_else(|| KubeError::Config(format!("cluster {name} has no API endpoint yet")))?;
        Ok((endpoint, facts.certificate_authority.unwrap_or_default()))
    }
}

fn base_config(host: &str, ca_pem: Option<&str>) -> Result<kube::Config, KubeError> {
    let uri = host
        .parse()
        .map_err(|e| KubeError::Config(format!("host {host:?}: {e}")))?;
    let mut config = kube::Config::new(uri);
    if let Some(pem) = ca_pem {
        let ders: Vec<Vec<u8>> = CertificateDer::pem_slice_iter(pem.as_bytes())
            .filter_map(Result::ok)
            .map(|c| c.as_ref().to_vec())
            .collect();
        if ders.is_empty() {
            return Err(KubeError::Config(
                "cluster CA certificate holds no PEM certificate".into(),
            ));
        }
        config.root_cert = Some(ders);
    }
    config.connect_timeout = Some(Duration::from_secs(10));
    config.read_timeout = Some(Duration::from_secs(60));
    Ok(config)
}
