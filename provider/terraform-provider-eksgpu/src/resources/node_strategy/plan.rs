//! Planning a node strategy: the computed outputs of every pool whose inputs
//! are known (a pool's node selector and tolerations need only the pool, so a
//! strategy whose `cluster_name` comes from a cluster created in the same apply
//! still plans them), and the rules on whatever is known.

use eksgpu_core::eks;
use eksgpu_core::karpenter_gates::FeatureGates;
use eksgpu_core::model::outputs::Output;
use eksgpu_core::model::rules as strategy_rules;
use eksgpu_core::model::{Capacity, NodeStrategy, Pool};
use eksgpu_core::render::{self, Manifest};
use eksgpu_core::{rules, validate, yaml};
use eksgpu_framework::Plan;
use eksgpu_framework::model::Obj;
use eksgpu_framework::partial::Partial;
use eksgpu_framework::path;
use eksgpu_tfplugin::diag::Step;
use eksgpu_tfplugin::{AttributePath, Diagnostic, Diagnostics, Value};

use super::{early, model, schema, worlds};
use crate::diagnostics;
use crate::resources::{errors_only, plan_id};

pub(super) fn manifests(s: &NodeStrategy) -> Vec<Manifest> {
    s.pools.iter().flat_map(|p| render::pool_manifests(s, p)).collect()
}

pub(super) fn tolerations(pool: &Pool) -> Value {
    Value::List(
        render::tolerations(pool)
            .into_iter()
            .map(|t| {
                let get = |k: &str| t.get(k).map_or(Value::Null, |s| s.as_str().into());
                Value::object([
                    ("key", get("key")),
                    ("operator", get("operator")),
                    ("value", get("value")),
                    ("effect", get("effect")),
                ])
            })
            .collect(),
    )
}

pub(super) fn node_selector(s: &NodeStrategy, pool: &Pool) -> Value {
    Value::Map(
        render::node_selector(s, pool)
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect(),
    )
}

pub(super) fn manifests_yaml(s: &NodeStrategy, pool: &Pool) -> Value {
    manifests_yaml_with(s, pool, &[])
}

/// Objects read back on their own, beside the pool (NodeOverlays, the ComputeDomain): their drift
/// is shown in `manifests_yaml`, not in an input.
fn read_on_their_own(m: &Manifest) -> bool {
    m.kind == eksgpu_core::kinds::NODE_OVERLAY || m.kind == eksgpu_core::kinds::COMPUTE_DOMAIN
}

/// `manifests_yaml` with some NodeOverlays or ComputeDomains as they are live (`None`: gone)
/// instead of as rendered: their drift shows as this one computed value's diff, which apply
/// restores. The pool's own objects (or its EKS API requests) come first, then its ComputeDomain.
pub(super) fn manifests_yaml_with(
    s: &NodeStrategy,
    pool: &Pool,
    live: &[(String, Option<serde_json::Value>)],
) -> Value {
    let as_live = |m: Manifest| match live.iter().find(|(name, _)| read_on_their_own(&m) && *name == m.name) {
        Some((_, body)) => body.clone(),
        None => Some(m.body),
    };
    let mut docs: Vec<serde_json::Value> = render::pool_manifests(s, pool)
        .into_iter()
        .filter_map(as_live)
        .collect();
    docs.extend(eks::aws_requests(s, pool));
    docs.extend(render::compute_domains(s, pool).into_iter().filter_map(as_live));
    yaml::to_yaml_stream(&docs).into()
}

/// A pool value with every computed output filled from the model (import, refresh).
pub(super) fn with_computed(s: &NodeStrategy, pool: &Pool, mut v: Value) -> Value {
    for o in Output::POOL {
        path::set(&mut v, o.attribute(), early::value(o, s, pool));
    }
    path::set(&mut v, "manifests_yaml", manifests_yaml(s, pool));
    path::set(&mut v, "matched_instance_types", matched_instance_types(pool));
    v
}

