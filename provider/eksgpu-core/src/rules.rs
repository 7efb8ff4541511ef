//! Plan-time rules: every configuration that cannot work on EKS gets a stable
//! code, a severity, the attribute it is about, and what to do instead.
//! `RULES` (data, in `rules/catalogue.rs`) is the catalogue `docs/guides/rules.md` is
//! generated from; the checks return data (`Violation`), never errors.

//!
//! This module holds what every rule shares: the catalogue (data), the codes, the violation type
//! and how acknowledged warnings are left out. The rules themselves live with what they check:
//! `node_strategy::rules` (every capacity kind's, the EKS API kinds' included), `sharing::rules`,
//! `burst::rules`.

mod answered;
mod catalogue;
mod code;

pub use answered::{acknowledgeable, grouped, unanswered};
pub use catalogue::RULES;
pub use code::Code;

/// `MAJOR.MINOR` as numbers, through the one version type.
pub(crate) fn parse_version(v: &str) -> Option<(u32, u32)> {
    crate::version::Version::parse(v)
        .ok()
        .map(crate::version::Version::as_tuple)
}

/// How bad a violation is: errors stop the plan, warnings inform it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

/// One step of the path to the attribute a violation is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Attr(&'static str),
    Index(usize),
    Key(String),
}

/// The path of `rest` inside pool `name` (its key in `pools`).
pub(crate) fn pool_path(name: &str, rest: &[Step]) -> Vec<Step> {
    let mut p = vec![Step::Attr("pools"), Step::Key(name.to_owned())];
    p.extend_from_slice(rest);
    p
}

/// Builds a violation's path from the steps below the object being checked
/// (a pool, one of its blocks): `at(&[Step::Attr("zones")])`.
pub(crate) type At<'a> = dyn Fn(&[Step]) -> Vec<Step> + 'a;

/// A rule of the catalogue.
#[derive(Debug)]
pub struct Rule {
    pub code: Code,
    pub severity: Severity,
    /// Short title, used as the diagnostic summary.
    pub summary: &'static str,
    /// When it fires.
    pub trigger: &'static str,
    /// What to do instead.
    pub fix: &'static str,
    /// Where the fact behind it comes from.
    pub source: &'static str,
}

/// A rule that fired, at a path, with a detail naming the values involved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub code: Code,
    pub severity: Severity,
    pub path: Vec<Step>,
    pub summary: &'static str,
    pub detail: String,
}

impl Violation {
    pub(crate) fn new(code: Code, path: Vec<Step>, detail: String) -> Violation {
        let rule = rule(code);
        Violation {
            code,
            severity: rule.map_or(Severity::Error, |r| r.severity),
            path,
            summary: rule.map_or("Invalid configuration", |r| r.summary),
            detail: format!("{detail} {}", rule.map_or("", |r| r.fix)).trim_end().to_owned(),
        }
    }

    /// A violation whose fix speaks the pool's own terms (an Auto Mode pool's `eks.amazonaws.com`
    /// labels) instead of the catalogue's fix.
    pub(crate) fn with_fix(code: Code, path: Vec<Step>, detail: String, fix: &str) -> Violation {
        let mut v = Violation::new(code, path, String::new());
        v.detail = format!("{detail} {fix}").trim_end().to_owned();
        v
    }
}

pub fn rule(code: Code) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.code == code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_code_is_in_the_catalogue_or_the_decisions() {
        for code in Code::ALL {
            let in_rules = RULES.iter().any(|r| r.code == *code);
            let in_decisions = crate::recommend::DECISIONS.iter().any(|d| d.code == *code);
            assert!(in_rules ^ in_decisions, "{code}: in exactly one table");
        }
    }

    #[test]
    fn codes_are_unique_sorted_and_documented() {
        let codes: Vec<_> = RULES.iter().map(|r| r.code).collect();
        let mut sorted = codes.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(codes, sorted);
        for r in RULES {
            let code = r.code.as_str();
            assert!(code.len() == 9 && code.starts_with("EKSGPU"), "{code}");
            assert!(
                !r.fix.is_empty() && !r.trigger.is_empty() && !r.source.is_empty(),
                "{}",
                r.code
            );
        }
    }
}
