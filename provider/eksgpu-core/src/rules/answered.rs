//! Warnings a configuration has answered, and warnings that repeat per pool.
//!
//! A warning says "this may not be what you mean". The strategy's `acknowledged_warnings` lists the
//! codes whose finding is intended (EKSGPU132: "the device plugin is installed another way"):
//! those are silent from then on. Only warnings can be acknowledged; an error stays an error.
//! A warning found for several pools is reported once, naming every pool, where Terraform would
//! otherwise fold all but the first into "(and N more similar warnings elsewhere)".

use super::{Code, Severity, Step, Violation, rule};

/// `acknowledged_warnings` entries: a code of the catalogue whose severity is warning.
pub fn acknowledgeable(code: &str) -> Result<Code, String> {
    let found = Code::ALL.iter().copied().find(|c| *c == code);
    match found.and_then(|c| rule(c).map(|r| (c, r))) {
        Some((c, r)) if r.severity == Severity::Warning => Ok(c),
        Some(_) => Err(format!(
            "{code} is an error: only warnings can be acknowledged (an error means the configuration cannot work)."
        )),
        None => Err(format!(
            "{code:?} is not a rule code of this provider (see the rules guide for the warning codes)."
        )),
    }
}

/// The findings without the warnings whose code is acknowledged.
pub fn unanswered(found: Vec<Violation>, acknowledged: &[Code]) -> Vec<Violation> {
    found
        .into_iter()
        .filter(|v| v.severity == Severity::Error || !acknowledged.contains(&v.code))
        .collect()
}

/// Warnings of one code found for more than one pool, as one warning at the first of them whose
/// detail keeps each pool's sentence and says what to do once. Errors stay one per place (each
/// needs its own fix, and Terraform points at each).
pub fn grouped(found: Vec<Violation>) -> Vec<Violation> {
    let per_pool = |v: &Violation| {
        v.severity == Severity::Warning && matches!(v.path.as_slice(), [Step::Attr("pools"), Step::Key(_), ..])
    };
    let mut out: Vec<Violation> = Vec::new();
    for v in found {
        let first = out.iter_mut().find(|o| per_pool(o) && o.code == v.code);
        match first {
            Some(first) if per_pool(&v) => {
                let fix = rule(v.code).map_or("", |r| r.fix);
                let own = v.detail.strip_suffix(fix).unwrap_or(&v.detail).trim_end();
                let (head, tail) = split_fix(&first.detail, fix);
                first.detail = format!("{head} {own} {tail}").trim_end().to_owned();
            }
            _ => out.push(v),
        }
    }
    out
}

/// A detail split into its findings and the rule's fix (which ends it).
fn split_fix<'a>(detail: &'a str, fix: &'a str) -> (&'a str, &'a str) {
    match detail.strip_suffix(fix) {
        Some(head) if !fix.is_empty() => (head.trim_end(), fix),
        _ => (detail, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warning(code: Code, pool_name: &str) -> Violation {
        Violation::new(
            code,
            crate::rules::pool_path(pool_name, &[Step::Attr("gpu_taint")]),
            format!("Pool {pool_name:?} has no NoSchedule or NoExecute taint."),
        )
    }

    #[test]
    fn only_warning_codes_can_be_acknowledged() {
        assert_eq!(acknowledgeable("EKSGPU132"), Ok(Code::EKSGPU132));
        assert!(acknowledgeable("EKSGPU016").unwrap_err().contains("is an error"));
        assert!(acknowledgeable("EKSGPU999").unwrap_err().contains("not a rule code"));
        assert!(
            acknowledgeable("eksgpu132").is_err(),
            "codes are written as the catalogue writes them"
        );
    }

    #[test]
    fn an_acknowledged_warning_is_silent_and_errors_are_not() {
        let error = Violation::new(Code::EKSGPU016, vec![Step::Attr("pools")], "m5.xlarge.".into());
        let found = vec![warning(Code::EKSGPU014, "a"), error.clone()];
        assert_eq!(unanswered(found.clone(), &[Code::EKSGPU014]), vec![error.clone()]);
        assert_eq!(
            unanswered(found.clone(), &[Code::EKSGPU016]),
            found,
            "errors are never acknowledged"
        );
        assert_eq!(unanswered(found.clone(), &[]), found);
    }

    #[test]
    fn a_warning_of_several_pools_is_one_naming_them_all() {
        let other = Violation::new(Code::EKSGPU008, vec![], "Auto Mode and node groups.".into());
        let found = vec![
            warning(Code::EKSGPU014, "a"),
            other.clone(),
            warning(Code::EKSGPU014, "c"),
            warning(Code::EKSGPU014, "d"),
        ];
        let out = grouped(found);
        assert_eq!(out.len(), 2, "{out:#?}");
        let fix = rule(Code::EKSGPU014).map(|r| r.fix).unwrap_or_default();
        assert_eq!(
            out[0].detail,
            format!(
                "Pool \"a\" has no NoSchedule or NoExecute taint. Pool \"c\" has no NoSchedule or NoExecute taint. \
                 Pool \"d\" has no NoSchedule or NoExecute taint. {fix}"
            )
        );
        assert_eq!(out[0].path, warning(Code::EKSGPU014, "a").path, "at the first pool");
        assert_eq!(out[1], other);
        let one = vec![warning(Code::EKSGPU014, "b")];
        assert_eq!(grouped(one.clone()), one, "a single pool's warning is left as it is");
    }
}
