//! Karpenter v1 values that the NodePool CRD's schema and CEL rules, or
//! Karpenter's runtime validation, refuse — per Karpenter release where the
//! rules changed.

use super::labels::label_key;
use super::{Validation, ValidationError, Version};

const LABELS: &str = "aws/karpenter-provider-aws v1.14.1 pkg/apis/crds/karpenter.sh_nodepools.yaml \
     (spec.template.metadata.labels CEL rules) and pkg/apis/v1/labels.go (karpenter.k8s.aws well-known labels); \
     kubernetes-sigs/karpenter v1.14.1 pkg/apis/v1/labels.go (IsRestrictedLabel) and nodepool_validation.go; \
     kubernetes.io and k8s.io were restricted before v1.9.0 (kubernetes-sigs/karpenter PR #2586)";
const NODEPOOL_CRD: &str = "aws/karpenter-provider-aws v1.14.1 pkg/apis/crds/karpenter.sh_nodepools.yaml";
const CAPACITY_TYPES: &str = "kubernetes-sigs/karpenter v1.14.1 pkg/apis/v1/labels.go (CapacityTypeOnDemand, \
     CapacityTypeSpot, CapacityTypeReserved; reserved since v1.3.0, feature gate ReservedCapacity on by default since v1.6.0)";

/// Single labels a NodePool may not set, whatever their domain's rule says.
pub(crate) const RESTRICTED_KEYS: [&str; 3] = [
    // Karpenter sets it to the NodePool's name (CEL rule and validateLabels).
    "karpenter.sh/nodepool",
    // Each node's own (CEL rule and RestrictedLabels).
    "kubernetes.io/hostname",
    // Allowed by the CEL rule's list but not well known to the runtime check,
    // which marks the NodePool not ready (ValidationSucceeded=False).
    "karpenter.k8s.aws/ec2nodeclass",
];

/// `karpenter.sh` labels a NodePool template may set.
const KARPENTER_SH_ALLOWED: [&str; 1] = ["karpenter.sh/capacity-type"];

/// `karpenter.k8s.aws` labels a NodePool template may set (v1.14.1): the
/// CEL rule's list, less `ec2nodeclass` (see [`RESTRICTED_KEYS`]).
pub const KARPENTER_AWS_WELL_KNOWN_LABELS: [&str; 27] = [
    "karpenter.k8s.aws/instance-tenancy",
    "karpenter.k8s.aws/capacity-reservation-type",
    "karpenter.k8s.aws/capacity-reservation-id",
    "karpenter.k8s.aws/capacity-reservation-interruptible",
    "karpenter.k8s.aws/instance-encryption-in-transit-supported",
    "karpenter.k8s.aws/instance-category",
    "karpenter.k8s.aws/instance-hypervisor",
    "karpenter.k8s.aws/instance-family",
    "karpenter.k8s.aws/instance-generation",
    "karpenter.k8s.aws/instance-local-nvme",
    "karpenter.k8s.aws/instance-size",
    "karpenter.k8s.aws/instance-cpu",
    "karpenter.k8s.aws/instance-cpu-manufacturer",
    "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz",
    "karpenter.k8s.aws/instance-memory",
    "karpenter.k8s.aws/instance-ebs-bandwidth",
    "karpenter.k8s.aws/instance-network-bandwidth",
    "karpenter.k8s.aws/instance-gpu-name",
    "karpenter.k8s.aws/instance-gpu-manufacturer",
    "karpenter.k8s.aws/instance-gpu-count",
    "karpenter.k8s.aws/instance-gpu-memory",
    "karpenter.k8s.aws/instance-accelerator-name",
    "karpenter.k8s.aws/instance-accelerator-manufacturer",
    "karpenter.k8s.aws/instance-accelerator-count",
    "karpenter.k8s.aws/instance-capability-flex",
    "karpenter.k8s.aws/placement-group-id",
    "karpenter.k8s.aws/placement-group-partition",
];

/// Before v1.9.0 the CRD also restricted `kubernetes.io` (except these, and
/// the `node.kubernetes.io` and `node-restriction.kubernetes.io` domains) and
/// `k8s.io` (except `kops.k8s.io`), v1.8.x's NodePool CRD template label rules.
const KUBERNETES_IO_ALLOWED_BEFORE_1_9: [&str; 10] = [
    "beta.kubernetes.io/instance-type",
    "failure-domain.beta.kubernetes.io/region",
    "beta.kubernetes.io/os",
    "beta.kubernetes.io/arch",
    "failure-domain.beta.kubernetes.io/zone",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "kubernetes.io/arch",
    "kubernetes.io/os",
    "node.kubernetes.io/windows-build",
];

