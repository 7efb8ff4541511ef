//! What a sharing pool renders: node labels, container requests, the
//! device-plugin config key, the DRA ResourceClaim, HAMi Helm values, and the
//! record key that lets `terraform import` find any pool.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::{SharingPool, Strategy};
use crate::catalog::{MigLayout, MigProfileName};
use crate::kinds::{self, labels};
use crate::render::{DEPLOY_DEVICE_PLUGIN, DEVICE_PLUGIN_CONFIG, MIG_CONFIG, Manifest};
use crate::yaml;

/// Where the GPU Operator's Helm chart installs, and the ConfigMap its
/// ClusterPolicy's `devicePlugin.config.name` points at.
pub const DEFAULT_CONFIG_NAMESPACE: &str = "gpu-operator";
pub const DEFAULT_CONFIG_MAP: &str = "device-plugin-config";
/// One key per sharing pool with its settings, next to the device-plugin config.
pub const RECORD_CONFIG_MAP: &str = "eksgpu-sharing-pools";

/// Labels the pool's nodes need (merge them into a node strategy pool's `labels`).
pub fn node_labels(p: &SharingPool) -> BTreeMap<String, String> {
    let mut l = BTreeMap::new();
    let mut set = |k: &str, v: &str| {
        l.insert(k.to_owned(), v.to_owned());
    };
    match p.strategy {
        Strategy::Exclusive => {}
        Strategy::TimeSlicing | Strategy::Mps => set(DEVICE_PLUGIN_CONFIG, &p.name),
        Strategy::Mig => {
            if let Some(c) = p.mig_config_name() {
                set(MIG_CONFIG, &c);
            }
        }
        // The DRA driver and HAMi each replace the device plugin on their nodes.
        Strategy::Dra => set(DEPLOY_DEVICE_PLUGIN, "false"),
        Strategy::Hami => {
            set("gpu", "on");
            set(DEPLOY_DEVICE_PLUGIN, "false");
        }
    }
    l.extend(super::handover::handover_labels(p));
    l
}

/// What one container puts in `resources.limits` for its share.
pub fn resource_requests(p: &SharingPool) -> BTreeMap<String, String> {
    let one = |k: &str| BTreeMap::from([(k.to_owned(), "1".to_owned())]);
    match p.strategy {
        Strategy::Exclusive => one("nvidia.com/gpu"),
        Strategy::TimeSlicing | Strategy::Mps => {
            let renamed = [&p.time_slicing, &p.mps]
                .into_iter()
                .flatten()
                .any(|s| s.rename_by_default);
            one(if renamed {
                "nvidia.com/gpu.shared"
            } else {
                "nvidia.com/gpu"
            })
        }
        Strategy::Mig => {
            let mixed = p.mig.as_ref().is_some_and(|m| m.strategy == "mixed");
            // Under `mixed` each profile is its own resource; the smallest serves a container.
            let smallest = p.mig.as_ref().and_then(|m| {
                let from_profiles = m.profiles.keys().filter_map(|k| MigProfileName::parse(k)).min();
                from_profiles.or_else(|| match MigLayout::parse(m.config.as_deref()?) {
                    MigLayout::Balanced => {
                        let gpu = p.gpus().first().and_then(|t| t.mig)?;
                        gpu.balanced.first().and_then(|(n, _)| MigProfileName::parse(n))
                    }
                    MigLayout::All(profile) => Some(profile),
                    _ => None,
                })
            });
            match (mixed, smallest) {
                // `+` is written `.` (k8s-device-plugin v0.20.0 internal/rm/rm.go).
                (true, Some(profile)) => one(&profile.resource_name()),
                _ => one("nvidia.com/gpu"),
            }
        }
        Strategy::Dra => BTreeMap::new(),
        Strategy::Hami => {
            let mut m = one("nvidia.com/gpu");
            if let Some(h) = &p.hami {
                if let Some(mem) = h.memory_mib {
                    m.insert("nvidia.com/gpumem".into(), mem.to_string());
                }
                if let Some(c) = h.cores_percent {
                    m.insert("nvidia.com/gpucores".into(), c.to_string());
                }
            }
            m
        }
    }
}

/// The device plugin's config for this pool (k8s-device-plugin v0.20 `version: v1`).
pub fn device_plugin_config(p: &SharingPool) -> Option<Value> {
    let s = match p.strategy {
        Strategy::TimeSlicing => p.time_slicing.as_ref()?,
        Strategy::Mps => p.mps.as_ref()?,
        _ => return None,
    };
    Some(slicing_config(p.strategy, s))
}

/// A time-slicing or MPS config document (k8s-device-plugin v0.20.0 api/config/v1 `Config`:
/// `sharing.timeSlicing` / `sharing.mps`, `ReplicatedResources`).
pub(crate) fn slicing_config(strategy: Strategy, s: &super::Slicing) -> Value {
    let key = if strategy == Strategy::Mps {
        "mps"
    } else {
        "timeSlicing"
    };
    json!({
        "version": "v1",
        "flags": {"migStrategy": "none"},
        "sharing": { key: {
            "renameByDefault": s.rename_by_default,
            "failRequestsGreaterThanOne": s.fail_requests_greater_than_one,
            "resources": [{"name": "nvidia.com/gpu", "replicas": s.replicas}],
        }},
    })
}

