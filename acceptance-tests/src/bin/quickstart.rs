//! The main job on its embedded default: build the provider, start the local
//! emulators (moto for AWS, the Kubernetes API emulator for the cluster), and
//! `terraform apply` examples/quickstart against them, showing the plan, the
//! outputs, the objects in the cluster and what was set on the EKS side. Run it with `scripts/quickstart`.

#![allow(clippy::print_stdout)] // This program's job is to print.

use eksgpu_acceptance_tests::kube::{EC2_NODE_CLASS, NODE_POOL};
use eksgpu_acceptance_tests::{Workdir, eks_cluster, terraform_versions};

fn main() {
    let tf = terraform_versions()
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no Terraform CLI selected"));
    println!("==> building terraform-provider-eksgpu");
    let bin = eksgpu_acceptance_tests::provider_bin::provider_binary();
    println!("    {}", bin.display());
    println!("==> starting moto (AWS) and the Kubernetes API emulator on 127.0.0.1");
    let (kube, moto) = eks_cluster("gpu-cluster");
    println!("    AWS: {}  EKS cluster gpu-cluster: {}", moto.url(), kube.url);

    let mut w = Workdir::from_example(&tf, "examples/quickstart");
    w.env("AWS_ENDPOINT_URL", &moto.url());
    w.env("TF_VAR_refresh_catalog", "true");
    println!("==> terraform ({}) in {}", tf.path.display(), w.path().display());
    for args in [
        &["init", "-no-color"][..],
        &["plan", "-no-color"],
        &["apply", "-auto-approve", "-no-color"],
        &["output", "-no-color"],
    ] {
        println!("\n$ terraform {}", args.join(" "));
        let r = w.ok(args);
        print!("{}", r.stdout);
    }
    println!("\n==> objects in the cluster");
    for (kind, name) in [
        (NODE_POOL, "small-models"),
        (EC2_NODE_CLASS, "small-models"),
        (NODE_POOL, "large-models"),
    ] {
        let found = kube.get(kind, name).is_some();
        println!(
            "    {} {name}: {}",
            kind.kind,
            if found { "applied" } else { "MISSING" }
        );
    }
    println!("\n==> the AWS side (EKS, in moto)");
    let cluster = moto.eks("GET", "/clusters/gpu-cluster", &serde_json::Value::Null);
    println!(
        "    remote node networks: {}",
        cluster["cluster"]["remoteNetworkConfig"]["remoteNodeNetworks"]
    );
    let role = "arn:aws:iam::123456789012:role/eks-hybrid-nodes";
    let entry = moto.eks(
        "GET",
        &format!("/clusters/gpu-cluster/access-entries/{role}"),
        &serde_json::Value::Null,
    );
    println!("    access entry for {role}: {}", entry["accessEntry"]["type"]);
    let (code, _) = w.plan_code(&[]);
    println!(
        "\n==> a second plan is {}",
        if code == 0 { "empty: no drift" } else { "NOT empty" }
    );
    if code != 0 {
        std::process::exit(1);
    }
}
