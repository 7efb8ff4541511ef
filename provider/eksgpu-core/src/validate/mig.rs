//! MIG config names: what a node's `nvidia.com/mig.config` label may select.

use super::{Validation, ValidationError};
use crate::catalog::MigLayout;

const MIG_CONFIGS: &str = "NVIDIA/gpu-operator assets/state-mig-manager/0400_configmap.yaml (default-mig-parted-config: \
     all-disabled, all-enabled, all-balanced, all-<profile> with '+' written '.') and NVIDIA/mig-parted \
     pkg/mig/builder (the config mig-manager generates, same names)";

/// A mig-parted config name the GPU Operator's mig-manager knows without a
/// custom ConfigMap (the provider renders none): `all-disabled`, `all-enabled`,
/// `all-balanced`, or `all-<profile>` in the dotted form (`all-1g.18gb.me`).
/// Any other name leaves the node at `nvidia.com/mig.config.state=failed`.
/// Whether the GPU has that profile is checked against the catalog (EKSGPU003).
pub fn mig_config_name(s: &str) -> Validation {
    let known = match MigLayout::parse(s) {
        MigLayout::Disabled | MigLayout::Enabled | MigLayout::Balanced => true,
        // The `+` form (`all-1g.18gb+me`) parses too, but no config is named so.
        MigLayout::All(p) => p.config_name() == s,
        MigLayout::Custom(_) => false,
    };
    if known {
        return Ok(());
    }
    Err(ValidationError::new(
        format!("{s:?} is not a MIG config the GPU Operator's mig-manager defines."),
        "all-disabled, all-enabled, all-balanced, or all-<profile> such as all-1g.10gb or all-1g.18gb.me",
        MIG_CONFIGS,
    ))
}

#[cfg(test)]
mod tests {
    use super::mig_config_name;

    #[test]
    fn names_mig_manager_defines() {
        for ok in [
            "all-disabled",
            "all-enabled",
            "all-balanced",
            "all-1g.10gb",
            "all-1g.18gb.me",
            "all-7g.141gb",
            "all-1g.24gb.gfx",
            "all-1g.24gb-me",
            "all-1g.24gb.me.all",
        ] {
            assert!(mig_config_name(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "garbage",
            "all",
            "all-",
            "all-garbage",
            "all-1g.18gb+me",
            "ALL-DISABLED",
            "all-0g.5gb",
            "custom-a",
        ] {
            assert!(mig_config_name(bad).is_err(), "{bad}");
        }
    }
}
