//! Objects applied in-cluster beside a pool of any capacity kind: the DRA `ComputeDomain` of a
//! `multi_node_nvlink` pool (render::compute_domains), for a node group's pool as well as a
//! NodePool's. They go through the in-cluster side's writer, so ownership is checked as for
//! every other object (another owner's object is refused and named; a delete leaves it), and
//! they are read back for drift like NodeOverlays (shown in the pool's `manifests_yaml`). The
//! cluster is connected to only when a pool has one.
//!
//! A ComputeDomain's spec is immutable (CRD rule `self == oldSelf`,
//! kubernetes-sigs/dra-driver-nvidia-gpu v0.4.1
//! `deployments/helm/dra-driver-nvidia-gpu/crds/resource.nvidia.com_computedomains.yaml`): a live
//! one of the strategy's whose spec differs from what the pool renders is deleted and created
//! again, not patched.
//!
//! The ComputeDomain CRD comes with the NVIDIA DRA driver's chart, whose values are this
//! strategy's `dra_driver_values_yaml`: a configuration that installs the chart from that output
//! applies the strategy first. So a cluster without the kind gets the pool's other objects and a
//! warning, and reads the ComputeDomain as gone: the next apply (the chart installed) creates it.

use eksgpu_cloud::kube::{ApplyOptions, KubeError};
use eksgpu_core::fields::project_ours;
use eksgpu_core::kinds;
use eksgpu_core::model::{NodeStrategy, Pool};
use eksgpu_core::ownership::{self, Owner};
use eksgpu_core::render::{self, Manifest};
use eksgpu_tfplugin::{AttributePath, Diagnostic, Diagnostics};

use super::in_cluster::{InCluster, Writer, apply_pool_objects, delete_objects, strategy_selector, warn_shared};
use super::sides::{Applied, Job};
use crate::diagnostics;
use crate::resources::cancellable;

/// The objects of `pool` applied beside it, stamped with the instance's owner token.
fn companions(job: &Job<'_>, pool: &Pool) -> Vec<Manifest> {
    let mut objects = render::compute_domains(job.strategy, pool);
    if let Some(token) = job.claimant.token {
        for o in &mut objects {
            ownership::stamp(&mut o.body, token);
        }
    }
    objects
}

