//! `eksgpu_node_strategy`: which capacity kind serves which GPU workload class
//! in one cluster. Karpenter and Auto Mode pools become NodePools and node
//! classes applied in-cluster with server-side apply; managed node groups and
//! Hybrid Nodes go through the EKS API (`aws_pools`); the GPU Operator's Helm
//! values are computed for the mix. Plans are offline; refresh reads back only
//! the fields this provider owns, so only real drift shows.

mod aws_pools;
mod convert;
mod schema;
mod timeouts;

use std::sync::Arc;

use async_trait::async_trait;
use eksgpu_cloud::kube::{ApplyOptions, Cluster, KubeError};
use eksgpu_core::eks;
use eksgpu_core::fields::project_ours;
use eksgpu_core::kinds::{self, labels};
use eksgpu_core::model::{Capacity, NodeStrategy, Pool};
use eksgpu_core::render::{self, Manifest};
use eksgpu_core::{readback, rules, yaml};
use eksgpu_tfplugin::{
    ApplyRequest, ApplyResponse, AttributePath, Context, Diagnostic, Diagnostics, ImportResponse, PlanRequest,
    PlanResponse, ReadRequest, ReadResponse, Resource, Schema, Value,
};

use self::aws_pools::{AwsPools, Failure};
use self::timeouts::Timeouts;
use super::defaults::{Seg, plan_default};
use super::{cancellable, configured, connect, plan_id, set};
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

