//! Checks of the EKS API capacity kinds (managed node groups, Hybrid Nodes)
//! and of facts about an existing cluster. What the configuration alone
//! decides is checked at plan; what needs the cluster (its VPC and service
//! CIDRs, its Auto Mode flags) is checked at apply, before any change.

use crate::catalog::{self, Arch};
use crate::eks::ClusterFacts;
use crate::eks::cidr::Cidr;
use crate::model::{Capacity, Hybrid, ManagedNodeGroup, NodeStrategy, Pool};
use crate::rules::Code;
use crate::rules::{At, Step, Violation};

/// Tags per EKS resource (EKS API TagResource: at most 50).
const MAX_EKS_TAGS: usize = 50;

/// EKS caps each remote network list at 15 CIDRs (a quota that cannot be raised; EKS user guide, Hybrid Nodes networking).
const MAX_REMOTE_CIDRS: usize = 15;

/// EKS `amiType` values that carry NVIDIA drivers, with their architecture (EKS API `AMITypes`, 2026-08).
const NVIDIA_AMI_TYPES: [(&str, Arch); 7] = [
    ("AL2_x86_64_GPU", Arch::X86_64),
    ("AL2023_x86_64_NVIDIA", Arch::X86_64),
    ("AL2023_ARM_64_NVIDIA", Arch::Arm64),
    ("BOTTLEROCKET_x86_64_NVIDIA", Arch::X86_64),
    ("BOTTLEROCKET_x86_64_NVIDIA_FIPS", Arch::X86_64),
    ("BOTTLEROCKET_ARM_64_NVIDIA", Arch::Arm64),
    ("BOTTLEROCKET_ARM_64_NVIDIA_FIPS", Arch::Arm64),
];

/// The other `amiType` values of the EKS API (2026-08): valid, but without NVIDIA drivers.
const OTHER_AMI_TYPES: [&str; 15] = [
    "AL2_x86_64",
    "AL2_ARM_64",
    "CUSTOM",
    "BOTTLEROCKET_ARM_64",
    "BOTTLEROCKET_x86_64",
    "BOTTLEROCKET_ARM_64_FIPS",
    "BOTTLEROCKET_x86_64_FIPS",
    "WINDOWS_CORE_2019_x86_64",
    "WINDOWS_FULL_2019_x86_64",
    "WINDOWS_CORE_2022_x86_64",
    "WINDOWS_FULL_2022_x86_64",
    "AL2023_x86_64_STANDARD",
    "AL2023_ARM_64_STANDARD",
    "AL2023_x86_64_NEURON",
    "WINDOWS_CORE_2025_x86_64",
];

/// The AMI types whose images carry the Neuron driver, per the EKS user guide's table of
/// accelerated AMI variants
/// (<https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-optimized-ami.html>, 2025-10):
/// AL2023 x86_64 Neuron and Bottlerocket's `aws-k8s` variant (`BOTTLEROCKET_x86_64`) list
/// inf1, inf2, trn1 and trn2; the AL2 accelerated AMI (`AL2_x86_64_GPU`) serves "GPU and
/// Inferentia based workloads" (amazon-eks-ami release v20200531) until AL2's last Kubernetes
/// version. The first is the default.
const NEURON_AMI_TYPES: [&str; 3] = ["AL2023_x86_64_NEURON", "BOTTLEROCKET_x86_64", "AL2_x86_64_GPU"];

/// EKS published AL2 AMIs up to Kubernetes 1.32 (EKS user guide, AL2 AMI deprecation FAQs).
const LAST_AL2_KUBERNETES: (u32, u32) = (1, 32);

/// Strategy-wide checks: at most one hybrid pool (remote networks are
/// cluster-wide), Auto Mode next to managed node groups (EKSGPU008).
pub(crate) fn check_strategy(s: &NodeStrategy, out: &mut Vec<Violation>) {
    let hybrid: Vec<usize> = indices(s, Capacity::Hybrid);
    for &i in hybrid.iter().skip(1) {
        out.push(Violation::new(
            Code::EKSGPU116,
            crate::rules::pool_path(&s.pools[i].name, &[Step::Attr("capacity")]),
            format!("Pool {:?} is the second hybrid pool of the strategy.", s.pools[i].name),
        ));
    }
    if let Some(&auto) = indices(s, Capacity::AutoMode).first() {
        for i in indices(s, Capacity::ManagedNodeGroup) {
            out.push(Violation::new(
                Code::EKSGPU008,
                crate::rules::pool_path(&s.pools[i].name, &[Step::Attr("capacity")]),
                format!(
                    "Managed node group pool {:?} shares the cluster with Auto Mode pool {:?}.",
                    s.pools[i].name, s.pools[auto].name
                ),
            ));
        }
    }
}

