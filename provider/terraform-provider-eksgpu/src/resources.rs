//! Resources, one module each.

pub(crate) mod acknowledged;
pub mod burst_scaler;
pub mod capacity_probe;
pub(crate) mod checks;
mod inputs;
pub mod node_strategy;
mod readiness;
pub mod sharing_pool;

use std::sync::Arc;

use eksgpu_framework::Framework;
use eksgpu_tfplugin::{Diagnostics, Resource};

use crate::provider::ProviderState;

pub(crate) fn all(state: &Arc<ProviderState>) -> Vec<Arc<dyn Resource>> {
    vec![
        Arc::new(Framework::new(burst_scaler::BurstScalerResource::new(state.clone()))),
        Arc::new(Framework::new(capacity_probe::CapacityProbeResource::new(
            state.clone(),
        ))),
        Arc::new(Framework::new(node_strategy::NodeStrategyResource::new(state.clone()))),
        Arc::new(Framework::new(sharing_pool::SharingPoolResource::new(state.clone()))),
    ]
}

/// The capacity kinds, as users write them.
pub(crate) use eksgpu_core::model::CAPACITY_KINDS;

/// How long a plan waits for a cluster's DaemonSets (the device managers it runs), once per
/// cluster per provider process (`Clusters::daemon_sets_once`): an unreachable private endpoint
/// costs a plan this much once, and then nothing is said.
pub(crate) const LOOK_DEADLINE: std::time::Duration = std::time::Duration::from_secs(5);

/// The errors among rule findings, as diagnostics: what stops an apply.
pub(crate) fn errors_only(found: Vec<eksgpu_core::rules::Violation>) -> Diagnostics {
    let mut d = Diagnostics::new();
    for v in found
        .iter()
        .filter(|v| v.severity == eksgpu_core::rules::Severity::Error)
    {
        d.push(crate::diagnostics::violation(v));
    }
    d
}

/// Plans `id` as the given attributes joined by `/` (the import ID), unknown
/// while any of them is.
pub(crate) fn plan_id(planned: &mut eksgpu_tfplugin::Value, attributes: &[&str]) {
    let parts: Option<Vec<&str>> = attributes.iter().map(|a| planned.get(a).as_str()).collect();
    let id = parts.map_or(eksgpu_tfplugin::Value::Unknown, |p| p.join("/").into());
    eksgpu_framework::path::set(planned, "id", id);
}

/// Runs a cluster call unless Terraform asked the provider to stop (Ctrl-C).
pub(crate) async fn cancellable<T>(
    ctx: &eksgpu_tfplugin::Context,
    what: &str,
    f: impl Future<Output = Result<T, eksgpu_cloud::kube::KubeError>>,
) -> Result<T, eksgpu_cloud::kube::KubeError> {
    tokio::select! {
        r = f => r,
        () = ctx.cancelled() => Err(eksgpu_cloud::kube::KubeError::Cancelled { what: what.to_owned() }),
    }
}

/// The provider's configuration, or a diagnostic: Terraform configures the
/// provider before any read, plan or apply, so its absence is a protocol bug.
pub(crate) fn configured<'a>(
    state: &'a crate::provider::ProviderState,
    diags: &mut eksgpu_tfplugin::Diagnostics,
) -> Option<&'a crate::provider::Configured> {
    let c = state.configured();
    if c.is_none() {
        diags.push(crate::diagnostics::not_configured());
    }
    c
}

/// The API of cluster `name`, or a diagnostic at `cluster_name`.
pub(crate) async fn connect(
    c: &crate::provider::Configured,
    name: &str,
    diags: &mut eksgpu_tfplugin::Diagnostics,
) -> Option<Arc<dyn eksgpu_cloud::kube::Cluster>> {
    match c.clusters.get(name).await {
        Ok(cluster) => Some(cluster),
        Err(e) => {
            diags.push(crate::diagnostics::kube_failed(
                &e,
                &format!("connecting to cluster {name}"),
                eksgpu_tfplugin::AttributePath::attr("cluster_name"),
            ));
            None
        }
    }
}
