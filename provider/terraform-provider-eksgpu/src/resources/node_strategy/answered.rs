//! `acknowledged_warnings`: the warning codes a configuration says are intended, read from a
//! planned value; the rules' warnings of those codes are left out (`eksgpu_core::rules::unanswered`).

use eksgpu_core::rules::{self, Code};
use eksgpu_tfplugin::{Diagnostics, Severity, Value};

/// The acknowledged codes of a planned or configured strategy (none while the set is unknown: its
/// warnings then show, as they would without it).
pub(super) fn acknowledged(v: &Value) -> Vec<Code> {
    v.get("acknowledged_warnings")
        .elements()
        .iter()
        .filter_map(|c| c.as_str().and_then(|c| rules::acknowledgeable(c).ok()))
        .collect()
}

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
