//! `eksgpu_sharing_pool`: how the GPUs of a set of nodes are shared. Its
//! in-cluster objects (a record key, the device-plugin config key, the DRA
//! ResourceClaim) are applied under the pool's own field manager, so pools
//! share ConfigMaps without clobbering each other.

mod schema;

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use eksgpu_cloud::kube::{ApplyOptions, Cluster, KubeError};
use eksgpu_core::fields::project_ours;
use eksgpu_core::kinds;
use eksgpu_core::model::Capacity;
use eksgpu_core::render::Manifest;
use eksgpu_core::sharing::{self, Dra, Hami, Mig, SharingPool, Slicing, Strategy, Workload};
use eksgpu_core::yaml;
use eksgpu_tfplugin::{
    ApplyRequest, ApplyResponse, AttributePath, Context, Diagnostics, ImportResponse, Number, PlanRequest,
    PlanResponse, ReadRequest, ReadResponse, Resource, Schema, Value,
};
use serde_json::json;

use super::defaults::{Seg, plan_default};
use super::{cancellable, configured, connect, plan_id, set};
use crate::diagnostics;
use crate::provider::ProviderState;

pub use schema::schema;

pub struct SharingPoolResource {
    state: Arc<ProviderState>,
}

impl SharingPoolResource {
    pub(crate) fn new(state: Arc<ProviderState>) -> Self {
        Self { state }
    }
}

// === Terraform values <-> model ===

fn string(v: &Value) -> Option<String> {
    v.as_str().map(str::to_owned)
}

fn int(v: &Value) -> Option<i64> {
    v.as_number().and_then(Number::as_i64)
}

fn block(v: &Value) -> Option<&Value> {
    Some(v).filter(|b| matches!(b, Value::Object(_)))
}

fn slicing(v: &Value, strategy: Strategy) -> Option<Slicing> {
    let b = block(v)?;
    Some(Slicing {
        replicas: int(b.get("replicas")).unwrap_or(0),
        rename_by_default: b.get("rename_by_default").as_bool().unwrap_or(false),
        fail_requests_greater_than_one: b
            .get("fail_requests_greater_than_one")
            .as_bool()
            .unwrap_or(Slicing::default_fail_requests_greater_than_one(strategy)),
    })
}

/// The pool, when every value is known.
fn model(v: &Value) -> Option<SharingPool> {
    if !v.is_wholly_known() {
        return None;
    }
    let name = string(v.get("name"))?;
    Some(SharingPool {
        cluster_name: string(v.get("cluster_name"))?,
        instance_type: string(v.get("instance_type")),
        gpu_model: string(v.get("gpu_model")),
        capacity: v.get("capacity").as_str().and_then(Capacity::parse),
        strategy: Strategy::parse(v.get("strategy").as_str()?)?,
        config_namespace: string(v.get("config_namespace")).unwrap_or_else(|| sharing::DEFAULT_CONFIG_NAMESPACE.into()),
        config_map: string(v.get("config_map")).unwrap_or_else(|| sharing::DEFAULT_CONFIG_MAP.into()),
        time_slicing: slicing(v.get("time_slicing"), Strategy::TimeSlicing),
        mps: slicing(v.get("mps"), Strategy::Mps),
        mig: block(v.get("mig")).map(|m| Mig {
            strategy: string(m.get("strategy")).unwrap_or_else(|| "single".into()),
            profiles: m
                .get("profiles")
                .entries()
                .into_iter()
                .flatten()
                .filter_map(|(k, n)| Some((k.clone(), int(n)?)))
                .collect(),
            config: string(m.get("config")),
        }),
        dra: block(v.get("dra")).map(|d| Dra {
            namespace: string(d.get("namespace")).unwrap_or_default(),
            claim_name: string(d.get("claim_name")).unwrap_or_else(|| name.clone()),
            device_class: string(d.get("device_class")).unwrap_or_else(|| "gpu.nvidia.com".into()),
            count: int(d.get("count")).unwrap_or(1),
            sharing: string(d.get("sharing")).unwrap_or_else(|| "exclusive".into()),
            create_namespace: d.get("create_namespace").as_bool().unwrap_or(false),
        }),
        hami: block(v.get("hami")).map(|h| Hami {
            split_count: int(h.get("split_count")).unwrap_or(10),
            memory_mib: int(h.get("memory_mib")),
            cores_percent: int(h.get("cores_percent")),
            memory_scaling: h.get("memory_scaling").as_number().map_or(1.0, Number::as_f64),
            core_policy: string(h.get("core_policy")).unwrap_or_else(|| "default".into()),
        }),
        workloads: v
            .get("workload")
            .elements()
            .iter()
            .filter_map(|w| {
                Some(Workload {
                    name: string(w.get("name"))?,
                    memory_mib: int(w.get("memory_mib"))?,
                    namespace: string(w.get("namespace")),
                })
            })
            .collect(),
        name,
    })
}

