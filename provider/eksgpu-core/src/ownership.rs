//! Who owns an object the provider is about to write or delete.
//!
//! Every object the provider makes says which resource made it: Kubernetes
//! labels (`kinds::labels`) and AWS tags (`eks::tags`) with the same keys.
//! Before a write or a delete the provider reads the object and compares
//! that owner with itself; what another strategy, another tool or nobody the
//! provider knows owns is never overwritten or deleted (unless the
//! configuration adopts it by name). Pure: the adapters read, this decides.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::Value;

use crate::kinds::labels;
use crate::sharing::SHARING_POOL_LABEL;

/// Marks a ScaledObject of an `eksgpu_burst_scaler`.
pub const BURST_SCALER_LABEL: &str = "eksgpu.terraform.io/burst-scaler";

/// The owner an existing object names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Owner {
    /// A node strategy of this provider; `token` is the `owner_token` of the instance that last
    /// wrote the object (`None` before tokens existed).
    Strategy {
        cluster: String,
        name: String,
        token: Option<String>,
    },
    /// A sharing pool of this provider.
    SharingPool { cluster: String, name: String },
    /// A burst scaler of this provider (its ScaledObject and the TriggerAuthentications it
    /// renders); `name` is the scaler's, from its label.
    BurstScaler { cluster: String, name: String },
    /// A capacity probe of this provider (its NodePool and pod); `name` is the probe's.
    CapacityProbe { cluster: String, name: String },
    /// Labelled by this provider without saying which resource (written by
    /// a version before ownership labels).
    ProviderUnknown,
    /// Not made by this provider: what the object says of its makers.
    Foreign { makers: Vec<String> },
}

impl Owner {
    /// The owner Kubernetes labels (or AWS tags) name; `makers` is what else
    /// is known of who wrote the object (field managers, tool tags).
    pub fn of_labels(l: &BTreeMap<String, String>, makers: Vec<String>) -> Owner {
        let get = |k: &str| l.get(k).cloned();
        if get(labels::MANAGED_BY).as_deref() != Some(labels::MANAGED_BY_VALUE) {
            let mut makers = makers;
            if let Some(tool) = get(labels::MANAGED_BY) {
                makers.insert(0, format!("{}={tool}", labels::MANAGED_BY));
            }
            return Owner::Foreign { makers };
        }
        let cluster = get(labels::CLUSTER).unwrap_or_default();
        if let Some(name) = get(labels::STRATEGY) {
            Owner::Strategy {
                cluster,
                name,
                token: get(labels::OWNER_TOKEN),
            }
        } else if let Some(name) = get(SHARING_POOL_LABEL) {
            Owner::SharingPool { cluster, name }
        } else if let Some(name) = get(BURST_SCALER_LABEL) {
            Owner::BurstScaler { cluster, name }
        } else if let Some(name) = get(crate::probe::PROBE_LABEL) {
            Owner::CapacityProbe { cluster, name }
        } else {
            Owner::ProviderUnknown
        }
    }

    /// The owner of a Kubernetes object: its labels, and the field managers in
    /// its `metadata.managedFields` for objects this provider did not make.
    pub fn of_object(o: &Value) -> Owner {
        let l: BTreeMap<String, String> = o["metadata"]["labels"]
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
            .collect();
        let mut managers: Vec<String> = Vec::new();
        for m in o["metadata"]["managedFields"].as_array().into_iter().flatten() {
            if let Some(name) = m["manager"].as_str()
                && !managers.iter().any(|x| x == name)
            {
                managers.push(name.to_owned());
            }
        }
        Owner::of_labels(&l, managers.into_iter().map(|m| format!("field manager {m}")).collect())
    }

    /// The owner of an AWS object from its tags; tools that tag what they
    /// make (eksctl, CloudFormation, Karpenter) are named from theirs.
    pub fn of_tags(t: &BTreeMap<String, String>) -> Owner {
        let known = [
            ("alpha.eksctl.io/cluster-name", "eksctl"),
            ("aws:cloudformation:stack-name", "CloudFormation stack"),
            ("karpenter.sh/nodepool", "Karpenter NodePool"),
            ("eks:nodegroup-name", "EKS"),
        ];
        let makers = known
            .iter()
            .filter_map(|(k, what)| t.get(*k).map(|v| format!("{what} {v}")))
            .collect();
        Owner::of_labels(t, makers)
    }
}

