//! `eksgpu_sharing_pool`: how the GPUs of a set of nodes are shared. Its
//! in-cluster objects (a record key, the device-plugin config key, the DRA
//! ResourceClaim) are applied under the pool's own field manager, so pools
//! share ConfigMaps without clobbering each other.

mod model;
mod schema;

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use eksgpu_cloud::kube::{ApplyOptions, Cluster, KubeError};
use eksgpu_core::fields::project_ours;
use eksgpu_core::kinds;
use eksgpu_core::ownership::Owner;
use eksgpu_core::render::Manifest;
use eksgpu_core::sharing::{self, SharingPool, Strategy};
use eksgpu_core::yaml;
use eksgpu_framework::model::reported;
use eksgpu_framework::partial::Partial;
use eksgpu_framework::{ImportId, ManagedResource, Plan, path};
use eksgpu_tfplugin::diag::Step;
use eksgpu_tfplugin::{AttributePath, Context, Diagnostics, Schema, Value};
use serde_json::json;

use super::{acknowledged, cancellable, configured, connect, errors_only, plan_id};
use crate::diagnostics;
use crate::provider::ProviderState;
use eksgpu_core::rules;

pub use schema::schema;

pub struct SharingPoolResource {
    state: Arc<ProviderState>,
}

impl SharingPoolResource {
    /// The feature gates the clusters' Karpenter runs with (the provider's `karpenter_feature_gates`).
    fn karpenter_gates(&self) -> eksgpu_core::karpenter_gates::FeatureGates {
        self.state.configured().map(|c| c.karpenter_gates).unwrap_or_default()
    }

    pub(crate) fn new(state: Arc<ProviderState>) -> Self {
        Self { state }
    }
}

fn map(m: &BTreeMap<String, String>) -> Value {
    Value::Map(m.iter().map(|(k, v)| (k.clone(), Value::from(v.as_str()))).collect())
}

/// The whole state of a pool (defaults concrete), for import and refresh.
fn value(p: &SharingPool) -> Value {
    let mut v = model::write(p);
    with_computed(p, &mut v);
    v
}

fn with_computed(p: &SharingPool, v: &mut Value) {
    path::set(v, "node_labels", map(&sharing::node_labels(p)));
    path::set(v, "resource_requests", map(&sharing::resource_requests(p)));
    path::set(
        v,
        "resource_claim_name",
        p.dra.as_ref().map(|d| d.claim_name.clone()).into(),
    );
    let claims = p
        .dra
        .iter()
        .map(|d| {
            Value::object([
                ("name", "gpu".into()),
                ("resource_claim_name", d.claim_name.as_str().into()),
            ])
        })
        .collect();
    path::set(v, "pod_resource_claims", Value::List(claims));
    let docs: Vec<_> = sharing::manifests(p).into_iter().map(|m| m.body).collect();
    path::set(v, "manifests_yaml", yaml::to_yaml_stream(&docs).into());
    path::set(
        v,
        "hami_values_yaml",
        sharing::hami_values(p).map(|h| yaml::to_yaml(&h)).into(),
    );
}

/// Why [`check_owned`] refused a write.
enum Refused {
    /// Another pool's or owner's object; what to do.
    NotOurs(String),
    /// The check could not read the object (a 403 from RBAC, an unreachable server):
    /// reported as that failure, not as someone else's object.
    Unreadable(KubeError, String),
}

fn field_manager(base: &str, pool: &str) -> String {
    // One manager per pool: each owns only its own keys of shared ConfigMaps.
    format!("{base}/{pool}")
}

