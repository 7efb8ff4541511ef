//! `eksgpu_burst_scaler` values ↔ the domain's [`BurstScaler`], exactly.

use eksgpu_core::burst::{self, BurstScaler, PreWarm, SiteId};
use eksgpu_core::version::Version;
use eksgpu_framework::model::{ModelError, Obj, ObjBuilder};
use eksgpu_tfplugin::Value;

/// The scaler of a planned or stored value (defaults planned by the framework).
pub(crate) fn read(v: &Value) -> Result<BurstScaler, ModelError> {
    let o = Obj::new(v)?;
    let target = o
        .block("target")?
        .ok_or_else(|| ModelError::invalid("a `target` block is required"))?;
    let keda = o
        .parse_opt("keda_version", |s| Version::parse(s).map_err(|e| e.to_string()))?
        .unwrap_or(Version::new(2, 20));
    Ok(BurstScaler {
        cluster_name: o.get("cluster_name")?,
        namespace: o.get("namespace")?,
        name: o.get("name")?,
        target_kind: target
            .get::<Option<String>>("kind")?
            .unwrap_or_else(|| "Deployment".into()),
        target_name: target.get("name")?,
        target_api_version: target
            .get::<Option<String>>("api_version")?
            .unwrap_or_else(|| "apps/v1".into()),
        min_replicas: o.get::<Option<i64>>("min_replicas")?.unwrap_or(0),
        max_replicas: o.get("max_replicas")?,
        polling_interval: o.get::<Option<i64>>("polling_interval")?.unwrap_or(15),
        cooldown_period: o.get::<Option<i64>>("cooldown_period")?.unwrap_or(300),
        prometheus_address: o.get("prometheus_address")?,
        on_prem: super::site_model::read(&o, SiteId::OnPrem.block())?,
        cloud: super::site_model::read(&o, SiteId::Cloud.block())?,
        on_prem_waiting_query: o.get("on_prem_waiting_query")?,
        scale_out_threshold: o.get::<Option<f64>>("scale_out_threshold")?.unwrap_or(20.0),
        cloud_running_query: o.get("cloud_running_query")?,
        hold_threshold: o.get::<Option<f64>>("hold_threshold")?.unwrap_or(10.0),
        scale_in_threshold: o.get::<Option<f64>>("scale_in_threshold")?.unwrap_or(5.0),
        pre_warm: o.blocks("pre_warm", |w| {
            Ok(PreWarm {
                timezone: w.get("timezone")?,
                start: w.get("start")?,
                end: w.get("end")?,
            })
        })?,
        keda_version: keda.as_tuple(),
        target_capacity_types: o.get("target_capacity_types")?,
        spot_interruption_handling: o.get::<Option<bool>>("spot_interruption_handling")?.unwrap_or(false),
    })
}

/// `manifests_yaml`: the TriggerAuthentications, then the ScaledObject.
pub(crate) fn manifests_yaml(b: &BurstScaler) -> String {
    eksgpu_core::yaml::to_yaml_stream(&burst::manifests(b))
}

/// The state of a scaler: its attributes and the computed formula and YAML.
/// `target_capacity_types` and the flags are not in the cluster: the caller
/// keeps the prior state's.
pub(crate) fn write(b: &BurstScaler) -> Value {
    let (major, minor) = b.keda_version;
    ObjBuilder::new()
        .set("id", format!("{}/{}/{}", b.cluster_name, b.namespace, b.name))
        .set("cluster_name", b.cluster_name.clone())
        .set("namespace", b.namespace.clone())
        .set("name", b.name.clone())
        .set("min_replicas", b.min_replicas)
        .set("max_replicas", b.max_replicas)
        .set("polling_interval", b.polling_interval)
        .set("cooldown_period", b.cooldown_period)
        .set("prometheus_address", b.prometheus_address.clone())
        .one(SiteId::OnPrem.block(), super::site_model::write(b.on_prem.as_ref()))
        .one(SiteId::Cloud.block(), super::site_model::write(b.cloud.as_ref()))
        .set("on_prem_waiting_query", b.on_prem_waiting_query.clone())
        .set("scale_out_threshold", b.scale_out_threshold)
        .set("cloud_running_query", b.cloud_running_query.clone())
        .set("hold_threshold", b.hold_threshold)
        .set("scale_in_threshold", b.scale_in_threshold)
        .set("keda_version", Version::new(major, minor).to_string())
        .set(
            "target_capacity_types",
            Some(b.target_capacity_types.clone()).filter(|t| !t.is_empty()),
        )
        .set("spot_interruption_handling", b.spot_interruption_handling)
        .set("force_conflicts", false)
        .raw("acknowledged_warnings", Value::Null)
        // Settings of the apply, not of the scaler: the caller keeps the prior state's.
        .null("wait_for_ready")
        .null("ready_timeout")
        .one(
            "target",
            Some(
                ObjBuilder::new()
                    .set("name", b.target_name.clone())
                    .set("kind", b.target_kind.clone())
                    .set("api_version", b.target_api_version.clone())
                    .build(),
            ),
        )
        .blocks(
            "pre_warm",
            b.pre_warm.iter().map(|w| {
                ObjBuilder::new()
                    .set("timezone", w.timezone.clone())
                    .set("start", w.start.clone())
                    .set("end", w.end.clone())
                    .build()
            }),
        )
        .set("formula", burst::formula(b))
        .set("manifests_yaml", manifests_yaml(b))
        // The instance's, not the scaler's: set by create and import, kept by read (`with_prior`).
        .set("owner_token", Option::<String>::None)
        .build()
}

