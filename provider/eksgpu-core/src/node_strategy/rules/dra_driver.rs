//! What the NVIDIA DRA driver needs of the nodes it serves, beyond its Helm values
//! (`dra_driver_values_yaml`): EKS user guide, "Install the NVIDIA DRA driver"
//! (https://docs.aws.amazon.com/eks/latest/userguide/device-management-nvidia-dra-device-plugin.html).

use crate::model::{Capacity, Pool};
use crate::rules::{At, Code, Step, Violation};

/// Whether Bottlerocket user data (TOML) turns the built-in NVIDIA device plugin off:
/// `settings.kubelet-device-plugins.nvidia.enabled = false` (bottlerocket.dev settings
/// reference, `kubelet-device-plugins`), however the TOML spells it: a table header, dotted keys
/// from a parent table, or inline tables (TOML v1.0.0, "Keys", "Table", "Inline Table"). The
/// document is parsed, so a comment or a string that names the setting turns nothing off, and
/// user data that is not TOML turns nothing off either.
fn turns_plugin_off(user_data: &str) -> bool {
    let Ok(doc) = toml_edit::Document::parse(user_data) else {
        return false;
    };
    let enabled = doc
        .as_item()
        .get("settings")
        .and_then(|i| i.get("kubelet-device-plugins"))
        .and_then(|i| i.get("nvidia"))
        .and_then(|i| i.get("enabled"))
        .and_then(toml_edit::Item::as_bool);
    enabled == Some(false)
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
        // Inline tables, at any depth.
        assert!(turns_plugin_off(
            "settings.kubelet-device-plugins = { nvidia = { enabled = false } }\n"
        ));
        assert!(turns_plugin_off(
            "[settings]\nkubelet-device-plugins = { nvidia = { enabled = false, pass-device-specs = true } }\n"
        ));
        assert!(turns_plugin_off(
            "[settings.kubelet-device-plugins]\nnvidia = { enabled = false }\n"
        ));
        // A quoted key with dots is one key (TOML v1.0.0 "Keys"): not the setting.
        assert!(!turns_plugin_off(
            "[\"settings.kubelet-device-plugins.nvidia\"]\nenabled = false"
        ));
        // Named in a comment or a string, or not TOML: nothing is turned off.
        assert!(!turns_plugin_off(
            "# settings.kubelet-device-plugins.nvidia.enabled = false\n[settings.kernel]\nlockdown = \"none\"\n"
        ));
        assert!(!turns_plugin_off(
            "#!/bin/bash\necho settings.kubelet-device-plugins.nvidia.enabled=false\n"
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
