//! EC2 launch templates of node group pools: create, new version, describe a version, retag,
//! delete (EC2 API CreateLaunchTemplate, CreateLaunchTemplateVersion,
//! DescribeLaunchTemplates, DescribeLaunchTemplateVersions, CreateTags, DeleteTags, DeleteLaunchTemplate).

use std::collections::BTreeMap;

use aws_sdk_ec2::types::{
    CapacityReservationTarget, LaunchTemplateBlockDeviceMappingRequest,
    LaunchTemplateCapacityReservationSpecificationRequest, LaunchTemplateEbsBlockDeviceRequest,
    LaunchTemplateHttpTokensState, LaunchTemplateInstanceMarketOptionsRequest,
    LaunchTemplateInstanceMetadataEndpointState, LaunchTemplateInstanceMetadataOptionsRequest,
    LaunchTemplateInstanceNetworkInterfaceSpecificationRequest, LaunchTemplatePlacementRequest,
    LaunchTemplateTagSpecificationRequest, LaunchTemplatesMonitoringRequest, MarketType, RequestLaunchTemplateData,
    ResourceType, Tag, TagSpecification, VolumeType,
};
use eksgpu_core::eks::launch_template::{
    INSTANCE_TAG_RESOURCES, LaunchTemplate, LaunchTemplateData, TemplateInterface, TemplateVolume,
};
use eksgpu_core::eks::user_data;
use eksgpu_core::model::TemplateMetadata;

use super::{AwsClients, AwsError};

/// EC2's error code for a template name it does not know.
const NOT_FOUND: &str = "InvalidLaunchTemplateName.NotFoundException";
/// …and for an id it does not know.
const ID_NOT_FOUND: &str = "InvalidLaunchTemplateId.NotFound";

fn gone(e: &AwsError) -> bool {
    matches!(e.code.as_deref(), Some(NOT_FOUND | ID_NOT_FOUND))
}

fn to_i32(n: i64) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

