//! EKS managed node groups: create, describe, update in place, delete, list.
//! Taint effects are mapped between Kubernetes and EKS spellings here.

use std::collections::HashMap;

use aws_sdk_eks::types::{
    AmiTypes, CapacityTypes, LaunchTemplateSpecification, NodeRepairConfig, NodeRepairConfigOverrides,
    NodegroupScalingConfig, NodegroupUpdateConfig, RepairAction, Taint as EksTaint, TaintEffect, UpdateLabelsPayload,
    UpdateTaintsPayload,
};
use eksgpu_core::eks::launch_template::LaunchTemplate;
use eksgpu_core::eks::{NodeGroup, NodeGroupUpdate, eks_effect, k8s_effect};
use eksgpu_core::model::{ManagedNodeGroup, RepairOverride, Scaling, Taint, UpdateConfig};

use super::{AwsClients, AwsError};

/// EKS passes the node role to the node group's instances: the caller of
/// `CreateNodegroup` also needs this permission on that role.
const PASS_ROLE: &str = "iam:PassRole";

fn to_eks(t: &Taint) -> EksTaint {
    EksTaint::builder()
        .key(&t.key)
        .set_value(t.value.clone())
        .effect(TaintEffect::from(eks_effect(&t.effect).unwrap_or(&t.effect)))
        .build()
}

fn scaling(s: Scaling) -> NodegroupScalingConfig {
    // EKS caps node group sizes far below i32::MAX; the rules keep them non-negative.
    let n = |x: i64| i32::try_from(x).unwrap_or(i32::MAX);
    NodegroupScalingConfig::builder()
        .min_size(n(s.min))
        .max_size(n(s.max))
        .desired_size(n(s.desired))
        .build()
}

/// `updateConfig`: a node count or a percentage (EKS takes one of them).
fn update_config(u: Option<UpdateConfig>) -> Option<NodegroupUpdateConfig> {
    let n = |x: i64| i32::try_from(x).unwrap_or(i32::MAX);
    let u = u?;
    match (u.max_unavailable, u.max_unavailable_percentage) {
        (Some(m), _) => Some(NodegroupUpdateConfig::builder().max_unavailable(n(m)).build()),
        (None, Some(p)) => Some(
            NodegroupUpdateConfig::builder()
                .max_unavailable_percentage(n(p))
                .build(),
        ),
        (None, None) => None,
    }
}

/// `updateConfig` as EKS reports it.
fn update_config_of(u: &NodegroupUpdateConfig) -> UpdateConfig {
    UpdateConfig {
        max_unavailable: u.max_unavailable().map(i64::from),
        max_unavailable_percentage: u.max_unavailable_percentage().map(i64::from),
    }
}

/// `launchTemplate` by id and version (EKS API LaunchTemplateSpecification: the version as text).
fn template_spec(lt: &LaunchTemplate) -> Option<LaunchTemplateSpecification> {
    Some(
        LaunchTemplateSpecification::builder()
            .id(lt.id.as_deref()?)
            .version(lt.version?.to_string())
            .build(),
    )
}

/// `nodeRepairConfig` (EKS API NodeRepairConfig, NodeRepairConfigOverrides).
fn node_repair(r: &eksgpu_core::model::NodeRepairConfig) -> NodeRepairConfig {
    let n = |x: Option<i64>| x.map(|x| i32::try_from(x).unwrap_or(i32::MAX));
    let overrides: Vec<NodeRepairConfigOverrides> = r
        .node_repair_config_overrides
        .iter()
        .map(|o| {
            NodeRepairConfigOverrides::builder()
                .node_monitoring_condition(&o.node_monitoring_condition)
                .node_unhealthy_reason(&o.node_unhealthy_reason)
                .min_repair_wait_time_mins(i32::try_from(o.min_repair_wait_time_mins).unwrap_or(i32::MAX))
                .repair_action(RepairAction::from(o.repair_action.as_str()))
                .build()
        })
        .collect();
    NodeRepairConfig::builder()
        .enabled(r.enabled)
        .set_max_unhealthy_node_threshold_count(n(r.max_unhealthy_node_threshold_count))
        .set_max_unhealthy_node_threshold_percentage(n(r.max_unhealthy_node_threshold_percentage))
        .set_max_parallel_nodes_repaired_count(n(r.max_parallel_nodes_repaired_count))
        .set_max_parallel_nodes_repaired_percentage(n(r.max_parallel_nodes_repaired_percentage))
        .set_node_repair_config_overrides((!overrides.is_empty()).then_some(overrides))
        .build()
}

