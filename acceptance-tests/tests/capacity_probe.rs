//! `eksgpu_capacity_probe` through the current Terraform CLI against the emulator, whose
//! Karpenter simulation makes NodeClaims and events for the probe's pod as Karpenter v1.14.1
//! does (kube-emulator `karpenter`): a success, `NoCompatibleInstanceTypes`, insufficient
//! capacity, a timeout, Ctrl-C, a provider killed mid-probe and the next apply's clean-up, and
//! another owner's objects left alone. After every run no NodePool, pod or NodeClaim of the
//! probe is left and the simulation records no running instance.
//!
//! The real API server lane runs no controllers (nothing makes NodeClaims there): the runs skip
//! in it, saying so; the objects the probe applies are judged by the real server in
//! `the_probe_s_objects_pass_the_server`.

use std::time::{Duration, Instant};

use eksgpu_acceptance_tests::hcl::Provider;
use eksgpu_acceptance_tests::kube::{KubeTarget, NODE_CLAIM, NODE_POOL, POD, upstream_kubeconfig};
use eksgpu_acceptance_tests::{TerraformVersion, Workdir, skip, terraform_versions};
use serde_json::{Value, json};

fn current() -> Option<TerraformVersion> {
    terraform_versions().into_iter().find(|t| t.label == "current")
}

/// What a test needs, or why it cannot run here.
fn setup() -> Result<(TerraformVersion, KubeTarget), &'static str> {
    let tf = current().ok_or("needs the current Terraform CLI (EKSGPU_TF_VERSIONS)")?;
    if upstream_kubeconfig().is_some() {
        return Err("the real API server lane runs no controllers: no Karpenter makes NodeClaims there");
    }
    Ok((tf, KubeTarget::start()))
}

fn probe(kube: &KubeTarget, body: &str) -> String {
    format!(
        r#"{}
resource "eksgpu_capacity_probe" "p" {{
  cluster_name          = "gpu"
  name                  = "p5en"
  acknowledged_warnings = ["EKSGPU361"]
{body}
}}

output "probe" {{
  value = {{
    result        = eksgpu_capacity_probe.p.result
    instance_type = eksgpu_capacity_probe.p.instance_type
    zone          = eksgpu_capacity_probe.p.zone
    ready_after   = eksgpu_capacity_probe.p.ready_after
    message       = eksgpu_capacity_probe.p.message
    answers       = eksgpu_capacity_probe.p.answers
  }}
}}
"#,
        Provider::new().kube(kube).header()
    )
}

const AUTO_MODE_P5EN: &str = r#"  capacity       = "auto_mode"
  instance_types = ["p5en.48xlarge"]
  zones          = ["us-east-2a"]
  timeout        = "2m""#;

fn outputs(w: &Workdir) -> Value {
    w.outputs()["probe"]["value"].clone()
}

/// Nothing of the probe is left in the cluster and no instance the simulation launched runs.
fn nothing_left(kube: &KubeTarget) {
    assert!(kube.get(NODE_POOL, "eksgpu-probe-p5en").is_none(), "NodePool left");
    assert!(
        kube.get_in(POD, Some("default"), "eksgpu-probe-p5en").is_none(),
        "pod left"
    );
    assert!(
        kube.list(NODE_CLAIM, "karpenter.sh/nodepool=eksgpu-probe-p5en")
            .is_empty(),
        "NodeClaim left"
    );
    let record = kube.karpenter_record();
    let running: Vec<&Value> = record["nodeclaims"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["instance"]["running"] == true)
        .collect();
    assert!(running.is_empty(), "instances still running: {running:?}");
}

fn launched(kube: &KubeTarget) -> usize {
    kube.karpenter_record()["nodeclaims"].as_array().map_or(0, Vec::len)
}

