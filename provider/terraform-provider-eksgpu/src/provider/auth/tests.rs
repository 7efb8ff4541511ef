//! Offline checks of the credential settings, each at its attribute, and what parsing makes of them.

use std::time::Duration;

use eksgpu_tfplugin::{Diagnostics, Value};

use super::*;

fn paths(config: Value) -> Vec<String> {
    let mut d = Diagnostics::new();
    validate(&config, &mut d);
    if let Some(k) = block(&config, "kubernetes") {
        validate_kubernetes(k, &mut d);
    }
    d.iter()
        .map(|d| d.path.clone().map(|p| p.to_string()).unwrap_or_default())
        .collect()
}

fn role(pairs: Vec<(&str, Value)>) -> Value {
    let mut all = vec![("role_arn", Value::from("arn:aws:iam::123456789012:role/r"))];
    all.extend(pairs);
    Value::object([("assume_role", Value::object(all))])
}

#[test]
fn assume_role_durations_tags_and_source_identity() {
    let tags = Value::Map([("team".to_owned(), Value::from("ml"))].into());
    let ok = role(vec![
        ("duration", "1h30m".into()),
        ("tags", tags),
        ("transitive_tag_keys", Value::Set(vec!["team".into()])),
        ("source_identity", "ci@example.com".into()),
        ("session_name", "ci-run-7".into()),
    ]);
    assert!(paths(ok.clone()).is_empty());
    let parsed = assume_role(&ok).unwrap();
    assert_eq!(parsed.duration, Some(Duration::from_secs(90 * 60)));
    assert_eq!(parsed.tags["team"], "ml");
    assert_eq!(parsed.transitive_tag_keys, ["team"]);
    assert_eq!(parsed.source_identity.as_deref(), Some("ci@example.com"));

    assert_eq!(paths(role(vec![("duration", "14m".into())])), ["assume_role.duration"]);
    assert_eq!(
        paths(role(vec![("duration", "12h1s".into())])),
        ["assume_role.duration"]
    );
    assert_eq!(
        paths(role(vec![("duration", "1 hour".into())])),
        ["assume_role.duration"]
    );
    assert!(paths(role(vec![("duration", "12h".into())])).is_empty());
    assert_eq!(
        paths(role(vec![("source_identity", "aws:me".into())])),
        ["assume_role.source_identity"]
    );
    assert_eq!(
        paths(role(vec![("session_name", "has space".into())])),
        ["assume_role.session_name"]
    );
    let bad_tag = Value::Map([("aws:x".to_owned(), Value::from("v"))].into());
    assert_eq!(paths(role(vec![("tags", bad_tag)])), ["assume_role.tags[\"aws:x\"]"]);
    let many = Value::Map((0..51).map(|i| (format!("k{i}"), Value::from("v"))).collect());
    assert_eq!(paths(role(vec![("tags", many)])), ["assume_role.tags"]);
    // Unknown values are checked once known.
    assert!(
        paths(role(vec![
            ("duration", Value::Unknown),
            ("source_identity", Value::Unknown)
        ]))
        .is_empty()
    );
}

#[test]
fn web_identity_takes_exactly_one_token_source() {
    let web = |pairs: Vec<(&str, Value)>| {
        let mut all = vec![("role_arn", Value::from("arn:aws:iam::123456789012:role/ci"))];
        all.extend(pairs);
        Value::object([("assume_role_with_web_identity", Value::object(all))])
    };
    let ok = web(vec![
        ("web_identity_token_file", "/var/run/token".into()),
        ("duration", "15m".into()),
    ]);
    assert!(paths(ok.clone()).is_empty());
    let parsed = web_identity(&ok).unwrap();
    assert_eq!(parsed.web_identity_token_file.as_deref(), Some("/var/run/token"));
    assert_eq!(parsed.duration, Some(Duration::from_secs(15 * 60)));
    let with_token = web_identity(&web(vec![("web_identity_token", "eyJs3cr3t".into())])).unwrap();
    assert!(!format!("{with_token:?}").contains("s3cr3t"));

    assert_eq!(paths(web(vec![])), ["assume_role_with_web_identity.web_identity_token"]);
    assert_eq!(
        paths(web(vec![
            ("web_identity_token", "t".into()),
            ("web_identity_token_file", "/f".into())
        ])),
        ["assume_role_with_web_identity.web_identity_token_file"]
    );
    assert!(paths(web(vec![("web_identity_token", Value::Unknown)])).is_empty());
    assert_eq!(
        paths(web(vec![("web_identity_token", "t".into()), ("role_arn", "ci".into())])),
        ["assume_role_with_web_identity.role_arn"]
    );
}

fn kube(pairs: Vec<(&str, Value)>) -> Value {
    Value::object([("kubernetes", Value::object(pairs))])
}

fn exec_block(api: &str) -> Value {
    Value::object([
        ("api_version", api.into()),
        ("command", "aws".into()),
        ("args", Value::List(vec!["eks".into(), "get-token".into()])),
        (
            "env",
            Value::Map([("AWS_PROFILE".to_owned(), Value::from("ci"))].into()),
        ),
    ])
}

#[test]
fn exec_and_client_certificates_go_with_host_alone() {
    let host = || ("host", Value::from("https://k8s.example"));
    let ok = kube(vec![
        host(),
        ("exec", exec_block("client.authentication.k8s.io/v1beta1")),
    ]);
    assert!(paths(ok.clone()).is_empty());
    let creds = static_credentials(block(&ok, "kubernetes").unwrap());
    let exec = creds.exec.unwrap();
    assert_eq!(exec.args, ["eks", "get-token"]);
    assert_eq!(exec.env["AWS_PROFILE"], "ci");
    assert!(creds.token.is_none() && creds.client_certificate.is_none());

    assert_eq!(
        paths(kube(vec![
            host(),
            ("exec", exec_block("client.authentication.k8s.io/v1alpha1"))
        ])),
        ["kubernetes.exec.api_version"]
    );
    assert_eq!(
        paths(kube(vec![
            host(),
            ("token", "t".into()),
            ("exec", exec_block("client.authentication.k8s.io/v1"))
        ])),
        ["kubernetes.exec"]
    );
    assert_eq!(
        paths(kube(vec![("exec", exec_block("client.authentication.k8s.io/v1"))])),
        ["kubernetes.exec"]
    );
    assert_eq!(
        paths(kube(vec![
            ("config_path", "/k".into()),
            ("client_certificate", "C".into()),
            ("client_key", "K".into())
        ])),
        ["kubernetes.client_certificate", "kubernetes.client_key"]
    );
    assert_eq!(
        paths(kube(vec![host(), ("client_certificate", "C".into())])),
        ["kubernetes.client_certificate"]
    );
    let certs = kube(vec![
        host(),
        ("client_certificate", "C".into()),
        ("client_key", "K".into()),
    ]);
    assert!(paths(certs.clone()).is_empty());
    let c = static_credentials(block(&certs, "kubernetes").unwrap())
        .client_certificate
        .unwrap();
    assert_eq!((c.certificate_pem.as_str(), c.key_pem.as_str()), ("C", "K"));
}
