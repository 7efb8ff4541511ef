//! Checks of a sharing pool against its GPU and capacity kind (offline).

use super::{SharingPool, Strategy};
use crate::catalog::MigLayout;
use crate::model::Capacity;
use crate::rules::{Code, Step, Violation};

pub fn check_sharing_pool(p: &SharingPool) -> Vec<Violation> {
    let mut out = Vec::new();
    let v = |code, path: Vec<Step>, detail: String| Violation::new(code, path, detail);
    let attr = |a: &'static str| vec![Step::Attr(a)];

    // The GPU the pool is validated against.
    let gpus = p.gpus();
    match (&p.instance_type, &p.gpu_model) {
        (None, None) => out.push(v(
            Code::EKSGPU107,
            attr("instance_type"),
            "Neither instance_type nor gpu_model is set.".into(),
        )),
        (Some(t), _) if gpus.is_empty() => out.push(v(
            Code::EKSGPU016,
            attr("instance_type"),
            format!("{t:?} is not in the GPU catalog."),
        )),
        (None, Some(m)) if gpus.is_empty() => out.push(v(
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
        out.push(v(
            Code::EKSGPU016,
            attr(which),
            format!("{} carries {} accelerators, not NVIDIA GPUs.", t.name, t.gpu_model),
        ));
    }
    let gpu_memory = gpus.iter().filter_map(|t| t.gpu_memory_mib).min().map(i64::from);

    // Exactly the settings block of the strategy.
    let blocks = [
        (Strategy::TimeSlicing, "time_slicing", p.time_slicing.is_some()),
        (Strategy::Mps, "mps", p.mps.is_some()),
        (Strategy::Mig, "mig", p.mig.is_some()),
        (Strategy::Dra, "dra", p.dra.is_some()),
        (Strategy::Hami, "hami", p.hami.is_some()),
    ];
    for (s, block, present) in blocks {
        if s == p.strategy && !present {
            out.push(v(
                Code::EKSGPU108,
                attr("strategy"),
                format!("strategy = {:?} needs a {block} block.", p.strategy.as_str()),
            ));
        }
        if s != p.strategy && present {
            out.push(v(
                Code::EKSGPU108,
                attr(block),
                format!(
                    "A {block} block does nothing with strategy = {:?}.",
                    p.strategy.as_str()
                ),
            ));
        }
    }

    // Capacity kind of the nodes.
    match (p.capacity, p.strategy) {
        (Some(Capacity::AutoMode), Strategy::Mig) => out.push(v(
            Code::EKSGPU001,
            attr("capacity"),
            "This sharing pool uses MIG.".into(),
        )),
        (Some(Capacity::AutoMode), Strategy::TimeSlicing | Strategy::Mps) => {
            out.push(v(
                Code::EKSGPU102,
                attr("capacity"),
                "This sharing pool configures the device plugin.".into(),
            ));
        }
        (Some(Capacity::AutoMode), Strategy::Hami) => {
            out.push(v(
                Code::EKSGPU017,
                attr("capacity"),
                "HAMi cannot replace Auto Mode's built-in device plugin.".into(),
            ));
        }
        (Some(Capacity::Karpenter), Strategy::TimeSlicing | Strategy::Mps) => {
            out.push(v(
                Code::EKSGPU011,
                attr("capacity"),
                "This sharing pool configures device-plugin sharing.".into(),
            ));
        }
        (Some(Capacity::Karpenter), Strategy::Mig) if p.mig.as_ref().is_some_and(|m| m.strategy == "mixed") => {
            out.push(v(
                Code::EKSGPU122,
                attr("capacity"),
                "Containers request nvidia.com/mig-<profile>, which no instance type advertises.".into(),
            ));
        }
        (Some(Capacity::Karpenter), Strategy::Hami) => {
            out.push(v(
                Code::EKSGPU122,
                attr("capacity"),
                "Containers request nvidia.com/gpumem and nvidia.com/gpucores, which no instance type advertises."
                    .into(),
            ));
        }
        _ => {}
    }

    for (block, s) in [("time_slicing", &p.time_slicing), ("mps", &p.mps)] {
        if let Some(s) = s
            && s.replicas < 2
        {
            out.push(v(
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
        out.push(v(
            Code::EKSGPU108,
            vec![Step::Attr("mps"), Step::Attr("fail_requests_greater_than_one")],
            "The device plugin always refuses requests for more than one MPS share; false is not applied.".into(),
        ));
    }

    if let Some(mig) = &p.mig {
        check_mig(p, mig, &mut out);
    }

    let workload_path = |i: usize, a: &'static str| vec![Step::Attr("workload"), Step::Index(i), Step::Attr(a)];
    if let Some(d) = &p.dra {
        if d.count < 1 {
            out.push(v(
                Code::EKSGPU108,
                vec![Step::Attr("dra"), Step::Attr("count")],
                "count must be at least 1.".into(),
            ));
        }
        // The NVIDIA DRA driver validates a GpuConfig's sharing strategy against its feature gates.
        let gate = match d.sharing.as_str() {
            "time_slicing" => Some("TimeSlicingSettings"),
            "mps" => Some("MPSSupport"),
            _ => None,
        };
        if let Some(gate) = gate {
            out.push(v(
                Code::EKSGPU131,
                vec![Step::Attr("dra"), Step::Attr("sharing")],
                format!("sharing = {:?} needs the DRA driver's {gate} feature gate.", d.sharing),
            ));
        }
        if !["exclusive", "time_slicing", "mps"].contains(&d.sharing.as_str()) {
            out.push(v(
                Code::EKSGPU108,
                vec![Step::Attr("dra"), Step::Attr("sharing")],
                format!("{:?} is not exclusive, time_slicing or mps.", d.sharing),
            ));
        }
        for (i, w) in p.workloads.iter().enumerate() {
            if let Some(ns) = &w.namespace
                && *ns != d.namespace
            {
                out.push(v(
                    Code::EKSGPU110,
                    workload_path(i, "namespace"),
                    format!(
                        "Workload {:?} runs in {ns:?}; the claim is in {:?}.",
                        w.name, d.namespace
                    ),
                ));
            }
        }
    }
    if let Some(h) = &p.hami {
        if h.split_count < 1 {
            out.push(v(
                Code::EKSGPU108,
                vec![Step::Attr("hami"), Step::Attr("split_count")],
                "split_count must be at least 1.".into(),
            ));
        }
        if let Some(c) = h.cores_percent
            && !(0..=100).contains(&c)
        {
            out.push(v(
                Code::EKSGPU108,
                vec![Step::Attr("hami"), Step::Attr("cores_percent")],
                format!("cores_percent is {c}; it is a percentage (0–100)."),
            ));
        }
        if !["default", "force", "disable"].contains(&h.core_policy.as_str()) {
            out.push(v(
                Code::EKSGPU108,
                vec![Step::Attr("hami"), Step::Attr("core_policy")],
                format!("{:?} is not default, force or disable.", h.core_policy),
            ));
        }
        if let (Some(q), Some(mem)) = (h.memory_mib, gpu_memory)
            && q > mem
        {
            out.push(v(
                Code::EKSGPU012,
                vec![Step::Attr("hami"), Step::Attr("memory_mib")],
                format!("Each share asks {q} MiB of a {mem} MiB GPU."),
            ));
        }
    }

    // EKSGPU012: the declared workloads' memory against one GPU.
    let total: i64 = p.workloads.iter().map(|w| w.memory_mib).sum();
    if let Some(mem) = gpu_memory {
        let shared = match p.strategy {
            Strategy::TimeSlicing | Strategy::Mps | Strategy::Hami => true,
            Strategy::Dra => p.dra.as_ref().is_some_and(|d| d.sharing != "exclusive"),
            Strategy::Exclusive | Strategy::Mig => false,
        };
        let scaling = p
            .hami
            .as_ref()
            .filter(|_| p.strategy == Strategy::Hami)
            .map_or(1.0, |h| h.memory_scaling);
        #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
        let budget = (mem as f64 * scaling) as i64;
        if shared && total > budget {
            out.push(v(
                Code::EKSGPU012,
                vec![Step::Attr("workload")],
                format!(
                    "The workloads declare {total} MiB together; one GPU of {} has {budget} MiB.",
                    gpus.first().map_or("this pool", |t| t.name)
                ),
            ));
        }
        let per_share = match p.strategy {
            Strategy::Mig => smallest_profile_mib(p),
            Strategy::Hami => p.hami.as_ref().and_then(|h| h.memory_mib),
            _ if !shared => Some(mem),
            _ => None,
        };
        if let Some(limit) = per_share {
            for (i, w) in p.workloads.iter().enumerate() {
                if w.memory_mib > limit {
                    out.push(v(
                        Code::EKSGPU012,
                        workload_path(i, "memory_mib"),
                        format!(
                            "Workload {:?} declares {} MiB; its share has {limit} MiB.",
                            w.name, w.memory_mib
                        ),
                    ));
                }
            }
        }
    }
    out
}

fn smallest_profile_mib(p: &SharingPool) -> Option<i64> {
    let gpu = p.gpus().first().and_then(|t| t.mig)?;
    let mig = p.mig.as_ref()?;
    let names: Vec<String> = if mig.profiles.is_empty() {
        match mig.config.as_deref().map(MigLayout::parse) {
            Some(MigLayout::Balanced) => gpu.balanced.iter().map(|(n, _)| (*n).to_owned()).collect(),
            Some(MigLayout::All(profile)) => vec![profile.to_string()],
            _ => vec![],
        }
    } else {
        mig.profiles.keys().cloned().collect()
    };
    names
        .iter()
        .filter_map(|n| gpu.profile(n))
        // The MiB the driver reports for the profile, not a figure derived from its name.
        .map(|pr| i64::try_from(pr.memory_mib).unwrap_or(i64::MAX))
        .min()
}

fn check_mig(p: &SharingPool, mig: &super::Mig, out: &mut Vec<Violation>) {
    let v = |code, path: Vec<Step>, detail: String| Violation::new(code, path, detail);
    let at = |a: &'static str| vec![Step::Attr("mig"), Step::Attr(a)];
    if !["single", "mixed"].contains(&mig.strategy.as_str()) {
        out.push(v(
            Code::EKSGPU108,
            at("strategy"),
            format!("{:?} is not single or mixed.", mig.strategy),
        ));
    }
    if mig.config.is_some() != mig.profiles.is_empty() {
        out.push(v(
            Code::EKSGPU108,
            vec![Step::Attr("mig")],
            "Set exactly one of profiles and config.".into(),
        ));
    }
    for t in p.gpus() {
        let Some(gpu) = t.mig else {
            out.push(v(
                Code::EKSGPU002,
                vec![Step::Attr("strategy")],
                format!("{} has {} GPUs, which MIG cannot split.", t.name, t.gpu_model),
            ));
            return;
        };
        if gpu.profiles.is_empty() {
            continue; // Profile names of this GPU are not published (catalog marks it unverified).
        }
        let valid = || gpu.profiles.iter().map(|x| x.name).collect::<Vec<_>>().join(", ");
        let (mut slices, mut instances) = (0i64, 0i64);
        for (name, n) in &mig.profiles {
            let path = vec![Step::Attr("mig"), Step::Attr("profiles"), Step::Key(name.clone())];
            match gpu.profile(name) {
                None => out.push(v(
                    Code::EKSGPU003,
                    path,
                    format!(
                        "{} ({}) has no profile {name:?}; it has {}.",
                        t.name,
                        t.gpu_model,
                        valid()
                    ),
                )),
                Some(pr) => {
                    if *n > i64::from(pr.max_instances) || *n < 1 {
                        out.push(v(
                            Code::EKSGPU003,
                            path,
                            format!("{name} fits {} times on one GPU, not {n}.", pr.max_instances),
                        ));
                    }
                    slices += i64::from(pr.compute_slices) * n;
                    instances += n;
                }
            }
        }
        if slices > i64::from(gpu.compute_slices) || instances > i64::from(gpu.max_instances) {
            out.push(v(
                Code::EKSGPU003,
                at("profiles"),
                format!("The layout takes {slices} compute slices in {instances} instances; one {} GPU has {} slices and at most {} instances.", t.gpu_model, gpu.compute_slices, gpu.max_instances),
            ));
        }
        let layout = mig.config.as_deref().map(MigLayout::parse);
        let named = match &layout {
            Some(MigLayout::All(profile)) => Some(profile.to_string()),
            // `all-` followed by something that is not a profile name at all.
            Some(MigLayout::Custom(c)) => c.strip_prefix("all-").map(str::to_owned),
            _ => None,
        };
        if let Some(name) = named
            && gpu.profile(&name).is_none()
        {
            out.push(v(
                Code::EKSGPU003,
                at("config"),
                format!(
                    "{} ({}) has no profile {name:?}; it has {}.",
                    t.name,
                    t.gpu_model,
                    valid()
                ),
            ));
        }
    }
    let profiles_used = if mig.profiles.is_empty() {
        usize::from(mig.config.as_deref().map(MigLayout::parse) == Some(MigLayout::Balanced)) * 3
    } else {
        mig.profiles.len()
    };
    if mig.strategy == "single" && profiles_used > 1 {
        out.push(v(
            Code::EKSGPU015,
            at("strategy"),
            "The layout mixes several profiles per GPU.".into(),
        ));
    }
    if !mig.profiles.is_empty() && p.mig_config_name().is_none() {
        out.push(v(
            Code::EKSGPU109,
            at("profiles"),
            "This layout is neither one profile filling the GPU (all-<profile>) nor the balanced layout.".into(),
        ));
    }
    if let Some((name, n)) = mig.profiles.iter().next()
        && mig.profiles.len() == 1
        && let Some(pr) = p.gpus().first().and_then(|t| t.mig).and_then(|g| g.profile(name))
        && *n != i64::from(pr.max_instances)
        && *n <= i64::from(pr.max_instances)
    {
        out.push(v(
            Code::EKSGPU109,
            vec![Step::Attr("mig"), Step::Attr("profiles"), Step::Key(name.clone())],
            format!("all-{name} places {} instances per GPU, not {n}.", pr.max_instances),
        ));
    }
}
