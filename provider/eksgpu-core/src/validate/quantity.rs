//! Kubernetes quantities (`200Gi`, `500m`, `1e3`), as `resource.Quantity`
//! parses them and the CRDs' patterns accept them.

use super::{Validation, ValidationError};

const QUANTITY: &str = "k8s.io/apimachinery v0.36.3 pkg/api/resource/quantity.go (ParseQuantity grammar) and \
     suffix.go; the int-or-string pattern of the Karpenter v1.14.1 CRDs";
pub(crate) const QUANTITY_ACCEPTED: &str = "an optional sign, a decimal number (1, 1.5, .5), then an optional \
     suffix: Ki, Mi, Gi, Ti, Pi, Ei, n, u, m, k, M, G, T, P, E, or an integer exponent such as e3";

/// Splits a quantity into (sign, digits with an optional decimal point, suffix).
fn split(s: &str) -> (&str, &str, &str) {
    let unsigned = s.strip_prefix(['+', '-']).unwrap_or(s);
    let sign = &s[..s.len() - unsigned.len()];
    let end = unsigned
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(unsigned.len());
    (sign, &unsigned[..end], &unsigned[end..])
}

/// Whether `number` is `<digits>`, `<digits>.<digits>`, `<digits>.` or `.<digits>`.
fn is_number(number: &str) -> bool {
    let (int, frac) = number.split_once('.').unwrap_or((number, ""));
    let digits = |d: &str| d.bytes().all(|b| b.is_ascii_digit());
    digits(int) && digits(frac) && !(int.is_empty() && frac.is_empty())
}

fn is_suffix(suffix: &str) -> bool {
    // Binary SI, then decimal SI (the empty suffix is a plain number).
    const SI: [&str; 16] = [
        "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "", "n", "u", "m", "k", "M", "G", "T", "P", "E",
    ];
    if SI.contains(&suffix) {
        return true;
    }
    // Go's parser takes only integer exponents (the CRD pattern would take 1e1.5).
    suffix
        .strip_prefix(['e', 'E'])
        .map(|e| e.strip_prefix(['+', '-']).unwrap_or(e))
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// Parses the parts of a quantity, or explains why it is not one.
pub(crate) fn parts(s: &str) -> Result<(bool, &str, &str), ValidationError> {
    let (sign, number, suffix) = split(s);
    if is_number(number) && is_suffix(suffix) {
        Ok((sign != "-", number, suffix))
    } else {
        Err(ValidationError::new(
            format!("{s:?} is not a Kubernetes quantity."),
            QUANTITY_ACCEPTED,
            QUANTITY,
        ))
    }
}

/// A Kubernetes quantity such as `200Gi`, `500m`, `1.5`, `1e3`.
pub fn quantity(s: &str) -> Validation {
    parts(s).map(|_| ())
}

/// The value of a quantity as a number (`1500m` = 1.5, `4Gi` = 4294967296), or `None` if it
/// is not one. Floating point: for comparisons against node sizes, not for rendering.
pub fn quantity_value(s: &str) -> Option<f64> {
    let (positive, number, suffix) = parts(s).ok()?;
    let n: f64 = number.parse().ok()?;
    let scale = match suffix {
        "" => 1.0,
        "Ki" => 1024f64,
        "Mi" => 1024f64.powi(2),
        "Gi" => 1024f64.powi(3),
        "Ti" => 1024f64.powi(4),
        "Pi" => 1024f64.powi(5),
        "Ei" => 1024f64.powi(6),
        "n" => 1e-9,
        "u" => 1e-6,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        e => 10f64.powi(e[1..].parse::<i32>().ok()?),
    };
    let v = n * scale;
    Some(if positive { v } else { -v })
}

#[cfg(test)]
mod tests {
    use regex::Regex;

    use super::*;
    use crate::validate::{crd_node, vendored_crd};

    const SAMPLES: &[&str] = &[
        "", "0", "1", "200Gi", "1.5", ".5", "5.", "+1", "-1", "1Ki", "500m", "3u", "2n", "1k", "1K", "1M", "1G", "1T",
        "1P", "1E", "1Ei", "1e3", "1E3", "1e-3", "1e+3", "1e", "Gi", ".", "+", "1 Gi", "1gi", "1GB", "1.2.3", "1i",
        "1Gi ", "--1", "0x10", "1_000",
    ];

    #[test]
    fn values() {
        assert_eq!(quantity_value("1500m"), Some(1.5));
        assert_eq!(quantity_value("4Gi"), Some(4.0 * 1024f64.powi(3)));
        assert_eq!(quantity_value("1e3"), Some(1000.0));
        assert_eq!(quantity_value("2k"), Some(2000.0));
        assert_eq!(quantity_value("-1"), Some(-1.0));
        assert_eq!(quantity_value("1 Gi"), None);
    }

    #[test]
    fn agrees_with_the_crd_pattern() {
        let crd = vendored_crd("karpenter.sh_nodepools.yaml");
        let pattern = crd_node(&crd, "/properties/spec/properties/limits/additionalProperties")["pattern"]
            .as_str()
            .unwrap()
            .to_owned();
        let re = Regex::new(&pattern).unwrap();
        for s in SAMPLES {
            assert_eq!(quantity(s).is_ok(), re.is_match(s), "{s:?} vs {pattern}");
        }
        // Where the Go parser is stricter than the pattern: fractional exponents.
        assert!(re.is_match("1e1.5") && quantity("1e1.5").is_err());
    }

    #[test]
    fn fires_and_does_not() {
        assert!(quantity("200Gi").is_ok());
        let e = quantity("200GB").unwrap_err();
        assert_eq!(e.source, QUANTITY);
        assert_eq!(parts("-1.5Gi").unwrap(), (false, "1.5", "Gi"));
    }
}