fn num(n: i64) -> Value {
    Value::from(n)
}

fn map(m: &BTreeMap<String, String>) -> Value {
    Value::Map(m.iter().map(|(k, v)| (k.clone(), Value::from(v.as_str()))).collect())
}

/// The whole state of a pool (defaults concrete), for import and refresh.
fn value(p: &SharingPool) -> Value {
    let slicing = |s: &Option<Slicing>| {
        s.as_ref().map_or(Value::Null, |s| {
            Value::object([
                ("replicas", num(s.replicas)),
                ("rename_by_default", s.rename_by_default.into()),
                (
                    "fail_requests_greater_than_one",
                    s.fail_requests_greater_than_one.into(),
                ),
            ])
        })
    };
    let mut v = Value::object([
        ("id", format!("{}/{}", p.cluster_name, p.name).into()),
        ("cluster_name", p.cluster_name.as_str().into()),
        ("name", p.name.as_str().into()),
        ("instance_type", p.instance_type.clone().into()),
        ("gpu_model", p.gpu_model.clone().into()),
        ("capacity", p.capacity.map(Capacity::as_str).into()),
        ("strategy", p.strategy.as_str().into()),
        ("config_namespace", p.config_namespace.as_str().into()),
        ("config_map", p.config_map.as_str().into()),
        ("force_conflicts", false.into()),
        ("time_slicing", slicing(&p.time_slicing)),
        ("mps", slicing(&p.mps)),
        (
            "mig",
            p.mig.as_ref().map_or(Value::Null, |m| {
                Value::object([
                    ("strategy", m.strategy.as_str().into()),
                    (
                        "profiles",
                        if m.profiles.is_empty() {
                            Value::Null
                        } else {
                            Value::Map(m.profiles.iter().map(|(k, n)| (k.clone(), num(*n))).collect())
                        },
                    ),
                    ("config", m.config.clone().into()),
                ])
            }),
        ),
        (
            "dra",
            p.dra.as_ref().map_or(Value::Null, |d| {
                Value::object([
                    ("namespace", d.namespace.as_str().into()),
                    ("claim_name", d.claim_name.as_str().into()),
                    ("device_class", d.device_class.as_str().into()),
                    ("count", num(d.count)),
                    ("sharing", d.sharing.as_str().into()),
                    ("create_namespace", d.create_namespace.into()),
                ])
            }),
        ),
        (
            "hami",
            p.hami.as_ref().map_or(Value::Null, |h| {
                Value::object([
                    ("split_count", num(h.split_count)),
                    ("memory_mib", h.memory_mib.map_or(Value::Null, num)),
                    ("cores_percent", h.cores_percent.map_or(Value::Null, num)),
                    ("memory_scaling", Value::Number(Number::from_f64(h.memory_scaling))),
                    ("core_policy", h.core_policy.as_str().into()),
                ])
            }),
        ),
        (
            "workload",
            Value::List(
                p.workloads
                    .iter()
                    .map(|w| {
                        Value::object([
                            ("name", w.name.as_str().into()),
                            ("memory_mib", num(w.memory_mib)),
                            ("namespace", w.namespace.clone().into()),
                        ])
                    })
                    .collect(),
            ),
        ),
    ]);
    with_computed(p, &mut v);
    v
}

