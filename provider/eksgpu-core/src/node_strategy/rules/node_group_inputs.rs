//! Checks of a managed node group's inputs that only its launch template carries, and of its
//! name: user data (its format for the AMI type, EKSGPU158; what EKS sets itself, EKSGPU159),
//! volumes (EKSGPU169), node repair (EKSGPU321), the capacity reservation it targets (EKSGPU322),
//! EFA interfaces and `efa` (EKSGPU323), a placement group beside a reservation (EKSGPU325), and
//! node group names (EKSGPU157).

use crate::eks::launch_template::{capacity_block, root_device};
use crate::eks::user_data::{self, Format};
use crate::model::{Capacity, ManagedNodeGroup, NodeStrategy, Pool};
use crate::rules::{At, Code, Step, Violation};

/// The per-pool checks, in report order.
pub(super) fn check(pool: &Pool, m: &ManagedNodeGroup, ami_type: &str, mng: &At<'_>, out: &mut Vec<Violation>) {
    if m.name.is_some() && m.name_prefix.is_some() {
        out.push(Violation::new(
            Code::EKSGPU157,
            mng(&[Step::Attr("name_prefix")]),
            format!("Pool {:?} sets both `name` and `name_prefix`.", pool.name),
        ));
    }
    if let Some(u) = &m.user_data {
        user_data_format(u, ami_type, &mng(&[Step::Attr("user_data")]), out);
        user_data_conflicts(u, ami_type, &mng(&[Step::Attr("user_data")]), out);
    }
    volumes(m, ami_type, mng, out);
    repair(m, mng, out);
    reservation(pool, m, mng, out);
    efa_interfaces(pool, m, mng, out);
    placement_beside_reservation(pool, m, mng, out);
}

/// EKSGPU157: node group names are unique within a cluster (EKS API CreateNodegroup:
/// ResourceInUseException).
pub(super) fn unique_names(s: &NodeStrategy, out: &mut Vec<Violation>) {
    let mut seen: Vec<(String, &str)> = Vec::new();
    for p in s.pools.iter().filter(|p| p.capacity == Capacity::ManagedNodeGroup) {
        let name = crate::eks::node_group_name(s, p);
        if let Some((_, other)) = seen.iter().find(|(n, _)| *n == name) {
            out.push(Violation::new(
                Code::EKSGPU157,
                crate::rules::pool_path(&p.name, &[Step::Attr("managed_node_group")]),
                format!("Pools {other:?} and {:?} both name their node group {name:?}.", p.name),
            ));
        } else {
            seen.push((name, &p.name));
        }
    }
}

/// EKSGPU158: what each AMI type reads as user data (EKS user guide, launch-templates).
fn user_data_format(u: &str, ami_type: &str, path: &[Step], out: &mut Vec<Violation>) {
    let shell = u.trim_start().starts_with("#!");
    let problem = match user_data::format_of(ami_type) {
        Format::Toml if user_data::is_mime(u) || user_data::is_node_config(u) || shell => {
            Some("Bottlerocket reads TOML settings, not MIME documents, NodeConfigs or scripts")
        }
        Format::Al2
            if user_data::parts(u)
                .iter()
                .any(|p| p.content_type.starts_with(user_data::NODE_CONFIG) || user_data::is_node_config(&p.body)) =>
        {
            Some("a nodeadm NodeConfig only works on AL2023 AMIs (AL2 bootstraps with /etc/eks/bootstrap.sh)")
        }
        Format::Nodeadm if !user_data::is_mime(u) && !user_data::is_node_config(u) && !shell => {
            Some("on AL2023 it must be a nodeadm NodeConfig, a script (#!) or a MIME multi-part document")
        }
        _ if user_data::is_mime(u) && user_data::parts(u).is_empty() => {
            Some("the MIME document has no boundary, so no parts")
        }
        _ => None,
    };
    if let Some(p) = problem {
        out.push(Violation::new(
            Code::EKSGPU158,
            path.to_vec(),
            format!("User data for {ami_type}: {p}."),
        ));
    }
}