fn indices(s: &NodeStrategy, c: Capacity) -> Vec<usize> {
    s.pools
        .iter()
        .enumerate()
        .filter(|(_, p)| p.capacity == c)
        .map(|(i, _)| i)
        .collect()
}

/// EKSGPU125 on the provider's `default_tags { tags }`: no identifying tag of the provider.
pub fn check_default_tags(tags: &std::collections::BTreeMap<String, String>) -> Vec<Violation> {
    tags.keys()
        .filter(|k| crate::eks::is_provider_tag(k))
        .map(|k| {
            Violation::new(
                Code::EKSGPU125,
                vec![Step::Attr("default_tags"), Step::Attr("tags"), Step::Key(k.clone())],
                format!("{k:?} is one of the provider's identifying tags."),
            )
        })
        .collect()
}

/// Per-pool checks of the settings that belong to one capacity kind (the settings a kind does
/// not take are `node_strategy::rules::misplaced`'s).
pub(crate) fn check_pool(s: &NodeStrategy, pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    provider_tags(s, pool, at, out);
    instance_types_required(pool, at, out);
    match pool.capacity {
        Capacity::ManagedNodeGroup => check_managed_node_group(s, pool, at, out),
        Capacity::Hybrid => check_hybrid(pool, at, out),
        Capacity::AutoMode | Capacity::Karpenter => {}
    }
}

/// EKSGPU125: the provider's identifying tags are its own; EKS takes at most 50 tags.
fn provider_tags(s: &NodeStrategy, pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    for key in pool.tags.keys().filter(|k| crate::eks::is_provider_tag(k)) {
        out.push(Violation::new(
            Code::EKSGPU125,
            at(&[Step::Attr("tags"), Step::Key(key.clone())]),
            format!("{key:?} is one of the provider's identifying tags."),
        ));
    }
    if !pool.capacity.is_in_cluster() {
        let total = crate::eks::pool_tags(s, pool).len();
        if total > MAX_EKS_TAGS {
            out.push(Violation::new(
                Code::EKSGPU125,
                at(&[Step::Attr("tags")]),
                format!("Pool {:?} would carry {total} tags (default, pool and the provider's own); EKS takes at most {MAX_EKS_TAGS}.", pool.name),
            ));
        }
    }
}

/// EKSGPU115: every pool but a hybrid one names its instance types, unless (in-cluster) its
/// `requirements` select them.
fn instance_types_required(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    let by_requirements = pool.capacity.is_in_cluster() && !pool.requirements.is_empty();
    if pool.capacity != Capacity::Hybrid && pool.instance_types.is_empty() && !by_requirements {
        let or = if pool.capacity.is_in_cluster() {
            " or `requirements` that select instances"
        } else {
            ""
        };
        out.push(Violation::new(
            Code::EKSGPU115,
            at(&[Step::Attr("instance_types")]),
            format!("A {} pool needs `instance_types`{or}.", pool.capacity.as_str()),
        ));
    }
}

/// EKSGPU115 (no `hybrid` block) and EKSGPU007 (its remote networks). Its role ARN is the
/// attribute's own check (validate::iam_role_arn on the declaration).
fn check_hybrid(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    let Some(h) = &pool.hybrid else {
        out.push(Violation::new(
            Code::EKSGPU115,
            at(&[Step::Attr("capacity")]),
            "A hybrid pool needs a `hybrid` block (remote networks and the nodes' IAM role).".into(),
        ));
        return;
    };
    for (list, index, detail) in remote_network_problems(h) {
        let mut path = at(&[Step::Attr("hybrid"), Step::Attr(list)]);
        path.extend(index.map(Step::Index));
        out.push(Violation::new(Code::EKSGPU007, path, detail));
    }
}