#[test]
fn a_provisioned_probe_records_the_type_zone_and_time_and_leaves_nothing() {
    let (tf, kube) = match setup() {
        Ok(s) => s,
        Err(why) => return skip(why),
    };
    kube.simulate_karpenter(json!({"enabled": true, "flavor": "auto_mode", "outcome": "provisioned"}))
        .unwrap_or_else(|e| panic!("{e}"));
    let w = Workdir::new(&tf, &probe(&kube, AUTO_MODE_P5EN));
    w.init();
    // The plan shows the objects, and what the run costs unless acknowledged.
    let unacknowledged = probe(&kube, AUTO_MODE_P5EN).replace("acknowledged_warnings = [\"EKSGPU361\"]", "");
    w.write("main.tf", &unacknowledged);
    let plan = w.ok(&["plan", "-no-color"]).combined();
    assert!(
        plan.contains("EKSGPU361") && plan.contains("Launches one real node"),
        "{plan}"
    );
    assert!(
        plan.contains("eksgpu-probe-p5en") && plan.contains("registry.k8s.io/pause"),
        "{plan}"
    );
    w.write("main.tf", &probe(&kube, AUTO_MODE_P5EN));
    w.apply();
    let o = outputs(&w);
    assert_eq!(o["result"], "provisioned", "{o}");
    assert_eq!(o["instance_type"], "p5en.48xlarge");
    assert_eq!(o["zone"], "us-east-2a");
    assert!(o["ready_after"].as_str().is_some_and(|s| s.ends_with('s')), "{o}");
    assert_eq!(o["answers"], json!(["EKSGPU009"]));
    nothing_left(&kube);
    assert_eq!(launched(&kube), 1);
    // A probe is a record: refresh changes nothing, and running it again is -replace.
    w.assert_empty_plan();
    // A price is not a reason to run again: it changes in place, and max_cost follows it.
    w.write(
        "main.tf",
        &probe(
            &kube,
            &format!("{AUTO_MODE_P5EN}\n  price_per_hour = {{ \"p5en.48xlarge\" = 90 }}"),
        )
        .replace(
            "answers       = eksgpu_capacity_probe.p.answers",
            "answers       = eksgpu_capacity_probe.p.answers\n    max_cost      = eksgpu_capacity_probe.p.max_cost",
        ),
    );
    let plan = w.ok(&["plan", "-no-color"]).combined();
    assert!(plan.contains("1 to change, 0 to destroy"), "{plan}");
    w.apply();
    assert_eq!(launched(&kube), 1, "no second launch");
    let o = outputs(&w);
    assert_eq!(o["result"], "provisioned");
    // 90 USD per hour for the 2m timeout.
    assert_eq!(o["max_cost"], 3.0, "{o}");
    w.ok(&["apply", "-auto-approve", "-replace=eksgpu_capacity_probe.p"]);
    assert_eq!(launched(&kube), 2);
    nothing_left(&kube);
    w.ok(&["destroy", "-auto-approve"]);
    nothing_left(&kube);
}

#[test]
fn each_failure_is_a_result_with_its_message_and_leaves_nothing() {
    let (tf, kube) = match setup() {
        Ok(s) => s,
        Err(why) => return skip(why),
    };
    let w = Workdir::new(&tf, &probe(&kube, AUTO_MODE_P5EN));
    w.init();
    for (outcome, result, says) in [
        (
            "no_compatible_instance_types",
            "no_compatible_instance_types",
            "filtered out all compatible",
        ),
        (
            "insufficient_capacity",
            "insufficient_capacity",
            "insufficient capacity",
        ),
    ] {
        kube.simulate_karpenter(json!({"enabled": true, "flavor": "auto_mode", "outcome": outcome}))
            .unwrap_or_else(|e| panic!("{e}"));
        w.ok(&["apply", "-auto-approve", "-replace=eksgpu_capacity_probe.p"]);
        let o = outputs(&w);
        assert_eq!(o["result"], result, "{o}");
        assert!(o["message"].as_str().unwrap_or_default().contains(says), "{o}");
        assert!(o["ready_after"].is_null() && o["answers"] == json!([]), "{o}");
        nothing_left(&kube);
    }
    // No word from Karpenter at all: the timeout decides.
    kube.simulate_karpenter(json!({"enabled": true, "outcome": "pending"}))
        .unwrap_or_else(|e| panic!("{e}"));
    w.write("main.tf", &probe(&kube, &AUTO_MODE_P5EN.replace("\"2m\"", "\"6s\"")));
    let started = Instant::now();
    w.apply();
    let o = outputs(&w);
    assert_eq!(o["result"], "timeout", "{o}");
    assert!(started.elapsed() < Duration::from_secs(60));
    nothing_left(&kube);
    // A launch that keeps failing: `failed`, with Karpenter's reason.
    kube.simulate_karpenter(json!({"enabled": true, "outcome": "launch_failed"}))
        .unwrap_or_else(|e| panic!("{e}"));
    w.ok(&["apply", "-auto-approve", "-replace=eksgpu_capacity_probe.p"]);
    let o = outputs(&w);
    assert_eq!(o["result"], "failed", "{o}");
    assert!(
        o["message"].as_str().unwrap_or_default().contains("Unauthorized"),
        "{o}"
    );
    nothing_left(&kube);
}

