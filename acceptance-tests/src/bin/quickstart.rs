//! The main job on its embedded default: build the provider, start the local
//! AWS emulator, and `terraform apply` examples/quickstart against it, showing
//! the plan and the outputs. Run it with `scripts/quickstart`.

#![allow(clippy::print_stdout)] // This program's job is to print.

use eksgpu_acceptance_tests::{Moto, Workdir, terraform_versions};

fn main() {
    let tf = terraform_versions()
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no Terraform CLI selected"));
    println!("==> building terraform-provider-eksgpu");
    let bin = eksgpu_acceptance_tests::provider_bin::provider_binary();
    println!("    {}", bin.display());
    println!("==> starting moto (AWS emulator) on 127.0.0.1");
    let moto = Moto::start();
    println!("    {}", moto.url());

    let mut w = Workdir::from_example(&tf, "examples/quickstart");
    w.env("TF_VAR_ec2_endpoint", &moto.url());
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
    let (code, _) = w.plan_code(&[]);
    println!(
        "\n==> a second plan is {}",
        if code == 0 { "empty: no drift" } else { "NOT empty" }
    );
    if code != 0 {
        std::process::exit(1);
    }
}
