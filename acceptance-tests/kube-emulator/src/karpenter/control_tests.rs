//! The simulation through the emulator's HTTP side: the control endpoint, the API's field
//! selectors and finalizers, and reset.

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::{Emulator, Options};

/// One HTTP/1.0 request; the status code and the JSON body.
async fn call(base: &str, method: &str, path: &str, content_type: &str, body: &str) -> (u16, Value) {
    let addr = base.trim_start_matches("http://");
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "{method} {path} HTTP/1.0\r\nHost: {addr}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut resp = String::new();
    s.read_to_string(&mut resp).await.unwrap();
    let (head, body) = resp.split_once("\r\n\r\n").unwrap();
    let code = head.split(' ').nth(1).unwrap().parse().unwrap();
    (code, serde_json::from_str(body).unwrap_or(Value::Null))
}

async fn apply(e: &Emulator, path: &str, obj: &Value) {
    let (code, answer) = call(
        &e.url,
        "PATCH",
        &format!("{path}?fieldManager=tf"),
        "application/apply-patch+yaml",
        &obj.to_string(),
    )
    .await;
    assert!(code < 300, "{path}: {answer}");
}

#[tokio::test]
async fn the_control_endpoint_drives_the_simulation_and_reset_stops_it() {
    let e = Emulator::start(Options::default()).await.unwrap();
    let c = e.control_url.clone();
    let (code, _) = call(&c, "POST", "/karpenter", "application/json", r#"{"outcome": "nope"}"#).await;
    assert_eq!(code, 400);
    let scenario =
        json!({"outcome": "provisioned", "launch_ms": 0, "register_ms": 0, "initialize_ms": 0, "terminate_ms": 0});
    let (code, _) = call(&c, "POST", "/karpenter", "application/json", &scenario.to_string()).await;
    assert_eq!(code, 200);
    let pool = json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "probe"},
        "spec": {"template": {"spec": {
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
            "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g6.xlarge"]}]}}}});
    apply(&e, "/apis/karpenter.sh/v1/nodepools/probe", &pool).await;
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "probe", "namespace": "ml"},
        "spec": {"nodeSelector": {"karpenter.sh/nodepool": "probe"},
                 "containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                                 "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}});
    apply(&e, "/api/v1/namespaces/ml/pods/probe", &pod).await;
    // A Pod field the API lacks is refused, as Kubernetes' own type refuses it.
    let mut bad = pod.clone();
    bad["metadata"]["name"] = json!("bad");
    bad["spec"]["tolerashuns"] = json!([{"key": "x"}]);
    let (code, _) = call(
        &e.url,
        "PATCH",
        "/api/v1/namespaces/ml/pods/bad?fieldManager=tf",
        "application/apply-patch+yaml",
        &bad.to_string(),
    )
    .await;
    assert_eq!(code, 422);

    let q = "/apis/karpenter.sh/v1/nodeclaims?labelSelector=karpenter.sh%2Fnodepool%3Dprobe";
    let (_, list) = call(&e.url, "GET", q, "", "").await;
    let claim = list["items"][0]["metadata"]["name"].as_str().unwrap().to_owned();
    let (_, pod) = call(&e.url, "GET", "/api/v1/namespaces/ml/pods/probe", "", "").await;
    assert_eq!(pod["status"]["phase"], "Running");
    let sel = format!(
        "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3D{claim}%2CinvolvedObject.kind%3DNodeClaim"
    );
    let (_, events) = call(&e.url, "GET", &sel, "", "").await;
    assert_eq!(events["items"].as_array().unwrap().len(), 4, "{events}");
    let (code, refused) = call(&e.url, "GET", "/api/v1/events?fieldSelector=spec.x%3D1", "", "").await;
    assert_eq!(
        (code, refused["message"].as_str()),
        (400, Some("field label not supported: spec.x"))
    );
    let (_, all) = call(
        &e.url,
        "GET",
        "/api/v1/events?fieldSelector=involvedObject.name%3Dprobe",
        "",
        "",
    )
    .await;
    assert_eq!(
        all["items"].as_array().unwrap().len(),
        2,
        "Nominated and Scheduled: {all}"
    );

    let (code, _) = call(&e.url, "DELETE", "/apis/karpenter.sh/v1/nodepools/probe", "", "").await;
    assert_eq!(code, 200);
    // The next request deletes the NodeClaim and (terminate_ms 0) removes its finalizer.
    let (_, list) = call(&e.url, "GET", q, "", "").await;
    assert_eq!(list["items"], json!([]));
    let (_, record) = call(&c, "GET", "/karpenter", "", "").await;
    assert_eq!(record["nodeclaims"][0]["name"], claim.as_str());
    assert_eq!(record["nodeclaims"][0]["instance"]["running"], false);

    let (code, _) = call(&c, "POST", "/reset", "application/json", "").await;
    assert_eq!(code, 200);
    let (_, record) = call(&c, "GET", "/karpenter", "", "").await;
    assert_eq!(record, json!({"enabled": false, "nodeclaims": []}));
}