/// `nodeRepairConfig` as EKS reports it.
fn node_repair_of(r: &NodeRepairConfig) -> eksgpu_core::model::NodeRepairConfig {
    let n = |x: Option<i32>| x.map(i64::from);
    eksgpu_core::model::NodeRepairConfig {
        enabled: r.enabled().unwrap_or(false),
        max_unhealthy_node_threshold_count: n(r.max_unhealthy_node_threshold_count()),
        max_unhealthy_node_threshold_percentage: n(r.max_unhealthy_node_threshold_percentage()),
        max_parallel_nodes_repaired_count: n(r.max_parallel_nodes_repaired_count()),
        max_parallel_nodes_repaired_percentage: n(r.max_parallel_nodes_repaired_percentage()),
        node_repair_config_overrides: r
            .node_repair_config_overrides()
            .iter()
            .map(|o| RepairOverride {
                node_monitoring_condition: o.node_monitoring_condition().unwrap_or_default().to_owned(),
                node_unhealthy_reason: o.node_unhealthy_reason().unwrap_or_default().to_owned(),
                min_repair_wait_time_mins: o.min_repair_wait_time_mins().map_or(0, i64::from),
                repair_action: o.repair_action().map(|a| a.as_str().to_owned()).unwrap_or_default(),
            })
            .collect(),
    }
}

impl AwsClients {
    /// `eks:CreateNodegroup`.
    /// With a launch template (its id and version set), the disk and a template's instance type
    /// are the template's.
    pub async fn create_node_group(&self, cluster: &str, ng: &NodeGroup) -> Result<(), AwsError> {
        let lt = ng.launch_template.as_ref();
        let instance_types = match lt {
            Some(t) if t.data.instance_type.is_some() => None,
            _ => Some(ng.instance_types.clone()),
        };
        let disk_size = ng
            .config
            .disk_size
            .filter(|_| lt.is_none())
            .map(|d| i32::try_from(d).unwrap_or(i32::MAX));
        let req = self
            .eks()
            .await
            .create_nodegroup()
            .cluster_name(cluster)
            .nodegroup_name(&ng.name)
            .ami_type(AmiTypes::from(ng.ami_type.as_str()))
            .capacity_type(CapacityTypes::from(ng.capacity_type.as_str()))
            .set_instance_types(instance_types)
            .set_launch_template(lt.and_then(template_spec))
            .set_labels(Some(ng.labels.clone().into_iter().collect()))
            .set_taints(Some(ng.taints.iter().map(to_eks).collect()))
            .scaling_config(scaling(ng.config.scaling))
            .set_subnets(Some(ng.config.subnet_ids.clone()))
            .node_role(&ng.config.node_role_arn)
            .set_tags(Some(ng.tags.clone().into_iter().collect()))
            .set_update_config(update_config(ng.config.update))
            .set_release_version(ng.config.release_version.clone())
            .set_version(ng.config.kubernetes_version.clone())
            .set_disk_size(disk_size)
            .set_node_repair_config(ng.config.node_repair_config.as_ref().map(node_repair));
        req.send().await.map_err(|e| {
            let mut e = self.sdk_error("eks:CreateNodegroup", e);
            if e.is_access_denied() {
                e.message.push_str(&format!(
                    " (creating a node group also needs {PASS_ROLE} on {})",
                    ng.config.node_role_arn
                ));
            }
            e
        })?;
        tracing::info!(cluster, nodegroup = %ng.name, "created node group");
        Ok(())
    }