/// The checks of a `managed_node_group` pool, in the order they report: EKSGPU115 without its
/// block, then EKSGPU117 (capacity types, the request's values), 123 (disk), 117 (instance
/// types) and 013 (AMI type).
fn check_managed_node_group(s: &NodeStrategy, pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    let Some(m) = &pool.managed_node_group else {
        out.push(Violation::new(
            Code::EKSGPU115,
            at(&[Step::Attr("capacity")]),
            "A managed_node_group pool needs a `managed_node_group` block (node role, subnets, scaling).".into(),
        ));
        return;
    };
    let mng = |rest: &[Step]| {
        let mut p = at(&[Step::Attr("managed_node_group")]);
        p.extend_from_slice(rest);
        p
    };
    node_group_capacity_types(pool, at, out);
    node_group_request(m, &mng, out);
    node_group_taints(pool, at, out);
    node_group_release(s, pool, m, &mng, out);
    node_group_version(s, m, &mng, out);
    node_group_disk(pool, m, &mng, out);
    super::launch_template::capacity_block(pool, m, at, &mng, out);
    let ami_type = m
        .ami_type
        .clone()
        .unwrap_or_else(|| crate::eks::default_ami_type(pool).to_owned());
    super::node_group_inputs::check(pool, m, &ami_type, &mng, out);
    super::launch_template::node_group_tag_limits(s, pool, at, out);
    if pool.instance_types.len() > 20 {
        out.push(Violation::new(
            Code::EKSGPU117,
            at(&[Step::Attr("instance_types")]),
            format!(
                "{} instance types; a node group takes at most 20.",
                pool.instance_types.len()
            ),
        ));
    }
    if let Some(ami) = &m.ami_type {
        check_ami_type(s, pool, ami, &mng(&[Step::Attr("ami_type")]), out);
    }
}

/// EKSGPU117: one capacity type a node group takes (EKS API CreateNodegroup `capacityType`).
fn node_group_capacity_types(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    for (j, c) in pool.capacity_types.iter().enumerate() {
        if c == "reserved" {
            // EKS API CreateNodegroup capacityType has ON_DEMAND, SPOT and CAPACITY_BLOCK; a Capacity
            // Block is targeted through the launch template (EKS user guide, Capacity Blocks for ML).
            out.push(Violation::new(
                Code::EKSGPU117,
                at(&[Step::Attr("capacity_types"), Step::Index(j)]),
                "\"reserved\": a node group has no reserved capacity type. For a Capacity Block use \
                 capacity_types = [\"capacity-block\"] and managed_node_group.capacity_reservation_id."
                    .to_owned(),
            ));
        } else if c != "on-demand" && c != "spot" && c != "capacity-block" {
            out.push(Violation::new(
                Code::EKSGPU117,
                at(&[Step::Attr("capacity_types"), Step::Index(j)]),
                format!(
                    "{c:?} is not a node group capacity type: use on-demand (ON_DEMAND), spot (SPOT) or \
                     capacity-block (CAPACITY_BLOCK)."
                ),
            ));
        }
    }
    if pool.capacity_types.len() > 1 {
        out.push(Violation::new(
            Code::EKSGPU117,
            at(&[Step::Attr("capacity_types")]),
            "A node group has one capacity type; declare one pool per capacity type.".into(),
        ));
    }
}

/// EKSGPU117: the node group's subnets, scaling and update settings as EKS takes them.
fn node_group_request(m: &ManagedNodeGroup, mng: &At<'_>, out: &mut Vec<Violation>) {
    if m.subnet_ids.is_empty() {
        out.push(Violation::new(
            Code::EKSGPU117,
            mng(&[Step::Attr("subnet_ids")]),
            "A node group needs at least one subnet.".into(),
        ));
    }
    let sc = m.scaling;
    if sc.min < 0 || sc.max < 1 || sc.min > sc.max || sc.desired < sc.min || sc.desired > sc.max {
        out.push(Violation::new(
            Code::EKSGPU117,
            mng(&[Step::Attr("scaling")]),
            format!(
                "min {}, max {}, desired {}: EKS needs 0 ≤ min ≤ desired ≤ max and max ≥ 1.",
                sc.min, sc.max, sc.desired
            ),
        ));
    }
    if let Some(u) = &m.update {
        crate::node_strategy::inputs::check_update(u, &mng(&[Step::Attr("update")]), out);
    }
}

