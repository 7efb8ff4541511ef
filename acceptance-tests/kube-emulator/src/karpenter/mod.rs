//! A small stand-in for Karpenter's NodeClaim lifecycle (aws/karpenter-provider-aws v1.14.1, which
//! vendors kubernetes-sigs/karpenter; see `events.rs` for the conditions, reasons, events and
//! messages and where each comes from), switched on per test through the control endpoint
//! (`POST /karpenter`). For every pending Pod whose `nodeSelector` names a NodePool, it plays one
//! scenario: a NodeClaim that launches, registers and initializes, and the Pod bound to its node;
//! no compatible instance type; insufficient capacity or another launch error, each cycle a
//! NodeClaim that fails to launch and is deleted; or nothing at all. A NodePool's NodeClaims are
//! deleted with it, and each goes once its termination finalizer is removed.
//!
//! Progress is evaluated lazily from timestamps on every API request ([`Sim::step`] with the wall
//! clock; tests pass their own clock), so no thread runs and the outcome is deterministic.
//! Simplified, and said so: no Node objects, no scheduling simulation (any pending Pod selecting a
//! NodePool fits it), one NodeClaim per Pod, no consolidation, drift or expiry.

#[cfg(test)]
mod control_tests;
mod events;
mod lifecycle;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::kinds::{KindInfo, Registry};

/// How nodes come up: open-source Karpenter or EKS Auto Mode (which runs Karpenter for you and
/// reports some failures with events of its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    Karpenter,
    AutoMode,
}

/// What happens to a pod's capacity request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Provisioned,
    NoCompatibleInstanceTypes,
    InsufficientCapacity,
    LaunchFailed,
    Pending,
}

/// The scenario of `POST /karpenter`.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    pub flavor: Flavor,
    pub outcome: Outcome,
    pub instance_type: Option<String>,
    pub zone: Option<String>,
    pub capacity_type: Option<String>,
    pub launch_ms: u64,
    pub register_ms: u64,
    pub initialize_ms: u64,
    pub terminate_ms: u64,
    /// How often a failing provisioning loop retries (a new event count or NodeClaim); it
    /// stands for Karpenter's batching and event dedupe windows (1 to 5 minutes upstream).
    pub retry_ms: u64,
    /// How long a NodeClaim whose launch fails with another error than insufficient capacity
    /// stays before it is deleted (CORE `lifecycle/liveness.go` `LaunchTimeout`, 5 minutes).
    pub launch_timeout_ms: u64,
}

impl Scenario {
    /// The scenario a control request asks for; unknown values are refused (the test is wrong).
    pub fn parse(v: &Value) -> Result<Scenario, String> {
        let text = |k: &str| v[k].as_str().map(str::to_owned);
        let ms_or = |k: &str, default: u64| match &v[k] {
            Value::Null => Ok(default),
            x => x
                .as_u64()
                .ok_or_else(|| format!("{k} must be a number of milliseconds")),
        };
        let ms = |k: &str| ms_or(k, 300);
        let flavor = match v["flavor"].as_str().unwrap_or("karpenter") {
            "karpenter" => Flavor::Karpenter,
            "auto_mode" => Flavor::AutoMode,
            other => return Err(format!("unknown flavor {other:?}: karpenter or auto_mode")),
        };
        let outcome = match v["outcome"].as_str().unwrap_or("provisioned") {
            "provisioned" => Outcome::Provisioned,
            "no_compatible_instance_types" => Outcome::NoCompatibleInstanceTypes,
            "insufficient_capacity" => Outcome::InsufficientCapacity,
            "launch_failed" => Outcome::LaunchFailed,
            "pending" => Outcome::Pending,
            other => return Err(format!("unknown outcome {other:?}")),
        };
        Ok(Scenario {
            flavor,
            outcome,
            instance_type: text("instance_type"),
            zone: text("zone"),
            capacity_type: text("capacity_type"),
            launch_timeout_ms: ms_or("launch_timeout_ms", 300_000)?,
            launch_ms: ms("launch_ms")?,
            register_ms: ms("register_ms")?,
            initialize_ms: ms("initialize_ms")?,
            terminate_ms: ms("terminate_ms")?,
            retry_ms: ms("retry_ms")?.max(1),
        })
    }

    fn json(&self) -> Value {
        json!({"flavor": match self.flavor { Flavor::Karpenter => "karpenter", Flavor::AutoMode => "auto_mode" },
               "outcome": match self.outcome {
                   Outcome::Provisioned => "provisioned",
                   Outcome::NoCompatibleInstanceTypes => "no_compatible_instance_types",
                   Outcome::InsufficientCapacity => "insufficient_capacity",
                   Outcome::LaunchFailed => "launch_failed",
                   Outcome::Pending => "pending",
               },
               "instance_type": self.instance_type, "zone": self.zone, "capacity_type": self.capacity_type,
               "launch_ms": self.launch_ms, "register_ms": self.register_ms, "initialize_ms": self.initialize_ms,
               "terminate_ms": self.terminate_ms, "retry_ms": self.retry_ms,
               "launch_timeout_ms": self.launch_timeout_ms})
    }
}

