//! The real API server lane only (`EKSGPU_KUBE_UPSTREAM`, see `src/kube.rs`):
//! every object the examples render into `manifests_yaml` at plan time is
//! server-side applied (dry run) to the real `apiextensions-apiserver`, which
//! judges what the emulator does not model: CEL rules and the whole upstream
//! schemas. Core kinds (ConfigMap, Namespace) are not served there: counted,
//! not checked. The custom objects the upstream charts render from the
//! examples' Helm values (the gpu-operator chart's ClusterPolicy, from
//! `../shared/charts`) are applied the same way, and so is the GB200 scenario's
//! ComputeDomain, against upstream's CRD from `../shared/crds`. A second test
//! probes pool settings at the edges of the CRDs: each must fail at plan or be
//! accepted.

use eksgpu_acceptance_tests::hcl::provider_header;
use eksgpu_acceptance_tests::helm;
use eksgpu_acceptance_tests::kube::upstream_kubeconfig;
use eksgpu_acceptance_tests::{Workdir, eks_cluster, skip, terraform_versions};
use kube::api::{Api, DynamicObject, Patch, PatchParams};
use kube::core::GroupVersionKind;
use serde_json::Value;
use std::collections::BTreeMap;

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
    "examples/scenarios/efa-training",
    "examples/scenarios/capacity-block",
    "examples/scenarios/bottlerocket",
    "examples/scenarios/neuron-inference",
    "examples/scenarios/frontier-and-volume",
    "examples/scenarios/karpenter-mig-overlay",
    "examples/scenarios/static-dra",
];

/// Examples whose objects need upstream CRDs read from `../shared/crds` (their kinds are served
/// only where those are present).
const WITH_SHARED_CRDS: &[&str] = &["examples/scenarios/gb200-training"];

/// Kinds the upstream charts render whose CRDs the real server has (the gpu-operator v26.7.0
/// `nvidia.com_clusterpolicies.yaml` in `kube-emulator/crds/`).
const CHART_KINDS: &[&str] = &["ClusterPolicy"];

/// Rejections the real server gives today, as `label: Kind name: message
/// fragment`; each is a rendering or a plan-time check fixed outside this
/// lane. The list is exact: a new rejection fails, and so does one that no
/// longer happens (then take it off); while any happens, the test reports
/// itself skipped as a known failure, not passed.
const KNOWN: &[&str] = &[
    // Empty: the alias format, Karpenter's restricted label domains and keys, and
    // label value syntax are checked at plan now (the edges below prove it).
];

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
        .map_err(|e| match e {
            kube::Error::Api(s) => format!("{} {}", s.code, s.message),
            e => e.to_string(),
        })
}

/// The real server, straight (not through the emulator), and its verdicts.
struct Judge {
    runtime: tokio::runtime::Runtime,
    client: kube::Client,
    accepted: BTreeMap<String, u32>,
    rejected: Vec<String>,
    core: u32,
}

impl Judge {
    /// A judge on an empty server: an emulator starting in front of the real
    /// server deletes every custom object, so nothing an earlier test left (and
    /// another field manager owns) turns a dry run into a conflict.
    fn new(kubeconfig: &str) -> Judge {
        drop(eksgpu_acceptance_tests::kube::KubeTarget::start());
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap_or_else(|e| panic!("{e}"));
        let client = runtime.block_on(async {
            let kc = kube::config::Kubeconfig::read_from(kubeconfig).unwrap_or_else(|e| panic!("{e}"));
            let config = kube::Config::from_custom_kubeconfig(kc, &Default::default())
                .await
                .unwrap_or_else(|e| panic!("{e}"));
            kube::Client::try_from(config).unwrap_or_else(|e| panic!("{e}"))
        });
        Judge {
            runtime,
            client,
            accepted: BTreeMap::new(),
            rejected: Vec::new(),
            core: 0,
        }
    }