/// EKSGPU117: at most 50 taints on a node group, the provider's GPU taint counted
/// (render::effective_taints). Each taint's key and value are their declarations' EKS checks
/// (`on_kinds` in node_strategy::inputs::pool).
fn node_group_taints(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    if let Err(e) = crate::validate::node_group_taint_count(crate::render::effective_taints(pool).len()) {
        out.push(Violation::new(
            Code::EKSGPU117,
            at(&[Step::Attr("taints")]),
            e.to_string(),
        ));
    }
}

/// EKSGPU117: an AL2023 or AL2 `release_version` of another Kubernetes minor than the node
/// group's (its `kubernetes_version`, else the cluster's), which CreateNodegroup refuses (an
/// unknown version skips the check).
fn node_group_release(s: &NodeStrategy, pool: &Pool, m: &ManagedNodeGroup, mng: &At<'_>, out: &mut Vec<Violation>) {
    let (Some(release), Some(k8s)) = (
        m.release_version.as_deref(),
        m.kubernetes_version
            .as_deref()
            .or(s.kubernetes_version.as_deref())
            .and_then(crate::rules::parse_version),
    ) else {
        return;
    };
    // A release that is no release at all is the attribute's own check.
    if crate::validate::node_group_release_version(release).is_err() {
        return;
    }
    let ami = m
        .ami_type
        .as_deref()
        .unwrap_or_else(|| crate::eks::default_ami_type(pool));
    if let Err(e) = crate::validate::node_group_release_for(release, ami, k8s) {
        out.push(Violation::new(
            Code::EKSGPU117,
            mng(&[Step::Attr("release_version")]),
            e.to_string(),
        ));
    }
}

/// The most minors a node group's kubelet may lag the cluster's API server (Kubernetes version
/// skew policy, kubelet, from 1.28; EKS user guide, Update a managed node group).
const MAX_NODE_GROUP_SKEW: u32 = 3;

/// EKSGPU307: a node group `kubernetes_version` newer than the cluster's or more than
/// [`MAX_NODE_GROUP_SKEW`] minors older (an unknown cluster version skips the check; a version
/// that is none is the attribute's own check).
fn node_group_version(s: &NodeStrategy, m: &ManagedNodeGroup, mng: &At<'_>, out: &mut Vec<Violation>) {
    let (Some(want), Some(cluster)) = (
        m.kubernetes_version.as_deref(),
        s.kubernetes_version.as_deref().and_then(crate::rules::parse_version),
    ) else {
        return;
    };
    let Some(v) = crate::rules::parse_version(want) else {
        return;
    };
    let detail = if v > cluster {
        format!(
            "Node group version {want} is newer than the cluster's {}.{}.",
            cluster.0, cluster.1
        )
    } else if v.0 != cluster.0 || cluster.1.checked_sub(v.1).is_none_or(|lag| lag > MAX_NODE_GROUP_SKEW) {
        format!(
            "Node group version {want} is more than {MAX_NODE_GROUP_SKEW} minors older than the cluster's {}.{}.",
            cluster.0, cluster.1
        )
    } else {
        return;
    };
    out.push(Violation::new(
        Code::EKSGPU307,
        mng(&[Step::Attr("kubernetes_version")]),
        detail,
    ));
}

/// EKSGPU123: EKS's 20 GiB default disk (or a small one) cannot hold inference images.
fn node_group_disk(pool: &Pool, m: &ManagedNodeGroup, mng: &At<'_>, out: &mut Vec<Violation>) {
    match m.disk_size {
        Some(d) if (d as f64) < crate::node_strategy::rules::MIN_GPU_IMAGE_VOLUME_GIB => out.push(Violation::new(
            Code::EKSGPU123,
            mng(&[Step::Attr("disk_size")]),
            format!("Node group pool {:?} has a {d} GiB disk.", pool.name),
        )),
        None => out.push(Violation::new(
            Code::EKSGPU123,
            mng(&[]),
            format!(
                "Node group pool {:?} keeps EKS's default {} GiB disk (no `disk_size`).",
                pool.name,
                crate::eks::DEFAULT_DISK_SIZE_GIB
            ),
        )),
        Some(_) => {}
    }
}

