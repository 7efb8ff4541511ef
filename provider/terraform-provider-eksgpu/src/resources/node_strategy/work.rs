//! One apply, read or import of a strategy's pools: the provider's clients,
//! the cluster connection (made only when an in-cluster pool needs it), and
//! the AWS-side pools. Pools are applied, read and deleted by capacity kind:
//! in-cluster (`in_cluster`) or through the EKS API (`aws_pools`).

use std::sync::Arc;

use eksgpu_cloud::kube::{ApplyOptions, Cluster, KubeError};
use eksgpu_core::eks::{self, NodeGroupStatus};
use eksgpu_core::fields::project_ours;
use eksgpu_core::kinds::{self, labels};
use eksgpu_core::model::{Capacity, NodeStrategy, Pool};
use eksgpu_core::render::{self, Manifest};
use eksgpu_core::{readback, rules};
use eksgpu_tfplugin::{AttributePath, Context, Diagnostic, Diagnostics, Value};

use super::aws_pools::{AwsPools, Failure};
use eksgpu_core::ownership::Claimant;

use super::in_cluster::{
    Writer, apply_pool_objects, delete_objects, fetch_node_class, read_in_cluster_pool, wait_pool_ready,
};
use super::plan::manifests;
use super::timeouts::Timeouts;
use crate::diagnostics;
use crate::resources::{cancellable, connect};

/// How applying one pool went.
pub(super) enum Applied {
    Done,
    /// `touched`: an AWS object was created or changed before the failure.
    Failed {
        touched: bool,
    },
}

/// One apply, read or import: the provider's clients, the cluster connection
/// (made only when an in-cluster pool needs it), and the AWS-side pools.
pub(super) struct Work<'a> {
    ctx: &'a Context,
    c: &'a crate::provider::Configured,
    pub(super) aws: AwsPools<'a>,
    kube: Option<Arc<dyn Cluster>>,
    force: bool,
    /// The cluster as the apply-time checks read it.
    facts: Option<eksgpu_core::eks::ClusterFacts>,
    /// The strategy's name before the rename being applied: what that name
    /// made is the strategy's own too.
    pub(super) prior_name: Option<String>,
    /// `wait_for_ready`: how long to wait for each in-cluster object's `Ready`.
    pub(super) ready: Option<std::time::Duration>,
}

impl<'a> Work<'a> {
    pub(super) fn new(
        ctx: &'a Context,
        c: &'a crate::provider::Configured,
        cluster: &'a str,
        timeouts: Timeouts,
        force: bool,
    ) -> Self {
        Work {
            ctx,
            c,
            aws: AwsPools {
                aws: &c.aws,
                ctx,
                timeouts,
                cluster,
            },
            kube: None,
            force,
            facts: None,
            prior_name: None,
            ready: None,
        }
    }

    /// The strategy `s` as an owner: its objects carry its name, or the name it had before a rename.
    pub(super) fn claimant<'s>(&'s self, s: &'s NodeStrategy) -> Claimant<'s> {
        Claimant {
            cluster: &s.cluster_name,
            name: &s.name,
            prior_name: self.prior_name.as_deref().filter(|p| *p != s.name),
        }
    }

    pub(super) async fn kube(&mut self, diags: &mut Diagnostics) -> Option<Arc<dyn Cluster>> {
        if self.kube.is_none() {
            self.kube = connect(self.c, self.aws.cluster, diags).await;
        }
        self.kube.clone()
    }

    /// The cluster's Kubernetes version: from its API when in-cluster pools
    /// need a connection anyway, else from `DescribeCluster`.
    pub(super) async fn kubernetes_version(&mut self, s: &NodeStrategy, diags: &mut Diagnostics) -> Option<String> {
        let what = "reading the Kubernetes version";
        let path = AttributePath::attr("kubernetes_version");
        if s.pools.iter().any(|p| p.capacity.is_in_cluster()) || s.pools.is_empty() {
            let cluster = self.kube(diags).await?;
            return match cancellable(self.ctx, what, cluster.server_version()).await {
                Ok(v) => Some(v),
                Err(e) => {
                    diags.push(diagnostics::kube_failed(&e, what, path));
                    None
                }
            };
        }
        match self.c.aws.cluster(self.aws.cluster).await {
            Ok(f) if f.version.is_some() => f.version,
            Ok(_) => {
                diags.error_at(
                    path,
                    "Unknown Kubernetes version",
                    "DescribeCluster reported no version; set kubernetes_version.",
                );
                None
            }
            Err(e) => {
                diags.push(diagnostics::aws_failed(&e, path));
                None
            }
        }
    }

