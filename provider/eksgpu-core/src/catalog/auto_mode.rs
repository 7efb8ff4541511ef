//! Where EKS Auto Mode runs accelerated instances, as data: the families the EKS
//! user guide's supported-instance table names (dated, cited), the families it
//! explicitly sends elsewhere, and, kept apart, what was once observed in a
//! cluster. The documented table is the fact; an observation is a dated note.

use super::Vendor;

/// The EKS user guide page with Auto Mode's supported-instance table.
pub const AUTO_MODE_TABLE_URL: &str = "https://docs.aws.amazon.com/eks/latest/userguide/automode-learn-instances.html";
/// The page's source at the commit read (section "Supported instance reference").
pub const AUTO_MODE_TABLE_SOURCE: &str =
    "https://github.com/awsdocs/amazon-eks-user-guide/blob/06faff14/latest/ug/automode/automode-learn-instances.adoc";
/// When the table was read (ISO date). Re-read and update the list with it.
pub const AUTO_MODE_TABLE_READ: &str = "2026-12-01";

/// The table's "Accelerated Computing (P/G/Inf/Trn)" row, in its order. `g4ad`
/// (AMD Radeon Pro) is listed but carries no NVIDIA or Neuron stack, so the
/// catalog has no rows for it. Families absent here (g6f, gr6f, g7, p3,
/// p6e-gb200, …) are not documented for Auto Mode.
pub const AUTO_MODE_ACCELERATED_FAMILIES: &[&str] = &[
    "p6-b200", "p6-b300", "p5", "p5e", "p5en", "p4d", "p4de", "p3dn", "g7e", "g6", "gr6", "g6e", "g5g", "g5", "g4dn",
    "g4ad", "inf2", "inf1", "trn1", "trn1n", "trn2",
];

/// Whether the documented table names an instance type's family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutoModeSupport {
    /// Listed in [`AUTO_MODE_ACCELERATED_FAMILIES`].
    Documented,
    /// Not listed: Auto Mode's NodePools will not launch it as documented.
    NotDocumented,
}

/// The EC2 family of an instance type name (`p6-b200.48xlarge` → `p6-b200`); a
/// bare family is returned as it is.
pub fn instance_family(instance_type: &str) -> &str {
    let name = instance_type.trim();
    name.split_once('.').map_or(name, |(family, _)| family)
}

/// Whether EKS Auto Mode documents `instance_type` (a type or a family name).
pub fn auto_mode_supports(instance_type: &str) -> AutoModeSupport {
    let family = instance_family(instance_type);
    if AUTO_MODE_ACCELERATED_FAMILIES
        .iter()
        .any(|f| f.eq_ignore_ascii_case(family))
    {
        AutoModeSupport::Documented
    } else {
        AutoModeSupport::NotDocumented
    }
}

/// A family the EKS user guide explicitly points away from Auto Mode (beyond
/// leaving it out of the table), with what the guide says to use instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AutoModeExclusion {
    pub family: &'static str,
    pub vendor: Vendor,
    /// What the guide says, in brief.
    pub says: &'static str,
    pub source_url: &'static str,
    /// The page's source at the commit read.
    pub source_commit_url: &'static str,
}

/// Explicit exclusions. g6f/gr6f/g7 are only absent from the table: no page
/// says more about them, so they are not listed here.
pub const AUTO_MODE_EXCLUSIONS: &[AutoModeExclusion] = &[AutoModeExclusion {
    family: "p6e-gb200",
    vendor: Vendor::Nvidia,
    says: "P6e-GB200 UltraServers need DRA, which Karpenter and EKS Auto Mode do not support; use EKS managed or \
           self-managed node groups",
    source_url: "https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-nvidia-ultraserver.html",
    source_commit_url: "https://github.com/awsdocs/amazon-eks-user-guide/blob/00e3293d/latest/ug/ml/ml-eks-nvidia-ultraserver.adoc",
}];

/// The explicit exclusion of `instance_type`'s family, if the guide has one.
pub fn auto_mode_exclusion(instance_type: &str) -> Option<&'static AutoModeExclusion> {
    let family = instance_family(instance_type);
    AUTO_MODE_EXCLUSIONS
        .iter()
        .find(|e| e.family.eq_ignore_ascii_case(family))
}

/// What happened when an Auto Mode NodePool asked for a type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObservedOutcome {
    Provisioned,
    FailedToProvision,
}

/// One field observation of Auto Mode provisioning: not documentation, so at most
/// a dated warning, to re-validate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AutoModeObservation {
    pub instance_type: &'static str,
    pub outcome: ObservedOutcome,
    /// Year and month observed (`2026-04`).
    pub observed: &'static str,
    pub detail: &'static str,
}

/// The 2026-04 observations. All three families are in the documented table read
/// 2026-12-01, so the two failures predate or contradict it.
pub const AUTO_MODE_OBSERVATIONS: &[AutoModeObservation] = &[
    AutoModeObservation {
        instance_type: "p5.48xlarge",
        outcome: ObservedOutcome::Provisioned,
        observed: "2026-04",
        detail: "provisioned on Spot in us-east-2",
    },
    AutoModeObservation {
        instance_type: "p5en.48xlarge",
        outcome: ObservedOutcome::FailedToProvision,
        observed: "2026-04",
        detail: "failed to provision: NoCompatibleInstanceTypes",
    },
    AutoModeObservation {
        instance_type: "p6-b200.48xlarge",
        outcome: ObservedOutcome::FailedToProvision,
        observed: "2026-04",
        detail: "failed to provision",
    },
];