/// `dra_driver_values_yaml`: empty when no NVIDIA pool has `dra = true`.
pub(super) fn dra_driver_values_yaml(s: &NodeStrategy) -> Value {
    render::dra_driver_values(s).map_or_else(|| Value::from(""), |v| yaml::to_yaml(&v).into())
}

pub(super) fn matched_instance_types(pool: &Pool) -> Value {
    Value::List(
        eksgpu_core::model::matching::matched_instance_types(pool)
            .into_iter()
            .map(Value::String)
            .collect(),
    )
}

/// `device_plugin_values_yaml`: null without a `device_plugin` block.
pub(super) fn device_plugin_values_yaml(s: &NodeStrategy) -> Value {
    render::device_plugin_values(s).map_or(Value::Null, |v| yaml::to_yaml(&v).into())
}

/// `neuron_values_yaml`: null without a Neuron pool.
pub(super) fn neuron_values_yaml(s: &NodeStrategy) -> Value {
    render::neuron_values(s).map_or(Value::Null, |v| yaml::to_yaml(&v).into())
}

/// What is known of the strategy at plan.
struct Known {
    partial: Partial,
    /// The planned inputs with their unknowns in place (what `worlds` completes).
    inputs: Value,
    /// The strategy with placeholders for an unknown name or cluster, and the
    /// pools that could be read (in key order).
    strategy: NodeStrategy,
    header_known: bool,
    cluster_known: bool,
}

fn at(steps: &[&str]) -> Vec<Step> {
    steps.iter().map(|s| Step::Attribute((*s).to_owned())).collect()
}

/// Where pool `name` is: `pools["name"]`.
pub(super) fn pool_at(name: &str) -> Vec<Step> {
    vec![Step::Attribute("pools".into()), Step::Key(name.to_owned())]
}

/// [`pool_at`] as a diagnostic's path.
pub(super) fn pool_path(name: &str) -> AttributePath {
    AttributePath::attr("pools").key(name)
}

fn known(planned: &Value) -> Option<Known> {
    let partial = Partial::of_inputs(&schema::cached().block, planned);
    let cluster_known = !partial.touches_unknown(&at(&["cluster_name"]));
    let name_known = !partial.touches_unknown(&at(&["name"]));
    let operator_known = !partial.touches_unknown(&at(&["gpu_operator"]));
    let plugin_known = !partial.touches_unknown(&at(&["device_plugin"]));
    let o = Obj::new(&partial.value).ok()?;
    let text = |k: &str| {
        o.get::<Option<String>>(k)
            .ok()
            .flatten()
            .unwrap_or_else(|| "<unknown>".into())
    };
    // A pool that does not read (an unknown required input) is left to the plan of the apply.
    let pools: Vec<Pool> = model::pool_values(&partial.value)
        .iter()
        .filter_map(|(name, v)| model::pool_of(name, v).ok())
        .collect();
    let strategy = NodeStrategy {
        cluster_name: text("cluster_name"),
        name: text("name"),
        kubernetes_version: o.get("kubernetes_version").ok().flatten(),
        gpu_operator: o
            .field("gpu_operator")
            .ok()
            .and_then(|v| model::gpu_operator(v).ok().flatten()),
        device_plugin: o
            .field("device_plugin")
            .ok()
            .and_then(|v| model::device_plugin(v).ok().flatten()),
        pools,
        default_tags: Default::default(),
        karpenter_gates: Default::default(),
    };
    Some(Known {
        inputs: eksgpu_framework::plan::strip_computed(&schema::cached().block, planned),
        header_known: cluster_known && name_known && operator_known && plugin_known,
        partial,
        strategy,
        cluster_known,
    })
}

