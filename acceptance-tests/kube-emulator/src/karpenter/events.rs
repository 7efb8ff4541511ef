//! The conditions and events Karpenter writes, as upstream words them. Sources (CORE =
//! kubernetes-sigs/karpenter v1.14.1, commit 6e7eab7a0f485d7225eb98995fad9b66c79b322b, the version
//! aws/karpenter-provider-aws v1.14.1 vendors; OPKG = awslabs/operatorpkg, its status library):
//! - conditions: `Launched`, `Registered`, `Initialized` and the root `Ready` (CORE
//!   `pkg/apis/v1/nodeclaim_status.go`); unset ones are Unknown `AwaitingReconciliation` /
//!   "object is awaiting reconciliation", a True one's reason is its type, Ready is Unknown
//!   `ReconcilingDependents` with the non-True dependents as message until all are True, the root
//!   is listed last (OPKG `status/condition_set.go`);
//! - a Normal event per status change, reason the type, "Status condition transitioned, …" (OPKG
//!   `status/controller.go`), recorder component `karpenter`;
//! - `Nominated` on the pod (CORE `pkg/controllers/provisioning/scheduling/events.go`
//!   `NominatePodEvent`), `FailedScheduling` on the pod and `NoCompatibleInstanceTypes` on the
//!   NodePool (same file; the text EKS Auto Mode shows too, aws/containers-roadmap#2533);
//! - `InsufficientCapacityError` on the NodeClaim, then its deletion; another launch error leaves
//!   `Launched` Unknown with the CreateError's reason and no event (CORE
//!   `pkg/controllers/nodeclaim/lifecycle/{launch,events}.go`; the reasons and texts of
//!   aws/karpenter-provider-aws v1.14.1 `pkg/providers/instance/instance.go` `combineFleetErrors`
//!   and `pkg/errors/errors.go` `ToReasonMessage`);
//! - events as client-go's recorder makes them (`tools/record/event.go` `makeEvent`: name
//!   `<object>.<hex nanoseconds>`, namespace `default` for cluster-scoped objects; identical events
//!   aggregated into one with a growing `count`).

use serde_json::{Value, json};

use super::lifecycle::claim_of;
use super::{Claim, Flavor, Kinds, Outcome, rfc3339};
use crate::kinds::KindInfo;
use crate::store::Store;

const COMPONENT: &str = "karpenter";

/// When each lifecycle step of a NodeClaim happens (ms since the epoch).
pub(super) struct Times {
    pub created: u64,
    pub steps: [u64; 3],
}

const DEPENDENTS: [&str; 3] = ["Launched", "Registered", "Initialized"];

/// `status.conditions` after `stage` steps (0 created … 3 initialized); `launch_error` is a
/// CreateError's (reason, message) on `Launched`.
pub(super) fn conditions(stage: u8, t: &Times, launch_error: Option<(&str, &str)>) -> Value {
    let mut list: Vec<(u64, Value)> = Vec::new();
    let mut unhealthy = Vec::new();
    for (i, ty) in DEPENDENTS.iter().enumerate() {
        let done = usize::from(stage) > i;
        let (at, status, reason, message) = match (done, launch_error) {
            (true, _) => (t.steps.get(i).copied().unwrap_or(t.created), "True", *ty, ""),
            (false, Some((r, m))) if i == 0 => (t.created, "Unknown", r, m),
            _ => (
                t.created,
                "Unknown",
                "AwaitingReconciliation",
                "object is awaiting reconciliation",
            ),
        };
        if !done {
            unhealthy.push((at, format!("{ty}=Unknown")));
        }
        list.push((at, condition(ty, status, reason, message, at)));
    }
    // Sorted by transition time, as OPKG lists them (stable: equal times keep the type order).
    list.sort_by_key(|(at, _)| *at);
    let mut out: Vec<Value> = list.into_iter().map(|(_, c)| c).collect();
    // The unhealthy dependents, newest transition first.
    unhealthy.sort_by_key(|(at, _)| std::cmp::Reverse(*at));
    out.push(if unhealthy.is_empty() {
        condition("Ready", "True", "Ready", "", t.steps[2])
    } else {
        let message: Vec<String> = unhealthy.into_iter().map(|(_, m)| m).collect();
        condition(
            "Ready",
            "Unknown",
            "ReconcilingDependents",
            &message.join(", "),
            t.created,
        )
    });
    Value::Array(out)
}