/// EKSGPU013: the AMI type must carry the drivers of the pool's accelerators (NVIDIA, or the
/// Neuron driver on Neuron pools), match their architecture, and exist for the cluster's
/// Kubernetes version.
fn check_ami_type(s: &NodeStrategy, pool: &Pool, ami: &str, path: &[Step], out: &mut Vec<Violation>) {
    let fire =
        |detail: String, out: &mut Vec<Violation>| out.push(Violation::new(Code::EKSGPU013, path.to_vec(), detail));
    if pool.is_neuron() {
        // Every Neuron type is x86_64, so only the driver and the AL2 end date matter.
        if !NEURON_AMI_TYPES.contains(&ami) {
            let known = OTHER_AMI_TYPES.contains(&ami) || NVIDIA_AMI_TYPES.iter().any(|(a, _)| *a == ami);
            let detail = if known {
                format!(
                    "{ami} has no Neuron driver for the pool's Neuron devices; use {} (or {}).",
                    crate::eks::NEURON_AMI_TYPE,
                    NEURON_AMI_TYPES[1..].join(", ")
                )
            } else {
                format!("{ami:?} is not an EKS AMI type.")
            };
            fire(detail, out);
        }
        check_al2_end(s, ami, path, out);
        return;
    }
    let Some(&(_, arch)) = NVIDIA_AMI_TYPES.iter().find(|(a, _)| *a == ami) else {
        if OTHER_AMI_TYPES.contains(&ami) {
            fire(format!("{ami} has no NVIDIA driver for the pool's GPUs."), out);
        } else {
            fire(format!("{ami:?} is not an EKS AMI type."), out);
        }
        return;
    };
    for t in pool.instance_types.iter().filter_map(|t| catalog::instance_type(t)) {
        if t.architecture != arch {
            fire(
                format!(
                    "{ami} is {} but {} is {}.",
                    arch.as_str(),
                    t.name,
                    t.architecture.as_str()
                ),
                out,
            );
        }
    }
    check_al2_end(s, ami, path, out);
}

/// EKSGPU013: EKS publishes no AL2 AMIs after Kubernetes 1.32.
fn check_al2_end(s: &NodeStrategy, ami: &str, path: &[Step], out: &mut Vec<Violation>) {
    if ami == "AL2_x86_64_GPU"
        && let Some(v) = s.kubernetes_version.as_deref().and_then(crate::rules::parse_version)
        && v > LAST_AL2_KUBERNETES
    {
        out.push(Violation::new(
            Code::EKSGPU013,
            path.to_vec(),
            format!(
                "EKS publishes no AL2 AMIs for Kubernetes {}.{} (1.32 was the last).",
                v.0, v.1
            ),
        ));
    }
}