/// Fills computed values from known inputs and reports the rules on what is known.
pub(super) fn modify(
    plan: &mut Plan<'_>,
    karpenter_version: (u32, u32),
    gates: FeatureGates,
    default_tags: &std::collections::BTreeMap<String, String>,
    settings_known: bool,
    diags: &mut Diagnostics,
) {
    plan_id(&mut plan.planned, &["cluster_name", "name"]);
    // The instance's token is set once (at create or import, unknown until then) and kept.
    if let Value::String(t) = plan.prior.get("owner_token") {
        path::set(&mut plan.planned, "owner_token", Value::String(t.clone()));
    }
    if plan.config.get("kubernetes_version").is_null() {
        // Read from the cluster at apply, unless the cluster already told us.
        let same_cluster = plan.prior.get("cluster_name") == plan.planned.get("cluster_name");
        let prior = plan.prior.get("kubernetes_version").clone();
        let v = if same_cluster && !prior.is_null() {
            prior
        } else {
            Value::Unknown
        };
        path::set(&mut plan.planned, "kubernetes_version", v);
    }
    let Some(mut k) = known(&plan.planned) else {
        return;
    };
    // The provider's default tags go on every AWS object, so on the requests plans show.
    k.strategy.default_tags = default_tags.clone();
    k.strategy.karpenter_gates = gates;
    let s = &k.strategy;
    // Outputs render the provider's settings (NodeOverlays from the gates, tags on requests): while
    // one is unknown they stay unknown, as computed attributes are planned by default.
    if settings_known {
        outputs(plan, &k);
    }
    let ctx = strategy_rules::Context { karpenter_version };
    let check = |w: &NodeStrategy| {
        if settings_known {
            strategy_rules::check_node_strategy(w, &ctx)
        } else {
            in_every_gate_world(w, &ctx)
        }
    };
    report(&k, judged(&k, s, check), diags);
    let known_labels: Vec<Pool> = s
        .pools
        .iter()
        .filter(|p| {
            let mut at = pool_at(&p.name);
            at.push(Step::Attribute("labels".into()));
            !k.partial.touches_unknown(&at)
        })
        .cloned()
        .collect();
    restricted_labels(&known_labels, karpenter_version, diags);
    if k.cluster_known {
        node_group_names(&s.cluster_name, &s.pools, diags);
    }
    if let Ok(prior) = model::strategy(plan.prior) {
        // What EKS asks of the change itself (node group upgrades).
        report(&k, strategy_rules::check_upgrade(&prior, s), diags);
        warn_replacements(&prior, s, diags);
        // Which pools go is known once the map's keys are (an unknown entry still has its key).
        if !k.partial.unknowns_below(&at(&["pools"])).any(<[Step]>::is_empty) {
            warn_deletions(&prior, s, diags);
        }
    }
}

/// The findings that hold whatever the provider's `karpenter_feature_gates` turn out to be (they
/// are unknown at plan): the rules run once per combination of the gates, and a finding is kept
/// only when every combination has it (same rule, same place). The rest fire at apply (`check`).
fn in_every_gate_world(s: &NodeStrategy, ctx: &strategy_rules::Context) -> Vec<rules::Violation> {
    let worlds: Vec<Vec<rules::Violation>> = [(false, false), (false, true), (true, false), (true, true)]
        .into_iter()
        .map(|(static_capacity, node_overlay)| {
            let w = NodeStrategy {
                karpenter_gates: FeatureGates {
                    static_capacity,
                    node_overlay,
                },
                ..s.clone()
            };
            strategy_rules::check_node_strategy(&w, ctx)
        })
        .collect();
    worlds::common(worlds)
}

/// The findings of `check` on what is known: on the strategy itself when every input is known,
/// else those every completion of the unknown inputs has (`worlds`).
fn judged(
    k: &Known,
    s: &NodeStrategy,
    check: impl Fn(&NodeStrategy) -> Vec<rules::Violation>,
) -> Vec<rules::Violation> {
    if k.partial.is_complete() {
        check(s)
    } else {
        worlds::in_every_world(&k.inputs, s, check)
    }
}