/// Fills the computed attributes of pool number `index` from the model.
fn with_computed(s: &NodeStrategy, index: usize, pool: &Pool, mut v: Value) -> Value {
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
        let mut docs: Vec<_> = render::pool_manifests(s, pool).into_iter().map(|m| m.body).collect();
        docs.extend(eks::aws_requests(s, index, pool));
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
            return PlanResponse::destroy(planned_private);
        }
        let mut planned = req.proposed_new_state;
        apply_defaults(&mut planned, &req.config);
        let header = header(&planned);

        plan_id(&mut planned, &["cluster_name", "name"]);
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
                    pools_out.push(with_computed(s, i, &p, pv));
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
            warn_replacements(&req.prior_state, &s, &known, diags);
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
        let force = req.config.get("force_conflicts").as_bool() == Some(true);
        let mut work = Work::new(ctx, c, &cluster_name, Timeouts::of(target), force);
        let prior = strategy(&req.prior_state);
        let prior_values = req.prior_state.get("pool").elements().to_vec();

        if req.planned_state.is_null() {
            let Some(prior) = prior else {
                return keep(diags, Value::Null);
            };
            let remaining = work.delete_pools(&prior, None, &prior.pools, diags).await;
            return keep(diags, with_pools(&req.prior_state, &prior_values, &remaining));
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
            let Some(v) = work.kubernetes_version(&planned, diags).await else {
                return keep(diags, req.prior_state);
            };
            planned.kubernetes_version = Some(v.clone());
            set(&mut new_state, "kubernetes_version", v.into());
        }
        // What needs the cluster's facts is checked before any change.
        if !work.check_against_cluster(&planned, diags).await {
            return keep(diags, req.prior_state);
        }

        // Apply pool by pool; a failure keeps what was applied, and the prior
        // version of the rest, in state: nothing created is ever lost.
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
            let prior_pool = prior_same_name.as_ref().and_then(convert::pool);
            match work.apply_pool(&planned, i, pool, prior_pool.as_ref(), diags).await {
                Applied::Done => state_pools.push(planned_values[i].clone()),
                Applied::Failed { touched } => {
                    failed = true;
                    // An AWS object that was created or changed before the failure is
                    // recorded as planned; refresh then reports what it really is.
                    if touched {
                        state_pools.push(planned_values[i].clone());
                    } else {
                        state_pools.extend(prior_same_name);
                    }
                }
            }
        }
        if !failed && let Some(prior) = &prior {
            // Objects of the prior strategy the new one no longer has: delete them.
            let gone: Vec<Pool> = prior
                .pools
                .iter()
                .filter(|p| {
                    !planned
                        .pools
                        .iter()
                        .any(|q| q.name == p.name && q.capacity == p.capacity)
                })
                .cloned()
                .collect();
            let mut remaining = work.delete_pools(prior, Some(&planned), &gone, diags).await;
            remaining.extend(work.delete_stale_objects(prior, &planned, diags).await);
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
        let mut work = Work::new(ctx, c, &s.cluster_name, Timeouts::of(&req.current_state), false);
        let prior_values = req.current_state.get("pool").elements().to_vec();
        let mut pools = Vec::new();
        for (i, (pool, pv)) in s.pools.iter().zip(&prior_values).enumerate() {
            match work.read_pool(&s, i, pool, diags).await {
                Some(Some(live)) => pools.push(convert::pool_value(&live, Some(pv))),
                Some(None) => tracing::info!(pool = %pool.name, "pool is gone; it will be planned again"),
                None => return unchanged(req.current_state.clone()),
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
        let mut s = NodeStrategy {
            cluster_name: cluster_name.to_owned(),
            name: name.to_owned(),
            kubernetes_version: None,
            gpu_operator: None,
            pools: Vec::new(),
        };
        let mut work = Work::new(ctx, c, cluster_name, Timeouts::of(&Value::Null), false);
        // Either side may hold the strategy's pools; one side failing is only
        // fatal when the other found nothing (a `kubernetes`-block setup may
        // have no AWS access, an AWS-only strategy no Karpenter).
        let mut kube_diags = Diagnostics::default();
        let (kube_pools, kube_operator) = work.import_in_cluster(&s, &mut kube_diags).await.unwrap_or_default();
        let mut aws_diags = Diagnostics::default();
        let (aws_pools, aws_operator) = match work.aws.import(&s).await {
            Ok(found) => found,
            Err(e) => {
                aws_diags.push(e.diagnostic("finding node groups and access entries", AttributePath::root()));
                (Vec::new(), None)
            }
        };
        let mut found: Vec<(usize, Pool)> = kube_pools.into_iter().chain(aws_pools).collect();
        for (side, side_diags) in [("in-cluster", kube_diags), ("AWS-side", aws_diags)] {
            if found.is_empty() {
                diags.extend(side_diags);
            } else if side_diags.has_errors() {
                let why: Vec<String> = side_diags.iter().map(|d| d.detail.clone()).collect();
                diags.push(Diagnostic::warning(
                    format!("Could not look for {side} pools"),
                    format!(
                        "The import found other pools, so it went on; if the strategy also has {side} pools, fix \
                         access and import again. {}",
                        why.join(" ")
                    ),
                ));
            }
        }
        if diags.has_errors() {
            return None;
        }
        if found.is_empty() {
            diags.error(
                "Nothing to import",
                format!(
                    "Cluster {cluster_name} has no NodePools, node groups or hybrid access entries of strategy {name:?} \
                     made by this provider (they carry the label or tag {}={name}).",
                    labels::STRATEGY
                ),
            );
            return None;
        }
        found.sort_by_key(|(i, _)| *i);
        s.gpu_operator = kube_operator.or(aws_operator);
        s.pools = found.into_iter().map(|(_, p)| p).collect();
        let version = work.kubernetes_version(&s, diags).await?;
        let pools = s
            .pools
            .iter()
            .enumerate()
            .map(|(i, p)| with_computed(&s, i, p, convert::pool_value(p, None)))
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
            ("timeouts", Value::Null),
        ]);
        Some(ImportResponse {
            state,
            private: Vec::new(),
        })
    }
}

/// The prior state with only the pools named in `names` (what is left after a failed delete).
fn with_pools(prior_state: &Value, prior_values: &[Value], names: &[String]) -> Value {
    if names.is_empty() {
        return Value::Null;
    }
    let mut state = prior_state.clone();
    let kept = prior_values
        .iter()
        .filter(|p| p.get("name").as_str().is_some_and(|n| names.iter().any(|x| x == n)))
        .cloned()
        .collect();
    set(&mut state, "pool", Value::List(kept));
    state
}

/// Warns at plan when a node group pool's change needs a new node group.
fn warn_replacements(prior_state: &Value, planned: &NodeStrategy, known: &[(usize, Pool)], diags: &mut Diagnostics) {
    let Some(prior) = strategy(prior_state) else {
        return;
    };
    for (i, pool) in known {
        let Some((j, before)) = prior.pools.iter().enumerate().find(|(_, p)| p.name == pool.name) else {
            continue;
        };
        if let (Some(want), Some(was)) = (eks::node_group(planned, *i, pool), eks::node_group(&prior, j, before))
            && let Some(r) = want.replacement(&was)
        {
            diags.push(
                Diagnostic::warning(
                    format!("Node group {} will be replaced", want.name),
                    format!(
                        "EKS cannot change {} of a node group in place: apply deletes the node group (draining \
                         its nodes) and creates it again.",
                        r.fields.join(", ")
                    ),
                )
                .at(AttributePath::attr("pool").index(*i)),
            );
        }
    }
}