    /// EKSGPU007 (VPC and service CIDRs), 008 and 018 against the cluster; `false` when an error fired.
    pub(super) async fn check_against_cluster(&mut self, s: &NodeStrategy, diags: &mut Diagnostics) -> bool {
        let aws_side = s.pools.iter().any(|p| !p.capacity.is_in_cluster());
        // Auto Mode flags come free with the DescribeCluster made to connect (not with a `kubernetes` block).
        let auto_mode = s.pools.iter().any(|p| p.capacity == Capacity::AutoMode) && self.c.kubernetes.is_none();
        if !aws_side && !auto_mode {
            return true;
        }
        let facts = if s.pools.iter().any(|p| p.capacity == Capacity::Hybrid) {
            self.aws.facts_with_vpc().await
        } else {
            self.c.aws.cluster(self.aws.cluster).await.map_err(Failure::from)
        };
        let facts = match facts {
            Ok(f) => f,
            Err(e) => {
                diags.push(e.diagnostic("reading the cluster", AttributePath::attr("cluster_name")));
                return false;
            }
        };
        let mut ok = true;
        for v in rules::check_against_cluster(s, &facts) {
            ok &= v.severity != rules::Severity::Error;
            diags.push(diagnostics::violation(&v));
        }
        self.facts = Some(facts);
        ok
    }

    pub(super) async fn apply_pool(
        &mut self,
        s: &NodeStrategy,
        i: usize,
        pool: &Pool,
        prior: Option<&Pool>,
        adopt: bool,
        diags: &mut Diagnostics,
    ) -> Applied {
        let path = AttributePath::attr("pool").index(i);
        match pool.capacity {
            Capacity::AutoMode | Capacity::Karpenter => {
                let Some(cluster) = self.kube(diags).await else {
                    return Applied::Failed { touched: false };
                };
                let opts = ApplyOptions {
                    field_manager: &self.c.field_manager,
                    force: self.force,
                };
                let objects = render::pool_manifests(s, pool);
                let me = self.claimant(s);
                let writer = Writer {
                    ctx: self.ctx,
                    cluster: cluster.as_ref(),
                    opts,
                    me: &me,
                    adopt,
                };
                match apply_pool_objects(&writer, &objects, &path, diags).await {
                    Ok(()) => match self.ready {
                        Some(timeout) => {
                            match wait_pool_ready(self.ctx, cluster.as_ref(), pool, &objects, timeout).await {
                                Ok(()) => Applied::Done,
                                Err(d) => {
                                    diags.push(d.at(path));
                                    // Applied, not Ready: the objects are in state as planned.
                                    Applied::Failed { touched: true }
                                }
                            }
                        }
                        None => Applied::Done,
                    },
                    // What this apply created was deleted again; what existed is as the prior state says.
                    Err(()) => Applied::Failed { touched: false },
                }
            }
            Capacity::ManagedNodeGroup => {
                let Some(want) = eks::node_group(s, i, pool) else {
                    return Applied::Done;
                };
                match self.aws.apply_node_group(&want, &self.claimant(s), adopt).await {
                    Ok(()) => Applied::Done,
                    Err(f) => {
                        diags.push(
                            f.failure
                                .diagnostic(&format!("applying node group {}", want.name), path),
                        );
                        Applied::Failed { touched: f.touched }
                    }
                }
            }
            Capacity::Hybrid => {
                let Some(h) = &pool.hybrid else {
                    return Applied::Done;
                };
                let prior_role = prior.and_then(|p| p.hybrid.as_ref()).map(|h| h.node_role_arn.as_str());
                match self
                    .aws
                    .apply_hybrid(
                        h,
                        eks::pool_tags(s, i, pool),
                        prior_role,
                        self.facts.as_ref(),
                        &self.claimant(s),
                        adopt,
                    )
                    .await
                {
                    Ok(()) => Applied::Done,
                    Err(f) => {
                        diags.push(f.failure.diagnostic("applying the hybrid pool", path));
                        Applied::Failed { touched: f.touched }
                    }
                }
            }
        }
    }

