//! Karpenter NodeOverlays (`karpenter.sh/v1alpha1`, karpenter-provider-aws v1.14.1
//! `pkg/apis/crds/karpenter.sh_nodeoverlays.yaml`; Karpenter 1.7+, feature gate `nodeOverlay`):
//! the extended resources a `karpenter` pool's nodes advertise that Karpenter cannot know from the
//! instance type, so that it launches nodes for pods requesting them. One overlay per instance type
//! of the pool (counts scale with its GPUs), scoped to the pool's NodePool by a
//! `karpenter.sh/nodepool` requirement; the resources come from the pool's labels, as a sharing
//! pool hands them over (`sharing::handover`), and from the catalog's MIG tables. An overlay's
//! capacity replaces the instance type's value of the same resource (kubernetes-sigs/karpenter
//! v1.14.1 pkg/cloudprovider/types.go `ApplyCapacityOverlay`, `lo.Assign`), so a time-sliced
//! `nvidia.com/gpu` is the replicas count, not an addition. Auto Mode has no
//! NodeOverlay (aws/containers-roadmap#2690), so only `karpenter` pools render them.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{DEVICE_PLUGIN_CONFIG, MIG_CONFIG, Manifest, metadata};
use crate::catalog::{self, InstanceType, MigLayout, MigProfileName};
use crate::kinds;
use crate::model::{Capacity, NodeOverlay, NodeStrategy, Pool};
use crate::sharing::handover::{GPU_REPLICAS, GPU_RESOURCE};

/// HAMi's resource names (Project-HAMi/HAMi v2.10.0 charts/hami/values.yaml `resourceName`,
/// `resourceMem`, `resourceCores`); a GPU is 100 cores.
const HAMI_MEMORY: &str = "nvidia.com/gpumem";
const HAMI_CORES: &str = "nvidia.com/gpucores";

/// What Karpenter cannot know about one instance type of the pool: resource name → count.
/// Empty when the nodes advertise nothing beyond the instance type's own `nvidia.com/gpu`, or
/// when the figures are not known (labels written by hand without the handed-over counts, a
/// custom MIG config) or not a count a node can advertise (a product beyond int64, EKSGPU137;
/// sharing a fractional GPU, EKSGPU138): the rules refuse those, never a wrapped number.
pub fn overlay_capacity(strategy: &NodeStrategy, pool: &Pool, t: &InstanceType) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    let gpus = i64::from(t.gpu_count);
    let label = |k: &str| pool.labels.get(k).map(String::as_str);
    let replicas = label(GPU_REPLICAS)
        .and_then(|r| r.parse::<i64>().ok())
        .filter(|r| *r > 0);
    let shared = |r: i64| shared_count(r, t);
    if label(DEVICE_PLUGIN_CONFIG).is_some()
        && let Some(r) = replicas
    {
        // Device-plugin time-slicing / MPS: each GPU is advertised `replicas` times, under
        // `nvidia.com/gpu` or the renamed `nvidia.com/gpu.shared` (k8s-device-plugin v0.20.0).
        let Some(count) = shared(r) else {
            return BTreeMap::new();
        };
        let resource = format!("nvidia.com/{}", label(GPU_RESOURCE).unwrap_or("gpu"));
        if resource != NVIDIA_GPU {
            // `renameByDefault` advertises `nvidia.com/gpu.shared` *instead of* `nvidia.com/gpu`
            // (NVIDIA k8s-device-plugin v0.20.0 README, "Shared Access to GPUs"), while an
            // overlay's capacity replaces only the resources it names (kubernetes-sigs/karpenter
            // v1.14.1 `ApplyCapacityOverlay`; website docs/concepts/nodeoverlays.md "Capacity"):
            // without a 0, Karpenter would still count the type's whole GPUs.
            out.insert(NVIDIA_GPU.into(), 0);
        }
        out.insert(resource, count);
    } else if label("gpu") == Some("on")
        && let Some(r) = replicas
    {
        // HAMi splits each GPU `split_count` ways and schedules memory (MiB) and cores (percent).
        let Some(count) = shared(r) else {
            return BTreeMap::new();
        };
        out.insert(NVIDIA_GPU.into(), count);
        if let Some(mib) = t.gpu_memory_mib {
            out.insert(HAMI_MEMORY.into(), i64::from(mib) * gpus);
        }
        out.insert(HAMI_CORES.into(), 100 * gpus);
    } else if mixed_mig(strategy)
        && let Some(config) = label(MIG_CONFIG)
        && let Some(mig) = t.mig
    {
        // MIG under the `mixed` strategy: one `nvidia.com/mig-<profile>` resource per profile.
        let per_gpu: Vec<(MigProfileName, u32)> = match MigLayout::parse(config) {
            MigLayout::All(p) => mig
                .profile(&p.to_string())
                .map(|m| vec![(p, m.max_instances)])
                .unwrap_or_default(),
            MigLayout::Balanced => mig
                .balanced
                .iter()
                .filter_map(|(n, c)| MigProfileName::parse(n).map(|p| (p, *c)))
                .collect(),
            _ => Vec::new(),
        };
        if !per_gpu.is_empty() {
            // Every GPU is partitioned, so the device plugin advertises no `nvidia.com/gpu` under
            // `mixed` (k8s-device-plugin v0.20.0 README, "MIG strategy mixed"); the overlay says
            // so, as it replaces only what it names.
            out.insert(NVIDIA_GPU.into(), 0);
        }
        for (p, n) in per_gpu {
            out.insert(p.resource_name(), i64::from(n) * gpus);
        }
    } else if t.fractional && label(DEVICE_PLUGIN_CONFIG).is_none() {
        // A fractional GPU (g6f, gr6f) is one logical GPU, which EC2 reports as Count=0
        // (aws/karpenter-provider-aws website/content/en/preview/concepts/nodeoverlays.md @1d927085,
        // "Fractional GPU Instances (g6f)": `nvidia.com/gpu: "1"`).
        out.insert(NVIDIA_GPU.into(), 1);
    }
    out
}

