//! The AWS side of the seam: managed node groups and Hybrid Nodes, through
//! the EKS API. Long operations wait with backoff up to the strategy's
//! timeouts and stop when Terraform asks the provider to stop.

use async_trait::async_trait;
use eksgpu_cloud::AwsClients;
use eksgpu_cloud::aws::AccessEntry;
use eksgpu_cloud::aws::wait::{self, Backoff, Poll, WaitError};
use eksgpu_core::eks::{self, ClusterFacts, ClusterStatus, HYBRID_ACCESS_ENTRY_TYPE, NodeGroup, NodeGroupStatus, tags};
use eksgpu_core::model::{Capacity, Hybrid, NodeStrategy, Pool, StackBlocks};
use eksgpu_core::ownership::{self, Claimant, Owner};
use eksgpu_tfplugin::{AttributePath, Context, Diagnostic, Diagnostics};

use super::sides::{Applied, Found, Job, PoolSide};
use super::timeouts::Timeouts;
use crate::diagnostics;

/// Why an EKS API pool could not be applied, read or deleted.
pub(super) enum Failure {
    Aws(eksgpu_cloud::AwsError),
    Wait(WaitError),
    /// Something in the account stops the provider; the message says what to do.
    Blocked(String),
}

impl From<eksgpu_cloud::AwsError> for Failure {
    fn from(e: eksgpu_cloud::AwsError) -> Self {
        Failure::Aws(e)
    }
}

impl From<WaitError> for Failure {
    fn from(e: WaitError) -> Self {
        match e {
            WaitError::Aws(e) => Failure::Aws(e),
            e => Failure::Wait(e),
        }
    }
}

/// A failed apply of one pool, and whether an AWS object was created or
/// changed before it failed (then the pool belongs in state as planned).
pub(super) struct Failed {
    pub failure: Failure,
    pub touched: bool,
}

/// Marks errors after the first change of an apply as `touched`.
trait Touched<T> {
    fn touched(self, touched: bool) -> Result<T, Failed>;
}

impl<T, E: Into<Failure>> Touched<T> for Result<T, E> {
    fn touched(self, touched: bool) -> Result<T, Failed> {
        self.map_err(|e| Failed {
            failure: e.into(),
            touched,
        })
    }
}

impl Failure {
    pub fn diagnostic(&self, what: &str, path: AttributePath) -> Diagnostic {
        match self {
            Failure::Aws(e) => diagnostics::aws_failed(e, path),
            Failure::Wait(e) => diagnostics::wait_failed(e, what, path),
            Failure::Blocked(m) => Diagnostic::error(format!("Cannot {what}"), m.clone()).at(path),
        }
    }
}

/// Does one pool's AWS work, for one strategy.
pub(super) struct EksApi<'a> {
    pub aws: &'a AwsClients,
    pub ctx: &'a Context,
    pub timeouts: Timeouts,
    pub cluster: &'a str,
}