fn condition(ty: &str, status: &str, reason: &str, message: &str, at: u64) -> Value {
    json!({"type": ty, "status": status, "reason": reason, "message": message,
           "lastTransitionTime": rfc3339(at), "observedGeneration": 1})
}

/// CORE `truncateMessage`: at most 300 bytes and an ellipsis.
fn truncate(msg: &str) -> String {
    if msg.len() < 300 {
        return msg.to_owned();
    }
    let mut end = 300;
    while !msg.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &msg[..end])
}

/// The CreateError a failed fleet request gives (reason, message): EC2 refusing for want of
/// permissions, `ToReasonMessage`'s `Unauthorized` case.
pub(super) const LAUNCH_ERROR: (&str, &str) = (
    "Unauthorized",
    "User is not authorized to perform this operation because no identity-based policy allows it",
);

/// The NodeClaim was just created: the pod is nominated for it.
pub(super) fn created(store: &mut Store, k: &Kinds, c: &Claim, pod: &Value, now: u64) {
    let message = format!("Pod should schedule on: nodeclaim/{}", c.name);
    publish(store, &k.event, pod, &k.pod, "Normal", "Nominated", &message, now, None);
}

/// The events of lifecycle step `stage` (1 launched, 2 registered, 3 initialized).
pub(super) fn stage(store: &mut Store, k: &Kinds, c: &Claim, stage: u8, at: u64) {
    let types: &[&str] = match stage {
        1 => &["Launched"],
        2 => &["Registered"],
        _ => &["Initialized", "Ready"],
    };
    if let Some((obj, kind)) = claim_of(store, k, c) {
        for ty in types {
            let message = format!("Status condition transitioned, Type: {ty}, Status: Unknown -> True, Reason: {ty}");
            publish(store, &k.event, &obj, kind, "Normal", ty, &message, at, None);
        }
    }
}

/// The Pod bound to its node: the scheduler's event (kubernetes `pkg/scheduler/schedule_one.go`).
pub(super) fn scheduled(store: &mut Store, k: &Kinds, pod: &Value, node: &str, at: u64) {
    let message = format!(
        "Successfully assigned {}/{} to {node}",
        pod["metadata"]["namespace"].as_str().unwrap_or_default(),
        pod["metadata"]["name"].as_str().unwrap_or_default()
    );
    publish(
        store,
        &k.event,
        pod,
        &k.pod,
        "Normal",
        "Scheduled",
        &message,
        at,
        Some("default-scheduler"),
    );
}

/// A launch that fails at `at`: insufficient capacity (a Warning event; the caller deletes the
/// NodeClaim) or another error (`Launched` stays Unknown with the error's reason, no event).
pub(super) fn launch_failed(store: &mut Store, k: &Kinds, c: &Claim, outcome: Outcome, t: &Times, at: u64) {
    if outcome == Outcome::InsufficientCapacity {
        let err = format!(
            "creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient {} capacity in the Availability Zone you requested ({}). Our system will be working on provisioning additional capacity.",
            c.instance.instance_type, c.instance.zone
        );
        if let Some((obj, kind)) = claim_of(store, k, c) {
            let message = format!("NodeClaim {} event: {}", c.name, truncate(&err));
            publish(
                store,
                &k.event,
                &obj,
                kind,
                "Warning",
                "InsufficientCapacityError",
                &message,
                at,
                None,
            );
        }
    } else {
        let status = json!({"conditions": conditions(0, t, Some(LAUNCH_ERROR))});
        let _ = store.set_status(&k.claim, None, &c.name, &status);
    }
}

