//! Checks of a pool's node class and capacity types that the Karpenter and
//! Auto Mode CRDs accept but that never give working GPU nodes.

use super::{Step, Violation, parse_version};
use crate::catalog::MigLayout;
use crate::model::{Capacity, NodeStrategy, Pool};
use crate::render::{DEVICE_PLUGIN_CONFIG, MIG_CONFIG};
use crate::rules::Code;

/// EKS published AL2 AMIs up to Kubernetes 1.32 (EKS user guide, "Amazon Linux 2 end of
/// support", https://docs.aws.amazon.com/eks/latest/userguide/eks-ami-deprecation-faqs.html).
const LAST_AL2_KUBERNETES: (u32, u32) = (1, 32);

/// Alias families with NVIDIA AMI variants that Karpenter selects by instance type
/// (karpenter-provider-aws v1.14.1 pkg/providers/amifamily: al2023.go, bottlerocket.go, al2.go);
/// the Windows families have none.
const GPU_ALIAS_FAMILIES: [&str; 3] = ["al2023", "bottlerocket", "al2"];

pub(super) fn check_pool(
    s: &NodeStrategy,
    pool: &Pool,
    ctx_karpenter: (u32, u32),
    at: &dyn Fn(&[Step]) -> Vec<Step>,
    out: &mut Vec<Violation>,
) {
    let nc_path = |a: &'static str| at(&[Step::Attr("node_class"), Step::Attr(a)]);
    if let Some(nc) = &pool.node_class
        && pool.capacity == Capacity::Karpenter
        && let Some(alias) = &nc.ami_alias
    {
        check_alias(s, alias, &nc_path("ami_alias"), out);
    }

    // EKSGPU120: the Auto Mode NodeClass requires the nodes' IAM role
    // (eks.amazonaws.com/v1 NodeClass `spec.role`, EKS user guide "Create a Node Class").
    if pool.capacity == Capacity::AutoMode && pool.node_class.as_ref().is_some_and(|nc| nc.role.is_none()) {
        out.push(Violation::new(
            Code::EKSGPU120,
            nc_path("role"),
            format!("Pool {:?} renders its own Auto Mode NodeClass.", pool.name),
        ));
    }

    // EKSGPU119: `reserved` launches only into capacity reservations the EC2NodeClass selects
    // (`capacityReservationSelectorTerms`, karpenter-provider-aws v1.3+); this provider does not
    // render that selection yet, so a pool of reserved capacity alone never launches a node.
    if pool.capacity.is_in_cluster()
        && !pool.capacity_types.is_empty()
        && pool.capacity_types.iter().all(|c| c == "reserved")
    {
        out.push(Violation::new(
            Code::EKSGPU119,
            at(&[Step::Attr("capacity_types")]),
            format!("Pool {:?} allows only reserved capacity.", pool.name),
        ));
    }

    // EKSGPU122: resources Karpenter cannot predict on dynamic capacity.
    let mixed_mig = s.gpu_operator.as_ref().is_some_and(|g| g.mig_strategy == "mixed")
        && pool
            .labels
            .get(MIG_CONFIG)
            .is_some_and(|c| MigLayout::parse(c).splits());
    let hami = pool.labels.get("gpu").is_some_and(|v| v == "on");
    if pool.capacity == Capacity::Karpenter && (mixed_mig || hami) {
        let (what, label) = if mixed_mig {
            (
                "MIG profiles under the mixed strategy (nvidia.com/mig-<profile>)",
                MIG_CONFIG,
            )
        } else {
            ("HAMi's shares (nvidia.com/gpumem, nvidia.com/gpucores)", "gpu")
        };
        out.push(Violation::new(
            Code::EKSGPU122,
            at(&[Step::Attr("labels"), Step::Key(label.to_owned())]),
            format!(
                "Pool {:?} serves {what}; {}",
                pool.name,
                node_overlay_note(ctx_karpenter)
            ),
        ));
    }

    // EKSGPU121: Bottlerocket's own device plugin takes its sharing settings from
    // `settings.kubelet-device-plugins.nvidia` (bottlerocket.dev v1.54), never from the
    // operator's ConfigMap: the label would select nothing.
    if pool.bottlerocket() && pool.labels.contains_key(DEVICE_PLUGIN_CONFIG) {
        out.push(Violation::new(
            Code::EKSGPU121,
            at(&[Step::Attr("labels"), Step::Key(DEVICE_PLUGIN_CONFIG.to_owned())]),
            format!("Pool {:?} runs Bottlerocket.", pool.name),
        ));
    }
}

/// EKSGPU118: `family@version`, a family with NVIDIA variants, and AL2 only where EKS has AMIs.
fn check_alias(s: &NodeStrategy, alias: &str, path: &[Step], out: &mut Vec<Violation>) {
    let mut push = |detail: String| out.push(Violation::new(Code::EKSGPU118, path.to_vec(), detail));
    // The EC2NodeClass CRD's own pattern (karpenter-provider-aws v1.14.1): `^[a-zA-Z0-9]+@.+$`.
    let Some((family, version)) = alias.split_once('@') else {
        push(format!(
            "{alias:?} has no @version (write {alias}@latest or pin a release)."
        ));
        return;
    };
    if family.is_empty() || version.is_empty() || !family.bytes().all(|b| b.is_ascii_alphanumeric()) {
        push(format!("{alias:?} is not family@version."));
        return;
    }
    if !GPU_ALIAS_FAMILIES.contains(&family) {
        push(format!("The {family} family has no NVIDIA AMI variant."));
        return;
    }
    if family == "al2"
        && let Some(v) = s.kubernetes_version.as_deref().and_then(parse_version)
        && v > LAST_AL2_KUBERNETES
    {
        push(format!("EKS publishes no AL2 AMIs for Kubernetes {}.{}.", v.0, v.1));
    }
}

/// Karpenter's NodeOverlay (`karpenter.sh/v1alpha1`, alpha since v1.7.0 behind the
/// `NodeOverlay` feature gate) is the only way to make it count such resources.
pub(crate) const NODE_OVERLAY_MINIMUM_KARPENTER: (u32, u32) = (1, 7);

pub(crate) fn node_overlay_note(karpenter: (u32, u32)) -> String {
    if karpenter >= NODE_OVERLAY_MINIMUM_KARPENTER {
        format!(
            "Karpenter {}.{} can count them only through a NodeOverlay (feature gate NodeOverlay).",
            karpenter.0, karpenter.1
        )
    } else {
        format!(
            "Karpenter {}.{} has no NodeOverlay (1.7+) to count them.",
            karpenter.0, karpenter.1
        )
    }
}