/// Domains whose labels a NodePool may not set, with the labels it may.
/// The CEL rules compare with `endsWith`, so `xkarpenter.sh` is caught too.
pub(crate) const RESTRICTED_DOMAINS: [(&str, &[&str]); 2] = [
    ("karpenter.sh", &KARPENTER_SH_ALLOWED),
    ("karpenter.k8s.aws", &KARPENTER_AWS_WELL_KNOWN_LABELS),
];

/// The CEL rules' domain: what precedes the first `/`, or the whole key.
fn cel_domain(key: &str) -> &str {
    key.split('/').next().unwrap_or(key)
}

/// A label key a NodePool's template (`spec.template.metadata.labels`) may
/// set on its nodes, on Karpenter `karpenter` (major, minor). The key must
/// also be a valid label key. Auto Mode runs its own Karpenter: pass the
/// release its NodePool CRD matches.
pub fn karpenter_node_label_key(key: &str, karpenter: Version) -> Validation {
    label_key(key)?;
    let restricted = |why: String| {
        Err(ValidationError::new(
            format!(
                "Karpenter {}.{} does not let a NodePool set the label {key:?}: {why}.",
                karpenter.0, karpenter.1
            ),
            "a custom label outside karpenter.sh and karpenter.k8s.aws (and, before Karpenter 1.9, kubernetes.io \
             and k8s.io), or a well-known label such as karpenter.sh/capacity-type or topology.kubernetes.io/zone",
            LABELS,
        ))
    };
    if RESTRICTED_KEYS.contains(&key) {
        return restricted("Karpenter or the kubelet sets it".into());
    }
    let domain = cel_domain(key);
    for (restricted_domain, allowed) in RESTRICTED_DOMAINS {
        if domain.ends_with(restricted_domain) && !allowed.contains(&key) {
            return restricted(format!("the {restricted_domain} domain is Karpenter's"));
        }
    }
    if karpenter < (1, 9) {
        let node_domain = domain.ends_with("node.kubernetes.io") || domain.ends_with("node-restriction.kubernetes.io");
        if domain.ends_with("kubernetes.io") && !node_domain && !KUBERNETES_IO_ALLOWED_BEFORE_1_9.contains(&key) {
            return restricted("the kubernetes.io domain is restricted before Karpenter 1.9".into());
        }
        if domain.ends_with("k8s.io") && !domain.ends_with("kops.k8s.io") {
            return restricted("the k8s.io domain is restricted before Karpenter 1.9".into());
        }
    }
    Ok(())
}

/// A value of `karpenter.sh/capacity-type`: `on-demand`, `spot`, and
/// `reserved` from Karpenter 1.3.
pub fn karpenter_capacity_type(s: &str, karpenter: Version) -> Validation {
    let reserved_ok = karpenter >= (1, 3);
    match s {
        "on-demand" | "spot" => Ok(()),
        "reserved" if reserved_ok => Ok(()),
        "reserved" => Err(ValidationError::new(
            format!(
                "Capacity type \"reserved\" needs Karpenter 1.3; this is {}.{}.",
                karpenter.0, karpenter.1
            ),
            "on-demand or spot",
            CAPACITY_TYPES,
        )),
        other => Err(ValidationError::new(
            format!("{other:?} is not a Karpenter capacity type."),
            if reserved_ok {
                "on-demand, spot or reserved"
            } else {
                "on-demand or spot"
            },
            CAPACITY_TYPES,
        )),
    }
}

