//! `eksgpu_sharing_pool` values ↔ the domain's [`SharingPool`], exactly: a
//! fractional count or a null in `profiles` is an error at its path.

use eksgpu_core::model::Capacity;
use eksgpu_core::sharing::{self, Dra, Hami, Mig, SharingPool, Slicing, Strategy, Workload};
use eksgpu_framework::model::{ModelError, Obj, ObjBuilder};
use eksgpu_tfplugin::Value;

fn strategy(s: &str) -> Result<Strategy, String> {
    Strategy::parse(s).ok_or_else(|| format!("{s:?} is not a sharing strategy"))
}

fn capacity(s: &str) -> Result<Capacity, String> {
    Capacity::parse(s).ok_or_else(|| format!("{s:?} is not a capacity kind"))
}

fn slicing(b: Option<Obj<'_>>, strategy: Strategy) -> Result<Option<Slicing>, ModelError> {
    b.map(|b| {
        Ok(Slicing {
            replicas: b.get("replicas")?,
            rename_by_default: b.get::<Option<bool>>("rename_by_default")?.unwrap_or(false),
            fail_requests_greater_than_one: b
                .get::<Option<bool>>("fail_requests_greater_than_one")?
                .unwrap_or(Slicing::default_fail_requests_greater_than_one(strategy)),
        })
    })
    .transpose()
}

/// The pool of a planned or stored value (defaults already planned).
pub(crate) fn read(v: &Value) -> Result<SharingPool, ModelError> {
    let o = Obj::new(v)?;
    let name: String = o.get("name")?;
    Ok(SharingPool {
        cluster_name: o.get("cluster_name")?,
        instance_type: o.get("instance_type")?,
        gpu_model: o.get("gpu_model")?,
        capacity: o.parse_opt("capacity", capacity)?,
        strategy: o.parse("strategy", strategy)?,
        config_namespace: o
            .get::<Option<String>>("config_namespace")?
            .unwrap_or_else(|| sharing::DEFAULT_CONFIG_NAMESPACE.into()),
        config_map: o
            .get::<Option<String>>("config_map")?
            .unwrap_or_else(|| sharing::DEFAULT_CONFIG_MAP.into()),
        time_slicing: slicing(o.block("time_slicing")?, Strategy::TimeSlicing)?,
        mps: slicing(o.block("mps")?, Strategy::Mps)?,
        mig: o
            .block("mig")?
            .map(|m| {
                Ok::<_, ModelError>(Mig {
                    strategy: m.get::<Option<String>>("strategy")?.unwrap_or_else(|| "single".into()),
                    profiles: m.get("profiles")?,
                    config: m.get("config")?,
                })
            })
            .transpose()?,
        dra: o
            .block("dra")?
            .map(|d| {
                Ok::<_, ModelError>(Dra {
                    namespace: d.get("namespace")?,
                    claim_name: d.get::<Option<String>>("claim_name")?.unwrap_or_else(|| name.clone()),
                    device_class: d
                        .get::<Option<String>>("device_class")?
                        .unwrap_or_else(|| "gpu.nvidia.com".into()),
                    count: d.get::<Option<i64>>("count")?.unwrap_or(1),
                    sharing: d
                        .get::<Option<String>>("sharing")?
                        .unwrap_or_else(|| "exclusive".into()),
                    create_namespace: d.get::<Option<bool>>("create_namespace")?.unwrap_or(false),
                })
            })
            .transpose()?,
        hami: o
            .block("hami")?
            .map(|h| {
                Ok::<_, ModelError>(Hami {
                    split_count: h.get::<Option<i64>>("split_count")?.unwrap_or(10),
                    memory_mib: h.get("memory_mib")?,
                    cores_percent: h.get("cores_percent")?,
                    memory_scaling: h.get::<Option<f64>>("memory_scaling")?.unwrap_or(1.0),
                    core_policy: h
                        .get::<Option<String>>("core_policy")?
                        .unwrap_or_else(|| "default".into()),
                })
            })
            .transpose()?,
        workloads: o.blocks("workload", |w| {
            Ok(Workload {
                name: w.get("name")?,
                memory_mib: w.get("memory_mib")?,
                namespace: w.get("namespace")?,
            })
        })?,
        name,
    })
}

