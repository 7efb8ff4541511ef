//! The real API server lane only (`EKSGPU_KUBE_UPSTREAM`, see `src/kube.rs`):
//! every object the examples render into `manifests_yaml` at plan time is
//! server-side applied (dry run) to the real `apiextensions-apiserver`, which
//! judges what the emulator does not model: CEL rules and the whole upstream
//! schemas. Core kinds (ConfigMap, Namespace) are not served there: counted,
//! not checked.

use eksgpu_acceptance_tests::kube::upstream_kubeconfig;
use eksgpu_acceptance_tests::{Workdir, eks_cluster, skip, terraform_versions};
use kube::api::{Api, DynamicObject, Patch, PatchParams};
use kube::core::GroupVersionKind;
use serde_json::Value;

/// Every example with in-cluster objects. Their `manifests_yaml` are known at
/// plan; the examples that read `eksgpu_cluster` get it from moto.
const EXAMPLES: &[&str] = &[
    "examples/quickstart",
    "examples/resources/eksgpu_node_strategy",
    "examples/resources/eksgpu_sharing_pool",
    "examples/resources/eksgpu_burst_scaler",
    "examples/scenarios/a10g-sharing",
    "examples/scenarios/mig-inference",
    "examples/scenarios/mng-dra",
    "examples/scenarios/onprem-burst",
    "examples/scenarios/three-kind-cluster",
];

/// Rejections the real server gives today, as `example: Kind name: message
/// fragment`; each is a rendering bug fixed outside this lane. The list is
/// exact: a new rejection fails, and so does one that no longer happens (then
/// take it off).
const KNOWN: &[&str] = &[];

fn manifests(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                match (k.as_str(), v) {
                    ("manifests_yaml", Value::String(s)) => out.push(s.clone()),
                    _ => manifests(v, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|v| manifests(v, out)),
        _ => {}
    }
}

/// Dry-run server-side apply of one object; the server's message if refused.
async fn apply(client: &kube::Client, obj: &Value) -> Result<(), String> {
    let api_version = obj["apiVersion"].as_str().unwrap_or_default();
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    let gvk = GroupVersionKind::gvk(group, version, obj["kind"].as_str().unwrap_or_default());
    let (resource, caps) = kube::discovery::pinned_kind(client, &gvk)
        .await
        .map_err(|e| format!("not served: {e}"))?;
    let api: Api<DynamicObject> = if caps.scope == kube::discovery::Scope::Namespaced {
        let ns = obj["metadata"]["namespace"].as_str().unwrap_or("default");
        Api::namespaced_with(client.clone(), ns, &resource)
    } else {
        Api::all_with(client.clone(), &resource)
    };
    let name = obj["metadata"]["name"].as_str().unwrap_or_default();
    let params = PatchParams::apply("terraform-provider-eksgpu").dry_run();
    api.patch(name, &params, &Patch::Apply(obj))
        .await
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[test]
fn the_real_server_accepts_every_object_the_examples_render() {
    let Some(kubeconfig) = upstream_kubeconfig() else {
        return skip("runs in the real API server lane only (EKSGPU_KUBE_UPSTREAM)");
    };
    let Some(tf) = terraform_versions().into_iter().next() else {
        return skip("no Terraform CLI selected");
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let client = runtime.block_on(async {
        let kc = kube::config::Kubeconfig::read_from(&kubeconfig).unwrap_or_else(|e| panic!("{e}"));
        let config = kube::Config::from_custom_kubeconfig(kc, &Default::default())
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        kube::Client::try_from(config).unwrap_or_else(|e| panic!("{e}"))
    });
    let (mut rejected, mut accepted, mut core) = (Vec::new(), std::collections::BTreeMap::new(), 0);
    let (_kube, moto) = eks_cluster("gpu-cluster");
    for example in EXAMPLES {
        let mut w = Workdir::from_example(&tf, example);
        w.env("AWS_ENDPOINT_URL", &moto.url());
        w.init();
        w.ok(&["plan", "-no-color", "-out", "p.tfplan"]);
        let plan: Value = serde_json::from_str(&w.ok(&["show", "-json", "p.tfplan"]).stdout).unwrap_or_default();
        let mut streams = Vec::new();
        manifests(&plan["planned_values"], &mut streams);
        assert!(!streams.is_empty(), "{example}: no manifests_yaml at plan");
        for doc in streams.iter().flat_map(|s| s.split("\n---\n")) {
            let obj: Value = serde_saphyr::from_str(doc).unwrap_or_else(|e| panic!("{example}: {e}\n{doc}"));
            if !obj["apiVersion"].as_str().unwrap_or_default().contains('/') {
                core += 1;
                continue;
            }
            match runtime.block_on(apply(&client, &obj)) {
                Ok(()) => {
                    *accepted
                        .entry(obj["kind"].as_str().unwrap_or_default().to_owned())
                        .or_insert(0) += 1
                }
                Err(e) => rejected.push(format!(
                    "{example}: {} {}: {e}",
                    obj["kind"].as_str().unwrap_or_default(),
                    obj["metadata"]["name"].as_str().unwrap_or_default()
                )),
            }
        }
    }
    eprintln!(
        "real API server: accepted {accepted:?}, {} rejected, {core} core objects not checked",
        rejected.len()
    );
    let new: Vec<&String> = rejected
        .iter()
        .filter(|r| !KNOWN.iter().any(|k| r.contains(k)))
        .collect();
    let gone: Vec<&&str> = KNOWN
        .iter()
        .filter(|k| !rejected.iter().any(|r| r.contains(*k)))
        .collect();
    assert!(new.is_empty(), "rejected by the real API server:\n{}", join(&new));
    assert!(gone.is_empty(), "now accepted, take off KNOWN:\n{}", join(&gone));
}

fn join(v: &[impl std::fmt::Display]) -> String {
    v.iter().map(|x| format!("  {x}\n")).collect()
}