/// Checks before a write that the pool's objects are its own: on create, no
/// other pool of that name has a record key in the namespace; a
/// ResourceClaim that exists carries this pool's label. `Err`: what to do.
async fn check_owned(
    ctx: &Context,
    cluster: &dyn Cluster,
    p: &SharingPool,
    creating: bool,
    objects: &[Manifest],
) -> Result<(), Refused> {
    for m in objects {
        let is_record = m.kind == kinds::CONFIG_MAP && m.name == sharing::RECORD_CONFIG_MAP;
        if !(m.kind == sharing::RESOURCE_CLAIM || creating && is_record) {
            continue;
        }
        let live = cancellable(
            ctx,
            "talking to the cluster",
            cluster.get(&m.kind, m.namespace.as_deref(), &m.name),
        )
        .await
        .map_err(|e| Refused::Unreadable(e, format!("reading {} {}", m.kind.kind, m.name)))?;
        let Some(live) = live else { continue };
        let ns = m.namespace.as_deref().unwrap_or_default();
        if is_record {
            if live["data"].get(&p.name).is_some() {
                return Err(Refused::NotOurs(format!(
                    "Sharing pool {:?} already exists in namespace {ns} (key {:?} of ConfigMap {}), made by another \
                     Terraform configuration, outside Terraform, or by the instance this one replaces; this pool \
                     leaves it untouched. Choose another name, or manage that pool here by importing it: \
                     `terraform import <address> {}/{}`. If this is a replacement with `create_before_destroy`, \
                     replace without it: a pool's name is its key in the shared ConfigMap, so two instances of it \
                     cannot exist at once.",
                    p.name, p.name, m.name, p.cluster_name, p.name
                )));
            }
            continue;
        }
        let owner = Owner::of_object(&live);
        if owner != Owner::of_object(&m.body) {
            return Err(Refused::NotOurs(format!(
                "ResourceClaim {ns}/{} already exists and belongs to {owner}; this pool leaves it untouched. Set \
                 `dra {{ claim_name }}` to another name, or delete that claim if nothing uses it.",
                m.name
            )));
        }
    }
    Ok(())
}

/// Removes what the pool put in the cluster: its keys (by applying an empty
/// ConfigMap under its manager) and its ResourceClaim.
async fn remove(
    ctx: &Context,
    cluster: &dyn Cluster,
    manager: &str,
    objects: &[Manifest],
) -> Result<(), (KubeError, String)> {
    for m in objects {
        let what = format!("removing {} {}", m.kind.kind, m.name);
        let r = if m.kind == kinds::CONFIG_MAP {
            let empty = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": m.name, "namespace": m.namespace}});
            cancellable(
                ctx,
                "talking to the cluster",
                cluster.apply(
                    &m.kind,
                    m.namespace.as_deref(),
                    &m.name,
                    &empty,
                    ApplyOptions {
                        field_manager: manager,
                        force: false,
                    },
                ),
            )
            .await
            .map(|_| ())
        } else {
            // A claim someone else owns now (recreated under that name) is theirs: left alone.
            let live = cancellable(
                ctx,
                "talking to the cluster",
                cluster.get(&m.kind, m.namespace.as_deref(), &m.name),
            )
            .await
            .map_err(|e| (e, what.clone()))?;
            // Ours when it names the owner the pool renders into it.
            if live.is_none_or(|o| Owner::of_object(&o) != Owner::of_object(&m.body)) {
                continue;
            }
            cancellable(
                ctx,
                "talking to the cluster",
                cluster.delete(&m.kind, m.namespace.as_deref(), &m.name),
            )
            .await
            .map(|_| ())
        };
        r.map_err(|e| (e, what))?;
    }
    Ok(())
}

/// Outputs that need only the sharing settings, not the cluster: known at
/// plan as soon as those are, so workload modules can `for_each` over them.
const CLUSTER_FREE_OUTPUTS: [&str; 5] = [
    "node_labels",
    "resource_requests",
    "resource_claim_name",
    "pod_resource_claims",
    "hami_values_yaml",
];

/// What `with_computed` sets; computed from the known plan, or left unknown.
const COMPUTED: [&str; 6] = [
    "node_labels",
    "resource_requests",
    "resource_claim_name",
    "pod_resource_claims",
    "manifests_yaml",
    "hami_values_yaml",
];