impl InCluster<'_> {
    /// Applies pool number `i`'s companions after the pool itself. A failure is `touched`: the
    /// pool's own objects were applied.
    pub(super) async fn apply_companions(
        &mut self,
        job: &Job<'_>,
        pool: &Pool,
        adopt: bool,
        diags: &mut Diagnostics,
    ) -> Applied {
        let objects = companions(job, pool);
        if objects.is_empty() {
            return Applied::Done;
        }
        let path = super::plan::pool_path(&pool.name);
        let Some(cluster) = self.connection(job.configured, diags).await else {
            return Applied::Failed { touched: true };
        };
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
        for m in &objects {
            match replace_changed_spec(&writer, m, &path, diags).await {
                Ok(Kind::Installed) => {}
                Ok(Kind::Missing) => {
                    diags.push(not_installed(m, pool).at(path.clone()));
                    return Applied::Done;
                }
                Err(()) => return Applied::Failed { touched: true },
            }
        }
        match apply_pool_objects(&writer, &objects, &path, diags).await {
            Ok(()) => Applied::Done,
            Err(()) => Applied::Failed { touched: true },
        }
    }

    /// Reads `pool`'s companions back: those that differ from what it renders (or are gone) join
    /// the pool's drifted objects. `None` after a diagnostic.
    pub(super) async fn read_companions(&mut self, job: &Job<'_>, pool: &Pool, diags: &mut Diagnostics) -> Option<()> {
        let objects = render::compute_domains(job.strategy, pool);
        if objects.is_empty() {
            return Some(());
        }
        let cluster = self.connection(job.configured, diags).await?;
        let manager = &job.configured.field_manager;
        for m in &objects {
            let what = format!("reading {} {}", m.kind.kind, m.name);
            let live = match cancellable(job.ctx, &what, cluster.get(&m.kind, m.namespace.as_deref(), &m.name)).await {
                Ok(live) => live,
                // Not installed yet (see the module's doc): none is there.
                Err(KubeError::KindNotInstalled { .. }) => None,
                Err(e) => {
                    diags.push(diagnostics::kube_failed(&e, &what, super::plan::pool_path(&pool.name)));
                    return None;
                }
            };
            if let Some(o) = &live {
                warn_shared(m, o, manager, job.strategy, diags);
            }
            let projected = live.map(|o| project_ours(&o, manager, Some(&m.body)));
            if projected.as_ref().map(|o| &o["spec"]) != Some(&m.body["spec"]) {
                self.drifted_overlays
                    .entry(pool.name.clone())
                    .or_default()
                    .push((m.name.clone(), projected));
            }
        }
        Some(())
    }

    /// Import: each found pool whose ComputeDomain (named after the pool, labelled as the
    /// strategy's) is in the cluster is a `multi_node_nvlink` pool, with the ComputeDomain's
    /// namespace unless it is the default one. Looked for only when a pool is `dra` (EKSGPU185: no
    /// other pool has one), across namespaces; a cluster without the kind has none. A failure is a
    /// warning: the pools import without it, and the next plan shows the ComputeDomain to create.
    pub(super) async fn find_compute_domains(&mut self, job: &Job<'_>, pools: &mut [Pool], diags: &mut Diagnostics) {
        if !pools.iter().any(|p| p.dra) {
            return;
        }
        let selector = strategy_selector(job.strategy);
        let not_found = |why: &str, diags: &mut Diagnostics| {
            diags.push(Diagnostic::warning(
                "Could not look for ComputeDomains",
                format!(
                    "The import could not tell which `dra` pools are `multi_node_nvlink`: {why} They were imported \
                     without it: set it in the configuration if they are, and the next apply takes their \
                     ComputeDomains over."
                ),
            ));
        };
        let mut connecting = Diagnostics::default();
        let Some(cluster) = self.connection(job.configured, &mut connecting).await else {
            let why: Vec<String> = connecting.iter().map(|d| d.detail.clone()).collect();
            return not_found(&why.join(" "), diags);
        };
        let what = "listing ComputeDomains";
        let domains = match cancellable(job.ctx, what, cluster.list(&kinds::COMPUTE_DOMAIN, &selector)).await {
            Ok(l) => l,
            Err(KubeError::KindNotInstalled { .. }) => Vec::new(),
            Err(e) => return not_found(&diagnostics::kube_failed(&e, what, AttributePath::root()).detail, diags),
        };
        for pool in pools.iter_mut().filter(|p| p.dra) {
            let Some(cd) = domains.iter().find(|d| d["metadata"]["name"] == pool.name.as_str()) else {
                continue;
            };
            pool.multi_node_nvlink = true;
            let ns = cd["metadata"]["namespace"].as_str().unwrap_or_default();
            pool.compute_domain_namespace =
                (ns != render::DEFAULT_COMPUTE_DOMAIN_NAMESPACE && !ns.is_empty()).then(|| ns.to_owned());
        }
    }

    /// Deletes the companions of `pools` (only what is still the strategy's own); returns the
    /// names of pools whose companions remain because a delete failed.
    pub(super) async fn delete_companions(
        &mut self,
        job: &Job<'_>,
        pools: &[&Pool],
        diags: &mut Diagnostics,
    ) -> Vec<String> {
        let objects: Vec<(String, Manifest)> = pools
            .iter()
            .flat_map(|p| {
                render::compute_domains(job.strategy, p)
                    .into_iter()
                    .map(|m| (p.name.clone(), m))
            })
            .collect();
        self.delete_named(job, objects, diags).await
    }

    /// Companions the prior version of a kept pool had and the new one does not (a ComputeDomain
    /// moved to another namespace, or `multi_node_nvlink` turned off); returns the pools whose
    /// objects remain.
    pub(super) async fn delete_stale_companions(
        &mut self,
        job: &Job<'_>,
        prior: &NodeStrategy,
        planned: &NodeStrategy,
        diags: &mut Diagnostics,
    ) -> Vec<String> {
        let key = |m: &Manifest| (m.kind.kind, m.namespace.clone(), m.name.clone());
        let mut stale = Vec::new();
        for p in &prior.pools {
            let Some(q) = planned.pools.iter().find(|q| q.name == p.name) else {
                continue;
            };
            let wanted: Vec<_> = render::compute_domains(planned, q).iter().map(key).collect();
            stale.extend(
                render::compute_domains(prior, p)
                    .into_iter()
                    .filter(|m| !wanted.contains(&key(m)))
                    .map(|m| (p.name.clone(), m)),
            );
        }
        self.delete_named(job, stale, diags).await
    }

    async fn delete_named(
        &mut self,
        job: &Job<'_>,
        objects: Vec<(String, Manifest)>,
        diags: &mut Diagnostics,
    ) -> Vec<String> {
        if objects.is_empty() {
            return Vec::new();
        }
        let Some(cluster) = self.connection(job.configured, diags).await else {
            return objects.into_iter().map(|(p, _)| p).collect();
        };
        let manifests: Vec<Manifest> = objects.iter().map(|(_, m)| m.clone()).collect();
        let left = delete_objects(job.ctx, cluster.as_ref(), &job.claimant, &manifests, diags).await;
        let mut pools: Vec<String> = objects
            .into_iter()
            .filter(|(_, m)| left.contains(&m.name))
            .map(|(p, _)| p)
            .collect();
        pools.dedup();
        pools
    }
}

