//! The computed outputs a plan can know before apply, and what each reads. A pool's outputs are
//! known as soon as the inputs feeding them are: a node role, subnets or tags made in the same
//! apply leave `node_selector` and `tolerations` known, so `for_each` and Helm values can use them.
//!
//! What a pool input feeds is declared on the input itself (`Attr::feeds` in `inputs/pool.rs`);
//! the strategy-level inputs an output reads are listed here. The property test in
//! `outputs/tests.rs` changes each input and checks that only the outputs it declares change, so
//! a declaration cannot claim less than the renderers read.

use super::inputs::POOL;
use crate::model::Capacity;

/// A computed output of the strategy or of one of its pools (`manifests_yaml` reads everything).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Output {
    NodeSelector,
    Tolerations,
    Accelerator,
    GpuResourceName,
    MatchedInstanceTypes,
    /// `compute_domain_claim_template`: `<name>-channel` of a `multi_node_nvlink` pool.
    ComputeDomainClaimTemplate,
    /// `clique_topology_key`: the NVLink clique label of a `multi_node_nvlink` pool.
    CliqueTopologyKey,
    /// `gpu_operator_values_yaml`: reads every pool.
    GpuOperatorValues,
    /// `neuron_values_yaml`: reads every pool.
    NeuronValues,
    /// `dra_driver_values_yaml`: reads every pool (its node affinity names node groups).
    DraDriverValues,
    /// `device_plugin_values_yaml`: reads every pool (its node affinity names node groups).
    DevicePluginValues,
}

impl Output {
    /// The outputs of one pool, in schema order.
    pub const POOL: [Output; 7] = [
        Output::NodeSelector,
        Output::Tolerations,
        Output::Accelerator,
        Output::GpuResourceName,
        Output::MatchedInstanceTypes,
        Output::ComputeDomainClaimTemplate,
        Output::CliqueTopologyKey,
    ];
    /// The strategy's outputs that read every pool.
    pub const STRATEGY: [Output; 4] = [
        Output::GpuOperatorValues,
        Output::NeuronValues,
        Output::DraDriverValues,
        Output::DevicePluginValues,
    ];

    /// The output's attribute name (in the pool block, or at the top of the resource).
    pub fn attribute(self) -> &'static str {
        match self {
            Output::NodeSelector => "node_selector",
            Output::Tolerations => "tolerations",
            Output::Accelerator => "accelerator",
            Output::GpuResourceName => "gpu_resource_name",
            Output::MatchedInstanceTypes => "matched_instance_types",
            Output::ComputeDomainClaimTemplate => "compute_domain_claim_template",
            Output::CliqueTopologyKey => "clique_topology_key",
            Output::GpuOperatorValues => "gpu_operator_values_yaml",
            Output::NeuronValues => "neuron_values_yaml",
            Output::DraDriverValues => "dra_driver_values_yaml",
            Output::DevicePluginValues => "device_plugin_values_yaml",
        }
    }

    /// The strategy-level inputs (top-level attributes and blocks) the output reads for a pool of
    /// `capacity`: a node group's selector names the node group, `<cluster_name>-<pool>`; the GPU
    /// resource name and the operator's values follow `gpu_operator`.
    pub fn strategy_inputs(self, capacity: Capacity) -> &'static [&'static str] {
        match self {
            Output::NodeSelector if capacity == Capacity::ManagedNodeGroup => &["cluster_name"],
            // The driver's node affinity names node groups, `<cluster_name>-<pool>` (a strategy
            // output: the same for every kind); its `nvidiaDriverRoot` is the GPU Operator's where
            // the operator installs the hybrid nodes' driver.
            Output::DraDriverValues => &["cluster_name", "gpu_operator"],
            // Its pools are the ones no other manager serves, which the operator's per-node labels
            // (render::effective_labels) take part in deciding.
            Output::DevicePluginValues => &["cluster_name", "device_plugin", "gpu_operator"],
            // Under MIG `mixed` each profile is its own resource, whichever plugin runs.
            Output::GpuResourceName => &["gpu_operator", "device_plugin"],
            Output::GpuOperatorValues => &["gpu_operator"],
            _ => &[],
        }
    }

    /// Whether the output may change with the pool input at `path` (attribute and block names
    /// under the pool block, indices and keys left out): the input, a block holding inputs that
    /// feed the output, or a place inside such an input (a map key). The empty path is the whole
    /// pool, which every output reads.
    pub fn reads(self, path: &[&str]) -> bool {
        if path.is_empty() {
            return true;
        }
        let at = path.join(".");
        pool_feeds().iter().any(|(p, feeds)| {
            feeds.contains(&self) && (*p == at || p.starts_with(&format!("{at}.")) || at.starts_with(&format!("{p}.")))
        })
    }
}

/// Every pool attribute path with the outputs it feeds, from the declarations.
pub fn pool_feeds() -> &'static [(String, &'static [Output])] {
    static FEEDS: std::sync::LazyLock<Vec<(String, &'static [Output])>> = std::sync::LazyLock::new(|| {
        let mut out = Vec::new();
        for d in POOL {
            d.feeds("", &mut out);
        }
        out
    });
    &FEEDS
}

#[cfg(test)]
mod tests;
