//! The ComputeDomain of a `multi_node_nvlink` node group pool (GB200, NVIDIA DRA driver), through
//! the real Terraform CLIs against moto (the node group) and the kube emulator (the ComputeDomain):
//! create, drift, a move to another namespace, an out-of-band delete, import, destroy; refusal of one
//! another owner holds; the pool and strategy outputs a workload module reads.
//!
//! ComputeDomain is upstream's CRD (dra-driver-nvidia-gpu v0.4.1, read from `../shared/crds/`):
//! the emulator serves it, and in the real API server lane the real server judges every
//! ComputeDomain against it. Where `../shared/crds` is absent the tests that need the kind say
//! SKIPPED.

use eksgpu_acceptance_tests::hcl::provider_header;
use eksgpu_acceptance_tests::kube::{
    COMPUTE_DOMAIN, EmulatorOptions, KubeTarget, NAMESPACE, compute_domain_crds, upstream_kubeconfig,
};
use eksgpu_acceptance_tests::{Moto, Workdir, skip, terraform_versions};
use serde_json::{Value, json};

const NODE_ROLE: &str = "arn:aws:iam::123456789012:role/gpu-nodes";

/// Why this lane cannot run these tests, if it cannot: decided before anything starts.
fn cannot_reach() -> Option<String> {
    if std::env::var_os("EKSGPU_TEST_KUBECONFIG").is_some_and(|v| !v.is_empty()) {
        return Some("needs the emulator behind moto's DescribeCluster, not EKSGPU_TEST_KUBECONFIG".into());
    }
    None
}

/// [`cannot_reach`], or the ComputeDomain kind is not to be had here.
fn cannot_run() -> Option<String> {
    cannot_reach().or_else(|| compute_domain_crds().err())
}

/// A cluster "gpu" on Kubernetes 1.34 (DRA on node groups, EKSGPU004) in moto, served by the emulator,
/// with the workloads' namespace.
fn cluster() -> (KubeTarget, Moto) {
    cluster_without(&[])
}

/// [`cluster`], with the emulator serving none of `kinds` (`plural.group`).
fn cluster_without(kinds: &[&str]) -> (KubeTarget, Moto) {
    let kube = KubeTarget::start_with(&EmulatorOptions {
        eks_cluster: Some("gpu".into()),
        without: kinds.iter().map(|k| (*k).to_owned()).collect(),
    });
    let moto = Moto::start();
    moto.create_cluster("gpu", "1.34", &kube.url, kube.ca_pem.as_deref().unwrap_or_default());
    for ns in ["training", "research"] {
        kube.create(
            NAMESPACE,
            None,
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}),
            "kubectl",
        );
    }
    (kube, moto)
}

/// A GB200 DRA node group pool with its ComputeDomain in `namespace`.
fn config(namespace: &str) -> String {
    config_with(namespace, "")
}

/// [`config`] with more pool attributes (`extra`, one per line).
fn config_with(namespace: &str, extra: &str) -> String {
    format!(
        r#"{}data "eksgpu_cluster" "gpu" {{
  name = "gpu"
}}

resource "eksgpu_node_strategy" "s" {{
  cluster_name = "gpu"
  name         = "training"
  pools = {{
    nvl72 = {{
      capacity                 = "managed_node_group"
      instance_types           = ["p6e-gb200.36xlarge"]
      capacity_types           = ["capacity-block"]
      dra                      = true
      multi_node_nvlink        = true
      compute_domain_namespace = "{namespace}"
      {extra}
      managed_node_group = {{
        node_role_arn = "{NODE_ROLE}"
        subnet_ids    = data.eksgpu_cluster.gpu.subnet_ids
        ami_type      = "AL2023_ARM_64_NVIDIA"
        capacity_reservation_id = "cr-0123456789abcdef0"
        scaling = {{
          min     = 0
          max     = 18
          desired = 0
        }}
      }}
    }}
  }}
}}

output "claim_template" {{
  value = eksgpu_node_strategy.s.pools["nvl72"].compute_domain_claim_template
}}

output "clique" {{
  value = eksgpu_node_strategy.s.pools["nvl72"].clique_topology_key
}}

output "dra_values" {{
  value = eksgpu_node_strategy.s.dra_driver_values_yaml
}}
"#,
        provider_header()
    )
}

fn workdir(tf: &eksgpu_acceptance_tests::TerraformVersion, main_tf: &str, moto: &Moto) -> Workdir {
    let mut w = Workdir::new(tf, main_tf);
    w.env("AWS_ENDPOINT_URL", &moto.url());
    w.init();
    w
}