fn request_data(d: &LaunchTemplateData) -> RequestLaunchTemplateData {
    let groups = (!d.security_group_ids.is_empty()).then(|| d.security_group_ids.clone());
    let nics = d.network_interfaces.iter().map(|n| {
        LaunchTemplateInstanceNetworkInterfaceSpecificationRequest::builder()
            .network_card_index(to_i32(n.network_card_index))
            .device_index(to_i32(n.device_index))
            .interface_type(&n.interface_type)
            .set_associate_public_ip_address(n.associate_public_ip_address)
            .set_delete_on_termination(n.delete_on_termination)
            .set_description(n.description.clone())
            // An interface's own groups, else the pool's (`security_group_ids`).
            .set_groups(if n.security_group_ids.is_empty() {
                groups.clone()
            } else {
                Some(n.security_group_ids.clone())
            })
            .build()
    });
    let volumes = d.block_device_mappings.iter().map(|v| {
        LaunchTemplateBlockDeviceMappingRequest::builder()
            .device_name(&v.device_name)
            .ebs(
                LaunchTemplateEbsBlockDeviceRequest::builder()
                    .set_volume_size(v.volume_size.map(to_i32))
                    .set_volume_type(v.volume_type.as_deref().map(VolumeType::from))
                    .set_iops(v.iops.map(to_i32))
                    .set_throughput(v.throughput.map(to_i32))
                    .set_encrypted(v.encrypted)
                    .set_delete_on_termination(v.delete_on_termination)
                    .set_snapshot_id(v.snapshot_id.clone())
                    .set_kms_key_id(v.kms_key_id.clone())
                    .build(),
            )
            .build()
    });
    let target =
        (d.capacity_reservation_id.is_some() || d.capacity_reservation_resource_group_arn.is_some()).then(|| {
            LaunchTemplateCapacityReservationSpecificationRequest::builder()
                .capacity_reservation_target(
                    CapacityReservationTarget::builder()
                        .set_capacity_reservation_id(d.capacity_reservation_id.clone())
                        .set_capacity_reservation_resource_group_arn(d.capacity_reservation_resource_group_arn.clone())
                        .build(),
                )
                .build()
        });
    let tags: Vec<Tag> = d
        .instance_tags
        .iter()
        .map(|(k, v)| Tag::builder().key(k).value(v).build())
        .collect();
    let tag_specs = (!tags.is_empty()).then(|| {
        INSTANCE_TAG_RESOURCES
            .iter()
            .map(|r| {
                LaunchTemplateTagSpecificationRequest::builder()
                    .resource_type(ResourceType::from(*r))
                    .set_tags(Some(tags.clone()))
                    .build()
            })
            .collect()
    });
    RequestLaunchTemplateData::builder()
        .set_instance_type(d.instance_type.as_deref().map(Into::into))
        .set_network_interfaces((!d.network_interfaces.is_empty()).then(|| nics.collect()))
        // EC2 takes security groups on the interfaces when the template has any, not both.
        .set_security_group_ids(groups.clone().filter(|_| d.network_interfaces.is_empty()))
        .set_block_device_mappings((!d.block_device_mappings.is_empty()).then(|| volumes.collect()))
        .set_ebs_optimized(d.ebs_optimized)
        .set_instance_market_options(d.capacity_block.then(|| {
            LaunchTemplateInstanceMarketOptionsRequest::builder()
                .market_type(MarketType::CapacityBlock)
                .build()
        }))
        .set_capacity_reservation_specification(target)
        .set_placement(
            d.placement_group
                .as_ref()
                .map(|g| LaunchTemplatePlacementRequest::builder().group_name(g).build()),
        )
        .set_tag_specifications(tag_specs)
        .set_metadata_options(d.metadata_options.as_ref().map(|m| {
            LaunchTemplateInstanceMetadataOptionsRequest::builder()
                .set_http_endpoint(
                    m.http_endpoint
                        .as_deref()
                        .map(LaunchTemplateInstanceMetadataEndpointState::from),
                )
                .set_http_tokens(m.http_tokens.as_deref().map(LaunchTemplateHttpTokensState::from))
                .set_http_put_response_hop_limit(m.http_put_response_hop_limit.map(to_i32))
                .build()
        }))
        .set_monitoring(
            d.detailed_monitoring
                .map(|on| LaunchTemplatesMonitoringRequest::builder().enabled(on).build()),
        )
        .set_user_data(d.user_data.as_deref().map(user_data::base64))
        .build()
}

fn tags_of(t: &[Tag]) -> BTreeMap<String, String> {
    t.iter()
        .filter_map(|t| Some((t.key()?.to_owned(), t.value().unwrap_or_default().to_owned())))
        .collect()
}

