//! EKSGPU142: the EC2NodeClass lists the CRD caps (validate::crd_limits), counted as rendered.
//! The provider adds to what the pool writes: a tags term (the discovery tag, or the pool's
//! tags) before one term per subnet or security-group ID, and the `root_volume` mappings
//! before `block_device_mappings`. So the count is read from the rendered object itself, and a
//! change to the renderer cannot leave the rule behind.

use crate::kinds::EC2_NODE_CLASS;
use crate::model::{Capacity, NodeStrategy, Pool};
use crate::rules::{At, Code, Step, Violation};
use crate::validate::{BLOCK_DEVICE_MAPPINGS_MAX, SELECTOR_TERMS_MAX};

/// (rendered field, the input the user shortens, the CRD's `maxItems`).
const LISTS: [(&str, &str, usize); 4] = [
    ("subnetSelectorTerms", "subnet_selector_ids", SELECTOR_TERMS_MAX),
    (
        "securityGroupSelectorTerms",
        "security_group_selector_ids",
        SELECTOR_TERMS_MAX,
    ),
    (
        "capacityReservationSelectorTerms",
        "capacity_reservations",
        SELECTOR_TERMS_MAX,
    ),
    (
        "blockDeviceMappings",
        "block_device_mappings",
        BLOCK_DEVICE_MAPPINGS_MAX,
    ),
];

pub(super) fn check(s: &NodeStrategy, pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    // Auto Mode's NodeClass is not Karpenter's CRD; the EC2NodeClass is the one whose limits are vendored.
    let Some(nc) = &pool.node_class else { return };
    if pool.capacity != Capacity::Karpenter {
        return;
    }
    let manifests = crate::render::pool_manifests(s, pool);
    let Some(class) = manifests.iter().find(|m| m.kind == EC2_NODE_CLASS) else {
        return;
    };
    for (field, input, max) in LISTS {
        let n = class.body["spec"][field].as_array().map_or(0, Vec::len);
        if n <= max {
            continue;
        }
        // The path of what the user wrote: security-group terms when written as terms.
        let input = if input == "security_group_selector_ids" && !nc.security_group_selector_terms.is_empty() {
            "security_group_selector_terms"
        } else {
            input
        };
        out.push(Violation::new(
            Code::EKSGPU142,
            at(&[Step::Attr("node_class"), Step::Attr(input)]),
            format!(
                "Pool {:?}'s EC2NodeClass would carry {n} {field}, counting those the provider renders; its CRD \
                 takes at most {max}.",
                pool.name
            ),
        ));
    }
}