fn slicing_value(s: &Slicing) -> Value {
    ObjBuilder::new()
        .set("replicas", s.replicas)
        .set("rename_by_default", s.rename_by_default)
        .set("fail_requests_greater_than_one", s.fail_requests_greater_than_one)
        .build()
}

/// The user-facing attributes of a pool (defaults concrete); computed ones are added by the resource.
pub(crate) fn write(p: &SharingPool) -> Value {
    ObjBuilder::new()
        .set("id", format!("{}/{}", p.cluster_name, p.name))
        .set("cluster_name", p.cluster_name.clone())
        .set("name", p.name.clone())
        .set("instance_type", p.instance_type.clone())
        .set("gpu_model", p.gpu_model.clone())
        .set("capacity", p.capacity.map(Capacity::as_str))
        .set("strategy", p.strategy.as_str())
        .set("config_namespace", p.config_namespace.clone())
        .set("config_map", p.config_map.clone())
        .set("force_conflicts", false)
        .raw("acknowledged_warnings", Value::Null)
        .one("time_slicing", p.time_slicing.as_ref().map(slicing_value))
        .one("mps", p.mps.as_ref().map(slicing_value))
        .one(
            "mig",
            p.mig.as_ref().map(|m| {
                ObjBuilder::new()
                    .set("strategy", m.strategy.clone())
                    .set("profiles", Some(m.profiles.clone()).filter(|p| !p.is_empty()))
                    .set("config", m.config.clone())
                    .build()
            }),
        )
        .one(
            "dra",
            p.dra.as_ref().map(|d| {
                ObjBuilder::new()
                    .set("namespace", d.namespace.clone())
                    .set("claim_name", d.claim_name.clone())
                    .set("device_class", d.device_class.clone())
                    .set("count", d.count)
                    .set("sharing", d.sharing.clone())
                    .set("create_namespace", d.create_namespace)
                    .build()
            }),
        )
        .one(
            "hami",
            p.hami.as_ref().map(|h| {
                ObjBuilder::new()
                    .set("split_count", h.split_count)
                    .set("memory_mib", h.memory_mib)
                    .set("cores_percent", h.cores_percent)
                    .set("memory_scaling", h.memory_scaling)
                    .set("core_policy", h.core_policy.clone())
                    .build()
            }),
        )
        .raw(
            "workload",
            Value::List(
                p.workloads
                    .iter()
                    .map(|w| {
                        ObjBuilder::new()
                            .set("name", w.name.clone())
                            .set("memory_mib", w.memory_mib)
                            .set("namespace", w.namespace.clone())
                            .build()
                    })
                    .collect(),
            ),
        )
        .build()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use eksgpu_framework::model::shape::{Expect, round_trip};
    use proptest::prelude::{Just, any, prop_assert_eq, prop_oneof, proptest};
    use proptest::strategy::Strategy as Gen;

    use super::*;

    fn name() -> impl Gen<Value = String> {
        "[a-z][a-z0-9-]{0,12}"
    }

    fn slicing() -> impl Gen<Value = Option<Slicing>> {
        proptest::option::of(
            (2..64i64, any::<bool>(), any::<bool>()).prop_map(|(replicas, r, f)| Slicing {
                replicas,
                rename_by_default: r,
                fail_requests_greater_than_one: f,
            }),
        )
    }

    fn pool() -> impl Gen<Value = SharingPool> {
        let mig = proptest::option::of(
            (
                prop_oneof![Just("single"), Just("mixed")],
                proptest::collection::btree_map("[1-7]g\\.[0-9]{1,3}gb", 1..8i64, 0..3),
                proptest::option::of(Just("all-balanced".to_owned())),
            )
                .prop_map(|(s, profiles, config)| Mig {
                    strategy: s.into(),
                    profiles,
                    config,
                }),
        );
        let dra = proptest::option::of(
            (name(), name(), 1..8i64, any::<bool>()).prop_map(|(ns, claim, count, c)| Dra {
                namespace: ns,
                claim_name: claim,
                device_class: "gpu.nvidia.com".into(),
                count,
                sharing: "exclusive".into(),
                create_namespace: c,
            }),
        );
        let hami = proptest::option::of(
            (
                1..64i64,
                proptest::option::of(1..80_000i64),
                proptest::option::of(0..100i64),
                0.1f64..4.0,
            )
                .prop_map(|(split_count, memory_mib, cores_percent, memory_scaling)| Hami {
                    split_count,
                    memory_mib,
                    cores_percent,
                    memory_scaling,
                    core_policy: "default".into(),
                }),
        );
        let workloads = proptest::collection::vec(
            (name(), 1..200_000i64, proptest::option::of(name())).prop_map(|(name, memory_mib, namespace)| Workload {
                name,
                memory_mib,
                namespace,
            }),
            0..3,
        );
        (
            (
                name(),
                name(),
                proptest::option::of("[a-z0-9]{2,4}\\.[0-9]{1,2}xlarge"),
                proptest::option::of("[A-Z][0-9]{2,3}"),
            ),
            (
                proptest::option::of(prop_oneof![Just(Capacity::Karpenter), Just(Capacity::ManagedNodeGroup)]),
                prop_oneof![Just(Strategy::Mig), Just(Strategy::Hami)],
                name(),
                name(),
            ),
            (slicing(), slicing(), mig, dra, hami, workloads),
        )
            .prop_map(
                |(
                    (cluster_name, name, instance_type, gpu_model),
                    (capacity, strategy, ns, cm),
                    (ts, mps, mig, dra, hami, workloads),
                )| {
                    SharingPool {
                        cluster_name,
                        name,
                        instance_type,
                        gpu_model,
                        capacity,
                        strategy,
                        config_namespace: ns,
                        config_map: cm,
                        time_slicing: ts,
                        mps,
                        mig,
                        dra,
                        hami,
                        workloads,
                    }
                },
            )
    }

    proptest! {
        /// The written inputs have exactly the schema's keys (the computed
        /// ones are the resource's to add), and reading them asks for none
        /// the schema lacks, nor for a computed one (the plan reads inputs).
        #[test]
        fn read_of_write_is_the_same_pool(p in pool()) {
            let block = &super::super::schema::cached().block;
            prop_assert_eq!(round_trip(block, Expect::Inputs, &write(&p), read), Ok(p));
        }
    }

    #[test]
    fn a_fractional_count_is_an_error_at_its_attribute() {
        let mut v = write(
            &read(&write(&SharingPool {
                cluster_name: "c".into(),
                name: "n".into(),
                instance_type: Some("p4d.24xlarge".into()),
                gpu_model: None,
                capacity: None,
                strategy: Strategy::Mig,
                config_namespace: "gpu-operator".into(),
                config_map: "device-plugin-config".into(),
                time_slicing: None,
                mps: None,
                mig: Some(Mig {
                    strategy: "single".into(),
                    profiles: BTreeMap::from([("1g.5gb".to_owned(), 7)]),
                    config: None,
                }),
                dra: None,
                hami: None,
                workloads: vec![],
            }))
            .unwrap(),
        );
        if let Value::Object(m) = &mut v {
            m.insert(
                "mig".into(),
                Value::object([
                    ("strategy", "single".into()),
                    (
                        "profiles",
                        Value::Map(BTreeMap::from([(
                            "1g.5gb".to_owned(),
                            Value::Number(eksgpu_tfplugin::Number::Float(2.5)),
                        )])),
                    ),
                    ("config", Value::Null),
                ]),
            );
        }
        let e = read(&v).unwrap_err();
        let d = e.diagnostic(&eksgpu_tfplugin::AttributePath::root());
        assert_eq!(d.path.unwrap().to_string(), r#"mig.profiles["1g.5gb"]"#);
    }
}
