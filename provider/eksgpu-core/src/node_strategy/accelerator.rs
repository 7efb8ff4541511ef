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
    /// The accelerator vendor of the pool's nodes: its first catalog instance type's, or, for an
    /// in-cluster pool whose `requirements` select the instances alone, Neuron when every
    /// accelerated catalog type they admit is a Neuron type (a pool by
    /// `karpenter.k8s.aws/instance-family In [inf2, trn1]` is a Neuron pool); NVIDIA otherwise.
    pub fn vendor(&self) -> Vendor {
        if let Some(t) = self.instance_types.iter().find_map(|t| catalog::instance_type(t)) {
            return t.vendor();
        }
        if self.instance_types.is_empty() && !self.requirements.is_empty() && self.capacity.is_in_cluster() {
            let selectors = crate::node_strategy::matching::pool_selectors(self);
            let admitted = catalog::labels::matching(&selectors);
            if !admitted.is_empty() && admitted.iter().all(|t| t.vendor() == Vendor::Neuron) {
                return Vendor::Neuron;
            }
        }
        Vendor::Nvidia
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

    #[test]
    fn requirements_alone_make_a_neuron_pool_when_they_admit_only_neuron_types() {
        let req = |values: &[&str]| crate::model::Requirement {
            key: "karpenter.k8s.aws/instance-family".into(),
            operator: "In".into(),
            values: values.iter().map(|v| (*v).to_owned()).collect(),
        };
        let mut p = fixture::pool("n", Capacity::Karpenter, &[]);
        p.requirements = vec![req(&["inf2", "trn1", "trn2"])];
        assert_eq!(p.vendor(), Vendor::Neuron);
        assert_eq!(p.default_taint().key, NEURON_TAINT_KEY);
        // Both vendors admitted, or a label the catalog cannot read: NVIDIA, as before.
        p.requirements = vec![req(&["inf2", "g6"])];
        assert_eq!(p.vendor(), Vendor::Nvidia);
        p.requirements = vec![crate::model::Requirement {
            key: "example.com/team".into(),
            operator: "Exists".into(),
            values: vec![],
        }];
        assert_eq!(p.vendor(), Vendor::Nvidia);
    }
}
