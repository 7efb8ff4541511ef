//! One `kubernetes.exec` run serves every cluster until its credential is about to expire.

use std::sync::Arc;

use super::*;
use crate::AwsSettings;

/// Clusters whose credential is what `/bin/sh -c` prints, counting its runs in `log`.
fn clusters(log: &std::path::Path, expires: Option<String>) -> Clusters {
    let status = match expires {
        Some(t) => format!(r#"{{"token":"t","expirationTimestamp":"{t}"}}"#),
        None => r#"{"token":"t"}"#.to_owned(),
    };
    let script = format!(
        "echo run >> '{}'; printf '%s' '{{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{status}}}'",
        log.display()
    );
    let access = Access::Static {
        host: "https://127.0.0.1:1".into(),
        ca_pem: None,
        insecure: false,
        credentials: StaticCredentials {
            exec: Some(ExecConfig {
                api_version: "client.authentication.k8s.io/v1".into(),
                command: "/bin/sh".into(),
                args: vec!["-c".into(), script],
                env: Default::default(),
            }),
            ..Default::default()
        },
    };
    Clusters::new(access, Arc::new(AwsClients::new(AwsSettings::default())))
}

fn runs(log: &std::path::Path) -> usize {
    std::fs::read_to_string(log).unwrap_or_default().lines().count()
}

#[tokio::test]
async fn an_exec_credential_is_reused_until_shortly_before_it_expires() {
    let dir = std::env::temp_dir().join(format!("eksgpu-exec-cache-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("no-expiry");
    let c = clusters(&log, None);
    for name in ["a", "b", "a"] {
        c.get(name).await.unwrap();
    }
    assert_eq!(runs(&log), 1, "one run for two clusters");

    let hour = k8s_openapi::jiff::Timestamp::now() + k8s_openapi::jiff::SignedDuration::from_secs(3600);
    let log = dir.join("hour");
    let c = clusters(&log, Some(hour.to_string()));
    for name in ["a", "b"] {
        c.get(name).await.unwrap();
    }
    assert_eq!(runs(&log), 1);

    // Within the renewal margin: each new connection asks the command again.
    let soon = k8s_openapi::jiff::Timestamp::now() + k8s_openapi::jiff::SignedDuration::from_secs(10);
    let log = dir.join("soon");
    let c = clusters(&log, Some(soon.to_string()));
    for name in ["a", "a"] {
        c.get(name).await.unwrap();
    }
    assert_eq!(runs(&log), 2);
    let _ = std::fs::remove_dir_all(&dir);
}
