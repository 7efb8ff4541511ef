//! Device managers found running in a cluster: the DaemonSets that advertise accelerators to the
//! kubelet, recognised by what they run (their containers' images and commands), and whether one
//! can land on a pool's nodes (its node selector, required node affinity and tolerations against
//! what the strategy knows of those nodes). Pure: the provider lists the DaemonSets
//! (`apps/v1`, all namespaces) and hands them in as JSON.
//!
//! Recognised, by image (the path's last segment, tag and digest dropped) and container:
//! - NVIDIA's device plugin: `k8s-device-plugin` (nvcr.io/nvidia, or docker.io/nvidia) run as the
//!   plugin, its default entrypoint or `nvidia-device-plugin` (k8s-device-plugin v0.20.0
//!   deployments/helm/nvidia-device-plugin/templates/daemonset-device-plugin.yml); the same image
//!   as `gpu-feature-discovery`, `mps-control-daemon` or `config-manager` advertises nothing. Who
//!   installed it: the GPU Operator (owned by a `ClusterPolicy`), Helm (`app.kubernetes.io/managed-by:
//!   Helm`), or neither (eksctl's `nvidia-device-plugin-daemonset` in `kube-system`, `kubectl apply`);
//! - HAMi's device plugin: image `hami` (docker.io/projecthami/hami, HAMi v2.10.0
//!   charts/hami/templates/device-plugin/daemonsetnvidia.yaml);
//! - NVIDIA's DRA driver for GPUs: a container `gpus` of image `dra-driver-nvidia-gpu`
//!   (registry.k8s.io/dra-driver-nvidia, v0.4.1 templates/kubeletplugin.yaml) or `k8s-dra-driver-gpu`
//!   (nvcr.io/nvidia, v25.12.0); its `compute-domains` container alone serves IMEX channels, no GPU;
//! - the Neuron device plugin (`neuron-device-plugin`) and DRA driver (`neuron-dra-driver`),
//!   public.ecr.aws/neuron (aws-neuron/neuron-helm-charts values.yaml).

use std::collections::BTreeMap;

use serde_json::Value;

use crate::catalog::{self, Vendor};
use crate::model::{Capacity, NodeStrategy, Pool, Taint};
use crate::render::{effective_labels, effective_taints, node_selector, selection};

/// What a found DaemonSet manages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Manages {
    NvidiaDevicePlugin,
    Hami,
    NvidiaDraGpus,
    NeuronDevicePlugin,
    NeuronDraDriver,
}

impl Manages {
    /// The name `eksgpu_cluster` reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Manages::NvidiaDevicePlugin => "nvidia_device_plugin",
            Manages::Hami => "hami_device_plugin",
            Manages::NvidiaDraGpus => "nvidia_dra_driver",
            Manages::NeuronDevicePlugin => "neuron_device_plugin",
            Manages::NeuronDraDriver => "neuron_dra_driver",
        }
    }

    fn vendor(self) -> Vendor {
        match self {
            Manages::NeuronDevicePlugin | Manages::NeuronDraDriver => Vendor::Neuron,
            _ => Vendor::Nvidia,
        }
    }

    fn words(self) -> &'static str {
        match self {
            Manages::NvidiaDevicePlugin => "NVIDIA's device plugin",
            Manages::Hami => "HAMi's device plugin",
            Manages::NvidiaDraGpus => "the NVIDIA DRA driver's GPU kubelet plugin",
            Manages::NeuronDevicePlugin => "the Neuron device plugin",
            Manages::NeuronDraDriver => "the Neuron DRA driver",
        }
    }
}

/// Who put a found DaemonSet there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum InstalledBy {
    /// Owned by a `ClusterPolicy` (nvidia.com/v1).
    GpuOperator,
    /// `app.kubernetes.io/managed-by: Helm`.
    Helm,
    /// Neither: eksctl, `kubectl apply`, another tool.
    Other,
}

impl InstalledBy {
    pub fn as_str(self) -> &'static str {
        match self {
            InstalledBy::GpuOperator => "gpu_operator",
            InstalledBy::Helm => "helm",
            InstalledBy::Other => "other",
        }
    }
}

/// A DaemonSet that manages accelerators.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundManager {
    pub namespace: String,
    pub name: String,
    pub manages: Manages,
    pub installed_by: InstalledBy,
    /// Its pod template's `spec` (node selector, affinity, tolerations).
    pub pod_spec: Value,
}

