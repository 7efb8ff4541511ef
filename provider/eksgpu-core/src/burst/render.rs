//! The objects of a burst scaler: the ScaledObject, and a TriggerAuthentication
//! for each site whose credentials the provider wires (`secret_auth`, `aws_sigv4`).

use serde_json::{Map, Value, json};

use super::{BurstScaler, PreWarm, Site, SiteId, TRIGGER_AUTHENTICATION};
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

/// keda.sh/v1alpha1 TriggerAuthentication (namespaced; kedacore/keda v2.20.2
/// config/crd/bases/keda.sh_triggerauthentications.yaml).
pub const TRIGGER_AUTHENTICATION_KIND: crate::kinds::Kind = crate::kinds::Kind {
    group: "keda.sh",
    version: "v1alpha1",
    kind: "TriggerAuthentication",
    plural: "triggerauthentications",
    namespaced: true,
    provided_by: "KEDA",
};

/// keda.sh/v1alpha1 ClusterTriggerAuthentication (cluster-scoped, KEDA 2.1+), only ever read:
/// the provider checks that one an `authentication_ref` names exists.
pub const CLUSTER_TRIGGER_AUTHENTICATION_KIND: crate::kinds::Kind = crate::kinds::Kind {
    group: "keda.sh",
    version: "v1alpha1",
    kind: "ClusterTriggerAuthentication",
    plural: "clustertriggerauthentications",
    namespaced: false,
    provided_by: "KEDA 2.1 or later",
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

/// `k1=v1,k2=v2`, as KEDA parses `customHeaders` and `queryParameters`
/// (pkg/scalers/scalersconfig/typed_config.go `setConfigValueMap`).
pub(crate) fn pairs(m: &std::collections::BTreeMap<String, String>) -> String {
    m.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",")
}

/// The name of the TriggerAuthentication the provider renders for a site.
pub fn trigger_authentication_name(b: &BurstScaler, id: SiteId) -> String {
    format!("{}-{}", b.name, id.suffix())
}

/// A site's `prometheus` trigger. Its metadata keys are those of kedacore/keda v2.20.2
/// pkg/scalers/prometheus_scaler.go `prometheusMetadata` (L48-60); only what is set is
/// rendered, so a scaler without site blocks renders as it always has.
fn prometheus(id: SiteId, b: &BurstScaler, query: &str, threshold: f64) -> Value {
    let mut md = Map::new();
    md.insert("serverAddress".into(), b.address(id).unwrap_or_default().into());
    md.insert("query".into(), query.into());
    md.insert("threshold".into(), num(threshold).into());
    let site = b.site(id);
    if let Some(s) = site {
        metadata_of_site(s, &mut md);
    }
    let mut t = json!({"type": "prometheus", "name": id.trigger(), "metricType": "Value", "metadata": md});
    // ScaledObject CRD v2.20.2: authenticationRef {name (required), kind}.
    if let Some(r) = site.and_then(|s| s.authentication_ref.as_ref()) {
        t["authenticationRef"] = json!({"name": r.name, "kind": r.kind});
    } else if site.is_some_and(Site::renders_trigger_authentication) {
        t["authenticationRef"] = json!({"name": trigger_authentication_name(b, id), "kind": TRIGGER_AUTHENTICATION});
    }
    t
}

fn metadata_of_site(s: &Site, md: &mut Map<String, Value>) {
    if let Some(ns) = &s.namespace {
        md.insert("namespace".into(), ns.clone().into());
    }
    if !s.custom_headers.is_empty() {
        md.insert("customHeaders".into(), pairs(&s.custom_headers).into());
    }
    if !s.query_parameters.is_empty() {
        md.insert("queryParameters".into(), pairs(&s.query_parameters).into());
    }
    if s.unsafe_ssl {
        md.insert("unsafeSsl".into(), "true".into());
    }
    // `authModes` is read from metadata first (authentication_types.go L76): switched on here,
    // next to the reference, so the TriggerAuthentication holds only what is secret.
    let modes = s.auth_modes();
    if !modes.is_empty() {
        md.insert("authModes".into(), modes.join(",").into());
    }
    // The signing region (aws_sigv4.go L63); read from metadata since v2.13.1.
    if let Some(aws) = &s.aws_sigv4 {
        md.insert("awsRegion".into(), aws.region.clone().into());
    }
}

fn owner_labels(b: &BurstScaler) -> Value {
    json!({
        labels::MANAGED_BY: labels::MANAGED_BY_VALUE,
        labels::CLUSTER: labels::cluster_value(&b.cluster_name),
        crate::ownership::BURST_SCALER_LABEL: b.name,
    })
}

/// The TriggerAuthentication the provider renders for a site, if it renders one: in the
/// scaler's namespace, where KEDA looks it up and reads its Secrets (`secretTargetRef` has no
/// namespace field; kedacore/keda v2.20.2 pkg/scaling/resolver/scale_resolvers.go).
pub fn trigger_authentication(b: &BurstScaler, id: SiteId) -> Option<Value> {
    let s = b.site(id).filter(|s| s.renders_trigger_authentication())?;
    let spec = if let Some(a) = &s.secret_auth {
        // Each item requires parameter, name and key (TriggerAuthentication CRD v2.20.2).
        let refs: Vec<Value> = a
            .keys
            .iter()
            .map(|(parameter, key)| json!({"parameter": parameter, "name": a.secret_name, "key": key}))
            .collect();
        json!({"secretTargetRef": refs})
    } else {
        let aws = s.aws_sigv4.as_ref()?;
        // podIdentity.provider aws (KEDA 2.13+): identityOwner keda or workload, roleArn assumed.
        let mut pod = json!({"provider": "aws"});
        if let Some(role) = &aws.role_arn {
            pod["roleArn"] = role.clone().into();
        }
        if let Some(owner) = &aws.identity_owner {
            pod["identityOwner"] = owner.clone().into();
        }
        json!({"podIdentity": pod})
    };
    Some(json!({
        "apiVersion": "keda.sh/v1alpha1",
        "kind": "TriggerAuthentication",
        "metadata": {"name": trigger_authentication_name(b, id), "namespace": b.namespace, "labels": owner_labels(b)},
        "spec": spec,
    }))
}

/// Every object of the scaler, in the order they are applied: the TriggerAuthentications
/// first (KEDA resolves them when it builds the scaler), then the ScaledObject.
pub fn manifests(b: &BurstScaler) -> Vec<Value> {
    let mut out: Vec<Value> = SiteId::BOTH
        .iter()
        .filter_map(|id| trigger_authentication(b, *id))
        .collect();
    out.push(manifest(b));
    out
}

fn cron(i: usize, w: &PreWarm) -> Value {
    json!({"type": "cron", "name": format!("prewarm_{i}"), "metadata": {
        "timezone": w.timezone, "start": w.start, "end": w.end, "desiredReplicas": "1"}})
}

pub fn manifest(b: &BurstScaler) -> Value {
    let mut triggers = vec![
        prometheus(SiteId::OnPrem, b, &b.on_prem_waiting_query, b.scale_out_threshold),
        prometheus(SiteId::Cloud, b, &b.cloud_running_query, b.hold_threshold),
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
    // Hold the current size when either site's Prometheus fails (where a hand-written exporter would report "0.5 on failure"):
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
            "labels": owner_labels(b),
            "annotations": {ANNOTATION: settings.to_string()},
        },
        "spec": spec,
    })
}
