//! What the NodeClaims of the probe's NodePool and the events about them and the pod say.
//!
//! NodeClaim conditions and reasons: kubernetes-sigs/karpenter (as vendored by
//! aws/karpenter-provider-aws v1.14.1) `pkg/apis/v1/nodeclaim_status.go` and
//! `pkg/controllers/nodeclaim/lifecycle/{launch,registration,initialization}.go`; events:
//! `pkg/controllers/nodeclaim/lifecycle/events.go` and
//! `pkg/controllers/provisioning/scheduling/events.go`. `NoCompatibleInstanceTypes` is the event
//! EKS Auto Mode emits when the NodePool's requirements leave no instance type it can launch
//! (aws/containers-roadmap#2533).

use serde_json::Value;

use super::{Probe, ProbeCapacity};
use crate::rules::Code;

/// How a probe ended (`result`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeResult {
    /// A node of one of the types launched, registered and initialized.
    Provisioned,
    /// No listed type can be launched through this NodePool (Auto Mode's
    /// `NoCompatibleInstanceTypes`, Karpenter's "no instance type satisfied").
    NoCompatibleInstanceTypes,
    /// EC2 had no capacity of the types in the zones (Karpenter's InsufficientCapacityError).
    InsufficientCapacity,
    /// No ready node within `timeout`, nor any failure that says why.
    Timeout,
    /// The launch failed for another reason (the message says which).
    Failed,
}

impl ProbeResult {
    pub const ALL: [&'static str; 5] = [
        "provisioned",
        "no_compatible_instance_types",
        "insufficient_capacity",
        "timeout",
        "failed",
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ProbeResult::Provisioned => "provisioned",
            ProbeResult::NoCompatibleInstanceTypes => "no_compatible_instance_types",
            ProbeResult::InsufficientCapacity => "insufficient_capacity",
            ProbeResult::Timeout => "timeout",
            ProbeResult::Failed => "failed",
        }
    }
}

/// The outcome of a finished probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub result: ProbeResult,
    /// The type and zone launched (from the NodeClaim's labels), when one was.
    pub instance_type: Option<String>,
    pub zone: Option<String>,
    /// The condition's or event's message that decided it.
    pub message: String,
}

/// A failure Karpenter retries, kept for the timeout's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub result: ProbeResult,
    pub message: String,
}

/// What one look at the cluster shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Observation {
    /// Nothing decided yet; `status` is the latest word, for a timeout's message.
    Waiting {
        status: String,
        /// A failure seen that Karpenter retries (a launch error, or insufficient capacity of one
        /// offering among several): the result if the time runs out.
        failure: Option<Failure>,
    },
    Done(Outcome),
}

fn text<'a>(v: &'a Value, path: &[&str]) -> &'a str {
    path.iter().fold(v, |v, k| &v[*k]).as_str().unwrap_or_default()
}

fn condition<'a>(claim: &'a Value, kind: &str) -> Option<&'a Value> {
    claim["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == kind)
}

fn label(claim: &Value, key: &str) -> Option<String> {
    claim["metadata"]["labels"][key].as_str().map(str::to_owned)
}

fn done(result: ProbeResult, claim: Option<&Value>, message: String) -> Observation {
    Observation::Done(Outcome {
        result,
        instance_type: claim.and_then(|c| label(c, "node.kubernetes.io/instance-type")),
        zone: claim.and_then(|c| label(c, "topology.kubernetes.io/zone")),
        message,
    })
}

/// The objects one look at the cluster found. Events are those about the pod and the NodePool
/// (matched by UID, so a former probe of the same name does not count) and about NodeClaims
/// named `<nodepool>-…` that were not there before the probe began (`events_before`: their
/// UIDs; the NodeClaim may be gone by the time its event is read, as after an
/// InsufficientCapacityError).
#[derive(Debug, Clone, Copy)]
pub struct Watched<'a> {
    pub node_pool: &'a Value,
    pub pod: &'a Value,
    pub claims: &'a [Value],
    pub events: &'a [Value],
    pub events_before: &'a [String],
    /// One instance type in one zone: an InsufficientCapacityError leaves Karpenter nothing else
    /// to try, so it decides; with more offerings Karpenter deletes the claim and tries another.
    pub single_offering: bool,
}

fn uid_of(o: &Value) -> Option<&str> {
    o["metadata"]["uid"].as_str().filter(|u| !u.is_empty())
}

