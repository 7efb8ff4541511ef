//! A small stand-in for KEDA's operator (kedacore/keda v2.20.2), switched on per test through
//! the control endpoint: for each ScaledObject it builds the `prometheus` triggers as KEDA does
//! (authenticationRef → TriggerAuthentication or ClusterTriggerAuthentication → Secrets, then
//! `authModes`), queries each trigger's Prometheus once with those credentials, and writes the
//! status KEDA would reach: `Ready=False` (`ScaledObjectCheckFailed`) when a trigger cannot be
//! built, and `status.health` with the `Fallback` condition when a site cannot be queried.
//!
//! Simplified, and said so: one query per trigger stands for `failureThreshold` failing polls;
//! queries go over plain HTTP only; nothing is signed (a trigger with an `aws` pod identity
//! fails its query as KEDA does when it finds no AWS credentials, there being none here); the
//! Active condition, replica counts and the HPA are not modelled. Sources: pkg/scalers/
//! prometheus_scaler.go, pkg/scalers/authentication/authentication_types.go,
//! pkg/scaling/resolver/scale_resolvers.go, controllers/keda/scaledobject_controller.go,
//! pkg/scaling/executor/scale_scaledobjects.go and pkg/fallback/fallback.go at v2.20.2.

use std::collections::BTreeMap;
use std::time::Duration;

use base64::Engine;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

/// The objects KEDA resolves references in.
#[derive(Debug, Default)]
pub struct Snapshot {
    pub trigger_authentications: Vec<Value>,
    pub cluster_trigger_authentications: Vec<Value>,
    pub secrets: Vec<Value>,
}

/// Where KEDA reads a ClusterTriggerAuthentication's Secrets: `KEDA_CLUSTER_OBJECT_NAMESPACE`,
/// else the operator's namespace (pkg/util/env_resolver.go); `keda` as the chart installs it.
const CLUSTER_OBJECT_NAMESPACE: &str = "keda";

fn named<'a>(items: &'a [Value], ns: Option<&str>, name: &str) -> Option<&'a Value> {
    items
        .iter()
        .find(|o| o["metadata"]["name"] == name && ns.is_none_or(|ns| o["metadata"]["namespace"] == ns))
}

/// A Secret's value as KEDA's resolver reads it: `data` (base64), empty when missing
/// (`resolveAuthSecret`). `stringData`, which a real server folds into `data`, counts too.
fn secret_value(s: &Snapshot, ns: &str, name: &str, key: &str) -> String {
    let Some(secret) = named(&s.secrets, Some(ns), name) else {
        return String::new();
    };
    if let Some(v) = secret["stringData"][key].as_str() {
        return v.to_owned();
    }
    secret["data"][key]
        .as_str()
        .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_default()
}

/// `authParams` and the pod identity provider of a trigger's authenticationRef. An object that
/// cannot be read gives nothing: KEDA only logs it (scale_resolvers.go L297-299).
fn resolve(s: &Snapshot, so_ns: &str, r: &Value) -> (BTreeMap<String, String>, String) {
    let name = r["name"].as_str().unwrap_or_default();
    let (object, secrets_ns) = if r["kind"] == "ClusterTriggerAuthentication" {
        (
            named(&s.cluster_trigger_authentications, None, name),
            CLUSTER_OBJECT_NAMESPACE,
        )
    } else {
        (named(&s.trigger_authentications, Some(so_ns), name), so_ns)
    };
    let Some(o) = object else {
        return (BTreeMap::new(), String::new());
    };
    let params = o["spec"]["secretTargetRef"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| {
            let p = t["parameter"].as_str()?;
            let v = secret_value(s, secrets_ns, t["name"].as_str()?, t["key"].as_str()?);
            Some((p.to_owned(), v))
        })
        .collect();
    let provider = o["spec"]["podIdentity"]["provider"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    (params, provider)
}

fn empty(v: &str) -> &'static str {
    if v.is_empty() { "<empty>" } else { "<present>" }
}

