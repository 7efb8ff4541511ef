use std::collections::BTreeMap;

use serde_json::json;

use super::*;
use crate::burst::{AuthenticationRef, AwsSigV4, SecretAuth, TRIGGER_AUTHENTICATION, seed_004_scaler};

const AMP: &str = "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-0123abcd";

fn keys(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
}

fn bearer() -> SecretAuth {
    SecretAuth {
        mode: "bearer".into(),
        secret_name: "prom-token".into(),
        keys: keys(&[("bearerToken", "token")]),
    }
}

fn amp(role: Option<&str>) -> AwsSigV4 {
    AwsSigV4 {
        region: "us-west-2".into(),
        role_arn: role.map(str::to_owned),
        identity_owner: None,
    }
}

const ROLE: &str = "arn:aws:iam::123456789012:role/keda-amp-query";

/// The seed 004 pair: a bearer token on-prem, Amazon Managed Prometheus with its own role in the cloud.
pub(crate) fn two_sites() -> BurstScaler {
    BurstScaler {
        prometheus_address: None,
        on_prem: Some(Site {
            address: Some("https://prometheus.onprem.example:9090".into()),
            secret_auth: Some(bearer()),
            ..Site::default()
        }),
        cloud: Some(Site {
            address: Some(AMP.into()),
            aws_sigv4: Some(amp(Some(ROLE))),
            ..Site::default()
        }),
        ..seed_004_scaler()
    }
}

fn codes(b: &BurstScaler) -> Vec<(Code, Vec<Step>)> {
    check_sites(b).into_iter().map(|v| (v.code, v.path)).collect()
}

fn at(block: &'static str, rest: &[Step]) -> Vec<Step> {
    let mut p = vec![Step::Attr(block), Step::Index(0)];
    p.extend_from_slice(rest);
    p
}

#[test]
fn the_two_site_scaler_and_the_one_address_one_are_clean() {
    assert_eq!(codes(&two_sites()), []);
    assert_eq!(codes(&seed_004_scaler()), []);
}

#[test]
fn eksgpu240_a_site_without_an_address() {
    let mut b = two_sites();
    b.cloud.as_mut().unwrap().address = None;
    assert_eq!(codes(&b), [(Code::EKSGPU240, vec![Step::Attr("prometheus_address")])]);
    b.prometheus_address = Some("http://prometheus.monitoring:9090".into());
    b.cloud.as_mut().unwrap().aws_sigv4 = None;
    assert_eq!(codes(&b), []);
}

#[test]
fn eksgpu240_keys_a_mode_needs_and_keys_it_does_not_read() {
    let keys_at = |k: Option<&str>| {
        let mut p = at(
            "on_prem_prometheus",
            &[Step::Attr("secret_auth"), Step::Index(0), Step::Attr("keys")],
        );
        p.extend(k.map(|k| Step::Key(k.into())));
        p
    };
    for (mode, given, found) in [
        ("bearer", vec![("token", "t")], vec![None, Some("token")]),
        (
            "basic",
            vec![("username", "u"), ("password", "p"), ("ca", "ca.crt")],
            vec![],
        ),
        ("basic", vec![("password", "p")], vec![None]),
        ("tls", vec![("cert", "tls.crt")], vec![None]),
        (
            "tls",
            vec![("cert", "tls.crt"), ("key", "tls.key"), ("ca", "ca.crt")],
            vec![],
        ),
        (
            "custom",
            vec![("customAuthHeader", "h"), ("customAuthValue", "v")],
            vec![],
        ),
        (
            "custom",
            vec![("customAuthValue", "v"), ("bearerToken", "b")],
            vec![None, Some("bearerToken")],
        ),
    ] {
        let mut b = two_sites();
        b.on_prem.as_mut().unwrap().secret_auth = Some(SecretAuth {
            mode: mode.into(),
            secret_name: "s".into(),
            keys: keys(&given),
        });
        let want: Vec<_> = found.into_iter().map(|k| (Code::EKSGPU240, keys_at(k))).collect();
        assert_eq!(codes(&b), want, "{mode} {given:?}");
    }
}

