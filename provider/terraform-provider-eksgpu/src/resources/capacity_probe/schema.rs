//! The schema of `eksgpu_capacity_probe` (fixed names: the interface's "capacity probe").
//! Every input replaces the probe: a probe is one run, and running it again is `-replace`.

use eksgpu_core::probe::{ProbeCapacity, ProbeResult};
use eksgpu_core::validate;
use eksgpu_framework::validators;
use eksgpu_tfplugin::Type;
use eksgpu_tfplugin::schema::{Attribute, Block, Schema};

use crate::resources::checks;

/// The probe's name is in `eksgpu-probe-<name>`, the NodePool's name and its nodes'
/// `karpenter.sh/nodepool` label value (at most 63 characters, k8s.io/apimachinery
/// IsValidLabelValue): 50 are left for it.
const NAME_MAX: usize = 50;

fn probe_name(s: &str) -> Result<(), String> {
    validate::namespace_name(s).map_err(|e| e.to_string())?;
    if s.len() > NAME_MAX {
        return Err(format!(
            "{s:?} has {} characters; at most {NAME_MAX} (`eksgpu-probe-<name>` is a label value)",
            s.len()
        ));
    }
    Ok(())
}

/// Shortest and longest `timeout`: long enough for a poll, and a node that is not ready in six
/// hours is not coming.
fn timeout(d: &str) -> Result<(), String> {
    let t = eksgpu_core::duration::parse(d).map_err(|e| e.to_string())?;
    if !(5..=6 * 3600).contains(&t.as_secs()) {
        return Err(format!("{d:?}: between 5s and 6h"));
    }
    Ok(())
}

fn replaced(a: Attribute) -> Attribute {
    a.forces_replacement()
}

fn inputs(b: Block) -> Block {
    b.attribute(Attribute::computed("id", Type::String, "`<cluster_name>/<name>`.").use_state_for_unknown())
        .attribute(replaced(
            Attribute::required("cluster_name", Type::String, "EKS cluster name.")
                .validate(checks::string("An EKS cluster name.", validate::eks_cluster_name))
                .validate(checks::string(
                    "Usable as a label value (it labels the probe's objects).",
                    validate::cluster_name_label_value,
                )),
        ))
        .attribute(replaced(
            Attribute::required(
                "name",
                Type::String,
                "The probe's name: its NodePool and pod are `eksgpu-probe-<name>` (at most 50 characters).",
            )
            .validate(validators::string(
                "A lowercase RFC 1123 label of at most 50 characters.",
                probe_name,
            )),
        ))
        .attribute(replaced(
            Attribute::optional(
                "namespace",
                Type::String,
                "Namespace of the pause pod. Default `default`.",
            )
            .default("default")
            .validate(checks::string(
                "A namespace name (RFC 1123 label).",
                validate::namespace_name,
            )),
        ))
        .attribute(replaced(
            Attribute::required("capacity", Type::String, "`auto_mode` (EKS Auto Mode) or `karpenter`.")
                .validate(validators::one_of(&ProbeCapacity::ALL)),
        ))
        .attribute(replaced(
            Attribute::required(
                "instance_types",
                Type::list(Type::String),
                "Instance types the node may be; Karpenter picks one. Probe one type to answer a warning about it.",
            )
            .validate(validators::size(1, 100, "instance types"))
            .validate(validators::distinct()),
        ))
        .attribute(replaced(
            Attribute::optional(
                "capacity_types",
                Type::list(Type::String),
                "`karpenter.sh/capacity-type` values: `on-demand`, `spot`, `reserved`. Default `[\"on-demand\"]`.",
            )
            .default(eksgpu_tfplugin::Value::List(vec!["on-demand".into()]))
            .validate(validators::each(validators::one_of(&["on-demand", "spot", "reserved"]))),
        ))
        .attribute(replaced(
            Attribute::optional(
                "zones",
                Type::list(Type::String),
                "Availability zones (`topology.kubernetes.io/zone`); empty: any zone of the node class's subnets.",
            )
            .validate(checks::each(
                "An availability zone name such as `us-east-2a`.",
                validate::availability_zone,
            )),
        ))
        .attribute(replaced(
            Attribute::optional(
                "timeout",
                Type::String,
                "How long to wait for a ready node (5s to 6h). Default `20m`.",
            )
            .default("20m")
            .validate(validators::string(
                "A duration such as `20m`, between 5s and 6h.",
                timeout,
            )),
        ))
        .attribute(replaced(
            Attribute::optional(
                "node_class",
                Type::String,
                "The node class the probe's NodePool uses, as a pool names it: an EC2NodeClass for `karpenter` \
             (required), an Auto Mode NodeClass for `auto_mode` (default `default`). The probe never writes it.",
            )
            .validate(checks::string("A Kubernetes object name.", validate::object_name)),
        ))
        .attribute(
            Attribute::optional(
                "price_per_hour",
                Type::map(Type::Number),
                "USD per hour by instance type, for `max_cost` (never a built-in price).",
            )
            .validate(validators::each(validators::number(
                0.0,
                1e6,
                "a price in USD per hour",
            ))),
        )
        .attribute(crate::resources::acknowledged::attribute(
            "`[\"EKSGPU361\"]` once the cost of the launch is understood",
        ))
}

