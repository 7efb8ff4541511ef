//! The NodeClaim lifecycle: creation from a NodePool's template for a pending Pod, the timed
//! launch, registration and initialization (or a failed launch and the deletion that follows), and
//! termination once deleted. The shapes follow kubernetes-sigs/karpenter (the version
//! aws/karpenter-provider-aws v1.14.1 vendors): `pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go`
//! (`ToNodeClaim`: labels, owner reference, termination finalizer, spec from the template),
//! `pkg/controllers/nodeclaim/lifecycle/{launch,registration,initialization}.go` and
//! `pkg/controllers/node/termination` (the `karpenter.sh/termination` finalizer).

use serde_json::{Map, Value, json};

use super::events::{self, Times};
use super::{Claim, Flavor, Instance, Kinds, Outcome, Sim, rfc3339};
use crate::kinds::Registry;
use crate::store::Store;

const MANAGER: &str = "karpenter";
const NODEPOOL_LABEL: &str = "karpenter.sh/nodepool";
/// The accelerators a probe pod asks for (NVIDIA's device plugin, the Neuron device plugin).
const ACCELERATORS: [&str; 2] = ["nvidia.com/gpu", "aws.amazon.com/neuron"];

fn deleting(o: &Value) -> bool {
    !o["metadata"]["deletionTimestamp"].is_null()
}

fn first_value(pool: &Value, key: &str) -> Option<String> {
    pool["spec"]["template"]["spec"]["requirements"]
        .as_array()?
        .iter()
        .find(|r| r["key"] == key && r["operator"] == "In")?["values"][0]
        .as_str()
        .map(str::to_owned)
}

/// The pod's summed container requests (an extended resource's request defaults to its limit).
fn requests(pod: &Value) -> Map<String, Value> {
    let mut out = Map::new();
    for c in pod["spec"]["containers"].as_array().into_iter().flatten() {
        let res = &c["resources"];
        let mut mine = res["limits"].as_object().cloned().unwrap_or_default();
        mine.retain(|k, _| ACCELERATORS.contains(&k.as_str()));
        mine.extend(res["requests"].as_object().cloned().unwrap_or_default());
        for (k, v) in mine {
            let sum = match (out.get(&k).and_then(quantity), quantity(&v)) {
                (Some(a), Some(b)) => a.checked_add(b).map(|n| Value::String(n.to_string())),
                _ => None,
            };
            out.insert(k, sum.unwrap_or(v));
        }
    }
    out
}

fn quantity(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| v.as_str()?.parse().ok())
}

/// Accelerators per instance (EC2 accelerated computing instances,
/// https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html); other types: what the pod asks.
fn accelerators_of(instance_type: &str) -> Option<u64> {
    Some(match instance_type {
        "p5.48xlarge" | "p5e.48xlarge" | "p5en.48xlarge" | "p4d.24xlarge" | "p4de.24xlarge" | "g5.48xlarge"
        | "g6.48xlarge" | "p6-b200.48xlarge" => 8,
        "g5.12xlarge" | "g5.24xlarge" | "g6.12xlarge" | "g6.24xlarge" => 4,
        "trn1.32xlarge" | "trn1n.32xlarge" | "trn2.48xlarge" => 16,
        "inf2.48xlarge" => 12,
        "inf2.24xlarge" => 6,
        "trn1.2xlarge" | "inf2.xlarge" | "inf2.8xlarge" => 1,
        t if t.starts_with("g5.") || t.starts_with("g6.") || t.starts_with("g6e.") || t.starts_with("g4dn.") => 1,
        _ => return None,
    })
}

impl Sim {
    /// Brings every object up to `now` (milliseconds since the epoch).
    pub fn step(&mut self, store: &mut Store, registry: &Registry, now: u64) {
        let Some(k) = Kinds::of(registry) else { return };
        self.track_deletions(store, &k, now);
        for i in 0..self.claims.len() {
            self.advance(store, &k, i, now);
        }
        self.terminate(store, &k, now);
        self.provision(store, &k, now);
    }

    /// NodeClaims deleted through the API, or whose NodePool is gone or going.
    fn track_deletions(&mut self, store: &mut Store, k: &Kinds, now: u64) {
        for c in self.claims.iter_mut().filter(|c| c.gone_ms.is_none()) {
            let Some(obj) = store.get(&k.claim, None, &c.name) else {
                c.gone_ms = Some(now);
                continue;
            };
            if deleting(&obj) {
                c.deleted_ms.get_or_insert(now);
                continue;
            }
            let pool_going = store.get(&k.pool, None, &c.nodepool).is_none_or(|p| deleting(&p));
            if pool_going && store.delete(&k.claim, None, &c.name, &rfc3339(now)).is_ok() {
                c.deleted_ms = Some(now);
            }
        }
    }

