//! A pool's `requirements`: their shape as the NodePool CRD and Karpenter accept it,
//! keys the provider renders itself, Karpenter's labels on Auto Mode pools, and what they match in
//! the catalog (`matching`). Fixes speak the pool's own label family: `eks.amazonaws.com/` on
//! Auto Mode (EKS user guide, Create a Node Pool for EKS Auto Mode, supported labels:
//! https://docs.aws.amazon.com/eks/latest/userguide/create-node-pool.html#auto-supported-labels).

use super::Context;
use crate::catalog::InstanceType;
use crate::model::{Capacity, Pool};
use crate::node_strategy::matching::{self, Matched};
use crate::render::selection::{CAPACITY_TYPE, INSTANCE_TYPE, ZONE};
use crate::rules::{At, Code, Step, Violation};

fn path(at: &At<'_>, j: usize) -> Vec<Step> {
    at(&[Step::Attr("requirements"), Step::Index(j)])
}

/// EKSGPU170: restricted keys (the CRD's CEL rules and Karpenter's IsRestrictedLabel, the same
/// as for template labels) and values that do not fit the operator.
pub(super) fn requirement_shape(pool: &Pool, ctx: &Context, at: &At<'_>, out: &mut Vec<Violation>) {
    for (j, r) in pool.requirements.iter().enumerate() {
        // `karpenter.sh/capacity-type` is EKSGPU171's.
        if r.key != CAPACITY_TYPE
            && let Err(e) = crate::validate::karpenter_node_label_key(&r.key, ctx.karpenter_version)
        {
            out.push(shape_violation(
                pool,
                path(at, j),
                format!("Requirement {j}: {}", e.message),
            ));
        }
        if r.key.len() > crate::validate::REQUIREMENT_KEY_MAX_LEN {
            out.push(Violation::new(
                Code::EKSGPU170,
                path(at, j),
                format!(
                    "Requirement {j}: its key has {} characters; the NodePool CRD takes at most {} \
                     (spec.template.spec.requirements[].key maxLength).",
                    r.key.len(),
                    crate::validate::REQUIREMENT_KEY_MAX_LEN
                ),
            ));
        }
        if matches!(r.operator.as_str(), "Gte" | "Lte") && ctx.karpenter_version < GTE_LTE_SINCE {
            let (major, minor) = ctx.karpenter_version;
            out.push(Violation::new(
                Code::EKSGPU170,
                path(at, j),
                format!(
                    "Requirement {j} ({} {}): Karpenter {major}.{minor}'s NodePool CRD has no `{}`; it arrived in \
                     Karpenter 1.9 (use `Gt` / `Lt`, or set karpenter_version to 1.9 or later).",
                    r.key, r.operator, r.operator
                ),
            ));
        }
        if let Some(problem) = values_problem(&r.operator, &r.values) {
            out.push(shape_violation(
                pool,
                path(at, j),
                format!("Requirement {j} ({} {}): {problem}.", r.key, r.operator),
            ));
        }
    }
}

/// EKSGPU170's fix on an Auto Mode pool: its own labels, not Karpenter's.
const AUTO_MODE_SHAPE_FIX: &str = "Use an Auto Mode label (`eks.amazonaws.com/instance-category`, `instance-family`, \
     `instance-generation`, `instance-gpu-name`, `instance-gpu-manufacturer`, `instance-gpu-count`, `instance-gpu-memory`, \
     `kubernetes.io/arch`, …) or a custom one, and give `In`/`NotIn` values, `Exists`/`DoesNotExist` none, \
     `Gt`/`Lt` one number such as `\"4\"`.";

/// EKSGPU173's fix on an Auto Mode pool.
const AUTO_MODE_CONFINE_FIX: &str = "Add `requirements = [{ key = \"eks.amazonaws.com/instance-gpu-manufacturer\", \
     operator = \"In\", values = [\"nvidia\"] }]` or `eks.amazonaws.com/instance-gpu-count Gt 0`.";

/// An EKSGPU170 violation whose fix names the pool's label family.
fn shape_violation(pool: &Pool, p: Vec<Step>, detail: String) -> Violation {
    if pool.capacity == Capacity::AutoMode {
        Violation::with_fix(Code::EKSGPU170, p, detail, AUTO_MODE_SHAPE_FIX)
    } else {
        Violation::new(Code::EKSGPU170, p, detail)
    }
}

/// EKSGPU313: a `karpenter.k8s.aws` requirement on an Auto Mode pool. Auto Mode nodes carry
/// `eks.amazonaws.com` instance labels and none of Karpenter's, so a requirement that needs the
/// label (`In`, `Exists`, `Gt`, `Lt`, `Gte`, `Lte`) leaves the NodePool without a node. `NotIn` and
/// `DoesNotExist` hold on every node instead: the pool launches, but the requirement excludes
/// nothing (EKSGPU312, a warning), which is rarely what its author meant.
pub(super) fn auto_mode_karpenter_labels(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    if pool.capacity != Capacity::AutoMode {
        return;
    }
    for (j, r) in pool.requirements.iter().enumerate() {
        if !r.key.starts_with("karpenter.k8s.aws/") {
            continue;
        }
        let instead = match matching::auto_mode_label(&r.key) {
            Some(k) => format!("write `{k}`"),
            None => "Auto Mode has no label of that meaning".to_owned(),
        };
        let (code, effect) = if matching::holds_without_label(&r.operator) {
            (Code::EKSGPU312, "so this requirement excludes nothing")
        } else {
            (Code::EKSGPU313, "so the NodePool never gets a node")
        };
        out.push(Violation::new(
            code,
            path(at, j),
            format!(
                "Requirement {j} of Auto Mode pool {:?} is on {}, which Auto Mode nodes do not carry, {effect}: {instead}.",
                pool.name, r.key
            ),
        ));
    }
}

