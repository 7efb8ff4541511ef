//! What one release of NVIDIA's DRA driver chart can serve. The provider renders one values
//! document per strategy (`dra_driver_values_yaml`), and one release is one kubelet-plugin
//! DaemonSet whose containers and driver root are release-wide
//! (kubernetes-sigs/dra-driver-nvidia-gpu v0.4.1 `deployments/helm/dra-driver-nvidia-gpu/templates/kubeletplugin.yaml`:
//! the `gpus` container is rendered when `resources.gpus.enabled`, the `compute-domains` one when
//! `resources.computeDomains.enabled`, both on every node of the DaemonSet's one affinity, and
//! `nvidiaDriverRoot` is one `NVIDIA_DRIVER_ROOT` and one `driver-root` hostPath).

use crate::model::{NodeStrategy, Pool};
use crate::render::{OPERATOR_DRIVER_ROOT, driver_pools, driver_root};
use crate::rules::{Code, Step, Violation};

/// EKSGPU145: a `multi_node_nvlink` pool (ComputeDomains from the DRA driver, GPUs from the
/// device plugin) beside a pool whose GPUs the DRA driver serves: the release's GPU kubelet plugin
/// then runs on the GB200 nodes too, beside the device plugin, which the chart forbids on one node
/// (v0.4.1 `templates/validation.yaml`, `gpuResourcesEnabledOverride`).
pub(super) fn gpu_plugin_beside_device_plugin(s: &NodeStrategy, out: &mut Vec<Violation>) {
    let pools: Vec<&Pool> = driver_pools(s).collect();
    let nvlink = pools.iter().find(|p| p.multi_node_nvlink);
    let gpus = pools.iter().find(|p| p.dra_serves_gpus());
    if let (Some(n), Some(g)) = (nvlink, gpus) {
        out.push(Violation::new(
            Code::EKSGPU145,
            crate::rules::pool_path(&g.name, &[Step::Attr("dra")]),
            format!(
                "Pool {:?} has the DRA driver serve its GPUs, so the strategy's one DRA driver release runs its GPU \
                 kubelet plugin on every node it serves, pool {:?}'s GB200 nodes included, whose GPUs the device \
                 plugin serves.",
                g.name, n.name
            ),
        ));
    }
}

/// EKSGPU146: one release has one `nvidiaDriverRoot`, so its pools' drivers must all be on the
/// host (`/`) or all the GPU Operator's (`/run/nvidia/driver`).
pub(super) fn one_driver_root(s: &NodeStrategy, out: &mut Vec<Violation>) {
    let pools: Vec<&Pool> = driver_pools(s).collect();
    let operator = pools.iter().find(|p| driver_root(s, p) == OPERATOR_DRIVER_ROOT);
    let host = pools.iter().find(|p| driver_root(s, p) != OPERATOR_DRIVER_ROOT);
    if let (Some(o), Some(h)) = (operator, host) {
        out.push(Violation::new(
            Code::EKSGPU146,
            crate::rules::pool_path(&o.name, &[Step::Attr("dra")]),
            format!(
                "Hybrid pool {:?} gets its driver from the GPU Operator ({OPERATOR_DRIVER_ROOT}) and pool {:?} has \
                 it on the host (/): the strategy's one DRA driver release reads the driver at one nvidiaDriverRoot.",
                o.name, h.name
            ),
        ));
    }
}
