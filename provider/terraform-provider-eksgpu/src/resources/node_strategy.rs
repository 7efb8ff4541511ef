//! `eksgpu_node_strategy`: which capacity kind serves which GPU workload class
//! in one cluster. Karpenter and Auto Mode pools become NodePools and node
//! classes applied in-cluster with server-side apply (`in_cluster`); managed
//! node groups and Hybrid Nodes go through the EKS API (`eks_api`); `work`
//! drives both for an apply, read or import, and `plan` computes outputs and
//! runs the rules offline. Refresh reads back only the fields this provider
//! owns, so only real drift shows.

mod answered;
mod companions;
mod early;
mod eks_api;
mod eks_templates;
mod in_cluster;
mod model;
mod plan;
mod run;
mod schema;
mod sides;
mod timeouts;
mod upgrade;
mod worlds;

use std::sync::Arc;

use async_trait::async_trait;
use eksgpu_core::kinds::labels;
use eksgpu_core::model::{NodeStrategy, Pool};
use eksgpu_core::{render, yaml};
use eksgpu_framework::model::reported;
use eksgpu_framework::{ImportId, ManagedResource, Plan, normalize, path};
use eksgpu_tfplugin::{Context, Diagnostic, Diagnostics, Schema, Value};

use self::run::Run;
use self::sides::Applied;
use self::timeouts::Timeouts;
use super::configured;
use crate::provider::{DEFAULT_KARPENTER_VERSION, ProviderState};

pub use schema::schema;

pub struct NodeStrategyResource {
    state: Arc<ProviderState>,
}

impl NodeStrategyResource {
    pub(crate) fn new(state: Arc<ProviderState>) -> Self {
        Self { state }
    }

    /// The provider's `default_tags` (empty before it is configured).
    fn default_tags(&self) -> std::collections::BTreeMap<String, String> {
        self.state
            .configured()
            .map(|c| c.default_tags.clone())
            .unwrap_or_default()
    }

    /// Whether the provider settings the outputs read are known (`Configured::settings_known`).
    fn settings_known(&self) -> bool {
        self.state.configured().is_none_or(|c| c.settings_known)
    }

    /// The provider's `karpenter_feature_gates` (none before it is configured).
    fn karpenter_gates(&self) -> eksgpu_core::karpenter_gates::FeatureGates {
        self.state.configured().map(|c| c.karpenter_gates).unwrap_or_default()
    }

    /// The Karpenter release validation may assume (the provider's `karpenter_version`).
    fn karpenter_version(&self) -> (u32, u32) {
        self.state
            .configured()
            .map_or(DEFAULT_KARPENTER_VERSION, |c| c.karpenter_version)
            .as_tuple()
    }
}

/// Pool values by name, as `pools` holds them.
type PoolValues = std::collections::BTreeMap<String, Value>;

/// The prior state with only the pools named in `names` (what is left after a failed delete).
fn with_pools(prior_state: &Value, prior_values: &PoolValues, names: &[String]) -> Value {
    if names.is_empty() {
        return Value::Null;
    }
    let mut state = prior_state.clone();
    let kept = prior_values
        .iter()
        .filter(|(n, _)| names.contains(n))
        .map(|(n, v)| (n.clone(), v.clone()))
        .collect();
    path::set(&mut state, "pools", Value::Map(kept));
    state
}

/// A pool read back: the prior value, with only the attributes whose model
/// value changed rewritten, so the user's spelling survives a refresh that
/// found no drift.
fn read_back(live: &Pool, prior_value: &Value) -> Value {
    match model::pool_of(&live.name, prior_value) {
        Ok(prior) => normalize::changed_only(prior_value, &model::write_pool(&prior), model::write_pool(live)),
        Err(_) => model::write_pool(live),
    }
}