/// Reports the rules' findings on what is known; paths point at the pool's place in the
/// configuration, and a finding near an unknown value waits (it may not hold once it is known).
/// Warnings the configuration acknowledges are left out, and a warning of several pools is one.
fn report(k: &Known, found: Vec<rules::Violation>, diags: &mut Diagnostics) {
    let mut kept = Vec::new();
    for v in found {
        // A finding at a pool's own path is about its key (its name, EKSGPU105 and 140): a map's
        // keys are known whenever the map is, whatever of the entry is not.
        if matches!(v.path.as_slice(), [rules::Step::Attr("pools"), rules::Step::Key(_)]) {
            kept.push(v);
            continue;
        }
        if k.partial.reports(&schema::cached().block, &diagnostics::violation(&v)) {
            kept.push(v);
        }
    }
    let kept = rules::unanswered(kept, &crate::resources::acknowledged::codes(&k.partial.value));
    for v in rules::grouped(kept) {
        diags.push(diagnostics::violation(&v));
    }
}

/// The rules `terraform validate` runs: the errors that hold whatever the provider's settings
/// (`strategy_rules::check_at_validate`), on what the configuration makes known. Warnings and the rules on
/// the provider's settings or the cluster wait for the plan; Terraform stops at a validation error,
/// so the plan does not repeat these.
pub(super) fn validate(config: &Value, diags: &mut Diagnostics) {
    if let Some(k) = known(config) {
        let found = judged(&k, &k.strategy, strategy_rules::check_at_validate);
        report(&k, found, diags);
    }
}

/// Every computed output whose inputs are known (`early.rs`); `manifests_yaml` reads all of a
/// pool and the strategy's name and cluster.
fn outputs(plan: &mut Plan<'_>, k: &Known) {
    let pools = early::pools(&plan.planned, &k.partial, model::pool_type());
    let s = NodeStrategy {
        pools: pools.iter().filter_map(|(_, p)| p.clone()).collect(),
        ..k.strategy.clone()
    };
    // A pool's objects also read the other pools' kinds (hybrid pools switch the NVIDIA AMIs'
    // drivers off everywhere: render::effective_labels).
    let kinds_known = pools.iter().all(|(name, p)| {
        let mut capacity = pool_at(name);
        capacity.push(Step::Attribute("capacity".into()));
        p.is_some() && !k.partial.touches_unknown(&capacity)
    }) && !k.partial.unknowns_below(&at(&["pools"])).any(<[Step]>::is_empty);
    for (name, pool) in &pools {
        let Some(pool) = pool else { continue };
        let whole = k.header_known && kinds_known && !k.partial.touches_unknown(&pool_at(name));
        let Some(Value::Object(out)) = path::get_mut(&mut plan.planned, &pool_at(name)) else {
            continue;
        };
        for o in Output::POOL.into_iter().filter(|o| early::known(&k.partial, pool, *o)) {
            out.insert(o.attribute().into(), early::value(o, &s, pool));
        }
        if whole {
            out.insert("manifests_yaml".into(), manifests_yaml(&s, pool));
        }
    }
    for o in Output::STRATEGY {
        let v = early::strategy_value(o, &s, &k.partial, &pools);
        path::set(&mut plan.planned, o.attribute(), v);
    }
}

