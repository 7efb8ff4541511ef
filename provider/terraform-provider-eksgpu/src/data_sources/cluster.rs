//! `eksgpu_cluster`: facts about an existing EKS cluster (`DescribeCluster`,
//! and `DescribeVpcs` for the VPC's CIDRs), for validation and composition —
//! e.g. feeding a node group pool's `subnet_ids`, or checking hybrid remote
//! networks against `vpc_cidrs` and `service_cidr` in a module — and the device managers the
//! cluster runs (its accelerator DaemonSets), when its API can be read.

use std::sync::Arc;

use async_trait::async_trait;
use eksgpu_core::eks::ClusterFacts;
use eksgpu_core::{rules, validate};
use eksgpu_framework::ManagedDataSource;
use eksgpu_framework::model::{ModelError, Obj, reported};
use eksgpu_tfplugin::schema::{Attribute, Block, Schema};
use eksgpu_tfplugin::{AttributePath, Context, Diagnostics, Type, Value};

use crate::diagnostics;
use crate::provider::ProviderState;

pub struct Cluster {
    state: Arc<ProviderState>,
}

impl Cluster {
    pub(crate) fn new(state: Arc<ProviderState>) -> Self {
        Self { state }
    }
}

pub fn schema() -> Schema {
    let strings = || Type::list(Type::String);
    Schema::new(
        Block::new(
            "Facts about an existing EKS cluster: version, Auto Mode, Hybrid Nodes remote networks, VPC and \
             service CIDRs. Read at plan time (it calls AWS); fails with EKSGPU018 when the cluster's Auto Mode \
             flags disagree.",
        )
        .attribute(
            // Checked before it reaches DescribeCluster's request path (`/clusters/{name}`).
            Attribute::required("name", Type::String, "Name of the EKS cluster.").validate(
                crate::resources::checks::string("An EKS cluster name.", validate::eks_cluster_name),
            ),
        )
        .attribute(Attribute::computed("arn", Type::String, "Cluster ARN."))
        .attribute(Attribute::computed("status", Type::String, "`ACTIVE`, `UPDATING`, …"))
        .attribute(Attribute::computed(
            "kubernetes_version",
            Type::String,
            "Kubernetes version, `MAJOR.MINOR`.",
        ))
        .attribute(Attribute::computed("endpoint", Type::String, "API server endpoint."))
        .attribute(Attribute::computed(
            "auto_mode",
            Type::Bool,
            "EKS Auto Mode is on: compute, block storage and load balancing all enabled.",
        ))
        .attribute(Attribute::computed(
            "auto_mode_compute",
            Type::Bool,
            "`computeConfig.enabled` (false when unreported).",
        ))
        .attribute(Attribute::computed(
            "auto_mode_block_storage",
            Type::Bool,
            "`storageConfig.blockStorage.enabled` (false when unreported).",
        ))
        .attribute(Attribute::computed(
            "auto_mode_load_balancing",
            Type::Bool,
            "`kubernetesNetworkConfig.elasticLoadBalancing.enabled` (false when unreported).",
        ))
        .attribute(Attribute::computed(
            "remote_node_networks",
            strings(),
            "Hybrid Nodes remote node CIDRs.",
        ))
        .attribute(Attribute::computed(
            "remote_pod_networks",
            strings(),
            "Hybrid Nodes remote pod CIDRs.",
        ))
        .attribute(Attribute::computed("vpc_id", Type::String, "The cluster's VPC."))
        .attribute(Attribute::computed("subnet_ids", strings(), "The cluster's subnets."))
        .attribute(Attribute::computed(
            "vpc_cidrs",
            strings(),
            "IPv4 CIDR blocks of the VPC (`ec2:DescribeVpcs`).",
        ))
        .attribute(Attribute::computed(
            "service_cidr",
            Type::String,
            "Kubernetes service IPv4 CIDR.",
        ))
        .attribute(Attribute::computed(
            "device_managers",
            Type::list(Type::object([
                ("namespace", Type::String),
                ("name", Type::String),
                ("manages", Type::String),
                ("installed_by", Type::String),
            ])),
            "The DaemonSets that manage accelerators on the cluster's nodes, known by what they run: `manages` is \
             `nvidia_device_plugin`, `hami_device_plugin`, `nvidia_dra_driver` (the GPU kubelet plugin), \
             `neuron_device_plugin` or `neuron_dra_driver`; `installed_by` is `gpu_operator` (owned by a \
             ClusterPolicy), `helm` or `other` (eksctl, kubectl). Read through the cluster's API (`list` on \
             `apps/v1` `daemonsets` in every namespace, https://registry.terraform.io/providers/eksgpu/eksgpu/latest/docs/guides/iam), once, within 5 seconds; null when it \
             cannot be read (no route to the endpoint, no access), which is no error. The strategy's plan reads the \
             same to warn of a second device manager on a pool's nodes (EKSGPU192).",
        )),
    )
}

