//! Reading a sharing pool back: its settings from its record key, then what
//! the live device-plugin config key and ResourceClaim say (so an edit there
//! shows as drift of the attribute it changed).

use serde_json::Value;

use super::{Dra, Hami, Mig, SharingPool, Slicing, Strategy, Workload};
use crate::model::Capacity;

fn s(v: &Value) -> Option<String> {
    v.as_str().map(str::to_owned)
}

fn slicing(v: &Value, strategy: Strategy) -> Option<Slicing> {
    Some(Slicing {
        replicas: v["replicas"].as_i64()?,
        rename_by_default: v["rename_by_default"].as_bool().unwrap_or(false),
        fail_requests_greater_than_one: v["fail_requests_greater_than_one"]
            .as_bool()
            .unwrap_or(Slicing::default_fail_requests_greater_than_one(strategy)),
    })
}

/// The pool as its record key (JSON, written by `render::record`) describes it.
pub fn from_record(cluster: &str, name: &str, namespace: &str, record: &str) -> Option<SharingPool> {
    let r: Value = serde_json::from_str(record).ok()?;
    let strategy = Strategy::parse(r["strategy"].as_str()?)?;
    let mig = r.get("mig").filter(|m| m.is_object()).map(|m| Mig {
        strategy: s(&m["strategy"]).unwrap_or_else(|| "single".into()),
        profiles: m["profiles"]
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| Some((k.clone(), v.as_i64()?)))
            .collect(),
        config: s(&m["config"]),
    });
    let dra = r.get("dra").filter(|d| d.is_object()).and_then(|d| {
        Some(Dra {
            namespace: s(&d["namespace"])?,
            claim_name: s(&d["claim_name"])?,
            device_class: s(&d["device_class"])?,
            count: d["count"].as_i64()?,
            sharing: s(&d["sharing"])?,
            create_namespace: d["create_namespace"].as_bool().unwrap_or(false),
        })
    });
    let hami = r.get("hami").filter(|h| h.is_object()).map(|h| Hami {
        split_count: h["split_count"].as_i64().unwrap_or(10),
        memory_mib: h["memory_mib"].as_i64(),
        cores_percent: h["cores_percent"].as_i64(),
        memory_scaling: h["memory_scaling"].as_f64().unwrap_or(1.0),
        core_policy: s(&h["core_policy"]).unwrap_or_else(|| "default".into()),
    });
    Some(SharingPool {
        cluster_name: cluster.to_owned(),
        name: name.to_owned(),
        instance_type: s(&r["instance_type"]),
        gpu_model: s(&r["gpu_model"]),
        capacity: r["capacity"].as_str().and_then(Capacity::parse),
        strategy,
        config_namespace: namespace.to_owned(),
        config_map: s(&r["config_map"]).unwrap_or_else(|| super::DEFAULT_CONFIG_MAP.to_owned()),
        time_slicing: r.get("time_slicing").and_then(|v| slicing(v, Strategy::TimeSlicing)),
        mps: r.get("mps").and_then(|v| slicing(v, Strategy::Mps)),
        mig,
        dra,
        hami,
        workloads: r["workloads"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|w| {
                Some(Workload {
                    name: s(&w["name"])?,
                    memory_mib: w["memory_mib"].as_i64()?,
                    namespace: s(&w["namespace"]),
                })
            })
            .collect(),
    })
}

/// Overlays what the live objects say: the device-plugin config key (YAML, as
/// the device plugin reads it; `None` when the key is gone) and the
/// ResourceClaim (projected to the provider's fields; `None` when gone).
pub fn overlay_live(
    mut p: SharingPool,
    device_plugin_yaml: Option<Option<&str>>,
    claim: Option<Option<&Value>>,
) -> SharingPool {
    if let Some(live) = device_plugin_yaml {
        let key = if p.strategy == Strategy::Mps {
            "mps"
        } else {
            "timeSlicing"
        };
        let parsed = live
            .and_then(|y| serde_saphyr::from_str::<Value>(y).ok())
            .and_then(|cfg| {
                let sh = &cfg["sharing"][key];
                Some(Slicing {
                    replicas: sh["resources"][0]["replicas"].as_i64()?,
                    rename_by_default: sh["renameByDefault"].as_bool().unwrap_or(false),
                    fail_requests_greater_than_one: sh["failRequestsGreaterThanOne"]
                        .as_bool()
                        .unwrap_or(Slicing::default_fail_requests_greater_than_one(p.strategy)),
                })
            });
        match p.strategy {
            Strategy::Mps => p.mps = parsed,
            _ => p.time_slicing = parsed,
        }
    }
    if let (Some(live), Some(d)) = (claim, p.dra.as_mut()) {
        match live {
            None => p.dra = None,
            Some(c) => {
                let exactly = &c["spec"]["devices"]["requests"][0]["exactly"];
                if let Some(class) = exactly["deviceClassName"].as_str() {
                    d.device_class = class.to_owned();
                }
                d.count = exactly["count"].as_i64().unwrap_or(1);
                d.sharing =
                    match c["spec"]["devices"]["config"][0]["opaque"]["parameters"]["sharing"]["strategy"].as_str() {
                        Some("TimeSlicing") => "time_slicing".into(),
                        Some("MPS") => "mps".into(),
                        _ => "exclusive".into(),
                    };
            }
        }
    }
    p
}
