//! Names never reach a request path unchecked: a recording service stands in
//! for the API server and shows which paths requests really address.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use eksgpu_core::kinds::{CONFIG_MAP, NAMESPACE, NODE_POOL};
use serde_json::json;

use super::*;
use crate::kube::{ApplyOptions, Cluster};

/// A cluster whose every request is recorded as `METHOD path?query` and answered 404.
fn recording_cluster() -> (KubeCluster, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let service = tower::service_fn(move |req: http::Request<kube::client::Body>| {
        let log = log.clone();
        async move {
            log.lock().unwrap().push(format!("{} {}", req.method(), req.uri()));
            let status = json!({"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 404,
                "reason": "NotFound", "message": "not found", "details": {"name": "x"}});
            let response = http::Response::builder()
                .status(404)
                .header("content-type", "application/json")
                .body(kube::client::Body::from(serde_json::to_vec(&status).unwrap()))
                .unwrap();
            Ok::<_, Infallible>(response)
        }
    });
    (KubeCluster::new(kube::Client::new(service, "default")), seen)
}

const HOSTILE: &[&str] = &[
    "",
    ".",
    "..",
    "../kube-system/configmaps/x",
    "../../namespaces/kube-system/configmaps/aws-auth",
    "a/b",
    "a?force=true&dryRun=All",
    "a#fragment",
    "%2e%2e",
    "%2F",
    "a b",
    "A",
    "a\nb",
    "x/../../y",
];

const OPTS: ApplyOptions<'static> = ApplyOptions {
    field_manager: "eksgpu",
    force: false,
};

#[tokio::test]
async fn hostile_names_make_no_request() {
    let (cluster, seen) = recording_cluster();
    for name in HOSTILE {
        for kind in [&NODE_POOL, &NAMESPACE, &CONFIG_MAP] {
            let ns = Some("gpu-operator");
            assert!(
                matches!(cluster.get(kind, ns, name).await, Err(KubeError::InvalidName { .. })),
                "{name:?}"
            );
            assert!(
                matches!(cluster.delete(kind, ns, name).await, Err(KubeError::InvalidName { .. })),
                "{name:?}"
            );
            let applied = cluster.apply(kind, ns, name, &json!({}), OPTS).await;
            assert!(matches!(applied, Err(KubeError::InvalidName { .. })), "{name:?}");
        }
        // A hostile namespace of a namespaced kind is refused the same way.
        let got = cluster.get(&CONFIG_MAP, Some(name), "device-plugin-config").await;
        assert!(matches!(got, Err(KubeError::InvalidName { .. })), "{name:?}");
    }
    assert_eq!(*seen.lock().unwrap(), Vec::<String>::new());
}

#[tokio::test]
async fn valid_names_address_exactly_their_object() {
    let (cluster, seen) = recording_cluster();
    assert_eq!(cluster.get(&NODE_POOL, None, "gpu-inference").await.unwrap(), None);
    assert!(
        !cluster
            .delete(&CONFIG_MAP, Some("gpu-operator"), "device-plugin-config")
            .await
            .unwrap()
    );
    let _ = cluster.apply(&NAMESPACE, None, "ml", &json!({}), OPTS).await;
    // A cluster-scoped kind ignores a namespace rather than putting it in the path.
    assert_eq!(cluster.get(&NODE_POOL, Some("ignored"), "a.b-c").await.unwrap(), None);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 4, "{seen:?}");
    assert_eq!(seen[0], "GET /apis/karpenter.sh/v1/nodepools/gpu-inference");
    assert!(
        seen[1].starts_with("DELETE /api/v1/namespaces/gpu-operator/configmaps/device-plugin-config?"),
        "{}",
        seen[1]
    );
    assert!(seen[2].starts_with("PATCH /api/v1/namespaces/ml?"), "{}", seen[2]);
    assert_eq!(seen[3], "GET /apis/karpenter.sh/v1/nodepools/a.b-c");
}

#[tokio::test]
async fn namespaced_kinds_need_a_namespace() {
    let (cluster, seen) = recording_cluster();
    let got = cluster.get(&CONFIG_MAP, None, "device-plugin-config").await;
    assert!(matches!(got, Err(KubeError::InvalidName { .. })));
    assert!(seen.lock().unwrap().is_empty());
}

#[test]
fn segments_are_percent_encoded() {
    // Valid names need no encoding; the encoding is the second line of defence.
    assert_eq!(path_segment("gpu-inference.v1_x~"), "gpu-inference.v1_x~");
    assert_eq!(path_segment("../a?b=c&d#e/f%"), "..%2Fa%3Fb%3Dc%26d%23e%2Ff%25");
    assert_eq!(path_segment("é"), "%C3%A9");
}
