//! Checks of a pool's node class and capacity types that the Karpenter and
//! Auto Mode CRDs accept but that never give working GPU nodes.

use crate::catalog::MigLayout;
use crate::model::{Capacity, CapacityReservationTerm, NodeStrategy, Pool};
use crate::render::{DEVICE_PLUGIN_CONFIG, MIG_CONFIG};
use crate::rules::Code;
use crate::rules::{At, Step, Violation, parse_version};

/// EKS published AL2 AMIs up to Kubernetes 1.32 (EKS user guide, "Amazon Linux 2 end of
/// support", https://docs.aws.amazon.com/eks/latest/userguide/eks-ami-deprecation-faqs.html).
const LAST_AL2_KUBERNETES: (u32, u32) = (1, 32);

/// Alias families with NVIDIA AMI variants that Karpenter selects by instance type
/// (karpenter-provider-aws v1.14.1 pkg/providers/amifamily: al2023.go, bottlerocket.go, al2.go);
/// the Windows families have none.
const GPU_ALIAS_FAMILIES: [&str; 3] = ["al2023", "bottlerocket", "al2"];

/// The node class and capacity-type checks, one function per rule code, in the order they report.
pub(super) fn check_pool(
    s: &NodeStrategy,
    pool: &Pool,
    ctx_karpenter: (u32, u32),
    at: &At<'_>,
    out: &mut Vec<Violation>,
) {
    if let Some(nc) = &pool.node_class
        && pool.capacity == Capacity::Karpenter
        && let Some(alias) = &nc.ami_alias
    {
        check_alias(
            s,
            alias,
            ctx_karpenter,
            &at(&[Step::Attr("node_class"), Step::Attr("ami_alias")]),
            out,
        );
    }
    auto_mode_node_role(pool, at, out);
    let reservations = pool
        .node_class
        .as_ref()
        .map_or(&[][..], |nc| &nc.capacity_reservations[..]);
    reserved_without_reservations(pool, reservations, at, out);
    reservations_without_reserved(pool, reservations, at, out);
    reservation_terms(reservations, at, out);
    unpredictable_resources(s, pool, ctx_karpenter, at, out);
    image_volume(pool, at, out);
    bottlerocket_sharing_label(pool, at, out);
}

/// EKSGPU120: the Auto Mode NodeClass requires the nodes' IAM role
/// (eks.amazonaws.com/v1 NodeClass `spec.role`, EKS user guide "Create a Node Class").
fn auto_mode_node_role(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    if pool.capacity == Capacity::AutoMode && pool.node_class.as_ref().is_some_and(|nc| nc.role.is_none()) {
        out.push(Violation::new(
            Code::EKSGPU120,
            at(&[Step::Attr("node_class"), Step::Attr("role")]),
            format!("Pool {:?} renders its own Auto Mode NodeClass.", pool.name),
        ));
    }
}

/// EKSGPU119: `reserved` launches only into capacity reservations the node class selects
/// (`capacityReservationSelectorTerms`, karpenter-provider-aws v1.3+): a pool of reserved
/// capacity alone, selecting none, never launches a node.
fn reserved_without_reservations(
    pool: &Pool,
    reservations: &[CapacityReservationTerm],
    at: &At<'_>,
    out: &mut Vec<Violation>,
) {
    if pool.capacity.is_in_cluster()
        && !pool.capacity_types.is_empty()
        && pool.capacity_types.iter().all(|c| c == "reserved")
        && reservations.is_empty()
    {
        out.push(Violation::new(
            Code::EKSGPU119,
            at(&[Step::Attr("capacity_types")]),
            format!("Pool {:?} allows only reserved capacity.", pool.name),
        ));
    }
}

/// EKSGPU128: reservations selected, but the NodePool does not allow `reserved` capacity, so
/// Karpenter never launches into them (karpenter.sh/capacity-type requirement).
fn reservations_without_reserved(
    pool: &Pool,
    reservations: &[CapacityReservationTerm],
    at: &At<'_>,
    out: &mut Vec<Violation>,
) {
    if pool.capacity.is_in_cluster() && !reservations.is_empty() && !pool.capacity_types.iter().any(|c| c == "reserved")
    {
        out.push(Violation::new(
            Code::EKSGPU128,
            at(&[Step::Attr("capacity_types")]),
            format!(
                "Pool {:?} selects capacity reservations but does not allow reserved capacity.",
                pool.name
            ),
        ));
    }
}