#[async_trait]
impl ManagedResource for SharingPoolResource {
    fn type_name(&self) -> &'static str {
        "eksgpu_sharing_pool"
    }

    fn schema(&self) -> Schema {
        schema()
    }

    fn import_id(&self) -> ImportId {
        ImportId {
            formats: &[&["cluster_name", "name"], &["cluster_name", "config_namespace", "name"]],
            example: "gpu-prod/small-models",
        }
    }

    fn modify_plan(&self, plan: &mut Plan<'_>, diags: &mut Diagnostics) {
        let planned = &mut plan.planned;
        plan_id(planned, &["cluster_name", "name"]);
        // The claim is named after the pool unless the configuration names it.
        let claim = [Step::Attribute("dra".into()), Step::Index(0)];
        let name = planned.get("name").clone();
        if path::get(plan.config, &claim).get("claim_name").is_null()
            && !path::get(plan.config, &claim).is_unknown()
            && let Some(d) = path::get_mut(planned, &claim)
        {
            path::set(d, "claim_name", name);
        }
        let partial = Partial::of_inputs(&schema::cached().block, planned);
        // Rules on what is known; the cluster name only labels objects, so a
        // placeholder stands in for an unknown one.
        let mut inputs = partial.value.clone();
        let cluster_known = !planned.get("cluster_name").is_unknown();
        if !cluster_known {
            path::set(&mut inputs, "cluster_name", "<unknown>".into());
        }
        let Ok(p) = model::read(&inputs) else {
            return;
        };
        let found = sharing::check_sharing_pool(&p, self.karpenter_gates());
        for v in rules::unanswered(found, &acknowledged::codes(planned)) {
            let d = diagnostics::violation(&v);
            if partial.reports(&schema::cached().block, &d) {
                diags.push(d);
            }
        }
        let cluster_free = partial.is_complete() || (!cluster_known && only_cluster_unknown(planned));
        if cluster_free {
            let mut computed = planned.clone();
            with_computed(&p, &mut computed);
            let keys: &[&str] = if partial.is_complete() {
                &COMPUTED
            } else {
                &CLUSTER_FREE_OUTPUTS
            };
            for k in keys {
                path::set(planned, k, computed.get(k).clone());
            }
        }
    }

    fn check_planned(&self, planned: &Value, diags: &mut Diagnostics) {
        if let Some(p) = reported(model::read, planned, diags) {
            diags.extend(errors_only(sharing::check_sharing_pool(&p, self.karpenter_gates())));
        }
    }

    async fn create(&self, ctx: &Context, planned: &Value, diags: &mut Diagnostics) -> Option<Value> {
        self.write(ctx, &Value::Null, planned, diags).await
    }

    async fn update(&self, ctx: &Context, prior: &Value, planned: &Value, diags: &mut Diagnostics) -> Option<Value> {
        self.write(ctx, prior, planned, diags).await
    }

    async fn delete(&self, ctx: &Context, prior: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let c = configured(&self.state, diags)?;
        let Some(p) = reported(model::read, prior, diags) else {
            return Some(prior.clone());
        };
        let manager = field_manager(&c.field_manager, &p.name);
        let Some(cluster) = connect(c, &p.cluster_name, diags).await else {
            return Some(prior.clone());
        };
        match remove(ctx, cluster.as_ref(), &manager, &sharing::manifests(&p)).await {
            Ok(()) => None,
            Err((e, what)) => {
                diags.push(diagnostics::kube_failed(&e, &what, AttributePath::root()));
                Some(prior.clone())
            }
        }
    }

    async fn read(&self, ctx: &Context, state: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let c = self.state.configured()?;
        let prior = reported(model::read, state, diags)?;
        let manager = field_manager(&c.field_manager, &prior.name);
        match read_pool(
            ctx,
            c,
            &manager,
            &prior.cluster_name,
            &prior.config_namespace,
            &prior.name,
        )
        .await
        {
            Ok(None) => Some(Value::Null),
            Ok(Some(live)) => {
                // Computed attributes describe what the provider applies: keep them.
                let mut v = value(&live);
                for k in COMPUTED.into_iter().chain(["force_conflicts", "acknowledged_warnings"]) {
                    path::set(&mut v, k, state.get(k).clone());
                }
                Some(v)
            }
            Err((e, what)) => {
                diags.push(diagnostics::kube_failed(&e, &what, AttributePath::root()));
                None
            }
        }
    }

    async fn import(&self, ctx: &Context, format: usize, parts: &[&str], diags: &mut Diagnostics) -> Option<Value> {
        let (cluster, namespace, name) = match (format, parts) {
            (0, [c, n]) => (*c, sharing::DEFAULT_CONFIG_NAMESPACE, *n),
            (_, [c, ns, n]) => (*c, *ns, *n),
            _ => return None,
        };
        let c = configured(&self.state, diags)?;
        match read_pool(ctx, c, &field_manager(&c.field_manager, name), cluster, namespace, name).await {
            Ok(Some(p)) => Some(value(&p)),
            Ok(None) => {
                diags.error(
                    "Nothing to import",
                    format!("ConfigMap {namespace}/{} in cluster {cluster} has no key {name:?}: no sharing pool {name:?} was applied there.", sharing::RECORD_CONFIG_MAP),
                );
                None
            }
            Err((e, what)) => {
                diags.push(diagnostics::kube_failed(&e, &what, AttributePath::root()));
                None
            }
        }
    }
}

/// Whether `cluster_name` is the only unknown input of the pool.
fn only_cluster_unknown(planned: &Value) -> bool {
    let mut probe = planned.clone();
    path::set(&mut probe, "cluster_name", "x".into());
    Partial::of_inputs(&schema::cached().block, &probe).is_complete()
}

