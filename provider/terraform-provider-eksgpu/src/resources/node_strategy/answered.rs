//! `acknowledged_warnings` for findings already turned into diagnostics (the codes are read by
//! `resources::acknowledged`; the rules' own findings go through `eksgpu_core::rules::unanswered`).

use eksgpu_core::rules::Code;
use eksgpu_tfplugin::{Diagnostics, Severity};

/// Diagnostics without the warnings of acknowledged codes (for findings already turned into
/// diagnostics, such as the checks against the cluster at apply: their summary starts with the code).
pub(super) fn unanswered(found: Diagnostics, acknowledged: &[Code]) -> Diagnostics {
    let mut out = Diagnostics::new();
    for d in found.iter() {
        let answered = d.severity == Severity::Warning
            && acknowledged.iter().any(|c| {
                d.summary
                    .strip_prefix(c.as_str())
                    .is_some_and(|rest| rest.starts_with(':'))
            });
        if !answered {
            out.push(d.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use eksgpu_tfplugin::{Diagnostic, Value};

    use super::*;

    #[test]
    fn acknowledged_warnings_of_the_cluster_checks_are_left_out() {
        let planned = Value::object([(
            "acknowledged_warnings",
            Value::Set(vec!["EKSGPU008".into(), Value::Unknown]),
        )]);
        let codes = crate::resources::acknowledged::codes(&planned);
        assert_eq!(codes, vec![Code::EKSGPU008]);
        let mut found = Diagnostics::new();
        found.push(Diagnostic::warning(
            "EKSGPU008: Auto Mode and managed node groups in one cluster",
            "d",
        ));
        found.push(Diagnostic::warning("EKSGPU0080: not this code", "d"));
        found.push(Diagnostic::error("EKSGPU016: Not an accelerated instance type", "d"));
        let kept: Vec<String> = unanswered(found, &codes).iter().map(|d| d.summary.clone()).collect();
        assert_eq!(
            kept,
            [
                "EKSGPU0080: not this code",
                "EKSGPU016: Not an accelerated instance type"
            ]
        );
        assert!(
            crate::resources::acknowledged::codes(&Value::object([("acknowledged_warnings", Value::Null)])).is_empty()
        );
    }
}
