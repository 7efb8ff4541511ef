//! `eksgpu_gpu_catalog` through the real Terraform CLI, under every supported version.

use eksgpu_acceptance_tests::hcl::{DEAD_ENDPOINT, Provider, provider_header};
use eksgpu_acceptance_tests::{Moto, Workdir, terraform_versions};

const EXAMPLE: &str = "examples/data-sources/eksgpu_gpu_catalog";

#[test]
fn filters_apply_and_a_second_plan_is_empty() {
    for tf in terraform_versions() {
        let w = Workdir::from_example(&tf, EXAMPLE);
        w.init();
        w.apply();
        let out = w.outputs();
        let p5en = &out["h200_instance_types"]["value"]["p5en.48xlarge"];
        assert_eq!(p5en["gpus"], 8, "{} {out}", tf.label);
        assert_eq!(p5en["gpu_memory"], 144_384);
        let profiles = p5en["mig_profiles"].as_array().unwrap();
        assert!(
            profiles.iter().any(|p| p == "1g.18gb") && profiles.iter().any(|p| p == "7g.141gb"),
            "{profiles:?}"
        );
        let large: Vec<_> = out["large_mig_instance_types"]["value"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert!(
            large.contains(&"p4de.24xlarge") && large.contains(&"p5.4xlarge") && !large.contains(&"p4d.24xlarge"),
            "{large:?}"
        );
        w.assert_empty_plan();
    }
}

#[test]
fn bad_filter_values_fail_the_plan_at_their_attribute() {
    let main_tf = provider_header()
        + r#"data "eksgpu_gpu_catalog" "bad_model" {
  gpu_model = "H900"
}
data "eksgpu_gpu_catalog" "bad_memory" {
  min_gpu_memory_mib = -5
}
"#;
    for tf in terraform_versions() {
        let w = Workdir::new(&tf, &main_tf);
        w.init();
        let (code, r) = w.plan_code(&[]);
        assert_eq!(code, 1, "{}", r.combined());
        let err = r.combined();
        // Terraform quotes the offending line when the diagnostic carries the attribute path.
        assert!(
            err.contains("Unknown GPU model") && err.contains(r#"gpu_model = "H900""#),
            "{} {err}",
            tf.label
        );
        assert!(
            err.contains("-5 is out of range") && err.contains("min_gpu_memory_mib = -5"),
            "{} {err}",
            tf.label
        );
    }
}

#[test]
fn refresh_from_ec2_uses_the_regions_figures() {
    let moto = Moto::start();
    let main_tf = format!(
        r#"{}
data "eksgpu_gpu_catalog" "h200" {{
  gpu_model        = "H200"
  refresh_from_ec2 = true
}}
# V100 (p3dn) is not in the embedded catalog; EC2 knows it.
data "eksgpu_gpu_catalog" "v100" {{
  gpu_model        = "V100"
  refresh_from_ec2 = true
}}
output "h200" {{
  value = {{ for t in data.eksgpu_gpu_catalog.h200.instance_types : t.instance_type => t }}
}}
output "v100" {{
  value = [for t in data.eksgpu_gpu_catalog.v100.instance_types : t]
}}
"#,
        Provider::new().endpoints(&[("ec2", &moto.url())]).header()
    );
    for tf in terraform_versions() {
        let w = Workdir::new(&tf, &main_tf);
        w.init();
        w.apply();
        let out = w.outputs();
        let p5en = &out["h200"]["value"]["p5en.48xlarge"];
        assert_eq!(p5en["source"], "ec2-describe-instance-types", "{out}");
        assert_eq!(p5en["gpu_count"], 8);
        assert_eq!(p5en["gpu_memory_mib"], 144_384);
        assert_eq!(
            p5en["mig_profiles"].as_array().unwrap().len(),
            7,
            "MIG geometry stays the catalog's"
        );
        let v100 = out["v100"]["value"].as_array().unwrap();
        assert!(!v100.is_empty(), "{out}");
        // V100 types EC2 reports carry its figures; the catalog's own V100 rows
        // (p3, p3dn) stay where EC2 does not know them.
        assert!(v100.iter().all(|t| t["mig_capable"] == false), "{out}");
        assert!(
            v100.iter().any(|t| t["source"] == "ec2-describe-instance-types"),
            "{out}"
        );
        w.assert_empty_plan();
    }
}

#[test]
fn an_unreachable_ec2_endpoint_is_a_clear_error() {
    let main_tf = format!(
        r#"{}
data "eksgpu_gpu_catalog" "all" {{
  refresh_from_ec2 = true
}}
"#,
        Provider::new().endpoints(&[("ec2", DEAD_ENDPOINT)]).header()
    );
    for tf in terraform_versions() {
        let w = Workdir::new(&tf, &main_tf);
        w.init();
        let (code, r) = w.plan_code(&[]);
        assert_eq!(code, 1);
        let err = r.combined();
        let flat = err.replace('│', " ").split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains("Cannot reach AWS at http://127.0.0.1:1")
                && flat.contains("ec2:DescribeInstanceTypes: connection refused"),
            "{} {err}",
            tf.label
        );
        assert!(!flat.contains("DispatchFailure"), "no Debug output: {err}");
        assert!(err.contains("refresh_from_ec2 = true"), "{} {err}", tf.label);
        assert!(!err.contains("panic"), "{err}");
    }
}

/// `vendor` filters the catalog offline and every row says its vendor.
#[test]
fn the_vendor_filter_returns_neuron_or_nvidia_rows() {
    let main_tf = r#"
terraform {
  required_providers {
    eksgpu = { source = "eksgpu/eksgpu" }
  }
}
provider "eksgpu" {
  region = "us-west-2"
}
data "eksgpu_gpu_catalog" "neuron" {
  vendor = "neuron"
}
data "eksgpu_gpu_catalog" "nvidia" {
  vendor = "nvidia"
}
output "neuron" {
  value = { for t in data.eksgpu_gpu_catalog.neuron.instance_types : t.instance_type => t.vendor }
}
output "nvidia" {
  value = [for t in data.eksgpu_gpu_catalog.nvidia.instance_types : t.vendor]
}
"#;
    for tf in terraform_versions() {
        let w = Workdir::new(&tf, main_tf);
        w.init();
        w.apply();
        let out = w.outputs();
        let neuron = out["neuron"]["value"].as_object().unwrap();
        assert_eq!(neuron["trn2.48xlarge"], "neuron", "{out}");
        assert!(
            neuron.keys().all(|k| k.starts_with("trn") || k.starts_with("inf")),
            "{out}"
        );
        let nvidia = out["nvidia"]["value"].as_array().unwrap();
        assert!(!nvidia.is_empty() && nvidia.iter().all(|v| v == "nvidia"), "{out}");
    }
}
