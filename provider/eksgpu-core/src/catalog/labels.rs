//! Which catalog instance types a set of NodePool requirements admits: Karpenter's well-known
//! instance-type labels as catalog columns, and the node-selector operators over them. Pure;
//! the rules run on what it returns and a pool's `matched_instance_types` output shows it.
//!
//! Label values are the ones Karpenter computes for an instance type
//! (aws/karpenter-provider-aws v1.14.1 `pkg/providers/instancetype/types.go`,
//! `computeRequirements`; label names in `pkg/apis/v1/labels.go`): category and generation
//! from the type name's scheme (`^([a-z]+)(-[0-9]+tb)?([0-9]+)`: `p6-b200` is category `p`,
//! generation 6; `gr6` is category `gr`), the family before the dot, the size after it, GPU
//! and accelerator names and manufacturers in lower kebab case, GPU memory per GPU in MiB,
//! memory in MiB. NVIDIA types carry the `instance-gpu-*` labels, Neuron types the
//! `instance-accelerator-*` ones; a type without a label does not match `In`, `Exists`, `Gt` …
//! on it (Kubernetes node-selector semantics, `k8s.io/component-helpers` `nodeaffinity`).
//!
//! Labels the catalog has no column for (zone, capacity type, hypervisor, bandwidths, local
//! NVMe, custom labels) do not narrow the match: Karpenter may still launch every type they
//! leave, so the rules check all of them.

use super::{Arch, InstanceType, Vendor, instance_family, instance_types};

/// The requirement operators of the NodePool CRD (v1.14.1 enum).
pub const REQUIREMENT_OPERATORS: [&str; 8] = ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"];

/// One requirement as the matcher reads it (the model's `Requirement` without ownership).
#[derive(Debug, Clone, Copy)]
pub struct Selector<'a> {
    pub key: &'a str,
    pub operator: &'a str,
    pub values: &'a [String],
}

/// What an instance type's label is, as far as the catalog knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LabelValue {
    /// The type carries the label with this value.
    Is(String),
    /// The type does not carry the label (a GPU label on a Neuron type).
    Absent,
    /// The catalog cannot tell: the requirement does not narrow the match.
    Unknown,
}

/// The part of a type name Karpenter's scheme reads: `(category, generation)`.
fn scheme(name: &str) -> Option<(&str, &str)> {
    let family = instance_family(name);
    let category_end = family.find(|c: char| !c.is_ascii_lowercase())?;
    let (category, rest) = family.split_at(category_end);
    // An optional `-<n>tb` (u-6tb1) before the generation digits.
    let rest = match rest.strip_prefix('-') {
        Some(r)
            if r.split_once("tb")
                .is_some_and(|(n, _)| n.bytes().all(|b| b.is_ascii_digit())) =>
        {
            r.split_once("tb").map_or(rest, |(_, after)| after)
        }
        _ => rest,
    };
    let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    (digits > 0 && !category.is_empty()).then(|| (category, &rest[..digits]))
}

/// Karpenter's `lowerKabobCase`: lower case, spaces as dashes.
fn kebab(s: &str) -> String {
    s.to_ascii_lowercase().replace(' ', "-")
}

/// The value of the well-known label `key` on `t`.
pub fn label(t: &InstanceType, key: &str) -> LabelValue {
    use LabelValue::{Absent, Is, Unknown};
    let nvidia = t.vendor == Vendor::Nvidia;
    let gpu = |v: String| if nvidia { Is(v) } else { Absent };
    let accelerator = |v: String| if nvidia { Absent } else { Is(v) };
    match key {
        "node.kubernetes.io/instance-type" | "beta.kubernetes.io/instance-type" => Is(t.name.to_owned()),
        "kubernetes.io/arch" | "beta.kubernetes.io/arch" => Is(match t.architecture {
            Arch::X86_64 => "amd64".into(),
            Arch::Arm64 => "arm64".into(),
        }),
        "karpenter.k8s.aws/instance-family" => Is(t.family().to_owned()),
        "karpenter.k8s.aws/instance-category" => scheme(t.name).map_or(Unknown, |(c, _)| Is(c.to_owned())),
        "karpenter.k8s.aws/instance-generation" => scheme(t.name).map_or(Unknown, |(_, g)| Is(g.to_owned())),
        "karpenter.k8s.aws/instance-size" => t.name.split_once('.').map_or(Unknown, |(_, s)| Is(s.to_owned())),
        "karpenter.k8s.aws/instance-cpu" => Is(t.vcpus.to_string()),
        // EC2 reports MiB; the catalog keeps whole GiB.
        "karpenter.k8s.aws/instance-memory" => Is((u64::from(t.memory_gib) * 1024).to_string()),
        "karpenter.k8s.aws/instance-gpu-name" => gpu(kebab(t.gpu_model)),
        "karpenter.k8s.aws/instance-gpu-manufacturer" => gpu("nvidia".into()),
        // A fractional GPU (g6f) is a slice EC2 counts its own way; the catalog keeps 0.
        "karpenter.k8s.aws/instance-gpu-count" if t.fractional => Unknown,
        "karpenter.k8s.aws/instance-gpu-count" => gpu(t.gpu_count.to_string()),
        "karpenter.k8s.aws/instance-gpu-memory" => match t.gpu_memory_mib {
            Some(m) => gpu(m.to_string()),
            None if nvidia => Unknown,
            None => Absent,
        },
        // Karpenter names Neuron devices from EC2's accelerator info, whose spelling the catalog does
        // not record (trn1 was hard-coded as `inferentia` in older releases): not narrowed.
        "karpenter.k8s.aws/instance-accelerator-name" if nvidia => Absent,
        "karpenter.k8s.aws/instance-accelerator-name" => Unknown,
        "karpenter.k8s.aws/instance-accelerator-manufacturer" => accelerator("aws".into()),
        "karpenter.k8s.aws/instance-accelerator-count" => accelerator(t.gpu_count.to_string()),
        _ => Unknown,
    }
}

