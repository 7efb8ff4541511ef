//! `eksgpu_workload_placement`: what a workload's pod spec needs to land on a pool — node selector,
//! tolerations, the container's resources under the resource name the pool's device manager
//! advertises and the count each replica uses, the pod's `resourceClaims`, the NVLink clique
//! affinity, topology spread, pod annotations and a PodDisruptionBudget. Pure: it reads what the
//! pool's and the sharing pool's outputs say (`PoolFacts`, `ShareFacts`), never the cluster.
//!
//! The rules (`rules.rs`): a replica asking for more devices than one node of the pool has
//! (EKSGPU193), a share the pool does not offer (EKSGPU194), a claim in another namespace
//! (EKSGPU195), one replica on a pool that consolidates (EKSGPU196), a request the pool's devices
//! cannot serve (EKSGPU197).

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::model::Capacity;
use crate::sharing::Strategy;

pub mod rules;

/// What the data source reads of the pool (`eksgpu_node_strategy.s.pools["x"]`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PoolFacts {
    pub capacity: Option<Capacity>,
    /// `matched_instance_types`, else `instance_types`.
    pub instance_types: Vec<String>,
    pub labels: BTreeMap<String, String>,
    pub node_selector: BTreeMap<String, String>,
    /// `tolerations`, as the pool renders them (`key`, `operator`, `value`, `effect`).
    pub tolerations: Vec<BTreeMap<String, String>>,
    /// `accelerator`: `neuron` or else NVIDIA.
    pub neuron: bool,
    pub gpu_resource_name: Option<String>,
    pub dra: bool,
    pub multi_node_nvlink: bool,
    pub compute_domain_claim_template: Option<String>,
    pub compute_domain_namespace: Option<String>,
    pub clique_topology_key: Option<String>,
    pub consolidation_policy: Option<String>,
    pub consolidate_after: Option<String>,
    /// A static NodePool (`replicas`): never consolidated.
    pub static_replicas: Option<i64>,
}

/// What the data source reads of the sharing pool (`eksgpu_sharing_pool.x`).
#[derive(Debug, Clone, PartialEq)]
pub struct ShareFacts {
    pub name: String,
    pub strategy: Strategy,
    pub node_labels: BTreeMap<String, String>,
    /// `resource_requests`: what one share is, for one container.
    pub resource_requests: BTreeMap<String, String>,
    pub resource_claim_name: Option<String>,
    pub dra_namespace: Option<String>,
    /// `dra.count`: GPUs the claim allocates.
    pub dra_count: Option<i64>,
    /// `time_slicing.replicas` or `mps.replicas`: shares per GPU.
    pub shares_per_gpu: Option<i64>,
    /// Several shares per container refused (MPS always; time-slicing with
    /// `fail_requests_greater_than_one`).
    pub one_share_only: bool,
    /// `mig.profiles`: instances per GPU by profile.
    pub mig_profiles: BTreeMap<String, i64>,
    /// `mig.config`.
    pub mig_config: Option<String>,
    /// `hami.split_count`: tasks per GPU.
    pub hami_split_count: Option<i64>,
}

/// What one workload asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub pool: PoolFacts,
    pub share: Option<ShareFacts>,
    pub name: String,
    pub namespace: String,
    pub pod_labels: BTreeMap<String, String>,
    pub replicas: i64,
    pub accelerators_per_replica: i64,
    pub neuron_cores_per_replica: Option<i64>,
    pub load_balanced: bool,
}

/// What the pod spec needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    pub node_selector: BTreeMap<String, String>,
    pub tolerations: Vec<BTreeMap<String, String>>,
    /// `limits` and `requests` of the container: equal, as extended resources must be.
    pub resources: BTreeMap<String, BTreeMap<String, String>>,
    /// The container's `resources` as Kubernetes takes it (with `claims` naming the pod's claims).
    pub container_resources: Value,
    /// The pod's `resourceClaims`.
    pub resource_claims: Vec<Value>,
    pub affinity: Value,
    pub topology_spread_constraints: Vec<Value>,
    pub pod_annotations: BTreeMap<String, String>,
    pub pod_disruption_budget: Option<Value>,
}