impl SharingPoolResource {
    /// Applies the pool's objects, then removes what the prior version had and this one does not.
    async fn write(&self, ctx: &Context, prior: &Value, planned: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let c = configured(&self.state, diags)?;
        let p = reported(model::read, planned, diags)?;
        let manager = field_manager(&c.field_manager, &p.name);
        let cluster = connect(c, &p.cluster_name, diags).await?;
        let prior_objects = if prior.is_null() {
            Vec::new()
        } else {
            model::read(prior).map(|p| sharing::manifests(&p)).unwrap_or_default()
        };
        let opts = ApplyOptions {
            field_manager: &manager,
            force: planned.get("force_conflicts").as_bool() == Some(true),
        };
        let objects = sharing::manifests(&p);
        match check_owned(ctx, cluster.as_ref(), &p, prior.is_null(), &objects).await {
            Ok(()) => {}
            Err(Refused::NotOurs(detail)) => {
                diags.error_at(AttributePath::attr("name"), "Not this sharing pool's to write", detail);
                return None;
            }
            Err(Refused::Unreadable(e, what)) => {
                diags.push(diagnostics::kube_failed(&e, &what, AttributePath::attr("name")));
                return None;
            }
        }
        for m in &objects {
            let what = format!("applying {} {}", m.kind.kind, m.name);
            if let Err(e) = cancellable(
                ctx,
                "talking to the cluster",
                cluster.apply(&m.kind, m.namespace.as_deref(), &m.name, &m.body, opts),
            )
            .await
            {
                diags.push(diagnostics::kube_failed(&e, &what, AttributePath::root()));
                // The record key goes first: once it is applied, the pool exists and is kept in state.
                let applied_record = objects.first().is_some_and(|r| r.name != m.name);
                return applied_record.then(|| planned.clone());
            }
        }
        let stale: Vec<Manifest> = prior_objects
            .into_iter()
            .filter(|o| {
                !objects
                    .iter()
                    .any(|m| m.kind == o.kind && m.name == o.name && m.namespace == o.namespace)
            })
            .collect();
        if let Err((e, what)) = remove(ctx, cluster.as_ref(), &manager, &stale).await {
            diags.push(diagnostics::kube_failed(&e, &what, AttributePath::root()));
        }
        Some(planned.clone())
    }
}

/// The pool as the cluster has it; `None` when its record key is gone.
async fn read_pool(
    ctx: &Context,
    c: &crate::provider::Configured,
    manager: &str,
    cluster_name: &str,
    namespace: &str,
    name: &str,
) -> Result<Option<SharingPool>, (KubeError, String)> {
    let cluster = c
        .clusters
        .get(cluster_name)
        .await
        .map_err(|e| (e, format!("connecting to cluster {cluster_name}")))?;
    let get = |kind, ns: String, obj: String| {
        let cluster = cluster.clone();
        async move {
            cancellable(ctx, "talking to the cluster", cluster.get(&kind, Some(&ns), &obj))
                .await
                .map_err(|e| (e, format!("reading {} {ns}/{obj}", kind.kind)))
        }
    };
    let record = get(
        kinds::CONFIG_MAP,
        namespace.to_owned(),
        sharing::RECORD_CONFIG_MAP.to_owned(),
    )
    .await?;
    let Some(p) = record
        .as_ref()
        .and_then(|r| r["data"][name].as_str())
        .and_then(|r| sharing::from_record(cluster_name, name, namespace, r))
    else {
        return Ok(None);
    };
    let device_plugin = match p.strategy {
        Strategy::TimeSlicing | Strategy::Mps => {
            let cm = get(kinds::CONFIG_MAP, namespace.to_owned(), p.config_map.clone()).await?;
            Some(cm.and_then(|cm| cm["data"][name].as_str().map(str::to_owned)))
        }
        _ => None,
    };
    let claim = match &p.dra {
        Some(d) => {
            let live = get(sharing::RESOURCE_CLAIM, d.namespace.clone(), d.claim_name.clone()).await?;
            Some(live.map(|o| {
                let rendered = sharing::manifests(&p)
                    .into_iter()
                    .find(|m| m.kind == sharing::RESOURCE_CLAIM);
                project_ours(&o, manager, rendered.as_ref().map(|m| &m.body))
            }))
        }
        None => None,
    };
    Ok(Some(sharing::overlay_live(
        p,
        device_plugin.as_ref().map(|d| d.as_deref()),
        claim.as_ref().map(|c| c.as_ref()),
    )))
}
