//! The HTTP side: the Kubernetes API (optionally over TLS, with bearer-token
//! auth) on one loopback port, and the test control endpoint on another.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::Mutex;

use crate::kinds::{KindInfo, Registry};
use crate::store::{ApiError, Store, not_found};
use crate::upstream::Upstream;

#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Serve the API over TLS with a CA made per start.
    pub tls: bool,
    /// A static bearer token to accept.
    pub token: Option<String>,
    /// Accept EKS IAM tokens (`k8s-aws-v1.` presigned STS URLs) for this cluster.
    pub eks_cluster: Option<String>,
    /// Kinds (`plural.group`) to leave unserved, as if their CRD were missing.
    pub without: Vec<String>,
    /// A kubeconfig of a real API server to forward custom groups to
    /// (upstream mode, see [`crate::upstream`]).
    pub upstream: Option<String>,
    /// CRD files to serve beside the builtin ones (`--crd FILE`).
    pub crds: Vec<String>,
}

#[derive(Debug, Clone)]
struct Fault {
    method: Option<String>,
    path: Option<regex::Regex>,
    status: Option<u16>,
    latency: Duration,
    remaining: u32,
}

struct State {
    store: Store,
    registry: Registry,
    faults: Vec<Fault>,
    requests: Vec<Value>,
    opts: Options,
    upstream: Option<Arc<Upstream>>,
    /// The kinds of `opts.crds`, read once at start.
    extra: Vec<crate::kinds::KindInfo>,
    /// The KEDA simulation runs after every write of a KEDA kind or a Secret (`POST /keda`).
    keda: bool,
    /// The Karpenter simulation (`POST /karpenter`), brought up to date on every API request.
    karpenter: Option<crate::karpenter::Sim>,
}

impl State {
    fn karpenter_step(&mut self) {
        if let Some(sim) = self.karpenter.as_mut() {
            sim.step(&mut self.store, &self.registry, crate::karpenter::now_ms());
        }
    }
}

/// A running emulator.
pub struct Emulator {
    /// The API server URL (`https://127.0.0.1:PORT` with TLS).
    pub url: String,
    /// The control endpoint URL (plain HTTP).
    pub control_url: String,
    /// PEM of the CA that signed the serving certificate, with TLS.
    pub ca_pem: Option<String>,
    /// A client certificate and key (PEM) the API accepts instead of a bearer token, with TLS.
    pub client_pem: Option<(String, String)>,
}

type Resp = Response<Full<Bytes>>;

fn json_response(code: u16, v: &Value) -> Resp {
    let mut r = Response::new(Full::new(Bytes::from(v.to_string())));
    *r.status_mut() = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    r
}

fn status(code: u16, reason: &str, message: &str) -> Resp {
    json_response(
        code,
        &json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message, "reason": reason, "details": {}, "code": code}),
    )
}