/// Whether `t` satisfies `r` (`None`: the catalog cannot tell, so Karpenter may launch it).
pub fn admits(t: &InstanceType, r: Selector<'_>) -> Option<bool> {
    let v = label(t, r.key);
    if v == LabelValue::Unknown {
        return None;
    }
    let number = |s: &str| s.parse::<i64>().ok();
    let bound = r.values.first().and_then(|b| number(b));
    let value = match &v {
        LabelValue::Is(s) => Some(s.as_str()),
        _ => None,
    };
    let cmp = |f: fn(i64, i64) -> bool| match (value.and_then(number), bound) {
        (Some(x), Some(b)) => f(x, b),
        _ => false,
    };
    Some(match r.operator {
        "In" => value.is_some_and(|s| r.values.iter().any(|x| x == s)),
        "NotIn" => value.is_none_or(|s| !r.values.iter().any(|x| x == s)),
        "Exists" => value.is_some(),
        "DoesNotExist" => value.is_none(),
        "Gt" => cmp(|x, b| x > b),
        "Lt" => cmp(|x, b| x < b),
        "Gte" => cmp(|x, b| x >= b),
        "Lte" => cmp(|x, b| x <= b),
        _ => false,
    })
}

/// Whether `t` satisfies every requirement (unknown labels admit it).
pub fn admits_all(t: &InstanceType, rs: &[Selector<'_>]) -> bool {
    rs.iter().all(|r| admits(t, *r) != Some(false))
}

/// The catalog types `rs` admit, in catalog order.
pub fn matching(rs: &[Selector<'_>]) -> Vec<&'static InstanceType> {
    instance_types().iter().filter(|t| admits_all(t, rs)).collect()
}

/// Whether one requirement alone keeps every type it admits inside the catalog's accelerated
/// types, so Karpenter cannot pick a type without accelerators for the pool: a positive
/// requirement on a GPU or accelerator label (types without accelerators lack it), or an `In`
/// on instance types or families the catalog lists, or on accelerated categories.
pub fn confines_to_accelerators(r: Selector<'_>) -> bool {
    const ACCELERATOR_LABELS: [&str; 7] = [
        "karpenter.k8s.aws/instance-gpu-name",
        "karpenter.k8s.aws/instance-gpu-manufacturer",
        "karpenter.k8s.aws/instance-gpu-count",
        "karpenter.k8s.aws/instance-gpu-memory",
        "karpenter.k8s.aws/instance-accelerator-name",
        "karpenter.k8s.aws/instance-accelerator-manufacturer",
        "karpenter.k8s.aws/instance-accelerator-count",
    ];
    // The accelerated computing categories of the EC2 naming scheme (EC2 instance types guide,
    // "Instance type naming conventions": p, g, gr, inf, trn, dl).
    const ACCELERATED_CATEGORIES: [&str; 6] = ["p", "g", "gr", "inf", "trn", "dl"];
    let listed = |f: fn(&str) -> bool| !r.values.is_empty() && r.values.iter().all(|v| f(v));
    match (r.key, r.operator) {
        (k, "Exists" | "In") if ACCELERATOR_LABELS.contains(&k) => r.operator == "Exists" || !r.values.is_empty(),
        (k, "Gt" | "Gte" | "Lt" | "Lte") if ACCELERATOR_LABELS.contains(&k) => true,
        ("node.kubernetes.io/instance-type", "In") => listed(|v| super::instance_type(v).is_some()),
        ("karpenter.k8s.aws/instance-family", "In") => listed(|v| instance_types().iter().any(|t| t.family() == v)),
        ("karpenter.k8s.aws/instance-category", "In") => listed(|v| ACCELERATED_CATEGORIES.contains(&v)),
        _ => false,
    }
}

#[cfg(test)]
mod tests;
