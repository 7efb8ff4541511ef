//! Checks of a node strategy's pools (offline; values the user has not made
//! known yet are left out of the model and skipped by the provider).

mod node_class;

pub(crate) use node_class::MIN_GPU_IMAGE_VOLUME_GIB;

use crate::catalog::{self, MigLayout};
use crate::model::{Capacity, NodeStrategy, Pool};
use crate::render::{DEPLOY_DEVICE_PLUGIN, DEVICE_PLUGIN_CONFIG, MIG_CONFIG};
use crate::rules::Code;
use crate::rules::{Step, Violation, aws_side, parse_version};

/// The 2026-04 Auto Mode observations now live in the catalog beside the documented
/// table (`catalog::AUTO_MODE_OBSERVATIONS`); the old names stay for their users.
pub use crate::catalog::{AUTO_MODE_OBSERVED_FAILURES, AUTO_MODE_OBSERVED_WORKING};

/// The Karpenter release whose API the rules may assume, `(major, minor)`.
#[derive(Debug, Clone, Copy)]
pub struct Context {
    pub karpenter_version: (u32, u32),
}

/// Where DRA works, as one table to update when EKS changes (EKS user guide, DRA on Amazon EKS):
/// the lowest Kubernetes version per capacity kind, and Karpenter's release.
fn dra_minimum_kubernetes(capacity: Capacity) -> (u32, u32) {
    match capacity {
        // Auto Mode ships the NVIDIA DRA driver in its node runtime from 1.36.
        Capacity::AutoMode => (1, 36),
        // resource.k8s.io/v1 is GA in 1.34.
        Capacity::Karpenter | Capacity::ManagedNodeGroup | Capacity::Hybrid => (1, 34),
    }
}
const DRA_MINIMUM_KARPENTER: (u32, u32) = (1, 15);

pub fn check_node_strategy(s: &NodeStrategy, ctx: &Context) -> Vec<Violation> {
    let mut out = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for (i, pool) in s.pools.iter().enumerate() {
        let at = |rest: &[Step]| -> Vec<Step> {
            let mut p = vec![Step::Attr("pool"), Step::Index(i)];
            p.extend_from_slice(rest);
            p
        };
        if !is_dns_label(&pool.name) {
            out.push(Violation::new(
                Code::EKSGPU105,
                at(&[Step::Attr("name")]),
                format!("{:?} is not a valid Kubernetes object name.", pool.name),
            ));
        } else if !seen.insert(pool.name.as_str()) {
            out.push(Violation::new(
                Code::EKSGPU105,
                at(&[Step::Attr("name")]),
                format!("Pool name {:?} is used twice.", pool.name),
            ));
        }
        reserved_names(pool, &at, &mut out);
        check_pool(s, pool, ctx, &at, &mut out);
        node_class::check_pool(s, pool, ctx.karpenter_version, &at, &mut out);
        aws_side::check_pool(s, pool, &at, &mut out);
    }
    aws_side::check_strategy(s, &mut out);
    out
}

/// The objects EKS Auto Mode makes itself (EKS user guide, "Enable or disable built-in NodePools",
/// https://docs.aws.amazon.com/eks/latest/userguide/set-builtin-node-pools.html): NodePools
/// `general-purpose` and `system`, NodeClass `default`.
pub const AUTO_MODE_NODE_POOLS: [&str; 2] = ["general-purpose", "system"];
pub const AUTO_MODE_NODE_CLASS: &str = "default";

/// EKSGPU140: a pool whose NodePool or NodeClass would be one of Auto Mode's own.
fn reserved_names(pool: &Pool, at: &dyn Fn(&[Step]) -> Vec<Step>, out: &mut Vec<Violation>) {
    let node_pool = pool.capacity.is_in_cluster() && AUTO_MODE_NODE_POOLS.contains(&pool.name.as_str());
    let node_class =
        pool.capacity == Capacity::AutoMode && pool.node_class.is_some() && pool.name == AUTO_MODE_NODE_CLASS;
    if node_pool || node_class {
        let what = if node_pool { "NodePool" } else { "NodeClass" };
        out.push(Violation::new(
            Code::EKSGPU140,
            at(&[Step::Attr("name")]),
            format!(
                "Pool {:?} would write EKS Auto Mode's built-in {what} {:?}.",
                pool.name, pool.name
            ),
        ));
    }
}