fn outputs(b: Block) -> Block {
    let out = |name: &str, ty: Type, d: &str| Attribute::computed(name, ty, d).use_state_for_unknown();
    b.attribute(out(
        "result",
        Type::String,
        &format!(
            "How the probe ended: {}.",
            ProbeResult::ALL.map(|r| format!("`{r}`")).join(", ")
        ),
    ))
    .attribute(out(
        "instance_type",
        Type::String,
        "The type launched (null unless one was).",
    ))
    .attribute(out("zone", Type::String, "The zone launched in (null unless one was)."))
    .attribute(out(
        "ready_after",
        Type::String,
        "Time from the apply's start to a ready node, e.g. `3m41s` (null unless `provisioned`).",
    ))
    .attribute(out(
        "message",
        Type::String,
        "The condition's or event's message that decided the result.",
    ))
    .attribute(out(
        "answers",
        Type::list(Type::String),
        "Warning codes this result is evidence against, for a strategy's `acknowledged_warnings`: \
         `EKSGPU009` once an `auto_mode` probe of one type provisioned it.",
    ))
    .attribute(Attribute::computed(
        "cost",
        Type::String,
        "What the probe launches and for how long, in words (planned).",
    ))
    .attribute(Attribute::computed(
        "max_cost",
        Type::Number,
        "The most it costs in USD at `price_per_hour` (null unless every listed type has a price).",
    ))
    .attribute(Attribute::computed(
        "manifests_yaml",
        Type::String,
        "The NodePool and pod the apply creates and deletes again, as YAML.",
    ))
    .attribute(
        Attribute::computed(
            "owner_token",
            Type::String,
            "Labels the objects this instance wrote, so a destroy deletes only its own.",
        )
        .use_state_for_unknown(),
    )
}

pub fn schema() -> Schema {
    Schema::new(outputs(inputs(Block::new(
        "Proves that an accelerated instance type launches in this account, region and cluster before workloads \
         depend on it: the apply creates a NodePool limited to one tainted node of the types and a pause pod that \
         requests one accelerator, watches the NodeClaim Karpenter (or Auto Mode) makes and the events about it, \
         records the outcome, and deletes the pod and the NodePool again (on failure, timeout and Ctrl-C too), \
         waiting until the NodeClaim is gone. It launches a real instance (EKSGPU361 says for how long). Run it \
         again with `terraform apply -replace`.",
    ))))
}

pub(crate) fn cached() -> &'static Schema {
    static SCHEMA: std::sync::LazyLock<Schema> = std::sync::LazyLock::new(schema);
    &SCHEMA
}