/// `spec.disruption.consolidationPolicy`: `WhenEmpty`,
/// `WhenEmptyOrUnderutilized`, and `Balanced` from Karpenter 1.14.
pub fn karpenter_consolidation_policy(s: &str, karpenter: Version) -> Validation {
    let balanced_ok = karpenter >= (1, 14);
    let accepted = if balanced_ok {
        "WhenEmpty, WhenEmptyOrUnderutilized or Balanced"
    } else {
        "WhenEmpty or WhenEmptyOrUnderutilized (Balanced needs Karpenter 1.14)"
    };
    let message = match s {
        "WhenEmpty" | "WhenEmptyOrUnderutilized" => return Ok(()),
        "Balanced" if balanced_ok => return Ok(()),
        "Balanced" => format!(
            "Balanced needs Karpenter 1.14; this is {}.{}.",
            karpenter.0, karpenter.1
        ),
        "WhenUnderutilized" => "WhenUnderutilized is the v1beta1 name; Karpenter v1 rejects it.".to_owned(),
        other => format!("{other:?} is not a consolidation policy."),
    };
    Err(ValidationError::new(message, accepted, NODEPOOL_CRD))
}

/// `consolidateAfter` and `expireAfter`: `Never` or a sequence of whole
/// numbers with `s`, `m` or `h` (the CRD pattern `^(([0-9]+(s|m|h))+|Never)$`;
/// Go's `ms`, `us` and fractions such as `1.5h` are refused).
pub fn karpenter_duration(s: &str) -> Validation {
    if crate::duration::KarpenterDuration::parse(s).is_ok() {
        Ok(())
    } else {
        Err(ValidationError::new(
            format!("{s:?} is not a Karpenter duration."),
            "Never, or whole numbers with s, m or h such as 30s, 5m, 1h30m (the NodePool CRD pattern \
             ^(([0-9]+(s|m|h))+|Never)$)",
            NODEPOOL_CRD,
        ))
    }
}

const BUDGETS: &str = "aws/karpenter-provider-aws v1.14.1 pkg/apis/crds/karpenter.sh_nodepools.yaml \
     (spec.disruption.budgets[]), kubernetes-sigs/karpenter v1.14.1 pkg/apis/v1/nodepool.go (Budget; the schedule is \
     parsed with robfig/cron v3 ParseStandard after a TZ=UTC prefix)";

/// A budget's `nodes`: a count or a percentage up to 100% (pattern `^((100|[0-9]{1,2})%|[0-9]+)$`).
pub fn budget_nodes(s: &str) -> Validation {
    let ok = match s.strip_suffix('%') {
        Some(p) => p == "100" || (!p.is_empty() && p.len() <= 2 && p.bytes().all(|b| b.is_ascii_digit())),
        None => !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()),
    };
    if ok {
        Ok(())
    } else {
        Err(ValidationError::new(
            format!("{s:?} is not a budget's node count."),
            "a whole number of nodes such as 0 or 2, or a percentage from 0% to 100% such as 10%",
            BUDGETS,
        ))
    }
}

/// A budget's `duration`: hours and minutes only, as cron has no seconds
/// (pattern `^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$`).
pub fn budget_duration(s: &str) -> Validation {
    let body = s.strip_suffix("0s").filter(|b| !b.is_empty()).unwrap_or(s);
    let digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    let ok = match body.split_once('h') {
        Some((h, "")) => digits(h),
        Some((h, m)) => digits(h) && m.strip_suffix('m').is_some_and(digits),
        None => body.strip_suffix('m').is_some_and(digits),
    };
    if ok {
        Ok(())
    } else {
        Err(ValidationError::new(
            format!("{s:?} is not a budget duration."),
            "hours and minutes such as 30m, 8h or 1h30m (no seconds: the schedule is cron)",
            BUDGETS,
        ))
    }
}

/// A budget's `schedule`: a cron descriptor such as `@daily`, or five cron fields, in UTC.
pub fn budget_schedule(s: &str) -> Validation {
    const DESCRIPTORS: [&str; 7] = [
        "@annually",
        "@yearly",
        "@monthly",
        "@weekly",
        "@daily",
        "@midnight",
        "@hourly",
    ];
    if DESCRIPTORS.contains(&s) {
        return Ok(());
    }
    let why = if s.trim_start().starts_with("TZ=") || s.trim_start().starts_with("CRON_TZ=") {
        Err("time zones are not supported: schedules are UTC".to_owned())
    } else {
        super::scaler::five_fields(s)
    };
    why.map_err(|why| {
        ValidationError::new(
            format!("{s:?} is not a budget schedule: {why}."),
            "five cron fields (minute hour day-of-month month day-of-week, UTC) such as \"0 9 * * 1-5\", or @daily, \
             @weekly, @monthly, @yearly, @annually, @midnight, @hourly",
            BUDGETS,
        )
    })
}

#[cfg(test)]
mod tests;
