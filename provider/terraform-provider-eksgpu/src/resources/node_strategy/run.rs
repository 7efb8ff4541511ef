//! One apply, read or import of a strategy's pools: the provider's clients
//! and the two sides of the seam (`sides`), the cluster (`InCluster`, which
//! connects only when an in-cluster pool needs it) and EKS (`EksApi`). Run
//! picks a pool's side by its capacity kind; the sides do the work.

use eksgpu_core::eks::ClusterFacts;
use eksgpu_core::model::rules as strategy_rules;
use eksgpu_core::model::{Capacity, NodeStrategy, Pool};
use eksgpu_core::ownership::Claimant;
use eksgpu_tfplugin::{AttributePath, Context, Diagnostic, Diagnostics, Value};

use super::eks_api::{EksApi, Failure};
use super::in_cluster::InCluster;
use super::sides::{Applied, Found, Job, PoolSide};
use super::timeouts::Timeouts;
use crate::diagnostics;
use crate::resources::cancellable;

/// One apply, read or import: what every call shares, and both sides.
pub(super) struct Run<'a> {
    run: RunSettings<'a>,
    in_cluster: InCluster<'a>,
    eks: EksApi<'a>,
}

/// What the calls of one apply, read or import share.
struct RunSettings<'a> {
    ctx: &'a Context,
    configured: &'a crate::provider::Configured,
    force: bool,
    /// The cluster as the apply-time checks read it.
    facts: Option<ClusterFacts>,
    /// The strategy's name before the rename being applied: what that name
    /// made is the strategy's own too.
    prior_name: Option<String>,
    /// The `owner_token` of the resource instance this run is for: written on every object it
    /// applies, and what a delete requires of an object (`ownership::may_delete`).
    token: Option<String>,
    /// `wait_for_ready`: how long to wait for each in-cluster object's `Ready`.
    ready: Option<std::time::Duration>,
}

impl RunSettings<'_> {
    /// The job of one call on strategy `s`; `owner` names whose objects the
    /// side may touch (the planned strategy, when a rename is applied).
    fn job<'s>(&'s self, s: &'s NodeStrategy, owner: &'s NodeStrategy, planned: Option<&'s NodeStrategy>) -> Job<'s> {
        Job {
            ctx: self.ctx,
            configured: self.configured,
            strategy: s,
            claimant: Claimant {
                cluster: &owner.cluster_name,
                name: &owner.name,
                prior_name: self.prior_name.as_deref().filter(|p| *p != owner.name),
                token: self.token.as_deref(),
            },
            force: self.force,
            ready: self.ready,
            facts: self.facts.as_ref(),
            planned,
        }
    }
}

impl<'a> Run<'a> {
    pub(super) fn new(
        ctx: &'a Context,
        c: &'a crate::provider::Configured,
        cluster: &'a str,
        timeouts: Timeouts,
        force: bool,
    ) -> Self {
        Run {
            run: RunSettings {
                ctx,
                configured: c,
                force,
                facts: None,
                prior_name: None,
                token: None,
                ready: None,
            },
            in_cluster: InCluster::new(cluster),
            eks: EksApi {
                aws: &c.aws,
                ctx,
                timeouts,
                cluster,
            },
        }
    }

    /// Applies a rename: objects labelled with `prior` are the strategy's too.
    pub(super) fn renamed_from(&mut self, prior: Option<String>) {
        self.run.prior_name = prior;
    }

    /// The resource instance's `owner_token` (none for states written before tokens).
    pub(super) fn owner_token(&mut self, token: Option<String>) {
        self.run.token = token;
    }

    /// `wait_for_ready` with its timeout.
    pub(super) fn wait_for_ready(&mut self, timeout: std::time::Duration) {
        self.run.ready = Some(timeout);
    }

