//! Every example under examples/ applies against the local emulators and
//! re-plans empty, under every supported Terraform version.

use eksgpu_acceptance_tests::{Moto, Workdir, terraform_versions};

fn apply_and_replan(example: &str, vars: &[(&str, String)]) -> Vec<serde_json::Value> {
    let mut outputs = Vec::new();
    for tf in terraform_versions() {
        let mut w = Workdir::from_example(&tf, example);
        for (k, v) in vars {
            w.env(&format!("TF_VAR_{k}"), v);
        }
        w.init();
        w.apply();
        w.assert_empty_plan();
        outputs.push(w.outputs());
    }
    outputs
}

#[test]
fn provider_example() {
    apply_and_replan("examples/provider", &[]);
}

#[test]
fn gpu_catalog_example() {
    apply_and_replan("examples/data-sources/eksgpu_gpu_catalog", &[]);
}

#[test]
fn quickstart_offline_and_against_moto() {
    for out in apply_and_replan("examples/quickstart", &[]) {
        assert_eq!(out["h200"]["value"]["p5en.48xlarge"]["gpus"], 8);
        assert_eq!(
            out["h200"]["value"]["p5en.48xlarge"]["source"],
            "karpenter-instance-types"
        );
    }
    let moto = Moto::start();
    for out in apply_and_replan("examples/quickstart", &[("ec2_endpoint", moto.url())]) {
        assert_eq!(
            out["h200"]["value"]["p5en.48xlarge"]["source"],
            "ec2-describe-instance-types"
        );
        let inference = out["single_gpu_inference_types"]["value"].as_array().unwrap();
        assert!(
            inference
                .iter()
                .any(|t| t.as_str().unwrap().starts_with("g5.2xlarge (A10G")),
            "{inference:?}"
        );
    }
}
