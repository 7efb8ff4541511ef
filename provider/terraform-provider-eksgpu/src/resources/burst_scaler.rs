//! `eksgpu_burst_scaler`: the on-prem-first, burst-to-cloud rule as one KEDA
//! ScaledObject, applied with server-side apply; drift and import like the
//! other in-cluster resources.

mod model;
mod schema;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use eksgpu_cloud::kube::ApplyOptions;
use eksgpu_core::burst::{self, BurstScaler};
use eksgpu_core::fields::project_ours;
use eksgpu_core::ownership::Owner;
use eksgpu_core::yaml;
use eksgpu_framework::model::reported;
use eksgpu_framework::partial::Partial;
use eksgpu_framework::{ImportId, ManagedResource, Plan, path};
use eksgpu_tfplugin::{AttributePath, Context, Diagnostic, Diagnostics, Schema, Value};

use super::readiness::{self, NotReady};
use super::{acknowledged, cancellable, configured, connect, errors_only, plan_id};
use crate::diagnostics;
use crate::provider::{Configured, ProviderState};
use eksgpu_core::rules;

pub use schema::schema;

pub struct BurstScalerResource {
    state: Arc<ProviderState>,
}

impl BurstScalerResource {
    pub(crate) fn new(state: Arc<ProviderState>) -> Self {
        Self { state }
    }
}

/// A scaler read back from the cluster, keeping what the cluster does not
/// say (`target_capacity_types`, flags) and the computed values as `prior` has them.
fn with_prior(live: &BurstScaler, prior: &Value) -> Value {
    let mut v = model::write(live);
    for k in [
        "target_capacity_types",
        "spot_interruption_handling",
        "force_conflicts",
        "acknowledged_warnings",
        "wait_for_ready",
        "ready_timeout",
        "formula",
        "manifests_yaml",
        "owner_token",
    ] {
        if !prior.get(k).is_null() {
            path::set(&mut v, k, prior.get(k).clone());
        }
    }
    v
}

/// The scaler as the cluster has it (`Some(None)` when its ScaledObject is
/// gone); `None` once a failure is a diagnostic.
async fn read_live(
    ctx: &Context,
    c: &Configured,
    b: &BurstScaler,
    render: Option<&serde_json::Value>,
    diags: &mut Diagnostics,
) -> Option<Option<BurstScaler>> {
    let cluster = connect(c, &b.cluster_name, diags).await?;
    let found = cancellable(
        ctx,
        "talking to the cluster",
        cluster.get(&burst::SCALED_OBJECT, Some(&b.namespace), &b.name),
    )
    .await;
    match found {
        Ok(live) => Some(live.map(|o| burst::read_back(b, &project_ours(&o, &c.field_manager, render)))),
        Err(e) => {
            diags.push(diagnostics::kube_failed(
                &e,
                "reading the ScaledObject",
                AttributePath::root(),
            ));
            None
        }
    }
}