#[test]
fn eksgpu240_auth_modes_keda_refuses_to_parse() {
    let mut b = two_sites();
    b.on_prem.as_mut().unwrap().secret_auth = None;
    for (modes, refused) in [
        (vec!["tls", "basic"], false),
        (vec!["bearer", "basic"], true),
        (vec!["tls", "tls"], true),
        (vec![], false),
    ] {
        b.on_prem.as_mut().unwrap().authentication_ref = Some(AuthenticationRef {
            name: "prom".into(),
            kind: TRIGGER_AUTHENTICATION.into(),
            auth_modes: modes.iter().map(|m| (*m).to_owned()).collect(),
        });
        let want = at(
            "on_prem_prometheus",
            &[
                Step::Attr("authentication_ref"),
                Step::Index(0),
                Step::Attr("auth_modes"),
            ],
        );
        let got = codes(&b);
        assert_eq!(got == [(Code::EKSGPU240, want)], refused, "{modes:?}: {got:?}");
    }
}

#[test]
fn eksgpu241_two_authentications_on_one_site() {
    let mut b = two_sites();
    b.cloud.as_mut().unwrap().secret_auth = Some(bearer());
    assert_eq!(
        codes(&b),
        [(Code::EKSGPU241, at("cloud_prometheus", &[Step::Attr("aws_sigv4")]))]
    );
}

#[test]
fn eksgpu242_unsafe_ssl_keda_ignores() {
    let unsafe_at = |block| (Code::EKSGPU242, at(block, &[Step::Attr("unsafe_ssl")]));
    // With a bearer token and no CA KEDA honours it.
    let mut b = two_sites();
    b.on_prem.as_mut().unwrap().unsafe_ssl = true;
    assert_eq!(codes(&b), []);
    b.on_prem
        .as_mut()
        .unwrap()
        .secret_auth
        .as_mut()
        .unwrap()
        .keys
        .insert("ca".into(), "ca.crt".into());
    assert_eq!(codes(&b), [unsafe_at("on_prem_prometheus")]);
    let mut b = two_sites();
    b.on_prem.as_mut().unwrap().unsafe_ssl = true;
    b.on_prem.as_mut().unwrap().secret_auth = Some(SecretAuth {
        mode: "tls".into(),
        secret_name: "client".into(),
        keys: keys(&[("cert", "tls.crt"), ("key", "tls.key")]),
    });
    assert_eq!(codes(&b), [unsafe_at("on_prem_prometheus")]);
    let mut b = two_sites();
    b.cloud.as_mut().unwrap().unsafe_ssl = true;
    assert_eq!(codes(&b), [unsafe_at("cloud_prometheus")]);
}

#[test]
fn eksgpu243_to_245_and_the_workload_role_on_aws_sigv4() {
    let aws_at = |attr| {
        at(
            "cloud_prometheus",
            &[Step::Attr("aws_sigv4"), Step::Index(0), Step::Attr(attr)],
        )
    };
    // The operator's own credentials.
    let mut b = two_sites();
    b.cloud.as_mut().unwrap().aws_sigv4 = Some(amp(None));
    assert_eq!(codes(&b), [(Code::EKSGPU243, aws_at("role_arn"))]);
    // The workload's role: no warning; with a role_arn as well, KEDA's webhook refuses it.
    let aws = b.cloud.as_mut().unwrap().aws_sigv4.as_mut().unwrap();
    aws.identity_owner = Some("workload".into());
    assert_eq!(codes(&b), []);
    b.cloud.as_mut().unwrap().aws_sigv4.as_mut().unwrap().role_arn = Some(ROLE.into());
    assert_eq!(codes(&b), [(Code::EKSGPU240, aws_at("role_arn"))]);
    // Not an AMP endpoint: the signature goes elsewhere (at the address that says so).
    let mut b = two_sites();
    b.cloud.as_mut().unwrap().address = Some("https://prometheus.example.com".into());
    assert_eq!(
        codes(&b),
        [(Code::EKSGPU244, at("cloud_prometheus", &[Step::Attr("address")]))]
    );
    b.cloud.as_mut().unwrap().address = None;
    b.prometheus_address = Some("http://prometheus.monitoring:9090".into());
    assert_eq!(codes(&b), [(Code::EKSGPU244, vec![Step::Attr("prometheus_address")])]);
    // Signed for another region than the workspace's.
    let mut b = two_sites();
    b.cloud.as_mut().unwrap().aws_sigv4.as_mut().unwrap().region = "us-east-1".into();
    assert_eq!(codes(&b), [(Code::EKSGPU245, aws_at("region"))]);
}