    /// Deletes `pools` of strategy `prior` (all of their objects); returns the
    /// names of pools whose objects remain. `planned`: what the strategy
    /// becomes (a hybrid pool there keeps the cluster's remote networks).
    pub(super) async fn delete_pools(
        &mut self,
        prior: &NodeStrategy,
        planned: Option<&NodeStrategy>,
        pools: &[Pool],
        diags: &mut Diagnostics,
    ) -> Vec<String> {
        let mut remaining = Vec::new();
        let in_cluster: Vec<Manifest> = pools
            .iter()
            .filter(|p| p.capacity.is_in_cluster())
            .flat_map(|p| render::pool_manifests(prior, p))
            .collect();
        if !in_cluster.is_empty() {
            let owner = planned.unwrap_or(prior);
            match self.kube(diags).await {
                Some(cluster) => remaining.extend(
                    delete_objects(self.ctx, cluster.as_ref(), &self.claimant(owner), &in_cluster, diags).await,
                ),
                None => remaining.extend(
                    pools
                        .iter()
                        .filter(|p| p.capacity.is_in_cluster())
                        .map(|p| p.name.clone()),
                ),
            }
        }
        let keep_networks = planned.is_some_and(|s| s.pools.iter().any(|p| p.capacity == Capacity::Hybrid));
        let me = self.claimant(planned.unwrap_or(prior));
        for pool in pools {
            let result = match (pool.capacity, &pool.hybrid) {
                (Capacity::ManagedNodeGroup, _) => {
                    let name = eks::node_group_name(prior, pool);
                    match self.aws.delete_own_node_group(&name, &me).await {
                        Ok(Some(owner)) => {
                            diags.push(Diagnostic::warning(
                                format!("Node group {name} left in place"),
                                format!(
                                    "Node group {name} now belongs to {owner}, not to strategy {:?}, so it was \
                                     not deleted; the strategy no longer tracks it.",
                                    me.name
                                ),
                            ));
                            Ok(())
                        }
                        Ok(None) => Ok(()),
                        Err(e) => Err((e, format!("deleting node group {name}"))),
                    }
                }
                (Capacity::Hybrid, Some(h)) => self
                    .aws
                    .delete_hybrid(h, keep_networks, &me)
                    .await
                    .map_err(|e| (e, "deleting the hybrid pool".to_owned())),
                _ => Ok(()),
            };
            if let Err((e, what)) = result {
                diags.push(e.diagnostic(&what, AttributePath::attr("pool")));
                remaining.push(pool.name.clone());
            }
        }
        remaining
    }

    /// After a failed create: deletes the in-cluster objects of the pools in
    /// `made` (pool values), and names the AWS objects that stay for the next
    /// apply to take over.
    pub(super) async fn abandon_create(&mut self, s: &NodeStrategy, made: &[Value], diags: &mut Diagnostics) {
        let pools: Vec<&Pool> = made
            .iter()
            .filter_map(|v| v.get("name").as_str())
            .filter_map(|n| s.pools.iter().find(|p| p.name == n))
            .collect();
        let in_cluster: Vec<Manifest> = pools
            .iter()
            .filter(|p| p.capacity.is_in_cluster())
            .flat_map(|p| render::pool_manifests(s, p))
            .collect();
        if !in_cluster.is_empty()
            && let Some(cluster) = self.kube(diags).await
        {
            let me = self.claimant(s);
            delete_objects(self.ctx, cluster.as_ref(), &me, &in_cluster, diags).await;
        }
        let kept: Vec<String> = pools
            .iter()
            .filter_map(|p| match p.capacity {
                Capacity::ManagedNodeGroup => Some(format!("node group {}", eks::node_group_name(s, p))),
                Capacity::Hybrid => p
                    .hybrid
                    .as_ref()
                    .map(|h| format!("the access entry of {}", h.node_role_arn)),
                _ => None,
            })
            .collect();
        if !kept.is_empty() {
            diags.push(Diagnostic::warning(
                "AWS objects kept for the next apply",
                format!(
                    "The strategy was not created, but {} exists: it carries the tags of strategy {:?} in cluster \
                     {}, and the next apply of this strategy takes it over as it is (nothing is created twice). \
                     If the strategy is not applied again, delete it in EKS.",
                    kept.join(", "),
                    s.name,
                    s.cluster_name
                ),
            ));
        }
    }

    /// In-cluster objects the prior version of a kept pool had and the new one does not
    /// (e.g. an Auto Mode NodeClass no longer declared); returns pools whose objects remain.
    pub(super) async fn delete_stale_objects(
        &mut self,
        prior: &NodeStrategy,
        planned: &NodeStrategy,
        diags: &mut Diagnostics,
    ) -> Vec<String> {
        let wanted: Vec<(&str, String)> = manifests(planned)
            .iter()
            .map(|m| (m.kind.kind, m.name.clone()))
            .collect();
        let kept: Vec<&Pool> = prior
            .pools
            .iter()
            .filter(|p| {
                planned
                    .pools
                    .iter()
                    .any(|q| q.name == p.name && q.capacity == p.capacity)
            })
            .collect();
        let stale: Vec<Manifest> = kept
            .into_iter()
            .flat_map(|p| render::pool_manifests(prior, p))
            .filter(|m| !wanted.contains(&(m.kind.kind, m.name.clone())))
            .collect();
        if stale.is_empty() {
            return Vec::new();
        }
        match self.kube(diags).await {
            Some(cluster) => delete_objects(self.ctx, cluster.as_ref(), &self.claimant(planned), &stale, diags).await,
            None => stale.into_iter().map(|m| m.name).collect(),
        }
    }