fn check_pool(
    s: &NodeStrategy,
    pool: &Pool,
    ctx: &Context,
    at: &dyn Fn(&[Step]) -> Vec<Step>,
    out: &mut Vec<Violation>,
) {
    let label = |k: &str| pool.labels.get(k).map(String::as_str);
    let label_path = |k: &str| at(&[Step::Attr("labels"), Step::Key(k.to_owned())]);
    let auto = pool.capacity == Capacity::AutoMode;

    // EKSGPU016 / 101 / 009: instance types.
    let mut types = Vec::new();
    for (j, name) in pool.instance_types.iter().enumerate() {
        let path = at(&[Step::Attr("instance_types"), Step::Index(j)]);
        match catalog::instance_type(name) {
            None => out.push(Violation::new(
                Code::EKSGPU016,
                path,
                format!("{name:?} is not in the GPU catalog."),
            )),
            Some(t) if !t.is_nvidia_gpu() => out.push(Violation::new(
                Code::EKSGPU016,
                path,
                format!("{name} carries {} accelerators, not NVIDIA GPUs.", t.gpu_model),
            )),
            Some(t) => {
                if t.fractional && pool.capacity.is_in_cluster() {
                    out.push(Violation::new(
                        Code::EKSGPU101,
                        path.clone(),
                        format!("{name} is a fractional-GPU type."),
                    ));
                }
                if auto && AUTO_MODE_OBSERVED_FAILURES.contains(&name.as_str()) {
                    out.push(Violation::new(
                        Code::EKSGPU009,
                        path,
                        format!("{name} was observed failing to provision on Auto Mode."),
                    ));
                }
                types.push(t);
            }
        }
    }

    // Capacity types and taint effects in Kubernetes spelling.
    if pool.capacity.is_in_cluster() {
        for (j, c) in pool.capacity_types.iter().enumerate() {
            // `reserved` arrived in Karpenter 1.3 (validate::karpenter_capacity_type cites it).
            if let Err(e) = crate::validate::karpenter_capacity_type(c, ctx.karpenter_version) {
                out.push(Violation::new(
                    Code::EKSGPU106,
                    at(&[Step::Attr("capacity_types"), Step::Index(j)]),
                    e.message,
                ));
            }
        }
    }
    for (j, t) in pool.taints.iter().enumerate() {
        if !["NoSchedule", "PreferNoSchedule", "NoExecute"].contains(&t.effect.as_str()) {
            out.push(Violation::new(
                Code::EKSGPU106,
                at(&[Step::Attr("taint"), Step::Index(j), Step::Attr("effect")]),
                format!("{:?} is not a Kubernetes taint effect.", t.effect),
            ));
        }
    }

    // EKSGPU005: Karpenter v1 disruption.
    if let Some(d) = &pool.disruption {
        if let Some(p) = &d.consolidation_policy {
            let balanced_ok = ctx.karpenter_version >= (1, 14);
            let valid = p == "WhenEmpty" || p == "WhenEmptyOrUnderutilized" || (p == "Balanced" && balanced_ok);
            if !valid {
                let why = match p.as_str() {
                    "WhenUnderutilized" => "WhenUnderutilized is the v1beta1 name; Karpenter v1 rejects it.".to_owned(),
                    "Balanced" => format!(
                        "Balanced needs Karpenter 1.14; the provider is configured for {}.{}.",
                        ctx.karpenter_version.0, ctx.karpenter_version.1
                    ),
                    other => format!("{other:?} is not a consolidation policy."),
                };
                out.push(Violation::new(
                    Code::EKSGPU005,
                    at(&[Step::Attr("disruption"), Step::Attr("consolidation_policy")]),
                    why,
                ));
            }
        }
        if let Some(a) = &d.consolidate_after
            && !is_karpenter_duration(a)
        {
            out.push(Violation::new(
                Code::EKSGPU005,
                at(&[Step::Attr("disruption"), Step::Attr("consolidate_after")]),
                format!("{a:?} is not a Karpenter duration."),
            ));
        }
        // The budgets' CEL rule: `self.all(x, has(x.schedule) == has(x.duration))`.
        for (j, b) in d.budgets.iter().enumerate() {
            let (missing, given) = match (&b.schedule, &b.duration) {
                (Some(_), None) => ("duration", "schedule"),
                (None, Some(_)) => ("schedule", "duration"),
                _ => continue,
            };
            out.push(Violation::new(
                Code::EKSGPU005,
                at(&[
                    Step::Attr("disruption"),
                    Step::Attr("budget"),
                    Step::Index(j),
                    Step::Attr(missing),
                ]),
                format!("Budget {j} has a `{given}` but no `{missing}`; Karpenter needs both or neither."),
            ));
        }
    }
    if let Some(e) = &pool.expire_after
        && !is_karpenter_duration(e)
    {
        out.push(Violation::new(
            Code::EKSGPU005,
            at(&[Step::Attr("expire_after")]),
            format!("{e:?} is not a Karpenter duration."),
        ));
    }

    // EKSGPU006 / 103 / 104: node classes.
    if let Some(nc) = &pool.node_class {
        let nc_path = |rest: &[Step]| {
            let mut p = at(&[Step::Attr("node_class")]);
            p.extend_from_slice(rest);
            p
        };
        if auto && nc.kubelet.is_some() {
            out.push(Violation::new(
                Code::EKSGPU006,
                nc_path(&[Step::Attr("kubelet")]),
                "This pool has capacity = \"auto_mode\".".into(),
            ));
        }
        if auto && nc.ami_alias.is_some() {
            out.push(Violation::new(
                Code::EKSGPU103,
                nc_path(&[Step::Attr("ami_alias")]),
                "This pool has capacity = \"auto_mode\".".into(),
            ));
        }
    }
    if pool.capacity == Capacity::Karpenter && pool.node_class.as_ref().is_none_or(|nc| nc.role.is_none()) {
        let path = if pool.node_class.is_some() {
            at(&[Step::Attr("node_class"), Step::Attr("role")])
        } else {
            at(&[Step::Attr("capacity")])
        };
        out.push(Violation::new(
            Code::EKSGPU104,
            path,
            format!("Pool {:?} renders an EC2NodeClass.", pool.name),
        ));
    }

    // MIG labels: EKSGPU001 / 002 / 003 / 015.
    if let Some(config) = label(MIG_CONFIG).filter(|c| MigLayout::parse(c).splits()) {
        let path = label_path(MIG_CONFIG);
        if auto {
            out.push(Violation::new(
                Code::EKSGPU001,
                path.clone(),
                format!("Pool {:?} selects MIG layout {config:?}.", pool.name),
            ));
        }
        for t in &types {
            match t.mig {
                None => out.push(Violation::new(
                    Code::EKSGPU002,
                    path.clone(),
                    format!("{} has {} GPUs, which MIG cannot split.", t.name, t.gpu_model),
                )),
                Some(mig) => {
                    // mig-parted config names write '+' as '.': all-1g.18gb.me is profile 1g.18gb+me.
                    let profile = match MigLayout::parse(config) {
                        MigLayout::All(p) => Some(p.to_string()),
                        MigLayout::Custom(c) => c.strip_prefix("all-").map(str::to_owned),
                        _ => None,
                    };
                    if let Some(name) = profile
                        && !mig.profiles.is_empty()
                        && mig.profile(&name).is_none()
                    {
                        out.push(Violation::new(
                            Code::EKSGPU003,
                            path.clone(),
                            format!(
                                "{} ({}) has no MIG profile {name:?}; it has {}.",
                                t.name,
                                t.gpu_model,
                                mig.profiles.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
                            ),
                        ));
                    }
                }
            }
        }
        if MigLayout::parse(config) == MigLayout::Balanced
            && s.gpu_operator.as_ref().is_some_and(|g| g.mig_strategy == "single")
        {
            out.push(Violation::new(
                Code::EKSGPU015,
                path,
                "all-balanced mixes three profiles per GPU.".into(),
            ));
        }
    }

    // Device-plugin sharing: EKSGPU102 on Auto Mode, EKSGPU011 on Karpenter.
    if label(DEVICE_PLUGIN_CONFIG).is_some() {
        match pool.capacity {
            Capacity::AutoMode => out.push(Violation::new(
                Code::EKSGPU102,
                label_path(DEVICE_PLUGIN_CONFIG),
                format!("Pool {:?} is an Auto Mode pool.", pool.name),
            )),
            Capacity::Karpenter => out.push(Violation::new(
                Code::EKSGPU011,
                label_path(DEVICE_PLUGIN_CONFIG),
                format!("Pool {:?} is a Karpenter pool.", pool.name),
            )),
            _ => {}
        }
    }

    // EKSGPU010 / 017: device managers.
    let plugin_label = label(DEPLOY_DEVICE_PLUGIN);
    let operator = s.gpu_operator.is_some();
    if auto && operator && plugin_label.is_some_and(|v| v != "false") {
        out.push(Violation::new(
            Code::EKSGPU010,
            label_path(DEPLOY_DEVICE_PLUGIN),
            format!(
                "The label is {:?} on Auto Mode pool {:?}.",
                plugin_label.unwrap_or_default(),
                pool.name
            ),
        ));
    }
    let hami = label("gpu") == Some("on");
    if pool.dra && plugin_label.is_some_and(|v| v != "false") {
        out.push(Violation::new(
            Code::EKSGPU017,
            at(&[Step::Attr("dra")]),
            "This pool serves DRA claims and keeps the device plugin on.".into(),
        ));
    }
    // The DRA driver owns a DRA pool's GPUs: a device-plugin sharing config there would bring the
    // device plugin back next to it (EKS user guide, DRA: no DRA driver and device plugin on one node).
    if pool.dra && label(DEVICE_PLUGIN_CONFIG).is_some() {
        out.push(Violation::new(
            Code::EKSGPU017,
            label_path(DEVICE_PLUGIN_CONFIG),
            "This pool serves DRA claims and selects a device-plugin sharing config.".into(),
        ));
    }
    if pool.dra && hami {
        out.push(Violation::new(
            Code::EKSGPU017,
            at(&[Step::Attr("dra")]),
            "This pool serves DRA claims and is labelled for HAMi (gpu=on).".into(),
        ));
    }
    // Bottlerocket's NVIDIA variants run their own device plugin, which no node label turns off.
    let bottlerocket = pool.bottlerocket();
    if hami && (auto || bottlerocket || (operator && plugin_label != Some("false"))) {
        let why = if auto {
            "HAMi cannot replace Auto Mode's built-in device plugin.".to_owned()
        } else if bottlerocket {
            "HAMi would run next to Bottlerocket's built-in device plugin.".to_owned()
        } else {
            "HAMi would run next to the GPU Operator's device plugin.".to_owned()
        };
        out.push(Violation::new(Code::EKSGPU017, label_path("gpu"), why));
    }

    // EKSGPU004: DRA where it is supported.
    if pool.dra {
        let k8s = s.kubernetes_version.as_deref().and_then(parse_version);
        let minimum = dra_minimum_kubernetes(pool.capacity);
        if let Some(v) = k8s
            && v < minimum
        {
            out.push(Violation::new(
                Code::EKSGPU004,
                at(&[Step::Attr("dra")]),
                format!(
                    "Kubernetes {}.{} on {} needs {}.{} for DRA.",
                    v.0,
                    v.1,
                    pool.capacity.as_str(),
                    minimum.0,
                    minimum.1
                ),
            ));
        }
        if pool.capacity == Capacity::Karpenter && ctx.karpenter_version < DRA_MINIMUM_KARPENTER {
            out.push(Violation::new(
                Code::EKSGPU004,
                at(&[Step::Attr("dra")]),
                format!(
                    "Karpenter {}.{} does not provision for DRA claims (1.15 does).",
                    ctx.karpenter_version.0, ctx.karpenter_version.1
                ),
            ));
        }
    }

    // EKSGPU130: Karpenter provisions for DRA claims only with its alpha DRA support switched on.
    if pool.dra && pool.capacity == Capacity::Karpenter && ctx.karpenter_version >= DRA_MINIMUM_KARPENTER {
        out.push(Violation::new(
            Code::EKSGPU130,
            at(&[Step::Attr("dra")]),
            format!(
                "Karpenter {}.{} provisions nodes for DRA claims only with settings.enableDRA (alpha).",
                ctx.karpenter_version.0, ctx.karpenter_version.1
            ),
        ));
    }

    // EKSGPU132: an AL2023 (or AL2) NVIDIA node has the driver but no device plugin: without the
    // GPU Operator (or another device manager) its GPUs are never advertised.
    if s.gpu_operator.is_none() && !pool.dra && !hami && !pool.bottlerocket() && runs_eks_nvidia_ami(pool) {
        out.push(Violation::new(
            Code::EKSGPU132,
            at(&[Step::Attr("capacity")]),
            format!(
                "Pool {:?} runs the EKS NVIDIA AMI, which has no device plugin, and the strategy has no gpu_operator.",
                pool.name
            ),
        ));
    }

    // EKSGPU126 / 127: EFA for multi-node training.
    if pool.efa {
        check_efa(pool, at, out);
    }

    // EKSGPU014: GPU pool without a taint.
    let has_repelling_taint = pool
        .taints
        .iter()
        .any(|t| t.effect == "NoSchedule" || t.effect == "NoExecute");
    if !pool.gpu_taint && !has_repelling_taint {
        out.push(Violation::new(
            Code::EKSGPU014,
            at(&[Step::Attr("gpu_taint")]),
            format!("Pool {:?} has no NoSchedule or NoExecute taint.", pool.name),
        ));
    }
}

