//! The schema of `eksgpu_burst_scaler`.

use eksgpu_tfplugin::schema::{Attribute, Block, NestedBlock, Schema};
use eksgpu_tfplugin::{AttributePath, Diagnostics, Type, Value};

pub fn schema() -> Schema {
    let n = |name: &str, d: &str| Attribute::optional_computed(name, Type::Number, d);
    Schema::new(
        Block::new(
            "On-prem first, burst to cloud (seed 004) with KEDA alone: a `keda.sh/v1alpha1` ScaledObject whose \
             `scalingModifiers` formula scales the cloud replicas out when the on-prem queue saturates or the cloud is \
             busy, holds them in between, and scales them in when the cloud load falls, with a fallback that holds the \
             size when Prometheus cannot be queried.",
        )
        .attribute(Attribute::computed("id", Type::String, "`<cluster_name>/<namespace>/<name>`, also the import ID."))
        .attribute(Attribute::required("cluster_name", Type::String, "EKS cluster name.").forces_replacement())
        .attribute(Attribute::required("namespace", Type::String, "Namespace of the ScaledObject and its target.").forces_replacement())
        .attribute(Attribute::required("name", Type::String, "ScaledObject name (at most 54 characters).").forces_replacement())
        .attribute(n("min_replicas", "Fewest cloud replicas. Default 0: none until the on-prem queue saturates."))
        .attribute(Attribute::required("max_replicas", Type::Number, "Most cloud replicas."))
        .attribute(n("polling_interval", "Seconds between KEDA's checks. Default 15."))
        .attribute(n("cooldown_period", "Seconds of quiet before scaling to `min_replicas`. Default 300."))
        .attribute(Attribute::required("prometheus_address", Type::String, "Prometheus URL KEDA queries."))
        .attribute(Attribute::required(
            "on_prem_waiting_query",
            Type::String,
            "PromQL for requests waiting on-prem, e.g. `sum(vllm:num_requests_waiting{site=\"onprem\"})`.",
        ))
        .attribute(n("scale_out_threshold", "Scale out when on-prem waiting requests exceed this. Default 20."))
        .attribute(Attribute::required("cloud_running_query", Type::String, "PromQL for requests running in the cloud."))
        .attribute(n("hold_threshold", "Scale out while cloud running requests exceed this. Default 10."))
        .attribute(n("scale_in_threshold", "Scale in when cloud running requests fall below this; hold between the two. Default 5."))
        .attribute(Attribute::optional_computed(
            "keda_version",
            Type::String,
            "KEDA release of the cluster (`MAJOR.MINOR`). Features are used only where available. Default `2.20`.",
        ))
        .attribute(Attribute::optional(
            "target_capacity_types",
            Type::list(Type::String),
            "Capacity types of the pool the target runs on (e.g. a node strategy pool's `capacity_types`), to warn about Spot without interruption handling.",
        ))
        .attribute(Attribute::optional_computed(
            "spot_interruption_handling",
            Type::Bool,
            "Karpenter's interruption queue is set up for the target's Spot pool. Default `false`.",
        ))
        .attribute(Attribute::optional_computed("force_conflicts", Type::Bool, "Take back fields another field manager changed. Default `false`."))
        .attribute(Attribute::computed("formula", Type::String, "The `scalingModifiers` formula."))
        .attribute(Attribute::computed("manifests_yaml", Type::String, "The ScaledObject, as YAML."))
        .block(
            NestedBlock::single(
                "target",
                Block::new("The workload KEDA scales.")
                    .attribute(Attribute::required("name", Type::String, "Name of the Deployment or StatefulSet."))
                    .attribute(Attribute::optional_computed("kind", Type::String, "`Deployment` or `StatefulSet`. Default `Deployment`."))
                    .attribute(Attribute::optional_computed("api_version", Type::String, "Default `apps/v1`.")),
            )
            .min_items(1)
            .max_items(1),
        )
        .block(NestedBlock::list(
            "pre_warm",
            Block::new("A cron window that keeps one cloud replica warm (cold starts take 5–15 minutes).")
                .attribute(Attribute::required("timezone", Type::String, "IANA time zone, e.g. `Asia/Seoul`."))
                .attribute(Attribute::required("start", Type::String, "5-field cron of the window's start."))
                .attribute(Attribute::required("end", Type::String, "5-field cron of the window's end.")),
        )),
    )
}

pub(super) fn validate(config: &Value, diags: &mut Diagnostics) {
    if let Some(address) = config.get("prometheus_address").as_str()
        && let Err(e) = eksgpu_core::validate::prometheus_address(address)
    {
        diags.error_at(
            AttributePath::attr("prometheus_address"),
            "Invalid Prometheus address",
            e.to_string(),
        );
    }
    if let Some(v) = config.get("keda_version").as_str()
        && !v
            .split_once('.')
            .is_some_and(|(a, b)| a.parse::<u32>().is_ok() && b.parse::<u32>().is_ok())
    {
        diags.error_at(
            AttributePath::attr("keda_version"),
            "Invalid KEDA version",
            format!("{v:?} is not MAJOR.MINOR, e.g. \"2.20\"."),
        );
    }
}