#[async_trait]
impl ManagedResource for BurstScalerResource {
    fn type_name(&self) -> &'static str {
        "eksgpu_burst_scaler"
    }

    fn schema(&self) -> Schema {
        schema()
    }

    fn import_id(&self) -> ImportId {
        ImportId {
            formats: &[&["cluster_name", "namespace", "name"]],
            example: "gpu-prod/inference/vllm-burst",
        }
    }

    fn modify_plan(&self, plan: &mut Plan<'_>, diags: &mut Diagnostics) {
        plan_id(&mut plan.planned, &["cluster_name", "namespace", "name"]);
        let partial = Partial::of_inputs(&schema::cached().block, &plan.planned);
        let mut inputs = partial.value.clone();
        let cluster_known = !plan.planned.get("cluster_name").is_unknown();
        if !cluster_known {
            // The cluster name only labels the object: rules and the formula do not need it.
            path::set(&mut inputs, "cluster_name", "<unknown>".into());
        }
        let Ok(b) = model::read(&inputs) else {
            return;
        };
        for v in rules::unanswered(burst::check_burst_scaler(&b), &acknowledged::codes(&plan.planned)) {
            let d = diagnostics::violation(&v);
            if partial.reports(&schema::cached().block, &d) {
                diags.push(d);
            }
        }
        if partial.is_complete() {
            path::set(&mut plan.planned, "formula", burst::formula(&b).into());
            path::set(
                &mut plan.planned,
                "manifests_yaml",
                yaml::to_yaml(&burst::manifest(&b)).into(),
            );
        }
    }

    fn check_planned(&self, planned: &Value, diags: &mut Diagnostics) {
        if let Some(b) = reported(model::read, planned, diags) {
            diags.extend(errors_only(burst::check_burst_scaler(&b)));
        }
    }

    async fn create(&self, ctx: &Context, planned: &Value, diags: &mut Diagnostics) -> Option<Value> {
        self.write(ctx, planned, &super::node_strategy::new_owner_token(), diags)
            .await
    }

    async fn update(&self, ctx: &Context, prior: &Value, planned: &Value, diags: &mut Diagnostics) -> Option<Value> {
        // States written before tokens get one now.
        let token = prior
            .get("owner_token")
            .as_str()
            .map_or_else(super::node_strategy::new_owner_token, str::to_owned);
        self.write(ctx, planned, &token, diags).await
    }

    async fn delete(&self, ctx: &Context, prior: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let c = configured(&self.state, diags)?;
        let Some(b) = reported(model::read, prior, diags) else {
            return Some(prior.clone());
        };
        let Some(cluster) = connect(c, &b.cluster_name, diags).await else {
            return Some(prior.clone());
        };
        let (o, token) = match owner(ctx, cluster.as_ref(), &b).await {
            Ok(None) => return None,
            Ok(Some(found)) => found,
            Err(e) => {
                diags.push(diagnostics::kube_failed(
                    &e,
                    "reading the ScaledObject",
                    AttributePath::root(),
                ));
                return Some(prior.clone());
            }
        };
        if !ours(&o, &b) {
            diags.push(Diagnostic::warning(
                format!("ScaledObject {}/{} left in place", b.namespace, b.name),
                format!("It now belongs to {o}, so it was not deleted; this scaler no longer tracks it."),
            ));
            return None;
        }
        // Another instance of this scaler wrote it since (a `create_before_destroy` replacement):
        // it is the successor's, left as it is.
        if let Some(live) = token
            && prior.get("owner_token").as_str().is_some_and(|mine| mine != live)
        {
            diags.push(Diagnostic::warning(
                format!(
                    "ScaledObject {}/{} kept for the scaler that replaced this one",
                    b.namespace, b.name
                ),
                "Another instance of this scaler wrote it since (a create_before_destroy replacement): it is \
                 that instance's now, so this destroy leaves it."
                    .to_owned(),
            ));
            return None;
        }
        match cancellable(
            ctx,
            "talking to the cluster",
            cluster.delete(&burst::SCALED_OBJECT, Some(&b.namespace), &b.name),
        )
        .await
        {
            Ok(_) => None,
            Err(e) => {
                diags.push(diagnostics::kube_failed(
                    &e,
                    "deleting the ScaledObject",
                    AttributePath::root(),
                ));
                Some(prior.clone())
            }
        }
    }

    async fn read(&self, ctx: &Context, state: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let c = self.state.configured()?;
        let b = reported(model::read, state, diags)?;
        let rendered = burst::manifest(&b);
        Some(match read_live(ctx, c, &b, Some(&rendered), diags).await? {
            Some(live) => with_prior(&live, state),
            None => Value::Null,
        })
    }

    async fn import(&self, ctx: &Context, _format: usize, parts: &[&str], diags: &mut Diagnostics) -> Option<Value> {
        let [cluster, namespace, name] = parts else {
            return None;
        };
        let c = configured(&self.state, diags)?;
        // A blank scaler: everything the ScaledObject says is read back into it.
        let blank = BurstScaler {
            cluster_name: (*cluster).into(),
            namespace: (*namespace).into(),
            name: (*name).into(),
            target_kind: "Deployment".into(),
            target_name: String::new(),
            target_api_version: "apps/v1".into(),
            min_replicas: 0,
            max_replicas: 1,
            polling_interval: 15,
            cooldown_period: 300,
            prometheus_address: String::new(),
            on_prem_waiting_query: String::new(),
            scale_out_threshold: 20.0,
            cloud_running_query: String::new(),
            hold_threshold: 10.0,
            scale_in_threshold: 5.0,
            pre_warm: vec![],
            keda_version: (2, 20),
            target_capacity_types: vec![],
            spot_interruption_handling: false,
        };
        let found = read_live(ctx, c, &blank, None, diags).await?;
        if found.is_none() {
            diags.error(
                "Nothing to import",
                format!("No ScaledObject {namespace}/{name} in cluster {cluster}."),
            );
        }
        let b = found?;
        // The imported instance owns the object as it is: its token, or a new one the next apply writes.
        let conn = connect(c, &b.cluster_name, diags).await?;
        let token = match owner(ctx, conn.as_ref(), &b).await {
            Ok(found) => found
                .and_then(|(_, t)| t)
                .unwrap_or_else(super::node_strategy::new_owner_token),
            Err(e) => {
                diags.push(diagnostics::kube_failed(
                    &e,
                    "reading the ScaledObject",
                    AttributePath::root(),
                ));
                return None;
            }
        };
        let mut v = model::write(&b);
        path::set(&mut v, "owner_token", token.into());
        Some(v)
    }
}

/// Who owns the scaler's ScaledObject now, and the `owner_token` it bears (one read); `None`
/// when there is none.
async fn owner(
    ctx: &Context,
    cluster: &dyn eksgpu_cloud::kube::Cluster,
    b: &BurstScaler,
) -> Result<Option<(Owner, Option<String>)>, eksgpu_cloud::kube::KubeError> {
    let live = cancellable(
        ctx,
        "talking to the cluster",
        cluster.get(&burst::SCALED_OBJECT, Some(&b.namespace), &b.name),
    )
    .await?;
    Ok(live.map(|o| {
        let token = o["metadata"]["labels"][eksgpu_core::kinds::labels::OWNER_TOKEN]
            .as_str()
            .map(str::to_owned);
        (Owner::of_object(&o), token)
    }))
}

