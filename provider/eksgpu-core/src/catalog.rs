//! The GPU and accelerator instance catalog: which EC2 instance types carry
//! which accelerators (NVIDIA GPUs or AWS Neuron devices), how much memory each
//! has, how MIG can split a GPU, and where EKS Auto Mode documents the family.
//! Facts only, each row with its source; prices are never part of it.
//!
//! The tables are data files (`data/gpu_instances.csv`, `data/neuron_devices.csv`,
//! `data/mig_gpus.csv`, `data/mig_profiles.csv`, `data/network_cards.csv`, public source URLs per row)
//! compiled into the statics below by `build.rs`; the Auto Mode table is in
//! `auto_mode.rs`.

mod auto_mode;
mod entry;
pub mod labels;
mod mig_layout;
mod network;

/// The generated tables: `INSTANCE_TYPES`, one `MigGpu` per MIG-capable GPU and
/// one `NeuronDevice` per Neuron accelerator.
mod data {
    use super::{Arch, EfaCards, InstanceType, MigGpu, MigProfile, NetworkCards, NeuronDevice, Source, Vendor};
    include!(concat!(env!("OUT_DIR"), "/catalog_data.rs"));
}

pub use auto_mode::{
    AUTO_MODE_ACCELERATED_FAMILIES, AUTO_MODE_EXCLUSIONS, AUTO_MODE_OBSERVATIONS, AUTO_MODE_OBSERVED_FAILURES,
    AUTO_MODE_OBSERVED_WORKING, AUTO_MODE_TABLE_READ, AUTO_MODE_TABLE_SOURCE, AUTO_MODE_TABLE_URL, AutoModeExclusion,
    AutoModeObservation, AutoModeSupport, ObservedOutcome, auto_mode_exclusion, auto_mode_observation,
    auto_mode_supports, instance_family,
};
pub use entry::{Entry, LiveInstanceType, entries};
pub use mig_layout::{MigLayout, MigProfileName};
pub use network::{EfaCards, NetworkCards, all_network_cards, network_cards};

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

/// The accelerator maker as EC2 `DescribeInstanceTypes` reports it (`GpuInfo`
/// manufacturer, or `NeuronInfo` for AWS's own chips).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Manufacturer {
    Nvidia,
    /// AWS Neuron accelerators (Trainium, Inferentia).
    Aws,
}

impl Manufacturer {
    pub fn vendor(self) -> Vendor {
        match self {
            Manufacturer::Nvidia => Vendor::Nvidia,
            Manufacturer::Aws => Vendor::Neuron,
        }
    }
}

/// Whose accelerator stack a node needs: NVIDIA (driver, device plugin or GPU
/// Operator) or AWS Neuron (Neuron driver, device plugin or DRA driver). One
/// pool holds one vendor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Vendor {
    Nvidia,
    /// AWS Trainium and Inferentia.
    Neuron,
}

impl Vendor {
    /// `nvidia` or `neuron`, as a pool's `accelerator` output spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Vendor::Nvidia => "nvidia",
            Vendor::Neuron => "neuron",
        }
    }

    /// The vendor named `s` (case-insensitive).
    pub fn parse(s: &str) -> Option<Self> {
        [Vendor::Nvidia, Vendor::Neuron]
            .into_iter()
            .find(|v| v.as_str().eq_ignore_ascii_case(s.trim()))
    }

    /// How EC2 names the maker of this vendor's accelerators.
    pub fn manufacturer(self) -> Manufacturer {
        match self {
            Vendor::Nvidia => Manufacturer::Nvidia,
            Vendor::Neuron => Manufacturer::Aws,
        }
    }

    /// The extended resource of one whole device, as Karpenter counts it on an
    /// instance type (aws/karpenter-provider-aws v1.14.1 `pkg/apis/v1/labels.go`
    /// `ResourceNVIDIAGPU`, `ResourceAWSNeuron`).
    pub fn device_resource(self) -> &'static str {
        match self {
            Vendor::Nvidia => "nvidia.com/gpu",
            Vendor::Neuron => NEURON_DEVICE_RESOURCE,
        }
    }
}

/// Karpenter's name for Neuron devices (`ResourceAWSNeuron`, labels.go v1.14.1).
pub const NEURON_DEVICE_RESOURCE: &str = "aws.amazon.com/neuron";
/// Karpenter's name for NeuronCores, devices x cores per device
/// (`ResourceAWSNeuronCore`, labels.go v1.14.1).
pub const NEURON_CORE_RESOURCE: &str = "aws.amazon.com/neuroncore";

