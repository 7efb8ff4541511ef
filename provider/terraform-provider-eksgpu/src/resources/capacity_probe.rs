//! `eksgpu_capacity_probe`: launches one node of the given accelerated types through a
//! throw-away NodePool, records what happened and deletes everything again
//! (`eksgpu_core::probe` renders and judges; `run` applies, watches and cleans up).

mod cleanup;
mod model;
mod run;
mod schema;

use std::sync::Arc;

use async_trait::async_trait;
use eksgpu_cloud::kube::ApplyOptions;
use eksgpu_core::probe;
use eksgpu_core::rules;
use eksgpu_framework::model::reported;
use eksgpu_framework::partial::Partial;
use eksgpu_framework::{ImportId, ManagedResource, Plan, path};
use eksgpu_tfplugin::{Context, Diagnostics, Schema, Value};

use super::{acknowledged, configured, connect, errors_only, plan_id};
use crate::diagnostics;
use crate::provider::ProviderState;

pub use schema::schema;

/// Whether a finding reads an input that is unknown at plan (a null stands in for it, so the
/// finding would judge a default): such a finding waits for apply, where it is checked again.
fn depends_on_unknown(code: rules::Code, planned: &Value) -> bool {
    use rules::Code::{EKSGPU361, EKSGPU363, EKSGPU364, EKSGPU365};
    let inputs: &[&str] = match code {
        EKSGPU361 => &["instance_types", "capacity_types", "timeout", "price_per_hour"],
        EKSGPU363 => &["capacity", "node_class"],
        EKSGPU364 => &["capacity", "instance_types"],
        EKSGPU365 => &["instance_types", "capacity_types"],
        _ => &["instance_types"],
    };
    inputs.iter().any(|a| !planned.get(a).is_wholly_known())
}

pub struct CapacityProbeResource {
    state: Arc<ProviderState>,
}

impl CapacityProbeResource {
    pub(crate) fn new(state: Arc<ProviderState>) -> Self {
        Self { state }
    }
}