    /// `eks:DescribeNodegroup`: `None` when it does not exist.
    pub async fn describe_node_group(&self, cluster: &str, name: &str) -> Result<Option<NodeGroup>, AwsError> {
        let out = match self
            .eks()
            .await
            .describe_nodegroup()
            .cluster_name(cluster)
            .nodegroup_name(name)
            .send()
            .await
        {
            Ok(out) => out,
            Err(e) => {
                let e = self.sdk_error("eks:DescribeNodegroup", e);
                return if e.is_not_found() { Ok(None) } else { Err(e) };
            }
        };
        let Some(n) = out.nodegroup() else {
            return Ok(None);
        };
        let sc = n.scaling_config();
        let map = |m: Option<&HashMap<String, String>>| m.map(|m| m.clone().into_iter().collect()).unwrap_or_default();
        Ok(Some(NodeGroup {
            name: n.nodegroup_name().unwrap_or(name).to_owned(),
            ami_type: n.ami_type().map(|a| a.as_str().to_owned()).unwrap_or_default(),
            capacity_type: n
                .capacity_type()
                .map_or_else(|| "ON_DEMAND".to_owned(), |c| c.as_str().to_owned()),
            instance_types: n.instance_types().to_vec(),
            labels: map(n.labels()),
            taints: n
                .taints()
                .iter()
                .map(|t| {
                    let effect = t.effect().map(|e| e.as_str()).unwrap_or_default();
                    Taint {
                        key: t.key().unwrap_or_default().to_owned(),
                        value: t.value().map(str::to_owned),
                        effect: k8s_effect(effect).unwrap_or(effect).to_owned(),
                    }
                })
                .collect(),
            config: ManagedNodeGroup {
                node_role_arn: n.node_role().unwrap_or_default().to_owned(),
                subnet_ids: n.subnets().to_vec(),
                ami_type: n.ami_type().map(|a| a.as_str().to_owned()),
                scaling: Scaling {
                    min: sc.and_then(|s| s.min_size()).map_or(0, i64::from),
                    max: sc.and_then(|s| s.max_size()).map_or(0, i64::from),
                    desired: sc.and_then(|s| s.desired_size()).map_or(0, i64::from),
                },
                update: n.update_config().map(update_config_of),
                release_version: n.release_version().map(str::to_owned),
                kubernetes_version: n.version().map(str::to_owned),
                disk_size: n.disk_size().map(i64::from),
                node_repair_config: n.node_repair_config().map(node_repair_of),
                // The name is the node group's; what only a launch template carries is read from
                // the template version it uses (`describe_launch_template`).
                ..ManagedNodeGroup::default()
            },
            // The placement group is EC2's (`describe_placement_group`).
            placement_group: None,
            // Which template version: its content is EC2's (`describe_launch_template`).
            launch_template: n.launch_template().map(|t| LaunchTemplate {
                name: t.name().unwrap_or_default().to_owned(),
                data: Default::default(),
                tags: Default::default(),
                id: t.id().map(str::to_owned),
                version: t.version().and_then(|v| v.parse().ok()),
            }),
            tags: map(n.tags()),
            arn: n.nodegroup_arn().map(str::to_owned),
            status: n.status().map(|s| eksgpu_core::eks::NodeGroupStatus::parse(s.as_str())),
            health_issues: n
                .health()
                .map(|h| {
                    h.issues()
                        .iter()
                        .map(|i| {
                            format!(
                                "{}: {}",
                                i.code().map(|c| c.as_str()).unwrap_or("Issue"),
                                i.message().unwrap_or_default()
                            )
                        })
                        .collect()
                })
                .unwrap_or_default(),
        }))
    }

