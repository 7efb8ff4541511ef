//! The simulation driven with its own clock: each outcome, deletion and termination.

use serde_json::{Value, json};

use super::*;
use crate::store::Store;

const T0: u64 = 1_764_763_200_000; // 2025-12-03T12:00:00Z

struct World {
    store: Store,
    registry: Registry,
    sim: Sim,
}

fn kind(w: &World, group: &str, plural: &str) -> KindInfo {
    w.registry.find(group, plural).unwrap().clone()
}

fn world(scenario: Value) -> World {
    let registry = Registry::builtin();
    let mut w = World {
        store: Store::default(),
        sim: Sim::new(Scenario::parse(&scenario).unwrap()),
        registry,
    };
    let pool = json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "probe"},
        "spec": {"limits": {"nvidia.com/gpu": 8}, "template": {"spec": {
            "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "gpu"},
            "requirements": [
                {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["p5.48xlarge", "p4d.24xlarge"]},
                {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-west-2b"]}],
            "taints": [{"key": "eksgpu.io/probe", "value": "true", "effect": "NoSchedule"}]}}}});
    let pods = kind(&w, "", "pods");
    let pools = kind(&w, "karpenter.sh", "nodepools");
    w.store.apply(&pools, None, "probe", &pool, "tf", false, false).unwrap();
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "probe", "namespace": "ml"},
        "spec": {"nodeSelector": {"karpenter.sh/nodepool": "probe"},
                 "tolerations": [{"key": "eksgpu.io/probe", "operator": "Exists", "effect": "NoSchedule"}],
                 "containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                                 "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}});
    w.store
        .apply(&pods, Some("ml"), "probe", &pod, "tf", false, false)
        .unwrap();
    w
}

impl World {
    fn at(&mut self, ms: u64) {
        self.sim.step(&mut self.store, &self.registry, T0 + ms);
    }
    fn claims(&self) -> Vec<Value> {
        let k = kind(self, "karpenter.sh", "nodeclaims");
        self.store.list(&k, None, "karpenter.sh/nodepool=probe")
    }
    fn events(&self, ns: &str) -> Vec<Value> {
        self.store.list(&kind(self, "", "events"), Some(ns), "")
    }
    fn reasons(&self, ns: &str) -> Vec<String> {
        let mut r: Vec<String> = self
            .events(ns)
            .iter()
            .map(|e| {
                format!(
                    "{}/{}",
                    e["involvedObject"]["kind"].as_str().unwrap(),
                    e["reason"].as_str().unwrap()
                )
            })
            .collect();
        r.sort();
        r
    }
    fn condition(&self, claim: &Value, ty: &str) -> Value {
        claim["status"]["conditions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["type"] == ty)
            .cloned()
            .unwrap_or(Value::Null)
    }
    fn pod(&self) -> Value {
        self.store.get(&kind(self, "", "pods"), Some("ml"), "probe").unwrap()
    }
}

#[test]
fn provisioned_launches_registers_initializes_and_binds_the_pod() {
    let mut w = world(json!({"outcome": "provisioned"}));
    assert_eq!(w.pod()["status"]["phase"], "Pending");
    w.at(0);
    let claims = w.claims();
    assert_eq!(claims.len(), 1);
    let c = &claims[0];
    let name = c["metadata"]["name"].as_str().unwrap();
    assert!(name.starts_with("probe-") && name.len() == 11, "{name}");
    assert_eq!(c["metadata"]["finalizers"], json!(["karpenter.sh/termination"]));
    assert_eq!(c["metadata"]["ownerReferences"][0]["kind"], "NodePool");
    assert_eq!(c["metadata"]["ownerReferences"][0]["blockOwnerDeletion"], true);
    assert_eq!(c["spec"]["resources"]["requests"]["nvidia.com/gpu"], "1");
    assert_eq!(c["spec"]["taints"][0]["key"], "eksgpu.io/probe");
    assert_eq!(c["metadata"]["labels"]["karpenter.k8s.aws/ec2nodeclass"], "gpu");
    assert_eq!(c["metadata"]["annotations"]["karpenter.sh/nodepool-hash-version"], "v3");
    let keys: Vec<&str> = c["spec"]["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["key"].as_str().unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            "node.kubernetes.io/instance-type",
            "topology.kubernetes.io/zone",
            "karpenter.sh/nodepool",
            "karpenter.k8s.aws/ec2nodeclass"
        ]
    );
    assert_eq!(w.condition(c, "Launched")["reason"], "AwaitingReconciliation");
    assert_eq!(w.condition(c, "Ready")["reason"], "ReconcilingDependents");
    assert_eq!(
        w.condition(c, "Ready")["message"],
        "Launched=Unknown, Registered=Unknown, Initialized=Unknown"
    );
    assert_eq!(c["status"]["conditions"][3]["type"], "Ready", "the root is listed last");
    assert_eq!(w.reasons("ml"), ["Pod/Nominated"]);
    w.at(300);
    let c = &w.claims()[0];
    assert_eq!(w.condition(c, "Launched")["status"], "True");
    assert_eq!(w.condition(c, "Launched")["reason"], "Launched");
    assert_eq!(
        w.condition(c, "Ready")["message"],
        "Registered=Unknown, Initialized=Unknown"
    );
    assert_eq!(
        c["metadata"]["labels"]["node.kubernetes.io/instance-type"],
        "p5.48xlarge"
    );
    assert_eq!(c["metadata"]["labels"]["topology.kubernetes.io/zone"], "us-west-2b");
    assert_eq!(c["metadata"]["labels"]["karpenter.sh/capacity-type"], "on-demand");
    let pid = c["status"]["providerID"].as_str().unwrap();
    assert!(
        pid.starts_with("aws:///us-west-2b/i-") && pid.len() == "aws:///us-west-2b/i-".len() + 17,
        "{pid}"
    );
    assert_eq!(c["status"]["capacity"]["nvidia.com/gpu"], "8");
    assert!(w.pod()["spec"]["nodeName"].is_null());
    // One jump past registration and initialization writes both, at their own times.
    w.at(5_000);
    let c = &w.claims()[0];
    assert_eq!(w.condition(c, "Ready")["status"], "True");
    assert_eq!(w.condition(c, "Initialized")["lastTransitionTime"], rfc3339(T0 + 900));
    let node = c["status"]["nodeName"].as_str().unwrap();
    assert!(node.ends_with(".us-west-2.compute.internal"), "{node}");
    assert_eq!(w.pod()["spec"]["nodeName"], node);
    assert_eq!(w.pod()["status"]["phase"], "Running");
    assert_eq!(
        w.reasons("default"),
        [
            "NodeClaim/Initialized",
            "NodeClaim/Launched",
            "NodeClaim/Ready",
            "NodeClaim/Registered"
        ]
    );
    assert_eq!(w.reasons("ml"), ["Pod/Nominated", "Pod/Scheduled"]);
    let launched = w
        .events("default")
        .into_iter()
        .find(|e| e["reason"] == "Launched")
        .unwrap();
    assert_eq!(launched["type"], "Normal");
    assert_eq!(
        launched["message"],
        "Status condition transitioned, Type: Launched, Status: Unknown -> True, Reason: Launched"
    );
    assert_eq!(launched["source"]["component"], "karpenter");
    assert!(launched["involvedObject"].get("namespace").is_none());
    let record = w.sim.record();
    assert_eq!(record["nodeclaims"][0]["instance"]["running"], true);
    assert_eq!(record["nodeclaims"][0]["instance"]["type"], "p5.48xlarge");
    // No second NodeClaim for a bound pod.
    w.at(10_000);
    assert_eq!(w.claims().len(), 1);
}

