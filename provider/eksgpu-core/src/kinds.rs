//! The Kubernetes kinds the provider renders, with what a client needs to
//! address them without discovery (group, version, plural, scope).

/// A kind and where its objects live in the API.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Kind {
    pub group: &'static str,
    pub version: &'static str,
    pub kind: &'static str,
    pub plural: &'static str,
    pub namespaced: bool,
    /// What to install when the kind is missing from a cluster.
    pub provided_by: &'static str,
}

impl Kind {
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_owned()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

pub const NODE_POOL: Kind = Kind {
    group: "karpenter.sh",
    version: "v1",
    kind: "NodePool",
    plural: "nodepools",
    namespaced: false,
    provided_by: "Karpenter v1 (its CRDs), or EKS Auto Mode",
};

pub const EC2_NODE_CLASS: Kind = Kind {
    group: "karpenter.k8s.aws",
    version: "v1",
    kind: "EC2NodeClass",
    plural: "ec2nodeclasses",
    namespaced: false,
    provided_by: "Karpenter v1 for AWS (the karpenter-crd chart)",
};

pub const AUTO_MODE_NODE_CLASS: Kind = Kind {
    group: "eks.amazonaws.com",
    version: "v1",
    kind: "NodeClass",
    plural: "nodeclasses",
    namespaced: false,
    provided_by: "EKS Auto Mode (enable compute on the cluster)",
};

/// karpenter.sh/v1alpha1 NodeOverlay (karpenter-provider-aws v1.14.1
/// `pkg/apis/crds/karpenter.sh_nodeoverlays.yaml`, cluster-scoped; in Karpenter from v1.7.0).
pub const NODE_OVERLAY: Kind = Kind {
    group: "karpenter.sh",
    version: "v1alpha1",
    kind: "NodeOverlay",
    plural: "nodeoverlays",
    namespaced: false,
    provided_by: "Karpenter 1.7 or later (its CRDs), run with the nodeOverlay feature gate",
};

/// resource.nvidia.com/v1beta1 ComputeDomain (NVIDIA DRA driver for GPUs, chart
/// `oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu` 0.4.1, CRD
/// `computedomains.resource.nvidia.com`, namespaced; EKS user guide, P6e-GB200 UltraServers).
pub const COMPUTE_DOMAIN: Kind = Kind {
    group: "resource.nvidia.com",
    version: "v1beta1",
    kind: "ComputeDomain",
    plural: "computedomains",
    namespaced: true,
    provided_by: "the NVIDIA DRA driver for GPUs (chart dra-driver-nvidia-gpu) with resources.computeDomains.enabled",
};

/// apps/v1 DaemonSet: read (listed, never written) to find the device managers a cluster runs
/// (`node_strategy::cluster_managers`).
pub const DAEMON_SET: Kind = Kind {
    group: "apps",
    version: "v1",
    kind: "DaemonSet",
    plural: "daemonsets",
    namespaced: true,
    provided_by: "Kubernetes",
};

pub const CONFIG_MAP: Kind = Kind {
    group: "",
    version: "v1",
    kind: "ConfigMap",
    plural: "configmaps",
    namespaced: true,
    provided_by: "Kubernetes",
};

pub const NAMESPACE: Kind = Kind {
    group: "",
    version: "v1",
    kind: "Namespace",
    plural: "namespaces",
    namespaced: false,
    provided_by: "Kubernetes",
};

/// karpenter.sh/v1 NodeClaim: read (listed, never written) by the capacity probe; Karpenter makes
/// one per node it launches (aws/karpenter-provider-aws v1.14.1
/// `pkg/apis/crds/karpenter.sh_nodeclaims.yaml`, cluster-scoped).
pub const NODE_CLAIM: Kind = Kind {
    group: "karpenter.sh",
    version: "v1",
    kind: "NodeClaim",
    plural: "nodeclaims",
    namespaced: false,
    provided_by: "Karpenter v1 (its CRDs), or EKS Auto Mode",
};

/// v1 Pod: the capacity probe's pause pod.
pub const POD: Kind = Kind {
    group: "",
    version: "v1",
    kind: "Pod",
    plural: "pods",
    namespaced: true,
    provided_by: "Kubernetes",
};

/// v1 Event: what Karpenter says about the probe's pod, NodePool and NodeClaims (read only).
pub const EVENT: Kind = Kind {
    group: "",
    version: "v1",
    kind: "Event",
    plural: "events",
    namespaced: true,
    provided_by: "Kubernetes",
};

/// Labels the provider puts on every object it creates, so operators (and
/// `terraform import`) can find them.
pub mod labels {
    pub const MANAGED_BY: &str = "app.kubernetes.io/managed-by";
    pub const MANAGED_BY_VALUE: &str = "terraform-provider-eksgpu";
    pub const STRATEGY: &str = "eksgpu.terraform.io/strategy";
    pub const CLUSTER: &str = "eksgpu.terraform.io/cluster";
    /// The token of the resource instance that last wrote the object (its `owner_token`): a
    /// destroy deletes only what bears its own, so an instance replaced with
    /// `create_before_destroy` leaves what its successor wrote.
    pub const OWNER_TOKEN: &str = "eksgpu.terraform.io/owner-token";

