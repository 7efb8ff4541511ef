//! `acknowledged_warnings`, on every resource whose rules warn: the warning codes a configuration
//! says are intended. The rules' warnings of those codes are left out
//! (`eksgpu_core::rules::unanswered`); errors cannot be acknowledged.

use eksgpu_core::rules::{self, Code};
use eksgpu_framework::validators;
use eksgpu_tfplugin::schema::Attribute;
use eksgpu_tfplugin::{Type, Value};

/// The attribute, with `example` (what such an intent looks like for this resource) in its description.
pub(crate) fn attribute(example: &str) -> Attribute {
    Attribute::optional(
        "acknowledged_warnings",
        Type::set(Type::String),
        &format!(
            "Warning codes whose finding is intended, e.g. {example}: the rules no longer warn about them. Only \
             warnings can be acknowledged (an error code is refused); see the rules guide for each code."
        ),
    )
    .validate(validators::each(validators::string(
        "A warning code of the rules guide, such as `EKSGPU132`.",
        |c| rules::acknowledgeable(c).map(|_| ()),
    )))
}

/// The acknowledged codes of a planned or configured value (none while the set is unknown: its
/// warnings then show, as they would without it).
pub(crate) fn codes(v: &Value) -> Vec<Code> {
    v.get("acknowledged_warnings")
        .elements()
        .iter()
        .filter_map(|c| c.as_str().and_then(|c| rules::acknowledgeable(c).ok()))
        .collect()
}