impl EksApi<'_> {
    async fn wait_node_group(&self, name: &str, timeout: std::time::Duration, until_gone: bool) -> Result<(), Failure> {
        let what = format!("node group {name}");
        wait::until(&what, timeout, Backoff::default(), self.ctx.cancelled(), || async {
            let live = self.aws.describe_node_group(self.cluster, name).await?;
            Ok(match (live, until_gone) {
                (None, true) => Poll::Done,
                (None, false) => Poll::Failed("gone".into(), "the node group disappeared".into()),
                (Some(ng), _) => node_group_poll(&ng, until_gone),
            })
        })
        .await?;
        Ok(())
    }

    async fn wait_cluster_active(&self) -> Result<(), Failure> {
        let what = format!("cluster {}", self.cluster);
        wait::until(
            &what,
            self.timeouts.update,
            Backoff::default(),
            self.ctx.cancelled(),
            || async {
                let facts = self.aws.describe_cluster(self.cluster).await?;
                Ok(match facts.status {
                    Some(ClusterStatus::Active) | None => Poll::Done,
                    Some(s @ ClusterStatus::Failed) => Poll::Failed(s.to_string(), "the cluster failed".into()),
                    Some(s) => Poll::Pending(s.to_string()),
                })
            },
        )
        .await?;
        Ok(())
    }

    /// Creates the node group, or brings the live one to `want`: in place when
    /// EKS can, otherwise by deleting and creating it again. A node group whose
    /// creation failed is created again. One that is not the strategy's own
    /// (its tags name another owner, or none) is left untouched unless adopted.
    async fn apply_node_group(&self, want: &NodeGroup, me: &Claimant<'_>, adopt: bool) -> Result<(), Failed> {
        // The placement group first: the launch template names it.
        let made_group = match &want.placement_group {
            Some(pg) => self.ensure_placement_group(pg, me, adopt).await.touched(false)?,
            None => false,
        };
        let result = self.apply_node_group_after_placement(want, me, adopt).await;
        let result = result.map_err(|f| Failed {
            touched: f.touched || made_group,
            ..f
        });
        // A placement group the pool no longer asks for goes once nothing names it; while old nodes
        // still run in it EC2 refuses (InvalidPlacementGroup.InUse), and a later apply tries again.
        if result.is_ok()
            && want.placement_group.is_none()
            && let Some(lt) = &want.launch_template
            && let Err(e) = self.delete_own_placement_group(&lt.name, me).await
        {
            tracing::warn!(group = %lt.name, error = ?e.diagnostic("deleting", AttributePath::root()).summary, "placement group left");
        }
        result
    }

    async fn apply_node_group_after_placement(
        &self,
        want: &NodeGroup,
        me: &Claimant<'_>,
        adopt: bool,
    ) -> Result<(), Failed> {
        let live = self.describe(&want.name).await.touched(false)?;
        let Some(mut live) = live else {
            return self.create_node_group(want, me, adopt).await;
        };
        let what = format!("node group {}", want.name);
        let owner = Owner::of_tags(&live.tags);
        if let Err(e) = ownership::check_write(&what, Some(owner.clone()), me, adopt) {
            return Err(Failure::Blocked(e.how_to_hand_over())).touched(false);
        }
        // Adopting takes a node group over as it is: never by replacing it.
        if !me.owns(&owner)
            && let Some(r) = want.replacement(&live)
        {
            return Err(Failure::Blocked(format!(
                "Adopting {what} would replace it: EKS cannot change {} in place. Make the pool's settings match \
                 the node group ({}), then apply again.",
                r.fields.join(", "),
                r.fields.join(", ")
            )))
            .touched(false);
        }
        if live.status.as_ref().is_some_and(NodeGroupStatus::in_progress) {
            // A previous apply timed out or was stopped: let EKS finish first.
            self.wait_node_group(&want.name, self.timeouts.update, false)
                .await
                .touched(false)?;
            live = match self.describe(&want.name).await.touched(false)? {
                Some(l) => l,
                None => return self.create_node_group(want, me, adopt).await,
            };
        }
        let failed_before = live.status == Some(NodeGroupStatus::CreateFailed);
        if failed_before || want.replacement(&live).is_some() {
            tracing::info!(nodegroup = %want.name, status = ?live.status, "replacing node group");
            self.delete_node_group(&want.name).await.touched(true)?;
            // A template the new node group no longer needs goes with the old one.
            if want.launch_template.is_none()
                && let Some(old) = &live.launch_template
            {
                self.delete_own_template(&old.name, me).await.touched(true)?;
            }
            return self
                .create_node_group(want, me, adopt)
                .await
                .map_err(|f| Failed { touched: true, ..f });
        }
        let mut touched = false;
        let mut versioned = false;
        if let Some(u) = want.update(&live) {
            // EKS runs one update of a node group at a time: the config first, then the release.
            if u.changes_config() {
                self.aws
                    .update_node_group(self.cluster, &want.name, &u)
                    .await
                    .touched(false)?;
                touched = true;
                self.wait_node_group(&want.name, self.timeouts.update, false)
                    .await
                    .touched(true)?;
            }
            // A new template version rolls the nodes to it (EKS API UpdateNodegroupVersion `launchTemplate`).
            let template = match (&u.launch_template, &want.launch_template) {
                (Some(_), Some(lt)) => Some(self.ensure_template(lt, me, adopt).await.touched(touched)?.0),
                _ => None,
            };
            versioned = template.is_some();
            if u.release_version.is_some() || u.kubernetes_version.is_some() || template.is_some() {
                self.aws
                    .update_node_group_version(
                        self.cluster,
                        &want.name,
                        u.release_version.as_deref(),
                        u.kubernetes_version.as_deref(),
                        template.as_ref(),
                    )
                    .await
                    .touched(touched || template.is_some())?;
                self.wait_node_group(&want.name, self.timeouts.update, false)
                    .await
                    .touched(true)?;
                touched = true;
            }
            if let Some(arn) = live.arn.as_deref()
                && (!u.tags_add.is_empty() || !u.tags_remove.is_empty())
            {
                self.aws
                    .retag(arn, &u.tags_add, &u.tags_remove)
                    .await
                    .touched(touched)?;
                touched = true;
            }
        }
        // Tags are not template data: a tag change alone retags the pool's template in use (a new
        // version was retagged as it was ensured).
        if !versioned
            && let (Some(want_lt), Some(live_lt)) = (&want.launch_template, &live.launch_template)
            && live_lt.name == want_lt.name
        {
            self.retag_template(live_lt, want_lt, me, adopt)
                .await
                .touched(touched)?;
        }
        Ok(())
    }

    /// Deletes the strategy's own node group and waits until it is gone; one
    /// already gone is fine. `Ok(Some(owner))`: it belongs to someone else now
    /// and was left in place.
    async fn delete_own_node_group(&self, name: &str, me: &Claimant<'_>) -> Result<Option<Owner>, Failure> {
        let Some(live) = self.aws.describe_node_group(self.cluster, name).await? else {
            return Ok(None);
        };
        let owner = Owner::of_tags(&live.tags);
        if !ownership::may_delete(&owner, me) {
            return Ok(Some(owner));
        }
        self.delete_node_group(name).await?;
        Ok(None)
    }

    /// Creates a node group (its launch template first) and waits until it is active; once the
    /// create call succeeded, any failure leaves it `touched`. A template made for a node group
    /// EKS then refused is deleted again: no state would know it.
    async fn create_node_group(&self, want: &NodeGroup, me: &Claimant<'_>, adopt: bool) -> Result<(), Failed> {
        let mut want = want.clone();
        let mut created = false;
        if let Some(lt) = &want.launch_template {
            let (lt, made) = self.ensure_template(lt, me, adopt).await.touched(false)?;
            want.launch_template = Some(lt);
            created = made;
        }
        if let Err(e) = self.aws.create_node_group(self.cluster, &want).await {
            let id = want
                .launch_template
                .as_ref()
                .and_then(|t| t.id.as_deref())
                .filter(|_| created);
            let kept = match id {
                Some(id) => self.aws.delete_launch_template(id).await.is_err(),
                None => false,
            };
            return Err(e).touched(kept);
        }
        self.wait_node_group(&want.name, self.timeouts.create, false)
            .await
            .touched(true)
    }

    /// Deletes a node group and waits until it is gone; one already gone is fine.
    async fn delete_node_group(&self, name: &str) -> Result<(), Failure> {
        self.aws.delete_node_group(self.cluster, name).await?;
        self.wait_node_group(name, self.timeouts.delete, true).await
    }

    /// Sets the cluster's remote networks and the nodes' access entry.
    /// `prior_role`: the role of the pool's previous version, whose entry goes
    /// when the role changes; `checked`: the cluster as this apply read it.
    async fn apply_hybrid(
        &self,
        h: &Hybrid,
        entry_tags: std::collections::BTreeMap<String, String>,
        prior_role: Option<&str>,
        checked: Option<&ClusterFacts>,
        me: &Claimant<'_>,
        adopt: bool,
    ) -> Result<(), Failed> {
        // The facts read for the checks moments ago, when there are some.
        let facts = match checked {
            Some(f) => f.clone(),
            None => self.aws.describe_cluster(self.cluster).await.touched(false)?,
        };
        let mut touched = false;
        let differ =
            facts.remote_node_networks != h.remote_node_networks || facts.remote_pod_networks != h.remote_pod_networks;
        let set_by_us = networks_owned(&facts, me);
        let set_elsewhere =
            !set_by_us && (!facts.remote_node_networks.is_empty() || !facts.remote_pod_networks.is_empty());
        if differ && set_elsewhere && !adopt {
            return Err(Failure::Blocked(format!(
                "Cluster {} has remote networks (nodes {:?}, pods {:?}) that this strategy did not set (the cluster \
                 has no tag {}={}; terraform-aws-modules/eks's `remote_network_config` sets them, for one). The \
                 hybrid pool will not replace them: give it the same CIDRs, so the cluster's owner keeps them, or \
                 set `adopt = true` on the pool to take them over.",
                self.cluster,
                facts.remote_node_networks,
                facts.remote_pod_networks,
                tags::REMOTE_NETWORKS,
                me.name
            )))
            .touched(false);
        }
        if differ {
            self.aws
                .set_remote_networks(self.cluster, &h.remote_node_networks, &h.remote_pod_networks)
                .await
                .touched(false)?;
            touched = true;
            self.wait_cluster_active().await.touched(true)?;
        }
        // Who set the networks, for the checks of later applies and of the delete.
        let token_tagged = me
            .token
            .is_none_or(|t| facts.tags.get(tags::REMOTE_NETWORKS_TOKEN).map(String::as_str) == Some(t));
        if (differ || set_by_us)
            && (facts.tags.get(tags::REMOTE_NETWORKS).map(String::as_str) != Some(me.name) || !token_tagged)
            && let Some(arn) = &facts.arn
        {
            let mut tag = std::collections::BTreeMap::from([(tags::REMOTE_NETWORKS.to_owned(), me.name.to_owned())]);
            if let Some(t) = me.token {
                tag.insert(tags::REMOTE_NETWORKS_TOKEN.to_owned(), t.to_owned());
            }
            self.aws.retag(arn, &tag, &[]).await.touched(touched)?;
            touched = true;
        }
        match self
            .aws
            .describe_access_entry(self.cluster, &h.node_role_arn)
            .await
            .touched(touched)?
        {
            None => {
                let entry = AccessEntry {
                    principal_arn: h.node_role_arn.clone(),
                    kind: HYBRID_ACCESS_ENTRY_TYPE.to_owned(),
                    tags: entry_tags,
                    arn: None,
                };
                self.aws
                    .create_access_entry(self.cluster, &entry)
                    .await
                    .touched(touched)?;
                touched = true;
            }
            Some(e) if e.kind != HYBRID_ACCESS_ENTRY_TYPE => {
                return Err(Failure::Blocked(format!(
                    "{} already has an access entry of type {} in cluster {}; a role used by hybrid nodes needs \
                     type {HYBRID_ACCESS_ENTRY_TYPE}. Use a dedicated role, or delete that entry.",
                    h.node_role_arn, e.kind, self.cluster
                )))
                .touched(touched);
            }
            // An entry someone else made is used as it is, never changed (nor deleted later),
            // unless the pool adopts it: then it is tagged as the strategy's own.
            Some(e) if !adopt && !me.owns(&Owner::of_tags(&e.tags)) => {}
            Some(e) => {
                // Tags changed (default or pool tags): TagResource / UntagResource on the entry.
                let add: std::collections::BTreeMap<String, String> = entry_tags
                    .iter()
                    .filter(|(k, v)| e.tags.get(*k) != Some(*v))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                let remove: Vec<String> = e
                    .tags
                    .keys()
                    .filter(|k| !entry_tags.contains_key(*k))
                    .cloned()
                    .collect();
                if let Some(arn) = e.arn.as_deref()
                    && (!add.is_empty() || !remove.is_empty())
                {
                    self.aws.retag(arn, &add, &remove).await.touched(touched)?;
                    touched = true;
                }
            }
        }
        if let Some(old) = prior_role.filter(|r| *r != h.node_role_arn) {
            self.delete_own_access_entry(old, me).await.touched(touched)?;
        }
        Ok(())
    }

    /// Deletes the access entry of `principal` if it is the strategy's own.
    async fn delete_own_access_entry(&self, principal: &str, me: &Claimant<'_>) -> Result<(), Failure> {
        if let Some(e) = self.aws.describe_access_entry(self.cluster, principal).await?
            && ownership::may_delete(&Owner::of_tags(&e.tags), me)
        {
            self.aws.delete_access_entry(self.cluster, principal).await?;
        }
        Ok(())
    }

    /// Removes the remote networks (unless `keep_networks`, when another hybrid
    /// pool of the strategy now sets them) and the role's access entry.
    async fn delete_hybrid(&self, h: &Hybrid, keep_networks: bool, me: &Claimant<'_>) -> Result<(), Failure> {
        if !keep_networks {
            let facts = self.aws.describe_cluster(self.cluster).await?;
            // Networks someone else set (the pool only used them) stay, and so do those the instance
            // replacing this one set (create_before_destroy).
            let successor_set_them = me.token.is_some_and(|t| {
                facts
                    .tags
                    .get(tags::REMOTE_NETWORKS_TOKEN)
                    .is_some_and(|theirs| theirs != t)
            });
            if networks_owned(&facts, me)
                && !successor_set_them
                && (!facts.remote_node_networks.is_empty() || !facts.remote_pod_networks.is_empty())
            {
                self.aws.set_remote_networks(self.cluster, &[], &[]).await?;
                self.wait_cluster_active().await?;
            }
        }
        self.delete_own_access_entry(&h.node_role_arn, me).await
    }

    /// The hybrid pool as the cluster says, or `None` when neither its networks
    /// nor its access entry exist any more. Uses this run's `DescribeCluster`.
    async fn read_hybrid(&self, prior: &Pool) -> Result<Option<Pool>, Failure> {
        let Some(h) = &prior.hybrid else {
            return Ok(Some(prior.clone()));
        };
        let facts = self.aws.cluster(self.cluster).await?;
        let entry = self
            .aws
            .describe_access_entry(self.cluster, &h.node_role_arn)
            .await?
            .filter(|e| e.kind == HYBRID_ACCESS_ENTRY_TYPE);
        if entry.is_none() && facts.remote_node_networks.is_empty() {
            return Ok(None);
        }
        let mut pool = prior.clone();
        // Without the identifying tags; the caller also leaves out the provider's default tags.
        if let Some(e) = &entry {
            pool.tags = e
                .tags
                .iter()
                .filter(|(k, _)| prior.tags.contains_key(*k) || !eks::is_provider_tag(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
        }
        pool.hybrid = Some(Hybrid {
            remote_node_networks: facts.remote_node_networks.clone(),
            remote_pod_networks: facts.remote_pod_networks.clone(),
            // A missing entry reads as no role: the plan shows it coming back.
            node_role_arn: if entry.is_some() {
                h.node_role_arn.clone()
            } else {
                String::new()
            },
        });
        Ok(Some(pool))
    }

    /// Cluster facts with the VPC's CIDRs, for the checks made before any change.
    pub async fn facts_with_vpc(&self) -> Result<ClusterFacts, Failure> {
        let facts = self.aws.describe_cluster(self.cluster).await?;
        Ok(self.aws.with_vpc_cidrs(facts).await?)
    }

    /// The EKS API pools of strategy `s` found by their tags (import), and the `gpu_operator`
    /// settings recorded there.
    async fn import(&self, s: &NodeStrategy) -> Result<(Vec<Pool>, StackBlocks), Failure> {
        let mut found = Vec::new();
        let mut blocks = StackBlocks::default();
        for name in self.aws.list_node_groups(self.cluster).await? {
            let Some(ng) = self.describe(&name).await? else {
                continue;
            };
            if !eks::tagged_for(&ng.tags, &s.cluster_name, &s.name) {
                continue;
            }
            blocks = blocks.or(eks::stack_blocks_from_tags(&ng.tags));
            let blank = blank_pool(&ng.tags, Capacity::ManagedNodeGroup);
            found.push(eks::read_back_node_group(s, &blank, &ng, true));
        }
        let facts = self.aws.cluster(self.cluster).await?;
        for principal in self.aws.list_access_entries(self.cluster).await? {
            let Some(e) = self.aws.describe_access_entry(self.cluster, &principal).await? else {
                continue;
            };
            if e.kind != HYBRID_ACCESS_ENTRY_TYPE || !eks::tagged_for(&e.tags, &s.cluster_name, &s.name) {
                continue;
            }
            blocks = blocks.or(eks::stack_blocks_from_tags(&e.tags));
            let mut pool = blank_pool(&e.tags, Capacity::Hybrid);
            pool.gpu_taint = true;
            pool.hybrid = Some(Hybrid {
                remote_node_networks: facts.remote_node_networks.clone(),
                remote_pod_networks: facts.remote_pod_networks.clone(),
                node_role_arn: e.principal_arn.clone(),
            });
            found.push(pool);
        }
        Ok((found, blocks))
    }
}

/// Whether the cluster's remote networks were set by strategy `me` (its tag names it).
fn networks_owned(facts: &ClusterFacts, me: &Claimant<'_>) -> bool {
    facts.tags.get(tags::REMOTE_NETWORKS).is_some_and(|owner| {
        me.owns(&Owner::Strategy {
            cluster: me.cluster.to_owned(),
            name: owner.clone(),
            token: None,
        })
    })
}

#[async_trait]
impl PoolSide for EksApi<'_> {
    async fn apply(
        &mut self,
        job: &Job<'_>,
        pool: &Pool,
        prior: Option<&Pool>,
        adopt: bool,
        diags: &mut Diagnostics,
    ) -> Applied {
        let path = super::plan::pool_path(&pool.name);
        let (what, result) = match pool.capacity {
            Capacity::ManagedNodeGroup => {
                let Some(mut want) = eks::node_group(job.strategy, pool) else {
                    return Applied::Done;
                };
                stamp_tags(&mut want.tags, &job.claimant);
                if let Some(lt) = want.launch_template.as_mut() {
                    stamp_tags(&mut lt.tags, &job.claimant);
                }
                if let Some(pg) = want.placement_group.as_mut() {
                    stamp_tags(&mut pg.tags, &job.claimant);
                }
                let what = format!("applying node group {}", want.name);
                let mut result = self.apply_node_group(&want, &job.claimant, adopt).await;
                // A renamed node group (`name`, `name_prefix`) is a new one: made first, then the
                // old one goes (its launch template stays: the new node group uses it).
                if let (Ok(()), Some(before)) = (&result, prior)
                    && before.capacity == Capacity::ManagedNodeGroup
                {
                    let old = eks::node_group_name(job.strategy, before);
                    if old != want.name {
                        result = match self.delete_own_node_group(&old, &job.claimant).await {
                            Ok(Some(owner)) => {
                                diags.push(super::sides::left_in_place(
                                    &format!("Node group {old}"),
                                    &owner,
                                    &job.claimant,
                                ));
                                Ok(())
                            }
                            Ok(None) => Ok(()),
                            Err(failure) => Err(Failed { failure, touched: true }),
                        };
                    }
                }
                (what, result)
            }
            Capacity::Hybrid => {
                let Some(h) = &pool.hybrid else {
                    return Applied::Done;
                };
                let prior_role = prior.and_then(|p| p.hybrid.as_ref()).map(|h| h.node_role_arn.as_str());
                let mut tags = eks::pool_tags(job.strategy, pool);
                stamp_tags(&mut tags, &job.claimant);
                let result = self
                    .apply_hybrid(h, tags, prior_role, job.facts, &job.claimant, adopt)
                    .await;
                ("applying the hybrid pool".to_owned(), result)
            }
            _ => return Applied::Done,
        };
        match result {
            Ok(()) => Applied::Done,
            Err(f) => {
                diags.push(f.failure.diagnostic(&what, path));
                Applied::Failed { touched: f.touched }
            }
        }
    }

    async fn read(&mut self, job: &Job<'_>, pool: &Pool, diags: &mut Diagnostics) -> Option<Option<Pool>> {
        let path = super::plan::pool_path(&pool.name);
        if pool.capacity == Capacity::Hybrid {
            return match self.read_hybrid(pool).await {
                Ok(p) => Some(p),
                Err(e) => {
                    diags.push(e.diagnostic("reading the hybrid pool", path));
                    None
                }
            };
        }
        let name = eks::node_group_name(job.strategy, pool);
        match self.describe(&name).await {
            // A node group whose creation failed, or that is being deleted, will not
            // serve the pool: report it gone so the plan creates it again.
            Ok(Some(ng)) if ng.status.as_ref().is_some_and(NodeGroupStatus::will_not_serve) => {
                tracing::info!(nodegroup = %name, status = ?ng.status, "node group will not serve the pool");
                Some(None)
            }
            Ok(Some(ng)) => Some(Some(eks::read_back_node_group(job.strategy, pool, &ng, false))),
            Ok(None) => {
                let template = eks::launch_template::template_name(job.strategy, pool);
                self.read_orphan_template(job, pool, &template, path, diags).await
            }
            Err(e) => {
                diags.push(diagnostics::aws_failed(&e, path));
                None
            }
        }
    }

    async fn delete(&mut self, job: &Job<'_>, pools: &[&Pool], diags: &mut Diagnostics) -> Vec<String> {
        // A hybrid pool the strategy keeps still sets the cluster's remote networks.
        let keep_networks = job
            .planned
            .is_some_and(|s| s.pools.iter().any(|p| p.capacity == Capacity::Hybrid));
        let mut remaining = Vec::new();
        for pool in pools {
            let result = match (pool.capacity, &pool.hybrid) {
                (Capacity::ManagedNodeGroup, _) => {
                    let name = eks::node_group_name(job.strategy, pool);
                    let template = eks::launch_template::template_name(job.strategy, pool);
                    let has_template = eks::launch_template::needs_launch_template(pool);
                    let placement = pool
                        .managed_node_group
                        .as_ref()
                        .is_some_and(|m| m.cluster_placement_group);
                    match self.delete_own_node_group(&name, &job.claimant).await {
                        // The template and the placement group go after the node group that uses them.
                        Ok(None) if has_template => match self.delete_own_template(&template, &job.claimant).await {
                            Ok(()) if placement => self
                                .delete_own_placement_group(&template, &job.claimant)
                                .await
                                .map_err(|e| (e, format!("deleting placement group {template}"))),
                            Ok(()) => Ok(()),
                            Err(e) => Err((e, format!("deleting launch template {template}"))),
                        },
                        Ok(Some(owner)) => {
                            diags.push(super::sides::left_in_place(
                                &format!("Node group {name}"),
                                &owner,
                                &job.claimant,
                            ));
                            Ok(())
                        }
                        Ok(None) => Ok(()),
                        Err(e) => Err((e, format!("deleting node group {name}"))),
                    }
                }
                (Capacity::Hybrid, Some(h)) => self
                    .delete_hybrid(h, keep_networks, &job.claimant)
                    .await
                    .map_err(|e| (e, "deleting the hybrid pool".to_owned())),
                _ => Ok(()),
            };
            if let Err((e, what)) = result {
                diags.push(e.diagnostic(&what, AttributePath::attr("pools")));
                remaining.push(pool.name.clone());
            }
        }
        remaining
    }

    async fn abandon(&mut self, job: &Job<'_>, pools: &[&Pool], _diags: &mut Diagnostics) -> Vec<String> {
        // Slow to make again: kept, tagged, for the next apply to take over.
        pools
            .iter()
            .filter_map(|p| match p.capacity {
                Capacity::ManagedNodeGroup => Some(format!("node group {}", eks::node_group_name(job.strategy, p))),
                Capacity::Hybrid => p
                    .hybrid
                    .as_ref()
                    .map(|h| format!("the access entry of {}", h.node_role_arn)),
                _ => None,
            })
            .collect()
    }

    async fn find(&mut self, job: &Job<'_>, diags: &mut Diagnostics) -> Option<Found> {
        match self.import(job.strategy).await {
            Ok(found) => Some(found),
            Err(e) => {
                diags.push(e.diagnostic("finding node groups and access entries", AttributePath::root()));
                None
            }
        }
    }
}

