//! `eksgpu_workload_placement`: what a workload's pod spec needs to land on a pool of an
//! `eksgpu_node_strategy` (`eksgpu_core::placement`). It reads the pool's and the sharing pool's
//! outputs as given (objects whose extra attributes Terraform drops), never the cluster: known at
//! plan whenever they are.

use std::collections::BTreeMap;

use async_trait::async_trait;
use eksgpu_core::model::Capacity;
use eksgpu_core::placement::{self, PoolFacts, Request, ShareFacts};
use eksgpu_core::sharing::Strategy;
use eksgpu_core::{rules, yaml};
use eksgpu_framework::{ManagedDataSource, validators};
use eksgpu_tfplugin::schema::{Attribute, Block, Mode, NestedType, ObjectNesting, Schema};
use eksgpu_tfplugin::{Context, Diagnostics, Type, Value};

use crate::diagnostics;

pub struct WorkloadPlacement;

fn tolerations_type() -> Type {
    Type::list(Type::object([
        ("key", Type::String),
        ("operator", Type::String),
        ("value", Type::String),
        ("effect", Type::String),
    ]))
}

fn pool_object() -> Block {
    let s = |n: &str, d: &str| Attribute::optional(n, Type::String, d);
    let strings = |n: &str, d: &str| Attribute::optional(n, Type::list(Type::String), d);
    let map = |n: &str, d: &str| Attribute::optional(n, Type::map(Type::String), d);
    let flag = |n: &str, d: &str| Attribute::optional(n, Type::Bool, d);
    Block::new(
        "The pool, as `eksgpu_node_strategy.<name>.pools[\"<key>\"]` gives it (its other attributes are dropped).",
    )
    .attribute(s("capacity", "The pool's `capacity`."))
    .attribute(strings("instance_types", "The pool's `instance_types`."))
    .attribute(strings(
        "matched_instance_types",
        "The pool's `matched_instance_types` (used before `instance_types`).",
    ))
    .attribute(map(
        "labels",
        "The pool's `labels` (a sharing pool's `node_labels` must be there).",
    ))
    .attribute(map("node_selector", "The pool's `node_selector`."))
    .attribute(Attribute::optional(
        "tolerations",
        tolerations_type(),
        "The pool's `tolerations`.",
    ))
    .attribute(s("accelerator", "The pool's `accelerator`: `nvidia` or `neuron`."))
    .attribute(s("gpu_resource_name", "The pool's `gpu_resource_name`."))
    .attribute(flag("dra", "The pool's `dra`."))
    .attribute(flag("multi_node_nvlink", "The pool's `multi_node_nvlink`."))
    .attribute(s(
        "compute_domain_claim_template",
        "The pool's `compute_domain_claim_template`.",
    ))
    .attribute(s("compute_domain_namespace", "The pool's `compute_domain_namespace`."))
    .attribute(s("clique_topology_key", "The pool's `clique_topology_key`."))
    .attribute(Attribute::optional(
        "replicas",
        Type::Number,
        "The pool's `replicas` (a static NodePool).",
    ))
    .attribute(Attribute::optional(
        "disruption",
        Type::object([
            ("consolidation_policy", Type::String),
            ("consolidate_after", Type::String),
        ]),
        "The pool's `disruption`.",
    ))
}

