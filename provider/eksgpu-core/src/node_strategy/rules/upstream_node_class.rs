//! Checks of the node-class inputs upstream EC2NodeClasses use: user data against the
//! kubelet settings the provider renders, block device mappings beside the root volume, and
//! network interfaces against the CRD's rules and the types' EFA interfaces.

use super::instance_types::Selected;
use crate::model::{Capacity, NodeClass, Pool};
use crate::rules::{At, Code, Step, Violation};

/// The node-class checks on a Karpenter pool (the Auto Mode NodeClass takes none of these
/// inputs: EKSGPU124 refuses them there).
pub(super) fn check_pool(pool: &Pool, types: &[Selected], at: &At<'_>, out: &mut Vec<Violation>) {
    let Some(nc) = pool
        .node_class
        .as_ref()
        .filter(|_| pool.capacity == Capacity::Karpenter)
    else {
        return;
    };
    user_data_conflicts(pool, nc, at, out);
    block_device_mappings(pool, nc, at, out);
    network_interfaces(nc, at, out);
    efa_only_interfaces(nc, types, at, out);
}

/// Each kubelet setting the provider renders, with how user data spells it: nodeadm
/// `NodeConfig` (`spec.kubelet.config`, AL2023), Bottlerocket TOML (`settings.kubernetes`),
/// and the AL2 bootstrap flag (nodeadm API reference, awslabs/amazon-eks-ami v20250715 doc/api.md;
/// Bottlerocket settings reference bottlerocket.dev v1.54 `settings.kubernetes`).
const KUBELET_SPELLINGS: [(&str, [&str; 3]); 2] = [
    ("kubelet.max_pods", ["maxPods", "max-pods", "--max-pods"]),
    (
        "kubelet.eviction_hard",
        ["evictionHard", "eviction-hard", "--eviction-hard"],
    ),
];

/// EKSGPU174: user data that also sets a kubelet setting the pool's `kubelet` block sets.
fn user_data_conflicts(pool: &Pool, nc: &NodeClass, at: &At<'_>, out: &mut Vec<Violation>) {
    let (Some(user_data), Some(kubelet)) = (nc.user_data.as_deref(), nc.kubelet.as_ref()) else {
        return;
    };
    let set = [kubelet.max_pods.is_some(), !kubelet.eviction_hard.is_empty()];
    for ((input, spellings), set) in KUBELET_SPELLINGS.iter().zip(set) {
        if let Some(found) = spellings.iter().find(|s| set && sets_setting(user_data, s)) {
            out.push(Violation::new(
                Code::EKSGPU174,
                at(&[Step::Attr("node_class"), Step::Attr("user_data")]),
                format!(
                    "Pool {:?}'s user data sets `{found}` and `{input}` is set too.",
                    pool.name
                ),
            ));
        }
    }
}

/// User data sets the setting: the name as a key or a flag, outside comments. A YAML/JSON key
/// (`maxPods:`, `"maxPods":`, nodeadm NodeConfig), a TOML key (`max-pods =`, dotted
/// `settings.kubernetes.max-pods =`, Bottlerocket), or a flag with its value (`--max-pods=110`,
/// `--max-pods 110`, AL2 bootstrap.sh `--kubelet-extra-args`). A comment or prose that names the
/// setting (`# maxPods comes from the EC2NodeClass`) sets nothing.
fn sets_setting(user_data: &str, name: &str) -> bool {
    user_data.lines().map(uncommented).any(|line| {
        line.match_indices(name).any(|(i, _)| {
            let before = line[..i].chars().next_back();
            let bounded = before.is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'));
            let after = line[i + name.len()..].trim_start_matches('"').trim_start_matches('\'');
            let flag = name.starts_with("--");
            let assigned = after.trim_start().starts_with([':', '=']) && !after.starts_with("==");
            let flag_value =
                flag && (after.starts_with('=') || (after.starts_with([' ', '\t']) && !after.trim_start().is_empty()));
            bounded && (if flag { flag_value } else { assigned })
        })
    })
}

