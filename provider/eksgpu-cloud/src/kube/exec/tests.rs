//! ExecCredential parsing as client-go judges it, and the command's failures.

use std::time::{Duration, SystemTime};

use super::*;

const V1: &str = "client.authentication.k8s.io/v1";
const V1BETA1: &str = "client.authentication.k8s.io/v1beta1";

fn now() -> SystemTime {
    // 2026-01-01T00:00:00Z
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_767_225_600)
}

fn doc(api: &str, status: &str) -> Vec<u8> {
    format!(r#"{{"apiVersion":"{api}","kind":"ExecCredential","status":{status}}}"#).into_bytes()
}

#[test]
fn tokens_certificates_and_expiry_are_read_from_status() {
    let c = parse(
        V1,
        &doc(
            V1,
            r#"{"token":"s3cr3t","expirationTimestamp":"2026-01-01T01:00:00-00:30"}"#,
        ),
        now(),
    )
    .unwrap();
    assert_eq!(c.token.as_deref(), Some("s3cr3t"));
    // An offset is honoured: 01:00 at -00:30 is 01:30Z.
    assert_eq!(c.expires, Some(now() + Duration::from_secs(90 * 60)));
    assert!(!format!("{c:?}").contains("s3cr3t"), "Debug hides the token");

    let c = parse(
        V1BETA1,
        &doc(V1BETA1, r#"{"clientCertificateData":"CERT","clientKeyData":"KEY"}"#),
        now(),
    )
    .unwrap();
    assert_eq!(
        (
            c.token,
            c.client_certificate_pem.as_deref(),
            c.client_key_pem.as_deref(),
            c.expires
        ),
        (None, Some("CERT"), Some("KEY"), None)
    );
    assert!(
        !format!(
            "{:?}",
            parse(
                V1,
                &doc(V1, r#"{"clientCertificateData":"C","clientKeyData":"PRIVATE"}"#),
                now()
            )
        )
        .contains("PRIVATE")
    );
}

#[test]
fn unusable_credentials_say_which_field_without_quoting_it() {
    let cases: &[(&str, &[u8], &str)] = &[
        (
            V1,
            b"not json s3cr3t",
            "stdout is not JSON (a syntax error at line 1 column 2)",
        ),
        (V1, b"{\"kind\":", "stdout is not JSON (it ends early"),
        (
            V1,
            br#"{"apiVersion":"client.authentication.k8s.io/v1","kind":"Other","status":{"token":"s3cr3t"}}"#,
            "`kind`",
        ),
        (
            V1,
            &doc(V1BETA1, r#"{"token":"s3cr3t"}"#),
            "`apiVersion` is \"client.authentication.k8s.io/v1beta1\", but kubernetes.exec.api_version is \"client.authentication.k8s.io/v1\"",
        ),
        (V1, &doc("v9", r#"{"token":"s3cr3t"}"#), "`apiVersion` is not"),
        (
            V1,
            br#"{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential"}"#,
            "no `status`",
        ),
        (V1, &doc(V1, "{}"), "neither `token` nor"),
        (V1, &doc(V1, r#"{"token":""}"#), "neither `token` nor"),
        (V1, &doc(V1, r#"{"token":42}"#), "`status.token` is not a string"),
        (
            V1,
            &doc(V1, r#"{"clientCertificateData":"C"}"#),
            "without `clientKeyData`",
        ),
        (
            V1,
            &doc(V1, r#"{"token":"t","clientKeyData":"s3cr3t"}"#),
            "without `clientCertificateData`",
        ),
        (
            V1,
            &doc(V1, r#"{"token":"s3cr3t","expirationTimestamp":"tomorrow s3cr3t"}"#),
            "not an RFC 3339 time",
        ),
        (
            V1,
            &doc(V1, r#"{"token":"s3cr3t","expirationTimestamp":"2025-12-31T23:59:00Z"}"#),
            "already passed",
        ),
    ];
    for (api, out, want) in cases {
        let err = parse(api, out, now()).unwrap_err();
        assert!(err.contains(want), "{}: {err}", String::from_utf8_lossy(out));
        assert!(!err.contains("s3cr3t"), "{err}");
    }
}

fn exec(script: &str) -> ExecConfig {
    ExecConfig {
        api_version: V1.into(),
        command: "/bin/sh".into(),
        args: vec!["-c".into(), script.into()],
        env: [("EKSGPU_TEST_TOKEN".to_owned(), "from-env".to_owned())].into(),
    }
}

#[tokio::test]
async fn the_command_runs_with_env_and_exec_info() {
    // The token comes from `env`; KUBERNETES_EXEC_INFO carries the configured apiVersion.
    let script = r#"case "$KUBERNETES_EXEC_INFO" in *'"apiVersion":"client.authentication.k8s.io/v1"'*'"interactive":false'*) ;; *) exit 3;; esac
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}' "$EKSGPU_TEST_TOKEN""#;
    let c = run(&exec(script)).await.unwrap();
    assert_eq!(c.token.as_deref(), Some("from-env"));
}

#[tokio::test]
async fn failures_name_the_command_and_what_went_wrong() {
    let e = run(&exec("echo 'login expired' >&2; exit 7"))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("the kubernetes.exec command \"/bin/sh\" failed (exit status: 7): login expired"),
        "{e}"
    );
    let e = run(&exec("echo '{\"token\": \"s3cr3t\"'"))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("printed no usable ExecCredential: stdout is not JSON"),
        "{e}"
    );
    assert!(!e.contains("s3cr3t"), "{e}");
    let missing = ExecConfig {
        command: "eksgpu-no-such-command".into(),
        ..exec("")
    };
    let e = run(&missing).await.unwrap_err().to_string();
    assert!(
        e.starts_with("the kubernetes.exec command \"eksgpu-no-such-command\" could not be started"),
        "{e}"
    );
}