fn sharing_object() -> Block {
    let one = |fields: Vec<(&'static str, Type)>| Type::list(Type::object(fields));
    Block::new("The sharing pool, as `eksgpu_sharing_pool.<name>` gives it (its other attributes are dropped).")
        .attribute(Attribute::optional("name", Type::String, "The sharing pool's `name`."))
        .attribute(Attribute::optional(
            "strategy",
            Type::String,
            "The sharing pool's `strategy`.",
        ))
        .attribute(Attribute::optional(
            "node_labels",
            Type::map(Type::String),
            "The sharing pool's `node_labels`.",
        ))
        .attribute(Attribute::optional(
            "resource_requests",
            Type::map(Type::String),
            "The sharing pool's `resource_requests`: one share.",
        ))
        .attribute(Attribute::optional(
            "resource_claim_name",
            Type::String,
            "The sharing pool's `resource_claim_name`.",
        ))
        .attribute(Attribute::optional(
            "time_slicing",
            one(vec![
                ("replicas", Type::Number),
                ("fail_requests_greater_than_one", Type::Bool),
            ]),
            "The sharing pool's `time_slicing` block.",
        ))
        .attribute(Attribute::optional(
            "mps",
            one(vec![("replicas", Type::Number)]),
            "The sharing pool's `mps` block.",
        ))
        .attribute(Attribute::optional(
            "mig",
            one(vec![("profiles", Type::map(Type::Number)), ("config", Type::String)]),
            "The sharing pool's `mig` block.",
        ))
        .attribute(Attribute::optional(
            "dra",
            one(vec![("namespace", Type::String), ("count", Type::Number)]),
            "The sharing pool's `dra` block.",
        ))
}

pub fn schema() -> Schema {
    let yaml_out = |n: &str, d: &str| Attribute::computed(n, Type::String, d);
    Schema::new(
        Block::new(
            "What a workload's pod spec needs to land on a pool of an `eksgpu_node_strategy`: node selector, \
             tolerations, the container's resources under the resource name the pool's device manager advertises \
             (whole GPUs, MIG instances, time-sliced or MPS shares, HAMi slices, Neuron devices or NeuronCores) \
             and the count each replica uses, the pod's `resourceClaims` (a DRA sharing pool's claim, the \
             ComputeDomain channel of a `multi_node_nvlink` pool), the NVLink clique affinity, topology spread, \
             pod annotations and a PodDisruptionBudget, for a Helm release or a `kubernetes_deployment`. Reads \
             only its inputs: known at plan whenever they are. Rules EKSGPU193–197.",
        )
        .attribute(Attribute::nested(
            "pool",
            Mode::Required,
            NestedType::new(ObjectNesting::Single, pool_object()),
            "The pool: `eksgpu_node_strategy.<name>.pools[\"<key>\"]`.",
        ))
        .attribute(Attribute::nested(
            "sharing_pool",
            Mode::Optional,
            NestedType::new(ObjectNesting::Single, sharing_object()),
            "The sharing pool whose share each replica uses: `eksgpu_sharing_pool.<name>` (its `node_labels` merged \
             into the pool's `labels`).",
        ))
        .attribute(
            Attribute::required(
                "name",
                Type::String,
                "The workload's name: the PodDisruptionBudget's name.",
            )
            .validate(crate::resources::checks::string(
                "An object name (RFC 1123 subdomain).",
                eksgpu_core::validate::dns1123_subdomain,
            )),
        )
        .attribute(
            Attribute::required("namespace", Type::String, "The workload's namespace.").validate(
                crate::resources::checks::string(
                    "A namespace name (RFC 1123 label).",
                    eksgpu_core::validate::namespace_name,
                ),
            ),
        )
        .attribute(Attribute::optional(
            "pod_labels",
            Type::map(Type::String),
            "The labels of the workload's pods (its selector): what the budget, the spread and the clique affinity \
             select. Default `{ \"app.kubernetes.io/name\" = name }`.",
        ))
        .attribute(
            Attribute::required("replicas", Type::Number, "Replicas of the workload.")
                .validate(validators::integer(1, 100_000, "replicas")),
        )
        .attribute(
            Attribute::required(
                "accelerators_per_replica",
                Type::Number,
                "What each replica uses: whole GPUs, MIG instances or shares of the sharing pool, or Neuron devices \
                 (`0` with `neuron_cores_per_replica`, or with a DRA sharing pool, whose claim says the count).",
            )
            .validate(validators::integer(0, 1_024, "accelerators")),
        )
        .attribute(
            Attribute::optional(
                "neuron_cores_per_replica",
                Type::Number,
                "NeuronCores each replica uses (`aws.amazon.com/neuroncore`), on Neuron pools, instead of devices.",
            )
            .validate(validators::integer(1, 4_096, "NeuronCores")),
        )
        .attribute(Attribute::optional(
            "load_balanced",
            Type::Bool,
            "The pods serve behind a load balancer (the AWS Load Balancer Controller). Default `false`.",
        ))
        .attribute(crate::resources::acknowledged::attribute(
            "`[\"EKSGPU196\"]` for a single replica meant",
        ))
        .attribute(Attribute::computed(
            "node_selector",
            Type::map(Type::String),
            "The pod's `nodeSelector`.",
        ))
        .attribute(Attribute::computed(
            "tolerations",
            tolerations_type(),
            "The pod's `tolerations`.",
        ))
        .attribute(Attribute::computed(
            "resources",
            Type::map(Type::map(Type::String)),
            "The container's `resources`: `limits` and `requests` (equal, as extended resources must be); empty \
             for a DRA claim.",
        ))
        .attribute(yaml_out(
            "container_resources_yaml",
            "The container's whole `resources`, as YAML: `limits`, `requests` and `claims` (the pod claims it uses).",
        ))
        .attribute(yaml_out(
            "resource_claims_yaml",
            "The pod's `resourceClaims`, as YAML (`[]` when none).",
        ))
        .attribute(yaml_out(
            "affinity_yaml",
            "The pod's `affinity`, as YAML (`{}` when none).",
        ))
        .attribute(yaml_out(
            "topology_spread_constraints_yaml",
            "The pod's `topologySpreadConstraints`, as YAML (`[]` when none).",
        ))
        .attribute(Attribute::computed(
            "pod_annotations",
            Type::map(Type::String),
            "The pod template's annotations.",
        ))
        .attribute(yaml_out(
            "pod_disruption_budget_yaml",
            "A policy/v1 PodDisruptionBudget (`minAvailable: 1`) for two replicas or more, as YAML; empty otherwise.",
        ))
        .attribute(yaml_out(
            "pod_spec_yaml",
            "Everything of the pod's `spec` above as one fragment, as YAML: `nodeSelector`, `tolerations`, \
             `affinity`, `topologySpreadConstraints`, `resourceClaims`.",
        )),
    )
}

fn strings(v: &Value) -> BTreeMap<String, String> {
    v.entries()
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_owned())))
        .collect()
}

