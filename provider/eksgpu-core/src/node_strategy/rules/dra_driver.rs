//! What the NVIDIA DRA driver needs of the nodes it serves, beyond its Helm values
//! (`dra_driver_values_yaml`): EKS user guide, "Install the NVIDIA DRA driver"
//! (https://docs.aws.amazon.com/eks/latest/userguide/device-management-nvidia-dra-device-plugin.html).

use crate::model::{Capacity, Pool};
use crate::rules::{At, Code, Step, Violation};

/// Whether Bottlerocket user data (TOML) turns the built-in NVIDIA device plugin off:
/// `enabled = false` under `[settings.kubelet-device-plugins.nvidia]`, or the same key written
/// dotted from a parent table (bottlerocket.dev settings reference, `kubelet-device-plugins`).
fn turns_plugin_off(user_data: &str) -> bool {
    const KEY: &str = "settings.kubelet-device-plugins.nvidia.enabled";
    let mut table = String::new();
    for line in user_data.lines() {
        let line: String = line.split('#').next().unwrap_or_default().split_whitespace().collect();
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            table = header.trim_matches('"').to_owned();
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let full = if table.is_empty() {
            key.to_owned()
        } else {
            format!("{table}.{key}")
        };
        if full.replace('"', "") == KEY && value == "false" {
            return true;
        }
    }
    false
}

/// EKSGPU189: Bottlerocket's NVIDIA variants run their own device plugin, which must be turned
/// off (`settings.kubelet-device-plugins.nvidia.enabled = false`, Bottlerocket 1.63.0 or later)
/// before the DRA driver serves the node's GPUs: otherwise both hand out the same GPUs.
pub(super) fn bottlerocket_plugin_off(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    if !pool.dra_serves_gpus() || !pool.bottlerocket() || pool.capacity == Capacity::AutoMode || pool.is_neuron() {
        return;
    }
    let user_data = pool.node_class.as_ref().and_then(|nc| nc.user_data.as_deref());
    if user_data.is_some_and(turns_plugin_off) {
        return;
    }
    let path = if user_data.is_some() {
        at(&[Step::Attr("node_class"), Step::Attr("user_data")])
    } else {
        at(&[Step::Attr("dra")])
    };
    out.push(Violation::new(
        Code::EKSGPU189,
        path,
        format!(
            "Pool {:?} runs Bottlerocket, whose device plugin is not turned off for the DRA driver.",
            pool.name
        ),
    ));
}

#[cfg(test)]
mod tests {
    use super::turns_plugin_off;

    #[test]
    fn the_setting_in_each_toml_spelling() {
        assert!(turns_plugin_off(
            "[settings.kubelet-device-plugins.nvidia]\nenabled = false\n"
        ));
        assert!(turns_plugin_off(
            "[settings]\nkubelet-device-plugins.nvidia.enabled = false # DRA\n"
        ));
        assert!(turns_plugin_off("settings.kubelet-device-plugins.nvidia.enabled=false"));
        assert!(turns_plugin_off(
            "[\"settings.kubelet-device-plugins.nvidia\"]\nenabled = false"
        ));
        assert!(!turns_plugin_off(
            "[settings.kubelet-device-plugins.nvidia]\nenabled = true\n"
        ));
        assert!(!turns_plugin_off("[settings.kubernetes]\nenabled = false\n"));
        assert!(!turns_plugin_off(
            "# settings.kubelet-device-plugins.nvidia.enabled = false"
        ));
    }
}
