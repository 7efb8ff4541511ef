//! The standalone device plugin (`device_plugin {}`): what holds when the strategy runs NVIDIA's
//! device plugin chart instead of the GPU Operator (render/device_plugin.rs).

use std::collections::BTreeMap;

use crate::catalog::MigLayout;
use crate::model::{NodeStrategy, Pool};
use crate::render::device_plugin::{DEFAULT_CONFIG, serves};
use crate::render::{DEVICE_PLUGIN_CONFIG, MIG_CONFIG};
use crate::rules::{At, Code, Step, Violation};
use crate::sharing::handover;

/// EKSGPU183: `gpu_operator {}` and `device_plugin {}` together: each brings a device plugin for
/// the same nodes (the operator's own is its `devicePlugin` operand).
pub(super) fn one_plugin_installer(s: &NodeStrategy, out: &mut Vec<Violation>) {
    if s.gpu_operator.is_some() && s.device_plugin.is_some() {
        out.push(Violation::new(
            Code::EKSGPU183,
            vec![Step::Attr("device_plugin")],
            format!(
                "Strategy {:?} has both a gpu_operator and a device_plugin block.",
                s.name
            ),
        ));
    }
}

/// EKSGPU184: a MIG layout under the standalone plugin: the layout is applied by the GPU
/// Operator's MIG Manager, which this strategy does not install.
pub(super) fn mig_without_mig_manager(s: &NodeStrategy, pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    let Some(config) = pool.labels.get(MIG_CONFIG) else {
        return;
    };
    if s.device_plugin.is_some() && s.gpu_operator.is_none() && serves(s, pool) && MigLayout::parse(config).splits() {
        out.push(Violation::new(
            Code::EKSGPU184,
            at(&[Step::Attr("labels"), Step::Key(MIG_CONFIG.to_owned())]),
            format!(
                "Pool {:?} selects MIG layout {config:?} and the strategy runs the device plugin without the GPU Operator.",
                pool.name
            ),
        ));
    }
}

/// EKSGPU191: a device-plugin sharing config the standalone plugin's values cannot hold: named
/// `default` (the whole-GPU config's key), with no settings handed over (the label merged
/// without the sharing pool's `node_labels`), or one name with two settings.
pub(super) fn sharing_configs(s: &NodeStrategy, out: &mut Vec<Violation>) {
    if s.device_plugin.is_none() {
        return;
    }
    let mut seen: BTreeMap<&str, (&str, serde_json::Value)> = BTreeMap::new();
    for pool in s.pools.iter().filter(|p| serves(s, p)) {
        let Some(name) = pool.labels.get(DEVICE_PLUGIN_CONFIG) else {
            continue;
        };
        let path = crate::rules::pool_path(
            &pool.name,
            &[Step::Attr("labels"), Step::Key(DEVICE_PLUGIN_CONFIG.to_owned())],
        );
        let detail = if name == DEFAULT_CONFIG {
            Some(format!(
                "Pool {:?} selects config {name:?}, the key of the plugin's whole-GPU config.",
                pool.name
            ))
        } else {
            match handover::device_plugin_config_from_labels(&pool.labels) {
                None => Some(format!(
                    "Pool {:?} selects config {name:?}, but its labels carry none of the sharing pool's settings.",
                    pool.name
                )),
                Some(cfg) => match seen.get(name.as_str()) {
                    Some((first, was)) if *was != cfg => Some(format!(
                        "Pools {first:?} and {:?} select config {name:?} with different settings.",
                        pool.name
                    )),
                    Some(_) => None,
                    None => {
                        seen.insert(name, (&pool.name, cfg));
                        None
                    }
                },
            }
        };
        if let Some(d) = detail {
            out.push(Violation::new(Code::EKSGPU191, path, d));
        }
    }
}
