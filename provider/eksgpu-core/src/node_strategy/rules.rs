//! Checks of a node strategy's pools (offline; values the user has not made
//! known yet are left out of the model and skipped by the provider). One
//! function per rule code; `check_pool` calls them in the order they report.

mod at_validate;
mod auto_mode;
mod device_managers;
mod device_plugin;
mod disruption;
mod dra;
mod dra_driver;
mod dra_release;
mod efa;
/// The EKS API capacity kinds (managed node groups, Hybrid Nodes) and the cluster's facts.
mod eks_api;
mod gb200;
mod instance_types;
mod launch_template;
mod limits;
mod mig;
mod misplaced;
mod network;
mod neuron;
mod node_class;
mod node_class_counts;
mod node_class_refs;
mod node_group_inputs;
mod nvlink;
mod overlay;
mod requirements;
mod static_capacity;
mod upgrade;
mod upstream_node_class;
mod user_data;

pub use at_validate::check_at_validate;
pub use auto_mode::AUTO_MODE_MAX_NODE_LIFETIME_HOURS;
pub use eks_api::{
    NetworkProblem, check_against_cluster, check_cluster, check_default_tags, cluster_overlaps, remote_network_problems,
};
pub use neuron::{uses_neuron_device_plugin, uses_neuron_dra_driver};
pub use second_manager::check_cluster_managers;
pub use upgrade::check_upgrade;
mod root_volume;
mod second_manager;
mod shared_counts;

pub(crate) use node_class::MIN_GPU_IMAGE_VOLUME_GIB;

use crate::model::{Capacity, NodeStrategy, Pool};
use crate::rules::Code;
use crate::rules::{At, Step, Violation};

/// The 2026-04 Auto Mode observations now live in the catalog beside the documented
/// table (`catalog::AUTO_MODE_OBSERVATIONS`); the old names stay for their users.
pub use crate::catalog::{AUTO_MODE_OBSERVED_FAILURES, AUTO_MODE_OBSERVED_WORKING};

/// The Karpenter release whose API the rules may assume, `(major, minor)`.
#[derive(Debug, Clone, Copy)]
pub struct Context {
    pub karpenter_version: (u32, u32),
}

pub fn check_node_strategy(s: &NodeStrategy, ctx: &Context) -> Vec<Violation> {
    let mut out = Vec::new();
    for pool in &s.pools {
        let at = |rest: &[Step]| -> Vec<Step> { crate::rules::pool_path(&pool.name, rest) };
        pool_name(pool, &at, &mut out);
        reserved_names(pool, &at, &mut out);
        check_pool(s, pool, ctx, &at, &mut out);
        node_class::check_pool(s, pool, ctx.karpenter_version, &at, &mut out);
        root_volume::root_volume(pool, &at, &mut out);
        root_volume::block_device_mappings(pool, &at, &mut out);
        user_data::check(pool, &at, &mut out);
        misplaced::misplaced_fields(pool, &at, &mut out);
        misplaced::kind_checks(pool, &at, &mut out);
        eks_api::check_pool(s, pool, &at, &mut out);
        node_class_refs::check_pool(s, pool, &at, &mut out);
    }
    neuron::one_neuron_device_manager(s, &mut out);
    device_plugin::one_plugin_installer(s, &mut out);
    device_plugin::sharing_configs(s, &mut out);
    dra_release::gpu_plugin_beside_device_plugin(s, &mut out);
    dra_release::one_driver_root(s, &mut out);
    eks_api::check_strategy(s, &mut out);
    node_group_inputs::unique_names(s, &mut out);
    node_class_refs::names(s, &mut out);
    out
}

/// EKSGPU105: a pool's name (its key in `pools`, unique by construction) is a Kubernetes object
/// name: it names the pool's NodePool and node class.
fn pool_name(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    if !is_dns_label(&pool.name) {
        out.push(Violation::new(
            Code::EKSGPU105,
            at(&[]),
            format!("{:?} is not a valid Kubernetes object name.", pool.name),
        ));
    }
}

/// The objects EKS Auto Mode makes itself (EKS user guide, "Enable or disable built-in NodePools",
/// https://docs.aws.amazon.com/eks/latest/userguide/set-builtin-node-pools.html): NodePools
/// `general-purpose` and `system`, NodeClass `default`.
pub const AUTO_MODE_NODE_POOLS: [&str; 2] = ["general-purpose", "system"];
pub const AUTO_MODE_NODE_CLASS: &str = "default";

/// EKSGPU140: a pool whose NodePool or NodeClass would be one of Auto Mode's own.
fn reserved_names(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    let node_pool = pool.capacity.is_in_cluster() && AUTO_MODE_NODE_POOLS.contains(&pool.name.as_str());
    let node_class = pool.capacity == Capacity::AutoMode
        && pool.node_class.is_some()
        && crate::render::node_class_name(pool) == AUTO_MODE_NODE_CLASS;
    if node_pool || node_class {
        let (what, name) = if node_pool {
            ("NodePool", pool.name.clone())
        } else {
            ("NodeClass", crate::render::node_class_name(pool))
        };
        out.push(Violation::new(
            Code::EKSGPU140,
            at(&[]),
            format!(
                "Pool {:?} would write EKS Auto Mode's built-in {what} {name:?}.",
                pool.name
            ),
        ));
    }
}