    /// Characters of the cluster name kept before the hash in [`cluster_value`].
    const CLUSTER_PREFIX: usize = 63 - 1 - 16;

    /// The value of [`CLUSTER`] for cluster `name`. EKS names have 1–100 characters of
    /// `[0-9A-Za-z][A-Za-z0-9\-_]*` (EKS API CreateCluster); a label value at most 63, ending
    /// in a letter or digit (k8s.io/apimachinery v0.36.3 IsValidLabelValue). A name that is a
    /// label value is its own value, as it always was; any other (64–100 characters, or a
    /// trailing `-` or `_`) becomes its first 46 characters, `-`, and the 16 hex digits of
    /// the FNV-1a 64 hash of the whole name: deterministic, still readable, and distinct for
    /// names that share the prefix (Kubernetes hashes names into labels the same way, e.g.
    /// `pod-template-hash`, kubernetes/kubernetes pkg/controller/controller_utils.go
    /// ComputeHash with FNV-32a). AWS tags carry the whole name (256 characters allowed).
    pub fn cluster_value(name: &str) -> std::borrow::Cow<'_, str> {
        if crate::validate::label_value(name).is_ok() && !name.is_empty() {
            return name.into();
        }
        let prefix: String = name.chars().take(CLUSTER_PREFIX).collect();
        format!("{prefix}-{:016x}", fnv1a64(name.as_bytes())).into()
    }

    /// Whether a recorded cluster (a label value or a tag) names cluster `name`.
    pub fn is_cluster(recorded: &str, name: &str) -> bool {
        recorded == name || recorded == cluster_value(name)
    }

    /// FNV-1a, 64 bits (offset basis 0xcbf29ce484222325, prime 0x100000001b3; IETF
    /// draft-eastlake-fnv).
    fn fnv1a64(bytes: &[u8]) -> u64 {
        bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
        })
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use crate::validate::{eks_cluster_name, label_value};

        #[test]
        fn every_eks_cluster_name_gives_a_label_value() {
            // FNV-1a test vectors (draft-eastlake-fnv): "" and "a".
            assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
            assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
            // Names that are label values stay as they are: objects already labelled keep matching.
            for name in ["gpu", "My_Cluster-1", &"c".repeat(63)] {
                assert_eq!(cluster_value(name), name);
            }
            let long = "c".repeat(100);
            for name in [&"c".repeat(64), &long, "gpu-", "gpu_", &format!("{}-", "x".repeat(62))] {
                assert!(eks_cluster_name(name).is_ok(), "{name}");
                let v = cluster_value(name);
                assert!(label_value(&v).is_ok(), "{name} -> {v}");
                assert_eq!(v.len(), if name.len() >= 46 { 63 } else { name.len() + 17 }, "{v}");
                assert!(v.starts_with(&name[..name.len().min(46)]), "{v}");
                assert!(is_cluster(&v, name) && is_cluster(name, name));
            }
            // Same prefix, different names: different values.
            let (a, b) = (format!("{}a", "p".repeat(70)), format!("{}b", "p".repeat(70)));
            assert_ne!(cluster_value(&a), cluster_value(&b));
            assert!(!is_cluster(&cluster_value(&a), &b));
            // Deterministic across runs and versions (a golden value: changing it relabels objects).
            assert_eq!(
                cluster_value(&long),
                format!("{}-{:016x}", "c".repeat(46), fnv1a64(long.as_bytes()))
            );
        }
    }
}

/// Annotations that carry what the objects alone cannot say, so that
/// `terraform import` can rebuild the configuration exactly.
pub mod annotations {
    /// On every NodePool: `{"index": <position of the pool>, "dra": <bool>}`.
    pub const POOL: &str = "eksgpu.terraform.io/pool";
    /// On every NodePool: the strategy's `gpu_operator` settings as JSON, or absent.
    pub const GPU_OPERATOR: &str = "eksgpu.terraform.io/gpu-operator";
    /// On every NodePool: the strategy's `device_plugin` settings as JSON, or absent.
    pub const DEVICE_PLUGIN: &str = "eksgpu.terraform.io/device-plugin";
}
