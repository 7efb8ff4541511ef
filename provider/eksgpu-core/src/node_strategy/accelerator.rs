//! Whose accelerators a pool's nodes carry. The vendor comes from the pool's instance types
//! (the catalog's `vendor` column): one pool holds one vendor (EKSGPU150), so the first
//! catalog type decides, and a pool without known types (a hybrid pool) is NVIDIA, the only
//! vendor EKS Hybrid Nodes can bring (AWS Neuron devices exist only in EC2, EKSGPU151).

use crate::catalog::{self, Vendor};
use crate::model::{Pool, Taint};

/// The Neuron device plugin's resource and the default taint key of Neuron pools
/// (aws-neuron/neuron-helm-charts `charts/neuron-helm-chart/values.yaml`, chart 1.10.0,
/// `devicePlugin.tolerations`: `aws.amazon.com/neuron` Exists NoSchedule).
pub const NEURON_TAINT_KEY: &str = catalog::NEURON_DEVICE_RESOURCE;
/// The default taint key of NVIDIA pools.
pub const NVIDIA_TAINT_KEY: &str = "nvidia.com/gpu";

impl Pool {
    /// The accelerator vendor of the pool's nodes.
    pub fn vendor(&self) -> Vendor {
        self.instance_types
            .iter()
            .find_map(|t| catalog::instance_type(t))
            .map_or(Vendor::Nvidia, |t| t.vendor())
    }

    /// The pool's nodes carry AWS Neuron devices (Trainium, Inferentia).
    pub fn is_neuron(&self) -> bool {
        self.vendor() == Vendor::Neuron
    }

    /// The taint `gpu_taint` adds: `nvidia.com/gpu=true:NoSchedule`, or on Neuron pools
    /// `aws.amazon.com/neuron:NoSchedule` (the taint the Neuron chart's device plugin and the
    /// EKS Auto Mode Neuron NodePool examples use; awslabs/ai-on-eks
    /// `infra/base/terraform/karpenter-resources/auto-mode/neuron.yaml`).
    pub fn default_taint(&self) -> Taint {
        Taint::default_for(self.vendor())
    }
}

impl Taint {
    /// The default taint of a pool of `vendor`.
    pub fn default_for(vendor: Vendor) -> Taint {
        match vendor {
            Vendor::Nvidia => Taint::default_gpu(),
            Vendor::Neuron => Taint {
                key: NEURON_TAINT_KEY.into(),
                value: None,
                effect: "NoSchedule".into(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture;
    use crate::model::Capacity;

    #[test]
    fn the_first_catalog_type_decides_the_vendor() {
        let neuron = fixture::pool("n", Capacity::Karpenter, &["unknown.xlarge", "trn2.48xlarge"]);
        assert_eq!(neuron.vendor(), Vendor::Neuron);
        assert_eq!(neuron.default_taint().key, "aws.amazon.com/neuron");
        assert_eq!(neuron.default_taint().value, None);
        let gpu = fixture::pool("g", Capacity::Karpenter, &["p5.48xlarge"]);
        assert_eq!(gpu.vendor(), Vendor::Nvidia);
        assert_eq!(gpu.default_taint(), Taint::default_gpu());
        assert_eq!(Pool::named("h", Capacity::Hybrid).vendor(), Vendor::Nvidia);
    }
}