/// How applying one pool went.
enum Applied {
    Done,
    /// `touched`: an AWS object was created or changed before the failure.
    Failed {
        touched: bool,
    },
}

/// One apply, read or import: the provider's clients, the cluster connection
/// (made only when an in-cluster pool needs it), and the AWS-side pools.
struct Work<'a> {
    ctx: &'a Context,
    c: &'a crate::provider::Configured,
    aws: AwsPools<'a>,
    kube: Option<Arc<dyn Cluster>>,
    force: bool,
    /// The cluster as the apply-time checks read it.
    facts: Option<eksgpu_core::eks::ClusterFacts>,
}

impl<'a> Work<'a> {
    fn new(
        ctx: &'a Context,
        c: &'a crate::provider::Configured,
        cluster: &'a str,
        timeouts: Timeouts,
        force: bool,
    ) -> Self {
        Work {
            ctx,
            c,
            aws: AwsPools {
                aws: &c.aws,
                ctx,
                timeouts,
                cluster,
            },
            kube: None,
            force,
            facts: None,
        }
    }

    async fn kube(&mut self, diags: &mut Diagnostics) -> Option<Arc<dyn Cluster>> {
        if self.kube.is_none() {
            self.kube = connect(self.c, self.aws.cluster, diags).await;
        }
        self.kube.clone()
    }

    /// The cluster's Kubernetes version: from its API when in-cluster pools
    /// need a connection anyway, else from `DescribeCluster`.
    async fn kubernetes_version(&mut self, s: &NodeStrategy, diags: &mut Diagnostics) -> Option<String> {
        let what = "reading the Kubernetes version";
        let path = AttributePath::attr("kubernetes_version");
        if s.pools.iter().any(|p| p.capacity.is_in_cluster()) || s.pools.is_empty() {
            let cluster = self.kube(diags).await?;
            return match cancellable(self.ctx, what, cluster.server_version()).await {
                Ok(v) => Some(v),
                Err(e) => {
                    diags.push(diagnostics::kube_failed(&e, what, path));
                    None
                }
            };
        }
        match self.c.aws.cluster(self.aws.cluster).await {
            Ok(f) if f.version.is_some() => f.version,
            Ok(_) => {
                diags.error_at(
                    path,
                    "Unknown Kubernetes version",
                    "DescribeCluster reported no version; set kubernetes_version.",
                );
                None
            }
            Err(e) => {
                diags.push(diagnostics::aws_failed(&e, path));
                None
            }
        }
    }

    /// EKSGPU007 (VPC and service CIDRs), 008 and 018 against the cluster; `false` when an error fired.
    async fn check_against_cluster(&mut self, s: &NodeStrategy, diags: &mut Diagnostics) -> bool {
        let aws_side = s.pools.iter().any(|p| !p.capacity.is_in_cluster());
        // Auto Mode flags come free with the DescribeCluster made to connect (not with a `kubernetes` block).
        let auto_mode = s.pools.iter().any(|p| p.capacity == Capacity::AutoMode) && self.c.kubernetes.is_none();
        if !aws_side && !auto_mode {
            return true;
        }
        let facts = if s.pools.iter().any(|p| p.capacity == Capacity::Hybrid) {
            self.aws.facts_with_vpc().await
        } else {
            self.c.aws.cluster(self.aws.cluster).await.map_err(Failure::from)
        };
        let facts = match facts {
            Ok(f) => f,
            Err(e) => {
                diags.push(e.diagnostic("reading the cluster", AttributePath::attr("cluster_name")));
                return false;
            }
        };
        let mut ok = true;
        for v in rules::check_against_cluster(s, &facts) {
            ok &= v.severity != rules::Severity::Error;
            diags.push(diagnostics::violation(&v));
        }
        self.facts = Some(facts);
        ok
    }