#[test]
fn deleting_the_nodepool_terminates_its_nodeclaims_after_the_finalizer() {
    let mut w = world(json!({"outcome": "provisioned", "terminate_ms": 1000, "instance_type": "g6.xlarge"}));
    w.at(0);
    w.at(1_000);
    let pools = kind(&w, "karpenter.sh", "nodepools");
    w.store.delete(&pools, None, "probe", "x").unwrap();
    w.at(1_100);
    let c = w.claims();
    assert_eq!(c.len(), 1, "the finalizer holds it");
    assert_eq!(c[0]["metadata"]["deletionTimestamp"], rfc3339(T0 + 1_100));
    assert_eq!(w.sim.record()["nodeclaims"][0]["instance"]["running"], true);
    w.at(2_099);
    assert_eq!(w.claims().len(), 1);
    w.at(2_100);
    assert!(w.claims().is_empty());
    let r = w.sim.record();
    assert_eq!(r["nodeclaims"][0]["instance"]["running"], false);
    assert_eq!(r["nodeclaims"][0]["gone"], rfc3339(T0 + 2_100));
    assert_eq!(r["nodeclaims"][0]["instance"]["type"], "g6.xlarge");
}

#[test]
fn a_nodeclaim_deleted_through_the_api_waits_for_its_finalizer() {
    let mut w = world(json!({"terminate_ms": 500}));
    w.at(0);
    w.at(2_000);
    let claims = kind(&w, "karpenter.sh", "nodeclaims");
    let name = w.claims()[0]["metadata"]["name"].as_str().unwrap().to_owned();
    let answer = w.store.delete(&claims, None, &name, &rfc3339(T0 + 2_000)).unwrap();
    assert_eq!(answer["metadata"]["deletionTimestamp"], rfc3339(T0 + 2_000));
    w.at(2_100);
    assert_eq!(w.claims().len(), 1);
    w.at(2_600);
    assert!(w.store.get(&claims, None, &name).is_none());
    assert_eq!(w.sim.record()["nodeclaims"][0]["instance"]["running"], false);
}

