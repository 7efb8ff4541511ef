//! Checks of a sharing pool against its GPU and capacity kind (offline). One
//! function per rule code; `check_sharing_pool` calls them in the order they report.

mod memory;
mod mig;

use super::{Dra, Hami, SharingPool, Strategy};
use crate::catalog::InstanceType;
use crate::karpenter_gates::FeatureGates;
use crate::model::Capacity;
use crate::rules::{Code, Step, Violation};

/// The rules, under the feature gates the clusters' Karpenter runs with (the provider's
/// `karpenter_feature_gates`).
pub fn check_sharing_pool(p: &SharingPool, gates: FeatureGates) -> Vec<Violation> {
    let mut out = Vec::new();
    // The GPU the pool is validated against.
    let gpus = p.gpus();
    gpu_named(p, &mut out);
    nvidia_gpu(p, &gpus, &mut out);
    settings_block(p, &mut out);
    capacity_kind(p, gates, &mut out);
    slicing_settings(p, &mut out);
    shared_counts(p, &gpus, &mut out);
    if let Some(mig) = &p.mig {
        mig::check_mig(p, mig, &mut out);
    }
    if let Some(d) = &p.dra {
        dra_settings(d, &mut out);
        dra_feature_gate(d, &mut out);
        dra_workload_namespaces(p, d, &mut out);
    }
    let gpu_memory = gpus.iter().filter_map(|t| t.gpu_memory_mib).min().map(i64::from);
    if let Some(h) = &p.hami {
        hami_settings(h, &mut out);
        hami_share_memory(h, gpu_memory, &mut out);
    }
    if let Some(mem) = gpu_memory {
        memory::workload_memory(p, &gpus, mem, &mut out);
    }
    out
}

fn attr(a: &'static str) -> Vec<Step> {
    vec![Step::Attr(a)]
}

/// EKSGPU107: the pool names its GPU once, by instance type or by GPU model. With both, the
/// checks would read the instance type and silently drop the model (`SharingPool::gpus`).
fn gpu_named(p: &SharingPool, out: &mut Vec<Violation>) {
    match (&p.instance_type, &p.gpu_model) {
        (None, None) => out.push(Violation::new(
            Code::EKSGPU107,
            attr("instance_type"),
            "Neither instance_type nor gpu_model is set.".into(),
        )),
        (Some(t), Some(m)) => out.push(Violation::new(
            Code::EKSGPU107,
            attr("gpu_model"),
            format!(
                "Both instance_type ({t:?}) and gpu_model ({m:?}) are set; the pool's GPU is named by one of them."
            ),
        )),
        _ => {}
    }
}

