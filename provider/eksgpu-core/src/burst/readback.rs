//! A burst scaler read back from its live objects (projected to the provider's fields): the
//! ScaledObject and the TriggerAuthentications the provider renders, in the shape the prior
//! state has (a site block only where the prior has one or the live objects need one).

use std::collections::BTreeMap;

use serde_json::Value;

use super::render::trigger_authentication_name;
use super::{
    ANNOTATION, AuthenticationRef, AwsSigV4, BurstScaler, PreWarm, SecretAuth, Site, SiteId, TRIGGER_AUTHENTICATION,
};

/// The scaler the live ScaledObject `live` and its rendered TriggerAuthentications (`auths`,
/// by [`SiteId::index`]; `None` where there is none of the scaler's) say, starting from `prior`.
pub fn read_back(prior: &BurstScaler, live: &Value, auths: [Option<&Value>; 2]) -> BurstScaler {
    let mut b = prior.clone();
    let spec = &live["spec"];
    let int = |v: &Value, d: i64| v.as_i64().unwrap_or(d);
    b.min_replicas = int(&spec["minReplicaCount"], 0);
    b.max_replicas = int(&spec["maxReplicaCount"], 100);
    b.polling_interval = int(&spec["pollingInterval"], 30);
    b.cooldown_period = int(&spec["cooldownPeriod"], 300);
    let target = &spec["scaleTargetRef"];
    b.target_name = target["name"].as_str().unwrap_or_default().to_owned();
    b.target_kind = target["kind"].as_str().unwrap_or("Deployment").to_owned();
    b.target_api_version = target["apiVersion"].as_str().unwrap_or("apps/v1").to_owned();
    let trigger = |id: SiteId| {
        spec["triggers"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|t| t["name"] == id.trigger())
            .cloned()
    };
    let threshold = |t: &Value, d: f64| {
        t["metadata"]["threshold"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .unwrap_or(d)
    };
    let on_prem = trigger(SiteId::OnPrem);
    let cloud = trigger(SiteId::Cloud);
    if let Some(t) = &on_prem {
        b.on_prem_waiting_query = t["metadata"]["query"].as_str().unwrap_or_default().to_owned();
        b.scale_out_threshold = threshold(t, b.scale_out_threshold);
    }
    if let Some(t) = &cloud {
        b.cloud_running_query = t["metadata"]["query"].as_str().unwrap_or_default().to_owned();
        b.hold_threshold = threshold(t, b.hold_threshold);
    }
    let live_sites = [
        on_prem.map(|t| site_of(prior, SiteId::OnPrem, &t, auths[0])),
        cloud.map(|t| site_of(prior, SiteId::Cloud, &t, auths[1])),
    ];
    sites_into(&mut b, prior, live_sites);
    if let Some(raw) = live["metadata"]["annotations"][ANNOTATION].as_str()
        && let Ok(s) = serde_json::from_str::<Value>(raw)
    {
        settings_into(&mut b, &s);
    }
    b
}

/// The live sites in the prior's shape: `prometheus_address` read from the first site that
/// uses it, an address in a block only where it is not that one, a block only where the prior
/// has one or the live site differs from the default.
fn sites_into(b: &mut BurstScaler, prior: &BurstScaler, live: [Option<Site>; 2]) {
    let uses_default = |id: SiteId| prior.site(id).is_none_or(|s| s.address.is_none());
    if prior.prometheus_address.is_some()
        && let Some(address) = SiteId::BOTH
            .iter()
            .filter(|id| uses_default(**id))
            .find_map(|id| live[id.index()].as_ref().and_then(|s| s.address.clone()))
    {
        b.prometheus_address = Some(address);
    }
    for (id, site) in SiteId::BOTH.into_iter().zip(live) {
        let Some(mut site) = site else { continue };
        if uses_default(id) && site.address == b.prometheus_address {
            site.address = None;
        }
        *b.site_mut(id) = (prior.site(id).is_some() || site != Site::default()).then_some(site);
    }
}

fn settings_into(b: &mut BurstScaler, s: &Value) {
    b.scale_in_threshold = s["scale_in_threshold"].as_f64().unwrap_or(b.scale_in_threshold);
    if let Some(v) = s["keda_version"]
        .as_str()
        .and_then(|v| crate::version::Version::parse(v).ok())
    {
        b.keda_version = v.as_tuple();
    }
    b.pre_warm = s["pre_warm"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|w| {
            Some(PreWarm {
                timezone: w["timezone"].as_str()?.into(),
                start: w["start"].as_str()?.into(),
                end: w["end"].as_str()?.into(),
            })
        })
        .collect();
}

/// `k1=v1,k2=v2` as KEDA reads it (items and both sides trimmed).
fn parse_pairs(v: &Value) -> BTreeMap<String, String> {
    v.as_str()
        .into_iter()
        .flat_map(|s| s.split(','))
        .filter_map(|item| {
            let (k, v) = item.split_once('=')?;
            Some((k.trim().to_owned(), v.trim().to_owned()))
        })
        .collect()
}

/// One site as its trigger (and the scaler's TriggerAuthentication for it, if any) says.
fn site_of(prior: &BurstScaler, id: SiteId, t: &Value, auth: Option<&Value>) -> Site {
    let md = &t["metadata"];
    let s = |k: &str| md[k].as_str().map(str::to_owned);
    let modes: Vec<String> = s("authModes")
        .into_iter()
        .flat_map(|m| m.split(',').map(|x| x.trim().to_owned()).collect::<Vec<_>>())
        .filter(|m| !m.is_empty())
        .collect();
    let mut site = Site {
        address: s("serverAddress"),
        namespace: s("namespace"),
        custom_headers: parse_pairs(&md["customHeaders"]),
        query_parameters: parse_pairs(&md["queryParameters"]),
        unsafe_ssl: md["unsafeSsl"].as_str() == Some("true"),
        ..Site::default()
    };
    let Some(name) = t["authenticationRef"]["name"].as_str() else {
        return site;
    };
    let kind = t["authenticationRef"]["kind"]
        .as_str()
        .filter(|k| !k.is_empty())
        .unwrap_or(TRIGGER_AUTHENTICATION);
    let rendered = name == trigger_authentication_name(prior, id) && kind == TRIGGER_AUTHENTICATION;
    match auth
        .filter(|_| rendered)
        .and_then(|a| rendered_auth(a, &modes, s("awsRegion")))
    {
        Some(Rendered::Secret(a)) => site.secret_auth = Some(a),
        Some(Rendered::Aws(a)) => site.aws_sigv4 = Some(a),
        // Someone else's object, or one of ours gone or changed beyond what the blocks say:
        // the reference as it is, which differs from the configuration, so the plan repairs it.
        None => {
            site.authentication_ref = Some(AuthenticationRef {
                name: name.to_owned(),
                kind: kind.to_owned(),
                auth_modes: modes,
            });
        }
    }
    site
}

enum Rendered {
    Secret(SecretAuth),
    Aws(AwsSigV4),
}

/// What a TriggerAuthentication of the scaler holds, when it is one the blocks can say.
fn rendered_auth(ta: &Value, modes: &[String], region: Option<String>) -> Option<Rendered> {
    let spec = &ta["spec"];
    let pod = &spec["podIdentity"];
    if pod["provider"] == "aws" {
        let s = |k: &str| pod[k].as_str().map(str::to_owned);
        return modes.is_empty().then(|| {
            Rendered::Aws(AwsSigV4 {
                region: region.unwrap_or_default(),
                role_arn: s("roleArn"),
                identity_owner: s("identityOwner"),
            })
        });
    }
    let refs = spec["secretTargetRef"].as_array()?;
    let [mode] = modes else { return None };
    let secret_name = refs.first()?["name"].as_str()?.to_owned();
    let mut keys = BTreeMap::new();
    for r in refs {
        if r["name"].as_str() != Some(&secret_name) {
            return None;
        }
        keys.insert(r["parameter"].as_str()?.to_owned(), r["key"].as_str()?.to_owned());
    }
    Some(Rendered::Secret(SecretAuth {
        mode: mode.clone(),
        secret_name,
        keys,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::burst::site_rules::tests::two_sites;
    use crate::burst::{manifest, seed_004_scaler, trigger_authentication};

    fn objects(b: &BurstScaler) -> (Value, Option<Value>, Option<Value>) {
        (
            manifest(b),
            trigger_authentication(b, SiteId::OnPrem),
            trigger_authentication(b, SiteId::Cloud),
        )
    }

    #[test]
    fn the_two_site_objects_read_back_as_the_scaler() {
        let b = two_sites();
        let (so, on, cloud) = objects(&b);
        assert_eq!(on.as_ref().unwrap()["metadata"]["name"], "vllm-burst-onprem");
        assert_eq!(cloud.as_ref().unwrap()["spec"]["podIdentity"]["provider"], "aws");
        let t = &so["spec"]["triggers"];
        assert_eq!(t[0]["metadata"]["authModes"], "bearer");
        assert_eq!(t[0]["authenticationRef"]["name"], "vllm-burst-onprem");
        assert_eq!(t[1]["metadata"]["awsRegion"], "us-west-2");
        assert!(
            t[1]["metadata"].get("authModes").is_none(),
            "a pod identity excludes authModes"
        );
        assert_eq!(read_back(&b, &so, [on.as_ref(), cloud.as_ref()]), b);
        // Settings of every kind, on a site that keeps prometheus_address.
        let mut b = seed_004_scaler();
        b.cloud = Some(Site {
            namespace: Some("tenant-a".into()),
            custom_headers: [("X-Scope-OrgID".to_owned(), "a".to_owned())].into(),
            query_parameters: [
                ("dedup".to_owned(), "true".to_owned()),
                ("x".to_owned(), "1".to_owned()),
            ]
            .into(),
            unsafe_ssl: true,
            authentication_ref: Some(AuthenticationRef {
                name: "shared".into(),
                kind: crate::burst::CLUSTER_TRIGGER_AUTHENTICATION.into(),
                auth_modes: vec!["tls".into(), "basic".into()],
            }),
            ..Site::default()
        });
        let so = manifest(&b);
        assert_eq!(
            so["spec"]["triggers"][1]["metadata"]["queryParameters"],
            "dedup=true,x=1"
        );
        assert_eq!(so["spec"]["triggers"][1]["metadata"]["authModes"], "tls,basic");
        assert_eq!(read_back(&b, &so, [None, None]), b);
    }

    #[test]
    fn an_import_reads_back_the_shortest_shape() {
        let blank = BurstScaler {
            prometheus_address: Some(String::new()),
            ..seed_004_scaler()
        };
        let one = seed_004_scaler();
        assert_eq!(read_back(&blank, &manifest(&one), [None, None]), one);
        // Two sites: the on-prem address becomes prometheus_address, the cloud's stays in its block.
        let b = two_sites();
        let (so, on, cloud) = objects(&b);
        let blank = BurstScaler {
            prometheus_address: Some(String::new()),
            name: b.name.clone(),
            ..seed_004_scaler()
        };
        let got = read_back(&blank, &so, [on.as_ref(), cloud.as_ref()]);
        assert_eq!(got.prometheus_address, b.on_prem.as_ref().unwrap().address);
        assert_eq!(got.on_prem.as_ref().unwrap().address, None);
        assert_eq!(
            got.on_prem.as_ref().unwrap().secret_auth,
            b.on_prem.as_ref().unwrap().secret_auth
        );
        assert_eq!(got.cloud, b.cloud);
        assert_eq!(manifest(&got), so, "renders the same objects");
    }

    #[test]
    fn a_missing_or_changed_trigger_authentication_reads_back_as_a_bare_reference() {
        let b = two_sites();
        let (so, on, _) = objects(&b);
        let got = read_back(&b, &so, [on.as_ref(), None]);
        let r = got.cloud.as_ref().unwrap().authentication_ref.as_ref().unwrap();
        assert_eq!(
            (r.name.as_str(), r.kind.as_str()),
            ("vllm-burst-cloud", "TriggerAuthentication")
        );
        assert_ne!(got, b, "the plan shows the difference and apply writes it again");
        let mut two_secrets = on.clone().unwrap();
        two_secrets["spec"]["secretTargetRef"][0]["name"] = "other".into();
        two_secrets["spec"]["secretTargetRef"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({"parameter": "ca", "name": "prom-token", "key": "ca.crt"}));
        let got = read_back(&b, &so, [Some(&two_secrets), None]);
        assert!(got.on_prem.unwrap().authentication_ref.is_some());
        // An out-of-band key change is drift of `keys`.
        let mut changed = on.unwrap();
        changed["spec"]["secretTargetRef"][0]["key"] = "other-key".into();
        let got = read_back(&b, &so, [Some(&changed), None]);
        assert_eq!(
            got.on_prem.unwrap().secret_auth.unwrap().keys["bearerToken"],
            "other-key"
        );
    }
}