/// A problem with one remote network: `(list, index in the list, detail)`.
pub type NetworkProblem = (&'static str, Option<usize>, String);

/// The remote networks of a pool, parsed, with the list and position of each.
fn parsed_networks(h: &Hybrid) -> Vec<(&'static str, usize, &str, Cidr)> {
    let lists = [
        ("remote_node_networks", &h.remote_node_networks),
        ("remote_pod_networks", &h.remote_pod_networks),
    ];
    lists
        .into_iter()
        .flat_map(|(list, cidrs)| {
            cidrs
                .iter()
                .enumerate()
                .filter_map(move |(j, raw)| Cidr::parse(raw).map(|c| (list, j, raw.as_str(), c)))
        })
        .collect()
}

/// EKSGPU007 on what the configuration alone decides (plan time).
pub fn remote_network_problems(h: &Hybrid) -> Vec<NetworkProblem> {
    let mut out = Vec::new();
    if h.remote_node_networks.is_empty() {
        out.push((
            "remote_node_networks",
            None,
            "Hybrid Nodes need at least one remote node network.".to_owned(),
        ));
    }
    let lists = [
        ("remote_node_networks", &h.remote_node_networks),
        ("remote_pod_networks", &h.remote_pod_networks),
    ];
    let mut parsed: Vec<(&'static str, usize, &str, Cidr)> = Vec::new();
    for (list, cidrs) in lists {
        if cidrs.len() > MAX_REMOTE_CIDRS {
            out.push((
                list,
                None,
                format!("{} CIDRs; EKS allows at most {MAX_REMOTE_CIDRS} per list.", cidrs.len()),
            ));
        }
        for (j, raw) in cidrs.iter().enumerate() {
            match Cidr::parse(raw) {
                None => out.push((list, Some(j), format!("{raw:?} is not an IPv4 CIDR block."))),
                Some(c) if !(8..=32).contains(&c.prefix) => {
                    out.push((
                        list,
                        Some(j),
                        format!("{raw} has prefix /{}; EKS takes /8 to /32.", c.prefix),
                    ));
                }
                Some(c) if !c.is_rfc1918() => {
                    out.push((list, Some(j), format!("{raw} is not inside RFC 1918 private space.")));
                }
                Some(c) => parsed.push((list, j, raw.as_str(), c)),
            }
        }
    }
    for (a, (list, j, raw, c)) in parsed.iter().enumerate() {
        if let Some((_, _, other, _)) = parsed[..a].iter().find(|(_, _, _, d)| d.overlaps(*c)) {
            out.push((
                list,
                Some(*j),
                format!("{raw} overlaps {other}, another remote network."),
            ));
        }
    }
    out
}

/// EKSGPU007 against the cluster (apply time): overlaps with its VPC's CIDRs
/// and its service CIDR.
pub fn cluster_overlaps(h: &Hybrid, vpc_cidrs: &[String], service_cidr: Option<&str>) -> Vec<NetworkProblem> {
    let mut out = Vec::new();
    for (list, j, raw, c) in parsed_networks(h) {
        for vpc in vpc_cidrs {
            if Cidr::parse(vpc).is_some_and(|v| v.overlaps(c)) {
                out.push((list, Some(j), format!("{raw} overlaps the cluster VPC's CIDR {vpc}.")));
            }
        }
        if let Some(svc) = service_cidr
            && Cidr::parse(svc).is_some_and(|v| v.overlaps(c))
        {
            out.push((
                list,
                Some(j),
                format!("{raw} overlaps the cluster's service CIDR {svc}."),
            ));
        }
    }
    out
}

/// Checks that need the cluster's facts, made at apply before any change:
/// EKSGPU007 against the VPC and service CIDRs, EKSGPU008 when the cluster
/// runs Auto Mode, EKSGPU018 when its Auto Mode flags disagree.
pub fn check_against_cluster(s: &NodeStrategy, facts: &ClusterFacts) -> Vec<Violation> {
    let mut out = Vec::new();
    for pool in &s.pools {
        let at = |rest: &[Step]| crate::rules::pool_path(&pool.name, rest);
        if let Some(h) = pool.hybrid.as_ref().filter(|_| pool.capacity == Capacity::Hybrid) {
            for (list, index, detail) in cluster_overlaps(h, &facts.vpc_cidrs, facts.service_cidr.as_deref()) {
                let mut path = at(&[Step::Attr("hybrid"), Step::Attr(list)]);
                path.extend(index.map(Step::Index));
                out.push(Violation::new(Code::EKSGPU007, path, detail));
            }
        }
        if pool.capacity == Capacity::ManagedNodeGroup
            && facts.auto_mode.compute == Some(true)
            && !s.pools.iter().any(|p| p.capacity == Capacity::AutoMode)
        {
            out.push(Violation::new(
                Code::EKSGPU008,
                at(&[Step::Attr("capacity")]),
                format!("Cluster {} runs EKS Auto Mode.", facts.name),
            ));
        }
    }
    if s.pools.iter().any(|p| p.capacity == Capacity::AutoMode) {
        out.extend(check_cluster(facts).into_iter().map(|mut v| {
            v.path = vec![Step::Attr("cluster_name")];
            v
        }));
    }
    out
}

/// EKSGPU018 on a cluster's Auto Mode flags.
pub fn check_cluster(facts: &ClusterFacts) -> Vec<Violation> {
    let f = facts.auto_mode;
    if f.consistent() {
        return Vec::new();
    }
    let show = |b: Option<bool>| b.map_or("unset".to_owned(), |b| b.to_string());
    vec![Violation::new(
        Code::EKSGPU018,
        vec![Step::Attr("name")],
        format!(
            "Cluster {}: compute {}, block storage {}, load balancing {}.",
            facts.name,
            show(f.compute),
            show(f.block_storage),
            show(f.load_balancing)
        ),
    )]
}

#[cfg(test)]
mod tests;
