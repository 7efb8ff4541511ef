//! EKS Hybrid Nodes: the cluster's remote networks (`UpdateClusterConfig`)
//! and the access entry that lets the nodes' IAM role join.

use std::collections::BTreeMap;

use aws_sdk_eks::types::{RemoteNetworkConfigRequest, RemoteNodeNetwork, RemotePodNetwork};

use super::{AwsClients, AwsError};

/// An access entry as far as the provider cares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessEntry {
    pub principal_arn: String,
    /// `HYBRID_LINUX`, `STANDARD`, ….
    pub kind: String,
    pub tags: BTreeMap<String, String>,
    /// Live only: the entry's ARN (what `TagResource` takes).
    pub arn: Option<String>,
}

impl AwsClients {
    /// `eks:UpdateClusterConfig` with `remoteNetworkConfig`; empty lists remove the networks.
    pub async fn set_remote_networks(&self, cluster: &str, nodes: &[String], pods: &[String]) -> Result<(), AwsError> {
        let node_networks = if nodes.is_empty() {
            Vec::new()
        } else {
            vec![RemoteNodeNetwork::builder().set_cidrs(Some(nodes.to_vec())).build()]
        };
        let pod_networks = if pods.is_empty() {
            Vec::new()
        } else {
            vec![RemotePodNetwork::builder().set_cidrs(Some(pods.to_vec())).build()]
        };
        self.eks()
            .await
            .update_cluster_config()
            .name(cluster)
            .remote_network_config(
                RemoteNetworkConfigRequest::builder()
                    .set_remote_node_networks(Some(node_networks))
                    .set_remote_pod_networks(Some(pod_networks))
                    .build(),
            )
            .send()
            .await
            .map_err(|e| self.sdk_error("eks:UpdateClusterConfig", e))?;
        tracing::info!(cluster, "updated remote networks");
        Ok(())
    }

    /// `eks:CreateAccessEntry`.
    pub async fn create_access_entry(&self, cluster: &str, entry: &AccessEntry) -> Result<(), AwsError> {
        self.eks()
            .await
            .create_access_entry()
            .cluster_name(cluster)
            .principal_arn(&entry.principal_arn)
            .r#type(&entry.kind)
            .set_tags(Some(entry.tags.clone().into_iter().collect()))
            .send()
            .await
            .map_err(|e| self.sdk_error("eks:CreateAccessEntry", e))?;
        tracing::info!(cluster, principal = %entry.principal_arn, "created access entry");
        Ok(())
    }

    /// `eks:DescribeAccessEntry`: `None` when there is none.
    pub async fn describe_access_entry(&self, cluster: &str, principal: &str) -> Result<Option<AccessEntry>, AwsError> {
        match self
            .eks()
            .await
            .describe_access_entry()
            .cluster_name(cluster)
            .principal_arn(principal)
            .send()
            .await
        {
            Ok(out) => Ok(out.access_entry().map(|e| AccessEntry {
                principal_arn: e.principal_arn().unwrap_or(principal).to_owned(),
                kind: e.r#type().unwrap_or_default().to_owned(),
                tags: e.tags().map(|t| t.clone().into_iter().collect()).unwrap_or_default(),
                arn: e.access_entry_arn().map(str::to_owned),
            })),
            Err(e) => {
                let e = self.sdk_error("eks:DescribeAccessEntry", e);
                if e.is_not_found() { Ok(None) } else { Err(e) }
            }
        }
    }

    /// `eks:DeleteAccessEntry`; an entry already gone is fine.
    pub async fn delete_access_entry(&self, cluster: &str, principal: &str) -> Result<(), AwsError> {
        match self
            .eks()
            .await
            .delete_access_entry()
            .cluster_name(cluster)
            .principal_arn(principal)
            .send()
            .await
        {
            Ok(_) => Ok(()),
            Err(e) => {
                let e = self.sdk_error("eks:DeleteAccessEntry", e);
                if e.is_not_found() { Ok(()) } else { Err(e) }
            }
        }
    }

    /// `eks:ListAccessEntries`: the principal ARNs with an entry.
    pub async fn list_access_entries(&self, cluster: &str) -> Result<Vec<String>, AwsError> {
        let mut out = Vec::new();
        let mut pages = self
            .eks()
            .await
            .list_access_entries()
            .cluster_name(cluster)
            .into_paginator()
            .send();
        while let Some(page) = pages.next().await {
            let page = page.map_err(|e| self.sdk_error("eks:ListAccessEntries", e))?;
            out.extend(page.access_entries().iter().cloned());
        }
        Ok(out)
    }
}