    /// One pool as it is now: `Some(None)` when it is gone, `None` after a diagnostic.
    pub(super) async fn read_pool(
        &mut self,
        s: &NodeStrategy,
        i: usize,
        pool: &Pool,
        diags: &mut Diagnostics,
    ) -> Option<Option<Pool>> {
        let path = AttributePath::attr("pool").index(i);
        match pool.capacity {
            Capacity::AutoMode | Capacity::Karpenter => {
                let cluster = self.kube(diags).await?;
                match read_in_cluster_pool(self.ctx, cluster.as_ref(), &self.c.field_manager, s, pool, diags).await {
                    Ok(p) => Some(p),
                    Err(e) => {
                        diags.push(diagnostics::kube_failed(
                            &e,
                            &format!("reading pool {}", pool.name),
                            path,
                        ));
                        None
                    }
                }
            }
            Capacity::ManagedNodeGroup => {
                let name = eks::node_group_name(s, pool);
                match self.c.aws.describe_node_group(&s.cluster_name, &name).await {
                    // A node group whose creation failed, or that is being deleted, will not
                    // serve the pool: report it gone so the plan creates it again.
                    Ok(Some(ng)) if ng.status.as_ref().is_some_and(NodeGroupStatus::will_not_serve) => {
                        tracing::info!(nodegroup = %name, status = ?ng.status, "node group will not serve the pool");
                        Some(None)
                    }
                    Ok(live) => Some(live.map(|ng| eks::read_back_node_group(s, pool, &ng, false))),
                    Err(e) => {
                        diags.push(diagnostics::aws_failed(&e, path));
                        None
                    }
                }
            }
            Capacity::Hybrid => match self.aws.read_hybrid(pool).await {
                Ok(p) => Some(p),
                Err(e) => {
                    diags.push(e.diagnostic("reading the hybrid pool", path));
                    None
                }
            },
        }
    }

    /// NodePools (and node classes) of strategy `s` in the cluster, with their
    /// recorded index, and the recorded `gpu_operator` settings. A cluster
    /// without Karpenter's kinds has none.
    pub(super) async fn import_in_cluster(
        &mut self,
        s: &NodeStrategy,
        diags: &mut Diagnostics,
    ) -> Option<(Vec<(usize, Pool)>, Option<eksgpu_core::model::GpuOperator>)> {
        let cluster = self.kube(diags).await?;
        let selector = format!("{}={},{}={}", labels::STRATEGY, s.name, labels::CLUSTER, s.cluster_name);
        let node_pools = match cancellable(
            self.ctx,
            "listing NodePools",
            cluster.list(&kinds::NODE_POOL, &selector),
        )
        .await
        {
            Ok(l) => l,
            Err(KubeError::KindNotInstalled { .. }) => Vec::new(),
            Err(e) => {
                diags.push(diagnostics::kube_failed(&e, "listing NodePools", AttributePath::root()));
                return None;
            }
        };
        let operator = node_pools.iter().find_map(readback::gpu_operator_annotation);
        let strategy = NodeStrategy {
            gpu_operator: operator.clone(),
            ..s.clone()
        };
        let mut out = Vec::new();
        for np in &node_pools {
            let pool_name = np["metadata"]["name"].as_str().unwrap_or_default().to_owned();
            let (index, dra) = readback::pool_annotation(np).unwrap_or((usize::MAX, false));
            let owned = |o: &serde_json::Value| project_ours(o, &self.c.field_manager, None);
            let node_class = match fetch_node_class(self.ctx, cluster.as_ref(), np).await {
                Ok(nc) => nc.map(|nc| owned(&nc)),
                Err(e) => {
                    diags.push(diagnostics::kube_failed(
                        &e,
                        "reading node classes",
                        AttributePath::root(),
                    ));
                    return None;
                }
            };
            out.push((
                index,
                readback::import_pool(&strategy, &pool_name, dra, &owned(np), node_class.as_ref()),
            ));
        }
        Some((out, operator))
    }
}
