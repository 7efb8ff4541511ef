use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::json;

use super::*;
use crate::ownership::Owner;
use crate::rules::{Code, Severity};

fn probe(capacity: ProbeCapacity, types: &[&str]) -> Probe {
    Probe {
        cluster_name: "gpu".into(),
        name: "p5en".into(),
        namespace: "default".into(),
        capacity,
        instance_types: types.iter().map(|t| (*t).to_owned()).collect(),
        capacity_types: vec!["on-demand".into()],
        zones: vec!["us-east-2a".into()],
        timeout: Duration::from_secs(20 * 60),
        node_class: None,
        price_per_hour: BTreeMap::new(),
    }
}

fn codes(p: &Probe) -> Vec<Code> {
    check_probe(p).iter().map(|v| v.code).collect()
}

#[test]
fn the_node_pool_is_one_tainted_node_of_the_types_through_the_named_class() {
    let p = probe(ProbeCapacity::AutoMode, &["p5en.48xlarge"]);
    let np = node_pool(&p);
    assert_eq!(np["metadata"]["name"], "eksgpu-probe-p5en");
    assert_eq!(np["metadata"]["labels"][PROBE_LABEL], "p5en");
    let spec = &np["spec"]["template"]["spec"];
    assert_eq!(
        spec["nodeClassRef"],
        json!({"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "default"})
    );
    assert_eq!(spec["requirements"][0]["values"], json!(["p5en.48xlarge"]));
    assert_eq!(spec["requirements"][1]["key"], "karpenter.sh/capacity-type");
    assert_eq!(spec["requirements"][2]["values"], json!(["us-east-2a"]));
    assert_eq!(spec["taints"][0]["key"], PROBE_LABEL);
    // timeout 20m plus the 15m margin.
    assert_eq!(spec["expireAfter"], "2100s");
    assert_eq!(np["spec"]["limits"], json!({"nodes": "1", "nvidia.com/gpu": "8"}));

    let mut k = probe(ProbeCapacity::Karpenter, &["trn2.48xlarge"]);
    k.node_class = Some("gpu".into());
    let spec = &node_pool(&k)["spec"];
    assert_eq!(spec["template"]["spec"]["nodeClassRef"]["kind"], "EC2NodeClass");
    assert_eq!(spec["template"]["spec"]["nodeClassRef"]["name"], "gpu");
    assert_eq!(spec["limits"]["aws.amazon.com/neuron"], "16");
}

#[test]
fn the_pod_requests_one_device_on_the_probes_pool_and_stops_at_its_deadline() {
    let p = probe(ProbeCapacity::AutoMode, &["g6e.xlarge"]);
    let pod = pod(&p);
    assert_eq!(
        pod["spec"]["nodeSelector"]["karpenter.sh/nodepool"],
        "eksgpu-probe-p5en"
    );
    assert_eq!(pod["spec"]["containers"][0]["image"], PAUSE_IMAGE);
    assert_eq!(
        pod["spec"]["containers"][0]["resources"]["limits"],
        json!({"nvidia.com/gpu": "1"})
    );
    assert_eq!(pod["spec"]["activeDeadlineSeconds"], 1200);
    assert!(
        pod["spec"]["tolerations"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["key"] == PROBE_LABEL && t["value"] == "p5en")
    );
    let n = probe(ProbeCapacity::AutoMode, &["inf2.xlarge"]);
    assert_eq!(
        super::pod(&n)["spec"]["containers"][0]["resources"]["requests"],
        json!({"aws.amazon.com/neuron": "1"})
    );
    // The objects label their probe: ownership reads them back as it.
    assert_eq!(
        Owner::of_object(&pod),
        Owner::CapacityProbe {
            cluster: "gpu".into(),
            name: "p5en".into()
        }
    );
}

#[test]
fn the_plan_says_what_it_costs_and_prices_are_inputs() {
    let mut p = probe(ProbeCapacity::AutoMode, &["p5en.48xlarge", "p5.48xlarge"]);
    let v = check_probe(&p);
    let cost_warning = v.iter().find(|v| v.code == Code::EKSGPU361).expect("cost warning");
    assert_eq!(cost_warning.severity, Severity::Warning);
    assert!(cost_warning.detail.contains("at most 20m"), "{}", cost_warning.detail);
    assert!(cost_warning.detail.contains("No price given"));
    assert_eq!(max_cost(&p), None);
    p.price_per_hour.insert("p5en.48xlarge".into(), 84.0);
    assert_eq!(max_cost(&p), None, "every listed type needs a price");
    p.price_per_hour.insert("p5.48xlarge".into(), 98.32);
    // The dearest type for 20 minutes: 98.32 / 3, rounded up to the cent.
    assert_eq!(max_cost(&p), Some(32.78));
    assert!(cost(&p).contains("$32.78"));
}

#[test]
fn what_cannot_launch_is_refused_at_its_type() {
    let p = probe(ProbeCapacity::AutoMode, &["m5.large", "g6e.xlarge", "trn2.48xlarge"]);
    let v = check_probe(&p);
    let at = |code| v.iter().find(|v| v.code == code).map(|v| v.path.clone());
    assert_eq!(
        at(Code::EKSGPU016),
        Some(vec![Step::Attr("instance_types"), Step::Index(0)])
    );
    assert_eq!(
        at(Code::EKSGPU362),
        Some(vec![Step::Attr("instance_types"), Step::Index(2)])
    );

    let k = probe(ProbeCapacity::Karpenter, &["p5.48xlarge"]);
    assert!(codes(&k).contains(&Code::EKSGPU363));

    let gb = probe(ProbeCapacity::Karpenter, &["p6e-gb200.36xlarge"]);
    assert!(codes(&gb).contains(&Code::EKSGPU365));
    let mut reserved = gb.clone();
    reserved.capacity_types = vec!["reserved".into()];
    assert!(!codes(&reserved).contains(&Code::EKSGPU365));

    // g6f is not in the Auto Mode table: a warning, not an error (proving it may be the point).
    let undocumented = probe(ProbeCapacity::AutoMode, &["g6f.xlarge"]);
    let w = check_probe(&undocumented);
    let w = w.iter().find(|v| v.code == Code::EKSGPU364).expect("EKSGPU364");
    assert_eq!(w.severity, Severity::Warning);
    assert!(!codes(&probe(ProbeCapacity::AutoMode, &["p5en.48xlarge"])).contains(&Code::EKSGPU364));
}

use crate::rules::Step;

fn claim(name: &str, conditions: serde_json::Value) -> serde_json::Value {
    json!({
        "metadata": {"name": name, "uid": format!("uid-{name}"), "labels": {
            "karpenter.sh/nodepool": "eksgpu-probe-p5en",
            "node.kubernetes.io/instance-type": "p5en.48xlarge",
            "topology.kubernetes.io/zone": "us-east-2a"}},
        "status": {"nodeName": "ip-10-0-1-2.ec2.internal", "conditions": conditions},
    })
}

fn event(reason: &str, message: &str, kind: &str, name: &str, uid: &str) -> serde_json::Value {
    json!({"metadata": {"uid": format!("ev-{reason}-{name}")}, "reason": reason, "message": message, "type": "Warning",
           "source": {"component": "karpenter"},
           "involvedObject": {"kind": kind, "name": name, "uid": uid}, "lastTimestamp": "2026-12-03T10:00:00Z"})
}

fn pool_live() -> serde_json::Value {
    json!({"metadata": {"name": "eksgpu-probe-p5en", "uid": "uid-pool"}})
}

fn pod_live() -> serde_json::Value {
    json!({"metadata": {"name": "eksgpu-probe-p5en", "uid": "uid-pod"}})
}

fn look(claims: &[serde_json::Value], events: &[serde_json::Value]) -> Observation {
    let (np, pod) = (pool_live(), pod_live());
    observe(Watched {
        node_pool: &np,
        pod: &pod,
        claims,
        events,
        events_before: &["ev-InsufficientCapacityError-eksgpu-probe-p5en-zz9q2".to_owned()],
        single_offering: true,
    })
}

#[test]
fn a_ready_node_is_provisioned_with_its_type_and_zone() {
    let c = claim(
        "eksgpu-probe-p5en-x7k2q",
        json!([{"type": "Launched", "status": "True"}, {"type": "Registered", "status": "True"},
               {"type": "Initialized", "status": "True"}]),
    );
    let Observation::Done(o) = look(&[c], &[]) else {
        panic!("not done")
    };
    assert_eq!(o.result, ProbeResult::Provisioned);
    assert_eq!(o.instance_type.as_deref(), Some("p5en.48xlarge"));
    assert_eq!(o.zone.as_deref(), Some("us-east-2a"));
    assert!(o.message.contains("ip-10-0-1-2"), "{}", o.message);
    // One Auto Mode type provisioned answers its EKSGPU009; several types answer nothing.
    assert_eq!(
        answers(&probe(ProbeCapacity::AutoMode, &["p5en.48xlarge"]), &o),
        [Code::EKSGPU009]
    );
    assert!(answers(&probe(ProbeCapacity::AutoMode, &["p5en.48xlarge", "p5.48xlarge"]), &o).is_empty());
    assert!(answers(&probe(ProbeCapacity::Karpenter, &["p5en.48xlarge"]), &o).is_empty());
}

#[test]
fn failures_are_told_apart_by_their_events_and_conditions() {
    let pending = claim(
        "eksgpu-probe-p5en-a",
        json!([{"type": "Launched", "status": "Unknown", "reason": "AwaitingReconciliation"}]),
    );
    assert!(matches!(
        look(std::slice::from_ref(&pending), &[]),
        Observation::Waiting { failure: None, .. }
    ));

    let no_fit = event(
        "NoCompatibleInstanceTypes",
        "NodePool requirements filtered out all compatible available instance types",
        "NodePool",
        "eksgpu-probe-p5en",
        "uid-pool",
    );
    let Observation::Done(o) = look(&[], std::slice::from_ref(&no_fit)) else {
        panic!()
    };
    assert_eq!(o.result, ProbeResult::NoCompatibleInstanceTypes);
    assert!(o.instance_type.is_none());
    // The same event about a former NodePool of the same name (another UID) is not this probe's.
    let mut former = no_fit;
    former["involvedObject"]["uid"] = "uid-former-pool".into();
    assert!(matches!(look(&[], &[former]), Observation::Waiting { .. }));

    // Insufficient capacity: the NodeClaim is deleted; its event stays.
    let ice = event(
        "InsufficientCapacityError",
        "NodeClaim eksgpu-probe-p5en-bx7kq event: insufficient capacity, all requested instance types were unavailable during launch",
        "NodeClaim",
        "eksgpu-probe-p5en-bx7kq",
        "uid-b",
    );
    let Observation::Done(o) = look(&[], &[ice]) else {
        panic!()
    };
    assert_eq!(o.result, ProbeResult::InsufficientCapacity);
    assert!(o.message.contains("unavailable during launch"));
    // … unless the event was there before the probe began.
    let old = event(
        "InsufficientCapacityError",
        "old",
        "NodeClaim",
        "eksgpu-probe-p5en-zz9q2",
        "uid-old",
    );
    assert!(matches!(look(&[], &[old]), Observation::Waiting { .. }));

    let karpenter_no_fit = event(
        "FailedScheduling",
        "Failed to schedule pod, no instance type has enough resources",
        "Pod",
        "eksgpu-probe-p5en",
        "uid-pod",
    );
    let Observation::Done(o) = look(&[], &[karpenter_no_fit]) else {
        panic!()
    };
    assert_eq!(o.result, ProbeResult::NoCompatibleInstanceTypes);

    // The default scheduler's FailedScheduling is about existing nodes: not a result.
    let mut scheduler = event(
        "FailedScheduling",
        "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity",
        "Pod",
        "eksgpu-probe-p5en",
        "uid-pod",
    );
    scheduler["source"]["component"] = "default-scheduler".into();
    let w = look(&[pending], &[scheduler]);
    let Observation::Waiting { status, .. } = &w else {
        panic!()
    };
    assert!(
        status.contains("Launched=Unknown") && status.contains("0/3 nodes"),
        "{status}"
    );
    assert_eq!(timed_out(&w, Duration::from_secs(60)).result, ProbeResult::Timeout);

    // A launch error is retried (Launched stays Unknown): at the timeout it is the result.
    let failing = claim(
        "eksgpu-probe-p5en-c7v9q",
        json!([{"type": "Launched", "status": "Unknown", "reason": "LaunchFailed", "message": "UnauthorizedOperation"}]),
    );
    let w = look(&[failing], &[]);
    assert!(matches!(&w, Observation::Waiting { failure: Some(f), .. } if f.message.contains("UnauthorizedOperation")));
    // Karpenter deletes the failing claim and makes another: the failure seen stays the word.
    let replacement = claim(
        "eksgpu-probe-p5en-d2k4m",
        json!([{"type": "Launched", "status": "Unknown", "reason": "AwaitingReconciliation"}]),
    );
    let later = look(&[replacement], &[]).after(&w);
    let o = timed_out(&later, Duration::from_secs(60));
    assert_eq!(o.result, ProbeResult::Failed);
    assert!(o.message.contains("LaunchFailed"), "{}", o.message);

    // A NodeClass that is not ready: the NodePool says so.
    let mut np = pool_live();
    np["status"] = json!({"conditions": [{"type": "NodeClassReady", "status": "False", "reason": "NodeClassNotFound", "message": "missing"}]});
    let pod = pod_live();
    let o = observe(Watched {
        node_pool: &np,
        pod: &pod,
        claims: &[],
        events: &[],
        events_before: &[],
        single_offering: true,
    });
    assert!(matches!(
        o,
        Observation::Done(Outcome {
            result: ProbeResult::Failed,
            ..
        })
    ));
}

#[test]
fn insufficient_capacity_of_one_offering_among_several_waits_and_other_probes_claims_do_not_count() {
    let ice = event(
        "InsufficientCapacityError",
        "NodeClaim eksgpu-probe-p5en-bx7kq event: insufficient capacity",
        "NodeClaim",
        "eksgpu-probe-p5en-bx7kq",
        "uid-b",
    );
    let (np, pod) = (pool_live(), pod_live());
    let w = |events: &[serde_json::Value], single| {
        observe(Watched {
            node_pool: &np,
            pod: &pod,
            claims: &[],
            events,
            events_before: &[],
            single_offering: single,
        })
    };
    // Several types or zones: Karpenter tries another offering; at the timeout ICE is the result.
    let o = w(std::slice::from_ref(&ice), false);
    assert!(
        matches!(&o, Observation::Waiting { failure: Some(f), .. } if f.result == ProbeResult::InsufficientCapacity)
    );
    assert_eq!(
        timed_out(&o, Duration::from_secs(60)).result,
        ProbeResult::InsufficientCapacity
    );
    // Probe `p5en-x`'s claim `eksgpu-probe-p5en-x-bx7kq` is not probe `p5en`'s.
    let mut other = ice.clone();
    other["involvedObject"]["name"] = "eksgpu-probe-p5en-x-bx7kq".into();
    assert!(matches!(w(&[other], true), Observation::Waiting { failure: None, .. }));
    assert!(is_claim_of("eksgpu-probe-p5en-bx7kq", "eksgpu-probe-p5en"));
    assert!(!is_claim_of("eksgpu-probe-p5en-x-bx7kq", "eksgpu-probe-p5en"));
    assert!(!is_claim_of("eksgpu-probe-p5en-bx7k", "eksgpu-probe-p5en"));
}
