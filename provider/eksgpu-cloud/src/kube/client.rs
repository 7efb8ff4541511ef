//! [`Cluster`] over kube-rs with dynamic objects: every kind is addressed by
//! its known group, version and plural, so no discovery call is ever made.

use async_trait::async_trait;
use eksgpu_core::kinds::{self, Kind};
use eksgpu_core::validate;
use kube::api::{Api, ApiResource, DeleteParams, DynamicObject, ListParams, Patch, PatchParams};
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;

use std::sync::Arc;

use super::{ApplyOptions, Cluster, Identity, KubeError};
use crate::{AwsClients, net};

pub struct KubeCluster {
    client: kube::Client,
    /// The cluster's name and API server URL, for messages.
    cluster: String,
    host: String,
    identity: Identity,
    /// Names the AWS identity behind a refused EKS token.
    aws: Option<Arc<AwsClients>>,
}

impl KubeCluster {
    pub fn new(client: kube::Client) -> Self {
        Self {
            client,
            cluster: "(unnamed)".into(),
            host: "(unknown host)".into(),
            identity: Identity::BlockToken,
            aws: None,
        }
    }

    /// Names the server and who the provider presents itself as, for messages.
    pub fn named(self, cluster: &str, host: String, identity: Identity, aws: Option<Arc<AwsClients>>) -> Self {
        Self {
            cluster: cluster.to_owned(),
            host,
            identity,
            aws,
            ..self
        }
    }

    /// `e` as users should read it: API answers by status, transport failures by cause.
    async fn fail(&self, kind: Option<&Kind>, e: kube::Error) -> KubeError {
        let err = self.error(kind, e);
        match err {
            KubeError::Unauthorized { code, message, .. } => KubeError::Unauthorized {
                code,
                message,
                cluster: self.cluster.clone(),
                host: self.host.clone(),
                identity: self.identity_text().await,
            },
            other => other,
        }
    }

    /// The identity in words; for an EKS token, with the ARN STS names when it answers.
    async fn identity_text(&self) -> String {
        match (&self.identity, &self.aws) {
            (Identity::EksToken, Some(aws)) => match aws.caller_arn().await {
                Ok(arn) => format!("{} ({arn})", self.identity),
                Err(e) => format!("{} (whose ARN is unknown: {e})", self.identity),
            },
            _ => self.identity.to_string(),
        }
    }

    /// Maps API errors to what users can act on. A 404 without an object name in
    /// its details means the resource type itself is not served (no CRD).
    fn error(&self, kind: Option<&Kind>, e: kube::Error) -> KubeError {
        match e {
            kube::Error::Api(status) => {
                let code = status.code;
                let message = status.message.clone();
                let names_object = status.details.as_ref().is_some_and(|d| !d.name.is_empty());
                match (code, kind) {
                    (404, Some(kind)) if !names_object => KubeError::KindNotInstalled {
                        kind: kind.kind,
                        api_version: kind.api_version(),
                        provided_by: kind.provided_by,
                    },
                    (409, _) => KubeError::Conflict { message },
                    (422, _) => {
                        let causes: Vec<String> = status
                            .details
                            .iter()
                            .flat_map(|d| d.causes.iter())
                            .map(|c| format!("{}: {}", c.field, c.message))
                            .collect();
                        let message = if causes.is_empty() {
                            message
                        } else {
                            format!("{message} ({})", causes.join("; "))
                        };
                        KubeError::Invalid { message }
                    }
                    (401 | 403, _) => KubeError::Unauthorized {
                        code,
                        message,
                        cluster: self.cluster.clone(),
                        host: self.host.clone(),
                        identity: self.identity.to_string(),
                    },
                    _ => KubeError::Api { code, message },
                }
            }
            other => match net::classify(&other) {
                Some(cause) => KubeError::Unreachable {
                    cluster: self.cluster.clone(),
                    host: self.host.clone(),
                    cause,
                },
                None => KubeError::Transport(net::chain_text(&other)),
            },
        }
    }

