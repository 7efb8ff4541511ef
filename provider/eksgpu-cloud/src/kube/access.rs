//! Reaching each cluster's API: by default endpoint and CA from EKS
//! `DescribeCluster` and an EKS IAM token (as `aws eks get-token` makes), or
//! what the provider's `kubernetes` block says. One connection per cluster
//! for the provider process, renewed before its token expires.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use base64::Engine;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use tokio::sync::Mutex;

use super::exec::{self, ExecConfig, ExecCredential};
use super::{Cluster, KubeCluster, KubeError};
use crate::AwsClients;

/// EKS tokens live 15 minutes; renew well before.
const TOKEN_REUSE: Duration = Duration::from_secs(10 * 60);
/// An exec credential is renewed this long before its `expirationTimestamp`,
/// so a call started just before it is not refused.
const EXEC_MARGIN: Duration = Duration::from_secs(30);

/// When to renew a credential that expires at `expires`.
fn renewal(expires: SystemTime) -> Instant {
    let left = expires
        .duration_since(SystemTime::now())
        .unwrap_or_default()
        .saturating_sub(EXEC_MARGIN);
    Instant::now() + left
}

/// How the provider reaches cluster APIs.
#[derive(Clone, Default)]
pub enum Access {
    /// `DescribeCluster` plus an EKS IAM token (the default).
    #[default]
    Eks,
    /// A fixed API server and the `kubernetes` block's credentials.
    Static {
        host: String,
        ca_pem: Option<String>,
        insecure: bool,
        credentials: StaticCredentials,
    },
    /// A kubeconfig file and context.
    Kubeconfig { path: String, context: Option<String> },
}

/// The credentials of a `kubernetes` block with `host`: a bearer token, or what
/// `exec` prints, and/or a client certificate; with none of them, an EKS IAM
/// token for the cluster name.
#[derive(Clone, Default)]
pub struct StaticCredentials {
    pub token: Option<String>,
    pub exec: Option<ExecConfig>,
    pub client_certificate: Option<ClientCertificate>,
}

/// `client_certificate` and `client_key` (PEM), as hashicorp/kubernetes spells them.
#[derive(Clone)]
pub struct ClientCertificate {
    pub certificate_pem: String,
    pub key_pem: String,
}

impl std::fmt::Debug for Access {
    // Tokens and keys never reach a log line.
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
    /// What `kubernetes.exec`'s command printed.
    Exec { command: String },
    /// `kubernetes.client_certificate` of the provider block.
    ClientCertificate,
    /// What a kubeconfig context says.
    Kubeconfig { path: String, context: Option<String> },
}

impl std::fmt::Display for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::BlockToken => f.write_str("the token from the provider's kubernetes block"),
            Self::EksToken => f.write_str("the EKS IAM token made from the provider's AWS credentials"),
            Self::Exec { command } => write!(f, "the credential the kubernetes.exec command {command:?} printed"),
            Self::ClientCertificate => f.write_str("the client certificate from the provider's kubernetes block"),
            Self::Kubeconfig { path, context: Some(c) } => write!(f, "the credentials of context {c:?} in {path}"),
            Self::Kubeconfig { path, context: None } => write!(f, "the credentials of the current context in {path}"),
        }
    }
}

/// What a connection was made with: its config, until when its credential holds, who it presents.
struct Made {
    config: kube::Config,
    /// `None`: for the provider process.
    renew_at: Option<Instant>,
    identity: Identity,
}

struct Entry {
    cluster: Arc<dyn Cluster>,
    renew_at: Option<Instant>,
}

/// The DaemonSets listed once (or why they were not).
type Look = Result<Arc<Vec<serde_json::Value>>, String>;

/// Connections to clusters by name, made on first use.
pub struct Clusters {
    access: Access,
    aws: Arc<AwsClients>,
    cache: Mutex<HashMap<String, Entry>>,
    /// What [`Clusters::daemon_sets_once`] found per cluster in this process (or why not).
    looks: Mutex<HashMap<String, Look>>,
    /// What `kubernetes.exec` printed last: one credential for every cluster, until it expires.
    exec: Mutex<Option<ExecCredential>>,
}

impl Clusters {
    pub fn new(access: Access, aws: Arc<AwsClients>) -> Self {
        Self {
            access,
            aws,
            cache: Mutex::new(HashMap::new()),
            looks: Mutex::new(HashMap::new()),
            exec: Mutex::new(None),
        }
    }

    /// The API of cluster `name`.
    pub async fn get(&self, name: &str) -> Result<Arc<dyn Cluster>, KubeError> {
        self.connect(name, true).await
    }