    /// `eks:UpdateNodegroupConfig`.
    pub async fn update_node_group(&self, cluster: &str, name: &str, u: &NodeGroupUpdate) -> Result<(), AwsError> {
        let mut req = self
            .eks()
            .await
            .update_nodegroup_config()
            .cluster_name(cluster)
            .nodegroup_name(name);
        if !u.labels_add.is_empty() || !u.labels_remove.is_empty() {
            req = req.labels(
                UpdateLabelsPayload::builder()
                    .set_add_or_update_labels(
                        (!u.labels_add.is_empty()).then(|| u.labels_add.clone().into_iter().collect()),
                    )
                    .set_remove_labels((!u.labels_remove.is_empty()).then(|| u.labels_remove.clone()))
                    .build(),
            );
        }
        if !u.taints_add.is_empty() || !u.taints_remove.is_empty() {
            req = req.taints(
                UpdateTaintsPayload::builder()
                    .set_add_or_update_taints(
                        (!u.taints_add.is_empty()).then(|| u.taints_add.iter().map(to_eks).collect()),
                    )
                    .set_remove_taints(
                        (!u.taints_remove.is_empty()).then(|| u.taints_remove.iter().map(to_eks).collect()),
                    )
                    .build(),
            );
        }
        if let Some(s) = u.scaling {
            req = req.scaling_config(scaling(s));
        }
        req = req
            .set_update_config(update_config(u.update))
            .set_node_repair_config(u.node_repair.as_ref().map(node_repair));
        req.send()
            .await
            .map_err(|e| self.sdk_error("eks:UpdateNodegroupConfig", e))?;
        tracing::info!(cluster, nodegroup = name, "updated node group");
        Ok(())
    }

    /// `eks:UpdateNodegroupVersion`: a rolling update of the nodes to another AMI release or
    /// Kubernetes minor, or to another version of the node group's launch template (or several).
    pub async fn update_node_group_version(
        &self,
        cluster: &str,
        name: &str,
        release: Option<&str>,
        kubernetes: Option<&str>,
        template: Option<&LaunchTemplate>,
    ) -> Result<(), AwsError> {
        self.eks()
            .await
            .update_nodegroup_version()
            .cluster_name(cluster)
            .nodegroup_name(name)
            .set_release_version(release.map(str::to_owned))
            .set_version(kubernetes.map(str::to_owned))
            .set_launch_template(template.and_then(template_spec))
            .send()
            .await
            .map_err(|e| self.sdk_error("eks:UpdateNodegroupVersion", e))?;
        tracing::info!(cluster, nodegroup = name, release, "updating node group release");
        Ok(())
    }

    /// `eks:TagResource` and `eks:UntagResource` on a node group or access entry: brings its
    /// tags from what it has to `add` set and `remove` gone (tags are not node group config).
    pub async fn retag(
        &self,
        arn: &str,
        add: &std::collections::BTreeMap<String, String>,
        remove: &[String],
    ) -> Result<(), AwsError> {
        if !add.is_empty() {
            self.eks()
                .await
                .tag_resource()
                .resource_arn(arn)
                .set_tags(Some(add.clone().into_iter().collect()))
                .send()
                .await
                .map_err(|e| self.sdk_error("eks:TagResource", e))?;
        }
        if !remove.is_empty() {
            self.eks()
                .await
                .untag_resource()
                .resource_arn(arn)
                .set_tag_keys(Some(remove.to_vec()))
                .send()
                .await
                .map_err(|e| self.sdk_error("eks:UntagResource", e))?;
        }
        tracing::info!(arn, added = add.len(), removed = remove.len(), "retagged");
        Ok(())
    }

    /// `eks:DeleteNodegroup`; a node group already gone is fine.
    pub async fn delete_node_group(&self, cluster: &str, name: &str) -> Result<(), AwsError> {
        match self
            .eks()
            .await
            .delete_nodegroup()
            .cluster_name(cluster)
            .nodegroup_name(name)
            .send()
            .await
        {
            Ok(_) => {
                tracing::info!(cluster, nodegroup = name, "deleting node group");
                Ok(())
            }
            Err(e) => {
                let e = self.sdk_error("eks:DeleteNodegroup", e);
                if e.is_not_found() { Ok(()) } else { Err(e) }
            }
        }
    }

    /// `eks:ListNodegroups`: every node group name of the cluster.
    pub async fn list_node_groups(&self, cluster: &str) -> Result<Vec<String>, AwsError> {
        let mut names = Vec::new();
        let mut pages = self
            .eks()
            .await
            .list_nodegroups()
            .cluster_name(cluster)
            .into_paginator()
            .send();
        while let Some(page) = pages.next().await {
            let page = page.map_err(|e| self.sdk_error("eks:ListNodegroups", e))?;
            names.extend(page.nodegroups().iter().cloned());
        }
        Ok(names)
    }
}
