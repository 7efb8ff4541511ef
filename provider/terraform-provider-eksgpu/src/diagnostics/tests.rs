//! Each failure class reads differently, names where it happened, and none
//! falls back to the catch-all "is the cluster reachable" text.

use eksgpu_cloud::kube::KubeError;
use eksgpu_cloud::net::Unreachable;
use eksgpu_cloud::{AwsError, AwsFailure};
use eksgpu_tfplugin::AttributePath;

use super::{aws_failed, kube_failed};

fn aws(failure: AwsFailure) -> AwsError {
    AwsError {
        operation: "eks:DescribeCluster",
        code: None,
        message: "m".into(),
        request_id: None,
        failure: Box::new(failure),
    }
}

fn unreachable(cause: Unreachable) -> KubeError {
    KubeError::Unreachable {
        cluster: "gpu".into(),
        host: "https://gpu.example".into(),
        cause,
    }
}

fn unauthorized(code: u16) -> KubeError {
    KubeError::Unauthorized {
        code,
        message: "Unauthorized".into(),
        cluster: "gpu".into(),
        host: "https://gpu.example".into(),
        identity: "the token from the provider's kubernetes block".into(),
    }
}

#[test]
fn every_class_has_its_own_summary() {
    let path = || AttributePath::attr("cluster_name");
    let kube = [
        unauthorized(401),
        unauthorized(403),
        unreachable(Unreachable::Refused),
        unreachable(Unreachable::Dns),
        unreachable(Unreachable::UnknownCa),
        unreachable(Unreachable::Timeout),
        KubeError::Cancelled {
            what: "applying NodePool gpu".into(),
        },
        KubeError::Aws(aws(AwsFailure::MissingRegion)),
    ];
    let mut summaries: Vec<String> = kube
        .iter()
        .map(|e| kube_failed(e, "connecting to cluster gpu", path()))
        .map(|d| {
            assert!(!d.detail.contains("{ ") && !d.detail.contains("Some("), "{}", d.detail);
            d.summary
        })
        .collect();
    summaries.extend(
        [
            AwsFailure::Credentials,
            AwsFailure::Unreachable {
                endpoint: Some("http://127.0.0.1:1".into()),
                cause: Unreachable::Refused,
            },
        ]
        .into_iter()
        .map(|f| aws_failed(&aws(f), path()).summary),
    );
    let distinct: std::collections::BTreeSet<_> = summaries.iter().collect();
    // (TLS failures of any kind share one summary, so only one is listed.)
    assert_eq!(distinct.len(), summaries.len(), "{summaries:#?}");
}

#[test]
fn messages_name_the_cluster_host_and_identity() {
    let d = kube_failed(
        &unauthorized(401),
        "reading the Kubernetes version",
        AttributePath::root(),
    );
    assert!(d.detail.contains("cluster gpu at https://gpu.example"), "{}", d.detail);
    assert!(
        d.detail.contains("the token from the provider's kubernetes block"),
        "{}",
        d.detail
    );
    let d = kube_failed(&unreachable(Unreachable::Dns), "reading", AttributePath::root());
    assert!(
        d.detail.contains("https://gpu.example") && d.detail.contains("does not resolve"),
        "{}",
        d.detail
    );
    let d = kube_failed(
        &KubeError::Cancelled {
            what: "applying NodePool gpu".into(),
        },
        "applying NodePool gpu",
        AttributePath::root(),
    );
    assert_eq!(d.summary, "Operation cancelled");
    assert!(
        d.detail.contains("Terraform asked the provider to stop"),
        "{}",
        d.detail
    );
    assert!(!d.detail.contains("reachable"), "{}", d.detail);
    let d = kube_failed(
        &KubeError::Aws(aws(AwsFailure::MissingRegion)),
        "connecting to cluster gpu",
        AttributePath::root(),
    );
    assert!(
        d.detail.contains("connecting to cluster gpu") && d.detail.contains("AWS_REGION"),
        "{}",
        d.detail
    );
}
