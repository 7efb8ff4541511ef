//! EKSGPU192: a device manager found in the cluster can land on a pool's nodes beside the one the
//! strategy configures there (`node_strategy::cluster_managers`). Run at plan when the provider
//! could list the cluster's DaemonSets; nothing without them.

use crate::model::NodeStrategy;
use crate::node_strategy::cluster_managers::{FoundManager, InstalledBy, clashes, fix};
use crate::rules::{Code, Violation};

fn installed(by: InstalledBy) -> &'static str {
    match by {
        InstalledBy::GpuOperator => "the GPU Operator's",
        InstalledBy::Helm => "a Helm release's",
        InstalledBy::Other => "not Helm's nor the GPU Operator's",
    }
}

/// One finding per DaemonSet and pool.
pub fn check_cluster_managers(s: &NodeStrategy, found: &[FoundManager]) -> Vec<Violation> {
    let mut out = Vec::new();
    for pool in &s.pools {
        for c in clashes(s, pool, found) {
            out.push(Violation::new(
                Code::EKSGPU192,
                crate::rules::pool_path(&pool.name, &[]),
                format!(
                    "DaemonSet {} ({}, {}) can land on pool {:?}'s nodes beside {}: {}.",
                    c.found.id(),
                    c.found.manages.as_str(),
                    installed(c.found.installed_by),
                    pool.name,
                    c.beside,
                    fix(c.found)
                ),
            ));
        }
    }
    out
}
