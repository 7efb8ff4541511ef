//! Upstream mode: the emulator keeps serving core `v1` (Namespace, ConfigMap),
//! `/version`, its control endpoint (faults, request log) and auth, and
//! forwards every request for a custom group to a real API server, unchanged
//! (method, path, query, content type, body), answering with the real server's
//! status, body and warnings. The provider under test then talks to one
//! endpoint while the real server judges every custom object: its schema
//! validation, CEL rules, defaulting, server-side apply and field ownership.
//!
//! The real server is a CRD-only `apiextensions-apiserver`
//! (`scripts/real-apiserver/`), which serves no core kinds and no root
//! `/apis`; the emulator fills both gaps.

use std::sync::Arc;

use base64::Engine;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Method, Request, Response};
use hyper_util::rt::TokioIo;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use serde_json::{Value, json};

/// A real API server, reached with the client certificate of a kubeconfig.
pub struct Upstream {
    /// `127.0.0.1:PORT`.
    authority: String,
    server_name: ServerName<'static>,
    tls: tokio_rustls::TlsConnector,
}

/// A CRD the real server serves: where its objects live.
pub struct Served {
    pub group: String,
    pub version: String,
    pub plural: String,
}

type Resp = Response<Full<Bytes>>;

impl Upstream {
    /// From a kubeconfig whose current cluster has `server` and
    /// `certificate-authority-data` and whose user has client certificate data
    /// (what `scripts/real-apiserver/start` writes).
    pub fn from_kubeconfig(path: &str) -> Result<Upstream, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        let kc: Value = serde_saphyr::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
        let data = |v: &Value, what: &str| -> Result<Vec<u8>, String> {
            base64::engine::general_purpose::STANDARD
                .decode(v[what].as_str().ok_or(format!("{path}: no {what}"))?)
                .map_err(|e| format!("{path}: {what}: {e}"))
        };
        let cluster = &kc["clusters"][0]["cluster"];
        let user = &kc["users"][0]["user"];
        let server = cluster["server"].as_str().ok_or(format!("{path}: no server"))?;
        let authority = server
            .strip_prefix("https://")
            .ok_or(format!("{path}: server {server} is not https"))?
            .trim_end_matches('/')
            .to_owned();
        let host = authority.rsplit_once(':').map_or(authority.as_str(), |(h, _)| h);
        let server_name = ServerName::try_from(host.to_owned()).map_err(|e| e.to_string())?;

