//! Limits EKS Auto Mode puts on its nodes that a NodePool cannot lift.

use crate::duration::KarpenterDuration;
use crate::model::{Capacity, Pool};
use crate::rules::{At, Code, Step, Violation};

/// Auto Mode replaces every node after at most 21 days (EKS user guide, Learn about EKS Auto Mode
/// managed instances: https://docs.aws.amazon.com/eks/latest/userguide/automode-learn-instances.html,
/// "maximum node lifetime of 21 days").
pub const AUTO_MODE_MAX_NODE_LIFETIME_HOURS: u64 = 21 * 24;

/// EKSGPU155: `expire_after` of `Never`, or longer than 21 days, on an `auto_mode` pool.
pub(super) fn node_lifetime(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    if pool.capacity != Capacity::AutoMode {
        return;
    }
    let Some(expire) = pool.expire_after.as_deref() else {
        return;
    };
    let beyond = match KarpenterDuration::parse(expire) {
        Ok(KarpenterDuration::Never) => true,
        Ok(KarpenterDuration::After(d)) => d.as_secs() > AUTO_MODE_MAX_NODE_LIFETIME_HOURS * 3600,
        // EKSGPU005 reports what is not a duration.
        Err(_) => false,
    };
    if beyond {
        out.push(Violation::new(
            Code::EKSGPU155,
            at(&[Step::Attr("expire_after")]),
            format!(
                "Pool {:?} asks for expire_after = {expire:?}; Auto Mode replaces its nodes after at most 21 days ({}h).",
                pool.name, AUTO_MODE_MAX_NODE_LIFETIME_HOURS
            ),
        ));
    }
}