    /// Removes the termination finalizer `terminate_ms` after a deletion (at once when no instance
    /// was launched, CORE `lifecycle/controller.go` `finalize`): the object goes.
    fn terminate(&mut self, store: &mut Store, k: &Kinds, now: u64) {
        let terminate_ms = self.scenario.terminate_ms;
        for c in self.claims.iter_mut().filter(|c| c.gone_ms.is_none()) {
            let wait = if c.launched_ms.is_some() { terminate_ms } else { 0 };
            let Some(at) = c.deleted_ms.and_then(|d| d.checked_add(wait)).filter(|at| *at <= now) else {
                continue;
            };
            let patch = json!({"metadata": {"finalizers": null}});
            if store.update(&k.claim, None, &c.name, &patch, MANAGER).is_ok()
                || store.get(&k.claim, None, &c.name).is_none()
            {
                c.gone_ms = Some(at);
            }
        }
    }

    /// The lifecycle steps of one NodeClaim that are due.
    fn advance(&mut self, store: &mut Store, k: &Kinds, i: usize, now: u64) {
        let s = &self.scenario;
        let Some(c) = self.claims.get(i).cloned() else { return };
        if c.deleted_ms.is_some() || c.gone_ms.is_some() {
            return;
        }
        let t = self.times(&c);
        let launch = t.steps[0];
        let (outcome, flavor) = (s.outcome, s.flavor);
        if outcome != Outcome::Provisioned {
            // Insufficient capacity: the NodeClaim is deleted at once; another launch error: it
            // stays with Launched Unknown until the liveness controller's LaunchTimeout.
            let delete_at = match outcome {
                Outcome::InsufficientCapacity => launch,
                _ => c.created_ms.saturating_add(s.launch_timeout_ms),
            };
            if c.stage == 0 && now >= launch {
                events::launch_failed(store, k, &c, outcome, &t, launch);
            }
            let deleted = (now >= delete_at).then_some(delete_at);
            if deleted.is_some() {
                let _ = store.delete(&k.claim, None, &c.name, &rfc3339(delete_at));
            }
            if let Some(c) = self.claims.get_mut(i) {
                c.stage = c.stage.max(u8::from(now >= launch));
                c.deleted_ms = deleted;
            }
            return;
        }
        let mut stage = c.stage;
        while let Some(at) = t.steps.get(usize::from(stage)).copied().filter(|at| *at <= now) {
            stage += 1;
            let c = Claim { stage, ..c.clone() };
            match stage {
                1 => launched(store, k, &c, &t, at),
                2 => registered(store, k, &c, flavor, &t, at),
                _ => initialized(store, k, &c, flavor, &t, at),
            }
        }
        if let Some(c) = self.claims.get_mut(i) {
            if stage >= 1 {
                c.launched_ms = Some(launch);
            }
            c.stage = stage;
        }
    }

    /// Pending pods selecting a NodePool: a NodeClaim, or the events of a pod that fits nowhere.
    fn provision(&mut self, store: &mut Store, k: &Kinds, now: u64) {
        for pod in store.list(&k.pod, None, "") {
            let Some(pool_name) = pod["spec"]["nodeSelector"][NODEPOOL_LABEL].as_str() else {
                continue;
            };
            if !pod["spec"]["nodeName"].is_null() || deleting(&pod) {
                continue;
            }
            let Some(pool) = store.get(&k.pool, None, pool_name).filter(|p| !deleting(p)) else {
                continue;
            };
            let key = (
                pod["metadata"]["namespace"].as_str().unwrap_or_default().to_owned(),
                pod["metadata"]["name"].as_str().unwrap_or_default().to_owned(),
            );
            match self.scenario.outcome {
                Outcome::Pending => {}
                Outcome::NoCompatibleInstanceTypes => {
                    let first = *self.unschedulable.entry(key).or_insert(now);
                    let cycles = (now.saturating_sub(first) / self.scenario.retry_ms).saturating_add(1);
                    events::no_compatible(store, k, self.scenario.flavor, &pod, &pool, cycles, first, now);
                }
                // One NodeClaim at a time; after a failed one, the next cycle `retry_ms` later.
                _ if self.claims.iter().any(|c| {
                    c.pod == key && c.gone_ms.is_none_or(|g| now < g.saturating_add(self.scenario.retry_ms))
                }) => {}
                _ => self.create_claim(store, k, &pod, &pool, key, now),
            }
        }
    }

