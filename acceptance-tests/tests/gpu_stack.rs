//! `eksgpu_gpu_stack` through both CLIs, offline: the values of two strategies merge into one
//! document per chart, and settings they give differently fail the plan naming both.

use eksgpu_acceptance_tests::hcl::Provider;
use eksgpu_acceptance_tests::{Workdir, terraform_versions};

fn config(b_mig: &str) -> String {
    format!(
        r#"{}
data "eksgpu_gpu_stack" "c" {{
  strategy {{
    name                     = "team-a"
    gpu_operator_values_yaml = "mig:\n  strategy: single\ndaemonsets:\n  tolerations:\n  - key: a\n    operator: Exists\n"
    neuron_values_yaml       = ""
  }}
  strategy {{
    name                     = "team-b"
    gpu_operator_values_yaml = "mig:\n  strategy: {b_mig}\ndaemonsets:\n  tolerations:\n  - key: b\n    operator: Exists\n"
    neuron_values_yaml       = "devicePlugin:\n  enabled: true\n"
  }}
}}
output "gpu_operator" {{ value = data.eksgpu_gpu_stack.c.gpu_operator_values_yaml }}
output "neuron" {{ value = data.eksgpu_gpu_stack.c.neuron_values_yaml }}
output "dra" {{ value = data.eksgpu_gpu_stack.c.dra_driver_values_yaml }}
"#,
        Provider::new().offline().header()
    )
}

#[test]
fn two_strategies_merge_into_one_release_and_disagreements_name_both() {
    for tf in terraform_versions() {
        let w = Workdir::new(&tf, &config("single"));
        w.init();
        w.apply();
        let out = w.outputs();
        let op = out["gpu_operator"]["value"].as_str().unwrap_or_default();
        assert!(op.contains("key: a") && op.contains("key: b"), "{}: {op}", tf.label);
        assert_eq!(
            out["neuron"]["value"], "devicePlugin:\n  enabled: true\n",
            "{}",
            tf.label
        );
        assert_eq!(out["dra"]["value"], "", "{}", tf.label);

        w.write("main.tf", &config("mixed"));
        let r = w.run(&["plan", "-no-color"]);
        let flat = r.combined().split_whitespace().collect::<Vec<_>>().join(" ");
        assert_ne!(r.code, 0, "{}: {flat}", tf.label);
        assert!(
            flat.contains("\"team-a\" and \"team-b\" set mig.strategy differently"),
            "{}: {flat}",
            tf.label
        );
        // At the second strategy's attribute: Terraform quotes its source line.
        assert!(
            flat.contains(r#"gpu_operator_values_yaml = "mig:\n strategy: mixed"#),
            "{}: {flat}",
            tf.label
        );
    }
}