impl Placement {
    /// Everything that belongs to the pod's `spec`, as one fragment (empty parts left out).
    pub fn pod_spec(&self) -> Value {
        let mut spec = serde_json::Map::new();
        if !self.node_selector.is_empty() {
            spec.insert("nodeSelector".into(), json!(self.node_selector));
        }
        if !self.tolerations.is_empty() {
            spec.insert("tolerations".into(), json!(self.tolerations));
        }
        if self.affinity.as_object().is_some_and(|o| !o.is_empty()) {
            spec.insert("affinity".into(), self.affinity.clone());
        }
        if !self.topology_spread_constraints.is_empty() {
            spec.insert(
                "topologySpreadConstraints".into(),
                json!(self.topology_spread_constraints),
            );
        }
        if !self.resource_claims.is_empty() {
            spec.insert("resourceClaims".into(), json!(self.resource_claims));
        }
        Value::Object(spec)
    }
}

/// The Karpenter annotation that keeps a pod's node from voluntary disruption while it runs
/// (Karpenter v1 Disruption, https://karpenter.sh/docs/concepts/disruption/; EKS Auto Mode runs
/// Karpenter and honours it).
pub const DO_NOT_DISRUPT: &str = "karpenter.sh/do-not-disrupt";

/// The claim names in the pod (`spec.resourceClaims[].name`, which the container's
/// `resources.claims[].name` points at).
pub const GPU_CLAIM: &str = "gpu";
pub const CHANNEL_CLAIM: &str = "channel";

/// Whether every replica shares one ResourceClaim (a DRA sharing pool's claim, by name): the
/// scheduler then puts them all on the node the claim is allocated on (Kubernetes DRA, a claim is
/// allocated once).
pub fn one_node(r: &Request) -> bool {
    r.share.as_ref().is_some_and(|s| s.strategy == Strategy::Dra)
}

/// The pool consolidates underutilized nodes: Karpenter or Auto Mode, `WhenEmptyOrUnderutilized`
/// (the NodePool default, and Auto Mode's) or `Balanced`, `consolidate_after` not `Never`, not a
/// static NodePool (karpenter.sh/v1 NodePool CRD v1.14.1).
pub fn consolidates(p: &PoolFacts) -> bool {
    let in_cluster = matches!(p.capacity, Some(Capacity::Karpenter | Capacity::AutoMode));
    let policy = p.consolidation_policy.as_deref().unwrap_or("WhenEmptyOrUnderutilized");
    in_cluster
        && p.static_replicas.is_none()
        && matches!(policy, "WhenEmptyOrUnderutilized" | "Balanced")
        && p.consolidate_after.as_deref() != Some("Never")
}

/// The container's extended resources: name and count per replica.
fn extended(r: &Request) -> BTreeMap<String, String> {
    let n = r.accelerators_per_replica;
    let mut out = BTreeMap::new();
    if r.pool.neuron {
        // aws.amazon.com/neuron: whole devices with their cores; aws.amazon.com/neuroncore:
        // single cores (AWS Neuron device plugin).
        match r.neuron_cores_per_replica {
            Some(c) if n == 0 => out.insert("aws.amazon.com/neuroncore".into(), c.to_string()),
            _ => out.insert("aws.amazon.com/neuron".into(), n.to_string()),
        };
        return out;
    }
    match &r.share {
        Some(s) if s.strategy == Strategy::Dra => {}
        Some(s) => {
            for (k, v) in &s.resource_requests {
                // A share is the device resource; HAMi's memory and cores are per GPU asked for
                // (Project-HAMi v2.10.0 docs: nvidia.com/gpumem, nvidia.com/gpucores).
                let v = if k == "nvidia.com/gpumem" || k == "nvidia.com/gpucores" {
                    v.clone()
                } else {
                    n.to_string()
                };
                out.insert(k.clone(), v);
            }
        }
        None => {
            if let Some(name) = &r.pool.gpu_resource_name {
                out.insert(name.clone(), n.to_string());
            }
        }
    }
    out
}

