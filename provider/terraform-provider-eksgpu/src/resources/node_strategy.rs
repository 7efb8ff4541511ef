//! `eksgpu_node_strategy`: which capacity kind serves which GPU workload class
//! in one cluster. Karpenter and Auto Mode pools become NodePools and node
//! classes applied in-cluster with server-side apply; the GPU Operator's Helm
//! values are computed for the mix. Plans are offline; refresh reads back only
//! the fields this provider owns, so only real drift shows.

mod convert;
mod schema;

use std::sync::Arc;

use async_trait::async_trait;
use eksgpu_cloud::kube::{ApplyOptions, Cluster, KubeError};
use eksgpu_core::fields::project_ours;
use eksgpu_core::kinds::{self, labels};
use eksgpu_core::model::{NodeStrategy, Pool};
use eksgpu_core::render::{self, Manifest};
use eksgpu_core::{readback, rules, yaml};
use eksgpu_tfplugin::{
    ApplyRequest, ApplyResponse, AttributePath, Context, Diagnostics, ImportResponse, PlanRequest, PlanResponse,
    ReadRequest, ReadResponse, Resource, Schema, Value,
};

use super::defaults::{Seg, plan_default};
use super::{cancellable, configured, connect, set};
use crate::diagnostics;
use crate::provider::ProviderState;

pub use schema::schema;

pub struct NodeStrategyResource {
    state: Arc<ProviderState>,
}

impl NodeStrategyResource {
    pub(crate) fn new(state: Arc<ProviderState>) -> Self {
        Self { state }
    }
}

/// The strategy's identity and settings, when known.
fn header(v: &Value) -> Option<NodeStrategy> {
    let (cluster, name) = (v.get("cluster_name").as_str()?, v.get("name").as_str()?);
    let op = v.get("gpu_operator");
    if !op.is_wholly_known() {
        return None;
    }
    Some(NodeStrategy {
        cluster_name: cluster.to_owned(),
        name: name.to_owned(),
        kubernetes_version: v.get("kubernetes_version").as_str().map(str::to_owned),
        gpu_operator: convert::gpu_operator(op),
        pools: Vec::new(),
    })
}

/// The whole strategy, when every value in it is known.
fn strategy(v: &Value) -> Option<NodeStrategy> {
    let mut s = header(v)?;
    s.pools = v
        .get("pool")
        .elements()
        .iter()
        .map(convert::pool)
        .collect::<Option<Vec<_>>>()?;
    Some(s)
}

fn manifests(s: &NodeStrategy) -> Vec<Manifest> {
    s.pools.iter().flat_map(|p| render::pool_manifests(s, p)).collect()
}

/// Fills a pool's computed attributes from the model.
fn with_computed(s: &NodeStrategy, pool: &Pool, mut v: Value) -> Value {
    if let Value::Object(m) = &mut v {
        let node_selector = render::node_selector(s, pool)
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        m.insert("node_selector".into(), Value::Map(node_selector));
        let tolerations = render::tolerations(pool)
            .into_iter()
            .map(|t| {
                Value::object([
                    ("key", t.get("key").map_or(Value::Null, |s| s.as_str().into())),
                    ("operator", t.get("operator").map_or(Value::Null, |s| s.as_str().into())),
                    ("value", t.get("value").map_or(Value::Null, |s| s.as_str().into())),
                    ("effect", t.get("effect").map_or(Value::Null, |s| s.as_str().into())),
                ])
            })
            .collect();
        m.insert("tolerations".into(), Value::List(tolerations));
        m.insert("gpu_resource_name".into(), render::gpu_resource_name(s, pool).into());
        let docs: Vec<_> = render::pool_manifests(s, pool).into_iter().map(|m| m.body).collect();
        m.insert("manifests_yaml".into(), yaml::to_yaml_stream(&docs).into());
    }
    v
}

fn with_unknown_computed(mut v: Value) -> Value {
    if let Value::Object(m) = &mut v {
        for k in ["node_selector", "tolerations", "gpu_resource_name", "manifests_yaml"] {
            m.insert(k.into(), Value::Unknown);
        }
    }
    v
}