    /// Applies every object a saved plan `p.tfplan` in `w` renders, and the custom objects the
    /// upstream charts render from its Helm values (where `../shared/charts` is present).
    fn plan(&mut self, label: &str, w: &Workdir) {
        let plan: Value = serde_json::from_str(&w.ok(&["show", "-json", "p.tfplan"]).stdout).unwrap_or_default();
        let mut streams = Vec::new();
        manifests(&plan["planned_values"], &mut streams);
        assert!(!streams.is_empty(), "{label}: no manifests_yaml at plan");
        let mut objects: Vec<Value> = streams
            .iter()
            .flat_map(|s| s.split("\n---\n"))
            .map(|doc| serde_saphyr::from_str(doc).unwrap_or_else(|e| panic!("{label}: {e}\n{doc}")))
            .collect();
        let lane = helm::charts_dir().and_then(|c| eksgpu_acceptance_tests::tools::helm_python().map(|_| c));
        if let Err(why) = &lane {
            eprintln!("{label}: the charts' objects not applied: {why}");
        }
        if let Ok(charts) = lane {
            let jobs: Vec<helm::Job<'_>> = helm::records::from_plan(&plan, label)
                .iter()
                .filter_map(|r| r.attributes["gpu_operator_values_yaml"].as_str())
                .filter(|t| !t.trim().is_empty())
                .map(|t| helm::Job {
                    chart: &helm::GPU_OPERATOR,
                    values_yaml: t.to_owned(),
                })
                .collect();
            for rendered in helm::render(&charts, &jobs) {
                let rendered = rendered.unwrap_or_else(|e| panic!("{label}: the gpu-operator chart refuses: {e}"));
                objects.extend(
                    rendered
                        .objects
                        .into_iter()
                        .map(|(_, o)| o)
                        .filter(|o| CHART_KINDS.iter().any(|k| o["kind"] == *k)),
                );
            }
        }
        for obj in objects {
            let kind = obj["kind"].as_str().unwrap_or_default().to_owned();
            if !obj["apiVersion"].as_str().unwrap_or_default().contains('/') {
                self.core += 1;
                continue;
            }
            match self.runtime.block_on(apply(&self.client, &obj)) {
                Ok(()) => *self.accepted.entry(kind).or_insert(0) += 1,
                Err(e) => self.rejected.push(format!(
                    "{label}: {kind} {}: {e}",
                    obj["metadata"]["name"].as_str().unwrap_or_default()
                )),
            }
        }
    }

    /// Prints the verdicts; fails on rejections not in KNOWN, and on KNOWN
    /// entries of these labels that no longer happen.
    fn verdict(self, labels: &[&str]) {
        eprintln!(
            "real API server: accepted {:?}, {} rejected, {} core objects not checked",
            self.accepted,
            self.rejected.len(),
            self.core
        );
        let new: Vec<&String> = self
            .rejected
            .iter()
            .filter(|r| !KNOWN.iter().any(|k| r.contains(k)))
            .collect();
        let gone: Vec<&&str> = KNOWN
            .iter()
            .filter(|k| labels.iter().any(|l| k.starts_with(&format!("{l}:"))))
            .filter(|k| !self.rejected.iter().any(|r| r.contains(*k)))
            .collect();
        assert!(new.is_empty(), "rejected by the real API server:\n{}", join(&new));
        assert!(gone.is_empty(), "now accepted, take off KNOWN:\n{}", join(&gone));
        // Known rejections make the test a known failure: counted as skipped, not passed.
        if !self.rejected.is_empty() {
            skip(&format!(
                "known failures on the real API server, fixed elsewhere (KNOWN):\n{}",
                join(&self.rejected)
            ));
        }
    }
}

fn join(v: &[impl std::fmt::Display]) -> String {
    v.iter().map(|x| format!("  {x}\n")).collect()
}

#[test]
fn the_real_server_accepts_every_object_the_examples_render() {
    let Some(kubeconfig) = upstream_kubeconfig() else {
        return skip("runs in the real API server lane only (EKSGPU_KUBE_UPSTREAM)");
    };
    let Some(tf) = terraform_versions().into_iter().next() else {
        return skip("no Terraform CLI selected");
    };
    let mut judge = Judge::new(&kubeconfig);
    let (_kube, moto) = eks_cluster("gpu-cluster");
    let mut examples = EXAMPLES.to_vec();
    match eksgpu_acceptance_tests::kube::compute_domain_crds() {
        Ok(_) => examples.extend(WITH_SHARED_CRDS),
        Err(why) => eprintln!("left out {WITH_SHARED_CRDS:?}: {why}"),
    }
    for example in &examples {
        let mut w = Workdir::from_example(&tf, example);
        w.env("AWS_ENDPOINT_URL", &moto.url());
        w.init();
        w.ok(&["plan", "-no-color", "-out", "p.tfplan"]);
        judge.plan(example, &w);
    }
    eprintln!("applied the charts' {CHART_KINDS:?} where ../shared/charts is present");
    judge.verdict(&examples);
}