#[async_trait]
impl ManagedResource for CapacityProbeResource {
    fn type_name(&self) -> &'static str {
        "eksgpu_capacity_probe"
    }

    fn schema(&self) -> Schema {
        schema()
    }

    fn import_id(&self) -> ImportId {
        ImportId {
            formats: &[&["cluster_name", "name"]],
            example: "gpu-prod/p5en",
        }
    }

    fn modify_plan(&self, plan: &mut Plan<'_>, diags: &mut Diagnostics) {
        plan_id(&mut plan.planned, &["cluster_name", "name"]);
        let partial = Partial::of_inputs(&schema::cached().block, &plan.planned);
        let mut inputs = partial.value.clone();
        if plan.planned.get("cluster_name").is_unknown() {
            // The cluster name only labels the objects: rules and the cost do not need it.
            path::set(&mut inputs, "cluster_name", "<unknown>".into());
        }
        let Ok(p) = model::read(&inputs) else {
            return;
        };
        let found = probe::check_probe(&p)
            .into_iter()
            .filter(|v| !depends_on_unknown(v.code, &plan.planned));
        for v in rules::unanswered(found.collect(), &acknowledged::codes(&plan.planned)) {
            let d = diagnostics::violation(&v);
            if partial.reports(&schema::cached().block, &d) {
                diags.push(d);
            }
        }
        if partial.is_complete() {
            model::set_planned(&mut plan.planned, &p);
        }
    }

    fn check_planned(&self, planned: &Value, diags: &mut Diagnostics) {
        if let Some(p) = reported(model::read, planned, diags) {
            diags.extend(errors_only(probe::check_probe(&p)));
        }
    }

    async fn create(&self, ctx: &Context, planned: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let c = configured(&self.state, diags)?;
        let p = reported(model::read, planned, diags)?;
        let cluster = connect(c, &p.cluster_name, diags).await?;
        let token = super::node_strategy::new_owner_token();
        let opts = ApplyOptions {
            field_manager: &c.field_manager,
            force: false,
        };
        let f = run::run(ctx, cluster.as_ref(), &p, &token, opts, diags).await?;
        Some(model::finished(planned, &p, &f.outcome, f.ready_after, &token))
    }

    async fn update(&self, _ctx: &Context, prior: &Value, planned: &Value, diags: &mut Diagnostics) -> Option<Value> {
        // Only `price_per_hour` and `acknowledged_warnings` change in place: nothing in the
        // cluster, the outcome stays.
        let p = reported(model::read, planned, diags)?;
        let mut v = planned.clone();
        model::set_planned(&mut v, &p);
        for k in [
            "result",
            "instance_type",
            "zone",
            "ready_after",
            "message",
            "answers",
            "owner_token",
        ] {
            path::set(&mut v, k, prior.get(k).clone());
        }
        Some(v)
    }

    async fn delete(&self, _ctx: &Context, prior: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let c = configured(&self.state, diags)?;
        let Some(p) = reported(model::read, prior, diags) else {
            return Some(prior.clone());
        };
        let Some(cluster) = connect(c, &p.cluster_name, diags).await else {
            return Some(prior.clone());
        };
        // The run deleted its objects already; what a failed clean-up left goes now, and only
        // what this instance wrote (its token).
        let Some(token) = prior.get("owner_token").as_str() else {
            diags.warning(
                "Nothing deleted",
                "The state holds no owner token, so nothing in the cluster can be told apart as this probe's.",
            );
            return None;
        };
        match cleanup::clean(cluster.as_ref(), &p, Some(token)).await {
            Ok(kept) => {
                for k in kept {
                    diags.warning("Left in place", k);
                }
                None
            }
            Err(cleanup::Left(why)) => {
                diags.error("The probe's node may still be running", why);
                Some(prior.clone())
            }
        }
    }

    async fn read(&self, _ctx: &Context, state: &Value, _diags: &mut Diagnostics) -> Option<Value> {
        // A probe is the record of one run: its objects are gone, and nothing in the cluster
        // changes what it found. No call.
        Some(state.clone())
    }

    async fn import(&self, _ctx: &Context, _format: usize, _parts: &[&str], diags: &mut Diagnostics) -> Option<Value> {
        diags.error(
            "A capacity probe cannot be imported",
            "A probe is the record of one run of this provider; there is nothing in the cluster to adopt. Declare \
             it and apply it: that runs it."
                .to_owned(),
        );
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use eksgpu_tfplugin::Value;
    use std::collections::BTreeMap;

    fn planned(capacity_types: Value, timeout: Value) -> Value {
        Value::Object(BTreeMap::from([
            ("capacity".to_owned(), "karpenter".into()),
            (
                "instance_types".to_owned(),
                Value::List(vec!["p6e-gb200.36xlarge".into()]),
            ),
            ("capacity_types".to_owned(), capacity_types),
            ("timeout".to_owned(), timeout),
            ("price_per_hour".to_owned(), Value::Null),
            ("node_class".to_owned(), "gb200".into()),
        ]))
    }

    #[test]
    fn a_finding_on_an_unknown_input_waits_for_apply() {
        use rules::Code::{EKSGPU361, EKSGPU365};
        let known = planned(Value::List(vec!["on-demand".into()]), "20m".into());
        assert!(!depends_on_unknown(EKSGPU365, &known));
        assert!(!depends_on_unknown(EKSGPU361, &known));
        // With capacity_types unknown, the default would make EKSGPU365 refuse what may be `reserved`.
        let unknown_types = planned(Value::Unknown, "20m".into());
        assert!(depends_on_unknown(EKSGPU365, &unknown_types));
        // With timeout unknown, EKSGPU361 would state the default's cost.
        let unknown_timeout = planned(Value::List(vec!["reserved".into()]), Value::Unknown);
        assert!(depends_on_unknown(EKSGPU361, &unknown_timeout));
        assert!(!depends_on_unknown(EKSGPU365, &unknown_timeout));
    }
}