/// `Gte` and `Lte` joined the NodePool CRD's operator enum in Karpenter 1.9
/// (kubernetes-sigs/karpenter PR #2674, released in v1.9.0).
const GTE_LTE_SINCE: (u32, u32) = (1, 9);

/// EKSGPU141: the NodePool renders the provider's requirements (instance types, capacity types,
/// zones, Auto Mode's Neuron family) before the pool's own, and the CRD counts them all
/// (spec.template.spec.requirements maxItems, validate::NODE_POOL_REQUIREMENTS_MAX).
pub(super) fn requirement_count(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    if !pool.capacity.is_in_cluster() || pool.requirements.is_empty() {
        return;
    }
    let rendered = crate::render::selection::node_pool_requirements(pool).len();
    let max = crate::validate::NODE_POOL_REQUIREMENTS_MAX;
    if rendered > max {
        out.push(Violation::new(
            Code::EKSGPU141,
            at(&[Step::Attr("requirements")]),
            format!(
                "Pool {:?}'s NodePool would carry {rendered} requirements ({} of the pool's, {} the provider renders \
                 from instance_types, capacity_types and zones); its CRD takes at most {max}.",
                pool.name,
                pool.requirements.len(),
                rendered.saturating_sub(pool.requirements.len())
            ),
        ));
    }
}

/// What the CRD says about `values` for `operator` (its description and CEL rules).
fn values_problem(operator: &str, values: &[String]) -> Option<&'static str> {
    match operator {
        "In" if values.is_empty() => Some("`In` needs at least one value"),
        "Exists" | "DoesNotExist" if !values.is_empty() => Some("this operator takes no values"),
        "Gt" | "Lt" | "Gte" | "Lte" => {
            // The CRD's CEL rule reads the value with `int()`, a signed 64-bit integer: a larger
            // one fails the rule, and Karpenter (nodepool_validation.go) wants it non-negative.
            let one_number = values.len() == 1 && values[0].parse::<i64>().is_ok_and(|n| n >= 0);
            (!one_number).then_some(
                "this operator takes exactly one non-negative whole number of at most 9223372036854775807 (int64)",
            )
        }
        _ => None,
    }
}

/// EKSGPU171: a requirement on a label the pool renders from its own inputs.
pub(super) fn provider_keys(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    for (j, r) in pool.requirements.iter().enumerate() {
        let instead = match (r.key.as_str(), r.operator.as_str()) {
            (CAPACITY_TYPE, _) => Some("capacity_types"),
            (INSTANCE_TYPE, "In") => Some("instance_types"),
            (ZONE, "In") => Some("zones"),
            _ => None,
        };
        if let Some(input) = instead {
            out.push(Violation::new(
                Code::EKSGPU171,
                path(at, j),
                format!("Requirement {j} is on {}; set `{input}`.", r.key),
            ));
        }
    }
}

fn names(types: &[&InstanceType]) -> String {
    let mut v: Vec<&str> = types.iter().take(6).map(|t| t.name).collect();
    if types.len() > 6 {
        v.push("…");
    }
    v.join(", ")
}

/// EKSGPU172 and EKSGPU173 on what the requirements match; the matched types for the rules
/// that follow (each with the path of the requirements).
pub(super) fn matched_types(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) -> Option<Matched> {
    let m = matching::matched(pool)?;
    if m.types.is_empty() {
        let (p, why) = match m.emptied_by {
            Some(k) => (
                path(at, k),
                format!(
                    "After requirement {k} ({} {}) no catalog type is left",
                    pool.requirements[k].key, pool.requirements[k].operator
                ),
            ),
            None if !m.auto_mode_undocumented.is_empty() => (
                at(&[Step::Attr("requirements")]),
                format!(
                    "Auto Mode documents none of the GPU types they match ({})",
                    names(&m.auto_mode_undocumented)
                ),
            ),
            None => (
                at(&[Step::Attr("requirements")]),
                format!(
                    "They match only types without whole NVIDIA GPUs ({})",
                    names(&[&m.others[..], &m.fractional[..]].concat())
                ),
            ),
        };
        out.push(Violation::new(
            Code::EKSGPU172,
            p,
            format!("Pool {:?}: {why}.", pool.name),
        ));
        return Some(m);
    }
    if !m.confined || !m.others.is_empty() {
        let what = if m.confined {
            format!("also {}", names(&m.others))
        } else {
            "instance types without accelerators".to_owned()
        };
        let (p, detail) = (
            at(&[Step::Attr("requirements")]),
            format!("Pool {:?}'s requirements admit {what}.", pool.name),
        );
        out.push(if pool.capacity == Capacity::AutoMode {
            Violation::with_fix(Code::EKSGPU173, p, detail, AUTO_MODE_CONFINE_FIX)
        } else {
            Violation::new(Code::EKSGPU173, p, detail)
        });
    }
    Some(m)
}
