//! Settings a pool's capacity kind does not take, from the inputs' declarations
//! (`node_strategy::inputs`): each input names the kinds that take it and the rule that refuses
//! it elsewhere (EKSGPU115 for another kind's settings; EKSGPU006, 103 and 124 for EC2NodeClass
//! settings the Auto Mode NodeClass has not).

use crate::model::Pool;
use crate::node_strategy::inputs;
use crate::rules::{At, Violation};

/// Every declared input set on a pool whose capacity kind does not take it, at its path.
pub(super) fn misplaced_fields(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    inputs::misplaced(inputs::POOL, pool.capacity, pool, &at(&[]), out);
}

/// The declared checks only the pool's capacity kind needs (its API is stricter than the
/// attribute's type: EKS node group labels, the EC2NodeClass volume size pattern).
pub(super) fn kind_checks(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    inputs::check_on_kinds(inputs::POOL, pool.capacity, pool, &at(&[]), out);
}
