//! EKS statuses as types, not strings: what the provider waits for, treats as
//! failed or as gone is decided by matching variants (EKS API `NodegroupStatus`
//! and `ClusterStatus`, https://docs.aws.amazon.com/eks/latest/APIReference/API_Nodegroup.html
//! and API_Cluster.html).

use std::fmt;

macro_rules! status {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $text:literal),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub enum $name {
            $($variant,)*
            /// A status this provider does not know (a newer EKS API): waited on, never taken as done.
            Other(String),
        }

        impl $name {
            pub fn parse(s: &str) -> Self {
                match s {
                    $($text => $name::$variant,)*
                    other => $name::Other(other.to_owned()),
                }
            }

            pub fn as_str(&self) -> &str {
                match self {
                    $($name::$variant => $text,)*
                    $name::Other(s) => s,
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

status!(
    /// `Nodegroup.status`.
    NodeGroupStatus {
        Creating = "CREATING",
        Active = "ACTIVE",
        Updating = "UPDATING",
        Deleting = "DELETING",
        CreateFailed = "CREATE_FAILED",
        DeleteFailed = "DELETE_FAILED",
        Degraded = "DEGRADED",
    }
);

status!(
    /// `Cluster.status`.
    ClusterStatus {
        Creating = "CREATING",
        Active = "ACTIVE",
        Deleting = "DELETING",
        Failed = "FAILED",
        Updating = "UPDATING",
        Pending = "PENDING",
    }
);

impl NodeGroupStatus {
    /// EKS is still working on it: wait before changing it.
    pub fn in_progress(&self) -> bool {
        matches!(self, NodeGroupStatus::Creating | NodeGroupStatus::Updating)
    }

    /// It will not serve a pool: its creation failed, or it is going away.
    pub fn will_not_serve(&self) -> bool {
        matches!(self, NodeGroupStatus::CreateFailed | NodeGroupStatus::Deleting)
    }

    /// A terminal failure while waiting.
    pub fn failed(&self) -> bool {
        matches!(
            self,
            NodeGroupStatus::CreateFailed | NodeGroupStatus::DeleteFailed | NodeGroupStatus::Degraded
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_round_trip_and_unknown_ones_are_kept() {
        for s in [
            "CREATING",
            "ACTIVE",
            "UPDATING",
            "DELETING",
            "CREATE_FAILED",
            "DELETE_FAILED",
            "DEGRADED",
        ] {
            assert_eq!(NodeGroupStatus::parse(s).as_str(), s);
        }
        assert_eq!(NodeGroupStatus::parse("NEW"), NodeGroupStatus::Other("NEW".into()));
        assert!(NodeGroupStatus::parse("CREATE_FAILED").will_not_serve());
        assert!(!NodeGroupStatus::parse("ACTIVE").failed());
        assert_eq!(ClusterStatus::parse("FAILED"), ClusterStatus::Failed);
    }
}