impl fmt::Display for Owner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Owner::Strategy { cluster, name, .. } => write!(f, "eksgpu_node_strategy {name:?} of cluster {cluster:?}"),
            Owner::SharingPool { cluster, name } => write!(f, "eksgpu_sharing_pool {name:?} of cluster {cluster:?}"),
            Owner::BurstScaler { cluster, name } => write!(f, "eksgpu_burst_scaler {name:?} of cluster {cluster:?}"),
            Owner::CapacityProbe { cluster, name } => {
                write!(f, "eksgpu_capacity_probe {name:?} of cluster {cluster:?}")
            }
            Owner::ProviderUnknown => f.write_str("this provider, without an owner label (an older version made it)"),
            Owner::Foreign { makers } if makers.is_empty() => {
                f.write_str("nothing this provider knows (no eksgpu.terraform.io label or tag, no recorded maker)")
            }
            Owner::Foreign { makers } => write!(
                f,
                "nothing this provider knows (no eksgpu.terraform.io label or tag; written by {})",
                makers.join(", ")
            ),
        }
    }
}

/// Who is asking: a strategy (with its name before a rename, if any), and the `owner_token` of
/// the resource instance asking (`None` for states written before tokens).
#[derive(Clone, Debug)]
pub struct Claimant<'a> {
    pub cluster: &'a str,
    pub name: &'a str,
    pub prior_name: Option<&'a str>,
    pub token: Option<&'a str>,
}

impl Claimant<'_> {
    /// Whether an object with this owner is the strategy's own: made by it,
    /// under its name now or before the rename being applied.
    pub fn owns(&self, owner: &Owner) -> bool {
        match owner {
            // Labels carry the cluster's label value (shortened past 63 characters), tags the name.
            Owner::Strategy { cluster, name, .. } => {
                labels::is_cluster(cluster, self.cluster)
                    && (name == self.name || Some(name.as_str()) == self.prior_name)
            }
            _ => false,
        }
    }
}

/// Why the provider will not write or delete an object.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what} belongs to {owner}")]
pub struct NotOurs {
    /// `NodePool gpu`, `node group prod-gpu`.
    pub what: String,
    pub owner: Owner,
}

impl NotOurs {
    /// What a person can do about it, for an object the strategy wanted to write.
    pub fn how_to_hand_over(&self) -> String {
        let take = "take it over explicitly: set `adopt = true` on the pool (the next apply relabels it and \
                    takes over its fields; nothing is deleted)";
        match &self.owner {
            Owner::Strategy { name, .. } => format!(
                "{} belongs to eksgpu_node_strategy {name:?}; this strategy leaves it untouched. Give this pool \
                 another name, or hand the object over: remove the pool from strategy {name:?} (its objects are \
                 deleted), or remove that strategy from Terraform without deleting anything (a `removed {{}}` \
                 block with `lifecycle {{ destroy = false }}`, Terraform 1.7+) and then {take}.",
                self.what
            ),
            _ => format!(
                "{} already exists and belongs to {}; this strategy leaves it untouched. Give the pool another \
                 name, delete the object if nothing needs it, or {take}.",
                self.what, self.owner
            ),
        }
    }
}

/// Decides a write: `Ok` when the object is absent, the claimant's own, or
/// adopted; otherwise who owns it.
pub fn check_write(what: &str, live_owner: Option<Owner>, me: &Claimant<'_>, adopt: bool) -> Result<(), NotOurs> {
    match live_owner {
        None => Ok(()),
        Some(o) if adopt || me.owns(&o) => Ok(()),
        Some(owner) => Err(NotOurs {
            what: what.to_owned(),
            owner,
        }),
    }
}

/// Decides a delete: `true` when the object is the claimant's own (a delete
/// of an object someone else now owns would destroy their work) and was last
/// written by this very instance: when Terraform replaces a strategy with
/// `create_before_destroy`, the new instance has already written the objects
/// (same names, same strategy) with its own token, and the old one's destroy
/// must leave them. An object or a state from before tokens decides by name.
pub fn may_delete(live_owner: &Owner, me: &Claimant<'_>) -> bool {
    let same_instance = match (live_owner, me.token) {
        (
            Owner::Strategy {
                token: Some(theirs), ..
            },
            Some(mine),
        ) => theirs == mine,
        _ => true,
    };
    (me.owns(live_owner) && same_instance) || *live_owner == Owner::ProviderUnknown
}

/// Whether a delete is refused only because a newer instance of the same strategy wrote the
/// object (a replacement with `create_before_destroy`): not an error, the object is its.
pub fn replaced_by_successor(live_owner: &Owner, me: &Claimant<'_>) -> bool {
    me.owns(live_owner) && !may_delete(live_owner, me)
}

/// Marks a Kubernetes object as written by the instance with `token` (applied, never rendered:
/// the token is unknown when a create is planned, and plans show objects without it).
pub fn stamp(object: &mut Value, token: &str) {
    if !object["metadata"].is_object() {
        return;
    }
    if !object["metadata"]["labels"].is_object() {
        object["metadata"]["labels"] = Value::Object(Default::default());
    }
    object["metadata"]["labels"][labels::OWNER_TOKEN] = Value::String(token.to_owned());
}

#[cfg(test)]
mod tests;
