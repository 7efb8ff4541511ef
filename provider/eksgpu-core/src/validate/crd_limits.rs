//! Counts and lengths the vendored CRDs enforce (`maxItems`, `maxLength`), as named constants.
//!
//! Why constants and not a build script: the core stays free of I/O (provider/ARCHITECTURE.md),
//! and a build script would make every build depend on the acceptance tests' files. Instead the
//! test below reads each constant's counterpart from the CRDs vendored for the Kubernetes
//! emulator (acceptance-tests/kube-emulator/crds/, copied unchanged from
//! aws/karpenter-provider-aws v1.14.1 `pkg/apis/crds/`) and fails when one differs, so updating a
//! vendored CRD to a new release forces these numbers to follow.

/// `karpenter.sh_nodepools.yaml` `spec.template.spec.requirements`: `maxItems: 100`, counting the
/// requirements the provider renders (instance types, capacity types, zones, Auto Mode's Neuron
/// family) with the pool's own.
pub const NODE_POOL_REQUIREMENTS_MAX: usize = 100;

/// `karpenter.sh_nodepools.yaml` `spec.template.spec.requirements[].key`: `maxLength: 316`, one
/// less than a Kubernetes label key may have (a 253-character prefix, `/`, a 63-character name).
pub const REQUIREMENT_KEY_MAX_LEN: usize = 316;

/// `karpenter.k8s.aws_ec2nodeclasses.yaml` `spec.subnetSelectorTerms`,
/// `spec.securityGroupSelectorTerms` and `spec.capacityReservationSelectorTerms`: `maxItems: 30`.
pub const SELECTOR_TERMS_MAX: usize = 30;

/// `karpenter.k8s.aws_ec2nodeclasses.yaml` `spec.blockDeviceMappings`: `maxItems: 50`, counting
/// the mappings the provider renders for `root_volume` with the pool's own.
pub const BLOCK_DEVICE_MAPPINGS_MAX: usize = 50;

/// `karpenter.k8s.aws_ec2nodeclasses.yaml` `spec.networkInterfaces`: `maxItems: 150`.
pub const NETWORK_INTERFACES_MAX: usize = 150;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::{crd_node, vendored_crd};

    fn limit(file: &str, pointer: &str, field: &str) -> usize {
        let node = crd_node(&vendored_crd(file), pointer);
        node[field]
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or_else(|| panic!("{file} {pointer} has no {field}"))
    }

    #[test]
    fn every_limit_is_the_vendored_crds() {
        const POOL: &str = "karpenter.sh_nodepools.yaml";
        const CLASS: &str = "karpenter.k8s.aws_ec2nodeclasses.yaml";
        let requirements = "/properties/spec/properties/template/properties/spec/properties/requirements";
        assert_eq!(limit(POOL, requirements, "maxItems"), NODE_POOL_REQUIREMENTS_MAX);
        assert_eq!(
            limit(POOL, &format!("{requirements}/items/properties/key"), "maxLength"),
            REQUIREMENT_KEY_MAX_LEN
        );
        for terms in [
            "subnetSelectorTerms",
            "securityGroupSelectorTerms",
            "capacityReservationSelectorTerms",
        ] {
            assert_eq!(
                limit(CLASS, &format!("/properties/spec/properties/{terms}"), "maxItems"),
                SELECTOR_TERMS_MAX,
                "{terms}"
            );
        }
        assert_eq!(
            limit(CLASS, "/properties/spec/properties/blockDeviceMappings", "maxItems"),
            BLOCK_DEVICE_MAPPINGS_MAX
        );
        assert_eq!(
            limit(CLASS, "/properties/spec/properties/networkInterfaces", "maxItems"),
            NETWORK_INTERFACES_MAX
        );
    }
}
