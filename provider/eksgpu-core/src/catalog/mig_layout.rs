//! MIG profile names and layouts, parsed once and written in each of the forms
//! the GPU stack uses:
//! - NVIDIA's profile name (`nvidia-smi mig -lgip`): `1g.18gb+me`, `1g.24gb+gfx`,
//!   `1g.24gb-me`, `1g.24gb+me.all`;
//! - mig-parted config names and device-plugin resource names, where `+` is not
//!   allowed and is written `.`: `all-1g.18gb.me`, `nvidia.com/mig-1g.18gb.me`
//!   (NVIDIA/mig-parted v0.15.0 generated config names; NVIDIA/k8s-device-plugin
//!   v0.20.0 internal/rm/rm.go, MIG resource names).

use std::fmt;

/// One MIG profile, e.g. `1g.18gb+me`: compute slices, the rounded memory
/// figure of the name, and the attribute suffix (`+me`, `+gfx`, `-me`, `+me.all`, or none).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MigProfileName {
    pub compute_slices: u32,
    /// The "GB" of the name: NVIDIA's rounded figure, not a unit to compute with
    /// (the catalog holds the MiB the driver reports).
    pub name_gb: u32,
    /// As NVIDIA writes it, with `+`: `""`, `"+me"`, `"+gfx"`, `"-me"`, `"+me.all"`.
    pub suffix: String,
}

impl MigProfileName {
    /// Reads a profile in either form (`1g.18gb+me` or `1g.18gb.me`).
    pub fn parse(s: &str) -> Option<MigProfileName> {
        let (slices, rest) = s.split_once("g.")?;
        let compute_slices = slices.parse().ok()?;
        let gb_end = rest.find("gb")?;
        let name_gb = rest[..gb_end].parse().ok()?;
        let tail = &rest[gb_end + 2..];
        let suffix = match tail.strip_prefix('.') {
            // `.me`, `.gfx`, `.me.all`: the dotted form of `+…`.
            Some(t) => format!("+{t}"),
            None => tail.to_owned(),
        };
        let known = ["", "+me", "+gfx", "-me", "+me.all"];
        if !known.contains(&suffix.as_str()) || compute_slices == 0 {
            return None;
        }
        Some(MigProfileName {
            compute_slices,
            name_gb,
            suffix,
        })
    }

    /// A plain profile: no media extensions or graphics attribute.
    pub fn is_plain(&self) -> bool {
        self.suffix.is_empty()
    }

    /// The dotted form used by mig-parted config names and resource names.
    pub fn dotted(&self) -> String {
        self.to_string().replace('+', ".")
    }

    /// The extended resource the device plugin advertises under `mig.strategy: mixed`.
    pub fn resource_name(&self) -> String {
        format!("nvidia.com/mig-{}", self.dotted())
    }

    /// The mig-parted config that puts this profile on every GPU.
    pub fn config_name(&self) -> String {
        format!("all-{}", self.dotted())
    }
}

impl fmt::Display for MigProfileName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}g.{}gb{}", self.compute_slices, self.name_gb, self.suffix)
    }
}

/// A mig-parted config name as a node's `nvidia.com/mig.config` label selects it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MigLayout {
    /// `all-disabled`: MIG off.
    Disabled,
    /// `all-enabled`: MIG mode on, no instances.
    Enabled,
    /// `all-balanced`: the GPU's balanced mix of profiles.
    Balanced,
    /// `all-<profile>`: one profile at its full count on every GPU.
    All(MigProfileName),
    /// Any other name: a custom config this provider cannot see into.
    Custom(String),
}

impl MigLayout {
    pub fn parse(config: &str) -> MigLayout {
        match config {
            "all-disabled" => MigLayout::Disabled,
            "all-enabled" => MigLayout::Enabled,
            "all-balanced" => MigLayout::Balanced,
            c => match c.strip_prefix("all-").and_then(MigProfileName::parse) {
                Some(p) => MigLayout::All(p),
                None => MigLayout::Custom(c.to_owned()),
            },
        }
    }

    /// Some MIG instances exist under this layout.
    pub fn splits(&self) -> bool {
        !matches!(self, MigLayout::Disabled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms_parse_to_one_profile() {
        let plus = MigProfileName::parse("1g.18gb+me").unwrap();
        assert_eq!(MigProfileName::parse("1g.18gb.me"), Some(plus.clone()));
        assert_eq!(plus.to_string(), "1g.18gb+me");
        // k8s-device-plugin v0.20.0 internal/rm/rm.go: '+' is not legal in a resource name.
        assert_eq!(plus.resource_name(), "nvidia.com/mig-1g.18gb.me");
        assert_eq!(plus.config_name(), "all-1g.18gb.me");
        for (given, canonical) in [
            ("1g.24gb.gfx", "1g.24gb+gfx"),
            ("1g.24gb-me", "1g.24gb-me"),
            ("1g.24gb.me.all", "1g.24gb+me.all"),
            ("7g.141gb", "7g.141gb"),
        ] {
            assert_eq!(MigProfileName::parse(given).unwrap().to_string(), canonical);
        }
        for bad in ["", "1g", "xg.5gb", "1g.5gb+xx", "0g.5gb"] {
            assert_eq!(MigProfileName::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn layouts() {
        assert_eq!(MigLayout::parse("all-balanced"), MigLayout::Balanced);
        assert!(!MigLayout::parse("all-disabled").splits());
        assert_eq!(
            MigLayout::parse("all-1g.10gb.me"),
            MigLayout::All(MigProfileName::parse("1g.10gb+me").unwrap())
        );
        assert_eq!(MigLayout::parse("custom-a"), MigLayout::Custom("custom-a".into()));
    }
}