    /// The cluster's DaemonSets in every namespace, for a look at plan that nothing depends on
    /// (the device managers beside a strategy's pools): each step tried once (DescribeCluster
    /// without the SDK's retries), all within `deadline`, once per cluster per provider process
    /// (a failure too, so the strategies of one cluster wait at most once). `Err` says why not, for
    /// a log line: unreachable, refused (RBAC: `list` on `apps/v1` `daemonsets`), not served.
    pub async fn daemon_sets_once(
        &self,
        name: &str,
        deadline: Duration,
    ) -> Result<Arc<Vec<serde_json::Value>>, String> {
        let mut looks = self.looks.lock().await;
        if let Some(r) = looks.get(name) {
            return r.clone();
        }
        let look = async {
            let cluster = self.connect(name, false).await?;
            cluster.list(&eksgpu_core::kinds::DAEMON_SET, "").await
        };
        let found = match tokio::time::timeout(deadline, look).await {
            Ok(Ok(list)) => Ok(Arc::new(list)),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!("no answer within {} s", deadline.as_secs_f64())),
        };
        looks.insert(name.to_owned(), found.clone());
        found
    }

    /// The API of cluster `name`; `retry`: DescribeCluster with the SDK's retries.
    async fn connect(&self, name: &str, retry: bool) -> Result<Arc<dyn Cluster>, KubeError> {
        let mut cache = self.cache.lock().await;
        if let Some(e) = cache.get(name)
            && e.renew_at.is_none_or(|t| Instant::now() < t)
        {
            return Ok(e.cluster.clone());
        }
        let Made {
            config,
            renew_at,
            identity,
        } = self.config(name, retry).await?;
        let host = config.cluster_url.to_string().trim_end_matches('/').to_owned();
        let client = kube::Client::try_from(config).map_err(|e| KubeError::Config(e.to_string()))?;
        // The AWS clients name the identity behind a refused EKS token.
        let aws = (identity == Identity::EksToken).then(|| self.aws.clone());
        let cluster: Arc<dyn Cluster> = Arc::new(KubeCluster::new(client).named(name, host, identity, aws));
        cache.insert(
            name.to_owned(),
            Entry {
                cluster: cluster.clone(),
                renew_at,
            },
        );
        Ok(cluster)
    }

    async fn config(&self, name: &str, retry: bool) -> Result<Made, KubeError> {
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
                    renew_at: None,
                    identity,
                })
            }
            Access::Static {
                host,
                ca_pem,
                insecure,
                credentials,
            } => {
                let mut config = base_config(host, ca_pem.as_deref())?;
                config.accept_invalid_certs = *insecure;
                let (renew_at, identity) = self.static_credentials(name, credentials, &mut config).await?;
                Ok(Made {
                    config,
                    renew_at,
                    identity,
                })
            }
            Access::Eks => {
                let (endpoint, ca_b64) = self.endpoint(name, retry).await?;
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
                    renew_at: Some(Instant::now() + TOKEN_REUSE),
                    identity: Identity::EksToken,
                })
            }
        }
    }

    /// Puts the block's credentials into `config`: its token, else what `exec`
    /// prints (its certificate wins over the block's, as in client-go), its
    /// client certificate; with none of them, an EKS IAM token.
    async fn static_credentials(
        &self,
        name: &str,
        credentials: &StaticCredentials,
        config: &mut kube::Config,
    ) -> Result<(Option<Instant>, Identity), KubeError> {
        let mut certificate = credentials
            .client_certificate
            .as_ref()
            .map(|c| (c.certificate_pem.clone(), c.key_pem.clone()));
        let mut identity = certificate.as_ref().map(|_| Identity::ClientCertificate);
        let mut renew_at = None;
        if let Some(t) = &credentials.token {
            config.auth_info.token = Some(t.clone().into());
            identity = Some(Identity::BlockToken);
        } else if let Some(exec) = &credentials.exec {
            let c = self.exec_credential(exec).await?;
            renew_at = c.expires.map(renewal);
            if let Some(t) = c.token {
                config.auth_info.token = Some(t.into());
            }
            if let (Some(cert), Some(key)) = (c.client_certificate_pem, c.client_key_pem) {
                certificate = Some((cert, key));
            }
            identity = Some(Identity::Exec {
                command: exec.command.clone(),
            });
        }
        if let Some((cert, key)) = certificate {
            // kube-rs reads a client identity as base64 of PEM (a kubeconfig's `client-*-data`).
            let b64 = base64::engine::general_purpose::STANDARD;
            config.auth_info.client_certificate_data = Some(b64.encode(cert));
            config.auth_info.client_key_data = Some(b64.encode(key).into());
        }
        match identity {
            Some(identity) => Ok((renew_at, identity)),
            None => {
                config.auth_info.token = Some(self.aws.eks_token(name).await?.into());
                Ok((Some(Instant::now() + TOKEN_REUSE), Identity::EksToken))
            }
        }
    }

    /// The exec credential: the one printed last while it holds, else the command's new one.
    async fn exec_credential(&self, exec: &ExecConfig) -> Result<ExecCredential, KubeError> {
        let mut cached = self.exec.lock().await;
        if let Some(c) = cached.as_ref()
            && c.expires.is_none_or(|e| SystemTime::now() + EXEC_MARGIN < e)
        {
            return Ok(c.clone());
        }
        let fresh = exec::run(exec).await?;
        tracing::debug!(command = %exec.command, expires = ?fresh.expires, "kubernetes.exec credential obtained");
        *cached = Some(fresh.clone());
        Ok(fresh)
    }

    async fn endpoint(&self, name: &str, retry: bool) -> Result<(String, String), KubeError> {
        let facts = if retry {
            self.aws.cluster(name).await?
        } else {
            self.aws.cluster_once(name).await?
        };
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

#[cfg(test)]
mod tests;
