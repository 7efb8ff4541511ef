//! Go's `time.ParseDuration` (go1.26 src/time/format.go), line for line: the
//! parser behind every duration Karpenter reads (`NillableDuration` and
//! `metav1.Duration` unmarshal with it, kubernetes-sigs/karpenter v1.14.1
//! pkg/apis/v1/duration.go) and behind robfig/cron's `@every`. A
//! `time.Duration` is an int64 of nanoseconds, so the largest is
//! 2562047h47m16.854775807s; anything longer is an error, not a clamp.

/// `1 << 63`, the bound Go's checks compare against.
const TWO_63: u64 = 1 << 63;

/// Go's `unitMap`: nanoseconds per unit (U+00B5 micro sign and U+03BC mu both spell µs).
const UNITS: [(&str, u64); 8] = [
    ("ns", 1),
    ("us", 1_000),
    ("\u{b5}s", 1_000),
    ("\u{3bc}s", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("m", 60_000_000_000),
    ("h", 3_600_000_000_000),
];

/// Why Go would refuse the text (its own wording, without the quoted input).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoDurationError {
    /// `time: invalid duration`: no digits, or out of the int64 range.
    Invalid,
    /// `time: missing unit in duration`.
    MissingUnit,
    /// `time: unknown unit`.
    UnknownUnit,
    /// Well formed, but more than 2562047h47m16.854775807s (Go says "invalid duration").
    OutOfRange,
}

/// `leadingInt`: the leading `[0-9]*`, or `Err` past 2^63.
fn leading_int(s: &[u8]) -> Result<(u64, &[u8]), GoDurationError> {
    let mut x: u64 = 0;
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        if x > TWO_63 / 10 {
            return Err(GoDurationError::OutOfRange);
        }
        x = x * 10 + u64::from(s[i] - b'0');
        if x > TWO_63 {
            return Err(GoDurationError::OutOfRange);
        }
        i += 1;
    }
    Ok((x, &s[i..]))
}

/// `leadingFraction`: digits after the point; stops accumulating (not failing) on overflow.
fn leading_fraction(s: &[u8]) -> (u64, f64, &[u8]) {
    let (mut x, mut scale, mut overflow) = (0u64, 1f64, false);
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        if !overflow {
            if x > (TWO_63 - 1) / 10 {
                overflow = true;
            } else {
                let y = x * 10 + u64::from(s[i] - b'0');
                if y > TWO_63 {
                    overflow = true;
                } else {
                    x = y;
                    scale *= 10.0;
                }
            }
        }
        i += 1;
    }
    (x, scale, &s[i..])
}

/// Nanoseconds, as `time.ParseDuration` returns them, or why Go refuses the text.
pub fn parse_duration(text: &str) -> Result<i64, GoDurationError> {
    let mut s = text.as_bytes();
    let mut neg = false;
    if let Some(&c) = s.first()
        && (c == b'-' || c == b'+')
    {
        neg = c == b'-';
        s = &s[1..];
    }
    if s == b"0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(GoDurationError::Invalid);
    }
    let mut d: u64 = 0;
    while !s.is_empty() {
        if !(s[0] == b'.' || s[0].is_ascii_digit()) {
            return Err(GoDurationError::Invalid);
        }
        let before = s.len();
        let (mut v, rest) = leading_int(s)?;
        s = rest;
        let pre = before != s.len();
        let (mut f, mut scale, mut post) = (0u64, 1f64, false);
        if s.first() == Some(&b'.') {
            s = &s[1..];
            let before = s.len();
            let (x, sc, rest) = leading_fraction(s);
            (f, scale, s) = (x, sc, rest);
            post = before != s.len();
        }
        if !pre && !post {
            return Err(GoDurationError::Invalid);
        }
        let unit_len = s
            .iter()
            .position(|&c| c == b'.' || c.is_ascii_digit())
            .unwrap_or(s.len());
        if unit_len == 0 {
            return Err(GoDurationError::MissingUnit);
        }
        let (u, rest) = s.split_at(unit_len);
        s = rest;
        let Some(&(_, unit)) = UNITS.iter().find(|(name, _)| name.as_bytes() == u) else {
            return Err(GoDurationError::UnknownUnit);
        };
        if v > TWO_63 / unit {
            return Err(GoDurationError::OutOfRange);
        }
        v *= unit;
        if f > 0 {
            // Go: float64 keeps fractions of hours nanosecond-accurate; the conversion truncates.
            v += (f as f64 * (unit as f64 / scale)) as u64;
            if v > TWO_63 {
                return Err(GoDurationError::OutOfRange);
            }
        }
        // Go adds in uint64 and can wrap at exactly 2^63 + 2^63; checked arithmetic refuses that
        // case instead (only reachable through two maximal negative terms).
        d = d.checked_add(v).ok_or(GoDurationError::OutOfRange)?;
        if d > TWO_63 {
            return Err(GoDurationError::OutOfRange);
        }
    }
    if neg {
        // -2^63 is the one value whose negation needs the full range.
        return Ok((d as i64).wrapping_neg());
    }
    i64::try_from(d).map_err(|_| GoDurationError::OutOfRange)
}

