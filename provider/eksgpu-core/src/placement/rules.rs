//! The rules of `eksgpu_workload_placement` (EKSGPU193–197), one function each, on the data
//! source's attribute paths.

use crate::catalog::{self, MigProfileName};
use crate::placement::{Request, consolidates, one_node};
use crate::rules::{Code, Step, Violation};
use crate::sharing::Strategy;

fn at(attr: &'static str) -> Vec<Step> {
    vec![Step::Attr(attr)]
}

/// Every finding of the rules on `r`.
pub fn check(r: &Request) -> Vec<Violation> {
    let mut out = Vec::new();
    out.extend(unservable(r));
    // A request the devices cannot serve says everything; the count and the share come after.
    if out.is_empty() {
        out.extend(more_than_a_node(r));
        out.extend(share_not_offered(r));
    }
    out.extend(claim_elsewhere(r));
    out.extend(alone_on_consolidating(r));
    out
}

/// The most one node of the pool has, of what a replica asks for, and the type that has it.
fn per_node(r: &Request) -> Option<(i64, String, &'static str)> {
    let n = r.accelerators_per_replica;
    let cores = r.neuron_cores_per_replica.filter(|_| n == 0);
    r.pool
        .instance_types
        .iter()
        .filter_map(|t| catalog::instance_type(t))
        .filter_map(|t| {
            let gpus = i64::from(t.gpu_count);
            let (count, what) = match (&r.share, cores) {
                (_, Some(_)) if r.pool.neuron => (i64::from(t.neuron_cores.unwrap_or(0)), "NeuronCores"),
                (None, _) => (gpus, if r.pool.neuron { "Neuron devices" } else { "GPUs" }),
                (Some(s), _) => match s.strategy {
                    Strategy::TimeSlicing | Strategy::Mps => {
                        (gpus.saturating_mul(s.shares_per_gpu.unwrap_or(1)), "shares")
                    }
                    Strategy::Hami => (gpus, "GPUs (HAMi gives a task one slice of each)"),
                    // A layout the catalog cannot see into (a custom mig-parted config) is not counted.
                    Strategy::Mig => match mig_per_gpu(s, t) {
                        Some(c) => (gpus.saturating_mul(c), "MIG instances of the profile"),
                        None => return None,
                    },
                    _ => (gpus, "GPUs"),
                },
            };
            Some((count, t.name.to_owned(), what))
        })
        .max_by_key(|(c, _, _)| *c)
}

/// MIG instances of the share's profile per GPU of `t`: the profile its resource names (under
/// `mixed`; under `single` the one profile of its layout), counted from the sharing pool's
/// `profiles`, or its `config` (`all-<profile>`: as many as fit, `all-balanced`: the balanced
/// layout's).
fn mig_per_gpu(s: &crate::placement::ShareFacts, t: &catalog::InstanceType) -> Option<i64> {
    let from_key = s
        .resource_requests
        .keys()
        .find_map(|k| k.strip_prefix("nvidia.com/mig-"))
        .and_then(MigProfileName::parse);
    let config = s.mig_config.as_deref().map(catalog::MigLayout::parse);
    let profile = from_key
        .or_else(|| match &config {
            Some(catalog::MigLayout::All(p)) => Some(p.clone()),
            _ => None,
        })
        .or_else(|| s.mig_profiles.keys().find_map(|p| MigProfileName::parse(p)))?;
    let same = |name: &str| MigProfileName::parse(name).is_some_and(|q| q == profile);
    if let Some((_, c)) = s.mig_profiles.iter().find(|(p, _)| same(p)) {
        return Some(*c);
    }
    let gpu = t.mig?;
    match config? {
        catalog::MigLayout::Balanced => gpu.balanced.iter().find(|(p, _)| same(p)).map(|(_, c)| i64::from(*c)),
        _ => gpu
            .profiles
            .iter()
            .find(|p| same(p.name))
            .map(|p| i64::from(p.max_instances)),
    }
}

/// EKSGPU193: a replica needs more than the largest node of the pool has.
pub fn more_than_a_node(r: &Request) -> Vec<Violation> {
    let asked = r
        .neuron_cores_per_replica
        .filter(|_| r.accelerators_per_replica == 0 && r.pool.neuron);
    let (asked, attr) = match asked {
        Some(c) => (c, "neuron_cores_per_replica"),
        None => (r.accelerators_per_replica, "accelerators_per_replica"),
    };
    let dra_count = r
        .share
        .as_ref()
        .filter(|s| s.strategy == Strategy::Dra)
        .and_then(|s| s.dra_count);
    let Some((most, t, what)) = per_node(r) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(c) = dra_count {
        if c > most {
            out.push(Violation::new(
                Code::EKSGPU193,
                at("sharing_pool"),
                format!(
                    "The sharing pool's claim allocates {c} GPUs, and the largest node the pool may launch ({t}) has {most}: a claim is allocated on one node."
                ),
            ));
        }
        return out;
    }
    if asked > most {
        out.push(Violation::new(
            Code::EKSGPU193,
            at(attr),
            format!(
                "Each replica asks for {asked}, and the largest node the pool may launch ({t}) has {most} {what}: the pods would stay Pending."
            ),
        ));
    }
    out
}