/// EKSGPU129: each selector term as the CRD's CEL rules accept it.
fn reservation_terms(reservations: &[CapacityReservationTerm], at: &At<'_>, out: &mut Vec<Violation>) {
    for (j, t) in reservations.iter().enumerate() {
        let path = at(&[
            Step::Attr("node_class"),
            Step::Attr("capacity_reservations"),
            Step::Index(j),
        ]);
        let others = !t.tags.is_empty() || t.owner_id.is_some() || t.instance_match_criteria.is_some();
        if t.id.is_some() && others {
            out.push(Violation::new(
                Code::EKSGPU129,
                path,
                format!("Term {j} sets `id` with other fields; `id` selects one reservation alone."),
            ));
        } else if t.id.is_none() && t.tags.is_empty() && t.instance_match_criteria.is_none() {
            out.push(Violation::new(
                Code::EKSGPU129,
                path,
                format!("Term {j} selects nothing: set `id`, `tags` or `instance_match_criteria`."),
            ));
        }
    }
}

/// EKSGPU122: resources Karpenter cannot predict on dynamic capacity.
fn unpredictable_resources(
    s: &NodeStrategy,
    pool: &Pool,
    ctx_karpenter: (u32, u32),
    at: &At<'_>,
    out: &mut Vec<Violation>,
) {
    let mixed_mig = s.mig_strategy() == Some("mixed")
        && pool
            .labels
            .get(MIG_CONFIG)
            .is_some_and(|c| MigLayout::parse(c).splits());
    let hami = pool.labels.get("gpu").is_some_and(|v| v == "on");
    // On a Neuron pool these labels are EKSGPU152's error: nothing serves them there.
    if pool.capacity == Capacity::Karpenter
        && !pool.is_neuron()
        && (mixed_mig || hami)
        && !super::overlay::answered(s, pool)
    {
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
                super::overlay::how_to_overlay(s, pool, ctx_karpenter)
            ),
        ));
    }
}

/// EKSGPU123: a GPU pool whose image volume cannot hold inference images.
fn image_volume(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    if pool.capacity.is_in_cluster()
        && let Some(detail) = small_image_volume(pool)
    {
        let path = if pool.node_class.as_ref().is_some_and(|nc| nc.root_volume.is_some()) {
            at(&[Step::Attr("node_class"), Step::Attr("root_volume"), Step::Attr("size")])
        } else if pool.node_class.is_some() {
            at(&[Step::Attr("node_class"), Step::Attr("root_volume")])
        } else {
            at(&[Step::Attr("node_class")])
        };
        out.push(Violation::new(Code::EKSGPU123, path, detail));
    }
}

/// EKSGPU121: Bottlerocket's own device plugin takes its sharing settings from
/// `settings.kubelet-device-plugins.nvidia` (bottlerocket.dev v1.54), never from the
/// operator's ConfigMap: the label would select nothing.
fn bottlerocket_sharing_label(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    if pool.bottlerocket() && pool.labels.contains_key(DEVICE_PLUGIN_CONFIG) {
        out.push(Violation::new(
            Code::EKSGPU121,
            at(&[Step::Attr("labels"), Step::Key(DEVICE_PLUGIN_CONFIG.to_owned())]),
            format!("Pool {:?} runs Bottlerocket.", pool.name),
        ));
    }
}

/// Inference images are 10–30 GB, and pulling one needs room for the compressed layers and the
/// unpacked ones: below this, a GPU node fills its image disk (EKS best practices, AI/ML compute:
/// container image sizes).
pub const MIN_GPU_IMAGE_VOLUME_GIB: f64 = 30.0;

/// Karpenter's default root (AL2023 `/dev/xvda`) or data (Bottlerocket `/dev/xvdb`) volume
/// without `blockDeviceMappings` (karpenter-provider-aws v1.14.1 pkg/providers/amifamily
/// al2023.go and bottlerocket.go, DefaultBlockDeviceMappings: 20Gi).
pub(crate) const KARPENTER_DEFAULT_VOLUME_GIB: f64 = 20.0;