impl Emulator {
    pub async fn start(opts: Options) -> std::io::Result<Emulator> {
        let extra = opts
            .crds
            .iter()
            .map(|p| crate::kinds::load_crd(p))
            .collect::<Result<Vec<_>, _>>()
            .map_err(std::io::Error::other)?;
        let mut registry = Registry::with(&extra);
        for w in &opts.without {
            registry.disable(w);
        }
        let upstream = match &opts.upstream {
            Some(path) => {
                let u = Upstream::from_kubeconfig(path).map_err(std::io::Error::other)?;
                u.wipe().await.map_err(std::io::Error::other)?;
                Some(Arc::new(u))
            }
            None => None,
        };
        let state = Arc::new(Mutex::new(State {
            store: Store::default(),
            registry,
            faults: vec![],
            requests: vec![],
            opts: opts.clone(),
            upstream,
            extra,
            keda: false,
            karpenter: None,
        }));
        let api = TcpListener::bind(("127.0.0.1", 0)).await?;
        let control = TcpListener::bind(("127.0.0.1", 0)).await?;
        let api_port = api.local_addr()?.port();
        let control_url = format!("http://127.0.0.1:{}", control.local_addr()?.port());
        let (tls, ca_pem, client_pem) = if opts.tls {
            let (config, ca, client) = tls_config().map_err(std::io::Error::other)?;
            (
                Some(tokio_rustls::TlsAcceptor::from(Arc::new(config))),
                Some(ca),
                Some(client),
            )
        } else {
            (None, None, None)
        };
        let scheme = if tls.is_some() { "https" } else { "http" };
        let s = state.clone();
        tokio::spawn(async move {
            while let Ok((stream, _)) = api.accept().await {
                let (s, tls) = (s.clone(), tls.clone());
                tokio::spawn(async move {
                    let builder = hyper::server::conn::http1::Builder::new();
                    match tls {
                        Some(acceptor) => {
                            if let Ok(stream) = acceptor.accept(stream).await {
                                // The verifier accepts only certificates of this emulator's CA.
                                let client_cert = stream.get_ref().1.peer_certificates().is_some_and(|c| !c.is_empty());
                                let service =
                                    hyper::service::service_fn(move |req| api_handler(s.clone(), req, client_cert));
                                let _ = builder.serve_connection(TokioIo::new(stream), service).await;
                            }
                        }
                        None => {
                            let service = hyper::service::service_fn(move |req| api_handler(s.clone(), req, false));
                            let _ = builder.serve_connection(TokioIo::new(stream), service).await;
                        }
                    }
                });
            }
        });
        tokio::spawn(async move {
            while let Ok((stream, _)) = control.accept().await {
                let s = state.clone();
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |req| control_handler(s.clone(), req));
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Ok(Emulator {
            url: format!("{scheme}://127.0.0.1:{api_port}"),
            control_url,
            ca_pem,
            client_pem,
        })
    }
}

/// A CA made per start, a serving certificate for 127.0.0.1 and localhost, and a client
/// certificate of that CA (as kube-apiserver's `--client-ca-file` accepts, optional: clients
/// without one authenticate with a bearer token).
fn tls_config() -> Result<(rustls::ServerConfig, String, (String, String)), String> {
    let e = |e: rcgen::Error| e.to_string();
    let ca_key = rcgen::KeyPair::generate().map_err(e)?;
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).map_err(e)?;
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "kubernetes");
    ca_params.key_usages = vec![
        rcgen::KeyUsagePurpose::KeyCertSign,
        rcgen::KeyUsagePurpose::DigitalSignature,
    ];
    let ca = ca_params.self_signed(&ca_key).map_err(e)?;
    let issuer = rcgen::Issuer::new(ca_params, ca_key);
    let key = rcgen::KeyPair::generate().map_err(e)?;
    let mut params = rcgen::CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()]).map_err(e)?;
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "kube-apiserver");
    let cert = params.signed_by(&key, &issuer).map_err(e)?;
    let client_key = rcgen::KeyPair::generate().map_err(e)?;
    let mut client_params = rcgen::CertificateParams::new(Vec::<String>::new()).map_err(e)?;
    client_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "eksgpu-test-client");
    client_params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ClientAuth];
    let client = client_params.signed_by(&client_key, &issuer).map_err(e)?;
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut roots = rustls::RootCertStore::empty();
    roots.add(ca.der().clone()).map_err(|e| e.to_string())?;
    let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider.clone())
        .allow_unauthenticated()
        .build()
        .map_err(|e| e.to_string())?;
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_client_cert_verifier(verifier)
        .with_single_cert(
            vec![cert.der().clone()],
            rustls::pki_types::PrivateKeyDer::Pkcs8(rustls::pki_types::PrivatePkcs8KeyDer::from(key.serialize_der())),
        )
        .map_err(|e| e.to_string())?;
    Ok((config, ca.pem(), (client.pem(), client_key.serialize_pem())))
}

async fn body(req: Request<Incoming>) -> Bytes {
    req.into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default()
}

fn query_param<'a>(query: &'a str, name: &str) -> Option<&'a str> {
    query
        .split('&')
        .find_map(|kv| kv.split_once('=').filter(|(k, _)| *k == name).map(|(_, v)| v))
}