fn data_of(d: &aws_sdk_ec2::types::ResponseLaunchTemplateData) -> LaunchTemplateData {
    let target = d
        .capacity_reservation_specification()
        .and_then(|c| c.capacity_reservation_target());
    LaunchTemplateData {
        instance_type: d.instance_type().map(|t| t.as_str().to_owned()),
        network_interfaces: d
            .network_interfaces()
            .iter()
            .map(|n| TemplateInterface {
                network_card_index: n.network_card_index().map_or(0, i64::from),
                device_index: n.device_index().map_or(0, i64::from),
                interface_type: n.interface_type().unwrap_or("interface").to_owned(),
                associate_public_ip_address: n.associate_public_ip_address(),
                delete_on_termination: n.delete_on_termination(),
                description: n.description().map(str::to_owned),
                security_group_ids: n.groups().to_vec(),
            })
            .collect(),
        capacity_reservation_id: target.and_then(|t| t.capacity_reservation_id()).map(str::to_owned),
        capacity_reservation_resource_group_arn: target
            .and_then(|t| t.capacity_reservation_resource_group_arn())
            .map(str::to_owned),
        capacity_block: d
            .instance_market_options()
            .and_then(|m| m.market_type())
            .is_some_and(|m| *m == MarketType::CapacityBlock),
        block_device_mappings: d
            .block_device_mappings()
            .iter()
            .map(|b| {
                let ebs = b.ebs();
                TemplateVolume {
                    device_name: b.device_name().unwrap_or_default().to_owned(),
                    volume_size: ebs.and_then(|e| e.volume_size()).map(i64::from),
                    volume_type: ebs.and_then(|e| e.volume_type()).map(|t| t.as_str().to_owned()),
                    iops: ebs.and_then(|e| e.iops()).map(i64::from),
                    throughput: ebs.and_then(|e| e.throughput()).map(i64::from),
                    encrypted: ebs.and_then(|e| e.encrypted()),
                    delete_on_termination: ebs.and_then(|e| e.delete_on_termination()),
                    snapshot_id: ebs.and_then(|e| e.snapshot_id()).map(str::to_owned),
                    kms_key_id: ebs.and_then(|e| e.kms_key_id()).map(str::to_owned),
                }
            })
            .collect(),
        ebs_optimized: d.ebs_optimized(),
        // Base64 as EC2 returns it; text that is not base64 of UTF-8 stays as it is (drift).
        user_data: d
            .user_data()
            .map(|u| user_data::from_base64(u).unwrap_or_else(|| u.to_owned())),
        placement_group: d.placement().and_then(|p| p.group_name()).map(str::to_owned),
        // The instance tags: the first tag specification's (the provider writes the same tags on
        // every resource type it lists).
        instance_tags: d
            .tag_specifications()
            .iter()
            .find(|t| t.resource_type().is_some_and(|r| r.as_str() == "instance"))
            .map(|t| tags_of(t.tags()))
            .unwrap_or_default(),
        metadata_options: d.metadata_options().map(|m| TemplateMetadata {
            http_endpoint: m.http_endpoint().map(|e| e.as_str().to_owned()),
            http_tokens: m.http_tokens().map(|t| t.as_str().to_owned()),
            http_put_response_hop_limit: m.http_put_response_hop_limit().map(i64::from),
        }),
        detailed_monitoring: d.monitoring().and_then(|m| m.enabled()),
        // The groups of the first interface (the provider writes the pool's on each), or the
        // template's own; the core's read-back tells the pool's from an interface's.
        security_group_ids: d
            .network_interfaces()
            .first()
            .map_or_else(|| d.security_group_ids().to_vec(), |n| n.groups().to_vec()),
        // The version's, beside its data (`describe_launch_template`).
        version_description: None,
    }
}

impl AwsClients {
    /// `ec2:CreateLaunchTemplate`, tagged on creation: the template's id and its version 1.
    pub async fn create_launch_template(&self, lt: &LaunchTemplate) -> Result<(String, i64), AwsError> {
        let tags = lt
            .tags
            .iter()
            .map(|(k, v)| Tag::builder().key(k).value(v).build())
            .collect();
        let out = self
            .ec2()
            .await
            .create_launch_template()
            .launch_template_name(&lt.name)
            .launch_template_data(request_data(&lt.data))
            .set_version_description(lt.data.version_description.clone())
            .tag_specifications(
                TagSpecification::builder()
                    .resource_type(ResourceType::LaunchTemplate)
                    .set_tags(Some(tags))
                    .build(),
            )
            .send()
            .await
            .map_err(|e| self.sdk_error("ec2:CreateLaunchTemplate", e))?;
        let t = out.launch_template();
        let id = t.and_then(|t| t.launch_template_id()).unwrap_or_default().to_owned();
        let version = t.and_then(|t| t.latest_version_number()).unwrap_or(1);
        tracing::info!(template = %lt.name, %id, "created launch template");
        Ok((id, version))
    }

