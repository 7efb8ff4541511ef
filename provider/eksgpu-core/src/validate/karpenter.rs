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

/// Most labels a NodePool template carries (`spec.template.metadata.labels`: `maxProperties:
/// 100` in the v1.14.1 CRD). Kubernetes itself sets no total for labels (apimachinery
/// ValidateLabels checks each; the 256 KiB total, TotalAnnotationSizeLimitB, is for
/// annotations only).
pub const NODE_POOL_LABELS_MAX: usize = 100;

/// The number of labels on a NodePool's template.
pub fn node_pool_label_count(n: usize) -> Validation {
    if n <= NODE_POOL_LABELS_MAX {
        return Ok(());
    }
    Err(ValidationError::new(
        format!("The NodePool would carry {n} template labels; its CRD takes at most {NODE_POOL_LABELS_MAX}."),
        "at most 100 labels, counting those the provider adds (nvidia.com/gpu.deploy.*)",
        "aws/karpenter-provider-aws v1.14.1 pkg/apis/crds/karpenter.sh_nodepools.yaml \
         (spec.template.metadata.labels maxProperties: 100)",
    ))
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
/// Go's `ms`, `us` and fractions such as `1.5h` are refused), and no longer
/// than Go's `time.ParseDuration` holds (int64 nanoseconds: 2562047h47m16s),
/// which Karpenter decodes the field with (kubernetes-sigs/karpenter v1.14.1
/// pkg/apis/v1/duration.go, NillableDuration.UnmarshalJSON).
pub fn karpenter_duration(s: &str) -> Validation {
    use crate::duration::{DurationError, KarpenterDuration};
    match KarpenterDuration::parse(s) {
        Ok(_) => Ok(()),
        Err(DurationError::Form(_)) => Err(ValidationError::new(
            format!("{s:?} is not a Karpenter duration."),
            "Never, or whole numbers with s, m or h such as 30s, 5m, 1h30m (the NodePool CRD pattern \
             ^(([0-9]+(s|m|h))+|Never)$)",
            NODEPOOL_CRD,
        )),
        Err(DurationError::Range(_)) => Err(out_of_go_range(s, DURATIONS)),
    }
}

const DURATIONS: &str = "aws/karpenter-provider-aws v1.14.1 pkg/apis/crds/karpenter.sh_nodepools.yaml (pattern); \
     kubernetes-sigs/karpenter v1.14.1 pkg/apis/v1/duration.go (time.ParseDuration); Go src/time/format.go \
     ParseDuration (int64 nanoseconds, at most 2562047h47m16.854775807s)";

fn out_of_go_range(s: &str, source: &'static str) -> ValidationError {
    ValidationError::new(
        format!(
            "{s:?} matches the CRD pattern, but is longer than Go's time.Duration holds, so Karpenter cannot \
             decode the NodePool."
        ),
        "at most 2562047h47m16s (about 292 years), counting every part of the sum",
        source,
    )
}

const BUDGETS: &str = "aws/karpenter-provider-aws v1.14.1 pkg/apis/crds/karpenter.sh_nodepools.yaml \
     (spec.disruption.budgets[]), kubernetes-sigs/karpenter v1.14.1 pkg/apis/v1/nodepool.go (Budget; the schedule is \
     parsed with robfig/cron v3.0.1 ParseStandard after a TZ=UTC prefix; the duration with time.ParseDuration)";

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
/// (pattern `^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$`), within Go's
/// `time.Duration` range (Karpenter decodes it as a `metav1.Duration`, with
/// `time.ParseDuration`).
pub fn budget_duration(s: &str) -> Validation {
    let body = s.strip_suffix("0s").filter(|b| !b.is_empty()).unwrap_or(s);
    let digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    let ok = match body.split_once('h') {
        Some((h, "")) => digits(h),
        Some((h, m)) => digits(h) && m.strip_suffix('m').is_some_and(digits),
        None => body.strip_suffix('m').is_some_and(digits),
    };
    if !ok {
        return Err(ValidationError::new(
            format!("{s:?} is not a budget duration."),
            "hours and minutes such as 30m, 8h or 1h30m (no seconds: the schedule is cron)",
            BUDGETS,
        ));
    }
    crate::duration::go::parse_duration(s)
        .map(|_| ())
        .map_err(|_| out_of_go_range(s, BUDGETS))
}

/// The budget schedule pattern of the NodePool CRD, exactly as the API
/// server applies it: kube-openapi's `Pattern` check runs Go's `regexp`
/// (RE2), unanchored except where the pattern anchors it.
const SCHEDULE_PATTERN: &str =
    r"^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$";

/// Whether RE2 matches [`SCHEDULE_PATTERN`] in `s`. The alternation binds
/// looser than the anchors: either `s` starts with a descriptor (anything may
/// follow), or `s` ends with five runs of characters other than `\n` joined
/// by single `\s` characters. RE2's `\s` is ASCII `[\t\n\f\r ]` (no `\v`, no
/// Unicode spaces such as U+2028); its `.` is any character but `\n`; its `$`
/// (without the `m` flag) is the end of the text only, not before a final `\n`.
pub(crate) fn matches_schedule_pattern(s: &str) -> bool {
    const WORDS: [&str; 7] = ["annually", "yearly", "monthly", "weekly", "daily", "midnight", "hourly"];
    if s.strip_prefix('@')
        .is_some_and(|r| WORDS.iter().any(|w| r.starts_with(w)))
    {
        return true;
    }
    let is_space = |c: char| matches!(c, '\t' | '\n' | '\x0c' | '\r' | ' ');
    // A Thompson simulation of `(.+)\s(.+)\s(.+)\s(.+)\s(.+)$`, started at every
    // position: `run[k]` is "inside the k-th run, one character or more read",
    // `gap[k]` is "the separator before run k read, its first character not yet".
    let (mut run, mut gap) = ([false; 5], [false; 5]);
    for c in s.chars() {
        let dot = c != '\n';
        let (mut next_run, mut next_gap) = ([false; 5], [false; 5]);
        next_run[0] = dot;
        for k in 0..5 {
            next_run[k] |= dot && (run[k] || gap[k]);
            if k > 0 {
                next_gap[k] = run[k - 1] && is_space(c);
            }
        }
        (run, gap) = (next_run, next_gap);
    }
    run[4]
}

/// A budget's `schedule`, accepted only if both systems that read it accept
/// it: the API server (the CRD pattern under RE2, [`matches_schedule_pattern`])
/// and Karpenter, which parses `"TZ=UTC " + schedule` with robfig/cron v3.0.1
/// `ParseStandard` (five fields or a descriptor, after trimming white space)
/// and otherwise fails the budget with "invariant violated, invalid cron".
/// So a trailing newline after five fields, or U+2028 as a separator, is
/// refused (RE2's `$` and `\s`), while `@daily` followed by spaces is taken (the
/// pattern only anchors the descriptor's start; cron trims).
pub fn budget_schedule(s: &str) -> Validation {
    let err = |why: String| {
        Err(ValidationError::new(
            format!("{s:?} is not a budget schedule: {why}."),
            "five cron fields (minute hour day-of-month month day-of-week, UTC) separated by spaces, such as \
             \"0 9 * * 1-5\", or @daily, @weekly, @monthly, @yearly, @annually, @midnight, @hourly",
            BUDGETS,
        ))
    };
    if s.trim_start().starts_with("TZ=") || s.trim_start().starts_with("CRON_TZ=") {
        return err("time zones are not supported: schedules are UTC".to_owned());
    }
    if !matches_schedule_pattern(s) {
        return err(format!(
            "the API server refuses it (NodePool CRD pattern {SCHEDULE_PATTERN}, Go regexp: \\s is one of tab, \
             newline, form feed, carriage return or space, and $ is the end of the text)"
        ));
    }
    super::cron::parse(&format!("TZ=UTC {s}"), true)
        .or_else(|why| err(format!("Karpenter's cron parser refuses it: {why}")))
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod label_count_tests {
    use super::*;
    use crate::validate::{crd_node, vendored_crd};

    #[test]
    fn the_limit_is_the_crds() {
        let crd = vendored_crd("karpenter.sh_nodepools.yaml");
        let node = crd_node(
            &crd,
            "/properties/spec/properties/template/properties/metadata/properties/labels",
        );
        assert_eq!(node["maxProperties"].as_u64(), Some(NODE_POOL_LABELS_MAX as u64));
        assert!(node_pool_label_count(100).is_ok());
        assert!(node_pool_label_count(101).is_err());
    }
}
