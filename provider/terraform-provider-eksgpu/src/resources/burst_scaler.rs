//! `eksgpu_burst_scaler`: the on-prem-first, burst-to-cloud rule as one KEDA
//! ScaledObject, applied with server-side apply; drift and import like the
//! other in-cluster resources.

mod auths;
mod model;
mod ready;
mod schema;
mod site_model;
mod site_schema;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use eksgpu_cloud::kube::ApplyOptions;
use eksgpu_core::burst::{self, BurstScaler, SiteId};
use eksgpu_core::fields::project_ours;
use eksgpu_core::ownership::Owner;
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
        Ok(None) => Some(None),
        Ok(Some(o)) => {
            let auths = auths::read_rendered(ctx, cluster.as_ref(), b, &o, &c.field_manager, diags).await?;
            let so = project_ours(&o, &c.field_manager, render);
            Some(Some(burst::read_back(b, &so, [auths[0].as_ref(), auths[1].as_ref()])))
        }
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
            path::set(&mut plan.planned, "manifests_yaml", model::manifests_yaml(&b).into());
        }
    }

    fn upgrade(&self, version: i64, state: Value, _diags: &mut Diagnostics) -> Value {
        // Version 0 had one `prometheus_address` and no site blocks: none now, and the objects it
        // renders are the same, so an upgraded state plans no change.
        if version >= 1 {
            return state;
        }
        let mut state = state;
        for id in SiteId::BOTH {
            if state.get(id.block()).is_null() {
                path::set(&mut state, id.block(), Value::List(Vec::new()));
            }
        }
        state
    }

    fn check_planned(&self, planned: &Value, diags: &mut Diagnostics) {
        if let Some(b) = reported(model::read, planned, diags) {
            diags.extend(errors_only(burst::check_burst_scaler(&b)));
        }
    }

    async fn create(&self, ctx: &Context, planned: &Value, diags: &mut Diagnostics) -> Option<Value> {
        self.write(ctx, None, planned, &super::node_strategy::new_owner_token(), diags)
            .await
    }

    async fn update(&self, ctx: &Context, prior: &Value, planned: &Value, diags: &mut Diagnostics) -> Option<Value> {
        // States written before tokens get one now.
        let token = prior
            .get("owner_token")
            .as_str()
            .map_or_else(super::node_strategy::new_owner_token, str::to_owned);
        self.write(ctx, Some(prior), planned, &token, diags).await
    }

    async fn delete(&self, ctx: &Context, prior: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let c = configured(&self.state, diags)?;
        let Some(b) = reported(model::read, prior, diags) else {
            return Some(prior.clone());
        };
        let Some(cluster) = connect(c, &b.cluster_name, diags).await else {
            return Some(prior.clone());
        };
        let token = prior.get("owner_token").as_str();
        if !delete_scaled_object(ctx, cluster.as_ref(), &b, token, diags).await {
            return Some(prior.clone());
        }
        // After the ScaledObject, which no longer needs them; each checked on its own.
        let sites = auths::no_longer_rendered(Some(&b), None);
        if !auths::delete(ctx, cluster.as_ref(), &b, &sites, token, diags).await {
            return Some(prior.clone());
        }
        None
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
            // Read back from the on-prem trigger (a cloud address that differs goes in its block).
            prometheus_address: Some(String::new()),
            on_prem: None,
            cloud: None,
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

/// An object with the instance's `owner_token` label (written at apply, not shown in
/// `manifests_yaml`: the token is known only once the instance exists).
pub(super) fn with_token(mut m: serde_json::Value, token: &str) -> serde_json::Value {
    if let Some(labels) = m["metadata"]["labels"].as_object_mut() {
        labels.insert(eksgpu_core::kinds::labels::OWNER_TOKEN.into(), token.into());
    }
    m
}

/// Deletes the ScaledObject unless it is gone, another owner's, or a successor instance's (a
/// `create_before_destroy` replacement: `mine` differs from its token), which are left with a
/// warning. `false` after a failure (a diagnostic).
async fn delete_scaled_object(
    ctx: &Context,
    cluster: &dyn eksgpu_cloud::kube::Cluster,
    b: &BurstScaler,
    mine: Option<&str>,
    diags: &mut Diagnostics,
) -> bool {
    let (o, token) = match owner(ctx, cluster, b).await {
        Ok(None) => return true,
        Ok(Some(found)) => found,
        Err(e) => {
            diags.push(diagnostics::kube_failed(
                &e,
                "reading the ScaledObject",
                AttributePath::root(),
            ));
            return false;
        }
    };
    if !auths::ours(&o, b) {
        diags.push(Diagnostic::warning(
            format!("ScaledObject {}/{} left in place", b.namespace, b.name),
            format!("It now belongs to {o}, so it was not deleted; this scaler no longer tracks it."),
        ));
        return true;
    }
    if let Some(live) = token
        && mine.is_some_and(|mine| mine != live)
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
        return true;
    }
    match cancellable(
        ctx,
        "talking to the cluster",
        cluster.delete(&burst::SCALED_OBJECT, Some(&b.namespace), &b.name),
    )
    .await
    {
        Ok(_) => true,
        Err(e) => {
            diags.push(diagnostics::kube_failed(
                &e,
                "deleting the ScaledObject",
                AttributePath::root(),
            ));
            false
        }
    }
}