/// What the configuration asks for: the cluster's name.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Query {
    name: String,
}

fn query(config: &Value) -> Result<Query, ModelError> {
    let o = Obj::new(config)?;
    Ok(Query { name: o.get("name")? })
}

/// The configuration of `q` (computed attributes left out: they read as null),
/// the inverse of [`query`]. Only the round-trip test writes a query: the
/// provider receives configurations, it never sends one.
#[cfg(test)]
fn write_query(q: &Query) -> Value {
    eksgpu_framework::model::ObjBuilder::new()
        .set("name", q.name.clone())
        .build()
}

/// `device_managers`: what the DaemonSets run, or null when they could not be listed.
fn device_managers(list: Option<&[serde_json::Value]>) -> Value {
    let Some(list) = list else {
        return Value::Null;
    };
    Value::List(
        list.iter()
            .filter_map(eksgpu_core::model::cluster_managers::classify)
            .map(|m| {
                Value::object([
                    ("namespace", m.namespace.as_str().into()),
                    ("name", m.name.as_str().into()),
                    ("manages", m.manages.as_str().into()),
                    ("installed_by", m.installed_by.as_str().into()),
                ])
            })
            .collect(),
    )
}

fn value(f: &ClusterFacts) -> Value {
    let s = |x: &Option<String>| x.as_deref().map_or(Value::Null, Value::from);
    let list = |xs: &[String]| Value::List(xs.iter().map(|x| Value::from(x.as_str())).collect());
    let flag = |b: Option<bool>| Value::from(b.unwrap_or(false));
    Value::object([
        ("name", f.name.as_str().into()),
        ("arn", s(&f.arn)),
        ("status", f.status.as_ref().map_or(Value::Null, |st| st.as_str().into())),
        ("kubernetes_version", s(&f.version)),
        ("endpoint", s(&f.endpoint)),
        ("auto_mode", f.auto_mode.enabled().into()),
        ("auto_mode_compute", flag(f.auto_mode.compute)),
        ("auto_mode_block_storage", flag(f.auto_mode.block_storage)),
        ("auto_mode_load_balancing", flag(f.auto_mode.load_balancing)),
        ("remote_node_networks", list(&f.remote_node_networks)),
        ("remote_pod_networks", list(&f.remote_pod_networks)),
        ("vpc_id", s(&f.vpc_id)),
        ("subnet_ids", list(&f.subnet_ids)),
        ("vpc_cidrs", list(&f.vpc_cidrs)),
        ("service_cidr", s(&f.service_cidr)),
    ])
}

#[async_trait]
impl ManagedDataSource for Cluster {
    fn type_name(&self) -> &'static str {
        "eksgpu_cluster"
    }

    fn schema(&self) -> Schema {
        schema()
    }

    async fn read(&self, ctx: &Context, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let Query { name } = reported(query, config, diags)?;
        let Some(c) = self.state.configured() else {
            diags.push(diagnostics::not_configured());
            return None;
        };
        let read = async {
            // This run's DescribeCluster, shared with the resources that need it.
            let facts = c.aws.cluster(&name).await?;
            c.aws.with_vpc_cidrs(facts).await
        };
        let facts = tokio::select! {
            r = read => r,
            () = ctx.cancelled() => {
                diags.push(diagnostics::cancelled("reading the cluster"));
                return None;
            }
        };
        let facts = match facts {
            Ok(f) => f,
            Err(e) => {
                diags.push(diagnostics::aws_failed(&e, AttributePath::attr("name")));
                return None;
            }
        };
        let violations = eksgpu_core::model::rules::check_cluster(&facts);
        for v in &violations {
            diags.push(diagnostics::violation(v));
        }
        if violations.iter().any(|v| v.severity == rules::Severity::Error) {
            return None;
        }
        let look = c.clusters.daemon_sets_once(&name, crate::resources::LOOK_DEADLINE);
        let listed = tokio::select! {
            r = look => r,
            () = ctx.cancelled() => {
                diags.push(diagnostics::cancelled("reading the cluster"));
                return None;
            }
        };
        let listed = listed
            .inspect_err(|why| tracing::info!(cluster = %name, why = %why, "the cluster's DaemonSets were not read"))
            .ok();
        let mut out = value(&facts);
        eksgpu_framework::path::set(
            &mut out,
            "device_managers",
            device_managers(listed.as_deref().map(Vec::as_slice)),
        );
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use eksgpu_framework::model::shape::{Expect, round_trip};
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// The written configuration has exactly the schema's inputs, and
        /// reading it asks for no other key.
        #[test]
        fn read_of_write_is_the_same_query(name in "[a-zA-Z][a-zA-Z0-9_-]{0,99}") {
            let q = Query { name };
            prop_assert_eq!(round_trip(&schema().block, Expect::Inputs, &write_query(&q), query), Ok(q));
        }
    }
}