/// Optional attributes with defaults (see `defaults`).
fn apply_defaults(planned: &mut Value, config: &Value) {
    plan_default(planned, config, &[], "force_conflicts", false.into());
    for i in 0..planned.get("pool").elements().len() {
        let pool = [Seg::Attr("pool"), Seg::Index(i)];
        plan_default(planned, config, &pool, "gpu_taint", true.into());
        plan_default(planned, config, &pool, "dra", false.into());
    }
    let op = [Seg::Attr("gpu_operator")];
    plan_default(planned, config, &op, "mig_strategy", "single".into());
    plan_default(planned, config, &op, "dcgm_exporter", true.into());
    plan_default(planned, config, &op, "service_monitor", false.into());
}

#[async_trait]
impl Resource for NodeStrategyResource {
    fn type_name(&self) -> &'static str {
        "eksgpu_node_strategy"
    }

    fn schema(&self) -> Schema {
        schema()
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        schema::validate(config, diags);
    }

    async fn plan(&self, _ctx: &Context, req: PlanRequest, diags: &mut Diagnostics) -> PlanResponse {
        let planned_private = req.prior_private;
        if req.proposed_new_state.is_null() {
            return PlanResponse {
                planned_state: Value::Null,
                requires_replace: vec![],
                planned_private,
            };
        }
        let mut planned = req.proposed_new_state;
        apply_defaults(&mut planned, &req.config);
        let header = header(&planned);

        let id = match (planned.get("cluster_name").as_str(), planned.get("name").as_str()) {
            (Some(c), Some(n)) => Value::from(format!("{c}/{n}")),
            _ => Value::Unknown,
        };
        set(&mut planned, "id", id);
        if req.config.get("kubernetes_version").is_null() {
            // Read from the cluster at apply, unless the cluster already told us.
            let same_cluster = req.prior_state.get("cluster_name") == planned.get("cluster_name");
            let prior = req.prior_state.get("kubernetes_version").clone();
            set(
                &mut planned,
                "kubernetes_version",
                if same_cluster && !prior.is_null() {
                    prior
                } else {
                    Value::Unknown
                },
            );
        }

        // Outputs of pools whose values are all known; unknown inputs give unknown outputs.
        let mut known: Vec<(usize, Pool)> = Vec::new();
        let pool_values = planned.get("pool").elements().to_vec();
        let mut pools_out = Vec::with_capacity(pool_values.len());
        let full = header.as_ref().map(|h| NodeStrategy {
            pools: pool_values.iter().filter_map(convert::pool).collect(),
            ..h.clone()
        });
        for (i, pv) in pool_values.into_iter().enumerate() {
            match (&full, convert::pool(&pv)) {
                (Some(s), Some(p)) => {
                    pools_out.push(with_computed(s, &p, pv));
                    known.push((i, p));
                }
                _ => pools_out.push(with_unknown_computed(pv)),
            }
        }
        let all_known = full.as_ref().is_some_and(|s| s.pools.len() == pools_out.len());
        set(&mut planned, "pool", Value::List(pools_out));
        let values_yaml = match &full {
            Some(s) if all_known => render::gpu_operator_values(s).map_or(Value::Null, |v| yaml::to_yaml(&v).into()),
            _ => Value::Unknown,
        };
        set(&mut planned, "gpu_operator_values_yaml", values_yaml);

        // Rules on what is known; paths point at the pool's place in the configuration.
        if let Some(h) = &header {
            let karpenter_version = self
                .state
                .configured()
                .map_or((1, 14), |c| (c.karpenter_version.major, c.karpenter_version.minor));
            let s = NodeStrategy {
                pools: known.iter().map(|(_, p)| p.clone()).collect(),
                ..h.clone()
            };
            for mut v in rules::check_node_strategy(&s, &rules::NodeStrategyContext { karpenter_version }) {
                if let [rules::Step::Attr("pool"), rules::Step::Index(i), ..] = v.path.as_mut_slice() {
                    *i = known[*i].0;
                }
                diags.push(diagnostics::violation(&v));
            }
        }

        let requires_replace = if req.prior_state.is_null() {
            vec![]
        } else {
            vec![AttributePath::attr("cluster_name"), AttributePath::attr("name")]
        };
        PlanResponse {
            planned_state: planned,
            requires_replace,
            planned_private,
        }
    }

    async fn apply(&self, ctx: &Context, req: ApplyRequest, diags: &mut Diagnostics) -> ApplyResponse {
        let private = req.planned_private.clone();
        let keep = |_: &mut Diagnostics, state: Value| ApplyResponse {
            new_state: state,
            private: private.clone(),
        };
        let Some(c) = configured(&self.state, diags) else {
            return keep(diags, req.prior_state);
        };
        let target = if req.planned_state.is_null() {
            &req.prior_state
        } else {
            &req.planned_state
        };
        let Some(cluster_name) = target.get("cluster_name").as_str().map(str::to_owned) else {
            return keep(diags, req.prior_state);
        };
        let Some(cluster) = connect(c, &cluster_name, diags).await else {
            return keep(diags, req.prior_state);
        };
        let opts = ApplyOptions {
            field_manager: &c.field_manager,
            force: req.config.get("force_conflicts").as_bool() == Some(true),
        };
        let prior = strategy(&req.prior_state);

        if req.planned_state.is_null() {
            let Some(prior) = prior else {
                return keep(diags, Value::Null);
            };
            let remaining = delete_objects(ctx, cluster.as_ref(), &manifests(&prior), diags).await;
            if remaining.is_empty() {
                return keep(diags, Value::Null);
            }
            return keep(diags, req.prior_state);
        }

        let Some(mut planned) = strategy(&req.planned_state) else {
            diags.error(
                "Unknown values at apply",
                "The plan still had unknown values in the strategy's configuration. Run the apply again.",
            );
            return keep(diags, req.prior_state);
        };
        let mut new_state = req.planned_state.clone();
        if new_state.get("kubernetes_version").as_str().is_none() {
            match cancellable(ctx, "reading the Kubernetes version", cluster.server_version()).await {
                Ok(v) => {
                    planned.kubernetes_version = Some(v.clone());
                    set(&mut new_state, "kubernetes_version", v.into());
                }
                Err(e) => {
                    diags.push(diagnostics::kube_failed(
                        &e,
                        "reading the Kubernetes version",
                        AttributePath::attr("kubernetes_version"),
                    ));
                    return keep(diags, req.prior_state);
                }
            }
        }

        // Apply pool by pool; a failure keeps what was applied, and the prior
        // version of the rest, in state: nothing created is ever lost.
        let prior_values = req.prior_state.get("pool").elements().to_vec();
        let planned_values = req.planned_state.get("pool").elements().to_vec();
        let mut state_pools: Vec<Value> = Vec::new();
        let mut failed = false;
        for (i, pool) in planned.pools.iter().enumerate() {
            let prior_same_name = prior_values
                .iter()
                .find(|p| p.get("name").as_str() == Some(pool.name.as_str()))
                .cloned();
            if failed {
                state_pools.extend(prior_same_name);
                continue;
            }
            let mut ok = true;
            for m in render::pool_manifests(&planned, pool) {
                let what = format!("applying {} {}", m.kind.kind, m.name);
                if let Err(e) = cancellable(
                    ctx,
                    &what,
                    cluster.apply(&m.kind, m.namespace.as_deref(), &m.name, &m.body, opts),
                )
                .await
                {
                    diags.push(diagnostics::kube_failed(
                        &e,
                        &what,
                        AttributePath::attr("pool").index(i),
                    ));
                    ok = false;
                    break;
                }
            }
            if ok {
                state_pools.push(planned_values[i].clone());
            } else {
                failed = true;
                state_pools.extend(prior_same_name);
            }
        }
        if !failed {
            // Objects the prior strategy had and the new one does not: delete them.
            let wanted: Vec<(&str, String)> = manifests(&planned)
                .iter()
                .map(|m| (m.kind.kind, m.name.clone()))
                .collect();
            let stale: Vec<Manifest> = prior
                .as_ref()
                .map(manifests)
                .unwrap_or_default()
                .into_iter()
                .filter(|m| !wanted.contains(&(m.kind.kind, m.name.clone())))
                .collect();
            let remaining = delete_objects(ctx, cluster.as_ref(), &stale, diags).await;
            // A pool whose objects could not be deleted stays in state, to be deleted next time.
            for name in remaining {
                if let Some(p) = prior_values
                    .iter()
                    .find(|p| p.get("name").as_str() == Some(name.as_str()))
                    && !state_pools
                        .iter()
                        .any(|s| s.get("name").as_str() == Some(name.as_str()))
                {
                    state_pools.push(p.clone());
                }
            }
        }
        if state_pools.is_empty() && req.prior_state.is_null() {
            return keep(diags, Value::Null);
        }
        set(&mut new_state, "pool", Value::List(state_pools));
        keep(diags, new_state)
    }

    async fn read(&self, ctx: &Context, req: ReadRequest, diags: &mut Diagnostics) -> ReadResponse {
        let unchanged = |state: Value| ReadResponse {
            new_state: state,
            private: req.private.clone(),
        };
        let Some(c) = configured(&self.state, diags) else {
            return unchanged(req.current_state.clone());
        };
        let Some(s) = strategy(&req.current_state) else {
            return unchanged(req.current_state.clone());
        };
        let Some(cluster) = connect(c, &s.cluster_name, diags).await else {
            return unchanged(req.current_state.clone());
        };
        let prior_values = req.current_state.get("pool").elements().to_vec();
        let mut pools = Vec::new();
        for (pool, pv) in s.pools.iter().zip(&prior_values) {
            match read_pool(ctx, cluster.as_ref(), &c.field_manager, &s, pool).await {
                Ok(Some(live)) => pools.push(convert::pool_value(&live, Some(pv))),
                Ok(None) => tracing::info!(pool = %pool.name, "NodePool is gone; the pool will be planned again"),
                Err(e) => {
                    diags.push(diagnostics::kube_failed(
                        &e,
                        &format!("reading pool {}", pool.name),
                        AttributePath::attr("pool"),
                    ));
                    return unchanged(req.current_state.clone());
                }
            }
        }
        if pools.is_empty() && !s.pools.is_empty() {
            return unchanged(Value::Null);
        }
        let mut state = req.current_state.clone();
        set(&mut state, "pool", Value::List(pools));
        unchanged(state)
    }

    async fn import(&self, ctx: &Context, id: &str, diags: &mut Diagnostics) -> Option<ImportResponse> {
        let Some((cluster_name, name)) = id
            .split_once('/')
            .filter(|(c, n)| !c.is_empty() && !n.is_empty() && !n.contains('/'))
        else {
            diags.error(
                "Invalid import ID",
                format!("{id:?} is not <cluster>/<strategy>, e.g. \"gpu-prod/genai\"."),
            );
            return None;
        };
        let c = configured(&self.state, diags)?;
        let cluster = connect(c, cluster_name, diags).await?;
        let selector = format!("{}={name},{}={cluster_name}", labels::STRATEGY, labels::CLUSTER);
        let mut node_pools =
            match cancellable(ctx, "listing NodePools", cluster.list(&kinds::NODE_POOL, &selector)).await {
                Ok(l) => l,
                Err(e) => {
                    diags.push(diagnostics::kube_failed(&e, "listing NodePools", AttributePath::root()));
                    return None;
                }
            };
        if node_pools.is_empty() {
            diags.error(
                "Nothing to import",
                format!("Cluster {cluster_name} has no NodePools labelled {selector}: no strategy {name:?} was applied there by this provider."),
            );
            return None;
        }
        node_pools.sort_by_key(|np| readback::pool_annotation(np).map_or(usize::MAX, |(i, _)| i));
        let mut s = NodeStrategy {
            cluster_name: cluster_name.to_owned(),
            name: name.to_owned(),
            kubernetes_version: None,
            gpu_operator: node_pools.iter().find_map(readback::gpu_operator_annotation),
            pools: Vec::new(),
        };
        for np in &node_pools {
            let pool_name = np["metadata"]["name"].as_str().unwrap_or_default().to_owned();
            let dra = readback::pool_annotation(np).is_some_and(|(_, d)| d);
            let owned = |o: &serde_json::Value| project_ours(o, &c.field_manager, None);
            let node_class = match fetch_node_class(ctx, cluster.as_ref(), np).await {
                Ok(nc) => nc.map(|nc| owned(&nc)),
                Err(e) => {
                    diags.push(diagnostics::kube_failed(
                        &e,
                        "reading node classes",
                        AttributePath::root(),
                    ));
                    return None;
                }
            };
            s.pools.push(readback::import_pool(
                &s,
                &pool_name,
                dra,
                &owned(np),
                node_class.as_ref(),
            ));
        }
        let version = match cancellable(ctx, "reading the Kubernetes version", cluster.server_version()).await {
            Ok(v) => v,
            Err(e) => {
                diags.push(diagnostics::kube_failed(
                    &e,
                    "reading the Kubernetes version",
                    AttributePath::root(),
                ));
                return None;
            }
        };
        let pools = s
            .pools
            .iter()
            .map(|p| with_computed(&s, p, convert::pool_value(p, None)))
            .collect();
        let state = Value::object([
            ("id", id.into()),
            ("cluster_name", cluster_name.into()),
            ("name", name.into()),
            ("kubernetes_version", version.into()),
            ("force_conflicts", false.into()),
            ("gpu_operator", convert::gpu_operator_value(s.gpu_operator.as_ref())),
            ("pool", Value::List(pools)),
            (
                "gpu_operator_values_yaml",
                render::gpu_operator_values(&s).map_or(Value::Null, |v| yaml::to_yaml(&v).into()),
            ),
        ]);
        Some(ImportResponse {
            state,
            private: Vec::new(),
        })
    }
}

