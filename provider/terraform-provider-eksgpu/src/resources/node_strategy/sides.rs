//! The seam of a node strategy: a pool is served either by the cluster
//! (Karpenter and Auto Mode: NodePools and node classes applied with
//! server-side apply, `in_cluster::InCluster`) or by EKS (managed node groups
//! and Hybrid Nodes through the EKS API, `eks_api::EksApi`). Both sides
//! implement `PoolSide`; `Run` picks the side by capacity kind and knows how
//! neither does its run.

use std::time::Duration;

use async_trait::async_trait;
use eksgpu_core::eks::ClusterFacts;
use eksgpu_core::model::{NodeStrategy, Pool, StackBlocks};
use eksgpu_core::ownership::{self, Claimant, Owner};
use eksgpu_tfplugin::{Context, Diagnostic, Diagnostics};

use crate::provider::Configured;

/// What one call of a side needs to know of the apply, read or import it is part of.
pub(super) struct Job<'a> {
    pub ctx: &'a Context,
    pub configured: &'a Configured,
    /// The strategy the pools belong to: as planned (apply, read, import) or
    /// as it was (delete).
    pub strategy: &'a NodeStrategy,
    /// Whose objects the side may write or delete.
    pub claimant: Claimant<'a>,
    /// `force_conflicts`: take over fields other field managers own.
    pub force: bool,
    /// `wait_for_ready`: how long to wait for each object's own `Ready`.
    pub ready: Option<Duration>,
    /// The cluster as this apply's checks read it.
    pub facts: Option<&'a ClusterFacts>,
    /// On a delete of some pools: what the strategy becomes.
    pub planned: Option<&'a NodeStrategy>,
}

/// How applying one pool went.
pub(super) enum Applied {
    Done,
    /// `touched`: an object was created or changed before the failure (the
    /// pool then belongs in state as planned).
    Failed {
        touched: bool,
    },
}

/// Pools found on one side for an import, and the recorded `gpu_operator` / `device_plugin` settings.
pub(super) type Found = (Vec<Pool>, StackBlocks);

/// One side of the seam: applies, reads, deletes and finds the pools it serves.
#[async_trait]
pub(super) trait PoolSide: Send {
    /// Applies `pool` of `job.strategy`; `prior` is its previous version.
    async fn apply(
        &mut self,
        job: &Job<'_>,
        pool: &Pool,
        prior: Option<&Pool>,
        adopt: bool,
        diags: &mut Diagnostics,
    ) -> Applied;

    /// `pool` as it is now: `Some(None)` when gone, `None` after a diagnostic.
    async fn read(&mut self, job: &Job<'_>, pool: &Pool, diags: &mut Diagnostics) -> Option<Option<Pool>>;

    /// Deletes `pools` of `job.strategy` (what the strategy still owns of them);
    /// returns the names of pools whose objects remain.
    async fn delete(&mut self, job: &Job<'_>, pools: &[&Pool], diags: &mut Diagnostics) -> Vec<String>;

    /// After a failed create, what `pools` made: removed again where that is
    /// cheap; returns what stays for the next apply to take over, in words.
    async fn abandon(&mut self, job: &Job<'_>, pools: &[&Pool], diags: &mut Diagnostics) -> Vec<String>;

    /// The pools of `job.strategy` this side finds (import); `None` after an error diagnostic.
    async fn find(&mut self, job: &Job<'_>, diags: &mut Diagnostics) -> Option<Found>;
}

/// Why a delete left an object: another owner has it, or (a replacement with
/// `create_before_destroy`) the instance of this strategy that replaced this one wrote it last.
pub(super) fn left_in_place(object: &str, owner: &Owner, me: &Claimant<'_>) -> Diagnostic {
    if ownership::replaced_by_successor(owner, me) {
        return Diagnostic::warning(
            format!("{object} kept for the strategy that replaced this one"),
            format!(
                "{object} was last written by the new instance of strategy {:?} (a replacement with \
                 create_before_destroy), so destroying the old instance leaves it.",
                me.name
            ),
        );
    }
    Diagnostic::warning(
        format!("{object} left in place"),
        format!(
            "{object} now belongs to {owner}, not to strategy {:?}, so it was not deleted; the strategy no longer \
             tracks it.",
            me.name
        ),
    )
}
