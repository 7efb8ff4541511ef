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
}

/// Annotations that carry what the objects alone cannot say, so that
/// `terraform import` can rebuild the configuration exactly.
pub mod annotations {
    /// On every NodePool: `{"index": <position of the pool>, "dra": <bool>}`.
    pub const POOL: &str = "eksgpu.terraform.io/pool";
    /// On every NodePool: the strategy's `gpu_operator` settings as JSON, or absent.
    pub const GPU_OPERATOR: &str = "eksgpu.terraform.io/gpu-operator";
}
