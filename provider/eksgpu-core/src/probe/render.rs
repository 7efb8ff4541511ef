//! The probe's objects: one NodePool and one pause pod.
//!
//! NodePool fields follow karpenter.sh/v1 (aws/karpenter-provider-aws v1.14.1
//! `pkg/apis/crds/karpenter.sh_nodepools.yaml`); Auto Mode serves the same kind with an
//! `eks.amazonaws.com/v1` NodeClass (EKS user guide, Create a Node Pool for EKS Auto Mode,
//! https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html).

use serde_json::{Value, json};

use super::{Probe, ProbeCapacity};
use crate::catalog::{self, Vendor};
use crate::kinds::labels;

/// On the probe's objects and its node: which probe made them (the probe's name).
pub const PROBE_LABEL: &str = "eksgpu.terraform.io/capacity-probe";

/// The pause container of Kubernetes (kubernetes/kubernetes `build/pause`, 3.10): it requests
/// the accelerator and does nothing else.
pub const PAUSE_IMAGE: &str = "registry.k8s.io/pause:3.10";

/// Name of the NodePool and the pod: `eksgpu-probe-<name>`. The NodePool's name is the value
/// of its nodes' `karpenter.sh/nodepool` label, so at most 63 characters (the schema keeps
/// `name` to 50).
pub fn object_name(p: &Probe) -> String {
    format!("eksgpu-probe-{}", p.name)
}

/// How long past `timeout` the NodePool's nodes may live (`expireAfter`): what limits a probe whose
/// provider died. While the pod runs on the node, its `activeDeadlineSeconds` fails it after
/// `timeout` and `consolidateAfter` removes the empty node; a node the pod never reaches is
/// expired (and, the pod still pending, replaced) until the next apply cleans up.
pub fn safety_margin() -> std::time::Duration {
    std::time::Duration::from_secs(15 * 60)
}

fn common_labels(p: &Probe) -> Value {
    json!({
        labels::MANAGED_BY: labels::MANAGED_BY_VALUE,
        labels::CLUSTER: labels::cluster_value(&p.cluster_name),
        PROBE_LABEL: p.name,
    })
}

/// The vendor of the probe's accelerators: its first catalogued type's (one probe, one vendor:
/// EKSGPU362).
fn vendor(p: &Probe) -> Vendor {
    p.instance_types
        .iter()
        .find_map(|t| catalog::instance_type(t))
        .map_or(Vendor::Nvidia, |t| t.vendor())
}

/// Devices of one vendor on the largest listed type: the NodePool's limit of that resource.
fn most_devices(p: &Probe) -> u32 {
    p.instance_types
        .iter()
        .filter_map(|t| catalog::instance_type(t))
        .map(|t| {
            if t.is_neuron() {
                t.neuron_devices().unwrap_or(1)
            } else {
                t.gpu_count
            }
        })
        .max()
        .unwrap_or(1)
        .max(1)
}

fn requirements(p: &Probe) -> Vec<Value> {
    let mut r = vec![json!({"key": "node.kubernetes.io/instance-type", "operator": "In", "values": p.instance_types})];
    if !p.capacity_types.is_empty() {
        r.push(json!({"key": "karpenter.sh/capacity-type", "operator": "In", "values": p.capacity_types}));
    }
    if !p.zones.is_empty() {
        r.push(json!({"key": "topology.kubernetes.io/zone", "operator": "In", "values": p.zones}));
    }
    r
}

