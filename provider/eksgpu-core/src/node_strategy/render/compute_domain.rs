//! The DRA `ComputeDomain` of a `multi_node_nvlink` pool (resource.nvidia.com/v1beta1, NVIDIA DRA
//! driver for GPUs, chart `oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu`
//! 0.4.1, CRD kubernetes-sigs/dra-driver-nvidia-gpu v0.4.1
//! `deployments/helm/dra-driver-nvidia-gpu/crds/resource.nvidia.com_computedomains.yaml`; EKS user guide, "Use P6e-GB200 UltraServers
//! with Amazon EKS", https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-nvidia-ultraserver.html).
//! A ComputeDomain is the set of nodes a multi-node job shares GPU memory across (IMEX over
//! NVLink); the driver's controller creates, in the ComputeDomain's namespace, the
//! ResourceClaimTemplate named in `spec.channel.resourceClaimTemplate.name`, which the job's pods
//! claim to get the domain's IMEX channel.
//!
//! - `metadata.name` is the pool's name (as its NodePool's), in `compute_domain_namespace`
//!   (`default` when unset): a pod can only claim a template of its own namespace.
//! - `spec.numNodes` is 0, which the driver accepts from 25.8.0 on (EKS user guide, P6e-GB200).
//!   With the driver's `IMEXDaemonsWithDNSNames` gate, on by default at v0.4.1
//!   (`pkg/featuregates/featuregates.go`), the CRD's own description of `numNodes` recommends 0: IMEX daemons start as the job's pods land, and a non-zero value only drives
//!   the object's `status`. A pool's node count is no fixed number anyway (a node group scales
//!   between `min` and `max`, the Cluster Autoscaler moves `desired`), and the spec is immutable
//!   (CRD rule `self == oldSelf`), so a count would replace the object on every resize.
//! - `spec.channel.resourceClaimTemplate.name` is `<pool>-channel`.
//!
//! Nodes of one NVLink domain carry the clique label [`CLIQUE_LABEL`] (set by GPU Feature
//! Discovery, as the EKS P6e-GB200 guide uses it): a job keeps its pods in one clique with a pod affinity on that topology key, as the EKS user guide's examples do.

use serde_json::json;

use super::{Manifest, metadata};
use crate::kinds;
use crate::model::{NodeStrategy, Pool};

/// The node label whose value names a node's NVLink clique (`<cluster UUID>.<clique ID>`).
pub const CLIQUE_LABEL: &str = "nvidia.com/gpu.clique";

/// Where a pool's ComputeDomain lives when `compute_domain_namespace` is unset.
pub const DEFAULT_COMPUTE_DOMAIN_NAMESPACE: &str = "default";

/// The ResourceClaimTemplate a workload of the pool claims (`None` without `multi_node_nvlink`).
pub fn compute_domain_claim_template(pool: &Pool) -> Option<String> {
    pool.multi_node_nvlink.then(|| format!("{}-channel", pool.name))
}

/// The namespace of the pool's ComputeDomain.
pub fn compute_domain_namespace(pool: &Pool) -> &str {
    pool.compute_domain_namespace
        .as_deref()
        .unwrap_or(DEFAULT_COMPUTE_DOMAIN_NAMESPACE)
}

/// The pool's ComputeDomain, if it is a `multi_node_nvlink` pool. Not among `pool_manifests`: it
/// is applied for pools of every capacity kind (a node group's as well as a NodePool's), beside
/// the pool's own objects.
pub fn compute_domains(strategy: &NodeStrategy, pool: &Pool) -> Vec<Manifest> {
    let Some(template) = compute_domain_claim_template(pool) else {
        return Vec::new();
    };
    let namespace = compute_domain_namespace(pool).to_owned();
    let mut meta = metadata(strategy, &pool.name);
    meta["namespace"] = json!(namespace);
    let body = json!({
        "apiVersion": kinds::COMPUTE_DOMAIN.api_version(),
        "kind": kinds::COMPUTE_DOMAIN.kind,
        "metadata": meta,
        "spec": {
            "numNodes": 0,
            "channel": {"resourceClaimTemplate": {"name": template}},
        },
    });
    vec![Manifest {
        kind: kinds::COMPUTE_DOMAIN,
        name: pool.name.clone(),
        namespace: Some(namespace),
        body,
    }]
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::fixture;
    use crate::kinds::labels;
    use crate::model::Capacity;

    fn strategy(pool: &Pool) -> NodeStrategy {
        NodeStrategy {
            cluster_name: "gpu".into(),
            name: "training".into(),
            kubernetes_version: Some("1.34".into()),
            gpu_operator: None,
            device_plugin: None,
            pools: vec![pool.clone()],
            default_tags: BTreeMap::new(),
            karpenter_gates: Default::default(),
        }
    }

    fn nvl(namespace: Option<&str>) -> Pool {
        Pool {
            dra: true,
            multi_node_nvlink: true,
            compute_domain_namespace: namespace.map(str::to_owned),
            ..fixture::valid_pool("nvl72", Capacity::ManagedNodeGroup, &["p6e-gb200.36xlarge"])
        }
    }

    #[test]
    fn a_multi_node_nvlink_pool_renders_its_compute_domain() {
        let pool = nvl(Some("training"));
        let [cd] = compute_domains(&strategy(&pool), &pool).try_into().unwrap();
        assert_eq!(cd.kind, kinds::COMPUTE_DOMAIN);
        assert_eq!((cd.name.as_str(), cd.namespace.as_deref()), ("nvl72", Some("training")));
        assert_eq!(cd.body["apiVersion"], "resource.nvidia.com/v1beta1");
        assert_eq!(cd.body["metadata"]["namespace"], "training");
        assert_eq!(cd.body["metadata"]["labels"][labels::STRATEGY], "training");
        assert_eq!(
            cd.body["metadata"]["labels"][labels::MANAGED_BY],
            labels::MANAGED_BY_VALUE
        );
        assert_eq!(
            cd.body["spec"],
            json!({"numNodes": 0, "channel": {"resourceClaimTemplate": {"name": "nvl72-channel"}}})
        );
        assert_eq!(compute_domain_claim_template(&pool).as_deref(), Some("nvl72-channel"));
    }

    #[test]
    fn the_default_namespace_when_none_is_given() {
        let pool = nvl(None);
        let cds = compute_domains(&strategy(&pool), &pool);
        assert_eq!(cds[0].namespace.as_deref(), Some("default"));
    }

    #[test]
    fn other_pools_render_none() {
        let pool = Pool {
            multi_node_nvlink: false,
            ..nvl(Some("training"))
        };
        assert!(compute_domains(&strategy(&pool), &pool).is_empty());
        assert_eq!(compute_domain_claim_template(&pool), None);
    }
}
