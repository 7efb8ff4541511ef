//! Numbers that Terraform hands over as 64-bit (or floats) but the target
//! field stores in a narrower type: checked here so the error names the field.

use super::ValidationError;

const INT32: &str = "Kubernetes API conventions (int32 fields); the field's CRD or API type";

/// `v` as an `i32`, or an error naming `field` (e.g. "EC2NodeClass
/// spec.kubelet.maxPods (int32)") when it does not fit.
pub fn int32(v: i64, field: &'static str) -> Result<i32, ValidationError> {
    i32::try_from(v).map_err(|_| {
        ValidationError::new(
            format!("{v} does not fit {field}."),
            format!("a whole number from {} to {}", i32::MIN, i32::MAX),
            INT32,
        )
    })
}

/// `v` at least 1, naming `field` and its `source` when it is not.
pub fn positive(v: i64, field: &'static str, source: &'static str) -> Result<i64, ValidationError> {
    if v >= 1 {
        Ok(v)
    } else {
        Err(ValidationError::new(
            format!("{field} must be at least 1; it is {v}."),
            "a whole number of at least 1",
            source,
        ))
    }
}

/// `v` at least 0, naming `field` and its `source` when it is not.
pub fn non_negative(v: i64, field: &'static str, source: &'static str) -> Result<i64, ValidationError> {
    if v >= 0 {
        Ok(v)
    } else {
        Err(ValidationError::new(
            format!("{field} may not be negative; it is {v}."),
            "a whole number of at least 0",
            source,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int32_range() {
        assert_eq!(int32(110, "EC2NodeClass spec.kubelet.maxPods (int32)"), Ok(110));
        assert_eq!(int32(i64::from(i32::MAX), "f"), Ok(i32::MAX));
        assert_eq!(int32(i64::from(i32::MIN), "f"), Ok(i32::MIN));
        let e = int32(i64::from(i32::MAX) + 1, "EC2NodeClass spec.kubelet.maxPods (int32)").unwrap_err();
        assert!(e.message.contains("maxPods"), "{e}");
        assert!(int32(i64::MIN, "f").is_err());
    }

    #[test]
    fn signs() {
        assert_eq!(positive(1, "f", "s"), Ok(1));
        assert!(positive(0, "f", "s").is_err());
        assert_eq!(non_negative(0, "f", "s"), Ok(0));
        let e = non_negative(-1, "scalingConfig.minSize", "EKS API").unwrap_err();
        assert_eq!(e.source, "EKS API");
    }
}
