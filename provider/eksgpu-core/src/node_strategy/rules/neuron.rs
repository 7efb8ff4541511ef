//! AWS Neuron pools: what the NVIDIA stack's labels would mean there, and which Neuron device
//! manager one release of the Neuron Helm chart can run for the strategy.

use crate::catalog::{self, Vendor};
use crate::model::{Capacity, NodeStrategy, Pool};
use crate::render::{DEPLOY_DEVICE_PLUGIN, DEVICE_PLUGIN_CONFIG, MIG_CONFIG};
use crate::rules::{At, Code, Step, Violation};

/// Labels only the NVIDIA stack reads: MIG Manager's layout, the device plugin's sharing config,
/// HAMi's `gpu=on`, and the GPU Operator's per-node switches (`nvidia.com/gpu.deploy.*`).
fn nvidia_stack_label(k: &str, v: &str) -> bool {
    k == MIG_CONFIG
        || k == DEVICE_PLUGIN_CONFIG
        || k == DEPLOY_DEVICE_PLUGIN
        || k.starts_with("nvidia.com/gpu.deploy.")
        || (k == "gpu" && v == "on")
}

/// EKSGPU152: a Neuron pool labelled for the NVIDIA stack (MIG, time-slicing, MPS, HAMi, GPU
/// Operator operands): nothing on a Neuron node serves such a label.
pub(super) fn nvidia_labels_on_neuron(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    if pool.vendor() != Vendor::Neuron {
        return;
    }
    for (k, v) in pool.labels.iter().filter(|(k, v)| nvidia_stack_label(k, v)) {
        out.push(Violation::new(
            Code::EKSGPU152,
            at(&[Step::Attr("labels"), Step::Key(k.clone())]),
            format!(
                "Pool {:?} is a Neuron pool; {k}={v} is read only by the NVIDIA GPU stack.",
                pool.name
            ),
        ));
    }
}

/// The Neuron DRA driver of the Neuron Helm chart runs on Trainium only: its DaemonSet's
/// affinity drops every `inf*` type from `neuronInstances` (aws-neuron/neuron-helm-charts
/// charts/neuron-helm-chart/templates/_helpers.tpl, `neuron-dra-driver.affinity`, chart 1.10.0).
fn dra_driver_runs_on(instance_type: &str) -> bool {
    !catalog::instance_family(instance_type).starts_with("inf")
}

/// EKSGPU004 on Neuron pools: the Neuron DRA driver needs Kubernetes 1.34 (as every DRA pool),
/// does not run on Auto Mode, and serves Trainium only (EKS user guide, Neuron device
/// management: https://docs.aws.amazon.com/eks/latest/userguide/device-management-neuron.html).
pub(super) fn neuron_dra_supported(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    if !pool.dra || pool.vendor() != Vendor::Neuron {
        return;
    }
    if pool.capacity == Capacity::AutoMode {
        out.push(Violation::new(
            Code::EKSGPU004,
            at(&[Step::Attr("dra")]),
            format!(
                "Pool {:?} is an Auto Mode Neuron pool: Auto Mode runs its own Neuron device plugin, not the Neuron DRA driver.",
                pool.name
            ),
        ));
    }
    for (j, t) in pool
        .instance_types
        .iter()
        .enumerate()
        .filter(|(_, t)| !dra_driver_runs_on(t))
    {
        out.push(Violation::new(
            Code::EKSGPU004,
            at(&[Step::Attr("instance_types"), Step::Index(j)]),
            format!("The Neuron DRA driver runs on Trainium types only, not on {t}."),
        ));
    }
}

/// Whether the Neuron chart's device plugin serves `pool`: a Neuron pool on Karpenter or a node
/// group without `dra` (Auto Mode runs its own, and the chart's affinity skips its nodes).
pub fn uses_neuron_device_plugin(pool: &Pool) -> bool {
    pool.vendor() == Vendor::Neuron
        && !pool.dra
        && matches!(pool.capacity, Capacity::Karpenter | Capacity::ManagedNodeGroup)
}

/// Whether the Neuron chart's DRA driver serves `pool`.
pub fn uses_neuron_dra_driver(pool: &Pool) -> bool {
    pool.vendor() == Vendor::Neuron && pool.dra && pool.capacity != Capacity::AutoMode
}

/// EKSGPU153: one release of the Neuron Helm chart runs the device plugin or the DRA driver,
/// never both (its `neuron-helm-chart.validateConfig` fails the install), so `neuron_values_yaml`
/// cannot serve device-plugin and DRA Neuron pools at once.
pub(super) fn one_neuron_device_manager(s: &NodeStrategy, out: &mut Vec<Violation>) {
    let plugin = s.pools.iter().position(uses_neuron_device_plugin);
    let dra = s.pools.iter().position(uses_neuron_dra_driver);
    if let (Some(p), Some(d)) = (plugin, dra) {
        out.push(Violation::new(
            Code::EKSGPU153,
            crate::rules::pool_path(&s.pools[d].name, &[Step::Attr("dra")]),
            format!(
                "Neuron pool {:?} needs the Neuron device plugin and Neuron pool {:?} the Neuron DRA driver.",
                s.pools[p].name, s.pools[d].name
            ),
        ));
    }
}
