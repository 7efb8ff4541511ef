//! Network cards, interfaces and EFA of the catalog's instance types (`data/network_cards.csv`,
//! compiled by `build.rs`, each row with its public sources): what the network-interface rules
//! check an explicit layout against, and what the EFA layouts the provider renders follow.
//!
//! Sources, per column (the row's `source_urls` name them): EC2 `DescribeInstanceTypes` as the
//! VPC CNI's generated limits (aws/amazon-vpc-cni-k8s@b52188387f2e
//! `pkg/vpc/vpc_ip_resource_limit.go`) and Karpenter's (aws/karpenter-provider-aws@1d927085dd81
//! `pkg/providers/instancetype/zz_generated.vpclimits.go`) publish them; the EC2 user guide's EFA
//! and ENA Express lists; Karpenter's instance-type reference for `vpc.amazonaws.com/efa`; and the
//! EC2 user guide page "Maximize network bandwidth on Amazon EC2 instances with multiple network
//! cards" (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html) for the
//! cards that take EFA on P6-B300 and P6e-GB200.

/// Which network cards of a type may carry an EFA device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EfaCards {
    /// The type has no EFA.
    None,
    /// One EFA per network card, card 0 included ("Instance types that support multiple network
    /// cards can be configured with one EFA per network card", EC2 user guide, EFA limitations).
    EveryCard,
    /// Not card 0: "the primary network card supports only an ENA network interface" (P6-B300,
    /// EC2 user guide, efa-acc-inst-types).
    NotCard0,
    /// Card 0 carries ENA only and EFA-only interfaces go on network cards 1, 3, …, 15
    /// (P6e-GB200, EC2 user guide, efa-acc-inst-types).
    OddCards,
}

/// One row of the table. `None` is a fact no source states (its column is in `unverified`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NetworkCards {
    pub instance_type: &'static str,
    /// EC2 `MaximumNetworkCards`.
    pub network_cards: Option<u32>,
    /// Network interfaces of the whole instance.
    pub max_network_interfaces: Option<u32>,
    /// `MaximumNetworkInterfaces` of each card (the same on every card of these types).
    pub max_interfaces_per_card: Option<u32>,
    pub efa_supported: bool,
    /// `EfaInfo.MaximumEfaInterfaces`.
    pub max_efa_interfaces: Option<u32>,
    pub ena_express: bool,
    pub efa_cards: EfaCards,
    /// The columns no source states.
    pub unverified: &'static [&'static str],
    pub source_urls: &'static [&'static str],
}

impl NetworkCards {
    /// Whether EFA devices may go on `card`.
    pub fn card_takes_efa(&self, card: i64) -> bool {
        match self.efa_cards {
            EfaCards::None => false,
            EfaCards::EveryCard => true,
            EfaCards::NotCard0 => card != 0,
            EfaCards::OddCards => card % 2 == 1,
        }
    }

    /// Whether card 0 carries ENA only (P6-B300, P6e-GB200): an EFA there fails the launch.
    pub fn card0_ena_only(&self) -> bool {
        self.efa_supported && !self.card_takes_efa(0)
    }

    /// The cards that take an EFA device, in order (`None` when the card count is unverified).
    pub fn efa_cards(&self) -> Option<Vec<i64>> {
        let n = i64::from(self.network_cards?);
        Some((0..n).filter(|c| self.card_takes_efa(*c)).collect())
    }

    /// Whether every fact of the row is stated by a source.
    pub fn verified(&self) -> bool {
        self.unverified.is_empty()
    }
}

/// The network facts of an instance type, if the table has it.
pub fn network_cards(instance_type: &str) -> Option<&'static NetworkCards> {
    super::data::NETWORK_CARDS
        .iter()
        .find(|n| n.instance_type == instance_type)
}

/// Every row, in table order.
pub fn all_network_cards() -> &'static [NetworkCards] {
    super::data::NETWORK_CARDS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_types_with_a_row_agree_on_efa() {
        let mut without = Vec::new();
        for t in super::super::instance_types() {
            let Some(n) = network_cards(t.name) else {
                without.push(t.name);
                continue;
            };
            // The catalog's EFA count is Karpenter's vpc.amazonaws.com/efa, as the table's.
            if let (Some(a), Some(b)) = (t.efa_interfaces, n.max_efa_interfaces) {
                assert_eq!(a, b, "{}", t.name);
            }
            assert_eq!(n.efa_supported, t.efa_interfaces.is_none_or(|e| e > 0), "{}", t.name);
        }
        // The research table covers the current generation only: p3 and inf1 rows are not
        // there, so their layouts are not checked (EKSGPU178 says so).
        without.sort_unstable();
        assert_eq!(
            without,
            [
                "inf1.24xlarge",
                "inf1.2xlarge",
                "inf1.6xlarge",
                "inf1.xlarge",
                "p3.16xlarge",
                "p3.2xlarge",
                "p3.8xlarge",
                "p3dn.24xlarge"
            ]
        );
    }

    #[test]
    fn card_zero_is_ena_only_on_p6_b300_and_gb200_alone() {
        let ena_only: Vec<&str> = all_network_cards()
            .iter()
            .filter(|n| n.card0_ena_only())
            .map(|n| n.instance_type)
            .collect();
        assert_eq!(ena_only, ["p6-b300.48xlarge", "p6e-gb200.36xlarge"]);
        let b300 = network_cards("p6-b300.48xlarge").expect("row");
        assert_eq!(b300.efa_cards().map(|c| c.len()), Some(16));
        let gb200 = network_cards("p6e-gb200.36xlarge").expect("row");
        assert_eq!(gb200.efa_cards(), Some(vec![1, 3, 5, 7, 9, 11, 13, 15]));
        assert!(!gb200.verified() && gb200.max_efa_interfaces.is_none());
    }

    #[test]
    fn unverified_rows_are_the_four_the_research_names() {
        let unverified: Vec<&str> = all_network_cards()
            .iter()
            .filter(|n| !n.verified())
            .map(|n| n.instance_type)
            .collect();
        assert_eq!(
            unverified,
            ["p6e-gb200.36xlarge", "trn2.48xlarge", "trn2.3xlarge", "trn2u.48xlarge"]
        );
        let trn2 = network_cards("trn2.48xlarge").expect("row");
        assert_eq!((trn2.network_cards, trn2.max_interfaces_per_card), (Some(16), Some(2)));
        assert_eq!(trn2.max_network_interfaces, None);
    }
}