/// A pending pod no instance type fits, seen for the `cycles`-th time: Karpenter's scheduler
/// skips the NodePool (`NoCompatibleInstanceTypes` on it) and fails the pod (`FailedScheduling`).
/// Both flavours run this code: EKS Auto Mode reports the same NodePool event.
#[allow(clippy::too_many_arguments)]
pub(super) fn no_compatible(
    store: &mut Store,
    k: &Kinds,
    _flavor: Flavor,
    pod: &Value,
    pool: &Value,
    cycles: u64,
    first: u64,
    now: u64,
) {
    let count = Some((cycles, first));
    let message = "NodePool requirements filtered out all compatible available instance types";
    publish_counted(
        store,
        &k.event,
        pool,
        &k.pool,
        "Warning",
        "NoCompatibleInstanceTypes",
        message,
        now,
        count,
    );
    let message = "Failed to schedule pod, nodepool requirements filtered out all available instance types";
    publish_counted(
        store,
        &k.event,
        pod,
        &k.pod,
        "Warning",
        "FailedScheduling",
        message,
        now,
        count,
    );
}

#[allow(clippy::too_many_arguments)]
fn publish(
    store: &mut Store,
    events: &KindInfo,
    obj: &Value,
    kind: &KindInfo,
    ty: &str,
    reason: &str,
    message: &str,
    at: u64,
    component: Option<&str>,
) {
    let component = component.unwrap_or(COMPONENT);
    record(store, events, obj, kind, (ty, reason, message, component), at, None);
}

#[allow(clippy::too_many_arguments)]
fn publish_counted(
    store: &mut Store,
    events: &KindInfo,
    obj: &Value,
    kind: &KindInfo,
    ty: &str,
    reason: &str,
    message: &str,
    at: u64,
    count: Option<(u64, u64)>,
) {
    record(store, events, obj, kind, (ty, reason, message, COMPONENT), at, count);
}

/// Writes one event, or counts it again on the identical event already written (same object,
/// type, reason, message, source). `count`: (the count, first seen) when known instead.
fn record(
    store: &mut Store,
    events: &KindInfo,
    obj: &Value,
    kind: &KindInfo,
    (ty, reason, message, component): (&str, &str, &str, &str),
    at: u64,
    count: Option<(u64, u64)>,
) {
    let meta = &obj["metadata"];
    let name = meta["name"].as_str().unwrap_or_default();
    let ns = meta["namespace"]
        .as_str()
        .filter(|n| !n.is_empty())
        .unwrap_or("default");
    let same = store.list(events, Some(ns), "").into_iter().find(|e| {
        e["involvedObject"]["uid"] == meta["uid"]
            && e["type"] == ty
            && e["reason"] == reason
            && e["message"] == message
            && e["source"]["component"] == component
    });
    if let Some(e) = same {
        let n = match count {
            Some((n, _)) => n,
            None => e["count"].as_u64().unwrap_or(1).saturating_add(1),
        };
        if e["count"].as_u64() != Some(n) {
            let patch = json!({"count": n, "lastTimestamp": rfc3339(at)});
            let e_name = e["metadata"]["name"].as_str().unwrap_or_default();
            let _ = store.update(events, Some(ns), e_name, &patch, component);
        }
        return;
    }
    let (n, first) = count.unwrap_or((1, at));
    // Nanoseconds of `at`, made unique per event written in the same millisecond.
    let written = u128::try_from(store.list(events, None, "").len()).unwrap_or(0);
    let nanos = u128::from(at).saturating_mul(1_000_000).saturating_add(written);
    let mut involved = json!({"kind": kind.kind, "apiVersion": kind.api_version(), "name": name,
        "uid": meta["uid"], "resourceVersion": meta["resourceVersion"]});
    if kind.namespaced {
        involved["namespace"] = meta["namespace"].clone();
    }
    let body = json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("{name}.{nanos:x}"), "namespace": ns},
        "involvedObject": involved, "type": ty, "reason": reason, "message": message,
        "source": {"component": component}, "reportingComponent": component, "reportingInstance": "",
        "firstTimestamp": rfc3339(first), "lastTimestamp": rfc3339(at), "count": n});
    let _ = store.create(events, Some(ns), &body, component);
}
