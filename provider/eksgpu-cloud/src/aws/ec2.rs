//! EC2 instance-type facts for refreshing the GPU catalog.

use async_trait::async_trait;
use eksgpu_core::catalog::{Arch, LiveInstanceType, Manufacturer};

use super::AwsError;

/// Where live instance-type facts come from.
#[async_trait]
pub trait InstanceTypes: Send + Sync {
    /// Every instance type in the region that has GPUs or Neuron devices.
    async fn accelerated_instance_types(&self) -> Result<Vec<LiveInstanceType>, AwsError>;
}

pub struct Ec2InstanceTypes {
    client: aws_sdk_ec2::Client,
    /// For messages when EC2 cannot be reached.
    endpoint: Option<String>,
}

impl Ec2InstanceTypes {
    pub(crate) fn new(client: aws_sdk_ec2::Client, endpoint: Option<String>) -> Self {
        Self { client, endpoint }
    }
}

/// Accelerated families all start with these letters; asking for them instead
/// of every type keeps the refresh to a few pages.
const FAMILY_PATTERNS: [&str; 4] = ["g*", "p*", "trn*", "inf*"];

#[async_trait]
impl InstanceTypes for Ec2InstanceTypes {
    async fn accelerated_instance_types(&self) -> Result<Vec<LiveInstanceType>, AwsError> {
        let filter = aws_sdk_ec2::types::Filter::builder()
            .name("instance-type")
            .set_values(Some(FAMILY_PATTERNS.iter().map(|s| (*s).to_owned()).collect()))
            .build();
        let mut pages = self
            .client
            .describe_instance_types()
            .filters(filter)
            .max_results(100)
            .into_paginator()
            .send();
        let mut out = Vec::new();
        while let Some(page) = pages.next().await {
            let page =
                page.map_err(|e| AwsError::from_sdk("ec2:DescribeInstanceTypes", e).at(self.endpoint.clone()))?;
            out.extend(page.instance_types().iter().filter_map(convert));
        }
        tracing::debug!(count = out.len(), "described accelerated instance types");
        Ok(out)
    }
}

fn convert(t: &aws_sdk_ec2::types::InstanceTypeInfo) -> Option<LiveInstanceType> {
    let name = t.instance_type()?.as_str().to_owned();
    let architecture = if t
        .processor_info()
        .is_some_and(|p| p.supported_architectures().iter().any(|a| a.as_str() == "arm64"))
    {
        Arch::Arm64
    } else {
        Arch::X86_64
    };
    let efa_interfaces = t
        .network_info()
        .and_then(|n| n.efa_info())
        .and_then(|e| e.maximum_efa_interfaces())
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(0);
    let count = |n: Option<i32>| n.and_then(|n| u32::try_from(n).ok()).unwrap_or(0);
    let mib = |n: Option<i32>| n.and_then(|n| u32::try_from(n).ok());
    if let Some(gpu) = t.gpu_info().and_then(|g| g.gpus().first()) {
        let manufacturer = match gpu.manufacturer() {
            Some(m) if m.eq_ignore_ascii_case("NVIDIA") => Manufacturer::Nvidia,
            // AMD and others carry no NVIDIA stack: out of this provider's scope.
            _ => return None,
        };
        return Some(LiveInstanceType {
            name,
            gpu_model: gpu.name()?.to_owned(),
            manufacturer,
            gpu_count: count(gpu.count()),
            gpu_memory_mib: mib(gpu.memory_info().and_then(|m| m.size_in_mib())),
            architecture,
            efa_interfaces,
        });
    }
    let neuron = t.neuron_info().and_then(|n| n.neuron_devices().first())?;
    Some(LiveInstanceType {
        name,
        gpu_model: neuron.name()?.to_owned(),
        manufacturer: Manufacturer::Aws,
        gpu_count: count(neuron.count()),
        gpu_memory_mib: mib(neuron.memory_info().and_then(|m| m.size_in_mib())),
        architecture,
        efa_interfaces,
    })
}