#[cfg(test)]
mod tests {
    use super::*;
    use GoDurationError::*;

    const H: i64 = 3_600_000_000_000;

    #[test]
    fn agrees_with_go_format_test() {
        // Cases of go1.26 src/time/time_test.go parseDurationTests.
        for (s, want) in [
            ("0", 0),
            ("5s", 5_000_000_000),
            ("30s", 30_000_000_000),
            ("1478s", 1_478_000_000_000),
            ("-5s", -5_000_000_000),
            ("+5s", 5_000_000_000),
            ("-0", 0),
            ("+0", 0),
            ("5.0s", 5_000_000_000),
            ("5.6s", 5_600_000_000),
            ("5.s", 5_000_000_000),
            (".5s", 500_000_000),
            ("1.0s", 1_000_000_000),
            ("1.00s", 1_000_000_000),
            ("1.004s", 1_004_000_000),
            ("100.00100s", 100_001_000_000),
            ("10ns", 10),
            ("11us", 11_000),
            ("12\u{b5}s", 12_000),
            ("12\u{3bc}s", 12_000),
            ("13ms", 13_000_000),
            ("14s", 14_000_000_000),
            ("15m", 15 * 60_000_000_000),
            ("16h", 16 * H),
            ("3h30m", 3 * H + 30 * 60_000_000_000),
            ("10.5s4m", 4 * 60_000_000_000 + 10_500_000_000),
            ("-2m3.4s", -(2 * 60_000_000_000 + 3_400_000_000)),
            (
                "1h2m3s4ms5us6ns",
                H + 2 * 60_000_000_000 + 3_000_000_000 + 4_000_000 + 5_000 + 6,
            ),
            ("39h9m14.425s", 39 * H + 9 * 60_000_000_000 + 14_425_000_000),
            ("52763797000ns", 52_763_797_000),
            ("0.3333333333333333333h", 20 * 60_000_000_000),
            ("9007199254740993ns", (1 << 53) + 1),
            ("9223372036854775807ns", i64::MAX),
            ("9223372036854775.807us", i64::MAX),
            ("9223372036s854ms775us807ns", i64::MAX),
            ("-9223372036854775808ns", i64::MIN),
            ("-9223372036854775.808us", i64::MIN),
            ("-9223372036s854ms775us808ns", i64::MIN),
            ("-2562047h47m16.854775808s", i64::MIN),
            ("0.100000000000000000000h", 6 * 60_000_000_000),
            ("0.830103483285477580700h", 49 * 60_000_000_000 + 48_372_539_827),
            ("2562047h47m16.854775807s", i64::MAX),
        ] {
            assert_eq!(parse_duration(s), Ok(want), "{s}");
        }
        for (s, why) in [
            ("", Invalid),
            ("3", MissingUnit),
            ("-", Invalid),
            ("s", Invalid),
            (".", Invalid),
            ("-.", Invalid),
            (".s", Invalid),
            ("+.s", Invalid),
            ("1d", UnknownUnit),
            ("\u{85}\u{85}", Invalid),
            ("\u{ffff}", Invalid),
            ("9223372036854775808ns", OutOfRange),
            ("9223372036854775.808us", OutOfRange),
            ("9223372036854ms775us808ns", OutOfRange),
            ("2562047h47m16.854775808s", OutOfRange),
            ("2562048h", OutOfRange),
            ("99999999999999999999h", OutOfRange),
        ] {
            assert_eq!(parse_duration(s), Err(why), "{s:?}");
        }
    }
}