fn decode(s: &str) -> String {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' if i + 2 < b.len() => {
                if let Ok(x) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                    out.push(x);
                    i += 3;
                    continue;
                }
                out.push(b'%');
            }
            b'+' => out.push(b' '),
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What bearer token a request carries, and whether it is accepted; without one, a client
/// certificate of the emulator's CA (kube-apiserver tries each authenticator in turn).
fn authenticate(opts: &Options, req: &Request<Incoming>, client_cert: bool) -> Result<&'static str, ()> {
    if opts.token.is_none() && opts.eks_cluster.is_none() {
        return Ok("none");
    }
    let token = req
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.strip_prefix("Bearer "));
    let Some(token) = token else {
        return if client_cert { Ok("client-certificate") } else { Err(()) };
    };
    if opts.token.as_deref() == Some(token) {
        return Ok("static");
    }
    if opts.eks_cluster.is_some() && valid_eks_token(token) {
        return Ok("eks");
    }
    Err(())
}

/// An EKS IAM token: `k8s-aws-v1.` + base64url of a presigned STS
/// `GetCallerIdentity` URL that signs the `x-k8s-aws-id` header and expires
/// within 15 minutes (aws-iam-authenticator's checks, short of calling STS).
pub fn valid_eks_token(token: &str) -> bool {
    let Some(b64) = token.strip_prefix("k8s-aws-v1.") else {
        return false;
    };
    let Ok(url) = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(b64.trim_end_matches('=')) else {
        return false;
    };
    let Ok(url) = String::from_utf8(url) else { return false };
    let Some((_, query)) = url.split_once('?') else {
        return false;
    };
    let q = |n: &str| query_param(query, n).map(decode);
    q("Action").as_deref() == Some("GetCallerIdentity")
        && q("X-Amz-Signature").is_some_and(|s| s.len() == 64)
        && q("X-Amz-SignedHeaders").is_some_and(|h| h.split(';').any(|x| x == "x-k8s-aws-id"))
        && q("X-Amz-Expires")
            .and_then(|e| e.parse::<u32>().ok())
            .is_some_and(|e| e <= 900)
}

/// Where a resource path points.
struct ResourcePath {
    group: String,
    version: String,
    namespace: Option<String>,
    plural: String,
    name: Option<String>,
}

fn parse_path(path: &str) -> Option<ResourcePath> {
    let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
    let (group, version, rest) = match segs.as_slice() {
        ["api", v, rest @ ..] => (String::new(), (*v).to_owned(), rest),
        ["apis", g, v, rest @ ..] => ((*g).to_owned(), (*v).to_owned(), rest),
        _ => return None,
    };
    let (namespace, plural, name) = match rest {
        ["namespaces", ns, plural, name @ ..] if name.len() <= 1 => (Some(*ns), *plural, name.first().copied()),
        [plural] => (None, *plural, None),
        [plural, name] => (None, *plural, Some(*name)),
        _ => return None,
    };
    Some(ResourcePath {
        group,
        version,
        namespace: namespace.map(str::to_owned),
        plural: plural.to_owned(),
        name: name.map(str::to_owned),
    })
}