    fn times(&self, c: &Claim) -> Times {
        let s = &self.scenario;
        let launch = c.created_ms.saturating_add(s.launch_ms);
        let register = launch.saturating_add(s.register_ms);
        Times {
            created: c.created_ms,
            steps: [launch, register, register.saturating_add(s.initialize_ms)],
        }
    }

    fn create_claim(
        &mut self,
        store: &mut Store,
        k: &Kinds,
        pod: &Value,
        pool: &Value,
        key: (String, String),
        now: u64,
    ) {
        let pool_name = pool["metadata"]["name"].as_str().unwrap_or_default().to_owned();
        let s = &self.scenario;
        let neuron = requests(pod).contains_key("aws.amazon.com/neuron");
        let instance_type = s
            .instance_type
            .clone()
            .or_else(|| first_value(pool, "node.kubernetes.io/instance-type"))
            .unwrap_or_else(|| if neuron { "trn1.32xlarge" } else { "p5.48xlarge" }.to_owned());
        let zone = s
            .zone
            .clone()
            .or_else(|| first_value(pool, "topology.kubernetes.io/zone"))
            .unwrap_or_else(|| "us-west-2a".to_owned());
        let capacity_type = s
            .capacity_type
            .clone()
            .or_else(|| first_value(pool, "karpenter.sh/capacity-type"))
            .unwrap_or_else(|| "on-demand".to_owned());
        let name = format!("{pool_name}-{}", self.suffix());
        let instance = Instance {
            id: self.instance_id(),
            instance_type,
            zone,
            capacity_type,
        };
        let body = claim_object(&name, pool, pod, now);
        if store.create(&k.claim, None, &body, MANAGER).is_err() {
            return;
        }
        let c = Claim {
            name,
            nodepool: pool_name,
            pod: key,
            created_ms: now,
            launched_ms: None,
            deleted_ms: None,
            gone_ms: None,
            instance,
            stage: 0,
        };
        events::created(store, k, &c, pod, now);
        self.claims.push(c);
    }
}

