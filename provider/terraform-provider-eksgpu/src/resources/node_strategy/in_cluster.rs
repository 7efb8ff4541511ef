//! The in-cluster side of the seam: Karpenter and Auto Mode pools as
//! NodePools and node classes, applied only where the strategy owns them (or
//! adopts them), read back through the provider's field manager, and deleted
//! NodePools first, only when still the strategy's own. The cluster is
//! connected to on first use.

use std::sync::Arc;

use async_trait::async_trait;
use eksgpu_cloud::kube::{ApplyOptions, Cluster, KubeError};
use eksgpu_core::fields::{self, project_ours};
use eksgpu_core::kinds::{self, labels};
use eksgpu_core::model::{NodeStrategy, Pool, StackBlocks};
use eksgpu_core::ownership::{self, Claimant, Owner};
use eksgpu_core::readback;
use eksgpu_core::render::{self, Manifest};
use eksgpu_tfplugin::{AttributePath, Context, Diagnostic, Diagnostics};

use super::plan::manifests;
use super::sides::{Applied, Found, Job, PoolSide};
use crate::diagnostics;
use crate::resources::readiness::{self, Awaited, NotReady};
use crate::resources::{cancellable, connect};

/// The pools the cluster serves, and the connection to it (made on first use).
pub(super) struct InCluster<'a> {
    pub cluster_name: &'a str,
    conn: Option<Arc<dyn Cluster>>,
    /// Per pool, the NodeOverlays read that differ from what the pool renders: by name, the
    /// strategy's fields of the live object, or `None` when it is gone. An overlay has no input
    /// of its own (the pool's labels and the provider's gates make it), so its drift shows in
    /// the pool's `manifests_yaml`, and apply writes it back.
    pub drifted_overlays: std::collections::BTreeMap<String, Vec<(String, Option<serde_json::Value>)>>,
}

impl<'a> InCluster<'a> {
    pub(super) fn new(cluster_name: &'a str) -> Self {
        InCluster {
            cluster_name,
            conn: None,
            drifted_overlays: Default::default(),
        }
    }

    /// The cluster's API, connected to on first use.
    pub(super) async fn connection(
        &mut self,
        c: &crate::provider::Configured,
        diags: &mut Diagnostics,
    ) -> Option<Arc<dyn Cluster>> {
        if self.conn.is_none() {
            self.conn = connect(c, self.cluster_name, diags).await;
        }
        self.conn.clone()
    }

    /// Objects the prior version of a kept pool had and the new one does not
    /// (e.g. an Auto Mode NodeClass no longer declared); returns the pools whose objects remain.
    pub(super) async fn delete_stale(
        &mut self,
        job: &Job<'_>,
        prior: &NodeStrategy,
        planned: &NodeStrategy,
        diags: &mut Diagnostics,
    ) -> Vec<String> {
        let wanted: Vec<(&str, String)> = manifests(planned)
            .iter()
            .map(|m| (m.kind.kind, m.name.clone()))
            .collect();
        let stale: Vec<Manifest> = prior
            .pools
            .iter()
            .filter(|p| {
                planned
                    .pools
                    .iter()
                    .any(|q| q.name == p.name && q.capacity == p.capacity)
            })
            .flat_map(|p| every_object(prior, p))
            .filter(|m| !wanted.contains(&(m.kind.kind, m.name.clone())))
            .collect();
        if stale.is_empty() {
            return Vec::new();
        }
        match self.connection(job.configured, diags).await {
            Some(cluster) => delete_objects(job.ctx, cluster.as_ref(), &job.claimant, &stale, diags).await,
            None => stale.into_iter().map(|m| m.name).collect(),
        }
    }
}