/// A built trigger: what its query sends.
struct Built {
    url: String,
    headers: Vec<(String, String)>,
    /// A pod identity that would sign: no credentials here.
    signs: bool,
}

/// A `prometheus` trigger as KEDA builds it, or the error that fails the ScaledObject.
fn build(s: &Snapshot, so_ns: &str, t: &Value) -> Result<Built, String> {
    let md = &t["metadata"];
    let m = |k: &str| md[k].as_str().unwrap_or_default().to_owned();
    for required in ["serverAddress", "query", "threshold"] {
        if m(required).is_empty() {
            return Err(format!(
                "error parsing prometheus metadata: missing required parameter {required:?} in [triggerMetadata]"
            ));
        }
    }
    let (params, provider) = resolve(s, so_ns, &t["authenticationRef"]);
    let p = |k: &str| params.get(k).cloned().unwrap_or_default();
    let modes_text = if md["authModes"].is_string() {
        m("authModes")
    } else {
        p("authModes")
    };
    let modes: Vec<&str> = modes_text.split(',').map(str::trim).filter(|x| !x.is_empty()).collect();
    let on = |mode: &str| modes.contains(&mode);
    let wrap = |e: String| format!("error parsing prometheus metadata: error parsing prometheus metadata: {e}");
    if on("bearer") && p("bearerToken").is_empty() {
        return Err(wrap(format!(
            "bearer token={} is required when bearer auth is enabled",
            empty("")
        )));
    }
    if on("basic") && p("username").is_empty() {
        return Err(wrap("username=<empty> is required when basic auth is enabled".into()));
    }
    if on("tls") && (p("cert").is_empty() || p("key").is_empty()) {
        return Err(wrap(format!(
            "cert={} and key={} are required when tls auth is enabled",
            empty(&p("cert")),
            empty(&p("key"))
        )));
    }
    if on("custom") && (p("customAuthHeader").is_empty() || p("customAuthValue").is_empty()) {
        return Err(wrap(format!(
            "customAuthHeader={} and customAuthValue={} are required when custom auth is enabled",
            empty(&p("customAuthHeader")),
            empty(&p("customAuthValue"))
        )));
    }
    let pod_identity = !provider.is_empty() && provider != "none";
    if !modes.is_empty() && pod_identity {
        return Err("error parsing prometheus metadata: pod identity cannot be enabled with other auth types".into());
    }
    let escape = |v: &str| -> String {
        v.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (b as char).to_string(),
                b' ' => "+".into(),
                b => format!("%{b:02X}"),
            })
            .collect()
    };
    let mut url = format!(
        "{}/api/v1/query?query={}&time=2026-01-01T00:00:00Z",
        m("serverAddress"),
        escape(&m("query"))
    );
    if !m("namespace").is_empty() {
        url.push_str(&format!("&namespace={}", m("namespace")));
    }
    let pairs = |k: &str| -> Vec<(String, String)> {
        m(k).split(',')
            .filter_map(|i| {
                i.split_once('=')
                    .map(|(a, b)| (a.trim().to_owned(), b.trim().to_owned()))
            })
            .collect()
    };
    for (k, v) in pairs("queryParameters") {
        url.push_str(&format!("&{}={}", escape(&k), escape(&v)));
    }
    let mut headers = pairs("customHeaders");
    // One header mode, in this order (prometheus_scaler.go L232-236).
    if on("bearer") {
        headers.push(("Authorization".into(), format!("Bearer {}", p("bearerToken"))));
    } else if on("basic") {
        let raw = format!("{}:{}", p("username"), p("password"));
        let b64 = base64::engine::general_purpose::STANDARD.encode(raw);
        headers.push(("Authorization".into(), format!("Basic {b64}")));
    } else if on("custom") {
        headers.push((p("customAuthHeader"), p("customAuthValue")));
    }
    Ok(Built {
        url,
        headers,
        signs: provider == "aws" || provider == "aws-eks",
    })
}

