//! `eksgpu_burst_scaler`: seed 004's burst-to-cloud rule as one KEDA
//! ScaledObject, applied with server-side apply; drift and import like the
//! other in-cluster resources.

mod schema;

use std::sync::Arc;

use async_trait::async_trait;
use eksgpu_cloud::kube::{ApplyOptions, KubeError};
use eksgpu_core::burst::{self, BurstScaler, PreWarm};
use eksgpu_core::fields::project_ours;
use eksgpu_core::yaml;
use eksgpu_tfplugin::{
    ApplyRequest, ApplyResponse, AttributePath, Context, Diagnostics, ImportResponse, Number, PlanRequest,
    PlanResponse, ReadRequest, ReadResponse, Resource, Schema, Value,
};

use super::defaults::{Seg, plan_default};
use super::{cancellable, configured, connect, plan_id, set};
use crate::diagnostics;
use crate::provider::{Configured, ProviderState};

pub use schema::schema;

pub struct BurstScalerResource {
    state: Arc<ProviderState>,
}

impl BurstScalerResource {
    pub(crate) fn new(state: Arc<ProviderState>) -> Self {
        Self { state }
    }
}

fn model(v: &Value) -> Option<BurstScaler> {
    if !v.is_wholly_known() {
        return None;
    }
    let s = |k: &str| v.get(k).as_str().map(str::to_owned);
    let i = |k: &str, d: i64| v.get(k).as_number().and_then(Number::as_i64).unwrap_or(d);
    let f = |k: &str, d: f64| v.get(k).as_number().map_or(d, Number::as_f64);
    let target = v.get("target");
    let keda = s("keda_version").unwrap_or_else(|| "2.20".into());
    let (a, b) = keda.split_once('.')?;
    Some(BurstScaler {
        cluster_name: s("cluster_name")?,
        namespace: s("namespace")?,
        name: s("name")?,
        target_kind: target.get("kind").as_str().unwrap_or("Deployment").to_owned(),
        target_name: target.get("name").as_str()?.to_owned(),
        target_api_version: target.get("api_version").as_str().unwrap_or("apps/v1").to_owned(),
        min_replicas: i("min_replicas", 0),
        max_replicas: i("max_replicas", 1),
        polling_interval: i("polling_interval", 15),
        cooldown_period: i("cooldown_period", 300),
        prometheus_address: s("prometheus_address")?,
        on_prem_waiting_query: s("on_prem_waiting_query")?,
        scale_out_threshold: f("scale_out_threshold", 20.0),
        cloud_running_query: s("cloud_running_query")?,
        hold_threshold: f("hold_threshold", 10.0),
        scale_in_threshold: f("scale_in_threshold", 5.0),
        pre_warm: v
            .get("pre_warm")
            .elements()
            .iter()
            .filter_map(|w| {
                Some(PreWarm {
                    timezone: w.get("timezone").as_str()?.into(),
                    start: w.get("start").as_str()?.into(),
                    end: w.get("end").as_str()?.into(),
                })
            })
            .collect(),
        keda_version: (a.parse().ok()?, b.parse().ok()?),
        target_capacity_types: v
            .get("target_capacity_types")
            .elements()
            .iter()
            .filter_map(|c| c.as_str().map(str::to_owned))
            .collect(),
        spot_interruption_handling: v.get("spot_interruption_handling").as_bool().unwrap_or(false),
    })
}

fn number(x: f64) -> Value {
    Value::Number(Number::from_f64(x))
}

/// The state of a scaler read from the cluster, keeping `prior`'s spelling of
/// what the cluster does not say (`target_capacity_types`, flags).
fn value(b: &BurstScaler, prior: &Value) -> Value {
    let mut v = prior.clone();
    let pairs = [
        (
            "id",
            Value::from(format!("{}/{}/{}", b.cluster_name, b.namespace, b.name)),
        ),
        ("cluster_name", b.cluster_name.as_str().into()),
        ("namespace", b.namespace.as_str().into()),
        ("name", b.name.as_str().into()),
        ("min_replicas", b.min_replicas.into()),
        ("max_replicas", b.max_replicas.into()),
        ("polling_interval", b.polling_interval.into()),
        ("cooldown_period", b.cooldown_period.into()),
        ("prometheus_address", b.prometheus_address.as_str().into()),
        ("on_prem_waiting_query", b.on_prem_waiting_query.as_str().into()),
        ("scale_out_threshold", number(b.scale_out_threshold)),
        ("cloud_running_query", b.cloud_running_query.as_str().into()),
        ("hold_threshold", number(b.hold_threshold)),
        ("scale_in_threshold", number(b.scale_in_threshold)),
        (
            "keda_version",
            format!("{}.{}", b.keda_version.0, b.keda_version.1).into(),
        ),
        (
            "target",
            Value::object([
                ("name", b.target_name.as_str().into()),
                ("kind", b.target_kind.as_str().into()),
                ("api_version", b.target_api_version.as_str().into()),
            ]),
        ),
        (
            "pre_warm",
            Value::List(
                b.pre_warm
                    .iter()
                    .map(|w| {
                        Value::object([
                            ("timezone", w.timezone.as_str().into()),
                            ("start", w.start.as_str().into()),
                            ("end", w.end.as_str().into()),
                        ])
                    })
                    .collect(),
            ),
        ),
    ];
    if !matches!(v, Value::Object(_)) {
        v = Value::object([
            ("force_conflicts", false.into()),
            ("spot_interruption_handling", false.into()),
        ]);
    }
    if let Value::Object(m) = &mut v {
        for (k, x) in pairs {
            m.insert(k.to_owned(), x);
        }
        if !m.contains_key("formula") || m.get("formula").is_some_and(Value::is_null) {
            m.insert("formula".into(), burst::formula(b).into());
            m.insert("manifests_yaml".into(), yaml::to_yaml(&burst::manifest(b)).into());
        }
    }
    v
}