fn claims(r: &Request) -> Vec<Value> {
    let mut out = Vec::new();
    if let Some(s) = &r.share
        && s.strategy == Strategy::Dra
        && let Some(c) = &s.resource_claim_name
    {
        out.push(json!({"name": GPU_CLAIM, "resourceClaimName": c}));
    }
    if r.pool.multi_node_nvlink
        && let Some(t) = &r.pool.compute_domain_claim_template
    {
        out.push(json!({"name": CHANNEL_CLAIM, "resourceClaimTemplateName": t}));
    }
    out
}

fn selector(r: &Request) -> Value {
    json!({"matchLabels": r.pod_labels})
}

/// A multi-node NVLink pool: the replicas in one NVLink clique (GFD's `nvidia.com/gpu.clique`),
/// as NVIDIA's DRA driver documents for ComputeDomain workloads (dra-driver-nvidia-gpu v0.4.1
/// demo/specs/imex). Else, with several replicas, preferably on different nodes.
fn affinity(r: &Request) -> Value {
    if r.pool.multi_node_nvlink
        && let Some(key) = &r.pool.clique_topology_key
    {
        return json!({"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": selector(r), "topologyKey": key}]}});
    }
    json!({})
}

/// Several replicas spread over nodes (hard: one node going takes at most one more replica than
/// any other holds) and, softly, zones; none where one claim keeps them on one node or one NVLink
/// clique keeps them together. Kubernetes Pod Topology Spread Constraints.
fn spread(r: &Request) -> Vec<Value> {
    if r.replicas < 2 || one_node(r) {
        return Vec::new();
    }
    let mut out = vec![json!({"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
        "whenUnsatisfiable": "DoNotSchedule", "labelSelector": selector(r)})];
    if !r.pool.multi_node_nvlink {
        out.push(json!({"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": selector(r)}));
    }
    out
}

/// `minAvailable: 1` for two replicas or more (field report 001's remedy; policy/v1
/// PodDisruptionBudget): a drain or consolidation evicts one at a time.
fn pdb(r: &Request) -> Option<Value> {
    (r.replicas >= 2).then(|| {
        json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": r.name, "namespace": r.namespace},
            "spec": {"minAvailable": 1, "selector": selector(r)}})
    })
}

/// The placement of `r` (the rules, `rules::check`, say whether it can work).
pub fn place(r: &Request) -> Placement {
    let limits = extended(r);
    let claims = claims(r);
    let mut resources = BTreeMap::new();
    if !limits.is_empty() {
        resources.insert("limits".to_owned(), limits.clone());
        resources.insert("requests".to_owned(), limits.clone());
    }
    let mut container = serde_json::Map::new();
    for (k, v) in &resources {
        container.insert(k.clone(), json!(v));
    }
    if !claims.is_empty() {
        let names: Vec<Value> = claims.iter().map(|c| json!({"name": c["name"]})).collect();
        container.insert("claims".into(), Value::Array(names));
    }
    let mut pod_annotations = BTreeMap::new();
    // One pod alone (or all behind one claim) on a node Karpenter would consolidate: kept where
    // it is (EKSGPU196 says what that costs).
    if (r.replicas < 2 || one_node(r)) && consolidates(&r.pool) {
        pod_annotations.insert(DO_NOT_DISRUPT.to_owned(), "true".to_owned());
    }
    Placement {
        node_selector: r.pool.node_selector.clone(),
        tolerations: r.pool.tolerations.clone(),
        resources,
        container_resources: Value::Object(container),
        resource_claims: claims,
        affinity: affinity(r),
        topology_spread_constraints: spread(r),
        pod_annotations,
        pod_disruption_budget: if one_node(r) { None } else { pdb(r) },
    }
}

#[cfg(test)]
mod tests;