/// Reads one pool back: `None` when its NodePool is gone.
async fn read_pool(
    ctx: &Context,
    cluster: &dyn Cluster,
    manager: &str,
    s: &NodeStrategy,
    pool: &Pool,
) -> Result<Option<Pool>, KubeError> {
    let mut node_pool = None;
    let mut node_class = None;
    for m in render::pool_manifests(s, pool) {
        let live = cancellable(
            ctx,
            "reading objects",
            cluster.get(&m.kind, m.namespace.as_deref(), &m.name),
        )
        .await?;
        // Our fields: what we own now, and what we rendered (a field another
        // manager took over is still ours to report).
        let projected = live.map(|o| project_ours(&o, manager, Some(&m.body)));
        if m.kind == kinds::NODE_POOL {
            node_pool = projected;
        } else {
            node_class = projected;
        }
    }
    Ok(node_pool.map(|np| readback::read_back_pool(s, pool, &np, node_class.as_ref())))
}

async fn fetch_node_class(
    ctx: &Context,
    cluster: &dyn Cluster,
    node_pool: &serde_json::Value,
) -> Result<Option<serde_json::Value>, KubeError> {
    let r = &node_pool["spec"]["template"]["spec"]["nodeClassRef"];
    let kind = match r["group"].as_str() {
        Some(g) if g == kinds::EC2_NODE_CLASS.group => kinds::EC2_NODE_CLASS,
        // The built-in Auto Mode NodeClass is not ours.
        Some(g) if g == kinds::AUTO_MODE_NODE_CLASS.group && r["name"] != "default" => kinds::AUTO_MODE_NODE_CLASS,
        _ => return Ok(None),
    };
    let Some(name) = r["name"].as_str() else {
        return Ok(None);
    };
    cancellable(ctx, "reading node classes", cluster.get(&kind, None, name)).await
}

/// Deletes objects, node pools first; returns the pool names whose objects remain.
async fn delete_objects(
    ctx: &Context,
    cluster: &dyn Cluster,
    objects: &[Manifest],
    diags: &mut Diagnostics,
) -> Vec<String> {
    let mut remaining = Vec::new();
    let mut ordered: Vec<&Manifest> = objects.iter().filter(|m| m.kind == kinds::NODE_POOL).collect();
    ordered.extend(objects.iter().filter(|m| m.kind != kinds::NODE_POOL));
    for m in ordered {
        let what = format!("deleting {} {}", m.kind.kind, m.name);
        if let Err(e) = cancellable(ctx, &what, cluster.delete(&m.kind, m.namespace.as_deref(), &m.name)).await {
            diags.push(diagnostics::kube_failed(&e, &what, AttributePath::attr("pool")));
            if !remaining.contains(&m.name) {
                remaining.push(m.name.clone());
            }
        }
    }
    remaining
}
