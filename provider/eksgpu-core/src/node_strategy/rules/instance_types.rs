//! A pool's instance types: accelerated types of the catalog, one accelerator vendor per
//! pool, Neuron only on EC2, whole GPUs where the cluster schedules them, and on Auto Mode the
//! families EKS documents (with the dated field observations as warnings).

use super::Context;
use crate::catalog::{self, AutoModeSupport, InstanceType, ObservedOutcome, Vendor};
use crate::model::{Capacity, NodeStrategy, Pool};
use crate::rules::{At, Code, Step, Violation};

/// A catalog type the pool may launch, with the path its violations point at: its place in
/// `instance_types`, or `requirements` for a type only the requirements match.
pub(super) struct Selected {
    pub t: &'static InstanceType,
    pub path: Vec<Step>,
}

/// Each instance type through EKSGPU016, 150, 151, 101, 154 and 009 in turn (so a pool's
/// violations stay in instance-type order); the catalog types found, for the checks that
/// follow. With `requirements`, the types they match (EKSGPU172, 173) take the listed
/// ones' place, and a type only the requirements select goes through the same rules.
pub(super) fn check(
    s: &NodeStrategy,
    pool: &Pool,
    ctx: &Context,
    at: &At<'_>,
    out: &mut Vec<Violation>,
) -> Vec<Selected> {
    let mut types = Vec::new();
    let mut first: Option<&'static InstanceType> = None;
    for (j, name) in pool.instance_types.iter().enumerate() {
        let path = at(&[Step::Attr("instance_types"), Step::Index(j)]);
        let Some(t) = accelerated_type(name, &path, out) else {
            continue;
        };
        if per_type(s, pool, ctx, &mut first, t, &path, out) {
            types.push(Selected { t, path });
        }
    }
    let Some(m) = super::requirements::matched_types(pool, at, out) else {
        return types;
    };
    let path = at(&[Step::Attr("requirements")]);
    let mut matched = Vec::new();
    for t in m.types {
        if let Some(listed) = types.iter().find(|s| s.t.name == t.name) {
            matched.push(Selected {
                t,
                path: listed.path.clone(),
            });
        } else if per_type(s, pool, ctx, &mut first, t, &path, out) {
            matched.push(Selected { t, path: path.clone() });
        }
    }
    matched
}

/// The per-type rules (EKSGPU150, 151, 101, 154, 009) on one catalog type at `path`; `false`
/// when the type is of another vendor than the pool's first (EKSGPU150), so no further rule
/// runs on it.
fn per_type(
    s: &NodeStrategy,
    pool: &Pool,
    ctx: &Context,
    first: &mut Option<&'static InstanceType>,
    t: &'static InstanceType,
    path: &[Step],
    out: &mut Vec<Violation>,
) -> bool {
    let first = *first.get_or_insert(t);
    if one_vendor(pool, first, t, path, out) {
        return false;
    }
    neuron_on_hybrid(pool, t, path, out);
    fractional_gpu(s, pool, ctx, t, path, out);
    documented_for_auto_mode(pool, t, path, out);
    observed_failing_on_auto_mode(pool, t, path, out);
    true
}

/// EKSGPU016: the type is in the catalog (NVIDIA GPU and AWS Neuron types).
fn accelerated_type(name: &str, path: &[Step], out: &mut Vec<Violation>) -> Option<&'static InstanceType> {
    let t = catalog::instance_type(name);
    if t.is_none() {
        out.push(Violation::new(
            Code::EKSGPU016,
            path.to_vec(),
            format!("{name:?} is not in the accelerator catalog."),
        ));
    }
    t
}