    async fn apply_pool(
        &mut self,
        s: &NodeStrategy,
        i: usize,
        pool: &Pool,
        prior: Option<&Pool>,
        diags: &mut Diagnostics,
    ) -> Applied {
        let path = AttributePath::attr("pool").index(i);
        match pool.capacity {
            Capacity::AutoMode | Capacity::Karpenter => {
                let Some(cluster) = self.kube(diags).await else {
                    return Applied::Failed { touched: false };
                };
                let opts = ApplyOptions {
                    field_manager: &self.c.field_manager,
                    force: self.force,
                };
                for m in render::pool_manifests(s, pool) {
                    let what = format!("applying {} {}", m.kind.kind, m.name);
                    if let Err(e) = cancellable(
                        self.ctx,
                        &what,
                        cluster.apply(&m.kind, m.namespace.as_deref(), &m.name, &m.body, opts),
                    )
                    .await
                    {
                        diags.push(diagnostics::kube_failed(&e, &what, path));
                        return Applied::Failed { touched: false };
                    }
                }
                Applied::Done
            }
            Capacity::ManagedNodeGroup => {
                let Some(want) = eks::node_group(s, i, pool) else {
                    return Applied::Done;
                };
                match self.aws.apply_node_group(&want).await {
                    Ok(()) => Applied::Done,
                    Err(f) => {
                        diags.push(
                            f.failure
                                .diagnostic(&format!("applying node group {}", want.name), path),
                        );
                        Applied::Failed { touched: f.touched }
                    }
                }
            }
            Capacity::Hybrid => {
                let Some(h) = &pool.hybrid else {
                    return Applied::Done;
                };
                let prior_role = prior.and_then(|p| p.hybrid.as_ref()).map(|h| h.node_role_arn.as_str());
                match self
                    .aws
                    .apply_hybrid(h, eks::pool_tags(s, i, pool), prior_role, self.facts.as_ref())
                    .await
                {
                    Ok(()) => Applied::Done,
                    Err(f) => {
                        diags.push(f.failure.diagnostic("applying the hybrid pool", path));
                        Applied::Failed { touched: f.touched }
                    }
                }
            }
        }
    }

    /// Deletes `pools` of strategy `prior` (all of their objects); returns the
    /// names of pools whose objects remain. `planned`: what the strategy
    /// becomes (a hybrid pool there keeps the cluster's remote networks).
    async fn delete_pools(
        &mut self,
        prior: &NodeStrategy,
        planned: Option<&NodeStrategy>,
        pools: &[Pool],
        diags: &mut Diagnostics,
    ) -> Vec<String> {
        let mut remaining = Vec::new();
        let in_cluster: Vec<Manifest> = pools
            .iter()
            .filter(|p| p.capacity.is_in_cluster())
            .flat_map(|p| render::pool_manifests(prior, p))
            .collect();
        if !in_cluster.is_empty() {
            match self.kube(diags).await {
                Some(cluster) => remaining.extend(delete_objects(self.ctx, cluster.as_ref(), &in_cluster, diags).await),
                None => remaining.extend(
                    pools
                        .iter()
                        .filter(|p| p.capacity.is_in_cluster())
                        .map(|p| p.name.clone()),
                ),
            }
        }
        let keep_networks = planned.is_some_and(|s| s.pools.iter().any(|p| p.capacity == Capacity::Hybrid));
        for pool in pools {
            let result = match (pool.capacity, &pool.hybrid) {
                (Capacity::ManagedNodeGroup, _) => {
                    let name = eks::node_group_name(prior, pool);
                    self.aws
                        .delete_node_group(&name)
                        .await
                        .map_err(|e| (e, format!("deleting node group {name}")))
                }
                (Capacity::Hybrid, Some(h)) => self
                    .aws
                    .delete_hybrid(h, keep_networks)
                    .await
                    .map_err(|e| (e, "deleting the hybrid pool".to_owned())),
                _ => Ok(()),
            };
            if let Err((e, what)) = result {
                diags.push(e.diagnostic(&what, AttributePath::attr("pool")));
                remaining.push(pool.name.clone());
            }
        }
        remaining
    }

    /// In-cluster objects the prior version of a kept pool had and the new one does not
    /// (e.g. an Auto Mode NodeClass no longer declared); returns pools whose objects remain.
    async fn delete_stale_objects(
        &mut self,
        prior: &NodeStrategy,
        planned: &NodeStrategy,
        diags: &mut Diagnostics,
    ) -> Vec<String> {
        let wanted: Vec<(&str, String)> = manifests(planned)
            .iter()
            .map(|m| (m.kind.kind, m.name.clone()))
            .collect();
        let kept: Vec<&Pool> = prior
            .pools
            .iter()
            .filter(|p| {
                planned
                    .pools
                    .iter()
                    .any(|q| q.name == p.name && q.capacity == p.capacity)
            })
            .collect();
        let stale: Vec<Manifest> = kept
            .into_iter()
            .flat_map(|p| render::pool_manifests(prior, p))
            .filter(|m| !wanted.contains(&(m.kind.kind, m.name.clone())))
            .collect();
        if stale.is_empty() {
            return Vec::new();
        }
        match self.kube(diags).await {
            Some(cluster) => delete_objects(self.ctx, cluster.as_ref(), &stale, diags).await,
            None => stale.into_iter().map(|m| m.name).collect(),
        }
    }