/// The line without its comment: `#` at the start or after whitespace opens one in shell, YAML
/// and TOML alike (a `#` inside a word, as in a URL fragment, does not).
fn uncommented(line: &str) -> &str {
    let bytes = line.as_bytes();
    let cut = (0..bytes.len()).find(|&i| bytes[i] == b'#' && (i == 0 || bytes[i - 1].is_ascii_whitespace()));
    cut.map_or(line, |i| &line[..i])
}

/// EKSGPU175: a size or a snapshot for each mapping, each device once, none of the devices the
/// root volume renders (EC2NodeClass CRD v1.14.1 CEL rule; render::karpenter block_device_mappings).
fn block_device_mappings(pool: &Pool, nc: &NodeClass, at: &At<'_>, out: &mut Vec<Violation>) {
    let root_device = nc
        .root_volume
        .as_ref()
        .map(|_| if pool.bottlerocket() { "/dev/xvdb" } else { "/dev/xvda" });
    for (j, m) in nc.block_device_mappings.iter().enumerate() {
        let path = at(&[
            Step::Attr("node_class"),
            Step::Attr("block_device_mappings"),
            Step::Index(j),
        ]);
        let mut push = |detail: String| out.push(Violation::new(Code::EKSGPU175, path.clone(), detail));
        if m.volume_size.is_none() && m.snapshot_id.is_none() {
            push(format!(
                "Mapping {j} ({}) has neither `volume_size` nor `snapshot_id`.",
                m.device_name
            ));
        }
        if nc.block_device_mappings[..j]
            .iter()
            .any(|o| o.device_name == m.device_name)
        {
            push(format!("Device {} is mapped twice.", m.device_name));
        }
        if root_device == Some(m.device_name.as_str()) {
            push(format!("`root_volume` already renders {}.", m.device_name));
        }
    }
}

/// EKSGPU176: the CRD's rules on `networkInterfaces` (v1.14.1): a primary interface, each
/// card/device pair once, at most one `efa-only` per card.
fn network_interfaces(nc: &NodeClass, at: &At<'_>, out: &mut Vec<Violation>) {
    let nis = &nc.network_interfaces;
    if nis.is_empty() {
        return;
    }
    let base = || at(&[Step::Attr("node_class"), Step::Attr("network_interfaces")]);
    let primary = nis
        .iter()
        .any(|n| n.network_card_index == 0 && n.device_index == 0 && n.interface_type == "interface");
    if !primary {
        out.push(Violation::new(
            Code::EKSGPU176,
            base(),
            "No primary interface (card 0, device 0, `interface`).".into(),
        ));
    }
    for (j, n) in nis.iter().enumerate() {
        let earlier = &nis[..j];
        let twice = earlier
            .iter()
            .any(|o| o.network_card_index == n.network_card_index && o.device_index == n.device_index);
        let efa_twice = n.interface_type == "efa-only"
            && earlier
                .iter()
                .any(|o| o.network_card_index == n.network_card_index && o.interface_type == "efa-only");
        if twice || efa_twice {
            let mut path = base();
            path.push(Step::Index(j));
            let what = if twice {
                "card/device pair"
            } else {
                "efa-only interface on the card"
            };
            out.push(Violation::new(
                Code::EKSGPU176,
                path,
                format!("Interface {j} repeats a {what} (card {}).", n.network_card_index),
            ));
        }
    }
}

/// EKSGPU126: `efa-only` interfaces need EFA types with at least as many EFA interfaces
/// (EC2 DescribeInstanceTypes `EfaInfo.MaximumEfaInterfaces`, the catalog's `efa_interfaces`).
fn efa_only_interfaces(nc: &NodeClass, types: &[Selected], at: &At<'_>, out: &mut Vec<Violation>) {
    let wanted = nc
        .network_interfaces
        .iter()
        .filter(|n| n.interface_type == "efa-only")
        .count();
    if wanted == 0 {
        return;
    }
    for s in types {
        if let Some(have) = s.t.efa_interfaces
            && u64::from(have) < wanted as u64
        {
            out.push(Violation::new(
                Code::EKSGPU126,
                at(&[Step::Attr("node_class"), Step::Attr("network_interfaces")]),
                format!(
                    "{} has {have} EFA interfaces; the node class asks for {wanted} efa-only ones.",
                    s.t.name
                ),
            ));
        }
    }
}