const NVIDIA_GPU: &str = "nvidia.com/gpu";

/// The shared count a node of this type advertises: `replicas` per GPU. `None` when it is no
/// count at all: the product beyond int64, the largest integer a Kubernetes resource quantity
/// holds (k8s.io/apimachinery pkg/api/resource/quantity.go `Value()` returns int64), or a
/// fractional GPU, which the catalog counts as 0 whole GPUs.
pub fn shared_count(replicas: i64, t: &InstanceType) -> Option<i64> {
    if t.fractional {
        return None;
    }
    replicas.checked_mul(i64::from(t.gpu_count))
}

fn mixed_mig(strategy: &NodeStrategy) -> bool {
    strategy.mig_strategy() == Some("mixed")
}

/// Whether the pool renders overlays at all: a `karpenter` pool with the gate on.
pub fn renders_overlays(strategy: &NodeStrategy, pool: &Pool) -> bool {
    pool.capacity == Capacity::Karpenter && strategy.karpenter_gates.node_overlay
}

/// The name of the pool's overlay for one instance type (a DNS subdomain: `.` is allowed).
pub fn overlay_name(pool: &Pool, instance_type: &str) -> String {
    format!("{}-{instance_type}", pool.name)
}

/// The pool's NodeOverlays: one per instance type with something to advertise (with the
/// `nodeOverlay` gate on), then those the pool writes by hand (`node_overlays`, EKSGPU168 wants
/// the gate for them).
pub(super) fn node_overlays(strategy: &NodeStrategy, pool: &Pool) -> Vec<Manifest> {
    if pool.capacity != Capacity::Karpenter {
        return Vec::new();
    }
    let mut out: Vec<Manifest> = Vec::new();
    if renders_overlays(strategy, pool) {
        out.extend(pool.instance_types.iter().filter_map(|name| {
            let t = catalog::instance_type(name)?;
            let capacity = overlay_capacity(strategy, pool, t);
            (!capacity.is_empty()).then(|| overlay(strategy, pool, name, &capacity))
        }));
    }
    out.extend(pool.node_overlays.iter().map(|o| written(strategy, o)));
    out
}

/// A NodeOverlay the pool writes as given (karpenter.sh/v1alpha1 `spec.weight`, `requirements`,
/// `capacity`, `price`, `priceAdjustment`).
fn written(strategy: &NodeStrategy, o: &NodeOverlay) -> Manifest {
    let requirements: Vec<Value> = o
        .requirements
        .iter()
        .map(|r| super::selection::requirement_json(&r.key, &r.operator, &r.values))
        .collect();
    let mut spec = serde_json::Map::new();
    if let Some(w) = o.weight {
        spec.insert("weight".into(), w.into());
    }
    spec.insert("requirements".into(), Value::Array(requirements));
    if !o.capacity.is_empty() {
        spec.insert("capacity".into(), super::string_map(&o.capacity));
    }
    if let Some(p) = &o.price {
        spec.insert("price".into(), p.clone().into());
    }
    if let Some(p) = &o.price_adjustment {
        spec.insert("priceAdjustment".into(), p.clone().into());
    }
    Manifest {
        kind: kinds::NODE_OVERLAY,
        name: o.name.clone(),
        namespace: None,
        body: json!({
            "apiVersion": kinds::NODE_OVERLAY.api_version(),
            "kind": kinds::NODE_OVERLAY.kind,
            "metadata": metadata(strategy, &o.name),
            "spec": Value::Object(spec),
        }),
    }
}

fn overlay(strategy: &NodeStrategy, pool: &Pool, instance_type: &str, capacity: &BTreeMap<String, i64>) -> Manifest {
    let name = overlay_name(pool, instance_type);
    // spec.capacity values are quantities (int-or-string); strings keep what a server returns.
    let capacity: serde_json::Map<String, Value> = capacity
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.to_string())))
        .collect();
    let body = json!({
        "apiVersion": kinds::NODE_OVERLAY.api_version(),
        "kind": kinds::NODE_OVERLAY.kind,
        "metadata": metadata(strategy, &name),
        "spec": {
            // `karpenter.sh/nodepool` is allowed in overlay requirements (the CRD's label-domain
            // rule lists it), so the overlay changes only this pool's view of the type.
            "requirements": [
                {"key": "karpenter.sh/nodepool", "operator": "In", "values": [pool.name]},
                {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": [instance_type]},
            ],
            "capacity": capacity,
        },
    });
    Manifest {
        kind: kinds::NODE_OVERLAY,
        name,
        namespace: None,
        body,
    }
}

#[cfg(test)]
mod tests;