    /// `ec2:CreateLaunchTemplateVersion`: the new version's number.
    pub async fn create_launch_template_version(&self, id: &str, data: &LaunchTemplateData) -> Result<i64, AwsError> {
        let out = self
            .ec2()
            .await
            .create_launch_template_version()
            .launch_template_id(id)
            .launch_template_data(request_data(data))
            .set_version_description(data.version_description.clone())
            .send()
            .await
            .map_err(|e| self.sdk_error("ec2:CreateLaunchTemplateVersion", e))?;
        let version = out
            .launch_template_version()
            .and_then(|v| v.version_number())
            .unwrap_or_default();
        tracing::info!(template = id, version, "created launch template version");
        Ok(version)
    }

    /// `ec2:DescribeLaunchTemplates` by name, then `ec2:DescribeLaunchTemplateVersions` of `version`
    /// (the latest when `None`): `None` when there is no such template.
    pub async fn describe_launch_template(
        &self,
        name: &str,
        version: Option<i64>,
    ) -> Result<Option<LaunchTemplate>, AwsError> {
        let out = match self
            .ec2()
            .await
            .describe_launch_templates()
            .launch_template_names(name)
            .send()
            .await
        {
            Ok(out) => out,
            Err(e) => {
                let e = self.sdk_error("ec2:DescribeLaunchTemplates", e);
                return if gone(&e) { Ok(None) } else { Err(e) };
            }
        };
        let Some(t) = out.launch_templates().first() else {
            return Ok(None);
        };
        let id = t.launch_template_id().unwrap_or_default().to_owned();
        let version = version.or(t.latest_version_number()).unwrap_or(1);
        let versions = self
            .ec2()
            .await
            .describe_launch_template_versions()
            .launch_template_id(&id)
            .versions(version.to_string())
            .send()
            .await
            .map_err(|e| self.sdk_error("ec2:DescribeLaunchTemplateVersions", e))?;
        let live = versions.launch_template_versions().first();
        let data = LaunchTemplateData {
            version_description: live.and_then(|v| v.version_description()).map(str::to_owned),
            ..live
                .and_then(|v| v.launch_template_data())
                .map(data_of)
                .unwrap_or_default()
        };
        Ok(Some(LaunchTemplate {
            name: name.to_owned(),
            data,
            tags: tags_of(t.tags()),
            id: Some(id),
            version: Some(version),
        }))
    }

    /// `ec2:CreateTags` and `ec2:DeleteTags` on a template: `add` set (the ownership tags of an
    /// adopted template, changed pool or default tags) and `remove` gone (tags no longer wanted).
    pub async fn retag_launch_template(
        &self,
        id: &str,
        add: &BTreeMap<String, String>,
        remove: &[String],
    ) -> Result<(), AwsError> {
        if !add.is_empty() {
            self.ec2()
                .await
                .create_tags()
                .resources(id)
                .set_tags(Some(
                    add.iter()
                        .map(|(k, v)| Tag::builder().key(k).value(v).build())
                        .collect(),
                ))
                .send()
                .await
                .map_err(|e| self.sdk_error("ec2:CreateTags", e))?;
        }
        if !remove.is_empty() {
            self.ec2()
                .await
                .delete_tags()
                .resources(id)
                .set_tags(Some(remove.iter().map(|k| Tag::builder().key(k).build()).collect()))
                .send()
                .await
                .map_err(|e| self.sdk_error("ec2:DeleteTags", e))?;
        }
        tracing::info!(
            template = id,
            added = add.len(),
            removed = remove.len(),
            "retagged launch template"
        );
        Ok(())
    }

    /// `ec2:DeleteLaunchTemplate`; one already gone is fine.
    pub async fn delete_launch_template(&self, id: &str) -> Result<(), AwsError> {
        match self
            .ec2()
            .await
            .delete_launch_template()
            .launch_template_id(id)
            .send()
            .await
        {
            Ok(_) => {
                tracing::info!(template = id, "deleted launch template");
                Ok(())
            }
            Err(e) => {
                let e = self.sdk_error("ec2:DeleteLaunchTemplate", e);
                if gone(&e) { Ok(()) } else { Err(e) }
            }
        }
    }
}
