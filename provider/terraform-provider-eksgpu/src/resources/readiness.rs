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
    object["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == "Ready")
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap_or_default().to_owned();
            (s("status"), s("reason"), s("message"))
        })
}

/// Polls the object (0.5 s doubling up to 5 s) until its `Ready` condition is
/// `True` or `timeout` passes.
pub(crate) async fn wait_ready(
    ctx: &Context,
    cluster: &dyn Cluster,
    o: &Awaited<'_>,
    timeout: Duration,
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
        let condition = found.as_ref().and_then(ready_condition);
        if condition.as_ref().is_some_and(|(status, _, _)| status == "True") {
            return Ok(());
        }
        let now = tokio::time::Instant::now();
        if now >= deadline {
            return Err(NotReady::TimedOut(match (&found, &condition) {
                (None, _) => format!("the {} is gone", o.kind.kind),
                (Some(_), None) => format!(
                    "{} has reported no Ready condition (is {} running in the cluster?)",
                    o.controller, o.controller
                ),
                (Some(_), Some((status, reason, message))) => format!("Ready={status} ({reason}): {message}"),
            }));
        }
        let sleep = pause.min(deadline - now);
        tokio::select! {
            () = tokio::time::sleep(sleep) => {}
            () = ctx.cancelled() => return Err(NotReady::Cancelled),
        }
        pause = (pause * 2).min(Duration::from_secs(5));
    }
}

/// The configured `ready_timeout`, or the default.
pub(crate) fn timeout_of(planned: &eksgpu_tfplugin::Value) -> Duration {
    planned
        .get("ready_timeout")
        .as_str()
        .and_then(|t| eksgpu_core::duration::parse(t).ok())
        .unwrap_or(DEFAULT_TIMEOUT)
}