impl FoundManager {
    /// `namespace/name`, as `kubectl -n namespace get daemonset name` finds it.
    pub fn id(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }
}

/// An image's repository name without registry path, tag or digest: `k8s-device-plugin` of
/// `nvcr.io/nvidia/k8s-device-plugin:v0.20.0`.
fn image_name(image: &str) -> &str {
    let no_digest = image.split('@').next().unwrap_or(image);
    let last = no_digest.rsplit('/').next().unwrap_or(no_digest);
    last.split(':').next().unwrap_or(last)
}

fn command(c: &Value) -> Option<&str> {
    let first = c["command"].as_array()?.first()?.as_str()?;
    Some(first.rsplit('/').next().unwrap_or(first))
}

/// What one container of a DaemonSet manages.
fn container_manages(c: &Value) -> Option<Manages> {
    let image = image_name(c["image"].as_str()?);
    match image {
        "k8s-device-plugin" => match command(c) {
            None | Some("nvidia-device-plugin") => Some(Manages::NvidiaDevicePlugin),
            _ => None,
        },
        "hami" => Some(Manages::Hami),
        "dra-driver-nvidia-gpu" | "k8s-dra-driver-gpu" | "k8s-dra-driver" if c["name"] == "gpus" => {
            Some(Manages::NvidiaDraGpus)
        }
        "neuron-device-plugin" => Some(Manages::NeuronDevicePlugin),
        "neuron-dra-driver" => Some(Manages::NeuronDraDriver),
        _ => None,
    }
}

/// A DaemonSet (`apps/v1`, as the API returns it) that manages accelerators, or `None`.
pub fn classify(ds: &Value) -> Option<FoundManager> {
    let spec = &ds["spec"]["template"]["spec"];
    let manages = spec["containers"].as_array()?.iter().find_map(container_manages)?;
    let meta = &ds["metadata"];
    let owned_by_policy = meta["ownerReferences"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|o| o["kind"] == "ClusterPolicy");
    let installed_by = if owned_by_policy {
        InstalledBy::GpuOperator
    } else if meta["labels"]["app.kubernetes.io/managed-by"] == "Helm" {
        InstalledBy::Helm
    } else {
        InstalledBy::Other
    };
    Some(FoundManager {
        namespace: meta["namespace"].as_str().unwrap_or_default().to_owned(),
        name: meta["name"].as_str().unwrap_or_default().to_owned(),
        manages,
        installed_by,
        pod_spec: spec.clone(),
    })
}

/// What is known of one label on a pool's nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Known {
    /// The nodes carry no such label.
    Absent,
    /// The label holds one of these values (one per instance type, say).
    OneOf(Vec<String>),
}

/// What the strategy knows of a pool's nodes: some labels exactly, its taints. A label not here
/// may hold anything (NFD's and GFD's, say), so expressions on it are taken to match.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeView {
    pub labels: BTreeMap<String, Known>,
    pub taints: Vec<Taint>,
}

fn one(v: impl Into<String>) -> Known {
    Known::OneOf(vec![v.into()])
}

/// The nodes of `pool`: the labels the provider renders on them (`render::effective_labels`), the
/// label `node_selector` finds them by, `eks.amazonaws.com/compute-type` (`auto` on Auto Mode,
/// `hybrid` on Hybrid Nodes, none on EC2 nodes Karpenter or a node group launches), the
/// well-known `kubernetes.io/os`, `kubernetes.io/arch` and `node.kubernetes.io/instance-type`
/// (Kubernetes well-known labels), and Karpenter's `karpenter.sh/capacity-type`.
pub fn node_view(strategy: &NodeStrategy, pool: &Pool) -> NodeView {
    let mut labels: BTreeMap<String, Known> = effective_labels(strategy, pool)
        .into_iter()
        .map(|(k, v)| (k, one(v)))
        .collect();
    labels.extend(node_selector(strategy, pool).into_iter().map(|(k, v)| (k, one(v))));
    let compute = match pool.capacity {
        Capacity::AutoMode => one("auto"),
        Capacity::Hybrid => one("hybrid"),
        Capacity::Karpenter | Capacity::ManagedNodeGroup => Known::Absent,
    };
    labels.insert("eks.amazonaws.com/compute-type".into(), compute);
    labels.insert("kubernetes.io/os".into(), one("linux"));
    let types = crate::model::matching::matched_instance_types(pool);
    if pool.capacity != Capacity::Hybrid && !types.is_empty() {
        let mut arches: Vec<String> = types
            .iter()
            .filter_map(|t| catalog::instance_type(t))
            .map(|t| match t.architecture {
                catalog::Arch::X86_64 => "amd64".to_owned(),
                catalog::Arch::Arm64 => "arm64".to_owned(),
            })
            .collect();
        arches.sort();
        arches.dedup();
        if !arches.is_empty() {
            labels.insert("kubernetes.io/arch".into(), Known::OneOf(arches));
        }
        labels.insert("node.kubernetes.io/instance-type".into(), Known::OneOf(types));
    }
    if pool.capacity.is_in_cluster() {
        let ct = if pool.capacity_types.is_empty() {
            vec!["on-demand".to_owned()]
        } else {
            pool.capacity_types.clone()
        };
        labels.insert(selection::CAPACITY_TYPE.into(), Known::OneOf(ct));
    }
    NodeView {
        labels,
        taints: effective_taints(pool),
    }
}