/// Pool settings at the edges of what the upstream CRDs allow (their CEL rules
/// and patterns, which the emulator does not model). The provider's promise:
/// a configuration that plans is accepted; the others fail at plan.
const EDGES: &[(&str, &str)] = &[
    (
        "ami alias without a version",
        "node_class = {\n      role = \"R\"\n      ami_alias = \"al2023\"\n    }",
    ),
    (
        "ami alias of another family",
        "node_class = {\n      role = \"R\"\n      ami_alias = \"bottlerocket@latest\"\n    }",
    ),
    (
        "restricted label domain",
        "labels = { \"karpenter.sh/team\" = \"a\" }\n    node_class = {\n      role = \"R\"\n    }",
    ),
    (
        "kubernetes.io label",
        "labels = { \"kubernetes.io/hostname\" = \"a\" }\n    node_class = {\n      role = \"R\"\n    }",
    ),
    (
        "label value with a space",
        "labels = { \"team\" = \"a b\" }\n    node_class = {\n      role = \"R\"\n    }",
    ),
    (
        "consolidate_after in words",
        "disruption = {\n      consolidation_policy = \"WhenEmpty\"\n      consolidate_after = \"5 minutes\"\n    }\n    node_class = {\n      role = \"R\"\n    }",
    ),
    ("upper-case pool name", ""),
    (
        "budget schedule without a duration",
        "disruption = {\n      consolidate_after = \"5m\"\n      budgets = [\n        {\n          nodes = \"0\"\n          schedule = \"@daily\"\n        },\n      ]\n    }\n    node_class = {\n      role = \"R\"\n    }",
    ),
    (
        "budget of 101%",
        "disruption = {\n      consolidate_after = \"5m\"\n      budgets = [\n        {\n          nodes = \"101%\"\n        },\n      ]\n    }\n    node_class = {\n      role = \"R\"\n    }",
    ),
    (
        "budget duration in seconds",
        "disruption = {\n      consolidate_after = \"5m\"\n      budgets = [\n        {\n          nodes = \"0\"\n          schedule = \"0 9 * * *\"\n          duration = \"90s\"\n        },\n      ]\n    }\n    node_class = {\n      role = \"R\"\n    }",
    ),
    (
        "budget with a descriptor and 0s suffix",
        "disruption = {\n      consolidate_after = \"5m\"\n      budgets = [\n        {\n          nodes = \"0\"\n          schedule = \"@daily\"\n          duration = \"1h30m0s\"\n          reasons = [\"Drifted\"]\n        },\n      ]\n    }\n    node_class = {\n      role = \"R\"\n    }",
    ),
    (
        "reservation id with tags",
        "capacity_types = [\"reserved\"]\n    node_class = {\n      role = \"R\"\n      capacity_reservations = [\n        {\n          id = \"cr-0123456789abcdef0\"\n          tags = { a = \"b\" }\n        },\n      ]\n    }",
    ),
    (
        "reservation by tags and owner",
        "capacity_types = [\"reserved\"]\n    node_class = {\n      role = \"R\"\n      capacity_reservations = [\n        {\n          tags = { purpose = \"*\" }\n          owner_id = \"123456789012\"\n        },\n      ]\n    }",
    ),
    (
        "hop limit 65",
        "node_class = {\n      role = \"R\"\n      metadata_options = {\n        http_put_response_hop_limit = 65\n      }\n    }",
    ),
    (
        "root volume without a size",
        "node_class = {\n      role = \"R\"\n      root_volume = {\n        volume_type = \"gp3\"\n      }\n    }",
    ),
    (
        "requirements on well-known labels with every operator",
        "requirements = [\n      {\n        key = \"karpenter.k8s.aws/instance-gpu-manufacturer\"\n        operator = \"In\"\n        values = [\"nvidia\"]\n      },\n      {\n        key = \"karpenter.k8s.aws/instance-gpu-count\"\n        operator = \"Gt\"\n        values = [\"1\"]\n      },\n      {\n        key = \"karpenter.k8s.aws/instance-gpu-memory\"\n        operator = \"Lt\"\n        values = [\"100000\"]\n      },\n      {\n        key = \"karpenter.k8s.aws/instance-family\"\n        operator = \"NotIn\"\n        values = [\"g5\"]\n      },\n      {\n        key = \"karpenter.k8s.aws/instance-local-nvme\"\n        operator = \"Exists\"\n      },\n    ]\n    termination_grace_period = \"24h\"\n    node_class = {\n      role = \"R\"\n    }",
    ),
    (
        "node class upstream inputs",
        "node_class = {\n  instance_profile = \"KarpenterNodeInstanceProfile\"\n  detailed_monitoring = true\n  associate_public_ip_address = false\n  subnet_selector_ids = [\"subnet-0123456789abcdef0\"]\n  security_group_selector_ids = [\"sg-0123456789abcdef0\"]\n  user_data = \"#!/bin/bash\\n  echo hello\\n  \"\n}",
    ),
    (
        "block device mappings beside the root volume",
        "node_class = {\n      role = \"R\"\n      root_volume = {\n        size = \"200Gi\"\n      }\n      block_device_mappings = [\n        {\n          device_name = \"/dev/xvdb\"\n          volume_size = \"500Gi\"\n          volume_type = \"gp3\"\n          iops = 16000\n          throughput = 1000\n          encrypted = true\n          delete_on_termination = true\n        },\n      ]\n    }",
    ),
    (
        "network interfaces on EFA cards",
        "instance_types = [\"p5.48xlarge\"]\n    efa = true\n    zones = [\"us-west-2a\"]\n    node_class = {\n      role = \"R\"\n      network_interfaces = [\n        {\n          network_card_index = 0\n          device_index = 0\n          interface_type = \"interface\"\n        },\n        {\n          network_card_index = 1\n          device_index = 1\n          interface_type = \"efa-only\"\n        },\n      ]\n    }",
    ),
    (
        "limits, weight and expiry",
        "cpu_limit = \"1.5k\"\n    memory_limit = \"4Ti\"\n    weight = 100\n    expire_after = \"336h\"\n    node_class = {\n      role = \"R\"\n      instance_store_policy = \"RAID0\"\n    }",
    ),
];

