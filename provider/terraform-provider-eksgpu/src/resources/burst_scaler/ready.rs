//! When a burst scaler's ScaledObject works, as KEDA v2.20.2 reports it: `Ready=True`, and
//! neither site falling back. KEDA keeps `Ready=True` while a trigger fails and a fallback holds
//! the size (pkg/scaling/executor/scale_scaledobjects.go L86-92); what says a site cannot be
//! queried or authenticated then is the `Fallback` condition (`FallbackExists`) and the per-metric
//! `status.health` (`s<index>-prometheus: {status: Failing, numberOfFailures}`,
//! pkg/fallback/fallback.go). So the wait names the failing site, its trigger and its address.

use eksgpu_core::burst::{BurstScaler, SiteId};
use serde_json::Value;

use crate::resources::readiness::{self, Awaited};

/// The condition of `type` as `status (reason): message`, when it is there.
fn condition(o: &Value, kind: &str) -> Option<(String, String)> {
    let c = o["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == kind)?;
    let s = |k: &str| c[k].as_str().unwrap_or_default();
    Some((
        s("status").to_owned(),
        format!("{kind}={} ({}): {}", s("status"), s("reason"), s("message")),
    ))
}

/// The sites whose trigger KEDA counts as failing, in words.
fn failing_sites(b: &BurstScaler, o: &Value) -> Vec<String> {
    SiteId::BOTH
        .iter()
        .filter_map(|id| {
            let metric = format!("s{}-prometheus", id.index());
            let h = &o["status"]["health"][&metric];
            (h["status"] == "Failing").then(|| {
                format!(
                    "the {} (trigger {}, {}) fails: {} failed queries (status.health {metric})",
                    id.words(),
                    id.trigger(),
                    b.address(*id).unwrap_or_default(),
                    h["numberOfFailures"].as_i64().unwrap_or(0)
                )
            })
        })
        .collect()
}

/// Why the scaler's ScaledObject does not work yet, in words; `None` once it does.
pub(crate) fn not_working(b: &BurstScaler, awaited: &Awaited<'_>, o: &Value) -> Option<String> {
    let sites = failing_sites(b, o);
    let fallback = condition(o, "Fallback").filter(|(status, _)| status == "True");
    let why: Vec<String> = readiness::not_ready(awaited, o)
        .into_iter()
        .chain(fallback.map(|(_, words)| words))
        .chain(sites)
        .collect();
    (!why.is_empty()).then(|| why.join("; "))
}

#[cfg(test)]
mod tests {
    use eksgpu_core::burst::seed_004_scaler;
    use serde_json::json;

    use super::*;

    fn awaited() -> Awaited<'static> {
        Awaited {
            kind: &eksgpu_core::burst::SCALED_OBJECT,
            namespace: Some("llm"),
            name: "vllm-burst",
            controller: "KEDA",
        }
    }

    #[test]
    fn a_failing_site_is_not_ready_even_when_keda_says_ready() {
        let b = seed_004_scaler();
        let ready = json!({"type": "Ready", "status": "True", "reason": "ScaledObjectReady", "message": "ok"});
        assert_eq!(
            not_working(&b, &awaited(), &json!({"status": {"conditions": [ready]}})),
            None
        );
        let o = json!({"status": {
            "conditions": [ready, {"type": "Fallback", "status": "True", "reason": "FallbackExists",
                "message": "At least one trigger is falling back on this scaled object"}],
            "health": {"s1-prometheus": {"status": "Failing", "numberOfFailures": 4},
                       "s0-prometheus": {"status": "Happy", "numberOfFailures": 0}}}});
        let why = not_working(&b, &awaited(), &o).unwrap();
        assert!(
            why.starts_with("Fallback=True (FallbackExists): At least one trigger"),
            "{why}"
        );
        assert!(
            why.contains("the cloud Prometheus (trigger cloud_running, http://prometheus.monitoring:9090) fails: 4"),
            "{why}"
        );
        assert!(!why.contains("on-prem"), "{why}");
        let failed = json!({"status": {"conditions": [{"type": "Ready", "status": "False",
            "reason": "ScaledObjectCheckFailed", "message": "failed to ensure HPA is correctly created"}]}});
        assert_eq!(
            not_working(&b, &awaited(), &failed).unwrap(),
            "Ready=False (ScaledObjectCheckFailed): failed to ensure HPA is correctly created"
        );
    }
}