/// Helm values for the HAMi chart (`hami-charts/hami` v2.10).
pub fn hami_values(p: &SharingPool) -> Option<Value> {
    let h = p.hami.as_ref().filter(|_| p.strategy == Strategy::Hami)?;
    Some(json!({
        "devicePlugin": {
            "deviceSplitCount": h.split_count,
            "deviceMemoryScaling": h.memory_scaling,
            "deviceCoreScaling": 1,
            "nvidiaNodeSelector": {"gpu": "on"},
            // The HAMi device-plugin DaemonSet (chart v2.10 templates/device-plugin/daemonsetnvidia.yaml,
            // `devicePlugin.tolerations`) must reach GPU nodes whatever their pool's taints
            // (`nvidia.com/gpu`, `workload=training`, …); the `gpu: on` node selector already keeps it
            // to HAMi nodes, so it tolerates every taint rather than a list that misses a pool's own.
            "tolerations": [{"operator": "Exists"}],
        },
        "devices": {"nvidia": {"gpuCorePolicy": h.core_policy}},
    }))
}

/// The pool's settings, as its record key holds them (and import reads them).
pub fn record(p: &SharingPool) -> Value {
    let mut m = Map::new();
    m.insert("strategy".into(), p.strategy.as_str().into());
    m.insert("instance_type".into(), p.instance_type.clone().into());
    m.insert("gpu_model".into(), p.gpu_model.clone().into());
    m.insert("capacity".into(), p.capacity.map(|c| c.as_str()).into());
    m.insert("config_map".into(), p.config_map.clone().into());
    if let Some(s) = p.time_slicing.as_ref().or(p.mps.as_ref()) {
        m.insert(
            p.strategy.as_str().into(),
            json!({"replicas": s.replicas, "rename_by_default": s.rename_by_default, "fail_requests_greater_than_one": s.fail_requests_greater_than_one}),
        );
    }
    if let Some(g) = &p.mig {
        m.insert(
            "mig".into(),
            json!({"strategy": g.strategy, "profiles": g.profiles, "config": g.config}),
        );
    }
    if let Some(d) = &p.dra {
        m.insert("dra".into(), json!({"namespace": d.namespace, "claim_name": d.claim_name, "device_class": d.device_class, "count": d.count, "sharing": d.sharing, "create_namespace": d.create_namespace}));
    }
    if let Some(h) = &p.hami {
        m.insert(
            "hami".into(),
            json!({"split_count": h.split_count, "memory_mib": h.memory_mib, "cores_percent": h.cores_percent, "memory_scaling": h.memory_scaling, "core_policy": h.core_policy}),
        );
    }
    let workloads: Vec<Value> = p
        .workloads
        .iter()
        .map(|w| json!({"name": w.name, "memory_mib": w.memory_mib, "namespace": w.namespace}))
        .collect();
    m.insert("workloads".into(), Value::Array(workloads));
    Value::Object(m)
}

fn meta(p: &SharingPool, name: &str, namespace: &str) -> Value {
    json!({"name": name, "namespace": namespace, "labels": {
        labels::MANAGED_BY: labels::MANAGED_BY_VALUE, labels::CLUSTER: labels::cluster_value(&p.cluster_name), SHARING_POOL_LABEL: p.name}})
}

/// Label on objects a sharing pool owns outright (the DRA claim).
pub const SHARING_POOL_LABEL: &str = "eksgpu.terraform.io/sharing-pool";

/// The objects the pool applies, each under the pool's own field manager:
/// its record key, its device-plugin config key (time-slicing, MPS), and its
/// ResourceClaim (DRA). ConfigMaps are shared: each pool owns only its key.
pub fn manifests(p: &SharingPool) -> Vec<Manifest> {
    let config_map = |name: &str, key: &str, value: String| Manifest {
        kind: kinds::CONFIG_MAP,
        name: name.to_owned(),
        namespace: Some(p.config_namespace.clone()),
        body: json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "namespace": p.config_namespace}, "data": {key: value}}),
    };
    let mut out = vec![config_map(RECORD_CONFIG_MAP, &p.name, record(p).to_string())];
    if let Some(cfg) = device_plugin_config(p) {
        out.push(config_map(&p.config_map, &p.name, yaml::to_yaml(&cfg)));
    }
    if let (Strategy::Dra, Some(d)) = (p.strategy, &p.dra) {
        if d.create_namespace {
            let mut m = meta(p, &d.namespace, "");
            if let Some(o) = m.as_object_mut() {
                o.remove("namespace");
            }
            out.push(Manifest {
                kind: kinds::NAMESPACE,
                name: d.namespace.clone(),
                namespace: None,
                body: json!({"apiVersion": "v1", "kind": "Namespace", "metadata": m}),
            });
        }
        let mut devices = json!({"requests": [{"name": "gpu", "exactly": {"deviceClassName": d.device_class, "allocationMode": "ExactCount", "count": d.count}}]});
        let strategy = match d.sharing.as_str() {
            "time_slicing" => Some("TimeSlicing"),
            "mps" => Some("MPS"),
            _ => None,
        };
        if let Some(s) = strategy {
            devices["config"] = json!([{"requests": ["gpu"], "opaque": {"driver": "gpu.nvidia.com", "parameters": {
                "apiVersion": "resource.nvidia.com/v1beta1", "kind": "GpuConfig", "sharing": {"strategy": s}}}}]);
        }
        out.push(Manifest {
            kind: RESOURCE_CLAIM,
            name: d.claim_name.clone(),
            namespace: Some(d.namespace.clone()),
            body: json!({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                "metadata": meta(p, &d.claim_name, &d.namespace), "spec": {"devices": devices}}),
        });
    }
    out
}

pub const RESOURCE_CLAIM: kinds::Kind = kinds::Kind {
    group: "resource.k8s.io",
    version: "v1",
    kind: "ResourceClaim",
    plural: "resourceclaims",
    namespaced: true,
    provided_by: "Kubernetes 1.34 or later (resource.k8s.io/v1) and the NVIDIA DRA driver",
};