#[async_trait]
impl ManagedResource for NodeStrategyResource {
    fn type_name(&self) -> &'static str {
        "eksgpu_node_strategy"
    }

    fn schema(&self) -> Schema {
        schema()
    }

    fn import_id(&self) -> ImportId {
        ImportId {
            formats: &[&["cluster_name", "name"]],
            example: "gpu-prod/genai",
        }
    }

    fn validate_config(&self, config: &Value, diags: &mut Diagnostics) {
        plan::validate(config, diags);
    }

    fn modify_plan(&self, p: &mut Plan<'_>, diags: &mut Diagnostics) {
        plan::modify(
            p,
            self.karpenter_version(),
            self.karpenter_gates(),
            &self.default_tags(),
            self.settings_known(),
            diags,
        );
    }

    async fn plan_warnings(&self, ctx: &Context, planned: &Value, diags: &mut Diagnostics) {
        if let Some(c) = self.state.configured() {
            plan::cluster_managers(ctx, c, planned, diags).await;
        }
    }

    fn check_planned(&self, planned: &Value, diags: &mut Diagnostics) {
        plan::check(planned, self.karpenter_version(), self.karpenter_gates(), diags);
    }

    async fn create(&self, ctx: &Context, planned: &Value, diags: &mut Diagnostics) -> Option<Value> {
        self.apply(ctx, &Value::Null, planned, diags).await
    }

    async fn update(&self, ctx: &Context, prior: &Value, planned: &Value, diags: &mut Diagnostics) -> Option<Value> {
        self.apply(ctx, prior, planned, diags).await
    }

    async fn delete(&self, ctx: &Context, prior_state: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let c = configured(&self.state, diags)?;
        let mut prior = reported(model::strategy, prior_state, diags)?;
        prior.karpenter_gates = c.karpenter_gates;
        let force = prior_state.get("force_conflicts").as_bool() == Some(true);
        let mut run = Run::new(ctx, c, &prior.cluster_name, Timeouts::of(prior_state), force);
        run.owner_token(prior_state.get("owner_token").as_str().map(str::to_owned));
        let prior_values = model::pool_values(prior_state);
        let remaining = run.delete_pools(&prior, None, &prior.pools, diags).await;
        Some(with_pools(prior_state, &prior_values, &remaining)).filter(|s| !s.is_null())
    }

    async fn read(&self, ctx: &Context, state: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let c = configured(&self.state, diags)?;
        let mut s = reported(model::strategy, state, diags)?;
        s.default_tags = c.default_tags.clone();
        s.karpenter_gates = c.karpenter_gates;
        let mut run = Run::new(ctx, c, &s.cluster_name, Timeouts::of(state), false);
        let prior_values = model::pool_values(state);
        let mut pools = PoolValues::new();
        let mut gone = Vec::new();
        for pool in &s.pools {
            let Some(pv) = prior_values.get(&pool.name) else {
                continue;
            };
            match run.read_pool(&s, pool, diags).await {
                Some(Some(mut live)) => {
                    // The provider's default tags are not the pool's own.
                    live.tags = eksgpu_core::eks::user_tags(&s, &pool.tags, &live.tags);
                    let mut v = read_back(&live, pv);
                    // What was read back, as YAML too: a drifted pool's manifests say what is live.
                    if live != *pool {
                        path::set(&mut v, "manifests_yaml", plan::manifests_yaml(&s, &live));
                    }
                    if let Some(drifted) = run.drifted_overlays(&pool.name) {
                        path::set(&mut v, "manifests_yaml", plan::manifests_yaml_with(&s, &live, drifted));
                    }
                    pools.insert(pool.name.clone(), v);
                }
                Some(None) => {
                    // Kept with nothing rendered, so the plan shows this pool being created again.
                    tracing::info!(pool = %pool.name, "pool is gone; it will be planned again");
                    let mut v = pv.clone();
                    path::set(&mut v, "manifests_yaml", Value::Null);
                    gone.push(pool.name.clone());
                    pools.insert(pool.name.clone(), v);
                }
                None => return None,
            }
        }
        if gone.len() == s.pools.len() && !s.pools.is_empty() {
            return Some(Value::Null);
        }
        for name in gone {
            diags.push(Diagnostic::warning(
                format!("Pool {name} is gone"),
                format!(
                    "The objects of pool {name:?} of strategy {:?} no longer exist (deleted outside Terraform): the \
                     plan creates them again.",
                    s.name
                ),
            ));
        }
        let mut out = state.clone();
        path::set(&mut out, "pools", Value::Map(pools));
        Some(out)
    }

    async fn import(&self, ctx: &Context, _format: usize, parts: &[&str], diags: &mut Diagnostics) -> Option<Value> {
        let [cluster_name, name] = parts else {
            return None;
        };
        let (cluster_name, name) = (*cluster_name, *name);
        let c = configured(&self.state, diags)?;
        let mut s = NodeStrategy {
            cluster_name: cluster_name.to_owned(),
            name: name.to_owned(),
            kubernetes_version: None,
            gpu_operator: None,
            device_plugin: None,
            pools: Vec::new(),
            default_tags: c.default_tags.clone(),
            karpenter_gates: c.karpenter_gates,
        };
        let mut run = Run::new(ctx, c, cluster_name, Timeouts::of(&Value::Null), false);
        // Either side may hold the strategy's pools; one side failing is only
        // fatal when the other found nothing (a `kubernetes`-block setup may
        // have no AWS access, an AWS-only strategy no Karpenter).
        let mut found: Vec<Pool> = Vec::new();
        let mut blocks = eksgpu_core::model::StackBlocks::default();
        let mut sides = Vec::new();
        for (side, result, side_diags) in run.find(&s).await {
            if let Some((pools, b)) = result {
                found.extend(pools);
                blocks = blocks.or(b);
            }
            sides.push((side, side_diags));
        }
        if found.is_empty() && sides.iter().any(|(_, d)| d.has_errors()) {
            // Lead with what the ID asked for: the side errors alone read as an AWS or
            // Kubernetes failure, not as "this ID names nothing reachable".
            diags.error(
                "Nothing to import",
                format!(
                    "Looked for strategy {name:?} in cluster {cluster_name:?} (import ID <cluster_name>/<name>) and \
                     found nothing: the lookups below failed. Check that the cluster exists in the provider's region \
                     and account, and that the provider may read it."
                ),
            );
        }
        for (side, side_diags) in sides {
            if found.is_empty() || !side_diags.has_errors() {
                // Its errors when nothing was found; otherwise its warnings (what the import could
                // not tell, such as the ComputeDomains it could not list).
                diags.extend(side_diags);
            } else {
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
        // In key order, as `pools` holds them.
        found.sort_by(|a, b| a.name.cmp(&b.name));
        s.gpu_operator = blocks.gpu_operator;
        s.device_plugin = blocks.device_plugin;
        s.pools = found;
        let version = run.kubernetes_version(&s, diags).await?;
        let pools = s
            .pools
            .iter()
            .map(|p| (p.name.clone(), plan::with_computed(&s, p, model::write_pool(p))))
            .collect();
        let state = Value::object([
            ("id", format!("{cluster_name}/{name}").into()),
            ("cluster_name", cluster_name.into()),
            ("name", name.into()),
            ("kubernetes_version", version.into()),
            ("force_conflicts", false.into()),
            ("wait_for_ready", Value::Null),
            ("ready_timeout", Value::Null),
            ("acknowledged_warnings", Value::Null),
            ("gpu_operator", model::write_gpu_operator(s.gpu_operator.as_ref())),
            ("device_plugin", model::write_device_plugin(s.device_plugin.as_ref())),
            ("pools", Value::Map(pools)),
            (
                "gpu_operator_values_yaml",
                render::gpu_operator_values(&s).map_or(Value::Null, |v| yaml::to_yaml(&v).into()),
            ),
            ("neuron_values_yaml", plan::neuron_values_yaml(&s)),
            ("dra_driver_values_yaml", plan::dra_driver_values_yaml(&s)),
            ("device_plugin_values_yaml", plan::device_plugin_values_yaml(&s)),
            ("timeouts", Value::List(Vec::new())),
            // The imported objects bear no token yet: the next apply writes this one on them.
            ("owner_token", new_owner_token().into()),
        ]);
        Some(state)
    }

    fn upgrade_json(&self, version: i64, json: &mut serde_json::Value) {
        // Before version 5 pools were a list of `pool` blocks: each is keyed by its name now, its
        // blocks of one are objects and its block lists have plural names (design/0010).
        if version < 5 {
            upgrade::pools_by_name(json);
        }
    }

    fn upgrade(&self, version: i64, state: Value, _diags: &mut Diagnostics) -> Value {
        // Version 0 stored a pool without labels as null; from 1 on `labels` defaults to `{}`.
        // Before version 2 pools had no `efa`, which now defaults to false.
        // Before version 3 there were no Neuron pools (EKSGPU016 refused them): every pool is
        // `nvidia` and `neuron_values_yaml` null, so an upgraded state plans no change.
        // Before version 4 pools had no `multi_node_nvlink` (now false) and the strategy no
        // `dra_driver_values_yaml`, computed from what is stored, as a plan would.
        // Before version 5 a NodePool's pool annotation and a node group's tags held the pool's
        // position in the list: its `manifests_yaml` is rendered again, as a plan would.
        // Before version 6 there was no `device_plugin` block: none, and no values.
        let state = if version < 6 {
            upgrade::without_device_plugin(state)
        } else {
            return state;
        };
        if version >= 5 {
            return state;
        }
        let mut state = state;
        if version >= 4 {
            return upgrade::manifests_rendered_again(state);
        }
        eksgpu_framework::plan::each_entry(&mut state, "pools", |_, p| {
            if version < 1 && p.get("labels").is_null() {
                path::set(p, "labels", Value::Map(Default::default()));
            }
            if version < 2 && p.get("efa").is_null() {
                path::set(p, "efa", Value::Bool(false));
            }
            if p.get("accelerator").is_null() {
                path::set(p, "accelerator", Value::from("nvidia"));
            }
            if p.get("multi_node_nvlink").is_null() {
                path::set(p, "multi_node_nvlink", Value::Bool(false));
            }
        });
        if version < 3 {
            path::set(&mut state, "neuron_values_yaml", Value::Null);
        }
        let dra_driver = model::strategy(&state).map_or(Value::Null, |s| plan::dra_driver_values_yaml(&s));
        path::set(&mut state, "dra_driver_values_yaml", dra_driver);
        upgrade::manifests_rendered_again(state)
    }
}

impl NodeStrategyResource {
    /// Creates or updates the strategy's pools, pool by pool. A failure keeps
    /// what was applied, and the prior version of the rest, in state: nothing
    /// created is ever lost.
    async fn apply(
        &self,
        ctx: &Context,
        prior_state: &Value,
        planned_state: &Value,
        diags: &mut Diagnostics,
    ) -> Option<Value> {
        let c = configured(&self.state, diags)?;
        let mut planned = reported(model::strategy, planned_state, diags)?;
        planned.default_tags = c.default_tags.clone();
        planned.karpenter_gates = c.karpenter_gates;
        let force = planned_state.get("force_conflicts").as_bool() == Some(true);
        let cluster_name = planned.cluster_name.clone();
        let mut run = Run::new(ctx, c, &cluster_name, Timeouts::of(planned_state), force);
        let prior = model::strategy(prior_state).ok().map(|p| NodeStrategy {
            karpenter_gates: c.karpenter_gates,
            ..p
        });
        let prior_values = model::pool_values(prior_state);
        run.renamed_from(prior.as_ref().map(|p| p.name.clone()));
        if planned_state.get("wait_for_ready").as_bool() == Some(true) {
            run.wait_for_ready(crate::resources::readiness::timeout_of(planned_state));
        }

        let mut new_state = planned_state.clone();
        let token = planned_state
            .get("owner_token")
            .as_str()
            .map_or_else(new_owner_token, str::to_owned);
        run.owner_token(Some(token.clone()));
        path::set(&mut new_state, "owner_token", token.into());
        if new_state.get("kubernetes_version").as_str().is_none() {
            let v = run.kubernetes_version(&planned, diags).await?;
            planned.kubernetes_version = Some(v.clone());
            path::set(&mut new_state, "kubernetes_version", v.into());
        }
        // What needs the cluster's facts is checked before any change.
        let mut facts = Diagnostics::new();
        let ok = run.check_against_cluster(&planned, &mut facts).await;
        diags.extend(answered::unanswered(
            facts,
            &crate::resources::acknowledged::codes(planned_state),
        ));
        if !ok {
            return None;
        }

        if let Some(prior) = &prior
            && !delete_replaced_pools(&mut run, prior, &planned, diags).await
        {
            return None;
        }
        let (mut state_pools, failed) = apply_pools(&mut run, &planned, planned_state, &prior_values, diags).await;
        if !failed && let Some(prior) = &prior {
            delete_gone_pools(&mut run, prior, &planned, &prior_values, &mut state_pools, diags).await;
        }
        if prior_state.is_null() && failed {
            // Terraform taints a resource whose create fails, and the next apply would
            // delete and recreate everything that worked: so nothing is kept in state.
            // In-cluster objects are deleted again; AWS objects (slow to make) stay,
            // carry the strategy's tags, and the next apply takes them over.
            run.abandon_create(&planned, &state_pools, diags).await;
            return Some(Value::Null);
        }
        if state_pools.is_empty() && prior_state.is_null() {
            return Some(Value::Null);
        }
        path::set(&mut new_state, "pools", Value::Map(state_pools));
        Some(new_state)
    }
}

/// A pool whose capacity kind changes cannot change in place (a NodePool's nodeClassRef group
/// and kind are immutable in the upstream CRD; a node group is no NodePool), nor a NodePool
/// turning static or dynamic (the CRD's `has(self.replicas) == has(oldSelf.replicas)`): its prior
/// objects go first, then the new ones are created. The plan warned. `false` when some could not
/// be deleted.
async fn delete_replaced_pools(
    run: &mut Run<'_>,
    prior: &NodeStrategy,
    planned: &NodeStrategy,
    diags: &mut Diagnostics,
) -> bool {
    let moved: Vec<Pool> = prior
        .pools
        .iter()
        .filter(|p| {
            planned
                .pools
                .iter()
                .any(|q| q.name == p.name && (q.capacity != p.capacity || plan::static_changes(p, q)))
        })
        .cloned()
        .collect();
    moved.is_empty() || run.delete_pools(prior, Some(planned), &moved, diags).await.is_empty()
}

/// Applies the planned pools in key order; after a failure the rest keep their prior state. The
/// pool values for the new state, and whether one failed.
async fn apply_pools(
    run: &mut Run<'_>,
    planned: &NodeStrategy,
    planned_state: &Value,
    prior_values: &PoolValues,
    diags: &mut Diagnostics,
) -> (PoolValues, bool) {
    let planned_values = model::pool_values(planned_state);
    let mut state_pools = PoolValues::new();
    let mut failed = false;
    for pool in &planned.pools {
        let name = pool.name.clone();
        let prior_same_name = prior_values.get(&name).cloned();
        let Some(planned_value) = planned_values.get(&name).cloned() else {
            continue;
        };
        if failed {
            state_pools.extend(prior_same_name.map(|v| (name, v)));
            continue;
        }
        let prior_pool = prior_same_name.as_ref().and_then(|v| model::pool_of(&name, v).ok());
        let adopt = planned_value.get("adopt").as_bool() == Some(true);
        match run.apply_pool(planned, pool, prior_pool.as_ref(), adopt, diags).await {
            Applied::Done => {
                state_pools.insert(name, planned_value);
            }
            Applied::Failed { touched } => {
                failed = true;
                // An AWS object that was created or changed before the failure is
                // recorded as planned; refresh then reports what it really is.
                if touched {
                    state_pools.insert(name, planned_value);
                } else {
                    state_pools.extend(prior_same_name.map(|v| (name, v)));
                }
            }
        }
    }
    (state_pools, failed)
}

/// Deletes the objects of prior pools the strategy no longer has (pools that changed kind went
/// before the apply); a pool whose objects could not be deleted stays in state, to be deleted next time.
async fn delete_gone_pools(
    run: &mut Run<'_>,
    prior: &NodeStrategy,
    planned: &NodeStrategy,
    prior_values: &PoolValues,
    state_pools: &mut PoolValues,
    diags: &mut Diagnostics,
) {
    let gone: Vec<Pool> = prior
        .pools
        .iter()
        .filter(|p| !planned.pools.iter().any(|q| q.name == p.name))
        .cloned()
        .collect();
    let mut remaining = run.delete_pools(prior, Some(planned), &gone, diags).await;
    remaining.extend(run.delete_stale_objects(prior, planned, diags).await);
    for name in remaining {
        if let Some(p) = prior_values.get(&name) {
            state_pools.entry(name).or_insert_with(|| p.clone());
        }
    }
}

/// A new instance's `owner_token`: 128 random bits as hex. `RandomState` draws its keys from the
/// operating system's randomness (std's `hashmap_random_keys`), and each one differs.
pub(crate) fn new_owner_token() -> String {
    use std::hash::BuildHasher;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let a = std::collections::hash_map::RandomState::new().hash_one(nanos);
    let b = std::collections::hash_map::RandomState::new().hash_one((nanos, std::process::id()));
    format!("{a:016x}{b:016x}")
}

#[cfg(test)]
mod tests {
    use eksgpu_framework::Framework;
    use eksgpu_tfplugin::Resource;

    use super::*;

    /// State written by version 0 (single blocks as objects, labels null)
    /// decodes with today's schema after the upgrade, and keeps its values.
    #[test]
    fn version_0_state_upgrades() {
        let r = Framework::new(NodeStrategyResource::new(Arc::new(ProviderState::default())));
        let mut json = serde_json::json!({
            "id": "gpu/genai", "cluster_name": "gpu", "name": "genai", "kubernetes_version": "1.33",
            "force_conflicts": false, "gpu_operator_values_yaml": null,
            "gpu_operator": {"mig_strategy": "mixed", "dcgm_exporter": true, "service_monitor": false},
            "timeouts": null,
            "pool": [{
                "name": "inference", "capacity": "karpenter", "instance_types": ["g6e.xlarge"],
                "capacity_types": null, "zones": null, "gpu_limit": 4, "labels": null, "gpu_taint": true,
                "dra": false, "taint": [], "disruption": null, "managed_node_group": null, "hybrid": null,
                "node_class": {"ami_alias": null, "role": "R", "subnet_selector_tags": null,
                    "security_group_selector_tags": null, "tags": null, "root_volume": null, "kubelet": null},
                "node_selector": {}, "tolerations": [], "gpu_resource_name": "nvidia.com/gpu", "manifests_yaml": ""
            }]
        });
        r.upgrade_json(0, &mut json);
        let bytes = serde_json::to_vec(&json).unwrap();
        let state = eksgpu_tfplugin::value::decode_json(&bytes, &schema().value_type()).unwrap();
        let state = r.upgrade(0, state, &mut Diagnostics::new());
        let s = model::strategy(&state).unwrap();
        assert_eq!(s.gpu_operator.unwrap().mig_strategy, "mixed");
        assert_eq!(s.pools[0].node_class.as_ref().unwrap().role.as_deref(), Some("R"));
        assert_eq!(s.pools[0].gpu_limit, Some(4));
        let pool = |state: &Value| model::pool_values(state)["inference"].clone();
        assert_eq!(pool(&state).get("efa"), &Value::Bool(false));
        // Version 3: pools stored before Neuron pools existed are NVIDIA pools.
        assert_eq!(pool(&state).get("accelerator"), &Value::from("nvidia"));
        assert!(state.get("neuron_values_yaml").is_null());
        // Version 4: no pool was multi_node_nvlink, and no DRA pool means empty driver values.
        assert_eq!(pool(&state).get("multi_node_nvlink"), &Value::Bool(false));
        assert_eq!(state.get("dra_driver_values_yaml"), &Value::from(""));
        assert_eq!(pool(&state).get("labels"), &Value::Map(Default::default()));
    }

    /// A version 3 state with a DRA pool gets the driver values its pools call for, as a plan
    /// would compute them, so the first plan after the upgrade shows no change.
    #[test]
    fn version_3_state_gets_the_dra_driver_values_of_its_pools() {
        let r = Framework::new(NodeStrategyResource::new(Arc::new(ProviderState::default())));
        let mut json = serde_json::json!({
            "id": "gpu/genai", "cluster_name": "gpu", "name": "genai", "kubernetes_version": "1.34",
            "force_conflicts": false, "gpu_operator_values_yaml": null, "neuron_values_yaml": null,
            "gpu_operator": null, "timeouts": [],
            "pool": [{
                "name": "dra", "capacity": "karpenter", "instance_types": ["p5.48xlarge"], "replicas": 2,
                "labels": {}, "gpu_taint": true, "dra": true, "efa": false, "taint": [],
                "node_class": [{"role": "R"}], "accelerator": "nvidia"
            }]
        });
        r.upgrade_json(3, &mut json);
        let bytes = serde_json::to_vec(&json).unwrap();
        let state = eksgpu_tfplugin::value::decode_json(&bytes, &schema().value_type()).unwrap();
        let state = r.upgrade(3, state, &mut Diagnostics::new());
        assert_eq!(
            model::pool_values(&state)["dra"].get("multi_node_nvlink"),
            &Value::Bool(false)
        );
        let values = state
            .get("dra_driver_values_yaml")
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(values.contains("gpuResourcesEnabledOverride: true"), "{values}");
        assert!(values.contains("karpenter.sh/nodepool"), "{values}");
    }
}