/// The observation of `instance_type`, if there is one.
pub fn auto_mode_observation(instance_type: &str) -> Option<&'static AutoModeObservation> {
    AUTO_MODE_OBSERVATIONS
        .iter()
        .find(|o| o.instance_type == instance_type.trim())
}

/// Instance types seen failing to provision on Auto Mode (the failures of
/// [`AUTO_MODE_OBSERVATIONS`], which the tests keep in step). An observation, so a
/// warning: re-validate and update.
pub const AUTO_MODE_OBSERVED_FAILURES: [&str; 2] = ["p5en.48xlarge", "p6-b200.48xlarge"];

/// Instance types seen provisioning on Auto Mode (the successes of
/// [`AUTO_MODE_OBSERVATIONS`]).
pub const AUTO_MODE_OBSERVED_WORKING: [&str; 1] = ["p5.48xlarge"];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{instance_type, instance_types};

    #[test]
    fn documented_families_are_documented() {
        for t in [
            "p5.48xlarge",
            "p5e.48xlarge",
            "p5en.48xlarge",
            "p6-b200.48xlarge",
            "p6-b300.48xlarge",
            "trn1.32xlarge",
            "trn1n.32xlarge",
            "trn2.48xlarge",
            "inf1.xlarge",
            "inf2.48xlarge",
            "g6e.xlarge",
            "p3dn.24xlarge",
            "trn2",
        ] {
            assert_eq!(auto_mode_supports(t), AutoModeSupport::Documented, "{t}");
        }
    }

    #[test]
    fn unlisted_families_are_not_documented() {
        // Prefixes of listed families must not match: p3 is not p3dn, g6f is not g6.
        for t in [
            "g6f.xlarge",
            "gr6f.4xlarge",
            "g7.2xlarge",
            "p3.2xlarge",
            "p6e-gb200.36xlarge",
            "trn3.48xlarge",
            "",
        ] {
            assert_eq!(auto_mode_supports(t), AutoModeSupport::NotDocumented, "{t:?}");
        }
        assert_eq!(
            auto_mode_exclusion("p6e-gb200.36xlarge").map(|e| e.vendor),
            Some(Vendor::Nvidia)
        );
        assert!(auto_mode_exclusion("g6f.large").is_none());
    }

    #[test]
    fn families_are_parsed_from_type_names() {
        assert_eq!(instance_family("p6-b200.48xlarge"), "p6-b200");
        assert_eq!(instance_family(" trn2.48xlarge "), "trn2");
        assert_eq!(instance_family("inf2"), "inf2");
        assert_eq!(instance_type("p6-b300.48xlarge").unwrap().family(), "p6-b300");
    }

    #[test]
    fn every_documented_nvidia_or_neuron_family_has_catalog_rows() {
        for family in AUTO_MODE_ACCELERATED_FAMILIES {
            let rows = instance_types().iter().filter(|t| t.family() == *family).count();
            if *family == "g4ad" {
                // AMD GPUs: outside the two vendors the catalog models.
                assert_eq!(rows, 0);
            } else {
                assert!(rows > 0, "{family} is documented for Auto Mode but has no catalog row");
            }
        }
    }

    #[test]
    fn exclusions_are_not_in_the_table_and_cite_the_guide() {
        for e in AUTO_MODE_EXCLUSIONS {
            assert_eq!(auto_mode_supports(e.family), AutoModeSupport::NotDocumented);
            assert!(e.source_url.starts_with("https://docs.aws.amazon.com/eks/"));
            let rows: Vec<_> = instance_types().iter().filter(|t| t.family() == e.family).collect();
            assert!(
                !rows.is_empty() && rows.iter().all(|t| t.vendor == e.vendor),
                "{}",
                e.family
            );
        }
    }

    #[test]
    fn old_observation_lists_are_the_observations() {
        let of = |o: ObservedOutcome| -> Vec<&str> {
            AUTO_MODE_OBSERVATIONS
                .iter()
                .filter(|x| x.outcome == o)
                .map(|x| x.instance_type)
                .collect()
        };
        assert_eq!(of(ObservedOutcome::FailedToProvision), AUTO_MODE_OBSERVED_FAILURES);
        assert_eq!(of(ObservedOutcome::Provisioned), AUTO_MODE_OBSERVED_WORKING);
        for o in AUTO_MODE_OBSERVATIONS {
            assert!(instance_type(o.instance_type).is_some(), "{}", o.instance_type);
            assert_eq!(o.observed, "2026-04");
        }
        assert_eq!(
            auto_mode_observation("p5en.48xlarge").map(|o| o.outcome),
            Some(ObservedOutcome::FailedToProvision)
        );
        assert!(auto_mode_observation("p5e.48xlarge").is_none());
    }

    #[test]
    fn the_table_is_dated_and_cited() {
        assert!(AUTO_MODE_TABLE_URL.starts_with("https://docs.aws.amazon.com/eks/"));
        assert!(AUTO_MODE_TABLE_SOURCE.starts_with("https://github.com/awsdocs/amazon-eks-user-guide/blob/"));
        let d: Vec<u32> = AUTO_MODE_TABLE_READ.split('-').map(|p| p.parse().unwrap()).collect();
        assert!(d.len() == 3 && d[1] <= 12 && d[2] <= 31);
    }
}