#[async_trait]
impl PoolSide for InCluster<'_> {
    async fn apply(
        &mut self,
        job: &Job<'_>,
        pool: &Pool,
        _prior: Option<&Pool>,
        adopt: bool,
        diags: &mut Diagnostics,
    ) -> Applied {
        let path = super::plan::pool_path(&pool.name);
        let Some(cluster) = self.connection(job.configured, diags).await else {
            return Applied::Failed { touched: false };
        };
        let mut objects = render::pool_manifests(job.strategy, pool);
        if let Some(token) = job.claimant.token {
            for o in &mut objects {
                ownership::stamp(&mut o.body, token);
            }
        }
        let writer = Writer {
            ctx: job.ctx,
            cluster: cluster.as_ref(),
            opts: ApplyOptions {
                field_manager: &job.configured.field_manager,
                force: job.force,
            },
            me: &job.claimant,
            adopt,
        };
        if apply_pool_objects(&writer, &objects, &path, diags).await.is_err() {
            // What this apply created was deleted again; what existed is as the prior state says.
            return Applied::Failed { touched: false };
        }
        let Some(timeout) = job.ready else {
            return Applied::Done;
        };
        match wait_pool_ready(job.ctx, cluster.as_ref(), pool, &objects, timeout).await {
            Ok(()) => Applied::Done,
            Err(d) => {
                diags.push(d.at(path));
                // Applied, not Ready: the objects are in state as planned.
                Applied::Failed { touched: true }
            }
        }
    }

    async fn read(&mut self, job: &Job<'_>, pool: &Pool, diags: &mut Diagnostics) -> Option<Option<Pool>> {
        let cluster = self.connection(job.configured, diags).await?;
        match read_in_cluster_pool(
            job.ctx,
            cluster.as_ref(),
            &job.configured.field_manager,
            job.strategy,
            pool,
            diags,
        )
        .await
        {
            Ok((p, drifted)) => {
                if drifted.is_empty() {
                    self.drifted_overlays.remove(&pool.name);
                } else {
                    self.drifted_overlays.insert(pool.name.clone(), drifted);
                }
                Some(p)
            }
            Err(e) => {
                diags.push(diagnostics::kube_failed(
                    &e,
                    &format!("reading pool {}", pool.name),
                    super::plan::pool_path(&pool.name),
                ));
                None
            }
        }
    }

    async fn delete(&mut self, job: &Job<'_>, pools: &[&Pool], diags: &mut Diagnostics) -> Vec<String> {
        let objects: Vec<Manifest> = pools.iter().flat_map(|p| every_object(job.strategy, p)).collect();
        if objects.is_empty() {
            return Vec::new();
        }
        match self.connection(job.configured, diags).await {
            Some(cluster) => delete_objects(job.ctx, cluster.as_ref(), &job.claimant, &objects, diags).await,
            None => pools.iter().map(|p| p.name.clone()).collect(),
        }
    }

    async fn abandon(&mut self, job: &Job<'_>, pools: &[&Pool], diags: &mut Diagnostics) -> Vec<String> {
        // Cheap to make again: deleted, so nothing is left that no state knows.
        self.delete(job, pools, diags).await;
        Vec::new()
    }

    /// NodePools (and node classes) labelled as the strategy's. A cluster
    /// without Karpenter's kinds has none.
    async fn find(&mut self, job: &Job<'_>, diags: &mut Diagnostics) -> Option<Found> {
        let s = job.strategy;
        let cluster = self.connection(job.configured, diags).await?;
        let selector = strategy_selector(s);
        let node_pools =
            match cancellable(job.ctx, "listing NodePools", cluster.list(&kinds::NODE_POOL, &selector)).await {
                Ok(l) => l,
                Err(KubeError::KindNotInstalled { .. }) => Vec::new(),
                Err(e) => {
                    diags.push(diagnostics::kube_failed(&e, "listing NodePools", AttributePath::root()));
                    return None;
                }
            };
        let blocks = node_pools
            .iter()
            .map(readback::stack_blocks_annotation)
            .fold(StackBlocks::default(), StackBlocks::or);
        let strategy = NodeStrategy {
            gpu_operator: blocks.gpu_operator.clone(),
            device_plugin: blocks.device_plugin.clone(),
            ..s.clone()
        };
        let owned = |o: &serde_json::Value| project_ours(o, &job.configured.field_manager, None);
        let mut out = Vec::new();
        for np in &node_pools {
            let pool_name = np["metadata"]["name"].as_str().unwrap_or_default().to_owned();
            let dra = readback::pool_annotation(np).unwrap_or(false);
            let node_class = match fetch_node_class(job.ctx, cluster.as_ref(), np).await {
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
            out.push(readback::import_pool(
                &strategy,
                &pool_name,
                dra,
                &owned(np),
                node_class.as_ref(),
            ));
        }
        Some((out, blocks))
    }
}

