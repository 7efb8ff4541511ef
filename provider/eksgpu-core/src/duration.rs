//! One duration type for what users write as `1h30m`: Karpenter's
//! `consolidateAfter` / `expireAfter` (NodePool CRD pattern
//! `^(([0-9]+(s|m|h))+|Never)$`, kubernetes-sigs/karpenter v1.14.1
//! `pkg/apis/crds/karpenter.sh_nodepools.yaml`) and the strategy's `timeouts`.
//! Go's `ms`, `us` and fractions such as `1.5h` are refused, as the CRD refuses them.
//! What the pattern lets through must also fit Go's `time.Duration` (an int64 of
//! nanoseconds, at most 2562047h47m16s in whole seconds): Karpenter decodes the
//! field with `time.ParseDuration` ([`go`]), and a NodePool it cannot decode
//! fails its informer, not just its own reconcile.

pub mod go;

use std::time::Duration;

/// Why text is not a duration, with the accepted form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    #[error("{0:?} is not a duration: write whole numbers with s, m or h, such as 90s, 45m or 1h30m")]
    Form(String),
    #[error(
        "{0:?} is longer than Go's time.Duration can hold (at most 2562047h47m16s, about 292 years), \
         which Karpenter parses durations into"
    )]
    Range(String),
}

/// The longest duration Go holds, in whole seconds (`math.MaxInt64` ns is 2562047h47m16.854775807s).
pub const GO_MAX_SECONDS: u64 = i64::MAX as u64 / 1_000_000_000;

/// Whole numbers with `s`, `m` or `h`, in sequence (`1h30m`), as long as Go's
/// `time.ParseDuration` takes the same text: no component nor the sum beyond
/// its int64 of nanoseconds.
pub fn parse(s: &str) -> Result<Duration, DurationError> {
    let mut parts = 0;
    let mut digits = 0;
    for b in s.bytes() {
        if b.is_ascii_digit() {
            digits += 1;
        } else if matches!(b, b's' | b'm' | b'h') && digits > 0 {
            digits = 0;
            parts += 1;
        } else {
            return Err(DurationError::Form(s.to_owned()));
        }
    }
    if parts == 0 || digits > 0 {
        return Err(DurationError::Form(s.to_owned()));
    }
    // The form is a subset of Go's grammar, so Go's answer is the range check.
    match go::parse_duration(s) {
        Ok(ns) => Ok(Duration::from_secs(ns.unsigned_abs() / 1_000_000_000)),
        Err(_) => Err(DurationError::Range(s.to_owned())),
    }
}

/// `d` in whole seconds as Go's `time.Duration.String` prints it (`7s`, `3m41s`, `1h1m1s`): the
/// form [`parse`] reads back.
pub fn format(d: Duration) -> String {
    let s = d.as_secs();
    match (s / 3600, s % 3600 / 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m{s}s"),
        (h, m, s) => format!("{h}h{m}m{s}s"),
    }
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
    fn formats_as_go_prints_and_reads_back() {
        for (secs, text) in [(7, "7s"), (221, "3m41s"), (3661, "1h1m1s"), (1200, "20m0s")] {
            assert_eq!(format(Duration::from_secs(secs)), text);
            assert_eq!(parse(text), Ok(Duration::from_secs(secs)));
        }
    }

    #[test]
    fn parses_what_the_crd_accepts_and_nothing_else() {
        assert_eq!(parse("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse("0s"), Ok(Duration::ZERO));
        assert_eq!(KarpenterDuration::parse("Never"), Ok(KarpenterDuration::Never));
        for bad in ["", "5", "m", "1.5h", "10ms", "1d", "never", " 5m", "-5m", "1h30", "h1"] {
            assert!(matches!(parse(bad), Err(DurationError::Form(_))), "{bad}");
            assert!(KarpenterDuration::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn refuses_what_go_cannot_hold() {
        // math.MaxInt64 ns = 2562047h47m16.854775807s: whole seconds end at 16s.
        let max = Duration::from_secs(GO_MAX_SECONDS);
        for at_max in ["2562047h47m16s", "9223372036s", "153722867m16s", "2562047h2836s"] {
            assert_eq!(parse(at_max), Ok(max), "{at_max}");
        }
        // Leading zeros do not count against the range (Go's leadingInt).
        assert_eq!(parse("0000000000000000000000000001h"), Ok(Duration::from_secs(3600)));
        for over in [
            "2562047h47m17s",
            "2562048h",
            "9223372037s",
            // Each component fits, the sum does not.
            "2562047h2562047h",
            "1h2562047h",
            "153722868m",
            "99999999999999999999h",
            "99999999999999999999s",
            "0h9999999999999999999999999999s",
        ] {
            assert!(matches!(parse(over), Err(DurationError::Range(_))), "{over}");
            assert!(KarpenterDuration::parse(over).is_err(), "{over}");
        }
    }
}