fn with_computed(p: &SharingPool, v: &mut Value) {
    set(v, "node_labels", map(&sharing::node_labels(p)));
    set(v, "resource_requests", map(&sharing::resource_requests(p)));
    set(
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
    set(v, "pod_resource_claims", Value::List(claims));
    let docs: Vec<_> = sharing::manifests(p).into_iter().map(|m| m.body).collect();
    set(v, "manifests_yaml", yaml::to_yaml_stream(&docs).into());
    set(
        v,
        "hami_values_yaml",
        sharing::hami_values(p).map(|h| yaml::to_yaml(&h)).into(),
    );
}

/// Optional attributes with defaults (see `defaults`).
fn apply_defaults(planned: &mut Value, config: &Value) {
    let name = planned.get("name").clone();
    let top: [Seg<'_>; 0] = [];
    plan_default(
        planned,
        config,
        &top,
        "config_namespace",
        sharing::DEFAULT_CONFIG_NAMESPACE.into(),
    );
    plan_default(planned, config, &top, "config_map", sharing::DEFAULT_CONFIG_MAP.into());
    plan_default(planned, config, &top, "force_conflicts", false.into());
    for (k, strategy) in [("time_slicing", Strategy::TimeSlicing), ("mps", Strategy::Mps)] {
        plan_default(planned, config, &[Seg::Attr(k)], "rename_by_default", false.into());
        plan_default(
            planned,
            config,
            &[Seg::Attr(k)],
            "fail_requests_greater_than_one",
            Slicing::default_fail_requests_greater_than_one(strategy).into(),
        );
    }
    plan_default(planned, config, &[Seg::Attr("mig")], "strategy", "single".into());
    let dra = [Seg::Attr("dra")];
    plan_default(planned, config, &dra, "claim_name", name);
    plan_default(planned, config, &dra, "device_class", "gpu.nvidia.com".into());
    plan_default(planned, config, &dra, "count", Value::from(1));
    plan_default(planned, config, &dra, "sharing", "exclusive".into());
    plan_default(planned, config, &dra, "create_namespace", false.into());
    let hami = [Seg::Attr("hami")];
    plan_default(planned, config, &hami, "split_count", Value::from(10));
    plan_default(planned, config, &hami, "memory_scaling", Value::from(1));
    plan_default(planned, config, &hami, "core_policy", "default".into());
}

fn field_manager(base: &str, pool: &str) -> String {
    // One manager per pool: each owns only its own keys of shared ConfigMaps.
    format!("{base}/{pool}")
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

#[async_trait]
impl Resource for SharingPoolResource {
    fn type_name(&self) -> &'static str {
        "eksgpu_sharing_pool"
    }

    fn schema(&self) -> Schema {
        schema()
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        schema::validate(config, diags);
    }

    async fn plan(&self, _ctx: &Context, req: PlanRequest, diags: &mut Diagnostics) -> PlanResponse {
        if req.proposed_new_state.is_null() {
            return PlanResponse::destroy(req.prior_private);
        }
        let mut planned = req.proposed_new_state;
        apply_defaults(&mut planned, &req.config);
        plan_id(&mut planned, &["cluster_name", "name"]);
        match model(&planned) {
            Some(p) => {
                with_computed(&p, &mut planned);
                for v in sharing::check_sharing_pool(&p) {
                    diags.push(diagnostics::violation(&v));
                }
            }
            None => {
                for k in [
                    "node_labels",
                    "resource_requests",
                    "resource_claim_name",
                    "pod_resource_claims",
                    "manifests_yaml",
                    "hami_values_yaml",
                ] {
                    set(&mut planned, k, Value::Unknown);
                }
            }
        }
        let requires_replace = if req.prior_state.is_null() {
            vec![]
        } else {
            [
                "cluster_name",
                "name",
                "strategy",
                "config_namespace",
                "config_map",
                "dra",
            ]
            .into_iter()
            .map(AttributePath::attr)
            .collect()
        };
        PlanResponse {
            planned_state: planned,
            requires_replace,
            planned_private: req.prior_private,
        }
    }

    async fn apply(&self, ctx: &Context, req: ApplyRequest, diags: &mut Diagnostics) -> ApplyResponse {
        let keep = |state: Value| ApplyResponse {
            new_state: state,
            private: req.planned_private.clone(),
        };
        let Some(c) = configured(&self.state, diags) else {
            return keep(req.prior_state.clone());
        };
        let target = if req.planned_state.is_null() {
            &req.prior_state
        } else {
            &req.planned_state
        };
        let (Some(cluster_name), Some(name)) = (target.get("cluster_name").as_str(), target.get("name").as_str())
        else {
            return keep(req.prior_state.clone());
        };
        let manager = field_manager(&c.field_manager, name);
        let Some(cluster) = connect(c, cluster_name, diags).await else {
            return keep(req.prior_state.clone());
        };
        let prior_objects = model(&req.prior_state)
            .map(|p| sharing::manifests(&p))
            .unwrap_or_default();
        if req.planned_state.is_null() {
            return match remove(ctx, cluster.as_ref(), &manager, &prior_objects).await {
                Ok(()) => keep(Value::Null),
                Err((e, what)) => {
                    diags.push(diagnostics::kube_failed(&e, &what, AttributePath::root()));
                    keep(req.prior_state.clone())
                }
            };
        }
        let Some(p) = model(&req.planned_state) else {
            diags.error(
                "Unknown values at apply",
                "The plan still had unknown values in the pool's configuration. Run the apply again.",
            );
            return keep(req.prior_state.clone());
        };
        let opts = ApplyOptions {
            field_manager: &manager,
            force: req.planned_state.get("force_conflicts").as_bool() == Some(true),
        };
        let objects = sharing::manifests(&p);
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
                return keep(if applied_record {
                    req.planned_state.clone()
                } else {
                    req.prior_state.clone()
                });
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
        keep(req.planned_state.clone())
    }

    async fn read(&self, ctx: &Context, req: ReadRequest, diags: &mut Diagnostics) -> ReadResponse {
        let unchanged = |state: Value| ReadResponse {
            new_state: state,
            private: req.private.clone(),
        };
        let (Some(c), Some(prior)) = (self.state.configured(), model(&req.current_state)) else {
            return unchanged(req.current_state.clone());
        };
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
            Ok(None) => unchanged(Value::Null),
            Ok(Some(live)) => {
                // Computed attributes describe what the provider applies: keep them.
                let mut v = value(&live);
                for k in [
                    "node_labels",
                    "resource_requests",
                    "resource_claim_name",
                    "pod_resource_claims",
                    "manifests_yaml",
                    "hami_values_yaml",
                    "force_conflicts",
                ] {
                    set(&mut v, k, req.current_state.get(k).clone());
                }
                unchanged(v)
            }
            Err((e, what)) => {
                diags.push(diagnostics::kube_failed(&e, &what, AttributePath::root()));
                unchanged(req.current_state.clone())
            }
        }
    }

    async fn import(&self, ctx: &Context, id: &str, diags: &mut Diagnostics) -> Option<ImportResponse> {
        let parts: Vec<&str> = id.split('/').collect();
        let (cluster, namespace, name) = match parts.as_slice() {
            [c, n] if !c.is_empty() && !n.is_empty() => (*c, sharing::DEFAULT_CONFIG_NAMESPACE, *n),
            [c, ns, n] if !c.is_empty() && !ns.is_empty() && !n.is_empty() => (*c, *ns, *n),
            _ => {
                diags.error(
                    "Invalid import ID",
                    format!("{id:?} is not <cluster>/<name> or <cluster>/<config_namespace>/<name>."),
                );
                return None;
            }
        };
        let c = configured(&self.state, diags)?;
        match read_pool(ctx, c, &field_manager(&c.field_manager, name), cluster, namespace, name).await {
            Ok(Some(p)) => Some(ImportResponse {
                state: value(&p),
                private: Vec::new(),
            }),
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