/// Whether the cluster serves a companion's kind.
enum Kind {
    Installed,
    Missing,
}

/// The warning of an apply that could not write a companion because its CRD is not installed.
fn not_installed(m: &Manifest, pool: &Pool) -> Diagnostic {
    Diagnostic::warning(
        format!("{} {} not applied yet", m.kind.kind, m.name),
        format!(
            "The cluster does not serve {} ({}): install {}, e.g. with this strategy's dra_driver_values_yaml. \
             Pool {:?}'s other objects were applied; the next apply creates the {} once the kind is served.",
            m.kind.kind,
            m.kind.api_version(),
            m.kind.provided_by,
            pool.name,
            m.kind.kind
        ),
    )
}

/// Deletes a live ComputeDomain of the strategy's whose spec is not the one rendered, so the apply
/// creates it anew (the spec cannot change in place). Another owner's object is left to the
/// writer's ownership check, which refuses it.
async fn replace_changed_spec(
    w: &Writer<'_>,
    m: &Manifest,
    path: &AttributePath,
    diags: &mut Diagnostics,
) -> Result<Kind, ()> {
    let object = format!("{} {}", m.kind.kind, m.name);
    let what = format!("reading {object}");
    let live = match cancellable(w.ctx, &what, w.cluster.get(&m.kind, m.namespace.as_deref(), &m.name)).await {
        Ok(Some(live)) => live,
        Ok(None) => return Ok(Kind::Installed),
        Err(KubeError::KindNotInstalled { .. }) => return Ok(Kind::Missing),
        Err(e) => {
            diags.push(diagnostics::kube_failed(&e, &what, path.clone()));
            return Err(());
        }
    };
    let owner = Owner::of_object(&live);
    let ours = w.me.owns(&owner) || w.adopt;
    // Our fields only: the server's defaults (`channel.allocationMode`) are not a change.
    let spec = project_ours(&live, w.opts.field_manager, Some(&m.body))["spec"].clone();
    if !ours || spec == m.body["spec"] {
        return Ok(Kind::Installed);
    }
    let what = format!("replacing {object} (its spec is immutable)");
    match cancellable(w.ctx, &what, w.cluster.delete(&m.kind, m.namespace.as_deref(), &m.name)).await {
        Ok(_) => Ok(Kind::Installed),
        Err(e) => {
            diags.push(diagnostics::kube_failed(&e, &what, path.clone()));
            Err(())
        }
    }
}
