//! Checks of a capacity probe (offline): what it launches must be an accelerated type a pod can
//! request one device of, through a node class it can name, and the plan says what it costs.

use super::{Probe, ProbeCapacity};
use crate::catalog::{self, AutoModeSupport};
use crate::rules::{Code, Step, Violation};

pub fn check_probe(p: &Probe) -> Vec<Violation> {
    let mut out = Vec::new();
    instance_types(p, &mut out);
    node_class(p, &mut out);
    capacity_blocks(p, &mut out);
    auto_mode_table(p, &mut out);
    out.push(Violation::new(
        Code::EKSGPU361,
        vec![Step::Attr("instance_types")],
        super::cost(p),
    ));
    out
}

fn at_type(i: usize) -> Vec<Step> {
    vec![Step::Attr("instance_types"), Step::Index(i)]
}

/// EKSGPU016 (a type the catalog does not know, or without accelerators) and EKSGPU362 (two
/// vendors: the pod requests one resource, `nvidia.com/gpu` or `aws.amazon.com/neuron`).
fn instance_types(p: &Probe, out: &mut Vec<Violation>) {
    let mut first_vendor = None;
    for (i, name) in p.instance_types.iter().enumerate() {
        let Some(t) = catalog::instance_type(name).filter(|t| t.is_accelerated()) else {
            out.push(Violation::new(
                Code::EKSGPU016,
                at_type(i),
                format!(
                    "{name:?} is not an accelerated instance type the catalog knows: a probe launches one to prove it."
                ),
            ));
            continue;
        };
        match first_vendor {
            None => first_vendor = Some((t.vendor(), name)),
            Some((v, first)) if v != t.vendor() => out.push(Violation::new(
                Code::EKSGPU362,
                at_type(i),
                format!(
                    "{name} carries {} accelerators and {first} {}: the probe's pod requests one device of one \
                     resource ({} or {}), so one probe tests one vendor.",
                    t.vendor().as_str(),
                    v.as_str(),
                    v.device_resource(),
                    t.vendor().device_resource()
                ),
            )),
            Some(_) => {}
        }
    }
}

/// EKSGPU363: a `karpenter` NodePool needs an EC2NodeClass to name (Karpenter has no default one).
fn node_class(p: &Probe, out: &mut Vec<Violation>) {
    if p.capacity == ProbeCapacity::Karpenter && p.node_class.is_none() {
        out.push(Violation::new(
            Code::EKSGPU363,
            vec![Step::Attr("node_class")],
            "A `karpenter` probe launches through an existing EC2NodeClass: set `node_class` to its name (a \
             pool's node class, e.g. the pool's name)."
                .into(),
        ));
    }
}

/// EKSGPU365: a type sold only through Capacity Blocks for ML launches only as `reserved`.
fn capacity_blocks(p: &Probe, out: &mut Vec<Violation>) {
    if p.capacity_types.iter().any(|c| c == "reserved") {
        return;
    }
    for (i, name) in p.instance_types.iter().enumerate() {
        if catalog::capacity_block_only(name) {
            out.push(Violation::new(
                Code::EKSGPU365,
                at_type(i),
                format!(
                    "{name} comes only through Capacity Blocks for ML, which Karpenter launches as capacity type \
                     `reserved`; with {:?} the probe can only time out.",
                    p.capacity_types
                ),
            ));
        }
    }
}

/// EKSGPU364: an Auto Mode probe of a family the Auto Mode instance table does not list: expect
/// `no_compatible_instance_types` (a warning: proving exactly that may be the point).
fn auto_mode_table(p: &Probe, out: &mut Vec<Violation>) {
    if p.capacity != ProbeCapacity::AutoMode {
        return;
    }
    for (i, name) in p.instance_types.iter().enumerate() {
        if catalog::instance_type(name).is_some() && catalog::auto_mode_supports(name) == AutoModeSupport::NotDocumented
        {
            out.push(Violation::new(
                Code::EKSGPU364,
                at_type(i),
                format!(
                    "The EKS Auto Mode instance table does not list the {} family: the probe will most likely end \
                     `no_compatible_instance_types`.",
                    catalog::instance_family(name)
                ),
            ));
        }
    }
}
