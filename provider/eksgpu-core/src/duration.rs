//! One duration type for what users write as `1h30m`: Karpenter's
//! `consolidateAfter` / `expireAfter` (NodePool CRD pattern
//! `^(([0-9]+(s|m|h))+|Never)$`, kubernetes-sigs/karpenter v1.14.1
//! `pkg/apis/crds/karpenter.sh_nodepools.yaml`) and the strategy's `timeouts`.
//! Go's `ms`, `us` and fractions such as `1.5h` are refused, as the CRD refuses them.

use std::time::Duration;

/// Why text is not a duration, with the accepted form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a duration: write whole numbers with s, m or h, such as 90s, 45m or 1h30m")]
pub struct DurationError(pub String);

/// Whole numbers with `s`, `m` or `h`, in sequence (`1h30m`).
pub fn parse(s: &str) -> Result<Duration, DurationError> {
    let err = || DurationError(s.to_owned());
    let mut total = 0u64;
    let mut digits = String::new();
    let mut parts = 0;
    for c in s.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let unit = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            _ => return Err(err()),
        };
        let n: u64 = digits.parse().map_err(|_| err())?;
        total = n.checked_mul(unit).and_then(|x| total.checked_add(x)).ok_or_else(err)?;
        digits.clear();
        parts += 1;
    }
    if parts == 0 || !digits.is_empty() {
        return Err(err());
    }
    Ok(Duration::from_secs(total))
}

/// A Karpenter duration: `Never`, or [`parse`]'s form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KarpenterDuration {
    Never,
    After(Duration),
}

impl KarpenterDuration {
    pub fn parse(s: &str) -> Result<Self, DurationError> {
        if s == "Never" {
            Ok(KarpenterDuration::Never)
        } else {
            parse(s).map(KarpenterDuration::After)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_what_the_crd_accepts_and_nothing_else() {
        assert_eq!(parse("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse("0s"), Ok(Duration::ZERO));
        assert_eq!(KarpenterDuration::parse("Never"), Ok(KarpenterDuration::Never));
        for bad in [
            "",
            "5",
            "m",
            "1.5h",
            "10ms",
            "1d",
            "never",
            " 5m",
            "-5m",
            "99999999999999999999h",
        ] {
            assert!(parse(bad).is_err() || bad == "Never", "{bad}");
            assert!(KarpenterDuration::parse(bad).is_err(), "{bad}");
        }
    }
}