fn discovery(registry: &Registry, path: &str) -> Option<Value> {
    let resources = |group: &str, version: &str| -> Value {
        let list: Vec<Value> = registry
            .served()
            .filter(|k| k.group == group && k.version == version)
            .map(|k| json!({"name": k.plural, "singularName": k.kind.to_lowercase(), "namespaced": k.namespaced, "kind": k.kind,
                            "verbs": ["create", "delete", "get", "list", "patch", "update"]}))
            .collect();
        let gv = if group.is_empty() {
            version.to_owned()
        } else {
            format!("{group}/{version}")
        };
        json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": list})
    };
    let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
    match segs.as_slice() {
        ["version"] => {
            Some(json!({"major": "1", "minor": "33", "gitVersion": "v1.33.4-eks-emulator", "platform": "linux/amd64"}))
        }
        ["api"] => Some(json!({"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []})),
        ["api", "v1"] => Some(resources("", "v1")),
        ["apis"] => {
            let mut groups: Vec<(String, String)> = registry
                .served()
                .filter(|k| !k.group.is_empty())
                .map(|k| (k.group.clone(), k.version.clone()))
                .collect();
            groups.sort();
            groups.dedup();
            let groups: Vec<Value> = groups
                .iter()
                .map(|(g, v)| {
                    let gv = json!({"groupVersion": format!("{g}/{v}"), "version": v});
                    json!({"name": g, "versions": [gv.clone()], "preferredVersion": gv})
                })
                .collect();
            Some(json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}))
        }
        ["apis", g, v] if registry.served().any(|k| k.group == *g && k.version == *v) => Some(resources(g, v)),
        _ => None,
    }
}

async fn api_handler(state: Arc<Mutex<State>>, req: Request<Incoming>, client_cert: bool) -> Result<Resp, Infallible> {
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let query = req.uri().query().unwrap_or_default().to_owned();
    let content_type = req
        .headers()
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default()
        .to_owned();

    // Faults first, as a flaky network or server would answer.
    let (fault, auth) = {
        let mut st = state.lock().await;
        let auth = authenticate(&st.opts, &req, client_cert);
        st.requests
            .push(json!({"method": method.as_str(), "path": path, "query": query, "auth": auth.unwrap_or("rejected")}));
        let fault = st.faults.iter_mut().find(|f| {
            f.remaining > 0
                && f.method.as_deref().is_none_or(|m| m == method.as_str())
                && f.path.as_ref().is_none_or(|r| r.is_match(&path))
        });
        let fault = fault.map(|f| {
            f.remaining -= 1;
            (f.status, f.latency)
        });
        (fault, auth)
    };
    if let Some((code, latency)) = fault {
        tokio::time::sleep(latency).await;
        if let Some(code) = code {
            return Ok(status(code, "InternalError", "injected fault"));
        }
    }
    if auth.is_err() {
        return Ok(status(401, "Unauthorized", "Unauthorized"));
    }
    let path_and_query = req.uri().path_and_query().map(|p| p.to_string()).unwrap_or_default();
    let payload = body(req).await;
    let mut st = state.lock().await;
    // The real lane's apiextensions-apiserver serves no built-in kinds: `apps/v1` stays here.
    if let Some(upstream) = st.upstream.clone()
        && path.starts_with("/apis")
        && !path.starts_with("/apis/apps/")
    {
        // Kinds a test removed (`without`) stay missing, as their CRD would be.
        if parse_path(&path).is_some_and(|p| st.registry.is_disabled(&p.group, &p.plural)) {
            return Ok(status(
                404,
                "NotFound",
                "the server could not find the requested resource",
            ));
        }
        let keda = st.keda && method != Method::GET && path.starts_with("/apis/keda.sh/");
        drop(st);
        let resp = if path.trim_end_matches('/') == "/apis" {
            upstream.group_list().await.map(|v| json_response(200, &v))
        } else {
            upstream.send(&method, &path_and_query, &content_type, payload).await
        };
        if keda
            && resp.as_ref().is_ok_and(|r| r.status().is_success())
            && let Err(e) = keda_reconcile(&state).await
        {
            eprintln!("kube-emulator: KEDA simulation: {e}");
        }
        return Ok(resp.unwrap_or_else(|e| status(502, "InternalError", &e)));
    }
    st.karpenter_step();
    if method == Method::GET
        && let Some(v) = discovery(&st.registry, &path)
    {
        return Ok(json_response(200, &v));
    }
    let Some(ResourcePath {
        group,
        version,
        namespace: ns,
        plural,
        name,
    }) = parse_path(&path)
    else {
        return Ok(status(
            404,
            "NotFound",
            "the server could not find the requested resource",
        ));
    };
    let Some(kind) = st
        .registry
        .find(&group, &plural)
        .filter(|k| k.version == version)
        .cloned()
    else {
        return Ok(status(
            404,
            "NotFound",
            "the server could not find the requested resource",
        ));
    };
    if kind.namespaced != ns.is_some() && !(kind.namespaced && ns.is_none() && method == Method::GET && name.is_none())
    {
        return Ok(status(
            404,
            "NotFound",
            "the server could not find the requested resource",
        ));
    }
    let ns = ns.as_deref();
    let manager = query_param(&query, "fieldManager").map(decode);
    let result: Result<(u16, Value), ApiError> = match (&method, name.as_deref()) {
        (&Method::GET, Some(n)) => st
            .store
            .get(&kind, ns, n)
            .map(|v| (200, v))
            .ok_or_else(|| not_found(&kind, n)),
        (&Method::GET, None) => {
            let selector = query_param(&query, "labelSelector").map(decode).unwrap_or_default();
            let fields = query_param(&query, "fieldSelector").map(decode).unwrap_or_default();
            crate::selectors::filter(&kind, st.store.list(&kind, ns, &selector), &fields).map(|items| {
                (
                    200,
                    json!({"kind": format!("{}List", kind.kind), "apiVersion": kind.api_version(), "metadata": {"resourceVersion": "1"}, "items": items}),
                )
            })
        }
        (&Method::DELETE, Some(n)) => {
            let now = crate::karpenter::rfc3339(crate::karpenter::now_ms());
            st.store.delete(&kind, ns, n, &now).map(|v| (200, v))
        }
        (&Method::PATCH, Some(n)) if content_type.starts_with("application/apply-patch") => match manager {
            None => Err(ApiError {
                code: 400,
                reason: "BadRequest",
                message: "PATCH with apply requires a fieldManager".into(),
                details: json!({}),
            }),
            Some(m) => match parse_body(&payload) {
                Some(cfg) => {
                    let force = query_param(&query, "force") == Some("true");
                    let dry = query_param(&query, "dryRun") == Some("All");
                    let existed = st.store.get(&kind, ns, n).is_some();
                    st.store
                        .apply(&kind, ns, n, &cfg, &m, force, dry)
                        .map(|v| (if existed { 200 } else { 201 }, v))
                }
                None => Err(ApiError {
                    code: 400,
                    reason: "BadRequest",
                    message: "the body is neither JSON nor YAML".into(),
                    details: json!({}),
                }),
            },
        },
        (&Method::PATCH, Some(n)) if content_type.starts_with("application/merge-patch+json") => {
            match serde_json::from_slice::<Value>(&payload) {
                Ok(p) => st
                    .store
                    .update(&kind, ns, n, &p, manager.as_deref().unwrap_or("unknown"))
                    .map(|v| (200, v)),
                Err(e) => Err(ApiError {
                    code: 400,
                    reason: "BadRequest",
                    message: e.to_string(),
                    details: json!({}),
                }),
            }
        }
        (&Method::POST, None) => match serde_json::from_slice::<Value>(&payload) {
            Ok(b) => st
                .store
                .create(&kind, ns, &b, manager.as_deref().unwrap_or("unknown"))
                .map(|(v, _)| (201, v)),
            Err(e) => Err(ApiError {
                code: 400,
                reason: "BadRequest",
                message: e.to_string(),
                details: json!({}),
            }),
        },
        _ => Err(ApiError {
            code: 405,
            reason: "MethodNotAllowed",
            message: format!("{method} is not supported here"),
            details: json!({}),
        }),
    };
    let keda =
        st.keda && method != Method::GET && result.is_ok() && (kind.group == "keda.sh" || kind.plural == "secrets");
    if method != Method::GET {
        st.karpenter_step();
    }
    drop(st);
    if keda && let Err(e) = keda_reconcile(&state).await {
        eprintln!("kube-emulator: KEDA simulation: {e}");
    }
    Ok(match result {
        Ok((code, v)) => json_response(code, &v),
        Err(e) => json_response(e.code, &e.status()),
    })
}

/// Runs the KEDA simulation over every ScaledObject and writes the status it finds
/// (see [`crate::keda`]); where the custom kinds live depends on the mode.
async fn keda_reconcile(state: &Arc<Mutex<State>>) -> Result<usize, String> {
    let local = |st: &State, group: &str, plural: &str| -> Vec<Value> {
        st.registry
            .find(group, plural)
            .map(|k| st.store.list(k, None, ""))
            .unwrap_or_default()
    };
    let (upstream, mut snapshot, mut objects) = {
        let st = state.lock().await;
        let snapshot = crate::keda::Snapshot {
            trigger_authentications: local(&st, "keda.sh", "triggerauthentications"),
            cluster_trigger_authentications: local(&st, "keda.sh", "clustertriggerauthentications"),
            secrets: local(&st, "", "secrets"),
        };
        (st.upstream.clone(), snapshot, local(&st, "keda.sh", "scaledobjects"))
    };
    if let Some(u) = &upstream {
        snapshot.trigger_authentications = u.list("keda.sh", "triggerauthentications").await?;
        snapshot.cluster_trigger_authentications = u.list("keda.sh", "clustertriggerauthentications").await?;
        objects = u.list("keda.sh", "scaledobjects").await?;
    }
    for so in &objects {
        let status = crate::keda::status_of(&snapshot, so).await;
        let p = json!({"group": "keda.sh", "plural": "scaledobjects", "namespace": so["metadata"]["namespace"],
                       "name": so["metadata"]["name"], "status": status});
        match &upstream {
            Some(u) => {
                u.set_status(&p).await?;
            }
            None => {
                set_status(&mut *state.lock().await, &p);
            }
        }
    }
    Ok(objects.len())
}

/// apply-patch bodies are YAML; JSON is YAML too, and the common case.
fn parse_body(b: &[u8]) -> Option<Value> {
    serde_json::from_slice(b)
        .ok()
        .or_else(|| serde_saphyr::from_str(std::str::from_utf8(b).ok()?).ok())
}

async fn control_handler(state: Arc<Mutex<State>>, req: Request<Incoming>) -> Result<Resp, Infallible> {
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let payload: Value = serde_json::from_slice(&body(req).await).unwrap_or(Value::Null);
    let mut st = state.lock().await;
    let r = match (method, path.as_str()) {
        (Method::POST, "/reset") => {
            if let Some(u) = st.upstream.clone()
                && let Err(e) = u.wipe().await
            {
                return Ok(status(502, "InternalError", &e));
            }
            st.store.clear();
            st.faults.clear();
            st.requests.clear();
            st.registry = Registry::with(&st.extra);
            st.keda = false;
            st.karpenter = None;
            json_response(200, &json!({"status": "ok"}))
        }
        (Method::POST, "/karpenter") => karpenter_control(&mut st, &payload),
        (Method::GET, "/karpenter") => {
            st.karpenter_step();
            let record = st.karpenter.as_ref().map(crate::karpenter::Sim::record);
            json_response(
                200,
                &record.unwrap_or_else(|| json!({"enabled": false, "nodeclaims": []})),
            )
        }
        (Method::POST, "/keda") => {
            st.keda = payload["enabled"].as_bool().unwrap_or(true);
            drop(st);
            return Ok(match keda_reconcile(&state).await {
                Ok(n) => json_response(200, &json!({"status": "ok", "scaledobjects": n})),
                Err(e) => status(502, "InternalError", &e),
            });
        }
        (Method::GET, "/requests") => json_response(200, &Value::Array(st.requests.clone())),
        (Method::DELETE, "/requests") => {
            st.requests.clear();
            json_response(200, &json!({"status": "ok"}))
        }
        (Method::POST, "/faults") => {
            let fault = Fault {
                method: payload["method"].as_str().map(str::to_owned),
                path: payload["path"].as_str().and_then(|p| regex::Regex::new(p).ok()),
                status: payload["status"].as_u64().and_then(|s| u16::try_from(s).ok()),
                latency: Duration::from_millis(payload["latency_ms"].as_u64().unwrap_or(0)),
                remaining: payload["count"]
                    .as_u64()
                    .and_then(|c| u32::try_from(c).ok())
                    .unwrap_or(1),
            };
            st.faults.push(fault);
            json_response(200, &json!({"status": "ok"}))
        }
        (Method::DELETE, "/faults") => {
            st.faults.clear();
            json_response(200, &json!({"status": "ok"}))
        }
        (Method::POST, "/disable") => {
            if let Some(r) = payload["resource"].as_str() {
                st.registry.disable(r);
            }
            json_response(200, &json!({"status": "ok"}))
        }
        (Method::POST, "/edit") => match st.upstream.clone() {
            Some(u) if !payload["group"].as_str().unwrap_or_default().is_empty() => {
                drop(st);
                return Ok(u
                    .edit(&payload)
                    .await
                    .unwrap_or_else(|e| status(502, "InternalError", &e)));
            }
            _ => edit(&mut st, &payload),
        },
        (Method::POST, "/status") => match st.upstream.clone() {
            Some(u) => {
                drop(st);
                return Ok(u
                    .set_status(&payload)
                    .await
                    .unwrap_or_else(|e| status(502, "InternalError", &e)));
            }
            None => set_status(&mut st, &payload),
        },
        _ => status(404, "NotFound", "unknown control endpoint"),
    };
    Ok(r)
}

/// `POST /karpenter`: switches the Karpenter simulation on with a scenario, or off.
fn karpenter_control(st: &mut State, payload: &Value) -> Resp {
    if st.upstream.is_some() {
        return status(
            501,
            "NotImplemented",
            "the Karpenter simulation is not available in upstream mode: the real API server lane runs no controllers",
        );
    }
    if payload["enabled"] == false {
        st.karpenter = None;
        return json_response(200, &json!({"status": "ok", "enabled": false}));
    }
    match crate::karpenter::Scenario::parse(payload) {
        Ok(s) => {
            // A new scenario changes what Karpenter does next; the NodeClaims it made go on
            // through their lifecycle (a controller does not forget them).
            match st.karpenter.as_mut() {
                Some(sim) => sim.scenario = s,
                None => st.karpenter = Some(crate::karpenter::Sim::new(s)),
            }
            st.karpenter_step();
            json_response(200, &json!({"status": "ok", "enabled": true}))
        }
        Err(e) => status(400, "BadRequest", &e),
    }
}

/// A controller's status write (`group`, `plural`, `namespace`, `name`,
/// `status`): KEDA's or Karpenter's conditions, which tests cannot run.
fn set_status(st: &mut State, p: &Value) -> Resp {
    let find = |k: &&KindInfo| {
        k.group == p["group"].as_str().unwrap_or_default() && k.plural == p["plural"].as_str().unwrap_or_default()
    };
    let Some(kind) = st.registry.served().find(find).cloned() else {
        return status(404, "NotFound", "no such kind");
    };
    let name = p["name"].as_str().unwrap_or_default();
    match st.store.set_status(&kind, p["namespace"].as_str(), name, &p["status"]) {
        Ok(v) => json_response(200, &v),
        Err(e) => json_response(e.code, &e.status()),
    }
}

/// An out-of-band edit as another field manager (an `Update`, like `kubectl edit`).
fn edit(st: &mut State, p: &Value) -> Resp {
    let find = |k: &&KindInfo| {
        k.group == p["group"].as_str().unwrap_or_default() && k.plural == p["plural"].as_str().unwrap_or_default()
    };
    let Some(kind) = st.registry.served().find(find).cloned() else {
        return status(404, "NotFound", "no such kind");
    };
    let name = p["name"].as_str().unwrap_or_default();
    let manager = p["manager"].as_str().unwrap_or("kubectl-edit");
    match st
        .store
        .update(&kind, p["namespace"].as_str(), name, &p["patch"], manager)
    {
        Ok(v) => json_response(200, &v),
        Err(e) => json_response(e.code, &e.status()),
    }
}
