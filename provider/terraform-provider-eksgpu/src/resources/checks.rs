//! The domain's single-value checks (`eksgpu_core::validate`, each citing its
//! upstream source) as validators declared on schema attributes.

use eksgpu_core::validate::ValidationError;
use eksgpu_framework::validators;
use eksgpu_tfplugin::Validator;

type Check = fn(&str) -> Result<(), ValidationError>;

/// A string attribute checked by `f`.
pub(crate) fn string(description: &str, f: Check) -> Validator {
    validators::string(description, move |s| f(s).map_err(|e| e.to_string()))
}

/// Every known element (list) or value (map) checked by `f`.
pub(crate) fn each(description: &str, f: Check) -> Validator {
    validators::each(string(description, f))
}

/// Every key of a map checked by `f`.
pub(crate) fn keys(description: &str, f: Check) -> Validator {
    validators::keys(description, move |s| f(s).map_err(|e| e.to_string()))
}

/// A `MAJOR.MINOR` version.
pub(crate) fn version(what: &str) -> Validator {
    let what = what.to_owned();
    validators::string(&format!("A {what} version `MAJOR.MINOR`, e.g. `1.33`."), move |s| {
        eksgpu_core::version::Version::parse(s)
            .map(|_| ())
            .map_err(|e| format!("{e} ({what} version)"))
    })
}

/// A duration in Karpenter's (Go's) syntax: `90s`, `5m`, `1h30m`.
pub(crate) fn duration() -> Validator {
    validators::string("A duration such as `90s`, `5m` or `1h30m`.", |d| {
        eksgpu_core::duration::parse(d).map(|_| ()).map_err(|e| e.to_string())
    })
}