#[test]
fn amp_endpoints_and_their_regions() {
    for (address, region) in [
        (AMP, Some("us-west-2")),
        (
            "https://aps-workspaces-fips.us-east-2.amazonaws.com/workspaces/ws-1",
            Some("us-east-2"),
        ),
        (
            "https://aps-workspaces.eu-west-1.api.aws/workspaces/ws-1",
            Some("eu-west-1"),
        ),
        (
            "https://vpce-0a1b-2c3d.aps-workspaces.us-west-2.vpce.amazonaws.com/workspaces/ws-1",
            Some("us-west-2"),
        ),
        (
            "https://aps-workspaces.us-west-2.amazonaws.com:443/workspaces/ws-1",
            Some("us-west-2"),
        ),
        ("http://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-1", None),
        ("https://aps-workspaces.us-west-2.amazonaws.com/", None),
        ("https://aps-workspaces.us-west-2.example.com/workspaces/ws-1", None),
        ("https://prometheus.monitoring:9090", None),
    ] {
        assert_eq!(amp_region(address), region, "{address}");
    }
}

#[test]
fn eksgpu246_settings_newer_than_keda() {
    let mut b = two_sites();
    b.keda_version = (2, 12);
    b.on_prem.as_mut().unwrap().query_parameters = keys(&[("dedup", "true")]);
    assert_eq!(
        codes(&b),
        [
            (
                Code::EKSGPU246,
                at("on_prem_prometheus", &[Step::Attr("query_parameters")])
            ),
            (Code::EKSGPU246, at("cloud_prometheus", &[Step::Attr("aws_sigv4")])),
        ]
    );
    b.keda_version = (2, 13);
    assert_eq!(codes(&b), []);
}

fn with_ref(kind: &str, modes: &[&str]) -> BurstScaler {
    let mut b = two_sites();
    let site = b.on_prem.as_mut().unwrap();
    site.secret_auth = None;
    site.authentication_ref = Some(AuthenticationRef {
        name: "prom".into(),
        kind: kind.into(),
        auth_modes: modes.iter().map(|m| (*m).to_owned()).collect(),
    });
    b
}

fn referenced(b: &BurstScaler, found: Option<serde_json::Value>) -> Vec<(Code, Step, String)> {
    check_referenced(b, SiteId::OnPrem, found.as_ref())
        .into_iter()
        .map(|v| (v.code, v.path.last().cloned().unwrap(), v.detail))
        .collect()
}

#[test]
fn eksgpu247_a_reference_to_nothing_and_the_checks_of_what_it_names() {
    let b = with_ref(TRIGGER_AUTHENTICATION, &["bearer"]);
    let r = referenced(&b, None);
    assert_eq!((r[0].0, &r[0].1), (Code::EKSGPU247, &Step::Attr("name")));
    assert!(r[0].2.contains("TriggerAuthentication llm/prom"), "{}", r[0].2);
    let b = with_ref(crate::burst::CLUSTER_TRIGGER_AUTHENTICATION, &[]);
    assert!(referenced(&b, None)[0].2.contains("ClusterTriggerAuthentication prom,"));

    let bearer_ta = json!({"spec": {"secretTargetRef": [{"parameter": "bearerToken", "name": "s", "key": "t"}]}});
    let pod_identity = json!({"spec": {"podIdentity": {"provider": "aws"}}});
    // A pod identity with auth modes (EKSGPU241); without, fine.
    let b = with_ref(TRIGGER_AUTHENTICATION, &["bearer"]);
    assert_eq!(referenced(&b, Some(pod_identity.clone()))[0].0, Code::EKSGPU241);
    assert_eq!(referenced(&b, Some(bearer_ta.clone())), []);
    let b = with_ref(TRIGGER_AUTHENTICATION, &[]);
    assert_eq!(referenced(&b, Some(pod_identity)), []);
    assert_eq!(
        referenced(&b, Some(json!({"spec": {"podIdentity": {"provider": "none"}}}))),
        []
    );
    // Credentials with no mode on: KEDA sends none of them (unless the object gives authModes).
    let r = referenced(&b, Some(bearer_ta));
    assert_eq!((r[0].0, &r[0].1), (Code::EKSGPU240, &Step::Attr("auth_modes")));
    let with_modes = json!({"spec": {"secretTargetRef": [
        {"parameter": "bearerToken", "name": "s", "key": "t"}, {"parameter": "authModes", "name": "s", "key": "m"}]}});
    assert_eq!(referenced(&b, Some(with_modes)), []);
    // A site without a reference has nothing to check.
    assert_eq!(check_referenced(&two_sites(), SiteId::OnPrem, None), []);
}