#[test]
fn configurations_that_plan_are_accepted_by_the_real_server() {
    let Some(kubeconfig) = upstream_kubeconfig() else {
        return skip("runs in the real API server lane only (EKSGPU_KUBE_UPSTREAM)");
    };
    let Some(tf) = terraform_versions().into_iter().next() else {
        return skip("no Terraform CLI selected");
    };
    let mut judge = Judge::new(&kubeconfig);
    let mut refused_at_plan = Vec::new();
    for (label, body) in EDGES {
        let name = if label.starts_with("upper-case") { "GPU" } else { "gpu" };
        let w = Workdir::new(
            &tf,
            &format!(
                "{}resource \"eksgpu_node_strategy\" \"s\" {{\n  cluster_name = \"c\"\n  name = \"s\"\n  \
                 pools = {{\n  {name} = {{\n    capacity = \"{}\"\n    {}\n    {body}\n  }}\n  }}\n}}\n",
                provider_header(),
                if body.contains("node_class") {
                    "karpenter"
                } else {
                    "auto_mode"
                },
                // An edge may name its own types (EFA on p5); the others run on g6e.12xlarge.
                if body.contains("instance_types") {
                    ""
                } else {
                    "instance_types = [\"g6e.12xlarge\"]"
                }
            ),
        );
        w.init();
        let r = w.run(&["plan", "-no-color", "-out", "p.tfplan"]);
        if r.code == 0 {
            judge.plan(label, &w);
        } else {
            refused_at_plan.push(*label);
        }
    }
    eprintln!("refused at plan: {refused_at_plan:?}");
    let labels: Vec<&str> = EDGES.iter().map(|(l, _)| *l).collect();
    judge.verdict(&labels);
}