impl Watched<'_> {
    fn relevant(&self, e: &Value) -> bool {
        let about = &e["involvedObject"];
        let uid = about["uid"].as_str().unwrap_or_default();
        if uid_of(self.pod) == Some(uid) || uid_of(self.node_pool) == Some(uid) {
            return true;
        }
        about["kind"] == "NodeClaim"
            && is_claim_of(
                text(e, &["involvedObject", "name"]),
                text(self.node_pool, &["metadata", "name"]),
            )
            && !self.events_before.iter().any(|b| b == text(e, &["metadata", "uid"]))
    }
}

/// Whether `claim` is a name Karpenter generates for a NodeClaim of NodePool `pool`: the pool's
/// name, `-` and the API server's five generated characters (CORE `nodeclaimtemplate.go`
/// `GenerateName: <nodepool>-`; k8s.io/apiserver `names.SimpleNameGenerator`, five of
/// `bcdfghjklmnpqrstvwxz2456789`). A probe `a` is not a probe `a-b`'s.
pub fn is_claim_of(claim: &str, pool: &str) -> bool {
    claim
        .strip_prefix(pool)
        .and_then(|rest| rest.strip_prefix('-'))
        .is_some_and(|suffix| suffix.len() == 5 && suffix.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
}

/// Event reasons that decide a result, and that result.
fn event_result(e: &Value) -> Option<ProbeResult> {
    let reason = text(e, &["reason"]);
    let message = text(e, &["message"]);
    let from_karpenter =
        text(e, &["source", "component"]) == "karpenter" || text(e, &["reportingComponent"]) == "karpenter";
    match reason {
        // scheduling/events.go NoCompatibleInstanceTypes, on the NodePool.
        "NoCompatibleInstanceTypes" => Some(ProbeResult::NoCompatibleInstanceTypes),
        // lifecycle/events.go InsufficientCapacityErrorEvent, on the NodeClaim (then deleted).
        "InsufficientCapacityError" => Some(ProbeResult::InsufficientCapacity),
        // scheduling/events.go PodFailedToScheduleEvent when no type of the NodePool fits the pod
        // (nodeclaim.go "no instance type …", scheduler.go "… filtered out all available instance
        // types"); the default scheduler's FailedScheduling is about existing nodes.
        "FailedScheduling"
            if from_karpenter && (message.contains("no instance type") || message.contains("filtered out all")) =>
        {
            Some(ProbeResult::NoCompatibleInstanceTypes)
        }
        _ => None,
    }
}

/// `Launched` reasons that say Karpenter is still waiting, not failing (operatorpkg's initial
/// `AwaitingReconciliation`).
const NOT_YET: &[&str] = &["", "AwaitingReconciliation"];

/// The outcome the probe's NodePool, pod, NodeClaims and events show, or what they show so far.
pub fn observe(w: Watched<'_>) -> Observation {
    // A ready node decides, whatever failed before it (Karpenter retries).
    for c in w.claims {
        if condition(c, "Initialized").is_some_and(|k| k["status"] == "True") {
            let node = text(c, &["status", "nodeName"]);
            return done(
                ProbeResult::Provisioned,
                Some(c),
                format!("NodeClaim {} initialized node {node}", text(c, &["metadata", "name"])),
            );
        }
    }
    let mut events: Vec<&Value> = w.events.iter().filter(|e| w.relevant(e)).collect();
    events.sort_by_key(|e| text(e, &["lastTimestamp"]).to_owned());
    // The NodePool's and NodeClaim's own events say it best; Karpenter's FailedScheduling on the
    // pod repeats the NodePool's in other words.
    let decisive = events
        .iter()
        .find(|e| event_result(e).is_some() && e["reason"] != "FailedScheduling")
        .or_else(|| events.iter().find(|e| event_result(e).is_some()));
    let mut failure = None;
    if let Some(e) = decisive {
        let claim = w
            .claims
            .iter()
            .find(|c| c["metadata"]["name"] == e["involvedObject"]["name"]);
        let result = event_result(e).unwrap_or(ProbeResult::Failed);
        let message = format!("{}: {}", text(e, &["reason"]), text(e, &["message"]));
        if result != ProbeResult::InsufficientCapacity || w.single_offering {
            return done(result, claim, message);
        }
        failure = Some(Failure { result, message });
    }
    // A NodeClass that is not ready: launch.go deletes the NodeClaim without an event; the
    // NodePool's NodeClassReady condition says it.
    if let Some(k) = condition(w.node_pool, "NodeClassReady").filter(|k| k["status"] == "False") {
        return done(
            ProbeResult::Failed,
            None,
            format!(
                "NodeClassReady=False ({}): {}",
                text(k, &["reason"]),
                text(k, &["message"])
            ),
        );
    }
    // Launch errors set Launched=Unknown with their reason and retry (launch.go); the NodePool's
    // NodeRegistrationHealthy=False copies the reason of a claim the liveness check deleted
    // (liveness.go). Kept for the timeout's result.
    let launch_error = w.claims.iter().find_map(|c| {
        let k = condition(c, "Launched").filter(|k| k["status"] != "True")?;
        let reason = text(k, &["reason"]);
        (!NOT_YET.contains(&reason)).then(|| format!("{reason}: {}", text(k, &["message"])))
    });
    let unhealthy = condition(w.node_pool, "NodeRegistrationHealthy")
        .filter(|k| k["status"] == "False")
        .map(|k| {
            format!(
                "NodeRegistrationHealthy=False ({}): {}",
                text(k, &["reason"]),
                text(k, &["message"])
            )
        });
    if let Some(message) = launch_error.or(unhealthy) {
        failure = Some(Failure {
            result: ProbeResult::Failed,
            message,
        });
    }
    Observation::Waiting {
        status: status(w.claims, &events),
        failure,
    }
}

impl Observation {
    /// This look, keeping the failure an earlier look saw when this one sees none (Karpenter
    /// deletes a failing claim and tries again: its failure stays the best word).
    #[must_use]
    pub fn after(self, earlier: &Observation) -> Observation {
        match (self, earlier) {
            (Observation::Waiting { status, failure: None }, Observation::Waiting { failure: Some(f), .. }) => {
                Observation::Waiting {
                    status,
                    failure: Some(f.clone()),
                }
            }
            (this, _) => this,
        }
    }
}

/// What a probe that saw no decision within its timeout ends as: `failed` when a launch error
/// was seen (the message says it), else `timeout`.
pub fn timed_out(last: &Observation, timeout: std::time::Duration) -> Outcome {
    let (status, failure) = match last {
        Observation::Waiting { status, failure } => (status.clone(), failure.clone()),
        Observation::Done(o) => return o.clone(),
    };
    let secs = timeout.as_secs();
    match failure {
        Some(f) => Outcome {
            result: f.result,
            instance_type: None,
            zone: None,
            message: format!("no ready node within {secs}s; Karpenter kept failing: {}", f.message),
        },
        None => Outcome {
            result: ProbeResult::Timeout,
            instance_type: None,
            zone: None,
            message: format!("no ready node within {secs}s: {status}"),
        },
    }
}

/// The latest word for a timeout: the newest event, or the claims' conditions so far.
fn status(claims: &[Value], events: &[&Value]) -> String {
    let claim_words: Vec<String> = claims
        .iter()
        .map(|c| {
            let conditions: Vec<String> = c["status"]["conditions"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|k| format!("{}={}", text(k, &["type"]), text(k, &["status"])))
                .collect();
            format!(
                "NodeClaim {} ({})",
                text(c, &["metadata", "name"]),
                conditions.join(", ")
            )
        })
        .collect();
    match (events.last(), claim_words.is_empty()) {
        (Some(e), true) => format!("last event {}: {}", text(e, &["reason"]), text(e, &["message"])),
        (Some(e), false) => format!(
            "{}; last event {}: {}",
            claim_words.join("; "),
            text(e, &["reason"]),
            text(e, &["message"])
        ),
        (None, false) => claim_words.join("; "),
        (None, true) => "no NodeClaim was created and no event was recorded".to_owned(),
    }
}

/// The warning codes a finished probe is evidence against, for a strategy's
/// `acknowledged_warnings`: EKSGPU009 (a type observed not to provision on Auto Mode) once an
/// Auto Mode probe of exactly one type provisioned it. A probe of several types proves only the
/// type Karpenter chose, so it answers nothing.
pub fn answers(p: &Probe, o: &Outcome) -> Vec<Code> {
    let one_type =
        p.instance_types.len() == 1 && o.instance_type.as_deref() == p.instance_types.first().map(String::as_str);
    if p.capacity == ProbeCapacity::AutoMode && o.result == ProbeResult::Provisioned && one_type {
        vec![Code::EKSGPU009]
    } else {
        Vec::new()
    }
}