/// EKSGPU016: the instance type or GPU model is in the catalog, with NVIDIA GPUs.
fn nvidia_gpu(p: &SharingPool, gpus: &[&'static InstanceType], out: &mut Vec<Violation>) {
    match (&p.instance_type, &p.gpu_model) {
        (Some(t), _) if gpus.is_empty() => out.push(Violation::new(
            Code::EKSGPU016,
            attr("instance_type"),
            format!("{t:?} is not in the GPU catalog."),
        )),
        (None, Some(m)) if gpus.is_empty() => out.push(Violation::new(
            Code::EKSGPU016,
            attr("gpu_model"),
            format!("{m:?} is not a GPU model in the catalog."),
        )),
        _ => {}
    }
    if let Some(t) = gpus.iter().find(|t| !t.is_nvidia_gpu()) {
        let which = if p.instance_type.is_some() {
            "instance_type"
        } else {
            "gpu_model"
        };
        out.push(Violation::new(
            Code::EKSGPU016,
            attr(which),
            format!("{} carries {} accelerators, not NVIDIA GPUs.", t.name, t.gpu_model),
        ));
    }
}

/// EKSGPU108: exactly the settings block of the strategy.
fn settings_block(p: &SharingPool, out: &mut Vec<Violation>) {
    let blocks = [
        (Strategy::TimeSlicing, "time_slicing", p.time_slicing.is_some()),
        (Strategy::Mps, "mps", p.mps.is_some()),
        (Strategy::Mig, "mig", p.mig.is_some()),
        (Strategy::Dra, "dra", p.dra.is_some()),
        (Strategy::Hami, "hami", p.hami.is_some()),
    ];
    for (s, block, present) in blocks {
        if s == p.strategy && !present {
            out.push(Violation::new(
                Code::EKSGPU108,
                attr("strategy"),
                format!("strategy = {:?} needs a {block} block.", p.strategy.as_str()),
            ));
        }
        if s != p.strategy && present {
            out.push(Violation::new(
                Code::EKSGPU108,
                attr(block),
                format!(
                    "A {block} block does nothing with strategy = {:?}.",
                    p.strategy.as_str()
                ),
            ));
        }
    }
}

/// The strategies a capacity kind of the nodes cannot serve, as one table: EKSGPU001 (MIG on
/// Auto Mode), 102 (device-plugin sharing on Auto Mode), 017 (HAMi next to Auto Mode's device
/// plugin), 011 (device-plugin sharing on Karpenter), 122 (resources Karpenter cannot predict).
fn capacity_kind(p: &SharingPool, gates: FeatureGates, out: &mut Vec<Violation>) {
    let mixed_mig = p.mig.as_ref().is_some_and(|m| m.strategy == "mixed");
    let conflict = match (p.capacity, p.strategy) {
        (Some(Capacity::AutoMode), Strategy::Mig) => Some((Code::EKSGPU001, "This sharing pool uses MIG.")),
        (Some(Capacity::AutoMode), Strategy::TimeSlicing | Strategy::Mps) => {
            Some((Code::EKSGPU102, "This sharing pool configures the device plugin."))
        }
        (Some(Capacity::AutoMode), Strategy::Hami) => Some((
            Code::EKSGPU017,
            "HAMi cannot replace Auto Mode's built-in device plugin.",
        )),
        // With the `nodeOverlay` gate, the strategy pool that carries this pool's `node_labels`
        // renders a NodeOverlay advertising the replicas, MIG profiles or HAMi split, and warns
        // itself where it cannot (node_strategy/rules/overlay.rs): the sharing pool has nothing to add.
        (Some(Capacity::Karpenter), _) if gates.node_overlay => None,
        (Some(Capacity::Karpenter), Strategy::TimeSlicing | Strategy::Mps) => {
            Some((Code::EKSGPU011, "This sharing pool configures device-plugin sharing."))
        }
        (Some(Capacity::Karpenter), Strategy::Mig) if mixed_mig => Some((
            Code::EKSGPU122,
            "Containers request nvidia.com/mig-<profile>, which no instance type advertises.",
        )),
        (Some(Capacity::Karpenter), Strategy::Hami) => Some((
            Code::EKSGPU122,
            "Containers request nvidia.com/gpumem and nvidia.com/gpucores, which no instance type advertises.",
        )),
        _ => None,
    };
    if let Some((code, detail)) = conflict {
        out.push(Violation::new(code, attr("capacity"), detail.into()));
    }
}

/// EKSGPU137 and EKSGPU138 on the pool's replicas (or HAMi's split): `counts::check`.
fn shared_counts(p: &SharingPool, gpus: &[&'static InstanceType], out: &mut Vec<Violation>) {
    let per_gpu = match p.strategy {
        Strategy::TimeSlicing => p
            .time_slicing
            .as_ref()
            .map(|s| ("time_slicing", "replicas", s.replicas)),
        Strategy::Mps => p.mps.as_ref().map(|s| ("mps", "replicas", s.replicas)),
        Strategy::Hami => p.hami.as_ref().map(|h| ("hami", "split_count", h.split_count)),
        _ => None,
    };
    let Some((block, field, n)) = per_gpu else {
        return;
    };
    let path = [Step::Attr(block), Step::Attr(field)];
    super::counts::check(n, gpus, &path, &format!("{field} = {n}"), out);
}

/// EKSGPU108: time-slicing and MPS settings the device plugin applies.
fn slicing_settings(p: &SharingPool, out: &mut Vec<Violation>) {
    for (block, s) in [("time_slicing", &p.time_slicing), ("mps", &p.mps)] {
        if let Some(s) = s
            && s.replicas < 2
        {
            out.push(Violation::new(
                Code::EKSGPU108,
                vec![Step::Attr(block), Step::Attr("replicas")],
                format!("replicas is {}; sharing needs at least 2.", s.replicas),
            ));
        }
    }
    // k8s-device-plugin v0.15.0+ api/config/v1/config.go forces failRequestsGreaterThanOne to true
    // for MPS: `false` would be planned, ignored on the node, and read back as drift.
    if let Some(m) = &p.mps
        && !m.fail_requests_greater_than_one
    {
        out.push(Violation::new(
            Code::EKSGPU108,
            vec![Step::Attr("mps"), Step::Attr("fail_requests_greater_than_one")],
            "The device plugin always refuses requests for more than one MPS share; false is not applied.".into(),
        ));
    }
}

/// EKSGPU108: a DRA claim of at least one GPU, with a sharing strategy the driver knows.
fn dra_settings(d: &Dra, out: &mut Vec<Violation>) {
    if d.count < 1 {
        out.push(Violation::new(
            Code::EKSGPU108,
            vec![Step::Attr("dra"), Step::Attr("count")],
            "count must be at least 1.".into(),
        ));
    }
    if !["exclusive", "time_slicing", "mps"].contains(&d.sharing.as_str()) {
        out.push(Violation::new(
            Code::EKSGPU108,
            vec![Step::Attr("dra"), Step::Attr("sharing")],
            format!("{:?} is not exclusive, time_slicing or mps.", d.sharing),
        ));
    }
}

/// EKSGPU131: the NVIDIA DRA driver validates a GpuConfig's sharing strategy against its feature gates.
fn dra_feature_gate(d: &Dra, out: &mut Vec<Violation>) {
    let gate = match d.sharing.as_str() {
        "time_slicing" => Some("TimeSlicingSettings"),
        "mps" => Some("MPSSupport"),
        _ => None,
    };
    if let Some(gate) = gate {
        out.push(Violation::new(
            Code::EKSGPU131,
            vec![Step::Attr("dra"), Step::Attr("sharing")],
            format!("sharing = {:?} needs the DRA driver's {gate} feature gate.", d.sharing),
        ));
    }
}

/// EKSGPU110: a DRA claim is shared within its namespace only.
fn dra_workload_namespaces(p: &SharingPool, d: &Dra, out: &mut Vec<Violation>) {
    for (i, w) in p.workloads.iter().enumerate() {
        if let Some(ns) = &w.namespace
            && *ns != d.namespace
        {
            out.push(Violation::new(
                Code::EKSGPU110,
                vec![Step::Attr("workload"), Step::Index(i), Step::Attr("namespace")],
                format!(
                    "Workload {:?} runs in {ns:?}; the claim is in {:?}.",
                    w.name, d.namespace
                ),
            ));
        }
    }
}

/// EKSGPU108: HAMi's split count, core percentage and core policy.
fn hami_settings(h: &Hami, out: &mut Vec<Violation>) {
    if h.split_count < 1 {
        out.push(Violation::new(
            Code::EKSGPU108,
            vec![Step::Attr("hami"), Step::Attr("split_count")],
            "split_count must be at least 1.".into(),
        ));
    }
    if let Some(c) = h.cores_percent
        && !(0..=100).contains(&c)
    {
        out.push(Violation::new(
            Code::EKSGPU108,
            vec![Step::Attr("hami"), Step::Attr("cores_percent")],
            format!("cores_percent is {c}; it is a percentage (0–100)."),
        ));
    }
    if !["default", "force", "disable"].contains(&h.core_policy.as_str()) {
        out.push(Violation::new(
            Code::EKSGPU108,
            vec![Step::Attr("hami"), Step::Attr("core_policy")],
            format!("{:?} is not default, force or disable.", h.core_policy),
        ));
    }
}

/// EKSGPU012: one HAMi share asks more memory than the GPU has.
fn hami_share_memory(h: &Hami, gpu_memory: Option<i64>, out: &mut Vec<Violation>) {
    if let (Some(q), Some(mem)) = (h.memory_mib, gpu_memory)
        && q > mem
    {
        out.push(Violation::new(
            Code::EKSGPU012,
            vec![Step::Attr("hami"), Step::Attr("memory_mib")],
            format!("Each share asks {q} MiB of a {mem} MiB GPU."),
        ));
    }
}
