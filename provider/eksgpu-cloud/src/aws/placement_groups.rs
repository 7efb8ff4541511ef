//! EC2 placement groups of node group pools (`cluster_placement_group`): create tagged, describe
//! by name, delete (EC2 API CreatePlacementGroup, DescribePlacementGroups, DeletePlacementGroup).

use aws_sdk_ec2::types::{PlacementStrategy, ResourceType, Tag, TagSpecification};
use eksgpu_core::eks::launch_template::PlacementGroup;

use super::{AwsClients, AwsError};

/// EC2's error code for a placement group name it does not know.
const UNKNOWN: &str = "InvalidPlacementGroup.Unknown";

impl AwsClients {
    /// `ec2:CreatePlacementGroup`, tagged on creation.
    pub async fn create_placement_group(&self, pg: &PlacementGroup) -> Result<(), AwsError> {
        let tags = pg
            .tags
            .iter()
            .map(|(k, v)| Tag::builder().key(k).value(v).build())
            .collect();
        self.ec2()
            .await
            .create_placement_group()
            .group_name(&pg.name)
            .strategy(PlacementStrategy::from(pg.strategy.as_str()))
            .tag_specifications(
                TagSpecification::builder()
                    .resource_type(ResourceType::PlacementGroup)
                    .set_tags(Some(tags))
                    .build(),
            )
            .send()
            .await
            .map_err(|e| self.sdk_error("ec2:CreatePlacementGroup", e))?;
        tracing::info!(group = %pg.name, "created placement group");
        Ok(())
    }

    /// `ec2:DescribePlacementGroups` by name: `None` when there is none.
    pub async fn describe_placement_group(&self, name: &str) -> Result<Option<PlacementGroup>, AwsError> {
        let out = match self
            .ec2()
            .await
            .describe_placement_groups()
            .group_names(name)
            .send()
            .await
        {
            Ok(out) => out,
            Err(e) => {
                let e = self.sdk_error("ec2:DescribePlacementGroups", e);
                return if e.code.as_deref() == Some(UNKNOWN) {
                    Ok(None)
                } else {
                    Err(e)
                };
            }
        };
        Ok(out.placement_groups().first().map(|g| PlacementGroup {
            name: g.group_name().unwrap_or(name).to_owned(),
            strategy: g.strategy().map(|s| s.as_str().to_owned()).unwrap_or_default(),
            tags: g
                .tags()
                .iter()
                .filter_map(|t| Some((t.key()?.to_owned(), t.value().unwrap_or_default().to_owned())))
                .collect(),
        }))
    }

    /// `ec2:DeletePlacementGroup`; one already gone is fine.
    pub async fn delete_placement_group(&self, name: &str) -> Result<(), AwsError> {
        match self.ec2().await.delete_placement_group().group_name(name).send().await {
            Ok(_) => {
                tracing::info!(group = name, "deleted placement group");
                Ok(())
            }
            Err(e) => {
                let e = self.sdk_error("ec2:DeletePlacementGroup", e);
                if e.code.as_deref() == Some(UNKNOWN) {
                    Ok(())
                } else {
                    Err(e)
                }
            }
        }
    }
}