/// EKSGPU159: the cluster, node labels and taints are EKS's to set (it merges its own bootstrap
/// into the template's user data; labels and taints are node group settings).
fn user_data_conflicts(u: &str, ami_type: &str, path: &[Step], out: &mut Vec<Violation>) {
    let mut found: Vec<&'static str> = Vec::new();
    match user_data::format_of(ami_type) {
        Format::Toml => found.extend(bottlerocket_conflicts(u)),
        Format::Nodeadm | Format::Al2 => {
            for p in user_data::parts(&user_data::rendered(u, ami_type)) {
                if user_data::is_node_config(&p.body) {
                    found.extend(node_config_conflicts(&p.body));
                } else if p.body.contains("/etc/eks/bootstrap.sh") {
                    found.push("runs /etc/eks/bootstrap.sh");
                }
                for flag in ["--node-labels", "--register-with-taints"] {
                    if p.body.contains(flag) && !found.iter().any(|f| f.contains(flag)) {
                        found.push(if flag == "--node-labels" {
                            "passes kubelet --node-labels"
                        } else {
                            "passes kubelet --register-with-taints"
                        });
                    }
                }
            }
        }
    }
    found.dedup();
    for what in found {
        out.push(Violation::new(
            Code::EKSGPU159,
            path.to_vec(),
            format!("The user data {what}, which EKS sets for the node group."),
        ));
    }
}

/// What a nodeadm `NodeConfig` sets that EKS sets (awslabs/amazon-eks-ami nodeadm API:
/// `spec.cluster`, `spec.kubelet.flags`, `spec.kubelet.config`).
fn node_config_conflicts(doc: &str) -> Vec<&'static str> {
    let Ok(v) = serde_saphyr::from_str::<serde_json::Value>(doc.trim_start_matches("---\n")) else {
        return Vec::new();
    };
    let spec = &v["spec"];
    let mut out = Vec::new();
    if spec.get("cluster").is_some_and(|c| !c.is_null()) {
        out.push("sets the cluster (NodeConfig spec.cluster)");
    }
    if spec["kubelet"]["config"].get("registerWithTaints").is_some() {
        out.push("sets kubelet registerWithTaints");
    }
    out
}

/// What Bottlerocket settings set that EKS sets (bottlerocket.dev settings.kubernetes: cluster-name,
/// api-server, cluster-certificate, node-labels, node-taints).
fn bottlerocket_conflicts(toml: &str) -> Vec<&'static str> {
    let mut table = String::new();
    let mut out = Vec::new();
    for line in toml.lines().map(str::trim) {
        if let Some(t) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            table = t.trim().to_owned();
            if table == "settings.kubernetes.node-labels" {
                out.push("sets settings.kubernetes.node-labels");
            }
            if table == "settings.kubernetes.node-taints" {
                out.push("sets settings.kubernetes.node-taints");
            }
            continue;
        }
        let Some((key, _)) = line.split_once('=') else { continue };
        let key = key.trim().trim_matches('"');
        let full = if table.is_empty() {
            key.to_owned()
        } else {
            format!("{table}.{key}")
        };
        for (k, what) in [
            (
                "settings.kubernetes.cluster-name",
                "sets settings.kubernetes.cluster-name",
            ),
            ("settings.kubernetes.api-server", "sets settings.kubernetes.api-server"),
            (
                "settings.kubernetes.cluster-certificate",
                "sets settings.kubernetes.cluster-certificate",
            ),
            (
                "settings.kubernetes.node-labels",
                "sets settings.kubernetes.node-labels",
            ),
            (
                "settings.kubernetes.node-taints",
                "sets settings.kubernetes.node-taints",
            ),
        ] {
            if full == k || full.starts_with(&format!("{k}.")) {
                out.push(what);
            }
        }
    }
    out
}

/// EKSGPU169: each device once, a size or a snapshot each, and the root not sized twice.
fn volumes(m: &ManagedNodeGroup, ami_type: &str, mng: &At<'_>, out: &mut Vec<Violation>) {
    let root = root_device(ami_type);
    for (j, v) in m.block_device_mappings.iter().enumerate() {
        let path = mng(&[Step::Attr("block_device_mappings"), Step::Index(j)]);
        let mut push = |d: String| out.push(Violation::new(Code::EKSGPU169, path.clone(), d));
        if v.volume_size.is_none() && v.snapshot_id.is_none() {
            push(format!(
                "{} has neither `volume_size` nor `snapshot_id`.",
                v.device_name
            ));
        }
        if m.block_device_mappings[..j]
            .iter()
            .any(|o| o.device_name == v.device_name)
        {
            push(format!("{} is mapped twice.", v.device_name));
        }
        if m.disk_size.is_some() && v.device_name == root {
            push(format!("{root} is the root device `disk_size` sizes."));
        }
    }
}

