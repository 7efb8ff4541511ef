//! One version type for every `MAJOR.MINOR` the provider reads: Kubernetes,
//! Karpenter and KEDA releases, parsed once.

use std::fmt;

/// A `MAJOR.MINOR` release; ordered, so rules can say "from 1.14 on".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
}

/// Why text is not a `MAJOR.MINOR` version.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not MAJOR.MINOR, e.g. \"1.33\"")]
pub struct VersionError(pub String);

impl Version {
    pub const fn new(major: u32, minor: u32) -> Self {
        Self { major, minor }
    }

    /// `1.33`; a patch (`1.33.2`) or a leading `v` is accepted and dropped, as
    /// releases are often written that way.
    pub fn parse(s: &str) -> Result<Version, VersionError> {
        let body = s.strip_prefix('v').unwrap_or(s);
        let mut parts = body.split('.');
        let num = |p: Option<&str>| {
            p.filter(|p| !p.is_empty() && p.len() <= 6 && p.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|p| p.parse::<u32>().ok())
        };
        let (Some(major), Some(minor)) = (num(parts.next()), num(parts.next())) else {
            return Err(VersionError(s.to_owned()));
        };
        match parts.next() {
            None => {}
            Some(patch) if num(Some(patch)).is_some() && parts.next().is_none() => {}
            Some(_) => return Err(VersionError(s.to_owned())),
        }
        Ok(Version { major, minor })
    }

    pub fn as_tuple(self) -> (u32, u32) {
        (self.major, self.minor)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_major_minor_and_orders() {
        assert_eq!(Version::parse("1.33"), Ok(Version::new(1, 33)));
        assert_eq!(Version::parse("v1.14.1"), Ok(Version::new(1, 14)));
        assert!(Version::new(1, 9) < Version::new(1, 14));
        for bad in ["", "1", "1.", ".1", "a.b", "1.2.3.4", "1.x", "-1.2", "1.33 "] {
            assert!(Version::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(Version::new(2, 20).to_string(), "2.20");
    }
}