/// EKSGPU150: one pool, one accelerator vendor: its nodes run one vendor's stack (NVIDIA driver
/// and device plugin, or the Neuron driver and device plugin) and its taint and resource names
/// are that vendor's. `true` when `t` breaks it.
fn one_vendor(pool: &Pool, first: &InstanceType, t: &InstanceType, path: &[Step], out: &mut Vec<Violation>) -> bool {
    if t.vendor() == first.vendor() {
        return false;
    }
    out.push(Violation::new(
        Code::EKSGPU150,
        path.to_vec(),
        format!(
            "Pool {:?} mixes {} ({}) and {} ({}).",
            pool.name,
            first.name,
            first.vendor().as_str(),
            t.name,
            t.vendor().as_str()
        ),
    ));
    true
}

/// EKSGPU151: AWS Neuron devices exist only in EC2 instances; EKS Hybrid Nodes bring on-prem
/// machines, so a hybrid pool cannot be a Neuron pool.
fn neuron_on_hybrid(pool: &Pool, t: &InstanceType, path: &[Step], out: &mut Vec<Violation>) {
    if pool.capacity == Capacity::Hybrid && t.vendor() == Vendor::Neuron {
        out.push(Violation::new(
            Code::EKSGPU151,
            path.to_vec(),
            format!(
                "{} carries AWS {} devices, which exist only in EC2.",
                t.name, t.gpu_model
            ),
        ));
    }
}

/// EKSGPU101: a fractional-GPU type where the cluster schedules whole GPUs, unless the pool's
/// NodeOverlay gives it its `nvidia.com/gpu`.
fn fractional_gpu(
    s: &NodeStrategy,
    pool: &Pool,
    ctx: &Context,
    t: &InstanceType,
    path: &[Step],
    out: &mut Vec<Violation>,
) {
    if t.fractional && pool.capacity.is_in_cluster() && !super::overlay::answered_for(s, pool, t) {
        let how = if pool.capacity == Capacity::Karpenter {
            format!(" {}", super::overlay::how_to_overlay(s, pool, ctx.karpenter_version))
        } else {
            String::new()
        };
        out.push(Violation::new(
            Code::EKSGPU101,
            path.to_vec(),
            format!("{} is a fractional-GPU type.{how}", t.name),
        ));
    }
}

/// EKSGPU154: an `auto_mode` pool's family must be in the EKS user guide's table of Auto Mode
/// instance families (`catalog::AUTO_MODE_ACCELERATED_FAMILIES`, dated and cited there).
fn documented_for_auto_mode(pool: &Pool, t: &InstanceType, path: &[Step], out: &mut Vec<Violation>) {
    if pool.capacity != Capacity::AutoMode || t.auto_mode_support() == AutoModeSupport::Documented {
        return;
    }
    let mut detail = format!(
        "{} (family {}) is not in EKS Auto Mode's supported instance table (read {}); karpenter and \
         managed_node_group pools take it.",
        t.name,
        t.family(),
        catalog::AUTO_MODE_TABLE_READ
    );
    if let Some(e) = catalog::auto_mode_exclusion(t.name) {
        detail.push_str(&format!(" The EKS user guide: {} ({}).", e.says, e.source_url));
    }
    out.push(Violation::new(Code::EKSGPU154, path.to_vec(), detail));
}

/// EKSGPU009: a type observed failing to provision on Auto Mode, dated. Only where the
/// observation still says something: a type whose family the table does not document is
/// EKSGPU154's error instead.
fn observed_failing_on_auto_mode(pool: &Pool, t: &InstanceType, path: &[Step], out: &mut Vec<Violation>) {
    if pool.capacity != Capacity::AutoMode || t.auto_mode_support() != AutoModeSupport::Documented {
        return;
    }
    let Some(o) = catalog::auto_mode_observation(t.name).filter(|o| o.outcome == ObservedOutcome::FailedToProvision)
    else {
        return;
    };
    out.push(Violation::new(
        Code::EKSGPU009,
        path.to_vec(),
        format!(
            "{} was observed in {} to fail on Auto Mode ({}); EKS's table read {} lists family {}: re-validate \
             in your account and region.",
            t.name,
            o.observed,
            o.detail,
            catalog::AUTO_MODE_TABLE_READ,
            t.family()
        ),
    ));
}