/// The EC2 instance behind a NodeClaim.
#[derive(Debug, Clone)]
pub struct Instance {
    pub id: String,
    pub instance_type: String,
    pub zone: String,
    pub capacity_type: String,
}

/// One NodeClaim the simulation created, and its history (milliseconds since the epoch).
#[derive(Debug, Clone)]
pub struct Claim {
    pub name: String,
    pub nodepool: String,
    pub pod: (String, String),
    pub created_ms: u64,
    pub launched_ms: Option<u64>,
    /// When its deletion was asked (its `deletionTimestamp`).
    pub deleted_ms: Option<u64>,
    /// When the object went (the termination finalizer removed).
    pub gone_ms: Option<u64>,
    /// The launch's planned instance; running from `launched_ms` until `gone_ms`.
    pub instance: Instance,
    /// How many lifecycle steps are written (0 created, 1 launched, 2 registered, 3 initialized).
    pub stage: u8,
}

/// The simulation's state.
#[derive(Debug)]
pub struct Sim {
    pub scenario: Scenario,
    pub claims: Vec<Claim>,
    /// Pending pods with no compatible instance type: (namespace, name) → first seen.
    unschedulable: BTreeMap<(String, String), u64>,
    seq: u64,
}

/// The kinds the simulation reads and writes.
struct Kinds {
    pod: KindInfo,
    event: KindInfo,
    claim: KindInfo,
    pool: KindInfo,
}

impl Kinds {
    fn of(registry: &Registry) -> Option<Kinds> {
        Some(Kinds {
            pod: registry.find("", "pods")?.clone(),
            event: registry.find("", "events")?.clone(),
            claim: registry.find("karpenter.sh", "nodeclaims")?.clone(),
            pool: registry.find("karpenter.sh", "nodepools")?.clone(),
        })
    }
}

impl Sim {
    pub fn new(scenario: Scenario) -> Sim {
        Sim {
            scenario,
            claims: Vec::new(),
            unschedulable: BTreeMap::new(),
            seq: 0,
        }
    }

    /// The next pseudo-random number: a fixed sequence, so names repeat from run to run.
    fn next(&mut self) -> u64 {
        self.seq = self.seq.wrapping_add(1);
        // SplitMix64's finalizer: well spread bits from a counter.
        let mut z = self.seq.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A `generateName` suffix as the API server makes it: 5 characters of the alphabet of
    /// k8s.io/apimachinery `pkg/util/rand/rand.go` (no vowels, no confusable digits).
    fn suffix(&mut self) -> String {
        const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        let mut n = self.next();
        (0..5)
            .map(|_| {
                let c = ALPHABET.get((n % 27) as usize).copied().unwrap_or(b'x');
                n /= 27;
                char::from(c)
            })
            .collect()
    }

    /// An EC2 instance ID: `i-` and 17 hex digits (the leading one 0, as EC2's are today).
    fn instance_id(&mut self) -> String {
        format!("i-0{:016x}", self.next())
    }

    /// `GET /karpenter`: every NodeClaim created, with its history and instance.
    pub fn record(&self) -> Value {
        let t = |ms: Option<u64>| ms.map(rfc3339);
        let claims: Vec<Value> = self
            .claims
            .iter()
            .map(|c| {
                let instance = c.launched_ms.map(|_| {
                    json!({"id": c.instance.id, "type": c.instance.instance_type, "zone": c.instance.zone,
                           "capacity_type": c.instance.capacity_type, "running": c.gone_ms.is_none()})
                });
                json!({"name": c.name, "nodepool": c.nodepool,
                       "pod": {"namespace": c.pod.0, "name": c.pod.1},
                       "created": rfc3339(c.created_ms), "launched": t(c.launched_ms),
                       "deleted": t(c.deleted_ms), "gone": t(c.gone_ms), "instance": instance})
            })
            .collect();
        json!({"enabled": true, "scenario": self.scenario.json(), "nodeclaims": claims})
    }
}

/// The wall clock, in milliseconds since the epoch.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// RFC 3339 in UTC with whole seconds, as `metav1.Time` serializes.
pub fn rfc3339(ms: u64) -> String {
    let secs = ms / 1000;
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    // Days to a civil date (Howard Hinnant's `civil_from_days`).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}