fn node_group_poll(ng: &NodeGroup, until_gone: bool) -> Poll {
    let status = ng.status.as_ref().map(ToString::to_string).unwrap_or_default();
    let issues = || {
        if ng.health_issues.is_empty() {
            "no health issues reported".to_owned()
        } else {
            ng.health_issues.join("; ")
        }
    };
    match &ng.status {
        Some(NodeGroupStatus::Active) if !until_gone => Poll::Done,
        Some(s) if s.failed() => Poll::Failed(status, issues()),
        _ => Poll::Pending(status),
    }
}

/// A pool with only what tags say, to read the rest into.
fn blank_pool(t: &std::collections::BTreeMap<String, String>, capacity: Capacity) -> Pool {
    Pool {
        dra: t.get(tags::DRA).map(String::as_str) == Some("true"),
        ..Pool::named(t.get(tags::POOL).map_or("", String::as_str), capacity)
    }
}

/// Tags an object as written by this resource instance (`ownership::may_delete`); applied, never
/// rendered (plans show the requests without it).
fn stamp_tags(tags: &mut std::collections::BTreeMap<String, String>, me: &Claimant<'_>) {
    if let Some(token) = me.token {
        tags.insert(eksgpu_core::kinds::labels::OWNER_TOKEN.to_owned(), token.to_owned());
    }
}