        let mut roots = rustls::RootCertStore::empty();
        for c in CertificateDer::pem_slice_iter(&data(cluster, "certificate-authority-data")?) {
            roots.add(c.map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
        }
        let certs = CertificateDer::pem_slice_iter(&data(user, "client-certificate-data")?)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        let key = PrivateKeyDer::from_pem_slice(&data(user, "client-key-data")?).map_err(|e| e.to_string())?;
        let config =
            rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::aws_lc_rs::default_provider()))
                .with_safe_default_protocol_versions()
                .map_err(|e| e.to_string())?
                .with_root_certificates(roots)
                .with_client_auth_cert(certs, key)
                .map_err(|e| e.to_string())?;
        Ok(Upstream {
            authority,
            server_name,
            tls: tokio_rustls::TlsConnector::from(Arc::new(config)),
        })
    }

    /// One request to the real server, on a connection of its own (loopback:
    /// cheap, and no pool to go stale between tests).
    pub async fn send(
        &self,
        method: &Method,
        path_and_query: &str,
        content_type: &str,
        body: Bytes,
    ) -> Result<Resp, String> {
        let tcp = tokio::net::TcpStream::connect(&self.authority)
            .await
            .map_err(|e| format!("upstream {}: {e}", self.authority))?;
        let tls = self
            .tls
            .connect(self.server_name.clone(), tcp)
            .await
            .map_err(|e| format!("upstream TLS: {e}"))?;
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(conn);
        let mut req = Request::builder()
            .method(method)
            .uri(path_and_query)
            .header(hyper::header::HOST, &self.authority)
            .header(hyper::header::ACCEPT, "application/json");
        if !content_type.is_empty() {
            req = req.header(hyper::header::CONTENT_TYPE, content_type);
        }
        let req = req.body(Full::new(body)).map_err(|e| e.to_string())?;
        let resp = sender.send_request(req).await.map_err(|e| e.to_string())?;
        let (parts, body) = resp.into_parts();
        let body = body.collect().await.map_err(|e| e.to_string())?.to_bytes();
        let mut out = Response::new(Full::new(body));
        *out.status_mut() = parts.status;
        // Content type and the server's warnings (e.g. unknown fields on POST).
        for (name, value) in &parts.headers {
            if name == hyper::header::CONTENT_TYPE || name == "warning" {
                out.headers_mut().append(name.clone(), value.clone());
            }
        }
        Ok(out)
    }

    async fn get_json(&self, path: &str) -> Result<Value, String> {
        let resp = self.send(&Method::GET, path, "", Bytes::new()).await?;
        let code = resp.status();
        let body = resp.into_body().collect().await.map_err(|e| e.to_string())?.to_bytes();
        if !code.is_success() {
            return Err(format!("GET {path}: {code}: {}", String::from_utf8_lossy(&body)));
        }
        serde_json::from_slice(&body).map_err(|e| format!("GET {path}: {e}"))
    }

    /// The objects of a custom kind, in all namespaces (the KEDA simulation's reads).
    pub async fn list(&self, group: &str, plural: &str) -> Result<Vec<Value>, String> {
        let Some(kind) = self
            .served()
            .await?
            .into_iter()
            .find(|x| x.group == group && x.plural == plural)
        else {
            return Ok(Vec::new());
        };
        let list = self
            .get_json(&format!("/apis/{}/{}/{}", kind.group, kind.version, kind.plural))
            .await?;
        Ok(list["items"].as_array().cloned().unwrap_or_default())
    }

    /// The CRDs the real server serves (their storage version).
    pub async fn served(&self) -> Result<Vec<Served>, String> {
        let crds = self
            .get_json("/apis/apiextensions.k8s.io/v1/customresourcedefinitions")
            .await?;
        Ok(crds["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|crd| {
                let spec = &crd["spec"];
                let version = spec["versions"].as_array()?.iter().find(|v| v["storage"] == true)?;
                Some(Served {
                    group: spec["group"].as_str()?.to_owned(),
                    version: version["name"].as_str()?.to_owned(),
                    plural: spec["names"]["plural"].as_str()?.to_owned(),
                })
            })
            .collect())
    }

    /// The root `/apis` list the real server lacks: one group per CRD group.
    pub async fn group_list(&self) -> Result<Value, String> {
        let mut gvs: Vec<(String, String)> = self.served().await?.into_iter().map(|s| (s.group, s.version)).collect();
        gvs.sort();
        gvs.dedup();
        let groups: Vec<Value> = gvs
            .iter()
            .map(|(g, v)| {
                let gv = json!({"groupVersion": format!("{g}/{v}"), "version": v});
                json!({"name": g, "versions": [gv.clone()], "preferredVersion": gv})
            })
            .collect();
        Ok(json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}))
    }

    /// The real server's path of the custom object a control request names
    /// (`group`, `plural`, `namespace`, `name`).
    async fn object_path(&self, p: &Value) -> Result<String, String> {
        let s = |k: &str| p[k].as_str().unwrap_or_default();
        let Some(kind) = self
            .served()
            .await?
            .into_iter()
            .find(|x| x.group == s("group") && x.plural == s("plural"))
        else {
            return Err(format!("{}.{} is not served", s("plural"), s("group")));
        };
        let ns = p["namespace"]
            .as_str()
            .map(|n| format!("namespaces/{n}/"))
            .unwrap_or_default();
        Ok(format!(
            "/apis/{}/{}/{ns}{}/{}",
            kind.group,
            kind.version,
            kind.plural,
            s("name")
        ))
    }

    /// The control endpoint's out-of-band edit (`group`, `plural`, `namespace`,
    /// `name`, `patch`, `manager`) of a custom object, made on the real server
    /// as a merge patch.
    pub async fn edit(&self, p: &Value) -> Result<Resp, String> {
        let manager = p["manager"].as_str().unwrap_or("kubectl-edit");
        let path = format!("{}?fieldManager={manager}", self.object_path(p).await?);
        let body = Bytes::from(p["patch"].to_string());
        self.send(&Method::PATCH, &path, "application/merge-patch+json", body)
            .await
    }

    /// The control endpoint's status write (`group`, `plural`, `namespace`,
    /// `name`, `status`), made on the real server through the status subresource.
    pub async fn set_status(&self, p: &Value) -> Result<Resp, String> {
        let path = format!(
            "{}/status?fieldManager=eksgpu-test-controller",
            self.object_path(p).await?
        );
        let body = Bytes::from(json!({"status": p["status"]}).to_string());
        self.send(&Method::PATCH, &path, "application/merge-patch+json", body)
            .await
    }

    /// Deletes every custom object, so each emulator starts from an empty
    /// cluster as it does without upstream (tests share one real server, and
    /// run one at a time in this mode).
    pub async fn wipe(&self) -> Result<(), String> {
        for s in self.served().await? {
            let base = format!("/apis/{}/{}", s.group, s.version);
            let list = self.get_json(&format!("{base}/{}", s.plural)).await?;
            for item in list["items"].as_array().into_iter().flatten() {
                let name = item["metadata"]["name"].as_str().unwrap_or_default();
                let path = match item["metadata"]["namespace"].as_str() {
                    Some(ns) => format!("{base}/namespaces/{ns}/{}/{name}", s.plural),
                    None => format!("{base}/{}/{name}", s.plural),
                };
                let resp = self.send(&Method::DELETE, &path, "", Bytes::new()).await?;
                if !resp.status().is_success() && resp.status() != hyper::StatusCode::NOT_FOUND {
                    return Err(format!("DELETE {path}: {}", resp.status()));
                }
            }
        }
        Ok(())
    }
}
