//! Which GPU device manager runs on a pool's nodes: the device plugin (Auto
//! Mode's, Bottlerocket's or the GPU Operator's), the DRA driver or HAMi.
//! One per node, and at least one.

use crate::model::{Capacity, NodeStrategy, Pool};
use crate::render::{DEPLOY_DEVICE_PLUGIN, DEVICE_PLUGIN_CONFIG};
use crate::rules::{At, Code, Step, Violation};

fn label<'p>(pool: &'p Pool, k: &str) -> Option<&'p str> {
    pool.labels.get(k).map(String::as_str)
}

fn label_path(at: &At<'_>, k: &str) -> Vec<Step> {
    at(&[Step::Attr("labels"), Step::Key(k.to_owned())])
}

/// The pool is labelled for HAMi's scheduler (`gpu=on`).
fn hami(pool: &Pool) -> bool {
    label(pool, "gpu") == Some("on")
}

/// EKSGPU102 on Auto Mode, EKSGPU011 on Karpenter: device-plugin sharing (`nvidia.com/device-plugin.config`).
pub(super) fn device_plugin_sharing(
    s: &NodeStrategy,
    pool: &Pool,
    ctx: &super::Context,
    at: &At<'_>,
    out: &mut Vec<Violation>,
) {
    // A NodeOverlay advertising the replicas answers the Karpenter warning.
    if label(pool, DEVICE_PLUGIN_CONFIG).is_none()
        || (pool.capacity == Capacity::Karpenter && super::overlay::answered(s, pool))
    {
        return;
    }
    match pool.capacity {
        Capacity::AutoMode => out.push(Violation::new(
            Code::EKSGPU102,
            label_path(at, DEVICE_PLUGIN_CONFIG),
            format!("Pool {:?} is an Auto Mode pool.", pool.name),
        )),
        Capacity::Karpenter => out.push(Violation::new(
            Code::EKSGPU011,
            label_path(at, DEVICE_PLUGIN_CONFIG),
            format!(
                "Pool {:?} is a Karpenter pool. {}",
                pool.name,
                super::overlay::how_to_overlay(s, pool, ctx.karpenter_version)
            ),
        )),
        _ => {}
    }
}

/// EKSGPU010: the GPU Operator's device plugin switched on for Auto Mode nodes.
pub(super) fn operator_plugin_on_auto_mode(s: &NodeStrategy, pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    let plugin_label = label(pool, DEPLOY_DEVICE_PLUGIN);
    if pool.capacity == Capacity::AutoMode && s.gpu_operator.is_some() && plugin_label.is_some_and(|v| v != "false") {
        out.push(Violation::new(
            Code::EKSGPU010,
            label_path(at, DEPLOY_DEVICE_PLUGIN),
            format!(
                "The label is {:?} on Auto Mode pool {:?}.",
                plugin_label.unwrap_or_default(),
                pool.name
            ),
        ));
    }
}

/// EKSGPU017: two device managers on the same nodes.
pub(super) fn one_device_manager(s: &NodeStrategy, pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    let plugin_label = label(pool, DEPLOY_DEVICE_PLUGIN);
    let hami = hami(pool);
    if pool.dra_serves_gpus() && plugin_label.is_some_and(|v| v != "false") {
        out.push(Violation::new(
            Code::EKSGPU017,
            at(&[Step::Attr("dra")]),
            "This pool serves DRA claims and keeps the device plugin on.".into(),
        ));
    }
    // The DRA driver owns a DRA pool's GPUs: a device-plugin sharing config there would bring the
    // device plugin back next to it (EKS user guide, DRA: no DRA driver and device plugin on one node).
    if pool.dra_serves_gpus() && label(pool, DEVICE_PLUGIN_CONFIG).is_some() {
        out.push(Violation::new(
            Code::EKSGPU017,
            label_path(at, DEVICE_PLUGIN_CONFIG),
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
    let auto = pool.capacity == Capacity::AutoMode;
    let bottlerocket = pool.bottlerocket();
    let operator = s.gpu_operator.is_some();
    if hami && (auto || bottlerocket || (operator && plugin_label != Some("false"))) {
        let why = if auto {
            "HAMi cannot replace Auto Mode's built-in device plugin.".to_owned()
        } else if bottlerocket {
            "HAMi would run next to Bottlerocket's built-in device plugin.".to_owned()
        } else {
            "HAMi would run next to the GPU Operator's device plugin.".to_owned()
        };
        out.push(Violation::new(Code::EKSGPU017, label_path(at, "gpu"), why));
    }
}

/// EKSGPU132: an AL2023 (or AL2) NVIDIA node has the driver but no device plugin: without the
/// GPU Operator, the standalone device plugin (`device_plugin {}`) or another device manager its
/// GPUs are never advertised.
pub(super) fn nvidia_ami_without_plugin(s: &NodeStrategy, pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    if s.gpu_operator.is_none()
        && s.device_plugin.is_none()
        && !pool.dra_serves_gpus()
        && !hami(pool)
        && !pool.bottlerocket()
        && runs_eks_nvidia_ami(pool)
    {
        out.push(Violation::new(
            Code::EKSGPU132,
            at(&[Step::Attr("capacity")]),
            format!(
                "Pool {:?} runs the EKS NVIDIA AMI, which has no device plugin, and the strategy has neither a gpu_operator nor a device_plugin block.",
                pool.name
            ),
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