/// One AWS Neuron device (a Trainium or Inferentia chip).
#[derive(Debug, PartialEq, Eq)]
pub struct NeuronDevice {
    /// `Trainium`, `Trainium2`, `Inferentia`, `Inferentia2`.
    pub name: &'static str,
    /// Physical NeuronCores per device (before any logical-core grouping).
    pub cores: u32,
    /// Device memory (HBM or DRAM) in GiB.
    pub memory_gib: u32,
    /// Public source of the figures (the AWS Neuron architecture guide at a release).
    pub source_url: &'static str,
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
    pub vendor: Vendor,
    /// Whole GPUs (Neuron devices for AWS accelerators); 0 for fractional GPUs.
    pub gpu_count: u32,
    /// Memory per NVIDIA GPU in MiB as EC2 reports it; `None` where the source
    /// does not say, and on Neuron rows (see [`InstanceType::accelerator_memory_mib`]).
    pub gpu_memory_mib: Option<u32>,
    /// A slice of one GPU (g6f, gr6f): Karpenter advertises no `nvidia.com/gpu` on it.
    pub fractional: bool,
    pub vcpus: u32,
    pub memory_gib: u32,
    pub architecture: Arch,
    /// Most EFA interfaces; `Some(0)` = no EFA, `None` = not known.
    pub efa_interfaces: Option<u32>,
    pub mig: Option<&'static MigGpu>,
    /// The Neuron device of a Neuron row (cores and memory per device).
    pub neuron: Option<&'static NeuronDevice>,
    /// NeuronCores of the whole instance as Karpenter counts them
    /// (`aws.amazon.com/neuroncore`); `None` on NVIDIA rows.
    pub neuron_cores: Option<u32>,
    /// Instance store NVMe in GB, as Karpenter's `karpenter.k8s.aws/instance-local-nvme`
    /// label gives it; `Some(0)` = EBS only, `None` = not known.
    pub local_nvme_gb: Option<u32>,
    pub source: Source,
    /// Public source of the row (a versioned URL).
    pub source_url: &'static str,
}

impl InstanceType {
    pub fn mig_capable(&self) -> bool {
        self.mig.is_some()
    }

    pub fn vendor(&self) -> Vendor {
        self.vendor
    }

    pub fn manufacturer(&self) -> Manufacturer {
        self.vendor.manufacturer()
    }

    pub fn is_nvidia_gpu(&self) -> bool {
        self.vendor == Vendor::Nvidia
    }

    pub fn is_neuron(&self) -> bool {
        self.vendor == Vendor::Neuron
    }

    /// Carries accelerators of either vendor: whole GPUs, a fraction of one (g6f),
    /// or Neuron devices. `gpu_count > 0` alone misses fractional GPUs.
    pub fn is_accelerated(&self) -> bool {
        self.gpu_count > 0 || self.fractional
    }

    /// Neuron devices per instance (`aws.amazon.com/neuron`); `None` on NVIDIA rows.
    pub fn neuron_devices(&self) -> Option<u32> {
        self.is_neuron().then_some(self.gpu_count)
    }

    /// NeuronCores per instance (`aws.amazon.com/neuroncore`); `None` on NVIDIA rows.
    pub fn neuron_cores(&self) -> Option<u32> {
        self.neuron_cores
    }

    /// NeuronCores per Neuron device; `None` on NVIDIA rows.
    pub fn neuron_cores_per_device(&self) -> Option<u32> {
        self.neuron.map(|d| d.cores)
    }

    /// Memory of one accelerator device in MiB: the GPU's as EC2 reports it, or
    /// the Neuron device's (GiB x 1024, from the Neuron architecture guide).
    pub fn accelerator_memory_mib(&self) -> Option<u32> {
        match self.neuron {
            Some(d) => Some(d.memory_gib * 1024),
            None => self.gpu_memory_mib,
        }
    }

    /// Instance store NVMe in GB; `Some(0)` = none, `None` = not known.
    pub fn local_nvme_gb(&self) -> Option<u32> {
        self.local_nvme_gb
    }

    /// Most EFA interfaces (`Some(0)` = none, `None` = not known).
    pub fn efa_interfaces(&self) -> Option<u32> {
        self.efa_interfaces
    }

    /// The EC2 family (`p6-b200`, `trn2`).
    pub fn family(&self) -> &'static str {
        instance_family(self.name)
    }

    /// Whether EKS Auto Mode's documented table names this type's family.
    pub fn auto_mode_support(&self) -> AutoModeSupport {
        auto_mode_supports(self.name)
    }

    pub fn verified(&self) -> bool {
        self.source.verified() && self.mig.is_none_or(|m| m.source.verified())
    }
}

/// Every instance type in the catalog, in a stable order.
/// Types EC2 sells only through Capacity Blocks for ML: `p6e-gb200.36xlarge` exists only inside
/// P6e-GB200 UltraServers, bought as Capacity Blocks (EKS user guide, Use P6e-GB200 UltraServers
/// with Amazon EKS, https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-nvidia-ultraserver.html).
pub fn capacity_block_only(instance_type: &str) -> bool {
    instance_type.starts_with("p6e-gb200.")
}

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
    /// Only this accelerator vendor's types (`nvidia`, `neuron`).
    pub vendor: Option<Vendor>,
}

impl Filter {
    pub fn matches(&self, t: &InstanceType) -> bool {
        self.gpu_model
            .as_deref()
            .is_none_or(|m| t.gpu_model.eq_ignore_ascii_case(m.trim()))
            && self.mig_capable.is_none_or(|m| t.mig_capable() == m)
            && self.vendor.is_none_or(|v| t.vendor == v)
            && self
                .min_gpu_memory_mib
                .is_none_or(|min| t.gpu_memory_mib.is_some_and(|mib| u64::from(mib) >= min))
    }
}

#[cfg(test)]
mod tests;
