//! The launch templates of node group pools (EFA, Capacity Blocks): described with the node
//! group that uses them, made or versioned before it, deleted after it, always checking the
//! owner in their tags first (`ownership`).

use eksgpu_core::eks::launch_template::{LaunchTemplate, PlacementGroup};
use eksgpu_core::eks::{self, NodeGroup};
use eksgpu_core::model::Pool;
use eksgpu_core::ownership::{self, Claimant, Owner};
use eksgpu_tfplugin::{AttributePath, Diagnostics};

use super::eks_api::{EksApi, Failure};
use super::sides::Job;
use crate::diagnostics;

impl EksApi<'_> {
    /// The live node group with the content of the launch template version it uses, and the
    /// placement group that version names.
    pub(super) async fn describe(&self, name: &str) -> Result<Option<NodeGroup>, eksgpu_cloud::AwsError> {
        let Some(ng) = self.aws.describe_node_group(self.cluster, name).await? else {
            return Ok(None);
        };
        let lt = match &ng.launch_template {
            Some(r) => self.aws.describe_launch_template(&r.name, r.version).await?,
            None => None,
        };
        let group = lt.as_ref().and_then(|t| t.data.placement_group.clone());
        let mut ng = ng.with_template(lt);
        if let Some(g) = group {
            ng.placement_group = self.aws.describe_placement_group(&g).await?;
        }
        Ok(Some(ng))
    }

    /// The pool's placement group: made when missing; one another owner's tags name is refused
    /// unless adopted (then retagging it is EC2 CreateTags, which the adopting apply does not need:
    /// the group holds no settings beyond its strategy). `Ok(true)`: this call made it.
    pub(super) async fn ensure_placement_group(
        &self,
        want: &PlacementGroup,
        me: &Claimant<'_>,
        adopt: bool,
    ) -> Result<bool, Failure> {
        let Some(live) = self.aws.describe_placement_group(&want.name).await? else {
            self.aws.create_placement_group(want).await?;
            return Ok(true);
        };
        let what = format!("placement group {}", want.name);
        if let Err(e) = ownership::check_write(&what, Some(Owner::of_tags(&live.tags)), me, adopt) {
            return Err(Failure::Blocked(e.how_to_hand_over()));
        }
        if live.strategy != want.strategy {
            return Err(Failure::Blocked(format!(
                "Placement group {} has strategy {:?}; the pool needs {:?}, and EC2 cannot change a group's \
                 strategy. Delete the group (nothing may use it) and apply again.",
                want.name, live.strategy, want.strategy
            )));
        }
        Ok(false)
    }

    /// Deletes the pool's placement group `name` if it is this instance's own; one already gone, or
    /// another owner's, is left (the latter said in the log: the pool never made it).
    pub(super) async fn delete_own_placement_group(&self, name: &str, me: &Claimant<'_>) -> Result<(), Failure> {
        let Some(live) = self.aws.describe_placement_group(name).await? else {
            return Ok(());
        };
        if !ownership::may_delete(&Owner::of_tags(&live.tags), me) {
            tracing::info!(group = name, "placement group is not this strategy's: left");
            return Ok(());
        }
        self.aws.delete_placement_group(name).await?;
        Ok(())
    }

    /// The pool's launch template with `want`'s data, its id and the version to use: made when
    /// missing, a new version when the latest differs, retagged when its tags do
    /// (`retag_template`). One another
    /// owner's tags name is refused (unless adopted). `created`: this call made the template.
    pub(super) async fn ensure_template(
        &self,
        want: &LaunchTemplate,
        me: &Claimant<'_>,
        adopt: bool,
    ) -> Result<(LaunchTemplate, bool), Failure> {
        let mut lt = want.clone();
        let Some(live) = self.aws.describe_launch_template(&want.name, None).await? else {
            let (id, version) = self.aws.create_launch_template(want).await?;
            (lt.id, lt.version) = (Some(id), Some(version));
            return Ok((lt, true));
        };
        self.retag_template(&live, want, me, adopt).await?;
        let id = live.id.clone().unwrap_or_default();
        let version = if live.data == want.data {
            live.version
        } else {
            Some(self.aws.create_launch_template_version(&id, &want.data).await?)
        };
        (lt.id, lt.version) = (Some(id), version);
        Ok((lt, false))
    }

    /// Brings the tags of `live`, the pool's template, to `want`'s (a tag dropped from the pool or
    /// the default tags goes too), after the ownership check every write makes: a template another
    /// owner's tags name is refused unless adopted.
    pub(super) async fn retag_template(
        &self,
        live: &LaunchTemplate,
        want: &LaunchTemplate,
        me: &Claimant<'_>,
        adopt: bool,
    ) -> Result<(), Failure> {
        let what = format!("launch template {}", want.name);
        if let Err(e) = ownership::check_write(&what, Some(Owner::of_tags(&live.tags)), me, adopt) {
            return Err(Failure::Blocked(e.how_to_hand_over()));
        }
        let (add, remove) = eks::launch_template::retag(&live.tags, &want.tags);
        if !add.is_empty() || !remove.is_empty() {
            let id = live.id.as_deref().unwrap_or_default();
            self.aws.retag_launch_template(id, &add, &remove).await?;
        }
        Ok(())
    }

    /// Deletes the pool's launch template `name` if it is this instance's own; one already gone is
    /// fine, one another owner's tags name is an error naming it (and stays).
    pub(super) async fn delete_own_template(&self, name: &str, me: &Claimant<'_>) -> Result<(), Failure> {
        let Some(live) = self.aws.describe_launch_template(name, None).await? else {
            return Ok(());
        };
        let owner = Owner::of_tags(&live.tags);
        if !ownership::may_delete(&owner, me) {
            if ownership::replaced_by_successor(&owner, me) {
                return Ok(());
            }
            return Err(Failure::Blocked(format!(
                "Launch template {name} belongs to {owner}, not to this strategy: it was left in place. Delete it \
                 yourself if nothing uses it."
            )));
        }
        self.aws
            .delete_launch_template(live.id.as_deref().unwrap_or_default())
            .await?;
        Ok(())
    }

    /// A pool whose node group is gone but whose launch template is still there (its delete
    /// failed after the node group's): kept in state without its node group settings, so a
    /// destroy deletes the template and a plan creates the node group again. `None` = gone.
    pub(super) async fn read_orphan_template(
        &self,
        job: &Job<'_>,
        pool: &Pool,
        name: &str,
        path: AttributePath,
        diags: &mut Diagnostics,
    ) -> Option<Option<Pool>> {
        if !eks::launch_template::needs_launch_template(pool) {
            return Some(None);
        }
        match self.aws.describe_launch_template(name, None).await {
            Ok(Some(lt)) if job.claimant.owns(&Owner::of_tags(&lt.tags)) => {
                tracing::info!(template = name, "node group gone, its launch template left");
                Some(Some(Pool {
                    managed_node_group: None,
                    ..pool.clone()
                }))
            }
            Ok(_) => Some(None),
            Err(e) => {
                diags.push(diagnostics::aws_failed(&e, path));
                None
            }
        }
    }
}
