//! The ScaledObject of a burst scaler.

use serde_json::{Value, json};

use super::{BurstScaler, PreWarm};
use crate::kinds::labels;

/// Annotation with the settings the ScaledObject alone does not spell out.
pub const ANNOTATION: &str = "eksgpu.terraform.io/burst-scaler";

pub const SCALED_OBJECT: crate::kinds::Kind = crate::kinds::Kind {
    group: "keda.sh",
    version: "v1alpha1",
    kind: "ScaledObject",
    plural: "scaledobjects",
    namespaced: true,
    provided_by: "KEDA 2.12 or later",
};

fn num(x: f64) -> String {
    let n = crate::yaml::to_yaml(&json!(x));
    n.trim_end().trim_end_matches(".0").to_owned()
}

/// The composite metric, read by the HPA as a `Value` against target 1:
/// 2 doubles the replicas (scale out), 1 keeps them (hold), 0 removes them
/// (scale in; KEDA goes to zero after the cooldown). A pre-warm window turns
/// "scale in" into "hold", and activation (above 0.5) brings one replica up.
pub fn formula(b: &BurstScaler) -> String {
    let warm: String = (0..b.pre_warm.len()).map(|i| format!(" && prewarm_{i} == 0")).collect();
    format!(
        "onprem_waiting > {} || cloud_running > {} ? 2 : (cloud_running < {}{warm} ? 0 : 1)",
        num(b.scale_out_threshold),
        num(b.hold_threshold),
        num(b.scale_in_threshold)
    )
}

fn prometheus(name: &str, b: &BurstScaler, query: &str, threshold: f64) -> Value {
    json!({"type": "prometheus", "name": name, "metricType": "Value", "metadata": {
        "serverAddress": b.prometheus_address, "query": query, "threshold": num(threshold)}})
}

fn cron(i: usize, w: &PreWarm) -> Value {
    json!({"type": "cron", "name": format!("prewarm_{i}"), "metadata": {
        "timezone": w.timezone, "start": w.start, "end": w.end, "desiredReplicas": "1"}})
}

pub fn manifest(b: &BurstScaler) -> Value {
    let mut triggers = vec![
        prometheus("onprem_waiting", b, &b.on_prem_waiting_query, b.scale_out_threshold),
        prometheus("cloud_running", b, &b.cloud_running_query, b.hold_threshold),
    ];
    triggers.extend(b.pre_warm.iter().enumerate().map(|(i, w)| cron(i, w)));
    let settings = json!({"scale_in_threshold": b.scale_in_threshold, "keda_version": format!("{}.{}", b.keda_version.0, b.keda_version.1),
        "pre_warm": b.pre_warm.iter().map(|w| json!({"timezone": w.timezone, "start": w.start, "end": w.end})).collect::<Vec<_>>()});
    let mut spec = json!({
        "scaleTargetRef": {"apiVersion": b.target_api_version, "kind": b.target_kind, "name": b.target_name},
        "pollingInterval": b.polling_interval,
        "cooldownPeriod": b.cooldown_period,
        "minReplicaCount": b.min_replicas,
        "maxReplicaCount": b.max_replicas,
        "advanced": {
            "scalingModifiers": {"formula": formula(b), "target": "1", "activationTarget": "0.5", "metricType": "Value"},
            // Up fast (cold GPU starts take minutes), down one replica a minute after
            // five quiet minutes, so a dip in the grey zone does not flap.
            "horizontalPodAutoscalerConfig": {"behavior": {
                "scaleUp": {"stabilizationWindowSeconds": 0, "policies": [{"type": "Percent", "value": 100, "periodSeconds": 60}]},
                "scaleDown": {"stabilizationWindowSeconds": 300, "policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}]},
            }},
        },
        "triggers": triggers,
    });
    // Hold the current size when Prometheus fails (where a hand-written exporter would report "0.5 on failure"):
    // `currentReplicas` needs KEDA 2.17, fallback on a Value metric 2.18.
    if b.keda_version >= (2, 18) {
        spec["fallback"] =
            json!({"failureThreshold": 3, "replicas": b.min_replicas.max(1), "behavior": "currentReplicas"});
    }
    json!({
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "ScaledObject",
        "metadata": {
            "name": b.name,
            "namespace": b.namespace,
            "labels": {
                labels::MANAGED_BY: labels::MANAGED_BY_VALUE,
                labels::CLUSTER: labels::cluster_value(&b.cluster_name),
                crate::ownership::BURST_SCALER_LABEL: b.name,
            },
            "annotations": {ANNOTATION: settings.to_string()},
        },
        "spec": spec,
    })
}

/// The scaler as a live ScaledObject (projected to the provider's fields) says.
pub fn read_back(prior: &BurstScaler, live: &Value) -> BurstScaler {
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
    let trigger = |name: &str| {
        spec["triggers"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|t| t["name"] == name)
            .cloned()
    };
    if let Some(t) = trigger("onprem_waiting") {
        b.prometheus_address = t["metadata"]["serverAddress"].as_str().unwrap_or_default().to_owned();
        b.on_prem_waiting_query = t["metadata"]["query"].as_str().unwrap_or_default().to_owned();
        b.scale_out_threshold = t["metadata"]["threshold"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .unwrap_or(b.scale_out_threshold);
    }
    if let Some(t) = trigger("cloud_running") {
        b.cloud_running_query = t["metadata"]["query"].as_str().unwrap_or_default().to_owned();
        b.hold_threshold = t["metadata"]["threshold"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .unwrap_or(b.hold_threshold);
    }
    if let Some(raw) = live["metadata"]["annotations"][ANNOTATION].as_str()
        && let Ok(s) = serde_json::from_str::<Value>(raw)
    {
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
    b
}