    /// The cluster's Kubernetes version: from its API when in-cluster pools
    /// need a connection anyway, else from `DescribeCluster`.
    pub(super) async fn kubernetes_version(&mut self, s: &NodeStrategy, diags: &mut Diagnostics) -> Option<String> {
        let what = "reading the Kubernetes version";
        let path = AttributePath::attr("kubernetes_version");
        if s.pools.iter().any(|p| p.capacity.is_in_cluster()) || s.pools.is_empty() {
            let cluster = self.in_cluster.connection(self.run.configured, diags).await?;
            return match cancellable(self.run.ctx, what, cluster.server_version()).await {
                Ok(v) => Some(v),
                Err(e) => {
                    diags.push(diagnostics::kube_failed(&e, what, path));
                    None
                }
            };
        }
        match self.run.configured.aws.cluster(self.eks.cluster).await {
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
        let eks_api = s.pools.iter().any(|p| !p.capacity.is_in_cluster());
        // Auto Mode flags come free with the DescribeCluster made to connect (not with a `kubernetes` block).
        let auto_mode =
            s.pools.iter().any(|p| p.capacity == Capacity::AutoMode) && self.run.configured.kubernetes.is_none();
        if !eks_api && !auto_mode {
            return true;
        }
        let facts = if s.pools.iter().any(|p| p.capacity == Capacity::Hybrid) {
            self.eks.facts_with_vpc().await
        } else {
            self.run
                .configured
                .aws
                .cluster(self.eks.cluster)
                .await
                .map_err(Failure::from)
        };
        let facts = match facts {
            Ok(f) => f,
            Err(e) => {
                diags.push(e.diagnostic("reading the cluster", AttributePath::attr("cluster_name")));
                return false;
            }
        };
        let mut ok = true;
        for v in strategy_rules::check_against_cluster(s, &facts) {
            ok &= v.severity != eksgpu_core::rules::Severity::Error;
            diags.push(diagnostics::violation(&v));
        }
        self.run.facts = Some(facts);
        ok
    }

    /// Applies `pool` of `s` on its side.
    pub(super) async fn apply_pool(
        &mut self,
        s: &NodeStrategy,
        pool: &Pool,
        prior: Option<&Pool>,
        adopt: bool,
        diags: &mut Diagnostics,
    ) -> Applied {
        let job = self.run.job(s, s, None);
        let side: &mut dyn PoolSide = if pool.capacity.is_in_cluster() {
            &mut self.in_cluster
        } else {
            &mut self.eks
        };
        match side.apply(&job, pool, prior, adopt, diags).await {
            // Then what the pool's workloads use beside it (its ComputeDomain), on any side.
            Applied::Done => self.in_cluster.apply_companions(&job, pool, adopt, diags).await,
            failed => failed,
        }
    }

    /// One pool as it is now: `Some(None)` when it is gone, `None` after a diagnostic.
    pub(super) async fn read_pool(
        &mut self,
        s: &NodeStrategy,
        pool: &Pool,
        diags: &mut Diagnostics,
    ) -> Option<Option<Pool>> {
        let job = self.run.job(s, s, None);
        let side: &mut dyn PoolSide = if pool.capacity.is_in_cluster() {
            &mut self.in_cluster
        } else {
            &mut self.eks
        };
        let read = side.read(&job, pool, diags).await?;
        if read.is_some() {
            self.in_cluster.read_companions(&job, pool, diags).await?;
        }
        Some(read)
    }

    /// The NodeOverlays and ComputeDomains of `pool` that the last read found drifted or gone
    /// (see `InCluster::drifted_overlays`).
    pub(super) fn drifted_overlays(&self, pool: &str) -> Option<&[(String, Option<serde_json::Value>)]> {
        self.in_cluster.drifted_overlays.get(pool).map(Vec::as_slice)
    }

    /// Deletes `pools` of strategy `prior` (all of their objects); returns the
    /// names of pools whose objects remain. `planned`: what the strategy
    /// becomes (its name owns the objects after a rename; a hybrid pool there
    /// keeps the cluster's remote networks).
    pub(super) async fn delete_pools(
        &mut self,
        prior: &NodeStrategy,
        planned: Option<&NodeStrategy>,
        pools: &[Pool],
        diags: &mut Diagnostics,
    ) -> Vec<String> {
        let job = self.run.job(prior, planned.unwrap_or(prior), planned);
        let all: Vec<&Pool> = pools.iter().collect();
        // What the pools' workloads used beside them goes first.
        let mut remaining = self.in_cluster.delete_companions(&job, &all, diags).await;
        let (in_cluster, aws): (Vec<&Pool>, Vec<&Pool>) = pools.iter().partition(|p| p.capacity.is_in_cluster());
        if !in_cluster.is_empty() {
            remaining.extend(self.in_cluster.delete(&job, &in_cluster, diags).await);
        }
        if !aws.is_empty() {
            remaining.extend(self.eks.delete(&job, &aws, diags).await);
        }
        remaining
    }

    /// In-cluster objects the prior version of a kept pool had and the new one does not.
    pub(super) async fn delete_stale_objects(
        &mut self,
        prior: &NodeStrategy,
        planned: &NodeStrategy,
        diags: &mut Diagnostics,
    ) -> Vec<String> {
        let job = self.run.job(prior, planned, Some(planned));
        let mut remaining = self.in_cluster.delete_stale(&job, prior, planned, diags).await;
        remaining.extend(
            self.in_cluster
                .delete_stale_companions(&job, prior, planned, diags)
                .await,
        );
        remaining
    }

    /// After a failed create: each side undoes or keeps what the pools in
    /// `made` (pool values) made; what stays is named in a warning.
    pub(super) async fn abandon_create(
        &mut self,
        s: &NodeStrategy,
        made: &std::collections::BTreeMap<String, Value>,
        diags: &mut Diagnostics,
    ) {
        let pools: Vec<&Pool> = s.pools.iter().filter(|p| made.contains_key(&p.name)).collect();
        let job = self.run.job(s, s, None);
        // Cheap to make again: deleted, so nothing is left that no state knows. One another owner
        // holds (the reason the create failed) is left without a word: this apply never made it.
        let mut companions = Diagnostics::default();
        self.in_cluster.delete_companions(&job, &pools, &mut companions).await;
        for d in companions
            .iter()
            .filter(|d| d.severity == eksgpu_tfplugin::Severity::Error)
        {
            diags.push(d.clone());
        }
        let (in_cluster, aws): (Vec<&Pool>, Vec<&Pool>) = pools.into_iter().partition(|p| p.capacity.is_in_cluster());
        let mut kept = self.in_cluster.abandon(&job, &in_cluster, diags).await;
        kept.extend(self.eks.abandon(&job, &aws, diags).await);
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

    /// The strategy's pools each side finds (import), in-cluster first, each
    /// with its own diagnostics: one side failing matters only when the other found nothing.
    pub(super) async fn find(&mut self, s: &NodeStrategy) -> [(&'static str, Option<Found>, Diagnostics); 2] {
        let job = self.run.job(s, s, None);
        let mut in_cluster_diags = Diagnostics::default();
        let mut in_cluster = self.in_cluster.find(&job, &mut in_cluster_diags).await;
        let mut aws_diags = Diagnostics::default();
        let mut aws = self.eks.find(&job, &mut aws_diags).await;
        // ComputeDomains sit beside pools of either side.
        for (found, d) in [(&mut in_cluster, &mut in_cluster_diags), (&mut aws, &mut aws_diags)] {
            if let Some((pools, _)) = found {
                self.in_cluster.find_compute_domains(&job, pools, d).await;
            }
        }
        [
            ("in-cluster", in_cluster, in_cluster_diags),
            ("EKS API", aws, aws_diags),
        ]
    }
}