impl BurstScalerResource {
    /// Create (`prior` is `None`) or update: the ownership checks and the checks of referenced
    /// objects first, then the TriggerAuthentications, the ScaledObject, and the deletion of
    /// TriggerAuthentications no longer rendered.
    async fn write(
        &self,
        ctx: &Context,
        prior: Option<&Value>,
        planned: &Value,
        token: &str,
        diags: &mut Diagnostics,
    ) -> Option<Value> {
        let c = configured(&self.state, diags)?;
        let b = reported(model::read, planned, diags)?;
        let cluster = connect(c, &b.cluster_name, diags).await?;
        if !check_scaled_object(ctx, cluster.as_ref(), &b, diags).await
            || !auths::check_writable(ctx, cluster.as_ref(), &b, diags).await
            || !auths::check_referenced(ctx, cluster.as_ref(), &b, &acknowledged::codes(planned), diags).await
        {
            return None;
        }
        let opts = ApplyOptions {
            field_manager: &c.field_manager,
            force: planned.get("force_conflicts").as_bool() == Some(true),
        };
        let made = match auths::apply(ctx, cluster.as_ref(), &b, token, opts, diags).await {
            Ok(made) => made,
            Err(made) => {
                // A failed create keeps nothing: what it made goes again.
                if prior.is_none() {
                    auths::delete(ctx, cluster.as_ref(), &b, &made, Some(token), diags).await;
                }
                return None;
            }
        };
        let applied = cancellable(
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
        .await;
        if let Err(e) = applied {
            diags.push(diagnostics::kube_failed(
                &e,
                &format!("applying ScaledObject {}/{}", b.namespace, b.name),
                AttributePath::root(),
            ));
            if prior.is_none() {
                auths::delete(ctx, cluster.as_ref(), &b, &made, Some(token), diags).await;
            }
            return None;
        }
        let before = prior.and_then(|p| model::read(p).ok());
        let stale = auths::no_longer_rendered(before.as_ref(), Some(&b));
        // The ScaledObject no longer names them; a failure here is reported and the state is the
        // new one (the next destroy or change deletes them).
        auths::delete(ctx, cluster.as_ref(), &b, &stale, Some(token), diags).await;
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
}

/// Refuses a ScaledObject under the scaler's name that is another owner's (an error naming it).
async fn check_scaled_object(
    ctx: &Context,
    cluster: &dyn eksgpu_cloud::kube::Cluster,
    b: &BurstScaler,
    diags: &mut Diagnostics,
) -> bool {
    match owner(ctx, cluster, b).await {
        Ok(Some((o, _))) if !auths::ours(&o, b) => {
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
            false
        }
        Ok(_) => true,
        Err(e) => {
            diags.push(diagnostics::kube_failed(
                &e,
                "reading the ScaledObject",
                AttributePath::root(),
            ));
            false
        }
    }
}

/// Waits until KEDA reports the ScaledObject `Ready` (it sets the condition once it has built
/// the scaler) and neither site falls back (`ready::not_working`).
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
    let judge = |o: &serde_json::Value| ready::not_working(b, &awaited, o);
    match readiness::wait_until(ctx, cluster, &awaited, timeout, &judge).await {
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

#[cfg(test)]
mod tests {
    use eksgpu_framework::Framework;
    use eksgpu_tfplugin::Resource;

    use super::*;

    /// A state today's one-address form wrote (schema version 0, captured from an apply of the
    /// provider at commit cfc1a3f) upgrades, reads, and renders exactly the objects it stored.
    #[test]
    fn a_version_0_state_upgrades_and_renders_what_it_stored() {
        let stored: serde_json::Value = serde_json::from_str(include_str!(
            "../../../../acceptance-tests/fixtures/burst_scaler_v0.tfstate"
        ))
        .unwrap();
        let instance = &stored["resources"][0]["instances"][0];
        assert_eq!(instance["schema_version"], 0);
        let mut json = instance["attributes"].clone();
        let r = Framework::new(BurstScalerResource::new(Arc::new(ProviderState::default())));
        r.upgrade_json(0, &mut json);
        let bytes = serde_json::to_vec(&json).unwrap();
        let state = eksgpu_tfplugin::value::decode_json(&bytes, &schema().value_type()).unwrap();
        let state = r.upgrade(0, state, &mut Diagnostics::new());
        assert_eq!(state.get("on_prem_prometheus"), &Value::List(Vec::new()));
        assert_eq!(state.get("cloud_prometheus"), &Value::List(Vec::new()));
        let b = model::read(&state).unwrap();
        assert_eq!(
            b.prometheus_address.as_deref(),
            Some("http://prometheus.monitoring:9090")
        );
        assert_eq!(
            model::manifests_yaml(&b),
            instance["attributes"]["manifests_yaml"].as_str().unwrap()
        );
        assert_eq!(burst::formula(&b), instance["attributes"]["formula"].as_str().unwrap());
    }
}
