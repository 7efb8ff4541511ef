//! `eksgpu_recommendation` through Terraform: the accelerator vendor for each input that decides
//! it, and MIG on Karpenter where the provider's Karpenter runs NodeOverlays.

use eksgpu_acceptance_tests::hcl::Provider;
use eksgpu_acceptance_tests::{Workdir, terraform_versions};

/// One data source per case; the outputs map case → [accelerator, capacity, sharing].
fn config(provider: &Provider, cases: &[(&str, &str)]) -> String {
    let mut out = provider.header();
    for (name, body) in cases {
        out.push_str(&format!(
            "data \"eksgpu_recommendation\" \"{name}\" {{\n  model_params_b = 7\n  precision = \"bf16\"\n{body}\n}}\n"
        ));
    }
    out.push_str("output \"picked\" {\n  value = {\n");
    for (name, _) in cases {
        out.push_str(&format!(
            "    {name} = [data.eksgpu_recommendation.{name}.accelerator, data.eksgpu_recommendation.{name}.capacity, data.eksgpu_recommendation.{name}.sharing_strategy, join(\" \", [for r in data.eksgpu_recommendation.{name}.rationale : r.code])]\n"
        ));
    }
    out.push_str("  }\n}\n");
    out
}

#[test]
fn each_input_that_decides_the_vendor_decides_it() {
    let cases = [
        ("neuron", "  available_on_neuron = true"),
        ("kernels", "  available_on_neuron = true\n  custom_cuda_kernels = true"),
        ("awq", "  available_on_neuron = true\n  quantization = \"awq\""),
        ("gptq", "  available_on_neuron = true\n  quantization = \"gptq\""),
        ("gguf", "  available_on_neuron = true\n  quantization = \"gguf\""),
        ("unported", ""),
        ("residency", "  available_on_neuron = true\n  data_residency = true"),
        ("on_prem", "  available_on_neuron = true\n  on_prem = true"),
    ];
    let main_tf = config(&Provider::new().offline(), &cases);
    for tf in terraform_versions() {
        let w = Workdir::new(&tf, &main_tf);
        w.init();
        w.apply();
        let picked = &w.outputs()["picked"]["value"];
        let vendor = |case: &str| picked[case][0].as_str().unwrap_or_default().to_owned();
        assert_eq!(vendor("neuron"), "neuron", "{}: {picked}", tf.label);
        for case in ["kernels", "awq", "gptq", "gguf", "unported", "residency", "on_prem"] {
            assert_eq!(vendor(case), "nvidia", "{}: {case}: {picked}", tf.label);
            assert!(
                picked[case][3].as_str().unwrap_or_default().contains("EKSGPU211"),
                "{case}: {picked}"
            );
        }
        assert_eq!(picked["residency"][1], "hybrid", "{picked}");
        // A 7B model on Neuron takes one Inferentia2 device on Auto Mode.
        assert_eq!(picked["neuron"][1], "auto_mode", "{picked}");
        w.assert_empty_plan();
    }
}

#[test]
fn mig_lands_on_karpenter_when_the_provider_runs_node_overlays() {
    let cases = [("small", "")];
    let with = Provider::new()
        .offline()
        .setting("karpenter_version = \"1.14\"\nkarpenter_feature_gates = [\"nodeOverlay\"]");
    for (provider, capacity) in [(with, "karpenter"), (Provider::new().offline(), "managed_node_group")] {
        let main_tf = config(&provider, &cases);
        let tf = &terraform_versions()[0];
        let w = Workdir::new(tf, &main_tf);
        w.init();
        w.apply();
        let picked = &w.outputs()["picked"]["value"];
        assert_eq!(picked["small"][2], "mig", "{picked}");
        assert_eq!(picked["small"][1], capacity, "{picked}");
    }
}

#[test]
fn an_unknown_quantization_is_refused_at_its_attribute() {
    let main_tf = config(&Provider::new().offline(), &[("bad", "  quantization = \"exl2\"")]);
    for tf in terraform_versions() {
        let w = Workdir::new(&tf, &main_tf);
        w.init();
        let r = w.run(&["plan", "-no-color"]);
        assert_ne!(r.code, 0, "{}", r.combined());
        assert!(r.combined().contains("quantization"), "{}", r.combined());
    }
}