#[cfg(test)]
mod tests {
    use eksgpu_framework::model::shape::{Expect, round_trip};
    use proptest::prelude::*;

    use super::*;
    use eksgpu_core::burst::{
        AuthenticationRef, AwsSigV4, CLUSTER_TRIGGER_AUTHENTICATION, SecretAuth, Site, TRIGGER_AUTHENTICATION,
    };

    fn map() -> impl Strategy<Value = std::collections::BTreeMap<String, String>> {
        proptest::collection::btree_map("[A-Za-z][A-Za-z0-9-]{0,8}", "[a-z0-9]{0,6}", 0..3)
    }

    fn site() -> impl Strategy<Value = Option<Site>> {
        let auth = prop_oneof![
            Just((None, None, None)),
            (
                "[a-z]{1,8}",
                prop_oneof![Just(TRIGGER_AUTHENTICATION), Just(CLUSTER_TRIGGER_AUTHENTICATION)],
                proptest::collection::vec(prop_oneof![Just("bearer"), Just("tls")], 0..2)
            )
                .prop_map(|(name, kind, modes)| (
                    Some(AuthenticationRef {
                        name,
                        kind: kind.into(),
                        auth_modes: modes.into_iter().map(str::to_owned).collect(),
                    }),
                    None,
                    None
                )),
            ("[a-z]{1,8}", map()).prop_map(|(secret_name, keys)| (
                None,
                Some(SecretAuth {
                    mode: "bearer".into(),
                    secret_name,
                    keys,
                }),
                None
            )),
            (
                proptest::option::of(Just("arn:aws:iam::123456789012:role/r".to_owned())),
                proptest::option::of(prop_oneof![Just("keda".to_owned()), Just("workload".to_owned())])
            )
                .prop_map(|(role_arn, identity_owner)| (
                    None,
                    None,
                    Some(AwsSigV4 {
                        region: "us-west-2".into(),
                        role_arn,
                        identity_owner,
                    })
                )),
        ];
        proptest::option::of(
            (
                proptest::option::of(Just("https://prometheus.onprem:9090".to_owned())),
                proptest::option::of("[a-z]{1,6}"),
                map(),
                map(),
                any::<bool>(),
                auth,
            )
                .prop_map(
                    |(address, namespace, custom_headers, query_parameters, unsafe_ssl, (r, s, a))| Site {
                        address,
                        namespace,
                        custom_headers,
                        query_parameters,
                        unsafe_ssl,
                        authentication_ref: r,
                        secret_auth: s,
                        aws_sigv4: a,
                    },
                ),
        )
    }

    fn scaler() -> impl Strategy<Value = BurstScaler> {
        let name = "[a-z][a-z0-9-]{0,12}";
        (
            (name, name, name, name),
            (0..10i64, 1..100i64, 1..600i64, 0..3600i64),
            (0.0f64..1e6, 0.0f64..1e6, 0.0f64..1e6),
            proptest::collection::vec((name, "[0-9*]{1,2} [0-9*] \\* \\* \\*"), 0..3),
            (
                1..3u32,
                0..30u32,
                proptest::collection::vec(prop_oneof![Just("spot"), Just("on-demand")], 0..2),
                any::<bool>(),
            ),
            (
                proptest::option::of(Just("http://prometheus:9090".to_owned())),
                site(),
                site(),
            ),
        )
            .prop_map(
                |(
                    (c, ns, n, t),
                    (min, max, poll, cool),
                    (out, hold, inn),
                    warm,
                    (ma, mi, types, spot),
                    (prom, on_prem, cloud),
                )| BurstScaler {
                    cluster_name: c,
                    namespace: ns,
                    name: n,
                    target_kind: "Deployment".into(),
                    target_name: t,
                    target_api_version: "apps/v1".into(),
                    min_replicas: min,
                    max_replicas: max,
                    polling_interval: poll,
                    cooldown_period: cool,
                    prometheus_address: prom,
                    on_prem,
                    cloud,
                    on_prem_waiting_query: "sum(w)".into(),
                    scale_out_threshold: out,
                    cloud_running_query: "sum(r)".into(),
                    hold_threshold: hold,
                    scale_in_threshold: inn,
                    pre_warm: warm
                        .into_iter()
                        .map(|(tz, cron)| PreWarm {
                            timezone: tz,
                            start: cron.clone(),
                            end: cron,
                        })
                        .collect(),
                    keda_version: (ma, mi),
                    target_capacity_types: types.into_iter().map(str::to_owned).collect(),
                    spot_interruption_handling: spot,
                },
            )
    }

    proptest! {
        /// The written state has exactly the schema's keys, and reading it
        /// asks for none the schema lacks.
        #[test]
        fn read_of_write_is_the_same_scaler(b in scaler()) {
            let block = &super::super::schema::cached().block;
            prop_assert_eq!(round_trip(block, Expect::Everything, &write(&b), read), Ok(b));
        }
    }
}