fn output(w: &Workdir, name: &str) -> Value {
    w.state()["values"]["outputs"][name]["value"].clone()
}

#[test]
fn a_gb200_node_group_owns_its_compute_domain_create_drift_move_delete() {
    for tf in terraform_versions() {
        if let Some(why) = cannot_run() {
            return skip(&why);
        }
        let (kube, moto) = cluster();
        let w = workdir(&tf, &config("training"), &moto);
        // What a workload module reads is known at plan, before anything exists.
        let plan = w.ok(&["plan", "-no-color"]).combined();
        assert!(
            plan.contains(r#"+ claim_template = "nvl72-channel""#),
            "{}: {plan}",
            tf.label
        );
        assert!(plan.contains("kind: ComputeDomain"), "{}: {plan}", tf.label);
        w.apply();
        let cd = kube
            .get_in(COMPUTE_DOMAIN, Some("training"), "nvl72")
            .expect("ComputeDomain applied");
        // `allocationMode: Single` is the upstream CRD's default (dra-driver-nvidia-gpu v0.4.1).
        assert_eq!(
            cd["spec"],
            json!({"numNodes": 0, "channel": {"resourceClaimTemplate": {"name": "nvl72-channel"}, "allocationMode": "Single"}}),
            "{}",
            tf.label
        );
        let labels = &cd["metadata"]["labels"];
        assert_eq!(labels["eksgpu.terraform.io/strategy"], "training");
        assert!(labels["eksgpu.terraform.io/owner-token"].is_string(), "{cd}");
        // What a workload module reads.
        assert_eq!(output(&w, "claim_template"), "nvl72-channel");
        assert_eq!(output(&w, "clique"), "nvidia.com/gpu.clique");
        let values = output(&w, "dra_values");
        let values = values.as_str().unwrap_or_default();
        assert!(
            values.contains("computeDomains:\n    enabled: true") && values.contains("gpus:\n    enabled: false"),
            "{}: {values}",
            tf.label
        );
        assert!(
            values.contains("gpu-nvl72"),
            "the kubelet plugin's affinity names the node group: {values}"
        );
        w.assert_empty_plan();

        // An out-of-band change of its spec: upstream's CRD makes the spec immutable (CEL, which
        // the real API server runs); the emulator, which runs no CEL, takes it, and then the
        // change shows in the pool's manifests and apply puts it back.
        let edit = kube.try_edit_in(
            COMPUTE_DOMAIN,
            Some("training"),
            "nvl72",
            json!({"spec": {"numNodes": 4}}),
            "kubectl-edit",
        );
        if upstream_kubeconfig().is_some() {
            let e = edit.expect_err("the real server refuses a spec edit");
            assert!(e.contains("A computeDomain.spec is immutable"), "{e}");
        } else {
            edit.unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(w.planned_changes(), ["pools[\"nvl72\"].manifests_yaml"], "{}", tf.label);
            w.apply();
            let cd = kube.get_in(COMPUTE_DOMAIN, Some("training"), "nvl72").unwrap();
            assert_eq!(cd["spec"]["numNodes"], 0, "{}", tf.label);
        }
        w.assert_empty_plan();

        // Deleted outside Terraform: planned again and created again.
        kube.delete(COMPUTE_DOMAIN, Some("training"), "nvl72");
        assert_eq!(w.planned_changes(), ["pools[\"nvl72\"].manifests_yaml"], "{}", tf.label);
        w.apply();
        assert!(
            kube.get_in(COMPUTE_DOMAIN, Some("training"), "nvl72").is_some(),
            "{}",
            tf.label
        );
        w.assert_empty_plan();

        // Another namespace: the domain moves, the old one goes.
        w.write("main.tf", &config("research"));
        w.apply();
        assert!(
            kube.get_in(COMPUTE_DOMAIN, Some("research"), "nvl72").is_some(),
            "{}",
            tf.label
        );
        assert!(
            kube.get_in(COMPUTE_DOMAIN, Some("training"), "nvl72").is_none(),
            "{}",
            tf.label
        );
        w.assert_empty_plan();

        // Import reads the ComputeDomain back: the pool is multi_node_nvlink, in its namespace.
        // (It cannot tell the default AMI type written out from one left out: it leaves it out.)
        // Outputs left out too: an import records none, and the plan would add them.
        let research = config("research");
        let resource_only = research.split("output \"").next().unwrap_or_default();
        let default_ami = resource_only.replace("      ami_type      = \"AL2023_ARM_64_NVIDIA\"\n", "");
        assert_ne!(default_ami, resource_only);
        let imported = workdir(&tf, &default_ami, &moto);
        imported.ok(&["import", "-no-color", "eksgpu_node_strategy.s", "gpu/training"]);
        imported.assert_empty_plan();

        w.ok(&["destroy", "-auto-approve", "-no-color"]);
        assert!(
            kube.get_in(COMPUTE_DOMAIN, Some("research"), "nvl72").is_none(),
            "{}",
            tf.label
        );
        let ng = moto.eks("GET", "/clusters/gpu/node-groups/gpu-nvl72", &Value::Null);
        assert!(ng.get("nodegroup").is_none(), "{}: {ng}", tf.label);
    }
}

#[test]
fn a_compute_domain_another_owner_holds_is_refused_left_alone_and_adopted_by_name() {
    for tf in terraform_versions() {
        if let Some(why) = cannot_run() {
            return skip(&why);
        }
        let (kube, moto) = cluster();
        let theirs = json!({
            "apiVersion": "resource.nvidia.com/v1beta1", "kind": "ComputeDomain",
            "metadata": {"name": "nvl72", "namespace": "training", "labels": {"team": "research"}},
            "spec": {"numNodes": 2, "channel": {"resourceClaimTemplate": {"name": "their-channel"}}}
        });
        kube.create(COMPUTE_DOMAIN, Some("training"), theirs, "kubectl");
        let w = workdir(&tf, &config("training"), &moto);
        let r = w.run(&["apply", "-auto-approve", "-no-color"]);
        let out = r.combined().split_whitespace().collect::<Vec<_>>().join(" ");
        assert_ne!(r.code, 0, "{out}");
        assert!(
            out.contains("ComputeDomain nvl72 is not this strategy's") && out.contains("field manager kubectl"),
            "{}: {out}",
            tf.label
        );
        // Undoing the failed create does not talk of an object it never made.
        assert!(!out.contains("left in place"), "{}: {out}", tf.label);
        let cd = kube
            .get_in(COMPUTE_DOMAIN, Some("training"), "nvl72")
            .expect("theirs is kept");
        assert_eq!(cd["spec"]["channel"]["resourceClaimTemplate"]["name"], "their-channel");
        assert_eq!(cd["spec"]["numNodes"], 2);
        assert!(cd["metadata"]["labels"].get("eksgpu.terraform.io/strategy").is_none());

        // Adopted by name: relabelled as the strategy's, and (its spec being immutable) made anew
        // as the pool renders it.
        w.write("main.tf", &config_with("training", "    adopt = true"));
        w.apply();
        let cd = kube.get_in(COMPUTE_DOMAIN, Some("training"), "nvl72").unwrap();
        assert_eq!(
            cd["metadata"]["labels"]["eksgpu.terraform.io/strategy"], "training",
            "{}",
            tf.label
        );
        assert_eq!(cd["spec"]["channel"]["resourceClaimTemplate"]["name"], "nvl72-channel");
        assert_eq!(cd["spec"]["numNodes"], 0);
        w.assert_empty_plan();
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
        assert!(
            kube.get_in(COMPUTE_DOMAIN, Some("training"), "nvl72").is_none(),
            "{}",
            tf.label
        );
    }
}

/// The DRA driver's chart brings the ComputeDomain CRD and takes its values from the strategy, so
/// a first apply meets a cluster without the kind: the node group is made, the ComputeDomain is
/// not, a warning says why, and the next plan shows it still to be created.
#[test]
fn without_the_compute_domain_crd_the_pool_is_applied_and_the_domain_waits() {
    for tf in terraform_versions() {
        // The kind is taken away, so upstream's CRD is not needed.
        if let Some(why) = cannot_reach() {
            return skip(&why);
        }
        let (_kube, moto) = cluster_without(&["computedomains.resource.nvidia.com"]);
        let w = workdir(&tf, &config("training"), &moto);
        let r = w.apply();
        let out = r.combined().split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            out.contains("ComputeDomain nvl72 not applied yet") && out.contains("dra_driver_values_yaml"),
            "{}: {out}",
            tf.label
        );
        let ng = moto.eks("GET", "/clusters/gpu/node-groups/gpu-nvl72", &Value::Null);
        assert_eq!(ng["nodegroup"]["status"], "ACTIVE", "{}: {ng}", tf.label);
        assert_eq!(w.planned_changes(), ["pools[\"nvl72\"].manifests_yaml"], "{}", tf.label);
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
    }
}
