//! A hand-written NodeOverlay's values (karpenter.sh/v1alpha1, aws/karpenter-provider-aws v1.14.1
//! `pkg/apis/crds/karpenter.sh_nodeoverlays.yaml`): price, price adjustment, capacity keys.

use super::{Validation, ValidationError};

const CRD: &str = "aws/karpenter-provider-aws v1.14.1 pkg/apis/crds/karpenter.sh_nodeoverlays.yaml";

/// `spec.price`: pattern `^\d+(\.\d+)?$`.
pub fn overlay_price(s: &str) -> Validation {
    let (whole, frac) = s.split_once('.').map_or((s, None), |(w, f)| (w, Some(f)));
    let digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    if digits(whole) && frac.is_none_or(digits) {
        return Ok(());
    }
    Err(ValidationError::new(
        format!("{s:?} is not a NodeOverlay price."),
        "a non-negative decimal such as `5.00`",
        CRD,
    ))
}

/// `spec.priceAdjustment`: `+1.5` / `-0.5`, `+10%`, or down to `-100%` (the CRD's pattern).
pub fn overlay_price_adjustment(s: &str) -> Validation {
    let decimal = |d: &str| {
        let (w, f) = d.split_once('.').map_or((d, None), |(w, f)| (w, Some(f)));
        w.bytes().all(|b| b.is_ascii_digit())
            && f.is_none_or(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()))
            && !(w.is_empty() && f.is_none())
    };
    let ok = match (s.strip_prefix('+'), s.strip_prefix('-')) {
        (Some(r), _) => decimal(r.strip_suffix('%').unwrap_or(r)),
        (_, Some(r)) => match r.strip_suffix('%') {
            // `-100%` or a percentage of one or two whole digits.
            Some(p) => {
                p == "100" || {
                    let whole = p.split_once('.').map_or(p, |(w, _)| w);
                    (1..=2).contains(&whole.len()) && decimal(p)
                }
            }
            None => decimal(r),
        },
        _ => false,
    };
    if ok {
        return Ok(());
    }
    Err(ValidationError::new(
        format!("{s:?} is not a NodeOverlay price adjustment."),
        "a signed amount (`+0.5`, `-1.2`) or percentage (`+10%`, `-15%`, at most `-100%`)",
        CRD,
    ))
}

/// A `spec.capacity` key: an extended resource (the CRD refuses `cpu`, `memory`,
/// `ephemeral-storage` and `pods`; "Capacity adds extended resources only").
pub fn overlay_capacity_resource(s: &str) -> Validation {
    if ["cpu", "memory", "ephemeral-storage", "pods"].contains(&s) {
        return Err(ValidationError::new(
            format!("A NodeOverlay cannot set the standard resource {s:?}."),
            "an extended resource such as `nvidia.com/gpu` or `hugepages-2Mi`",
            CRD,
        ));
    }
    super::label_key(s).map_err(|e| ValidationError {
        message: format!("{s:?} is not a resource name: {}", e.message),
        ..e
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_and_adjustments_follow_the_crd_patterns() {
        for ok in ["5", "5.00", "0.125"] {
            assert!(overlay_price(ok).is_ok(), "{ok}");
        }
        for bad in ["-1", "5.", ".5", "x"] {
            assert!(overlay_price(bad).is_err(), "{bad}");
        }
        for ok in ["+10%", "-15%", "-100%", "+0.5", "-2.50", "+.5"] {
            assert!(overlay_price_adjustment(ok).is_ok(), "{ok}");
        }
        for bad in ["10%", "-150%", "+", "5"] {
            assert!(overlay_price_adjustment(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn standard_resources_are_refused() {
        assert!(overlay_capacity_resource("nvidia.com/gpu").is_ok());
        assert!(overlay_capacity_resource("hugepages-2Mi").is_ok());
        assert!(overlay_capacity_resource("memory").is_err());
    }
}