/// One query, bounded to two seconds; the error as KEDA words it.
async fn query(b: &Built) -> Result<(), String> {
    if b.signs {
        return Err("failed to retrieve AWS credentials: no credentials in this cluster".into());
    }
    let Some(rest) = b.url.strip_prefix("http://") else {
        return Err(format!("{}: the emulator's KEDA queries plain http only", b.url));
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let call = async {
        let tcp = tokio::net::TcpStream::connect(authority)
            .await
            .map_err(|e| e.to_string())?;
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(conn);
        let mut req = Request::get(path).header(hyper::header::HOST, authority);
        for (k, v) in &b.headers {
            req = req.header(k.as_str(), v.as_str());
        }
        let req = req.body(Full::new(Bytes::new())).map_err(|e| e.to_string())?;
        let resp = sender.send_request(req).await.map_err(|e| e.to_string())?;
        let code = resp.status().as_u16();
        let body = resp.into_body().collect().await.map_err(|e| e.to_string())?.to_bytes();
        if (200..300).contains(&code) {
            Ok(())
        } else {
            Err(format!(
                "prometheus query api returned error. status: {code} response: {}",
                String::from_utf8_lossy(&body)
            ))
        }
    };
    tokio::time::timeout(Duration::from_secs(2), call)
        .await
        .unwrap_or_else(|_| Err("context deadline exceeded".into()))
}

fn condition(kind: &str, status: &str, reason: &str, message: &str) -> Value {
    json!({"type": kind, "status": status, "reason": reason, "message": message})
}

/// The status KEDA would write for the ScaledObject `so`.
pub async fn status_of(s: &Snapshot, so: &Value) -> Value {
    let ns = so["metadata"]["namespace"].as_str().unwrap_or_default();
    let triggers: Vec<&Value> = so["spec"]["triggers"].as_array().into_iter().flatten().collect();
    let mut built = Vec::new();
    for (i, t) in triggers.iter().enumerate() {
        if t["type"] != "prometheus" {
            continue;
        }
        match build(s, ns, t) {
            Ok(b) => built.push((i, b)),
            // One trigger that cannot be built fails the whole object (scalers_builder.go L91-107).
            Err(e) => {
                let message = format!("failed to ensure HPA is correctly created for ScaledObject: {e}");
                return json!({"conditions": [
                    condition("Ready", "False", "ScaledObjectCheckFailed", &message),
                    condition("Active", "Unknown", "UnknownState", "ScaledObject check failed"),
                ]});
            }
        }
    }
    let fallback = so["spec"]["fallback"].is_object();
    let threshold = so["spec"]["fallback"]["failureThreshold"].as_i64().unwrap_or(3);
    let mut health = serde_json::Map::new();
    let mut failing = false;
    for (i, b) in &built {
        let ok = query(b).await.is_ok();
        failing |= !ok;
        let (status, failures) = if ok { ("Happy", 0) } else { ("Failing", threshold + 1) };
        health.insert(
            format!("s{i}-prometheus"),
            json!({"status": status, "numberOfFailures": failures}),
        );
    }
    let ready = match (failing, fallback) {
        (true, false) => condition(
            "Ready",
            "False",
            "TriggerError",
            "Triggers defined in ScaledObject are not working correctly",
        ),
        _ => condition(
            "Ready",
            "True",
            "ScaledObjectReady",
            "ScaledObject is defined correctly and is ready for scaling",
        ),
    };
    if !fallback {
        // Health is tracked only with a fallback (fallback.go GetMetricsWithFallback).
        return json!({"conditions": [ready]});
    }
    let fallback_condition = if failing {
        condition(
            "Fallback",
            "True",
            "FallbackExists",
            "At least one trigger is falling back on this scaled object",
        )
    } else {
        condition(
            "Fallback",
            "False",
            "NoFallbackFound",
            "No fallbacks are active on this scaled object",
        )
    };
    json!({"conditions": [ready, fallback_condition], "health": health})
}