/// A volume size in GiB (`200Gi`, `100G`, `1Ti`), or `None` if it is not a size.
pub(crate) fn volume_gib(s: &str) -> Option<f64> {
    let (positive, number, suffix) = crate::validate::quantity_parts(s).ok()?;
    let n: f64 = number.parse().ok()?;
    let bytes = match suffix {
        "" => 1.0,
        "Ki" => 1024.0,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        "Ti" => 1024f64.powi(4),
        "Pi" => 1024f64.powi(5),
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        _ => return None,
    };
    positive.then(|| n * bytes / 1024f64.powi(3))
}

/// EKSGPU123: where the pool's container images land, and whether it is big enough. `None`
/// when it is: an explicit size of 30 GiB or more, Auto Mode's 80Gi default, or
/// instance-store RAID0 on types that have an instance store (images then go to the NVMe
/// array; on a type without one Karpenter builds no array and they stay on the volume).
pub(crate) fn small_image_volume(pool: &Pool) -> Option<String> {
    let nc = pool.node_class.as_ref();
    let size = nc
        .and_then(|nc| nc.root_volume.as_ref())
        .and_then(|r| r.size.as_deref());
    let gib = match size {
        Some(s) => volume_gib(s)?,
        None if pool.capacity == Capacity::Karpenter => KARPENTER_DEFAULT_VOLUME_GIB,
        None => return None,
    };
    if gib >= MIN_GPU_IMAGE_VOLUME_GIB {
        return None;
    }
    let raid0 =
        pool.capacity == Capacity::Karpenter && nc.and_then(|nc| nc.instance_store_policy.as_deref()) == Some("RAID0");
    let no_store = if raid0 {
        without_instance_store(pool)
    } else {
        Vec::new()
    };
    if raid0 && no_store.is_empty() {
        return None;
    }
    let volume = if pool.bottlerocket() {
        "data volume (/dev/xvdb)"
    } else {
        "root volume"
    };
    let mut detail = match size {
        Some(s) => format!("Pool {:?} has a {s} {volume}.", pool.name),
        None => format!("Pool {:?} keeps Karpenter's default 20Gi {volume}.", pool.name),
    };
    if raid0 {
        detail.push_str(&format!(
            " instance_store_policy = \"RAID0\" does nothing on {}: no instance store, so images land on that volume.",
            no_store.join(", ")
        ));
    }
    Some(detail)
}

/// The pool's types that EC2 builds with no instance store (catalog `local_nvme_gb` = 0, as
/// Karpenter's `karpenter.k8s.aws/instance-local-nvme` label reports it); types whose store is
/// not known are left out, so that RAID0 on them stays silent.
fn without_instance_store(pool: &Pool) -> Vec<&'static str> {
    let types: Vec<&'static crate::catalog::InstanceType> = match crate::node_strategy::matching::matched(pool) {
        Some(m) => m.types,
        None => pool
            .instance_types
            .iter()
            .filter_map(|t| crate::catalog::instance_type(t))
            .collect(),
    };
    types
        .into_iter()
        .filter(|t| t.local_nvme_gb() == Some(0))
        .map(|t| t.name)
        .collect()
}

/// EKSGPU118: `family@version`, a family with NVIDIA variants, and AL2 only where EKS has AMIs.
fn check_alias(s: &NodeStrategy, alias: &str, karpenter: (u32, u32), path: &[Step], out: &mut Vec<Violation>) {
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
        return;
    }
    // What the CRD and Karpenter refuse beyond GPU concerns (length, families per version).
    let kubernetes = s.kubernetes_version.as_deref().and_then(parse_version);
    if let Err(e) = crate::validate::ami_alias(alias, kubernetes, karpenter) {
        push(e.to_string());
    }
}

/// Karpenter's NodeOverlay (`karpenter.sh/v1alpha1`, alpha since v1.7.0 behind the
/// `NodeOverlay` feature gate) is the only way to make it count such resources.
pub(crate) const NODE_OVERLAY_MINIMUM_KARPENTER: (u32, u32) = (1, 7);
