//! Validators of single values, one file per class: Kubernetes names, labels
//! and taints, Karpenter and EKS values, quantities, scaler inputs. (Number
//! ranges are declared on the schema with `eksgpu_framework::validators`.)
//!
//! Every exported validator is wired to the attributes whose constraint it
//! encodes: terraform-provider-eksgpu/tests/validators_wired.rs fails on one
//! that no schema, plan check, rule or request guard uses.
//!
//! Each is a pure `fn(&str, ..) -> Result<(), ValidationError>` whose error
//! says what was wrong, which form is accepted and which public source
//! defines it, so a diagnostic can quote all three. The facts come from the
//! systems that would reject the value later (the API server, a CRD's CEL
//! rules, the EKS API); checking them at plan turns an apply-time failure
//! into a plan-time one.

use std::borrow::Cow;
use std::fmt;

mod crd_limits;
mod cron;
mod eks;
mod karpenter;
mod labels;
mod mig;
mod names;
mod node_class;
mod node_class_ids;
mod node_overlay;
mod prometheus_site;
mod promql;
mod quantity;
mod scaler;
#[cfg(test)]
mod upstream_regexes;
mod volume;

pub use crd_limits::{
    BLOCK_DEVICE_MAPPINGS_MAX, NETWORK_INTERFACES_MAX, NODE_POOL_REQUIREMENTS_MAX, REQUIREMENT_KEY_MAX_LEN,
    SELECTOR_TERMS_MAX,
};
pub use eks::{
    EKS_CLUSTER_NAME_MAX, NODE_GROUP_NAME_MAX, NODE_GROUP_NAME_SUFFIX, NODE_GROUP_TAINTS_MAX, availability_zone,
    aws_tag_key, aws_tag_value, capacity_kind, ec2_description, eks_cluster_name, eks_label_key, eks_label_value,
    eks_taint_key, eks_taint_value, iam_role_arn, iam_role_name, kubernetes_version, node_group_name,
    node_group_name_for, node_group_name_prefix, node_group_release_for, node_group_release_version,
    node_group_taint_count, resource_group_arn,
};
pub use karpenter::{
    KARPENTER_AWS_WELL_KNOWN_LABELS, NODE_POOL_LABELS_MAX, budget_duration, budget_nodes, budget_schedule,
    karpenter_capacity_type, karpenter_consolidation_policy, karpenter_duration, karpenter_node_label_key,
    node_pool_label_count,
};
pub use labels::{label_key, label_value, non_empty_label_value, taint_effect, taint_key, taint_value};
pub use mig::mig_config_name;
pub use names::{
    cluster_name_label_value, config_map_key, config_map_name, device_class_name, dns1123_subdomain, namespace_name,
    object_name,
};
pub use node_class::{
    EBS_VOLUME_TYPES, EVICTION_SIGNALS, ami_alias, aws_account_id, capacity_reservation_id, ebs_volume_type,
    eviction_signal, eviction_threshold, node_class_tag_key, node_class_tag_value,
};
pub use node_class_ids::{
    ebs_snapshot_id, instance_profile_name, security_group_id, subnet_id, termination_grace_period,
};
pub use node_overlay::{overlay_capacity_resource, overlay_price, overlay_price_adjustment};
pub use prometheus_site::{
    AUTH_PARAMETERS, aws_region, custom_header_name, custom_header_value, keda_auth_parameter, prometheus_namespace,
    query_parameter_name, query_parameter_value, secret_key,
};
pub use promql::promql;
pub(crate) use quantity::parts as quantity_parts;
pub use quantity::{quantity, quantity_value};
pub use scaler::{TZDB_VERSION, cron_schedule, prometheus_address, time_zone};
pub use volume::{FieldProblems, auto_mode_ephemeral_storage, ebs_device_name, ebs_volume, ec2_node_class_volume_size};

/// A value the system it is meant for would refuse.
///
/// `Display` and `Error` are written by hand rather than with thiserror:
/// thiserror takes a field named `source` for the error's cause, and here it
/// names the public document that defines the accepted form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationError {
    /// What is wrong with this value, naming it.
    pub message: String,
    /// The accepted form, in words a user can act on.
    pub accepted: Cow<'static, str>,
    /// The public source of the rule (a repository path with its version, or a URL).
    pub source: &'static str,
}

impl ValidationError {
    pub(crate) fn new(
        message: impl Into<String>,
        accepted: impl Into<Cow<'static, str>>,
        source: &'static str,
    ) -> Self {
        ValidationError {
            message: message.into(),
            accepted: accepted.into(),
            source,
        }
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} Accepted: {} (source: {})",
            self.message, self.accepted, self.source
        )
    }
}

impl std::error::Error for ValidationError {}

/// The result of every validator.
pub type Validation = Result<(), ValidationError>;

/// `MAJOR.MINOR` as numbers, the form versions take in this module.
pub type Version = (u32, u32);

/// A CRD vendored for the Kubernetes emulator (upstream files, unchanged),
/// so tests can check rules against the CEL and patterns they restate.
#[cfg(test)]
pub(crate) fn vendored_crd(file: &str) -> serde_json::Value {
    // The running test's package directory (see acceptance-tests' repo_root for why not env!).
    let dir = std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(
        || std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")),
        std::path::PathBuf::from,
    );
    let path = dir.join("../../acceptance-tests/kube-emulator/crds").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The `x-kubernetes-validations` rules and the `pattern` of a schema node,
/// found by a JSON pointer below `spec.versions[0].schema.openAPIV3Schema`.
#[cfg(test)]
pub(crate) fn crd_node(crd: &serde_json::Value, pointer: &str) -> serde_json::Value {
    crd.pointer(&format!("/spec/versions/0/schema/openAPIV3Schema{pointer}"))
        .unwrap_or_else(|| panic!("no {pointer} in the CRD"))
        .clone()
}

#[cfg(test)]
pub(crate) fn cel_rules(node: &serde_json::Value) -> Vec<String> {
    node["x-kubernetes-validations"]
        .as_array()
        .map(|a| a.iter().filter_map(|r| r["rule"].as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}
