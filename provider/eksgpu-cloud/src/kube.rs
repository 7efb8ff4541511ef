//! In-cluster objects through the Kubernetes API: server-side apply, get,
//! delete and list of the kinds the provider renders, addressed without
//! discovery, behind the small [`Cluster`] trait.

mod access;
mod client;
pub mod exec;

pub use access::{Access, ClientCertificate, Clusters, Identity, StaticCredentials};
pub use client::KubeCluster;
pub use exec::{ExecConfig, ExecError};

use async_trait::async_trait;
use eksgpu_core::kinds::Kind;
use serde_json::Value;

/// How to apply: the field manager, and whether to take over fields other managers own.
#[derive(Debug, Clone, Copy)]
pub struct ApplyOptions<'a> {
    pub field_manager: &'a str,
    pub force: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum KubeError {
    /// The kind's CRD is missing: Karpenter (or Auto Mode) is not installed.
    #[error("the cluster does not serve {kind} ({api_version}); install {provided_by}")]
    KindNotInstalled {
        kind: &'static str,
        api_version: String,
        provided_by: &'static str,
    },
    /// Another field manager owns a field with a different value.
    #[error("conflict with another field manager: {message}")]
    Conflict { message: String },
    /// The object failed the server's validation.
    #[error("the API server rejected the object: {message}")]
    Invalid { message: String },
    /// 401 (credentials not accepted) or 403 (accepted, not allowed).
    #[error("the API server of cluster {cluster} at {host} {} {identity} ({code}: {message})",
        if *.code == 401 { "did not accept" } else { "denied access to" })]
    Unauthorized {
        code: u16,
        message: String,
        cluster: String,
        host: String,
        /// Who the provider presented itself as, in words (never the token).
        identity: String,
    },
    #[error("the API server answered {code}: {message}")]
    Api { code: u16, message: String },
    /// No HTTP answer from the API server.
    #[error("cannot reach the API server of cluster {cluster} at {host}: {cause}")]
    Unreachable {
        cluster: String,
        host: String,
        cause: crate::net::Unreachable,
    },
    /// Terraform asked the provider to stop (Ctrl-C, `StopProvider`) before the call finished.
    #[error("Terraform asked the provider to stop while {what}")]
    Cancelled { what: String },
    /// Any other failure of the exchange (an answer that is not the API's, say).
    #[error("the exchange with the API server failed: {0}")]
    Transport(String),
    /// A name or namespace that is not a Kubernetes name: refused before any
    /// request is built, so it can never address another object.
    #[error("refusing to address {kind} {name:?}: {reason}")]
    InvalidName {
        kind: &'static str,
        name: String,
        reason: String,
    },
    #[error("invalid cluster access settings: {0}")]
    Config(String),
    /// `kubernetes.exec` failed or printed no usable credential.
    #[error(transparent)]
    Exec(#[from] ExecError),
    #[error(transparent)]
    Aws(#[from] crate::AwsError),
}

/// One cluster's API, as the resources use it.
#[async_trait]
pub trait Cluster: Send + Sync {
    /// Server-side apply; creates the object when missing. Returns the live object.
    async fn apply(
        &self,
        kind: &Kind,
        namespace: Option<&str>,
        name: &str,
        body: &Value,
        opts: ApplyOptions<'_>,
    ) -> Result<Value, KubeError>;

    /// The live object, or `None` when it does not exist.
    async fn get(&self, kind: &Kind, namespace: Option<&str>, name: &str) -> Result<Option<Value>, KubeError>;

    /// Deletes; `Ok(false)` when it was already gone.
    async fn delete(&self, kind: &Kind, namespace: Option<&str>, name: &str) -> Result<bool, KubeError>;

    /// Objects of a kind (all namespaces) matching a label selector such as `a=b,c=d`.
    async fn list(&self, kind: &Kind, label_selector: &str) -> Result<Vec<Value>, KubeError>;

    /// Objects of a namespaced kind in one namespace matching a field selector such as
    /// `involvedObject.kind=NodePool,involvedObject.name=gpu` (what events are found by).
    async fn list_by_fields(&self, kind: &Kind, namespace: &str, field_selector: &str)
    -> Result<Vec<Value>, KubeError>;

    /// The API server's Kubernetes version as `MAJOR.MINOR`.
    async fn server_version(&self) -> Result<String, KubeError>;
}