/// EKSGPU321: a threshold is a count or a percentage; repair actions are the EKS API's.
fn repair(m: &ManagedNodeGroup, mng: &At<'_>, out: &mut Vec<Violation>) {
    let Some(r) = &m.node_repair_config else { return };
    let base = |rest: &[Step]| {
        let mut p = vec![Step::Attr("node_repair_config")];
        p.extend_from_slice(rest);
        mng(&p)
    };
    for (count, pct, name) in [
        (
            r.max_unhealthy_node_threshold_count,
            r.max_unhealthy_node_threshold_percentage,
            "max_unhealthy_node_threshold",
        ),
        (
            r.max_parallel_nodes_repaired_count,
            r.max_parallel_nodes_repaired_percentage,
            "max_parallel_nodes_repaired",
        ),
    ] {
        if count.is_some() && pct.is_some() {
            out.push(Violation::new(
                Code::EKSGPU321,
                base(&[]),
                format!("`{name}_count` and `{name}_percentage` are both set; EKS takes one of them."),
            ));
        }
    }
    for (j, o) in r.node_repair_config_overrides.iter().enumerate() {
        if !["Replace", "Reboot", "NoAction"].contains(&o.repair_action.as_str()) {
            out.push(Violation::new(
                Code::EKSGPU321,
                base(&[
                    Step::Attr("node_repair_config_overrides"),
                    Step::Index(j),
                    Step::Attr("repair_action"),
                ]),
                format!(
                    "{:?} is not an EKS repair action (Replace, Reboot, NoAction).",
                    o.repair_action
                ),
            ));
        }
    }
}

/// EKSGPU322: one reservation target, on on-demand or Capacity Block capacity.
fn reservation(pool: &Pool, m: &ManagedNodeGroup, mng: &At<'_>, out: &mut Vec<Violation>) {
    let group = m.capacity_reservation_resource_group_arn.is_some();
    let path = mng(&[Step::Attr("capacity_reservation_resource_group_arn")]);
    if group && m.capacity_reservation_id.is_some() {
        out.push(Violation::new(
            Code::EKSGPU322,
            path.clone(),
            "Both a reservation and a resource group are targeted; EC2 takes one.".into(),
        ));
    }
    if group && capacity_block(pool) {
        out.push(Violation::new(
            Code::EKSGPU322,
            path.clone(),
            "A Capacity Block node group names its Capacity Block by `capacity_reservation_id`.".into(),
        ));
    }
    if (group || m.capacity_reservation_id.is_some()) && pool.capacity_types.iter().any(|c| c == "spot") {
        out.push(Violation::new(
            Code::EKSGPU322,
            mng(&[]),
            format!(
                "Pool {:?} runs Spot capacity, which no capacity reservation serves.",
                pool.name
            ),
        ));
    }
}

/// EKSGPU323: EFA interfaces go with `efa = true`, and `efa = true` with EFA interfaces.
fn efa_interfaces(pool: &Pool, m: &ManagedNodeGroup, mng: &At<'_>, out: &mut Vec<Violation>) {
    if m.network_interfaces.is_empty() {
        return;
    }
    let any_efa = m.network_interfaces.iter().any(crate::model::NetworkInterface::is_efa);
    let path = mng(&[Step::Attr("network_interfaces")]);
    if any_efa && !pool.efa {
        out.push(Violation::new(
            Code::EKSGPU323,
            path,
            format!("Pool {:?} lists EFA interfaces without `efa = true`.", pool.name),
        ));
    } else if !any_efa && pool.efa {
        out.push(Violation::new(
            Code::EKSGPU323,
            path,
            format!("Pool {:?} has `efa = true` but lists no EFA interface.", pool.name),
        ));
    }
}

/// EKSGPU325: a cluster placement group beside a capacity reservation.
fn placement_beside_reservation(pool: &Pool, m: &ManagedNodeGroup, mng: &At<'_>, out: &mut Vec<Violation>) {
    let reserved = m.capacity_reservation_id.is_some()
        || m.capacity_reservation_resource_group_arn.is_some()
        || capacity_block(pool);
    if m.cluster_placement_group && reserved {
        out.push(Violation::new(
            Code::EKSGPU325,
            mng(&[Step::Attr("cluster_placement_group")]),
            format!(
                "Pool {:?} launches into a capacity reservation and a cluster placement group of its own.",
                pool.name
            ),
        ));
    }
}
