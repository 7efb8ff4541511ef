//! Diagnostics: what users read when something is wrong, pointing at the
//! attribute in their configuration.

use std::fmt;

mod bounded;
pub(crate) use bounded::{DETAIL_MAX, SUMMARY_MAX, bounded};

/// One step of an attribute path. Set elements have no key: paths stop at the set.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Step {
    Attribute(String),
    Key(String),
    Index(i64),
}

/// A path into a configuration value (`pool[0].labels["team"]`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct AttributePath(Vec<Step>);

impl AttributePath {
    pub fn root() -> Self {
        Self(Vec::new())
    }

    pub fn attr(name: impl Into<String>) -> Self {
        Self(vec![Step::Attribute(name.into())])
    }

    pub fn from_steps(steps: Vec<Step>) -> Self {
        Self(steps)
    }

    #[must_use]
    pub fn attribute(mut self, name: impl Into<String>) -> Self {
        self.0.push(Step::Attribute(name.into()));
        self
    }

    #[must_use]
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.0.push(Step::Key(key.into()));
        self
    }

    #[must_use]
    pub fn index(mut self, i: usize) -> Self {
        self.0.push(Step::Index(i64::try_from(i).unwrap_or(i64::MAX)));
        self
    }

    pub fn steps(&self) -> &[Step] {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for AttributePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.0.iter().enumerate() {
            match step {
                Step::Attribute(name) if i == 0 => f.write_str(name)?,
                Step::Attribute(name) => write!(f, ".{name}")?,
                Step::Key(key) => write!(f, "[{key:?}]")?,
                Step::Index(idx) => write!(f, "[{idx}]")?,
            }
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

/// A diagnostic: a short summary, a detail that says what to do, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub summary: String,
    pub detail: String,
    pub path: Option<AttributePath>,
}

impl Diagnostic {
    pub fn error(summary: impl Into<String>, detail: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            summary: summary.into(),
            detail: detail.into(),
            path: None,
        }
    }

    pub fn warning(summary: impl Into<String>, detail: impl Into<String>) -> Self {
        Self {
            severity: Severity::Warning,
            summary: summary.into(),
            detail: detail.into(),
            path: None,
        }
    }

    #[must_use]
    pub fn at(mut self, path: AttributePath) -> Self {
        self.path = Some(path);
        self
    }
}

/// An accumulator of diagnostics, threaded through a request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagnostics(Vec<Diagnostic>);

impl Diagnostics {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }

    pub fn error(&mut self, summary: impl Into<String>, detail: impl Into<String>) {
        self.push(Diagnostic::error(summary, detail));
    }

    pub fn warning(&mut self, summary: impl Into<String>, detail: impl Into<String>) {
        self.push(Diagnostic::warning(summary, detail));
    }

    pub fn error_at(&mut self, path: AttributePath, summary: impl Into<String>, detail: impl Into<String>) {
        self.push(Diagnostic::error(summary, detail).at(path));
    }

    pub fn warning_at(&mut self, path: AttributePath, summary: impl Into<String>, detail: impl Into<String>) {
        self.push(Diagnostic::warning(summary, detail).at(path));
    }

    pub fn extend(&mut self, other: Diagnostics) {
        self.0.extend(other.0);
    }

    pub fn has_errors(&self) -> bool {
        self.0.iter().any(|d| d.severity == Severity::Error)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter()
    }

    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.0
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Self {
        Self(vec![d])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_render_like_hcl() {
        let p = AttributePath::attr("pool").index(0).attribute("labels").key("team");
        assert_eq!(p.to_string(), r#"pool[0].labels["team"]"#);
    }

    #[test]
    fn warnings_are_not_errors() {
        let mut d = Diagnostics::new();
        d.warning_at(AttributePath::root(), "w", "w");
        assert!(!d.has_errors());
        d.error("e", "e");
        assert!(d.has_errors());
    }
}