#[test]
fn insufficient_capacity_fails_each_cycle_and_deletes_the_nodeclaim() {
    let mut w = world(json!({"outcome": "insufficient_capacity", "retry_ms": 1000}));
    w.at(0);
    let first = w.claims()[0]["metadata"]["name"].as_str().unwrap().to_owned();
    w.at(300);
    assert!(w.claims().is_empty(), "deleted at once: it has no instance");
    let ice: Vec<Value> = w
        .events("default")
        .into_iter()
        .filter(|e| e["reason"] == "InsufficientCapacityError")
        .collect();
    assert_eq!(ice.len(), 1);
    assert_eq!(ice[0]["type"], "Warning");
    assert_eq!(ice[0]["involvedObject"]["name"], first.as_str());
    let msg = ice[0]["message"].as_str().unwrap();
    assert!(
        msg.starts_with(&format!(
            "NodeClaim {first} event: creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient p5.48xlarge capacity in the Availability Zone you requested (us-west-2b)."
        )),
        "{msg}"
    );
    w.at(1_200);
    assert!(w.claims().is_empty(), "the next cycle waits retry_ms");
    w.at(1_300);
    assert_eq!(w.claims().len(), 1);
    w.at(1_600);
    let r = w.sim.record();
    assert_eq!(r["nodeclaims"].as_array().unwrap().len(), 2);
    assert!(r["nodeclaims"][0]["instance"].is_null(), "no instance ever ran");
    assert!(w.pod()["spec"]["nodeName"].is_null());
}

#[test]
fn another_launch_error_leaves_launched_unknown_until_the_launch_timeout() {
    let mut w = world(json!({"outcome": "launch_failed", "launch_timeout_ms": 5000}));
    w.at(0);
    w.at(400);
    let c = &w.claims()[0];
    let launched = w.condition(c, "Launched");
    assert_eq!(launched["status"], "Unknown");
    assert_eq!(launched["reason"], "Unauthorized");
    assert_eq!(
        launched["message"],
        "User is not authorized to perform this operation because no identity-based policy allows it"
    );
    assert_eq!(w.condition(c, "Ready")["status"], "Unknown");
    assert_eq!(w.reasons("default"), Vec::<String>::new(), "no event for a CreateError");
    w.at(5_000);
    assert!(w.claims().is_empty());
    w.at(5_300);
    assert_eq!(w.claims().len(), 1, "a new cycle");
}

#[test]
fn no_compatible_instance_types_counts_the_events_and_makes_no_nodeclaim() {
    for flavor in ["karpenter", "auto_mode"] {
        let mut w = world(json!({"outcome": "no_compatible_instance_types", "flavor": flavor, "retry_ms": 1000}));
        w.at(0);
        w.at(2_500);
        assert!(w.claims().is_empty());
        let pool = w.events("default");
        assert_eq!(pool.len(), 1);
        assert_eq!(pool[0]["reason"], "NoCompatibleInstanceTypes");
        assert_eq!(pool[0]["involvedObject"]["kind"], "NodePool");
        assert_eq!(
            pool[0]["message"],
            "NodePool requirements filtered out all compatible available instance types"
        );
        assert_eq!(pool[0]["count"], 3);
        assert_eq!(pool[0]["firstTimestamp"], rfc3339(T0));
        let pod = w.events("ml");
        assert_eq!(pod[0]["reason"], "FailedScheduling");
        assert_eq!(pod[0]["count"], 3);
        assert_eq!(pod[0]["involvedObject"]["namespace"], "ml");
    }
}

#[test]
fn pending_does_nothing_and_auto_mode_names_nodes_after_instances() {
    let mut w = world(json!({"outcome": "pending"}));
    w.at(0);
    w.at(60_000);
    assert!(w.claims().is_empty() && w.events("default").is_empty() && w.events("ml").is_empty());
    let mut w = world(json!({"flavor": "auto_mode", "zone": "us-east-1a"}));
    w.at(0);
    w.at(5_000);
    let c = &w.claims()[0];
    assert!(c["status"]["nodeName"].as_str().unwrap().starts_with("i-"));
    assert_eq!(c["metadata"]["labels"]["topology.kubernetes.io/zone"], "us-east-1a");
}

#[test]
fn scenarios_parse_with_defaults_and_refuse_unknown_values() {
    let s = Scenario::parse(&json!({})).unwrap();
    assert_eq!(
        (s.outcome, s.flavor, s.launch_ms, s.retry_ms),
        (Outcome::Provisioned, Flavor::Karpenter, 300, 300)
    );
    assert_eq!(s.launch_timeout_ms, 300_000);
    assert!(Scenario::parse(&json!({"outcome": "maybe"})).is_err());
    assert!(Scenario::parse(&json!({"flavor": "gke"})).is_err());
    assert!(Scenario::parse(&json!({"launch_ms": "soon"})).is_err());
    assert_eq!(rfc3339(T0), "2025-12-03T12:00:00Z");
    assert_eq!(rfc3339(951_782_400_000), "2000-02-29T00:00:00Z");
}