/// The ScaledObject with the instance's `owner_token` label (written at apply, not shown in
/// `manifests_yaml`: the token is known only once the instance exists).
fn with_token(mut m: serde_json::Value, token: &str) -> serde_json::Value {
    if let Some(labels) = m["metadata"]["labels"].as_object_mut() {
        labels.insert(eksgpu_core::kinds::labels::OWNER_TOKEN.into(), token.into());
    }
    m
}

/// A ScaledObject of this provider's scalers in the scaler's cluster (its
/// name and namespace are the scaler's identity); older versions labelled it
/// without the scaler label.
fn ours(o: &Owner, b: &BurstScaler) -> bool {
    match o {
        Owner::BurstScaler { cluster } => eksgpu_core::kinds::labels::is_cluster(cluster, &b.cluster_name),
        Owner::ProviderUnknown => true,
        _ => false,
    }
}

impl BurstScalerResource {
    async fn write(&self, ctx: &Context, planned: &Value, token: &str, diags: &mut Diagnostics) -> Option<Value> {
        let c = configured(&self.state, diags)?;
        let b = reported(model::read, planned, diags)?;
        let cluster = connect(c, &b.cluster_name, diags).await?;
        match owner(ctx, cluster.as_ref(), &b).await {
            Ok(Some((o, _))) if !ours(&o, &b) => {
                diags.error_at(
                    AttributePath::attr("name"),
                    format!("ScaledObject {}/{} is not this scaler's", b.namespace, b.name),
                    format!(
                        "It already exists and belongs to {o}; this scaler leaves it untouched. Choose another \
                         name, or manage that ScaledObject here by importing it: `terraform import <address> \
                         {}/{}/{}` (or an `import {{}}` block).",
                        b.cluster_name, b.namespace, b.name
                    ),
                );
                return None;
            }
            Ok(_) => {}
            Err(e) => {
                diags.push(diagnostics::kube_failed(
                    &e,
                    "reading the ScaledObject",
                    AttributePath::root(),
                ));
                return None;
            }
        }
        let opts = ApplyOptions {
            field_manager: &c.field_manager,
            force: planned.get("force_conflicts").as_bool() == Some(true),
        };
        match cancellable(
            ctx,
            "talking to the cluster",
            cluster.apply(
                &burst::SCALED_OBJECT,
                Some(&b.namespace),
                &b.name,
                &with_token(burst::manifest(&b), token),
                opts,
            ),
        )
        .await
        {
            Ok(_) => {
                if planned.get("wait_for_ready").as_bool() == Some(true) {
                    let timeout = readiness::timeout_of(planned);
                    // Applied either way: the state keeps it (a new scaler is then tainted).
                    if let Err(d) = wait_ready(ctx, cluster.as_ref(), &b, timeout).await {
                        diags.push(d);
                    }
                }
                let mut state = planned.clone();
                path::set(&mut state, "owner_token", token.into());
                Some(state)
            }
            Err(e) => {
                diags.push(diagnostics::kube_failed(
                    &e,
                    &format!("applying ScaledObject {}/{}", b.namespace, b.name),
                    AttributePath::root(),
                ));
                None
            }
        }
    }
}

/// Waits until KEDA reports the ScaledObject `Ready` (it sets the condition
/// once it has built the scaler and can query its triggers).
async fn wait_ready(
    ctx: &Context,
    cluster: &dyn eksgpu_cloud::kube::Cluster,
    b: &BurstScaler,
    timeout: Duration,
) -> Result<(), eksgpu_tfplugin::Diagnostic> {
    let what = format!("ScaledObject {}/{}", b.namespace, b.name);
    let awaited = readiness::Awaited {
        kind: &burst::SCALED_OBJECT,
        namespace: Some(&b.namespace),
        name: &b.name,
        controller: "KEDA",
    };
    match readiness::wait_ready(ctx, cluster, &awaited, timeout).await {
        Ok(()) => Ok(()),
        Err(NotReady::Kube(e)) => Err(diagnostics::kube_failed(
            &e,
            &format!("waiting for {what} to be Ready"),
            AttributePath::root(),
        )),
        Err(NotReady::Cancelled) => Err(eksgpu_tfplugin::Diagnostic::error(
            format!("Stopped waiting for {what}"),
            "Terraform was interrupted; the ScaledObject was applied.",
        )),
        Err(NotReady::TimedOut(last)) => Err(eksgpu_tfplugin::Diagnostic::error(
            format!("{what} not Ready"),
            format!(
                "{what} was applied but is not Ready after {}s: {last}. It stays in the state; fix the cause \
                 and apply again, or set `wait_for_ready = false` to apply without waiting.",
                timeout.as_secs()
            ),
        )
        .at(AttributePath::attr("wait_for_ready"))),
    }
}