/// The label selector of the objects a strategy made in its cluster (import lists them by it).
pub(super) fn strategy_selector(s: &NodeStrategy) -> String {
    format!(
        "{}={},{}={}",
        labels::STRATEGY,
        s.name,
        labels::CLUSTER,
        labels::cluster_value(&s.cluster_name)
    )
}

/// What a pool may have left in the cluster: its objects as rendered, and the NodeOverlays it
/// would render with the `nodeOverlay` gate on, so that turning the gate off (or a layout that
/// no longer needs one) deletes an overlay applied before. Deleting an object that is not there
/// is a no-op.
fn every_object(s: &NodeStrategy, pool: &Pool) -> Vec<Manifest> {
    let gated = NodeStrategy {
        karpenter_gates: eksgpu_core::karpenter_gates::FeatureGates {
            node_overlay: true,
            ..s.karpenter_gates
        },
        ..s.clone()
    };
    let mut out = render::pool_manifests(s, pool);
    for m in render::pool_manifests(&gated, pool) {
        if !out.iter().any(|o| o.kind == m.kind && o.name == m.name) {
            out.push(m);
        }
    }
    out
}

/// The overlays read: by name, our fields of the live object (`None`: gone).
type Overlays = Vec<(String, Option<serde_json::Value>)>;

/// Reads one in-cluster pool back: `None` when its NodePool is gone; with it the pool's
/// NodeOverlays that differ from what it renders (see `InCluster::drifted_overlays`). A field
/// the strategy writes that another manager now owns whole, or an object
/// another owner took over, is told in a warning: the plan says what the
/// next apply will meet.
async fn read_in_cluster_pool(
    ctx: &Context,
    cluster: &dyn Cluster,
    manager: &str,
    s: &NodeStrategy,
    pool: &Pool,
    diags: &mut Diagnostics,
) -> Result<(Option<Pool>, Overlays), KubeError> {
    let mut node_pool = None;
    let mut node_class = None;
    let mut drifted = Vec::new();
    for m in render::pool_manifests(s, pool) {
        let live = cancellable(
            ctx,
            "reading objects",
            cluster.get(&m.kind, m.namespace.as_deref(), &m.name),
        )
        .await?;
        if let Some(o) = &live {
            warn_shared(&m, o, manager, s, diags);
        }
        // Our fields: what we own now, and what we rendered (a field another
        // manager took over is still ours to report).
        let projected = live.map(|o| project_ours(&o, manager, Some(&m.body)));
        if m.kind == kinds::NODE_POOL {
            node_pool = projected;
        } else if m.kind == kinds::NODE_OVERLAY {
            if projected.as_ref().map(|o| &o["spec"]) != Some(&m.body["spec"]) {
                drifted.push((m.name.clone(), projected));
            }
        } else {
            node_class = projected;
        }
    }
    let pool = node_pool.map(|np| readback::read_back_pool(s, pool, &np, node_class.as_ref()));
    Ok((pool, drifted))
}