fn strings(v: &Value) -> Vec<&str> {
    v.as_array().into_iter().flatten().filter_map(Value::as_str).collect()
}

/// Whether a node-selector requirement can hold on the nodes (unknown labels: yes). Kubernetes
/// `NodeSelectorRequirement` operators (k8s.io/api core/v1 types.go).
fn requirement_may_hold(view: &NodeView, e: &Value) -> bool {
    let Some(known) = view.labels.get(e["key"].as_str().unwrap_or_default()) else {
        return true;
    };
    let values = strings(&e["values"]);
    let have: &[String] = match known {
        Known::Absent => &[],
        Known::OneOf(v) => v,
    };
    let num = |s: &str| s.parse::<i64>().ok();
    let bound = values.first().and_then(|v| num(v));
    match e["operator"].as_str().unwrap_or_default() {
        "In" => have.iter().any(|h| values.contains(&h.as_str())),
        "NotIn" => have.is_empty() || have.iter().any(|h| !values.contains(&h.as_str())),
        "Exists" => !have.is_empty(),
        "DoesNotExist" => have.is_empty(),
        "Gt" => have.iter().any(|h| num(h).zip(bound).is_some_and(|(h, b)| h > b)),
        "Lt" => have.iter().any(|h| num(h).zip(bound).is_some_and(|(h, b)| h < b)),
        _ => false,
    }
}

/// Whether `tolerations` let a pod onto a node with `taint` (k8s.io/api core/v1 toleration.go
/// `ToleratesTaint`).
fn tolerates(tolerations: &Value, taint: &Taint) -> bool {
    tolerations.as_array().into_iter().flatten().any(|t| {
        let effect = t["effect"].as_str().unwrap_or_default();
        if !effect.is_empty() && effect != taint.effect {
            return false;
        }
        let key = t["key"].as_str().unwrap_or_default();
        let op = t["operator"].as_str().unwrap_or("Equal");
        if key.is_empty() {
            return op == "Exists";
        }
        key == taint.key
            && (op == "Exists" || t["value"].as_str().unwrap_or_default() == taint.value.as_deref().unwrap_or_default())
    })
}

/// Whether a pod of `spec` can land on the nodes of `view`: its node selector and required node
/// affinity may hold there (terms ORed, expressions ANDed; `matchFields` name a node, which the
/// strategy cannot know, so they may hold), and it tolerates every taint that keeps pods off
/// (`NoSchedule`, `NoExecute`).
pub fn can_land(spec: &Value, view: &NodeView) -> bool {
    let selector_ok = spec["nodeSelector"]
        .as_object()
        .into_iter()
        .flatten()
        .all(|(k, v)| requirement_may_hold(view, &serde_json::json!({"key": k, "operator": "In", "values": [v]})));
    let terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
        .as_array();
    let affinity_ok = terms.is_none_or(|terms| {
        terms.iter().any(|t| {
            t["matchExpressions"]
                .as_array()
                .into_iter()
                .flatten()
                .all(|e| requirement_may_hold(view, e))
        })
    });
    let taints_ok = view
        .taints
        .iter()
        .filter(|t| t.effect == "NoSchedule" || t.effect == "NoExecute")
        .all(|t| tolerates(&spec["tolerations"], t));
    selector_ok && affinity_ok && taints_ok
}

/// The device manager the strategy configures on a pool's nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expected {
    /// The node brings its own, not as a DaemonSet (Auto Mode's, Bottlerocket's).
    BuiltIn(&'static str),
    /// This kind; for NVIDIA's device plugin, installed by this one (`None`: any).
    Kind(Manages, Option<InstalledBy>),
}