/// EKSGPU194: the pool does not offer the sharing pool's share.
pub fn share_not_offered(r: &Request) -> Vec<Violation> {
    let Some(s) = &r.share else { return Vec::new() };
    let missing: Vec<String> = s
        .node_labels
        .iter()
        .filter(|(k, v)| r.pool.labels.get(*k) != Some(*v))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    let why = if r.pool.neuron {
        Some("the pool's nodes carry AWS Neuron devices, which no GPU sharing pool shares".to_owned())
    } else if s.strategy == Strategy::Dra && !r.pool.dra {
        Some("a DRA sharing pool needs a pool with `dra = true` (the DRA driver's kubelet plugin runs on its nodes only)".to_owned())
    } else if !missing.is_empty() {
        Some(format!("the pool's labels lack {}", missing.join(", ")))
    } else {
        None
    };
    why.map(|why| {
        Violation::new(
            Code::EKSGPU194,
            at("sharing_pool"),
            format!(
                "Sharing pool {:?} ({}) is not offered on this pool: {why}.",
                s.name,
                s.strategy.as_str()
            ),
        )
    })
    .into_iter()
    .collect()
}

/// EKSGPU195: a claim the pods would name lives in another namespace.
pub fn claim_elsewhere(r: &Request) -> Vec<Violation> {
    let mut out = Vec::new();
    if let Some(s) = &r.share
        && s.strategy == Strategy::Dra
        && let Some(ns) = &s.dra_namespace
        && *ns != r.namespace
    {
        out.push(Violation::new(
            Code::EKSGPU195,
            at("namespace"),
            format!(
                "The sharing pool's ResourceClaim {:?} is in namespace {ns:?}, and the pods are in {:?}.",
                s.resource_claim_name.as_deref().unwrap_or(&s.name),
                r.namespace
            ),
        ));
    }
    if r.pool.multi_node_nvlink
        && let Some(ns) = &r.pool.compute_domain_namespace
        && *ns != r.namespace
    {
        out.push(Violation::new(
            Code::EKSGPU195,
            at("namespace"),
            format!(
                "The pool's ComputeDomain channel template {:?} is in namespace {ns:?}, and the pods are in {:?}.",
                r.pool.compute_domain_claim_template.as_deref().unwrap_or_default(),
                r.namespace
            ),
        ));
    }
    out
}

/// EKSGPU196: one replica (or replicas one claim keeps on one node) on a pool that consolidates.
pub fn alone_on_consolidating(r: &Request) -> Vec<Violation> {
    if !consolidates(&r.pool) || (r.replicas >= 2 && !one_node(r)) {
        return Vec::new();
    }
    let what = if r.replicas < 2 {
        "One replica".to_owned()
    } else {
        format!("{} replicas sharing one ResourceClaim (one node)", r.replicas)
    };
    let lb = if r.load_balanced {
        " Behind the load balancer the service answers 503 until the pod is back."
    } else {
        ""
    };
    vec![Violation::new(
        Code::EKSGPU196,
        at("replicas"),
        format!(
            "{what} on a pool that consolidates underutilized nodes: `pod_annotations` carries `{}: \"true\"`, which keeps the pod and its node from consolidation and drift while it runs.{lb}",
            crate::placement::DO_NOT_DISRUPT
        ),
    )]
}

/// EKSGPU197: a request the pool's devices cannot serve.
pub fn unservable(r: &Request) -> Vec<Violation> {
    let p = &r.pool;
    let dra_share = r.share.as_ref().is_some_and(|s| s.strategy == Strategy::Dra);
    let why: Option<(&'static str, String)> = if r.neuron_cores_per_replica.is_some() && !p.neuron {
        Some((
            "neuron_cores_per_replica",
            "NeuronCores asked for on a pool of NVIDIA GPUs".into(),
        ))
    } else if p.neuron && r.neuron_cores_per_replica.is_some() && r.accelerators_per_replica > 0 {
        Some((
            "neuron_cores_per_replica",
            "both Neuron devices and NeuronCores asked for (a device comes with all its cores): set `accelerators_per_replica = 0` to ask for cores".into(),
        ))
    } else if p.neuron && p.dra {
        Some((
            "pool",
            "a `dra = true` Neuron pool: the Neuron DRA driver's claims are not rendered here".into(),
        ))
    } else if !p.neuron && p.dra && !p.multi_node_nvlink && !dra_share {
        Some((
            "sharing_pool",
            "the pool's GPUs are reached only through DRA claims (`dra = true`), and no DRA sharing pool is given"
                .into(),
        ))
    } else if let Some(s) = r
        .share
        .as_ref()
        .filter(|s| s.one_share_only && r.accelerators_per_replica > 1)
    {
        Some((
            "accelerators_per_replica",
            format!(
                "{} shares of sharing pool {:?}, whose device plugin refuses more than one per container ({})",
                r.accelerators_per_replica,
                s.name,
                if s.strategy == Strategy::Mps {
                    "MPS"
                } else {
                    "`fail_requests_greater_than_one`"
                }
            ),
        ))
    } else if r.accelerators_per_replica == 0 && r.neuron_cores_per_replica.is_none() && !dra_share {
        Some(("accelerators_per_replica", "no accelerator asked for".into()))
    } else {
        None
    };
    why.map(|(attr, why)| {
        Violation::new(
            Code::EKSGPU197,
            at(attr),
            format!("The request cannot be served: {why}."),
        )
    })
    .into_iter()
    .collect()
}