/// The NodePool: the listed types only, tainted so nothing but the probe's pod lands on its node,
/// and limited to one node (`limits.nodes`, and the accelerator count of the largest type for a
/// Karpenter that does not count nodes).
pub fn node_pool(p: &Probe) -> Value {
    let (group, kind) = match p.capacity {
        ProbeCapacity::AutoMode => ("eks.amazonaws.com", "NodeClass"),
        ProbeCapacity::Karpenter => ("karpenter.k8s.aws", "EC2NodeClass"),
    };
    let expire = p.timeout.saturating_add(safety_margin()).as_secs();
    json!({
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": object_name(p), "labels": common_labels(p)},
        "spec": {
            "template": {
                "metadata": {"labels": {PROBE_LABEL: p.name}},
                "spec": {
                    "nodeClassRef": {"group": group, "kind": kind, "name": p.node_class_name()},
                    "requirements": requirements(p),
                    "taints": [{"key": PROBE_LABEL, "value": p.name, "effect": "NoSchedule"}],
                    // NodePool CRD pattern ^(([0-9]+(s|m|h))+|Never)$.
                    "expireAfter": format!("{expire}s"),
                },
            },
            // The node goes once it is empty (the pod deleted, or failed at its deadline).
            "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "30s", "budgets": [{"nodes": "100%"}]},
            "limits": {"nodes": "1", vendor(p).device_resource(): most_devices(p).to_string()},
        },
    })
}

/// The pause pod: one accelerator, pinned to the probe's NodePool (`karpenter.sh/nodepool`, a
/// label Karpenter puts on every node it launches), tolerating the probe's taint and the
/// accelerator taints pools carry.
pub fn pod(p: &Probe) -> Value {
    let resource = vendor(p).device_resource();
    let deadline = p.timeout.as_secs().max(1);
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": object_name(p), "namespace": p.namespace, "labels": common_labels(p)},
        "spec": {
            "nodeSelector": {"karpenter.sh/nodepool": object_name(p)},
            "tolerations": [
                {"key": PROBE_LABEL, "operator": "Equal", "value": p.name, "effect": "NoSchedule"},
                {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                {"key": "aws.amazon.com/neuron", "operator": "Exists", "effect": "NoSchedule"},
            ],
            // Admitted under the Pod Security Standards' `restricted` profile, which a namespace may
            // enforce (https://kubernetes.io/docs/concepts/security/pod-security-standards/, v1.33);
            // pause runs as 65535 in its image.
            "securityContext": {"runAsNonRoot": true, "runAsUser": 65535, "seccompProfile": {"type": "RuntimeDefault"}},
            "containers": [{
                "name": "pause",
                "image": PAUSE_IMAGE,
                "resources": {"requests": {resource: "1"}, "limits": {resource: "1"}},
                "securityContext": {
                    "allowPrivilegeEscalation": false,
                    "readOnlyRootFilesystem": true,
                    "capabilities": {"drop": ["ALL"]},
                },
            }],
            "restartPolicy": "Never",
            "terminationGracePeriodSeconds": 0,
            // A pod left by a provider that died stops after `timeout` of running.
            "activeDeadlineSeconds": deadline,
        },
    })
}

/// The NodePool, then the pod.
pub fn manifests(p: &Probe) -> Vec<Value> {
    vec![node_pool(p), pod(p)]
}

/// What the probe costs, in words: one node of one of the types for at most `timeout` (it is
/// deleted as soon as it is ready), plus the time EC2 takes to terminate it.
pub fn cost(p: &Probe) -> String {
    let types = p.instance_types.join(", ");
    let capacity = if p.capacity_types.is_empty() {
        "any capacity type".to_owned()
    } else {
        p.capacity_types.join(" or ")
    };
    let price = match max_cost(p) {
        Some(usd) => format!(" At most ${usd:.2} at the prices given."),
        None => " No price given (`price_per_hour`).".to_owned(),
    };
    format!(
        "Launches one real node ({types}; {capacity}) and keeps it at most {} until it is ready, then deletes \
         it; EC2 bills the instance per second (at least 60 s) until it is terminated.{price}",
        crate::duration::format(p.timeout)
    )
}

/// The most the probe costs at the given prices: the dearest listed type for `timeout`; `None`
/// unless every listed type has a price.
pub fn max_cost(p: &Probe) -> Option<f64> {
    let prices: Option<Vec<f64>> = p
        .instance_types
        .iter()
        .map(|t| p.price_per_hour.get(t).copied())
        .collect();
    let dearest = prices?.into_iter().fold(0.0_f64, f64::max);
    let hours = p.timeout.as_secs_f64() / 3600.0;
    Some((dearest * hours * 100.0).ceil() / 100.0)
}