/// Whether the pool's nodes boot an EKS AL2023 or AL2 NVIDIA AMI: the driver and container
/// toolkit, but no Kubernetes device plugin (EKS user guide, NVIDIA GPU AMIs).
fn runs_eks_nvidia_ami(pool: &Pool) -> bool {
    match pool.capacity {
        Capacity::Karpenter => pool
            .node_class
            .as_ref()
            .and_then(|nc| nc.ami_alias.as_deref())
            .is_none_or(|a| matches!(a.split('@').next(), Some("al2023" | "al2"))),
        Capacity::ManagedNodeGroup => pool
            .managed_node_group
            .as_ref()
            .and_then(|m| m.ami_type.as_deref())
            .is_none_or(|t| t.starts_with("AL2023_") || t == "AL2_x86_64_GPU"),
        Capacity::AutoMode | Capacity::Hybrid => false,
    }
}

/// EKSGPU126: EFA needs EFA-capable types and capacity that attaches EFA interfaces;
/// EKSGPU127: EFA traffic stays in one Availability Zone, so the pool's nodes should too.
fn check_efa(pool: &Pool, at: &dyn Fn(&[Step]) -> Vec<Step>, out: &mut Vec<Violation>) {
    for (j, name) in pool.instance_types.iter().enumerate() {
        if let Some(t) = catalog::instance_type(name)
            && t.efa_interfaces == Some(0)
        {
            out.push(Violation::new(
                Code::EKSGPU126,
                at(&[Step::Attr("instance_types"), Step::Index(j)]),
                format!("{name} has no EFA interface."),
            ));
        }
    }
    match pool.capacity {
        // Karpenter and Auto Mode attach EFA interfaces to nodes launched for pods that request
        // `vpc.amazonaws.com/efa` (EKS user guide, Manage EFA devices on Amazon EKS).
        Capacity::Karpenter | Capacity::AutoMode => {
            if pool.zones.len() != 1 {
                out.push(Violation::new(
                    Code::EKSGPU127,
                    at(&[Step::Attr("zones")]),
                    format!(
                        "EFA pool {:?} may launch nodes in {}.",
                        pool.name,
                        if pool.zones.is_empty() {
                            "any Availability Zone".to_owned()
                        } else {
                            format!("{} Availability Zones", pool.zones.len())
                        }
                    ),
                ));
            }
        }
        // A node group attaches EFA interfaces only through a launch template's network
        // interfaces (EKS user guide, Manage EFA devices), which this provider does not manage.
        Capacity::ManagedNodeGroup => out.push(Violation::new(
            Code::EKSGPU126,
            at(&[Step::Attr("efa")]),
            format!(
                "Node group pool {:?} would come up without EFA interfaces: they need a launch template.",
                pool.name
            ),
        )),
        Capacity::Hybrid => out.push(Violation::new(
            Code::EKSGPU126,
            at(&[Step::Attr("efa")]),
            format!(
                "Hybrid pool {:?} runs on-premises machines, which have no EFA.",
                pool.name
            ),
        )),
    }
}

/// RFC 1123 label: what Kubernetes accepts as a NodePool or node group name part.
fn is_dns_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

/// `([0-9]+(s|m|h))+` or `Never`, as the NodePool CRD's pattern.
fn is_karpenter_duration(s: &str) -> bool {
    crate::duration::KarpenterDuration::parse(s).is_ok()
}

#[cfg(test)]
mod tests;