/// EKSGPU192 when the cluster can be read: the device managers its DaemonSets run that can land
/// on a pool's nodes beside the strategy's own. Only pools wholly known are judged (what their
/// nodes carry is known then). When the DaemonSets cannot be listed (no cluster yet, no route,
/// no credentials, RBAC, Ctrl-C) nothing is said beyond a log line: the plan does not depend on it.
pub(super) async fn cluster_managers(
    ctx: &eksgpu_tfplugin::Context,
    c: &crate::provider::Configured,
    planned: &Value,
    diags: &mut Diagnostics,
) {
    let Some(mut k) = known(planned) else {
        return;
    };
    if !k.header_known {
        return;
    }
    let partial = &k.partial;
    k.strategy.pools.retain(|p| !partial.touches_unknown(&pool_at(&p.name)));
    if k.strategy.pools.is_empty() {
        return;
    }
    let cluster = k.strategy.cluster_name.clone();
    let look = c.clusters.daemon_sets_once(&cluster, crate::resources::LOOK_DEADLINE);
    let listed = tokio::select! {
        r = look => r,
        () = ctx.cancelled() => return,
    };
    let list = match listed {
        Ok(l) => l,
        Err(why) => {
            tracing::info!(cluster = %cluster, why = %why, "the cluster's device managers were not read; EKSGPU192 not checked");
            return;
        }
    };
    let found: Vec<_> = list
        .iter()
        .filter_map(eksgpu_core::model::cluster_managers::classify)
        .collect();
    tracing::debug!(cluster = %cluster, daemon_sets = list.len(), device_managers = found.len(), "read the cluster's device managers");
    report(&k, strategy_rules::check_cluster_managers(&k.strategy, &found), diags);
}

/// Warns at plan about each pool that goes: its objects are named after it,
/// so a pool renamed in the configuration is a delete and a create too.
fn warn_deletions(prior: &NodeStrategy, planned: &NodeStrategy, diags: &mut Diagnostics) {
    let added: Vec<&str> = planned
        .pools
        .iter()
        .filter(|p| !prior.pools.iter().any(|q| q.name == p.name))
        .map(|p| p.name.as_str())
        .collect();
    for gone in prior
        .pools
        .iter()
        .filter(|p| !planned.pools.iter().any(|q| q.name == p.name))
    {
        let mut objects = match gone.capacity {
            Capacity::ManagedNodeGroup => format!("node group {}", eks::node_group_name(prior, gone)),
            Capacity::Hybrid => "the cluster's remote networks and the nodes' access entry".to_owned(),
            _ => render::pool_manifests(prior, gone)
                .iter()
                .map(|m| format!("{} {}", m.kind.kind, m.name))
                .collect::<Vec<_>>()
                .join(" and "),
        };
        for m in render::compute_domains(prior, gone) {
            let ns = m.namespace.as_deref().unwrap_or_default();
            objects.push_str(&format!(" and ComputeDomain {ns}/{}", m.name));
        }
        let rename = if added.is_empty() {
            String::new()
        } else {
            format!(
                " If pool {:?} is meant as a rename to {}, know that objects are named after their pool: the \
                 new name gets new objects.",
                gone.name,
                added.iter().map(|a| format!("{a:?}")).collect::<Vec<_>>().join(" or ")
            )
        };
        diags.push(Diagnostic::warning(
            format!("Pool {} will be deleted", gone.name),
            format!(
                "No pool of the configuration is named {:?} any more: apply deletes {objects} (its nodes drain).{rename}",
                gone.name
            ),
        ));
    }
}

/// The rules on the known plan, again at apply: those whose inputs were unknown at plan fire here.
pub(super) fn check(planned: &Value, karpenter_version: (u32, u32), gates: FeatureGates, diags: &mut Diagnostics) {
    match model::strategy(planned) {
        Ok(mut s) => {
            s.karpenter_gates = gates;
            diags.extend(errors_only(strategy_rules::check_node_strategy(
                &s,
                &strategy_rules::Context { karpenter_version },
            )));
            restricted_labels(&s.pools, karpenter_version, diags);
            node_group_names(&s.cluster_name, &s.pools, diags);
        }
        Err(e) => diags.push(e.diagnostic(&AttributePath::root())),
    }
}

