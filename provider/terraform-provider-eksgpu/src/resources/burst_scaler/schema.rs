//! The schema of `eksgpu_burst_scaler`: attributes, defaults and the checks
//! each value gets (with the upstream source of each bound).

use eksgpu_core::validate;
use eksgpu_framework::validators;
use eksgpu_tfplugin::Type;
use eksgpu_tfplugin::schema::{Attribute, Block, NestedBlock, Schema};

use super::site_schema;
use crate::resources::checks;
use eksgpu_core::burst::SiteId;

/// Version 1 added the site blocks (`prometheus_address` optional); version 0 states upgrade
/// to no site blocks (`BurstScalerResource::upgrade`).
pub const VERSION: i64 = 1;

pub fn schema() -> Schema {
    // Thresholds compare request counts: finite and not negative.
    let threshold = |name: &str, d: &str, default: i64| {
        Attribute::optional(name, Type::Number, d)
            .default(default)
            .validate(validators::number(0.0, 1e9, "a count of requests"))
    };
    let mut schema = Schema::new(
        Block::new(
            "On-prem first, burst to cloud with KEDA alone: a `keda.sh/v1alpha1` ScaledObject whose \
             `scalingModifiers` formula scales the cloud replicas out when the on-prem queue saturates or the cloud is \
             busy, holds them in between, and scales them in when the cloud load falls, with a fallback that holds the \
             size when either site's Prometheus cannot be queried. Each site may have its own Prometheus and \
             credentials (`on_prem_prometheus`, `cloud_prometheus`).",
        )
        .attribute(
            Attribute::computed("id", Type::String, "`<cluster_name>/<namespace>/<name>`, also the import ID.")
                .use_state_for_unknown(),
        )
        .attribute(
            Attribute::required("cluster_name", Type::String, "EKS cluster name.")
                .forces_replacement()
                .validate(checks::string("An EKS cluster name.", validate::eks_cluster_name))
                .validate(checks::string(
                    "Usable as a label value (it labels the ScaledObject).",
                    validate::cluster_name_label_value,
                )),
        )
        .attribute(
            Attribute::required("namespace", Type::String, "Namespace of the ScaledObject and its target.")
                .forces_replacement()
                .validate(checks::string("A namespace name (RFC 1123 label).", validate::namespace_name)),
        )
        .attribute(
            Attribute::required("name", Type::String, "ScaledObject name (at most 54 characters).")
                .forces_replacement()
                .validate(checks::string("A Kubernetes object name.", validate::object_name)),
        )
        .attribute(
            Attribute::optional("min_replicas", Type::Number, "Fewest cloud replicas. Default 0: none until the on-prem queue saturates.")
                .default(0)
                // KEDA v2.20.2 apis/keda/v1alpha1 ScaledObjectSpec.MinReplicaCount is *int32.
                .validate(validators::int32(0, i32::MAX, "ScaledObject `minReplicaCount`")),
        )
        .attribute(
            Attribute::required("max_replicas", Type::Number, "Most cloud replicas.")
                .validate(validators::int32(1, i32::MAX, "ScaledObject `maxReplicaCount`")),
        )
        .attribute(
            Attribute::optional("polling_interval", Type::Number, "Seconds between KEDA's checks. Default 15.")
                .default(15)
                .validate(validators::int32(1, i32::MAX, "ScaledObject `pollingInterval`, seconds")),
        )
        .attribute(
            Attribute::optional("cooldown_period", Type::Number, "Seconds of quiet before scaling to `min_replicas`. Default 300.")
                .default(300)
                .validate(validators::int32(0, i32::MAX, "ScaledObject `cooldownPeriod`, seconds")),
        )
        .attribute(
            Attribute::optional(
                "prometheus_address",
                Type::String,
                "Prometheus URL KEDA queries for both sites, unless a site block gives its own `address` (required \
                 unless both do). No credentials in it: see the site blocks.",
            )
                .validate(checks::string("An http(s) URL without user-info.", validate::prometheus_address)),
        )
        .attribute(
            Attribute::required(
                "on_prem_waiting_query",
                Type::String,
                "PromQL for requests waiting on-prem, e.g. `sum(vllm:num_requests_waiting{site=\"onprem\"})`.",
            )
            .validate(checks::string("A PromQL expression (tokens and brackets).", validate::promql)),
        )
        .attribute(threshold("scale_out_threshold", "Scale out when on-prem waiting requests exceed this. Default 20.", 20))
        .attribute(
            Attribute::required("cloud_running_query", Type::String, "PromQL for requests running in the cloud.")
                .validate(checks::string("A PromQL expression (tokens and brackets).", validate::promql)),
        )
        .attribute(threshold("hold_threshold", "Scale out while cloud running requests exceed this. Default 10.", 10))
        .attribute(threshold(
            "scale_in_threshold",
            "Scale in when cloud running requests fall below this; hold between the two. Default 5.",
            5,
        ))
        .attribute(
            Attribute::optional(
                "keda_version",
                Type::String,
                "KEDA release of the cluster (`MAJOR.MINOR`). Features are used only where available. Default `2.20`.",
            )
            .default("2.20")
            .validate(checks::version("KEDA")),
        )
        .attribute(
            Attribute::optional(
                "target_capacity_types",
                Type::list(Type::String),
                "Capacity types of the pool the target runs on (e.g. a node strategy pool's `capacity_types`), to warn about Spot without interruption handling.",
            )
            .validate(validators::each(validators::one_of(&["on-demand", "spot", "reserved"]))),
        )
        .attribute(
            Attribute::optional(
                "spot_interruption_handling",
                Type::Bool,
                "Karpenter's interruption queue is set up for the target's Spot pool. Default `false`.",
            )
            .default(false),
        )
        .attribute(
            Attribute::optional("force_conflicts", Type::Bool, "Take back fields another field manager changed. Default `false`.")
                .default(false),
        )
        .attribute(crate::resources::acknowledged::attribute(
            "`[\"EKSGPU114\"]` when Spot interruptions are handled another way (such as the AWS Node Termination Handler)",
        ))
        .attribute(Attribute::optional(
            "wait_for_ready",
            Type::Bool,
            "After applying, wait until KEDA reports the ScaledObject `Ready` (its `status.conditions`), and fail \
             the apply with KEDA's condition message when it does not within `ready_timeout`. Default `false`.",
        ))
        .attribute(
            Attribute::optional(
                "ready_timeout",
                Type::String,
                "How long `wait_for_ready` waits, as a duration such as `90s`, `5m` or `1h`. Default `5m`.",
            )
            .validate(checks::duration()),
        )
        .attribute(Attribute::computed("formula", Type::String, "The `scalingModifiers` formula."))
        .attribute(
            Attribute::computed(
                "owner_token",
                Type::String,
                "A random token this instance of the scaler writes on its ScaledObject (label \
                 `eksgpu.terraform.io/owner-token`). A destroy deletes the ScaledObject only while it bears this \
                 token, so when Terraform replaces the scaler with `create_before_destroy`, the old instance's \
                 destroy leaves what the new one wrote. Set at creation (or import) and kept.",
            )
            .use_state_for_unknown(),
        )
        .attribute(Attribute::computed(
            "manifests_yaml",
            Type::String,
            "The TriggerAuthentications the provider renders for the sites (`secret_auth`, `aws_sigv4`) and the \
             ScaledObject, as YAML, one document each.",
        ))
        .block(
            NestedBlock::required_one(
                "target",
                Block::new("The workload KEDA scales.")
                    .attribute(
                        Attribute::required("name", Type::String, "Name of the Deployment or StatefulSet.")
                            .validate(checks::string("A Kubernetes object name.", validate::object_name)),
                    )
                    .attribute(
                        Attribute::optional("kind", Type::String, "`Deployment` or `StatefulSet`. Default `Deployment`.")
                            .default("Deployment")
                            .validate(validators::one_of(&["Deployment", "StatefulSet"])),
                    )
                    .attribute(Attribute::optional("api_version", Type::String, "Default `apps/v1`.").default("apps/v1")),
            )
        )
        .block(site_schema::site(SiteId::OnPrem))
        .block(site_schema::site(SiteId::Cloud))
        .block(NestedBlock::list(
            "pre_warm",
            Block::new("A cron window that keeps one cloud replica warm (cold starts take 5–15 minutes).")
                .attribute(
                    Attribute::required("timezone", Type::String, "IANA time zone, e.g. `Asia/Seoul`.")
                        .validate(checks::string("An IANA time zone name.", validate::time_zone)),
                )
                .attribute(
                    Attribute::required("start", Type::String, "5-field cron of the window's start.")
                        .validate(checks::string("A 5-field cron schedule as KEDA's cron scaler reads it.", validate::cron_schedule)),
                )
                .attribute(
                    Attribute::required("end", Type::String, "5-field cron of the window's end.")
                        .validate(checks::string("A 5-field cron schedule as KEDA's cron scaler reads it.", validate::cron_schedule)),
                ),
        )),
    );
    schema.version = VERSION;
    schema
}

/// The schema, built once per process: plans consult it for every resource.
pub(crate) fn cached() -> &'static Schema {
    static SCHEMA: std::sync::LazyLock<Schema> = std::sync::LazyLock::new(schema);
    &SCHEMA
}
