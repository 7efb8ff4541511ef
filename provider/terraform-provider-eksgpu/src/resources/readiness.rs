//! Waiting for an applied object's own `Ready` condition (`status.conditions`,
//! set by its controller: Karpenter for NodePools and EC2NodeClasses, EKS Auto
//! Mode for its NodeClass, KEDA for ScaledObjects), so that an apply is not
//! green while the object cannot work. The error carries the controller's last
//! condition message.

use std::time::Duration;

use eksgpu_cloud::kube::{Cluster, KubeError};
use eksgpu_core::kinds::Kind;
use eksgpu_tfplugin::Context;

use super::cancellable;

pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// The object to wait for and who sets its condition.
pub(crate) struct Awaited<'a> {
    pub kind: &'a Kind,
    pub namespace: Option<&'a str>,
    pub name: &'a str,
    /// Who sets the condition, for the message when none is set: `Karpenter`, `KEDA`.
    pub controller: &'a str,
}

/// Why a wait ended without `Ready=True`.
#[derive(Debug)]
pub(crate) enum NotReady {
    Kube(KubeError),
    /// The timeout passed: the last condition seen, in words.
    TimedOut(String),
    Cancelled,
}

/// The `Ready` condition of an object as `(status, reason, message)`.
pub(crate) fn ready_condition(object: &serde_json::Value) -> Option<(String, String, String)> {
    ready_entry(object).map(|c| {
        let s = |k: &str| c[k].as_str().unwrap_or_default().to_owned();
        (s("status"), s("reason"), s("message"))
    })
}

fn ready_entry(object: &serde_json::Value) -> Option<&serde_json::Value> {
    object["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == "Ready")
}

/// The generation the `Ready` condition was computed for, when it is older than the
/// object's `metadata.generation`: a condition set before the last spec change says
/// nothing about the spec just applied. The condition's own `observedGeneration`
/// (Kubernetes API conventions, metav1.Condition; Karpenter's operatorpkg status
/// conditions set it), else `status.observedGeneration`; a controller that records
/// neither (KEDA v2.16 ScaledObject conditions) cannot be checked and is taken at its word.
pub(crate) fn stale_generation(object: &serde_json::Value) -> Option<(i64, i64)> {
    let generation = object["metadata"]["generation"].as_i64()?;
    let observed = ready_entry(object)
        .and_then(|c| c["observedGeneration"].as_i64())
        .or_else(|| object["status"]["observedGeneration"].as_i64())?;
    (observed < generation).then_some((observed, generation))
}

/// Polls the object (0.5 s doubling up to 5 s) until its `Ready` condition is
/// `True` or `timeout` passes.
pub(crate) async fn wait_ready(
    ctx: &Context,
    cluster: &dyn Cluster,
    o: &Awaited<'_>,
    timeout: Duration,
) -> Result<(), NotReady> {
    wait_until(ctx, cluster, o, timeout, &|found| not_ready(o, found)).await
}

/// Why the object is not `Ready`, in words; `None` when it is.
pub(crate) fn not_ready(o: &Awaited<'_>, found: &serde_json::Value) -> Option<String> {
    let condition = ready_condition(found);
    match (&condition, stale_generation(found)) {
        (Some((status, _, _)), None) if status == "True" => None,
        (Some(condition), Some(generations)) => Some(stale_words(o, condition, generations)),
        (None, _) => Some(format!(
            "{} has reported no Ready condition (is {} running in the cluster?)",
            o.controller, o.controller
        )),
        (Some((status, reason, message)), None) => Some(format!("Ready={status} ({reason}): {message}")),
    }
}

/// Polls the object (0.5 s doubling up to 5 s) until `judge` finds nothing wrong with it
/// (`None`) or `timeout` passes; then the error carries what `judge` said last.
pub(crate) async fn wait_until(
    ctx: &Context,
    cluster: &dyn Cluster,
    o: &Awaited<'_>,
    timeout: Duration,
    judge: &(dyn Fn(&serde_json::Value) -> Option<String> + Sync),
) -> Result<(), NotReady> {
    let deadline = tokio::time::Instant::now() + timeout;
    let mut pause = Duration::from_millis(500);
    loop {
        let found = cancellable(ctx, "waiting for Ready", cluster.get(o.kind, o.namespace, o.name))
            .await
            .map_err(|e| match e {
                KubeError::Cancelled { .. } => NotReady::Cancelled,
                e => NotReady::Kube(e),
            })?;
        let why = match &found {
            None => Some(format!("the {} is gone", o.kind.kind)),
            Some(object) => judge(object),
        };
        let Some(why) = why else { return Ok(()) };
        let now = tokio::time::Instant::now();
        if now >= deadline {
            return Err(NotReady::TimedOut(why));
        }
        let sleep = pause.min(deadline - now);
        tokio::select! {
            () = tokio::time::sleep(sleep) => {}
            () = ctx.cancelled() => return Err(NotReady::Cancelled),
        }
        pause = (pause * 2).min(Duration::from_secs(5));
    }
}

/// A `Ready` condition older than the spec just applied, in words.
fn stale_words(
    o: &Awaited<'_>,
    (status, reason, message): &(String, String, String),
    (observed, generation): (i64, i64),
) -> String {
    let message = if message.is_empty() {
        String::new()
    } else {
        format!(": {message}")
    };
    format!(
        "{} has not yet reported on generation {generation} (the spec just applied); its last condition, \
         Ready={status} ({reason}{message}), is for generation {observed}",
        o.controller
    )
}

/// The configured `ready_timeout`, or the default.
pub(crate) fn timeout_of(planned: &eksgpu_tfplugin::Value) -> Duration {
    planned
        .get("ready_timeout")
        .as_str()
        .and_then(|t| eksgpu_core::duration::parse(t).ok())
        .unwrap_or(DEFAULT_TIMEOUT)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::stale_generation;

    fn object(generation: i64, condition_gen: Option<i64>, status_gen: Option<i64>) -> serde_json::Value {
        let mut c = json!({"type": "Ready", "status": "True"});
        if let Some(g) = condition_gen {
            c["observedGeneration"] = g.into();
        }
        let mut o = json!({"metadata": {"generation": generation}, "status": {"conditions": [c]}});
        if let Some(g) = status_gen {
            o["status"]["observedGeneration"] = g.into();
        }
        o
    }

    #[test]
    fn a_condition_older_than_the_spec_is_stale() {
        assert_eq!(stale_generation(&object(3, Some(2), None)), Some((2, 3)));
        assert_eq!(stale_generation(&object(3, None, Some(1))), Some((1, 3)));
        // The condition's own generation wins over the status-wide one.
        assert_eq!(stale_generation(&object(3, Some(3), Some(1))), None);
        assert_eq!(stale_generation(&object(3, Some(3), None)), None);
        // Nothing recorded: nothing to compare.
        assert_eq!(stale_generation(&object(3, None, None)), None);
    }
}