    /// The API of one object and its name as a path segment. kube-rs pastes
    /// names and namespaces into the request path as they are, so a name such
    /// as `../../namespaces/kube-system/configmaps/x` or `a?dryRun=All` would
    /// address another object or change the request: names are checked to be
    /// Kubernetes names first, and encoded anyway.
    fn object_api(
        &self,
        kind: &Kind,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<(Api<DynamicObject>, String), KubeError> {
        let (namespace, name) = object_path(kind, namespace, name)?;
        Ok((self.api(kind, namespace.as_deref()), name))
    }

    /// The API of a kind, in one namespace (already a checked path segment) or all.
    fn api(&self, kind: &Kind, namespace: Option<&str>) -> Api<DynamicObject> {
        let resource = ApiResource {
            group: kind.group.to_owned(),
            version: kind.version.to_owned(),
            api_version: kind.api_version(),
            kind: kind.kind.to_owned(),
            plural: kind.plural.to_owned(),
        };
        match namespace {
            Some(ns) if kind.namespaced => Api::namespaced_with(self.client.clone(), ns, &resource),
            _ => Api::all_with(self.client.clone(), &resource),
        }
    }
}

/// Unreserved characters of RFC 3986 stay; everything else is percent-encoded.
const PATH_SEGMENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// `s` as one path segment: percent-encoded, so it cannot add segments, a query or a fragment.
fn path_segment(s: &str) -> String {
    utf8_percent_encode(s, PATH_SEGMENT).to_string()
}

/// The checked and encoded namespace (for namespaced kinds) and name of one object.
fn object_path(kind: &Kind, namespace: Option<&str>, name: &str) -> Result<(Option<String>, String), KubeError> {
    let invalid = |what: &str, value: &str, e: validate::ValidationError| KubeError::InvalidName {
        kind: kind.kind,
        name: value.to_owned(),
        reason: format!("{what}: {e}"),
    };
    // Namespaces are RFC 1123 labels; other objects RFC 1123 subdomains (the
    // API server's rule for ConfigMaps and custom resources alike).
    let checked = if *kind == kinds::NAMESPACE {
        validate::namespace_name(name)
    } else {
        validate::dns1123_subdomain(name)
    };
    checked.map_err(|e| invalid("the name", name, e))?;
    let namespace = match (kind.namespaced, namespace) {
        (true, Some(ns)) => {
            validate::namespace_name(ns).map_err(|e| invalid("the namespace", ns, e))?;
            Some(path_segment(ns))
        }
        (true, None) => {
            return Err(KubeError::InvalidName {
                kind: kind.kind,
                name: name.to_owned(),
                reason: "a namespaced object needs a namespace".into(),
            });
        }
        // A cluster-scoped kind has no namespace in its path.
        (false, _) => None,
    };
    Ok((namespace, path_segment(name)))
}

fn is_not_found(e: &kube::Error) -> bool {
    matches!(e, kube::Error::Api(s) if s.code == 404 && s.details.as_ref().is_some_and(|d| !d.name.is_empty()))
}

fn to_value(o: DynamicObject) -> Value {
    serde_json::to_value(o).unwrap_or(Value::Null)
}

#[async_trait]
impl Cluster for KubeCluster {
    async fn apply(
        &self,
        kind: &Kind,
        namespace: Option<&str>,
        name: &str,
        body: &Value,
        opts: ApplyOptions<'_>,
    ) -> Result<Value, KubeError> {
        let mut params = PatchParams::apply(opts.field_manager);
        params.force = opts.force;
        let (api, segment) = self.object_api(kind, namespace, name)?;
        let applied = api.patch(&segment, &params, &Patch::Apply(body)).await;
        let applied = match applied {
            Ok(a) => a,
            Err(e) => return Err(self.fail(Some(kind), e).await),
        };
        tracing::debug!(kind = kind.kind, name, "applied");
        Ok(to_value(applied))
    }

    async fn get(&self, kind: &Kind, namespace: Option<&str>, name: &str) -> Result<Option<Value>, KubeError> {
        let (api, segment) = self.object_api(kind, namespace, name)?;
        match api.get(&segment).await {
            Ok(o) => Ok(Some(to_value(o))),
            Err(e) if is_not_found(&e) => Ok(None),
            Err(e) => Err(self.fail(Some(kind), e).await),
        }
    }

    async fn delete(&self, kind: &Kind, namespace: Option<&str>, name: &str) -> Result<bool, KubeError> {
        let (api, segment) = self.object_api(kind, namespace, name)?;
        match api.delete(&segment, &DeleteParams::background()).await {
            Ok(_) => Ok(true),
            // Gone already, or its kind is gone with it: nothing left to delete.
            Err(e) if is_not_found(&e) => Ok(false),
            Err(e) => match self.fail(Some(kind), e).await {
                KubeError::KindNotInstalled { .. } => Ok(false),
                other => Err(other),
            },
        }
    }

    async fn list(&self, kind: &Kind, label_selector: &str) -> Result<Vec<Value>, KubeError> {
        let list = self
            .api(kind, None)
            .list(&ListParams::default().labels(label_selector))
            .await;
        match list {
            Ok(list) => Ok(list.items.into_iter().map(to_value).collect()),
            Err(e) => Err(self.fail(Some(kind), e).await),
        }
    }

    async fn list_by_fields(
        &self,
        kind: &Kind,
        namespace: &str,
        field_selector: &str,
    ) -> Result<Vec<Value>, KubeError> {
        validate::namespace_name(namespace).map_err(|e| KubeError::InvalidName {
            kind: kind.kind,
            name: namespace.to_owned(),
            reason: format!("the namespace: {e}"),
        })?;
        let list = self
            .api(kind, Some(&path_segment(namespace)))
            .list(&ListParams::default().fields(field_selector))
            .await;
        match list {
            Ok(list) => Ok(list.items.into_iter().map(to_value).collect()),
            Err(e) => Err(self.fail(Some(kind), e).await),
        }
    }

    async fn server_version(&self) -> Result<String, KubeError> {
        let info = match self.client.apiserver_version().await {
            Ok(info) => info,
            Err(e) => return Err(self.fail(None, e).await),
        };
        // EKS reports minors like "33+": keep the digits.
        let minor: String = info.minor.chars().take_while(char::is_ascii_digit).collect();
        Ok(format!("{}.{minor}", info.major))
    }
}

#[cfg(test)]
mod tests;