/// What the strategy configures on `pool`'s nodes.
pub fn expected(strategy: &NodeStrategy, pool: &Pool) -> Expected {
    if pool.capacity == Capacity::AutoMode {
        return Expected::BuiltIn("EKS Auto Mode's own device plugin");
    }
    if pool.is_neuron() {
        return Expected::Kind(
            if pool.dra {
                Manages::NeuronDraDriver
            } else {
                Manages::NeuronDevicePlugin
            },
            None,
        );
    }
    if pool.dra_serves_gpus() {
        return Expected::Kind(Manages::NvidiaDraGpus, None);
    }
    if pool.labels.get("gpu").map(String::as_str) == Some("on") {
        return Expected::Kind(Manages::Hami, None);
    }
    if pool.bottlerocket() {
        return Expected::BuiltIn("Bottlerocket's own NVIDIA device plugin");
    }
    let by = if strategy.gpu_operator.is_some() {
        Some(InstalledBy::GpuOperator)
    } else if strategy.device_plugin.is_some() {
        Some(InstalledBy::Helm)
    } else {
        None
    };
    Expected::Kind(Manages::NvidiaDevicePlugin, by)
}

/// One manager that can land on a pool's nodes beside the expected one, with why.
#[derive(Debug, Clone, PartialEq)]
pub struct Clash<'a> {
    pub found: &'a FoundManager,
    /// What runs there by the strategy's design, in words.
    pub beside: String,
}

fn expected_words(e: Expected) -> String {
    match e {
        Expected::BuiltIn(w) => w.to_owned(),
        Expected::Kind(m, Some(InstalledBy::GpuOperator)) => format!("{} of the GPU Operator", m.words()),
        Expected::Kind(m, Some(InstalledBy::Helm)) => format!("{} installed with device_plugin_values_yaml", m.words()),
        Expected::Kind(m, _) => m.words().to_owned(),
    }
}

/// The found managers that can land on `pool`'s nodes and clash there: of another kind than the
/// strategy configures, another installer of NVIDIA's device plugin, or a second of its kind.
pub fn clashes<'a>(strategy: &NodeStrategy, pool: &Pool, found: &'a [FoundManager]) -> Vec<Clash<'a>> {
    let view = node_view(strategy, pool);
    let vendor = pool.vendor();
    let landing: Vec<&FoundManager> = found
        .iter()
        .filter(|m| m.manages.vendor() == vendor && can_land(&m.pod_spec, &view))
        .collect();
    let want = expected(strategy, pool);
    let fits = |m: &FoundManager| match want {
        Expected::BuiltIn(_) => false,
        Expected::Kind(kind, by) => m.manages == kind && by.is_none_or(|b| b == m.installed_by),
    };
    let mut out: Vec<Clash<'a>> = landing
        .iter()
        .filter(|m| !fits(m))
        .map(|m| Clash {
            found: m,
            beside: expected_words(want),
        })
        .collect();
    let fitting: Vec<&&FoundManager> = landing.iter().filter(|m| fits(m)).collect();
    if fitting.len() > 1 {
        for m in &fitting[1..] {
            out.push(Clash {
                found: m,
                beside: format!("{} {}", m.manages.words(), fitting[0].id()),
            });
        }
    }
    out
}

/// What to do about a found manager, by who installed it and what it is.
pub fn fix(m: &FoundManager) -> String {
    match (m.manages, m.installed_by) {
        (Manages::NvidiaDevicePlugin, InstalledBy::GpuOperator) => {
            "keep the GPU Operator's plugin off the pool's nodes with the pool label `nvidia.com/gpu.deploy.device-plugin = \"false\"`".to_owned()
        }
        (Manages::NvidiaDevicePlugin, InstalledBy::Other) => format!(
            "delete it (`kubectl -n {} delete daemonset {}`): eksctl installs it unless node groups are created with `--install-nvidia-plugin=false`",
            m.namespace, m.name
        ),
        (_, InstalledBy::Helm) => "install its chart with the strategy's values (their node affinity keeps it to its own pools) or uninstall the release".to_owned(),
        (_, _) => format!("keep it off the pool's nodes (its node selector or affinity) or delete it (`kubectl -n {} delete daemonset {}`)", m.namespace, m.name),
    }
}

#[cfg(test)]
mod tests;