/// Waits until the simulation has launched an instance for the probe (bounded).
fn until_an_instance_runs(kube: &KubeTarget) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let record = kube.karpenter_record();
        if record["nodeclaims"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|c| c["instance"]["running"] == true)
        {
            return;
        }
        assert!(Instant::now() < deadline, "no instance launched: {record}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The node launches but never becomes ready (initialization takes ten minutes).
const SLOW: &str =
    r#"{"enabled": true, "outcome": "provisioned", "launch_ms": 100, "register_ms": 100, "initialize_ms": 600000}"#;

#[test]
fn ctrl_c_stops_the_probe_and_its_instance_is_gone() {
    let (tf, kube) = match setup() {
        Ok(s) => s,
        Err(why) => return skip(why),
    };
    kube.simulate_karpenter(serde_json::from_str(SLOW).unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}"));
    let w = Workdir::new(&tf, &probe(&kube, AUTO_MODE_P5EN));
    w.init();
    let mut child = w.spawn(&["apply", "-auto-approve", "-no-color"]);
    until_an_instance_runs(&kube);
    let interrupted = Instant::now();
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    loop {
        if let Some(code) = child.try_wait().expect("wait") {
            assert!(!code.success());
            break;
        }
        assert!(
            interrupted.elapsed() < Duration::from_secs(60),
            "terraform still running 60 s after Ctrl-C"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = child.wait_with_output().expect("output");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
    .split_whitespace()
    .collect::<Vec<_>>()
    .join(" ");
    assert!(
        text.contains("cancelled") && text.contains("nothing it launched is left"),
        "{text}"
    );
    nothing_left(&kube);
    assert!(w.state()["values"].is_null() || w.state()["values"]["root_module"]["resources"].is_null());
}

/// The provider processes that are children of `parent` (Terraform starts one per plugin use).
fn provider_children(parent: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // pid (comm) state ppid …
        let after = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or_default();
        let ppid = after.split_whitespace().nth(1).and_then(|p| p.parse::<u32>().ok());
        let cmd = std::fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if ppid == Some(parent) && cmd.contains("terraform-provider-eksgpu") {
            found.push(pid);
        }
    }
    found
}

#[test]
fn a_provider_killed_mid_probe_is_cleaned_up_by_the_next_apply() {
    let (tf, kube) = match setup() {
        Ok(s) => s,
        Err(why) => return skip(why),
    };
    kube.simulate_karpenter(serde_json::from_str(SLOW).unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}"));
    let w = Workdir::new(&tf, &probe(&kube, AUTO_MODE_P5EN));
    w.init();
    let child = w.spawn(&["apply", "-auto-approve", "-no-color"]);
    until_an_instance_runs(&kube);
    let providers = provider_children(child.id());
    assert!(
        !providers.is_empty(),
        "no provider process under terraform {}",
        child.id()
    );
    for pid in providers {
        let _ = std::process::Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
    let out = child.wait_with_output().expect("output");
    assert!(!out.status.success());
    // The crash left the probe's objects and its instance.
    assert!(kube.get(NODE_POOL, "eksgpu-probe-p5en").is_some());
    // Until its heartbeat is 30 s old a run counts as alive (another state's, say).
    std::thread::sleep(Duration::from_secs(31));
    // The next apply removes them before it probes afresh.
    kube.simulate_karpenter(json!({"enabled": true, "outcome": "provisioned"}))
        .unwrap_or_else(|e| panic!("{e}"));
    let r = w.apply();
    assert!(
        r.combined().contains("Removed what an earlier run of this probe left"),
        "{}",
        r.combined()
    );
    assert_eq!(outputs(&w)["result"], "provisioned");
    nothing_left(&kube);
    w.ok(&["destroy", "-auto-approve"]);
    nothing_left(&kube);
}

#[test]
fn another_owners_objects_are_never_touched() {
    let (tf, kube) = match setup() {
        Ok(s) => s,
        Err(why) => return skip(why),
    };
    kube.simulate_karpenter(json!({"enabled": true, "outcome": "provisioned"}))
        .unwrap_or_else(|e| panic!("{e}"));
    // A NodePool someone else made under the probe's name.
    let theirs = json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
        "metadata": {"name": "eksgpu-probe-p5en", "labels": {"team": "ml"}},
        "spec": {"template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
            "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["p5.48xlarge"]}]}}}});
    kube.create(NODE_POOL, None, theirs, "kubectl");
    let before = kube.get(NODE_POOL, "eksgpu-probe-p5en");
    let w = Workdir::new(&tf, &probe(&kube, AUTO_MODE_P5EN));
    w.init();
    let r = w.run(&["apply", "-auto-approve", "-no-color"]);
    let text = r.combined();
    assert_ne!(r.code, 0, "{text}");
    assert!(
        text.contains("is not this probe's") && text.contains("kubectl"),
        "{text}"
    );
    assert_eq!(
        kube.get(NODE_POOL, "eksgpu-probe-p5en").map(|o| o["spec"].clone()),
        before.map(|o| o["spec"].clone())
    );
    assert_eq!(launched(&kube), 0, "nothing may launch");
    // A NodeClaim of another NodePool is not the probe's to delete or wait for.
    kube.delete(NODE_POOL, None, "eksgpu-probe-p5en");
    // Labelled with the probe's NodePool but owned by another object: not the probe's.
    let foreign = json!({"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
        "metadata": {"name": "team-pool-abcde", "labels": {"karpenter.sh/nodepool": "eksgpu-probe-p5en"},
                     "ownerReferences": [{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "name": "team-pool",
                                          "uid": "00000000-0000-4000-8000-00000000beef"}]},
        "spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                 "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["p5.48xlarge"]}]}});
    kube.create(NODE_CLAIM, None, foreign, "karpenter");
    w.apply();
    assert_eq!(outputs(&w)["result"], "provisioned");
    assert!(
        kube.get(NODE_CLAIM, "team-pool-abcde").is_some(),
        "another NodePool's NodeClaim"
    );
    w.ok(&["destroy", "-auto-approve"]);
    assert!(kube.get(NODE_CLAIM, "team-pool-abcde").is_some());
}

/// A run of the same probe alive elsewhere (another state) is refused, not cleaned up.
#[test]
fn a_run_in_progress_elsewhere_is_refused_not_cleaned_up() {
    let (tf, kube) = match setup() {
        Ok(s) => s,
        Err(why) => return skip(why),
    };
    kube.simulate_karpenter(serde_json::from_str(SLOW).unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}"));
    let first = Workdir::new(&tf, &probe(&kube, AUTO_MODE_P5EN));
    first.init();
    let child = first.spawn(&["apply", "-auto-approve", "-no-color"]);
    until_an_instance_runs(&kube);
    let second = Workdir::new(&tf, &probe(&kube, AUTO_MODE_P5EN));
    second.init();
    let r = second.run(&["apply", "-auto-approve", "-no-color"]);
    let text = r.combined().split_whitespace().collect::<Vec<_>>().join(" ");
    assert_ne!(r.code, 0, "{text}");
    assert!(text.contains("Another run of this probe is in progress"), "{text}");
    assert_eq!(launched(&kube), 1, "the second run launched nothing");
    assert!(
        kube.list(NODE_CLAIM, "karpenter.sh/nodepool=eksgpu-probe-p5en")
            .iter()
            .all(|c| c["metadata"]["deletionTimestamp"].is_null()),
        "the first run's NodeClaim is untouched"
    );
    let _ = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let out = child.wait_with_output().expect("output");
    assert!(!out.status.success());
    nothing_left(&kube);
}

#[test]
fn what_cannot_launch_is_refused_at_plan() {
    let Some(tf) = current() else {
        return skip("needs the current Terraform CLI (EKSGPU_TF_VERSIONS)");
    };
    let kube = KubeTarget::start();
    let w = Workdir::new(
        &tf,
        &probe(
            &kube,
            r#"  capacity = "karpenter"
  instance_types = ["p5.48xlarge", "trn2.48xlarge", "m5.large"]"#,
        ),
    );
    w.init();
    let (code, r) = w.plan_code(&[]);
    let text = r.combined();
    assert_eq!(code, 1, "{text}");
    for c in ["EKSGPU016", "EKSGPU362", "EKSGPU363"] {
        assert!(text.contains(c), "{c}: {text}");
    }
    assert!(
        kube.requests().iter().all(|r| r["method"] == "GET"),
        "a plan writes nothing"
    );
    // A Capacity Block type without `reserved` can only time out: refused at its type.
    w.write(
        "main.tf",
        &probe(
            &kube,
            r#"  capacity = "karpenter"
  node_class = "gb200"
  instance_types = ["p6e-gb200.36xlarge"]"#,
        ),
    );
    let (code, r) = w.plan_code(&[]);
    let text = r.combined();
    assert_eq!(code, 1, "{text}");
    let code365 = "EKSGPU365";
    assert!(text.contains(&format!("Error: {code365}")), "{text}");
    // An Auto Mode family the instance table does not list: a warning (proving it may be the point).
    w.write(
        "main.tf",
        &probe(
            &kube,
            r#"  capacity = "auto_mode"
  instance_types = ["g6f.xlarge"]"#,
        ),
    );
    let (code, r) = w.plan_code(&[]);
    let text = r.combined();
    assert_eq!(code, 2, "{text}");
    let code364 = "EKSGPU364";
    assert!(text.contains(&format!("Warning: {code364}")), "{text}");
}

/// The NodePool and pod the probe applies, from its plan, applied to the server: in the real
/// API server lane the real `apiextensions-apiserver` judges the NodePool.
#[test]
fn the_probe_s_objects_pass_the_server() {
    let Some(tf) = current() else {
        return skip("needs the current Terraform CLI (EKSGPU_TF_VERSIONS)");
    };
    let kube = KubeTarget::start();
    for body in [
        AUTO_MODE_P5EN.to_owned(),
        r#"  capacity       = "karpenter"
  node_class     = "gpu"
  instance_types = ["trn2.48xlarge", "trn1.32xlarge"]
  capacity_types = ["on-demand", "spot"]"#
            .to_owned(),
    ] {
        let w = Workdir::new(&tf, &probe(&kube, &body));
        w.init();
        w.ok(&["plan", "-out=tfplan"]);
        let plan: Value = serde_json::from_str(&w.ok(&["show", "-json", "tfplan"]).stdout).unwrap_or_default();
        let yaml = plan["planned_values"]["root_module"]["resources"][0]["values"]["manifests_yaml"]
            .as_str()
            .unwrap_or_else(|| panic!("no manifests_yaml in {plan}"))
            .to_owned();
        let docs: Vec<Value> = yaml
            .split("\n---\n")
            .map(|d| serde_saphyr::from_str(d).unwrap_or_else(|e| panic!("{e}: {d}")))
            .collect();
        assert_eq!(docs.len(), 2);
        kube.create(NODE_POOL, None, docs[0].clone(), "terraform-provider-eksgpu");
        kube.create(POD, Some("default"), docs[1].clone(), "terraform-provider-eksgpu");
        assert!(kube.get(NODE_POOL, "eksgpu-probe-p5en").is_some());
        kube.delete(NODE_POOL, None, "eksgpu-probe-p5en");
        kube.delete(POD, Some("default"), "eksgpu-probe-p5en");
    }
}