/// The per-pool checks, one function per rule code, in the order their violations are reported.
fn check_pool(s: &NodeStrategy, pool: &Pool, ctx: &Context, at: &At<'_>, out: &mut Vec<Violation>) {
    node_pool_labels(s, pool, at, out);
    requirements::requirement_shape(pool, ctx, at, out);
    requirements::provider_keys(pool, at, out);
    requirements::auto_mode_karpenter_labels(pool, at, out);
    requirements::requirement_count(pool, at, out);
    node_class_counts::check(s, pool, at, out);
    let selected = instance_types::check(s, pool, ctx, at, out);
    let types: Vec<_> = selected.iter().map(|s| s.t).filter(|t| t.is_nvidia_gpu()).collect();
    kubernetes_spelling(pool, ctx, at, out);
    disruption::karpenter_disruption(pool, ctx, at, out);
    karpenter_node_role(pool, at, out);
    auto_mode::node_lifetime(pool, at, out);
    if pool.is_neuron() {
        // The NVIDIA stack's rules do not apply; its labels are refused instead.
        neuron::nvidia_labels_on_neuron(pool, at, out);
        neuron::neuron_dra_supported(pool, at, out);
    } else {
        mig::mig_labels(s, pool, &types, at, out);
        device_plugin::mig_without_mig_manager(s, pool, at, out);
        device_managers::device_plugin_sharing(s, pool, ctx, at, out);
        device_managers::operator_plugin_on_auto_mode(s, pool, at, out);
        device_managers::one_device_manager(s, pool, at, out);
        let all: Vec<_> = selected.iter().map(|s| s.t).collect();
        shared_counts::check(pool, &all, at, out);
    }
    dra::dra_supported(s, pool, ctx, at, out);
    dra::karpenter_dra_opt_in(pool, ctx, at, out);
    dra::karpenter_dra_existing_nodes(pool, ctx, at, out);
    static_capacity::check(s, pool, ctx, at, out);
    if !pool.is_neuron() {
        device_managers::nvidia_ami_without_plugin(s, pool, at, out);
    }
    network::check(pool, &selected, at, out);
    network::one_karpenter_layout(pool, &selected, at, out);
    if pool.efa {
        efa::efa_capable(pool, &selected, at, out);
        efa::efa_count_known(pool, &selected, out);
        efa::efa_one_zone(pool, at, out);
    }
    gb200::capacity_blocks_only(pool, at, out);
    gb200::mig_under_cdmm(pool, at, out);
    nvlink::nvlink_needs_dra(pool, at, out);
    nvlink::nvlink_needs_gb200(pool, &selected, at, out);
    nvlink::namespace_needs_nvlink(pool, at, out);
    nvlink::nvlink_on_node_groups(pool, at, out);
    dra_driver::bottlerocket_plugin_off(pool, at, out);
    upstream_node_class::check_pool(pool, &selected, at, out);
    limits::check(pool, &selected, at, out);
    gpu_taint(pool, at, out);
}

/// EKSGPU134: a NodePool template takes at most 100 labels (CRD `maxProperties`), the ones the
/// provider adds (render::effective_labels) counted.
fn node_pool_labels(s: &NodeStrategy, pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    if pool.capacity.is_in_cluster()
        && let Err(e) = crate::validate::node_pool_label_count(crate::render::effective_labels(s, pool).len())
    {
        out.push(Violation::new(
            Code::EKSGPU134,
            at(&[Step::Attr("labels")]),
            e.to_string(),
        ));
    }
}

/// EKSGPU106: capacity types and taint effects in Kubernetes spelling.
fn kubernetes_spelling(pool: &Pool, ctx: &Context, at: &At<'_>, out: &mut Vec<Violation>) {
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
                at(&[Step::Attr("taints"), Step::Index(j), Step::Attr("effect")]),
                format!("{:?} is not a Kubernetes taint effect.", t.effect),
            ));
        }
    }
}

/// EKSGPU104: a Karpenter pool renders an EC2NodeClass, which needs the nodes' IAM role or
/// an instance profile, exactly one of them (EC2NodeClass CRD v1.14.1 CEL rule).
fn karpenter_node_role(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    let nc = pool.node_class.as_ref();
    if pool.capacity == Capacity::Karpenter && nc.is_some_and(|nc| nc.role.is_some() && nc.instance_profile.is_some()) {
        out.push(Violation::new(
            Code::EKSGPU104,
            at(&[Step::Attr("node_class"), Step::Attr("instance_profile")]),
            format!("Pool {:?} sets both `role` and `instance_profile`.", pool.name),
        ));
    }
    // A pool that uses another pool's or tool's node class (`node_class_ref`) renders none.
    let renders = nc.is_some() || pool.node_class_ref.is_none();
    if pool.capacity == Capacity::Karpenter
        && renders
        && nc.is_none_or(|nc| nc.role.is_none() && nc.instance_profile.is_none())
    {
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
}

/// EKSGPU014: a GPU pool without a taint that keeps other pods off.
fn gpu_taint(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
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