fn list(v: &Value) -> Vec<String> {
    v.elements()
        .iter()
        .filter_map(|e| e.as_str().map(str::to_owned))
        .collect()
}

fn int(v: &Value) -> Option<i64> {
    v.as_number().and_then(eksgpu_tfplugin::Number::as_i64)
}

fn opt(v: &Value) -> Option<String> {
    v.as_str().map(str::to_owned)
}

fn pool_facts(p: &Value) -> PoolFacts {
    let matched = list(p.get("matched_instance_types"));
    PoolFacts {
        capacity: p.get("capacity").as_str().and_then(Capacity::parse),
        instance_types: if matched.is_empty() {
            list(p.get("instance_types"))
        } else {
            matched
        },
        labels: strings(p.get("labels")),
        node_selector: strings(p.get("node_selector")),
        tolerations: p.get("tolerations").elements().iter().map(strings).collect(),
        neuron: p.get("accelerator").as_str() == Some("neuron"),
        gpu_resource_name: opt(p.get("gpu_resource_name")),
        dra: p.get("dra").as_bool() == Some(true),
        multi_node_nvlink: p.get("multi_node_nvlink").as_bool() == Some(true),
        compute_domain_claim_template: opt(p.get("compute_domain_claim_template")),
        compute_domain_namespace: opt(p.get("compute_domain_namespace")),
        clique_topology_key: opt(p.get("clique_topology_key")),
        consolidation_policy: opt(p.get("disruption").get("consolidation_policy")),
        consolidate_after: opt(p.get("disruption").get("consolidate_after")),
        static_replicas: int(p.get("replicas")),
    }
}