/// Waits until each of the pool's objects (node class first) reports `Ready`;
/// the error names the object and carries its controller's condition message.
async fn wait_pool_ready(
    ctx: &Context,
    cluster: &dyn Cluster,
    pool: &Pool,
    objects: &[Manifest],
    timeout: std::time::Duration,
) -> Result<(), Diagnostic> {
    let controller = match pool.capacity {
        eksgpu_core::model::Capacity::AutoMode => "EKS Auto Mode",
        _ => "Karpenter",
    };
    for m in objects {
        let object = format!("{} {}", m.kind.kind, m.name);
        let awaited = Awaited {
            kind: &m.kind,
            namespace: m.namespace.as_deref(),
            name: &m.name,
            controller,
        };
        match readiness::wait_ready(ctx, cluster, &awaited, timeout).await {
            Ok(()) => {}
            Err(NotReady::Kube(e)) => {
                return Err(diagnostics::kube_failed(
                    &e,
                    &format!("waiting for {object} to be Ready"),
                    AttributePath::root(),
                ));
            }
            Err(NotReady::Cancelled) => {
                return Err(Diagnostic::error(
                    format!("Stopped waiting for {object}"),
                    "Terraform was interrupted; the pool's objects were applied.",
                ));
            }
            Err(NotReady::TimedOut(last)) => {
                return Err(Diagnostic::error(
                    format!("{object} not Ready"),
                    format!(
                        "{object} of pool {:?} was applied but is not Ready after {}s: {last}. Nodes of this pool \
                         will not launch until it is. Fix the cause and apply again, or set `wait_for_ready = false` \
                         to apply without waiting.",
                        pool.name,
                        timeout.as_secs()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Warnings for an object of the pool that is no longer wholly the strategy's.
pub(super) fn warn_shared(
    m: &Manifest,
    live: &serde_json::Value,
    manager: &str,
    s: &NodeStrategy,
    diags: &mut Diagnostics,
) {
    let object = format!("{} {}", m.kind.kind, m.name);
    let owner = Owner::of_object(live);
    // Refresh warns about another owner; which instance of this strategy wrote it is not that.
    let me = Claimant {
        cluster: &s.cluster_name,
        name: &s.name,
        prior_name: None,
        token: None,
    };
    if !ownership::may_delete(&owner, &me) {
        diags.push(Diagnostic::warning(
            format!("{object} belongs to someone else now"),
            format!(
                "{object} is labelled as {owner}: the next apply of strategy {:?} refuses to write it, and destroy \
                 leaves it. Remove the pool, or set `adopt = true` on it to take the object back.",
                s.name
            ),
        ));
    }
    for c in fields::co_owned(live, manager, &m.body) {
        let field = c.field.join(".");
        let theirs = c.foreign_keys();
        let dropped = if theirs.is_empty() {
            format!("replaces their value of {field}")
        } else {
            format!("replaces the whole map and drops {}", theirs.join(", "))
        };
        diags.push(Diagnostic::warning(
            format!("{object}: {field} is shared with {:?}", c.manager),
            format!(
                "The upstream CRD makes {field} one field (atomic), and field manager {:?} now owns it with a value \
                 this strategy does not render. The next apply of pool {:?} fails with a field manager conflict; \
                 with `force_conflicts = true` it {dropped}. To keep their entries, add them to the pool's \
                 configuration; otherwise ask the other manager to stop writing {field}.",
                c.manager, m.name
            ),
        ));
    }
}

async fn fetch_node_class(
    ctx: &Context,
    cluster: &dyn Cluster,
    node_pool: &serde_json::Value,
) -> Result<Option<serde_json::Value>, KubeError> {
    let r = &node_pool["spec"]["template"]["spec"]["nodeClassRef"];
    let kind = match r["group"].as_str() {
        Some(g) if g == kinds::EC2_NODE_CLASS.group => kinds::EC2_NODE_CLASS,
        // The built-in Auto Mode NodeClass is not ours.
        Some(g) if g == kinds::AUTO_MODE_NODE_CLASS.group && r["name"] != "default" => kinds::AUTO_MODE_NODE_CLASS,
        _ => return Ok(None),
    };
    let Some(name) = r["name"].as_str() else {
        return Ok(None);
    };
    cancellable(ctx, "reading node classes", cluster.get(&kind, None, name)).await
}

/// Applies one pool's objects (node class first, then its NodePool), each
/// only after checking that the strategy owns it or the pool adopts it. On a
/// failure the objects this call created are deleted again, so none is left
/// that no state knows; the diagnostic is pushed and `Err` returned.
pub(super) async fn apply_pool_objects(
    w: &Writer<'_>,
    objects: &[Manifest],
    path: &AttributePath,
    diags: &mut Diagnostics,
) -> Result<(), ()> {
    let Writer { ctx, cluster, me, .. } = *w;
    let mut created: Vec<&Manifest> = Vec::new();
    for m in objects {
        if let Err(d) = apply_owned(w, m, path, &mut created).await {
            diags.push(d);
            let rolled_back: Vec<Manifest> = created.into_iter().cloned().collect();
            let mut ignore = Diagnostics::default();
            let left_names = delete_objects(ctx, cluster, me, &rolled_back, &mut ignore).await;
            // Kind and name: a pool's NodePool and node class share its name.
            let left: Vec<String> = rolled_back
                .iter()
                .filter(|m| left_names.contains(&m.name))
                .map(|m| format!("{} {}", m.kind.kind, m.name))
                .collect();
            if !left.is_empty() {
                // The objects and strategy in the summary: Terraform folds warnings of equal
                // summary and detail into "(and N more similar warnings)".
                diags.push(Diagnostic::warning(
                    format!(
                        "Objects left after a failed apply of strategy {:?}: {}",
                        me.name,
                        left.join(", ")
                    ),
                    format!(
                        "{} created {} before the failure and could not delete it again; it carries this \
                         strategy's labels, so the next apply takes it over.",
                        me.name,
                        left.join(", ")
                    ),
                ));
            }
            return Err(());
        }
    }
    Ok(())
}

/// Who writes a pool's objects, where, and whether the pool adopts what it finds.
#[derive(Clone, Copy)]
pub(super) struct Writer<'a> {
    pub ctx: &'a Context,
    pub cluster: &'a dyn Cluster,
    pub opts: ApplyOptions<'a>,
    pub me: &'a Claimant<'a>,
    pub adopt: bool,
}

async fn apply_owned<'m>(
    w: &Writer<'_>,
    m: &'m Manifest,
    path: &AttributePath,
    created: &mut Vec<&'m Manifest>,
) -> Result<(), Diagnostic> {
    let Writer {
        ctx,
        cluster,
        opts,
        me,
        adopt,
    } = *w;
    let object = format!("{} {}", m.kind.kind, m.name);
    let what = format!("reading {object}");
    let live = cancellable(ctx, &what, cluster.get(&m.kind, m.namespace.as_deref(), &m.name))
        .await
        .map_err(|e| diagnostics::kube_failed(&e, &what, path.clone()))?;
    let owner = live.as_ref().map(Owner::of_object);
    if let Err(e) = ownership::check_write(&object, owner.clone(), me, adopt) {
        return Err(
            Diagnostic::error(format!("{object} is not this strategy's"), e.how_to_hand_over()).at(path.clone()),
        );
    }
    // Adopting takes over the fields other managers set (server-side apply's force).
    let adopting = owner.as_ref().is_some_and(|o| !me.owns(o));
    let opts = ApplyOptions {
        force: opts.force || adopting,
        ..opts
    };
    let what = format!("applying {object}");
    cancellable(
        ctx,
        &what,
        cluster.apply(&m.kind, m.namespace.as_deref(), &m.name, &m.body, opts),
    )
    .await
    .map_err(|e| diagnostics::kube_failed(&e, &what, path.clone()))?;
    if live.is_none() {
        created.push(m);
    }
    Ok(())
}

/// Deletes objects, node pools first, each only while it is still the
/// strategy's own (one another owner took over is left, with a warning);
/// returns the names of objects that remain because a delete failed.
pub(super) async fn delete_objects(
    ctx: &Context,
    cluster: &dyn Cluster,
    me: &Claimant<'_>,
    objects: &[Manifest],
    diags: &mut Diagnostics,
) -> Vec<String> {
    let mut remaining = Vec::new();
    let mut ordered: Vec<&Manifest> = objects.iter().filter(|m| m.kind == kinds::NODE_POOL).collect();
    ordered.extend(objects.iter().filter(|m| m.kind != kinds::NODE_POOL));
    for m in ordered {
        let object = format!("{} {}", m.kind.kind, m.name);
        let what = format!("deleting {object}");
        let live = match cancellable(ctx, &what, cluster.get(&m.kind, m.namespace.as_deref(), &m.name)).await {
            // A cluster without the kind (no NodeOverlay CRD) has no such object.
            Ok(None) | Err(KubeError::KindNotInstalled { .. }) => continue,
            Ok(Some(live)) => live,
            Err(e) => {
                diags.push(diagnostics::kube_failed(&e, &what, AttributePath::attr("pools")));
                remaining.push(m.name.clone());
                continue;
            }
        };
        let owner = Owner::of_object(&live);
        if !ownership::may_delete(&owner, me) {
            diags.push(super::sides::left_in_place(&object, &owner, me));
            continue;
        }
        if let Err(e) = cancellable(ctx, &what, cluster.delete(&m.kind, m.namespace.as_deref(), &m.name)).await {
            diags.push(diagnostics::kube_failed(&e, &what, AttributePath::attr("pools")));
            if !remaining.contains(&m.name) {
                remaining.push(m.name.clone());
            }
        }
    }
    remaining
}