/// Node group names EKS refuses: `<cluster_name>-<pool name>` is at most 63
/// characters of letters, digits, `-` and `_` (EKS API CreateNodegroup). A pool that names its
/// node group (`name`, `name_prefix`) has that checked at its attribute.
fn node_group_names(cluster: &str, pools: &[Pool], diags: &mut Diagnostics) {
    let default_named = |p: &&Pool| {
        p.managed_node_group
            .as_ref()
            .is_none_or(|m| m.name.is_none() && m.name_prefix.is_none())
    };
    for pool in pools
        .iter()
        .filter(|p| p.capacity == Capacity::ManagedNodeGroup)
        .filter(default_named)
    {
        if let Err(e) = validate::node_group_name_for(cluster, &pool.name) {
            let at = pool_path(&pool.name);
            diags.error_at(at.clone(), "Invalid node group name", format!("{at}: {e}"));
        }
    }
}

/// Node labels Karpenter refuses on a NodePool template for the configured
/// release (the NodePool CRD's CEL rules, and Karpenter's own restricted
/// domains: `eksgpu_core::validate::karpenter_node_label_key` cites them).
fn restricted_labels(pools: &[Pool], karpenter_version: (u32, u32), diags: &mut Diagnostics) {
    for pool in pools.iter().filter(|p| p.capacity.is_in_cluster()) {
        for key in pool.labels.keys() {
            if let Err(e) = validate::karpenter_node_label_key(key, karpenter_version) {
                let at = pool_path(&pool.name).attribute("labels").key(key.clone());
                let detail = format!(
                    "{at}: {key:?} cannot label a {} pool's nodes: {e}",
                    pool.capacity.as_str()
                );
                diags.error_at(at, "Label Karpenter refuses", detail);
            }
        }
    }
}

/// Warns at plan when a pool's change needs new capacity: a capacity kind
/// that changes (delete, then create), or a node group EKS cannot change in place.
fn warn_replacements(prior: &NodeStrategy, planned: &NodeStrategy, diags: &mut Diagnostics) {
    for pool in &planned.pools {
        let Some(before) = prior.pools.iter().find(|p| p.name == pool.name) else {
            continue;
        };
        if before.capacity != pool.capacity {
            diags.push(
                Diagnostic::warning(
                    format!("Pool {} will be replaced", pool.name),
                    format!(
                        "Its capacity kind changes from {} to {}, which no API changes in place (a NodePool's \
                         node class kind is immutable): apply deletes the pool's objects first (its nodes drain) \
                         and then creates the new ones.",
                        before.capacity.as_str(),
                        pool.capacity.as_str()
                    ),
                )
                .at(pool_path(&pool.name).attribute("capacity")),
            );
            continue;
        }
        if static_changes(before, pool) {
            let (from, to) = if pool.replicas.is_some() {
                ("dynamic", "static (replicas)")
            } else {
                ("static (replicas)", "dynamic")
            };
            diags.push(
                Diagnostic::warning(
                    format!("NodePool {} will be replaced", pool.name),
                    format!(
                        "Pool {:?} changes from {from} to {to} capacity, which the NodePool CRD refuses in place \
                         (CEL rule has(self.replicas) == has(oldSelf.replicas), karpenter-provider-aws v1.14.1 \
                         karpenter.sh_nodepools.yaml): apply deletes the pool's objects first (its nodes drain) \
                         and then creates them again. To keep the nodes, add a new pool of the other kind beside \
                         this one instead, and remove this one once workloads moved.",
                        pool.name
                    ),
                )
                .at(pool_path(&pool.name).attribute("replicas")),
            );
            continue;
        }
        if let (Some(want), Some(was)) = (eks::node_group(planned, pool), eks::node_group(prior, before))
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
                .at(pool_path(&pool.name)),
            );
        }
    }
}

/// A NodePool that turns static (sets `replicas`) or dynamic (removes it): the CRD refuses both in
/// place (`has(self.replicas) == has(oldSelf.replicas)`), so apply replaces the pool's objects.
pub(super) fn static_changes(before: &Pool, after: &Pool) -> bool {
    before.capacity == after.capacity
        && after.capacity.is_in_cluster()
        && before.replicas.is_some() != after.replicas.is_some()
}
