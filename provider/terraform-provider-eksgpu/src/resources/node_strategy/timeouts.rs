//! The strategy's `timeouts` block: how long EKS API operations may take.

use std::time::Duration;

use eksgpu_tfplugin::Value;

/// EKS node groups usually take 5–15 minutes; the Terraform AWS provider also waits up to 60.
const DEFAULT: Duration = Duration::from_secs(60 * 60);

#[derive(Debug, Clone, Copy)]
pub(crate) struct Timeouts {
    pub create: Duration,
    pub update: Duration,
    pub delete: Duration,
}

impl Timeouts {
    /// From a strategy value; validation already rejected bad durations.
    pub fn of(strategy: &Value) -> Timeouts {
        let t = eksgpu_framework::path::one(strategy.get("timeouts"));
        let get = |k: &str| t.get(k).as_str().and_then(parse_duration).unwrap_or(DEFAULT);
        Timeouts {
            create: get("create"),
            update: get("update"),
            delete: get("delete"),
        }
    }
}

/// Durations as users write them: `90s`, `45m`, `1h30m` (the one duration type of the core).
pub(crate) fn parse_duration(s: &str) -> Option<Duration> {
    eksgpu_core::duration::parse(s).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("90s"), Some(Duration::from_secs(90)));
        assert_eq!(parse_duration("1h30m"), Some(Duration::from_secs(5400)));
        assert_eq!(parse_duration("3"), None);
        assert_eq!(parse_duration("5d"), None);
        assert_eq!(parse_duration(""), None);
    }
}