/// The NodeClaim Karpenter makes from a NodePool's template for `pod`.
fn claim_object(name: &str, pool: &Value, pod: &Value, now: u64) -> Value {
    let template = &pool["spec"]["template"];
    let t = &template["spec"];
    let mut labels = template["metadata"]["labels"].as_object().cloned().unwrap_or_default();
    labels.insert(NODEPOOL_LABEL.into(), pool["metadata"]["name"].clone());
    // `NodeClassLabelKey`: `<group>/<lowercase kind>` = the NodeClass's name.
    let class = &t["nodeClassRef"];
    let class_label = format!(
        "{}/{}",
        class["group"].as_str().unwrap_or_default(),
        class["kind"].as_str().unwrap_or_default().to_lowercase()
    );
    labels.insert(class_label.clone(), class["name"].clone());
    let mut spec = Map::new();
    for f in [
        "nodeClassRef",
        "taints",
        "startupTaints",
        "expireAfter",
        "terminationGracePeriod",
    ] {
        if !t[f].is_null() {
            spec.insert(f.into(), t[f].clone());
        }
    }
    // The template's requirements, and its labels as requirements (`NewLabelRequirements`).
    let mut reqs = t["requirements"].as_array().cloned().unwrap_or_default();
    for (key, value) in [
        (NODEPOOL_LABEL.to_owned(), &pool["metadata"]["name"]),
        (class_label, &class["name"]),
    ] {
        if !reqs.iter().any(|r| r["key"] == key.as_str()) {
            reqs.push(json!({"key": key, "operator": "In", "values": [value]}));
        }
    }
    spec.insert("requirements".into(), Value::Array(reqs));
    spec.insert("resources".into(), json!({"requests": requests(pod)}));
    let mut annotations = template["metadata"]["annotations"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    // Upstream hashes the NodePool spec (drift detection); here a stand-in of the same role.
    annotations.insert("karpenter.sh/nodepool-hash".into(), hash(&pool["spec"]).into());
    annotations.insert("karpenter.sh/nodepool-hash-version".into(), "v3".into());
    let meta = json!({"name": name, "labels": labels, "annotations": annotations, "finalizers": ["karpenter.sh/termination"],
        "ownerReferences": [{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "name": pool["metadata"]["name"],
                             "uid": pool["metadata"]["uid"], "blockOwnerDeletion": true}]});
    json!({"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim", "metadata": meta, "spec": spec,
           "status": {"conditions": events::conditions(0, &Times { created: now, steps: [now; 3] }, None)}})
}

/// A decimal FNV-1a hash of a value's JSON text (upstream: hashstructure of the NodePool spec).
fn hash(v: &Value) -> String {
    let h = v.to_string().bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    h.to_string()
}

/// The node name: EC2's private DNS name for Karpenter (`ip-…` resource names by default);
/// EKS Auto Mode names nodes after their instance ID.
fn node_name(c: &Claim, flavor: Flavor) -> String {
    if flavor == Flavor::AutoMode {
        return c.instance.id.clone();
    }
    let region = c.instance.zone.trim_end_matches(|ch: char| ch.is_ascii_lowercase());
    let domain = if region == "us-east-1" {
        "ec2.internal".to_owned()
    } else {
        format!("{region}.compute.internal")
    };
    let n = u64::from_str_radix(c.instance.id.trim_start_matches("i-"), 16).unwrap_or(0);
    format!("ip-10-0-{}-{}.{domain}", n % 256, (n >> 8) % 254 + 1)
}

fn capacity(store: &Store, k: &Kinds, c: &Claim) -> Map<String, Value> {
    let pod = store.get(&k.pod, Some(&c.pod.0), &c.pod.1).unwrap_or(Value::Null);
    let mut out = Map::new();
    for (res, asked) in requests(&pod) {
        if ACCELERATORS.contains(&res.as_str()) {
            let n = accelerators_of(&c.instance.instance_type)
                .or_else(|| quantity(&asked))
                .unwrap_or(1);
            out.insert(res, n.to_string().into());
        }
    }
    out
}

fn launched(store: &mut Store, k: &Kinds, c: &Claim, t: &Times, at: u64) {
    let labels = json!({"metadata": {"labels": {
        "node.kubernetes.io/instance-type": c.instance.instance_type,
        "topology.kubernetes.io/zone": c.instance.zone,
        "karpenter.sh/capacity-type": c.instance.capacity_type}}});
    let _ = store.update(&k.claim, None, &c.name, &labels, MANAGER);
    let cap = capacity(store, k, c);
    let status = json!({"providerID": format!("aws:///{}/{}", c.instance.zone, c.instance.id),
        "imageID": "ami-0123456789abcdef0", "capacity": cap, "allocatable": cap,
        "conditions": events::conditions(1, t, None)});
    let _ = store.set_status(&k.claim, None, &c.name, &status);
    events::stage(store, k, c, 1, at);
}

fn registered(store: &mut Store, k: &Kinds, c: &Claim, flavor: Flavor, t: &Times, at: u64) {
    let status = json!({"nodeName": node_name(c, flavor), "conditions": events::conditions(2, t, None)});
    let _ = store.set_status(&k.claim, None, &c.name, &status);
    events::stage(store, k, c, 2, at);
}

fn initialized(store: &mut Store, k: &Kinds, c: &Claim, flavor: Flavor, t: &Times, at: u64) {
    let _ = store.set_status(
        &k.claim,
        None,
        &c.name,
        &json!({"conditions": events::conditions(3, t, None)}),
    );
    let node = node_name(c, flavor);
    let (ns, name) = (&c.pod.0, &c.pod.1);
    if store.get(&k.pod, Some(ns), name).is_some() {
        let _ = store.update(
            &k.pod,
            Some(ns),
            name,
            &json!({"spec": {"nodeName": node}}),
            "kube-scheduler",
        );
        let t = rfc3339(at);
        let status = json!({"phase": "Running", "startTime": t, "conditions": [
            {"type": "PodScheduled", "status": "True", "lastTransitionTime": t},
            {"type": "Ready", "status": "True", "lastTransitionTime": t}]});
        let _ = store.set_status(&k.pod, Some(ns), name, &status);
        if let Some(pod) = store.get(&k.pod, Some(ns), name) {
            events::scheduled(store, k, &pod, &node, at);
        }
    }
    events::stage(store, k, c, 3, at);
}

/// The NodeClaim as stored now, and its kind (for the events about it).
pub(super) fn claim_of<'a>(store: &Store, k: &'a Kinds, c: &Claim) -> Option<(Value, &'a crate::kinds::KindInfo)> {
    store.get(&k.claim, None, &c.name).map(|o| (o, &k.claim))
}