fn share_facts(s: &Value) -> Option<ShareFacts> {
    if s.is_null() {
        return None;
    }
    let first = |name: &str| s.get(name).elements().first().cloned().unwrap_or(Value::Null);
    let (slicing, mps, mig, dra) = (first("time_slicing"), first("mps"), first("mig"), first("dra"));
    let strategy = s
        .get("strategy")
        .as_str()
        .and_then(Strategy::parse)
        .unwrap_or(Strategy::Exclusive);
    Some(ShareFacts {
        name: s.get("name").as_str().unwrap_or_default().to_owned(),
        strategy,
        node_labels: strings(s.get("node_labels")),
        resource_requests: strings(s.get("resource_requests")),
        resource_claim_name: opt(s.get("resource_claim_name")),
        dra_namespace: opt(dra.get("namespace")),
        dra_count: int(dra.get("count")),
        shares_per_gpu: int(slicing.get("replicas")).or_else(|| int(mps.get("replicas"))),
        // MPS: the device plugin forces failRequestsGreaterThanOne (k8s-device-plugin v0.20.0
        // api/config/v1).
        one_share_only: strategy == Strategy::Mps
            || slicing.get("fail_requests_greater_than_one").as_bool() == Some(true),
        mig_profiles: mig
            .get("profiles")
            .entries()
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| int(v).map(|n| (k.clone(), n)))
            .collect(),
        mig_config: opt(mig.get("config")),
        hami_split_count: None,
    })
}

fn request(config: &Value) -> Request {
    let name = config.get("name").as_str().unwrap_or_default().to_owned();
    let mut pod_labels = strings(config.get("pod_labels"));
    if config.get("pod_labels").is_null() {
        pod_labels.insert("app.kubernetes.io/name".into(), name.clone());
    }
    Request {
        pool: pool_facts(config.get("pool")),
        share: share_facts(config.get("sharing_pool")),
        name,
        namespace: config.get("namespace").as_str().unwrap_or_default().to_owned(),
        pod_labels,
        replicas: int(config.get("replicas")).unwrap_or(1),
        accelerators_per_replica: int(config.get("accelerators_per_replica")).unwrap_or(0),
        neuron_cores_per_replica: int(config.get("neuron_cores_per_replica")),
        load_balanced: config.get("load_balanced").as_bool() == Some(true),
    }
}

fn string_map(m: &BTreeMap<String, String>) -> Value {
    Value::Map(m.iter().map(|(k, v)| (k.clone(), Value::from(v.as_str()))).collect())
}

fn tolerations(ts: &[BTreeMap<String, String>]) -> Value {
    Value::List(
        ts.iter()
            .map(|t| {
                let f = |k: &str| t.get(k).map_or(Value::Null, |v| Value::from(v.as_str()));
                Value::object([
                    ("key", f("key")),
                    ("operator", f("operator")),
                    ("value", f("value")),
                    ("effect", f("effect")),
                ])
            })
            .collect(),
    )
}

#[async_trait]
impl ManagedDataSource for WorkloadPlacement {
    fn type_name(&self) -> &'static str {
        "eksgpu_workload_placement"
    }

    fn schema(&self) -> Schema {
        schema()
    }

    async fn read(&self, _ctx: &Context, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let r = request(config);
        let found = rules::unanswered(
            placement::rules::check(&r),
            &crate::resources::acknowledged::codes(config),
        );
        let failed = found.iter().any(|v| v.severity == rules::Severity::Error);
        for v in &found {
            diags.push(diagnostics::violation(v));
        }
        if failed {
            return None;
        }
        let p = placement::place(&r);
        let Value::Object(mut out) = config.clone() else {
            return None;
        };
        let mut set = |k: &str, v: Value| {
            out.insert(k.to_owned(), v);
        };
        set("node_selector", string_map(&p.node_selector));
        set("tolerations", tolerations(&p.tolerations));
        set(
            "resources",
            Value::Map(p.resources.iter().map(|(k, m)| (k.clone(), string_map(m))).collect()),
        );
        set("container_resources_yaml", yaml::to_yaml(&p.container_resources).into());
        set(
            "resource_claims_yaml",
            yaml::to_yaml(&serde_json::json!(p.resource_claims)).into(),
        );
        set("affinity_yaml", yaml::to_yaml(&p.affinity).into());
        set(
            "topology_spread_constraints_yaml",
            yaml::to_yaml(&serde_json::json!(p.topology_spread_constraints)).into(),
        );
        set("pod_annotations", string_map(&p.pod_annotations));
        set(
            "pod_disruption_budget_yaml",
            p.pod_disruption_budget
                .as_ref()
                .map_or_else(String::new, yaml::to_yaml)
                .into(),
        );
        set("pod_spec_yaml", yaml::to_yaml(&p.pod_spec()).into());
        Some(Value::Object(out))
    }
}