async fn read_live(
    ctx: &Context,
    c: &Configured,
    b: &BurstScaler,
    render: Option<&serde_json::Value>,
) -> Result<Option<BurstScaler>, KubeError> {
    let cluster = c.clusters.get(&b.cluster_name).await?;
    let Some(live) = cancellable(
        ctx,
        "talking to the cluster",
        cluster.get(&burst::SCALED_OBJECT, Some(&b.namespace), &b.name),
    )
    .await?
    else {
        return Ok(None);
    };
    let projected = project_ours(&live, &c.field_manager, render);
    Ok(Some(burst::read_back(b, &projected)))
}

#[async_trait]
impl Resource for BurstScalerResource {
    fn type_name(&self) -> &'static str {
        "eksgpu_burst_scaler"
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
        let c = &req.config;
        for (k, d) in [
            ("min_replicas", Value::from(0)),
            ("polling_interval", Value::from(15)),
            ("cooldown_period", Value::from(300)),
            ("scale_out_threshold", Value::from(20)),
            ("hold_threshold", Value::from(10)),
            ("scale_in_threshold", Value::from(5)),
            ("keda_version", Value::from("2.20")),
            ("spot_interruption_handling", false.into()),
            ("force_conflicts", false.into()),
        ] {
            plan_default(&mut planned, c, &[], k, d);
        }
        plan_default(&mut planned, c, &[Seg::Attr("target")], "kind", "Deployment".into());
        plan_default(&mut planned, c, &[Seg::Attr("target")], "api_version", "apps/v1".into());
        plan_id(&mut planned, &["cluster_name", "namespace", "name"]);
        match model(&planned) {
            Some(b) => {
                set(&mut planned, "formula", burst::formula(&b).into());
                set(
                    &mut planned,
                    "manifests_yaml",
                    yaml::to_yaml(&burst::manifest(&b)).into(),
                );
                for v in burst::check_burst_scaler(&b) {
                    diags.push(diagnostics::violation(&v));
                }
            }
            None => {
                set(&mut planned, "formula", Value::Unknown);
                set(&mut planned, "manifests_yaml", Value::Unknown);
            }
        }
        let requires_replace = if req.prior_state.is_null() {
            vec![]
        } else {
            ["cluster_name", "namespace", "name"]
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
        let Some(b) = model(target) else {
            diags.error(
                "Unknown values at apply",
                "The plan still had unknown values in the scaler's configuration. Run the apply again.",
            );
            return keep(req.prior_state.clone());
        };
        let Some(cluster) = connect(c, &b.cluster_name, diags).await else {
            return keep(req.prior_state.clone());
        };
        if req.planned_state.is_null() {
            return match cancellable(
                ctx,
                "talking to the cluster",
                cluster.delete(&burst::SCALED_OBJECT, Some(&b.namespace), &b.name),
            )
            .await
            {
                Ok(_) => keep(Value::Null),
                Err(e) => {
                    diags.push(diagnostics::kube_failed(
                        &e,
                        "deleting the ScaledObject",
                        AttributePath::root(),
                    ));
                    keep(req.prior_state.clone())
                }
            };
        }
        let opts = ApplyOptions {
            field_manager: &c.field_manager,
            force: req.planned_state.get("force_conflicts").as_bool() == Some(true),
        };
        match cancellable(
            ctx,
            "talking to the cluster",
            cluster.apply(
                &burst::SCALED_OBJECT,
                Some(&b.namespace),
                &b.name,
                &burst::manifest(&b),
                opts,
            ),
        )
        .await
        {
            Ok(_) => keep(req.planned_state.clone()),
            Err(e) => {
                diags.push(diagnostics::kube_failed(
                    &e,
                    &format!("applying ScaledObject {}/{}", b.namespace, b.name),
                    AttributePath::root(),
                ));
                keep(req.prior_state.clone())
            }
        }
    }

    async fn read(&self, ctx: &Context, req: ReadRequest, diags: &mut Diagnostics) -> ReadResponse {
        let unchanged = |state: Value| ReadResponse {
            new_state: state,
            private: req.private.clone(),
        };
        let (Some(c), Some(b)) = (self.state.configured(), model(&req.current_state)) else {
            return unchanged(req.current_state.clone());
        };
        let rendered = burst::manifest(&b);
        match read_live(ctx, c, &b, Some(&rendered)).await {
            Ok(Some(live)) => unchanged(value(&live, &req.current_state)),
            Ok(None) => unchanged(Value::Null),
            Err(e) => {
                diags.push(diagnostics::kube_failed(
                    &e,
                    "reading the ScaledObject",
                    AttributePath::root(),
                ));
                unchanged(req.current_state.clone())
            }
        }
    }

    async fn import(&self, ctx: &Context, id: &str, diags: &mut Diagnostics) -> Option<ImportResponse> {
        let parts: Vec<&str> = id.split('/').collect();
        let [cluster, namespace, name] = parts.as_slice() else {
            diags.error(
                "Invalid import ID",
                format!("{id:?} is not <cluster>/<namespace>/<name>."),
            );
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
        match read_live(ctx, c, &blank, None).await {
            Ok(Some(b)) => {
                let mut v = value(&b, &Value::Null);
                set(&mut v, "target_capacity_types", Value::Null);
                Some(ImportResponse {
                    state: v,
                    private: Vec::new(),
                })
            }
            Ok(None) => {
                diags.error(
                    "Nothing to import",
                    format!("No ScaledObject {namespace}/{name} in cluster {cluster}."),
                );
                None
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
}
