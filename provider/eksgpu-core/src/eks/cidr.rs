//! IPv4 CIDR blocks, as far as EKSGPU007 needs them: parse, RFC 1918 and overlap.

use std::net::Ipv4Addr;

/// An IPv4 network `address/prefix` (host bits ignored, as EKS does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    pub network: u32,
    pub prefix: u8,
}

/// RFC 1918 private ranges: 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16.
const PRIVATE: [Cidr; 3] = [
    Cidr {
        network: 0x0A00_0000,
        prefix: 8,
    },
    Cidr {
        network: 0xAC10_0000,
        prefix: 12,
    },
    Cidr {
        network: 0xC0A8_0000,
        prefix: 16,
    },
];

impl Cidr {
    pub fn parse(s: &str) -> Option<Cidr> {
        let (addr, prefix) = s.split_once('/')?;
        let addr: Ipv4Addr = addr.parse().ok()?;
        // Decimal digits only: Rust's integer parse would take "+24"; no leading zeros either
        // ("024"), as Go's netip.ParsePrefix refuses them ("bits has leading zero").
        let digits_only = !prefix.is_empty() && prefix.bytes().all(|b| b.is_ascii_digit());
        if !digits_only || (prefix.len() > 1 && prefix.starts_with('0')) {
            return None;
        }
        let prefix: u8 = prefix.parse().ok().filter(|p| *p <= 32)?;
        Some(Cidr {
            network: u32::from(addr) & mask(prefix),
            prefix,
        })
    }

    fn contains(self, other: Cidr) -> bool {
        self.prefix <= other.prefix && other.network & mask(self.prefix) == self.network
    }

    pub fn overlaps(self, other: Cidr) -> bool {
        self.contains(other) || other.contains(self)
    }

    pub fn is_rfc1918(self) -> bool {
        PRIVATE.iter().any(|p| p.contains(self))
    }
}

fn mask(prefix: u8) -> u32 {
    if prefix == 0 {
        0
    } else {
        u32::MAX << (32 - u32::from(prefix))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_masks_host_bits() {
        assert_eq!(Cidr::parse("10.1.2.3/16"), Cidr::parse("10.1.0.0/16"));
        assert_eq!(Cidr::parse("10.0.0.0/33"), None);
        assert_eq!(Cidr::parse("10.0.0/8"), None);
        assert_eq!(Cidr::parse("fd00::/8"), None);
        assert_eq!(Cidr::parse("10.0.0.0"), None);
        for bad in [
            "10.0.0.0/+24",
            "10.0.0.0/024",
            "10.0.0.0/ 24",
            "10.0.0.0/",
            "010.0.0.0/8",
            "10.0.0.0/-0",
        ] {
            assert_eq!(Cidr::parse(bad), None, "{bad}");
        }
        assert!(Cidr::parse("10.0.0.0/0").is_some());
    }

    #[test]
    fn private_ranges() {
        let p = |s| Cidr::parse(s).unwrap().is_rfc1918();
        assert!(p("10.80.0.0/16"));
        assert!(p("172.31.0.0/16"));
        assert!(p("192.168.10.0/24"));
        assert!(!p("172.32.0.0/16"));
        assert!(!p("8.8.8.0/24"));
        assert!(!p("10.0.0.0/7"));
    }

    #[test]
    fn overlap_is_containment_either_way() {
        let c = |s| Cidr::parse(s).unwrap();
        assert!(c("10.0.0.0/8").overlaps(c("10.200.0.0/16")));
        assert!(c("10.200.0.0/16").overlaps(c("10.0.0.0/8")));
        assert!(!c("10.200.0.0/16").overlaps(c("10.201.0.0/16")));
        assert!(c("192.168.1.7/32").overlaps(c("192.168.1.0/24")));
    }
}
