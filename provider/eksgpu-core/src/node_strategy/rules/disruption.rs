//! EKSGPU005: a pool's disruption settings as Karpenter v1 accepts them
//! (karpenter.sh/v1 NodePool CRD v1.14.1, `spec.disruption`).

use super::{Context, is_karpenter_duration};
use crate::model::{Disruption, Pool};
use crate::rules::{At, Code, Step, Violation};

/// EKSGPU005: consolidation policy, durations and budgets of a Karpenter v1 NodePool.
pub(super) fn karpenter_disruption(pool: &Pool, ctx: &Context, at: &At<'_>, out: &mut Vec<Violation>) {
    if let Some(d) = &pool.disruption {
        consolidation(d, ctx, at, out);
        budgets(d, at, out);
    }
    // A pool's expiry is refused where it is declared (its validator), not again here.
}

/// EKSGPU005: `consolidation_policy` is a v1 value this Karpenter knows, `consolidate_after` a duration.
fn consolidation(d: &Disruption, ctx: &Context, at: &At<'_>, out: &mut Vec<Violation>) {
    if let Some(p) = &d.consolidation_policy
        && crate::validate::karpenter_consolidation_policy(p, ctx.karpenter_version).is_err()
    {
        let why = match p.as_str() {
            "WhenUnderutilized" => "WhenUnderutilized is the v1beta1 name; Karpenter v1 rejects it.".to_owned(),
            "Balanced" => format!(
                "Balanced needs Karpenter 1.14; the provider is configured for {}.{}.",
                ctx.karpenter_version.0, ctx.karpenter_version.1
            ),
            other => format!("{other:?} is not a consolidation policy."),
        };
        out.push(Violation::new(
            Code::EKSGPU005,
            at(&[Step::Attr("disruption"), Step::Attr("consolidation_policy")]),
            why,
        ));
    }
    if let Some(a) = &d.consolidate_after
        && !is_karpenter_duration(a)
    {
        out.push(Violation::new(
            Code::EKSGPU005,
            at(&[Step::Attr("disruption"), Step::Attr("consolidate_after")]),
            format!("{a:?} is not a Karpenter duration."),
        ));
    }
}

/// EKSGPU005 on the budgets' CEL rule: `self.all(x, has(x.schedule) == has(x.duration))`.
fn budgets(d: &Disruption, at: &At<'_>, out: &mut Vec<Violation>) {
    for (j, b) in d.budgets.iter().enumerate() {
        let (missing, given) = match (&b.schedule, &b.duration) {
            (Some(_), None) => ("duration", "schedule"),
            (None, Some(_)) => ("schedule", "duration"),
            _ => continue,
        };
        out.push(Violation::new(
            Code::EKSGPU005,
            at(&[
                Step::Attr("disruption"),
                Step::Attr("budgets"),
                Step::Index(j),
                Step::Attr(missing),
            ]),
            format!("Budget {j} has a `{given}` but no `{missing}`; Karpenter needs both or neither."),
        ));
    }
}
