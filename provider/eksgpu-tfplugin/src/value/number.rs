//! Terraform numbers are arbitrary-precision decimals; on the wire they arrive
//! as msgpack ints, floats or decimal strings (go-cty `cty/msgpack/marshal.go`).

use std::fmt;

/// A number as Terraform sent it. Integers that fit `i64` are always `Int` and
/// integral floats that fit are folded into `Int`, so equal numbers compare equal.
#[derive(Debug, Clone, PartialEq)]
pub enum Number {
    Int(i64),
    Float(f64),
    /// A decimal beyond `i64`/`f64` precision, kept verbatim so it round-trips.
    Decimal(String),
}

impl Number {
    pub fn from_f64(f: f64) -> Number {
        // 2^63 is exactly representable; i64::MAX as f64 rounds up to it, so the upper bound is exclusive.
        const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;
        if f.fract() == 0.0 && (-TWO_POW_63..TWO_POW_63).contains(&f) {
            #[allow(clippy::cast_possible_truncation)]
            Number::Int(f as i64)
        } else {
            Number::Float(f)
        }
    }

    pub fn from_u64(u: u64) -> Number {
        i64::try_from(u).map_or_else(|_| Number::Decimal(u.to_string()), Number::Int)
    }

    /// Parses a decimal string; `None` when it is not a number.
    pub fn parse(s: &str) -> Option<Number> {
        if let Ok(i) = s.parse::<i64>() {
            return Some(Number::Int(i));
        }
        let valid = {
            let body = s.strip_prefix('-').unwrap_or(s);
            let (mantissa, exponent) = match body.find(['e', 'E']) {
                Some(i) => (&body[..i], Some(&body[i + 1..])),
                None => (body, None),
            };
            let mut parts = mantissa.splitn(2, '.');
            let int_part = parts.next().unwrap_or("");
            let frac_part = parts.next();
            let digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
            let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['+', '-']).unwrap_or(e)));
            digits(int_part) && frac_part.is_none_or(digits) && exponent_ok
        };
        if !valid {
            return None;
        }
        match s.parse::<f64>() {
            // Keep the text when f64 would lose digits, as go-cty does.
            Ok(f) if f.is_finite() && format!("{f}").parse::<f64>().ok() == Some(f) && is_exact(s, f) => {
                Some(Number::from_f64(f))
            }
            _ => Some(Number::Decimal(s.to_owned())),
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Number::Int(i) => Some(*i),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> f64 {
        match self {
            #[allow(clippy::cast_precision_loss)]
            Number::Int(i) => *i as f64,
            Number::Float(f) => *f,
            Number::Decimal(s) => s.parse().unwrap_or(f64::NAN),
        }
    }
}

/// Whether `f` represents the decimal text exactly (compared as shortest round-trip text).
fn is_exact(text: &str, f: f64) -> bool {
    let normalise = |s: &str| -> String {
        let s = s.trim_start_matches('+');
        if s.contains(['e', 'E']) {
            return s.to_ascii_lowercase();
        }
        let s = if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.')
        } else {
            s
        };
        s.to_owned()
    };
    normalise(text) == normalise(&format!("{f}")) || text.contains(['e', 'E'])
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Int(i) => write!(f, "{i}"),
            Number::Float(x) => write!(f, "{x}"),
            Number::Decimal(s) => f.write_str(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integral_floats_fold_into_ints() {
        assert_eq!(Number::from_f64(3.0), Number::Int(3));
        assert_eq!(Number::from_f64(0.5), Number::Float(0.5));
        assert_eq!(Number::from_f64(1e300), Number::Float(1e300));
    }

    #[test]
    fn parses_decimal_strings() {
        assert_eq!(Number::parse("42"), Some(Number::Int(42)));
        assert_eq!(Number::parse("-0.25"), Some(Number::Float(-0.25)));
        assert_eq!(Number::parse("2.0"), Some(Number::Int(2)));
        assert_eq!(
            Number::parse("123456789012345678901234567890"),
            Some(Number::Decimal("123456789012345678901234567890".into()))
        );
        assert_eq!(
            Number::parse("0.1000000000000000000001"),
            Some(Number::Decimal("0.1000000000000000000001".into()))
        );
        assert_eq!(Number::parse("1e3"), Some(Number::Int(1000)));
        for bad in ["", "-", "1.", ".5", "abc", "1e", "NaN", "inf", "1.2.3"] {
            assert_eq!(Number::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn u64_beyond_i64_is_kept_exactly() {
        assert_eq!(
            Number::from_u64(u64::MAX),
            Number::Decimal("18446744073709551615".into())
        );
    }
}
