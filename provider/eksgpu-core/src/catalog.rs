//! The GPU and accelerator instance catalog: which EC2 instance types carry
//! which GPUs, how much memory each GPU has, and how MIG can split them.
//! Facts only, each row with its source; prices are never part of it.
//!
//! The tables are data files (`data/gpu_instances.csv`, `data/mig_gpus.csv`,
//! `data/mig_profiles.csv`, one public source URL per row) compiled into the
//! statics below by `build.rs`.

mod entry;
mod mig_layout;

/// The generated tables: `INSTANCE_TYPES` and one `MigGpu` per MIG-capable GPU.
mod data {
    use super::{Arch, InstanceType, Manufacturer, MigGpu, MigProfile, Source};
    include!(concat!(env!("OUT_DIR"), "/catalog_data.rs"));
}

pub use entry::{Entry, LiveInstanceType, entries};
pub use mig_layout::{MigLayout, MigProfileName};

/// Where a row's facts come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// EC2 `DescribeInstanceTypes` as published in Karpenter's generated
    /// instance-type reference (aws/karpenter-provider-aws v1.14.1; the row's
    /// URL names the tag or commit that lists the type).
    KarpenterInstanceTypes,
    /// NVIDIA go-nvml mock GPU tables, GPU Operator mig-parted ConfigMap and
    /// SageMaker HyperPod profile maps, all agreeing.
    MigThreeSources,
    /// GPU Operator mig-parted ConfigMap and SageMaker HyperPod, agreeing.
    MigTwoSources,
    /// GPU Operator default mig-parted ConfigMap (NVIDIA/gpu-operator v26.7.0).
    GpuOperatorConfigMap,
    /// Read live from EC2 `DescribeInstanceTypes` by this provider.
    Ec2DescribeInstanceTypes,
    /// From a single secondary source or an estimate; not a fact yet.
    Unverified,
}

impl Source {
    /// A short stable key, as shown in the data source's `source` attribute.
    pub fn key(self) -> &'static str {
        match self {
            Source::KarpenterInstanceTypes => "karpenter-instance-types",
            Source::MigThreeSources => "go-nvml+gpu-operator+hyperpod",
            Source::MigTwoSources => "gpu-operator+hyperpod",
            Source::GpuOperatorConfigMap => "gpu-operator-mig-parted-config",
            Source::Ec2DescribeInstanceTypes => "ec2-describe-instance-types",
            Source::Unverified => "unverified",
        }
    }

    pub fn verified(self) -> bool {
        self != Source::Unverified
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    X86_64,
    Arm64,
}

impl Arch {
    pub fn as_str(self) -> &'static str {
        match self {
            Arch::X86_64 => "x86_64",
            Arch::Arm64 => "arm64",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Manufacturer {
    Nvidia,
    /// AWS Neuron accelerators (Trainium, Inferentia).
    Aws,
}

/// One MIG profile: `<slices>g.<memory>gb[+me…]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MigProfile {
    pub name: &'static str,
    /// The figure in the name: NVIDIA's rounded marketing unit, neither GB nor GiB exactly.
    pub memory_gb: u32,
    /// Memory of one instance in MiB, as the driver reports it (NVML
    /// `memorySizeMB`, `nvidia-smi mig -lgip`) where a public source gives it;
    /// else the name's figure read as 10^9 bytes, the lower reading. Checks use this.
    pub memory_mib: u64,
    /// `memory_mib` is the driver's figure (from `memory_source_url`), not the estimate.
    pub memory_from_driver: bool,
    pub memory_source_url: &'static str,
    pub compute_slices: u32,
    /// How many instances of this profile fit on one GPU.
    pub max_instances: u32,
}

/// How MIG can split one GPU model.
#[derive(Debug, PartialEq, Eq)]
pub struct MigGpu {
    pub name: &'static str,
    /// Compute slices of the whole GPU (7 on data-centre GPUs, 4 on RTX PRO 6000).
    pub compute_slices: u32,
    /// Most MIG instances one GPU can hold.
    pub max_instances: u32,
    pub profiles: &'static [MigProfile],
    /// The `all-balanced` mig-parted layout: profile and count per GPU.
    pub balanced: &'static [(&'static str, u32)],
    pub source: Source,
    /// Public source of the profile names and counts (a versioned URL).
    pub source_url: &'static str,
}

impl MigGpu {
    pub fn profile(&self, name: &str) -> Option<&'static MigProfile> {
        self.profiles.iter().find(|p| p.name == name)
    }
}

/// One EC2 instance type with GPUs or Neuron accelerators.
#[derive(Debug, PartialEq, Eq)]
pub struct InstanceType {
    pub name: &'static str,
    /// Short model name as users say it: `H200`, `A10G`, `L40S`, `Trainium2`.
    pub gpu_model: &'static str,
    pub manufacturer: Manufacturer,
    /// Whole GPUs (Neuron devices for AWS accelerators); 0 for fractional GPUs.
    pub gpu_count: u32,
    /// Memory per GPU in MiB as EC2 reports it; `None` where EC2 does not say.
    pub gpu_memory_mib: Option<u32>,
    /// A slice of one GPU (g6f, gr6f): Karpenter advertises no `nvidia.com/gpu` on it.
    pub fractional: bool,
    pub vcpus: u32,
    pub memory_gib: u32,
    pub architecture: Arch,
    /// Most EFA interfaces; `Some(0)` = no EFA, `None` = not known.
    pub efa_interfaces: Option<u32>,
    pub mig: Option<&'static MigGpu>,
    pub source: Source,
    /// Public source of the row (a versioned URL).
    pub source_url: &'static str,
}

impl InstanceType {
    pub fn mig_capable(&self) -> bool {
        self.mig.is_some()
    }

    pub fn is_nvidia_gpu(&self) -> bool {
        self.manufacturer == Manufacturer::Nvidia
    }

    pub fn verified(&self) -> bool {
        self.source.verified() && self.mig.is_none_or(|m| m.source.verified())
    }
}

/// Every instance type in the catalog, in a stable order.
pub fn instance_types() -> &'static [InstanceType] {
    data::INSTANCE_TYPES
}

/// Looks an instance type up by its EC2 name (`p5en.48xlarge`).
pub fn instance_type(name: &str) -> Option<&'static InstanceType> {
    data::INSTANCE_TYPES.iter().find(|t| t.name == name)
}

/// The catalog's GPU model names, for diagnostics that list valid choices.
pub fn gpu_models() -> Vec<&'static str> {
    let mut models: Vec<_> = data::INSTANCE_TYPES.iter().map(|t| t.gpu_model).collect();
    models.sort_unstable();
    models.dedup();
    models
}

/// Filters of the `eksgpu_gpu_catalog` data source; `None` means "any".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Case-insensitive GPU model name (`h200` matches `H200`).
    pub gpu_model: Option<String>,
    pub mig_capable: Option<bool>,
    pub min_gpu_memory_mib: Option<u64>,
}

impl Filter {
    pub fn matches(&self, t: &InstanceType) -> bool {
        self.gpu_model
            .as_deref()
            .is_none_or(|m| t.gpu_model.eq_ignore_ascii_case(m.trim()))
            && self.mig_capable.is_none_or(|m| t.mig_capable() == m)
            && self
                .min_gpu_memory_mib
                .is_none_or(|min| t.gpu_memory_mib.is_some_and(|mib| u64::from(mib) >= min))
    }
}

#[cfg(test)]
mod tests;