    /// One pool as it is now: `Some(None)` when it is gone, `None` after a diagnostic.
    async fn read_pool(
        &mut self,
        s: &NodeStrategy,
        i: usize,
        pool: &Pool,
        diags: &mut Diagnostics,
    ) -> Option<Option<Pool>> {
        let path = AttributePath::attr("pool").index(i);
        match pool.capacity {
            Capacity::AutoMode | Capacity::Karpenter => {
                let cluster = self.kube(diags).await?;
                match read_in_cluster_pool(self.ctx, cluster.as_ref(), &self.c.field_manager, s, pool).await {
                    Ok(p) => Some(p),
                    Err(e) => {
                        diags.push(diagnostics::kube_failed(
                            &e,
                            &format!("reading pool {}", pool.name),
                            path,
                        ));
                        None
                    }
                }
            }
            Capacity::ManagedNodeGroup => {
                let name = eks::node_group_name(s, pool);
                match self.c.aws.describe_node_group(&s.cluster_name, &name).await {
                    // A node group whose creation failed, or that is being deleted, will not
                    // serve the pool: report it gone so the plan creates it again.
                    Ok(Some(ng)) if matches!(ng.status.as_deref(), Some("CREATE_FAILED" | "DELETING")) => {
                        tracing::info!(nodegroup = %name, status = ?ng.status, "node group will not serve the pool");
                        Some(None)
                    }
                    Ok(live) => Some(live.map(|ng| eks::read_back_node_group(s, pool, &ng, false))),
                    Err(e) => {
                        diags.push(diagnostics::aws_failed(&e, path));
                        None
                    }
                }
            }
            Capacity::Hybrid => match self.aws.read_hybrid(pool).await {
                Ok(p) => Some(p),
                Err(e) => {
                    diags.push(e.diagnostic("reading the hybrid pool", path));
                    None
                }
            },
        }
    }

    /// NodePools (and node classes) of strategy `s` in the cluster, with their
    /// recorded index, and the recorded `gpu_operator` settings. A cluster
    /// without Karpenter's kinds has none.
    async fn import_in_cluster(
        &mut self,
        s: &NodeStrategy,
        diags: &mut Diagnostics,
    ) -> Option<(Vec<(usize, Pool)>, Option<eksgpu_core::model::GpuOperator>)> {
        let cluster = self.kube(diags).await?;
        let selector = format!("{}={},{}={}", labels::STRATEGY, s.name, labels::CLUSTER, s.cluster_name);
        let node_pools = match cancellable(
            self.ctx,
            "listing NodePools",
            cluster.list(&kinds::NODE_POOL, &selector),
        )
        .await
        {
            Ok(l) => l,
            Err(KubeError::KindNotInstalled { .. }) => Vec::new(),
            Err(e) => {
                diags.push(diagnostics::kube_failed(&e, "listing NodePools", AttributePath::root()));
                return None;
            }
        };
        let operator = node_pools.iter().find_map(readback::gpu_operator_annotation);
        let strategy = NodeStrategy {
            gpu_operator: operator.clone(),
            ..s.clone()
        };
        let mut out = Vec::new();
        for np in &node_pools {
            let pool_name = np["metadata"]["name"].as_str().unwrap_or_default().to_owned();
            let (index, dra) = readback::pool_annotation(np).unwrap_or((usize::MAX, false));
            let owned = |o: &serde_json::Value| project_ours(o, &self.c.field_manager, None);
            let node_class = match fetch_node_class(self.ctx, cluster.as_ref(), np).await {
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
            out.push((
                index,
                readback::import_pool(&strategy, &pool_name, dra, &owned(np), node_class.as_ref()),
            ));
        }
        Some((out, operator))
    }
}

/// Reads one in-cluster pool back: `None` when its NodePool is gone.
async fn read_in_cluster_pool(
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
