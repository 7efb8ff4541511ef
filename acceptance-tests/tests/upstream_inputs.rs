//! The upstream NodePool and EC2NodeClass inputs through the real Terraform CLIs against the
//! Kubernetes API emulator: requirement blocks, termination_grace_period, and the node class's
//! instance_profile, user_data, detailed_monitoring, associate_public_ip_address, selector ids,
//! block_device_mapping and network_interface blocks render as Karpenter v1 spells them, plan
//! nothing on refresh, and show drift one field at a time. The real API server lane judges the
//! same inputs (`real_server.rs`, EDGES).

use eksgpu_acceptance_tests::hcl::Provider;
use eksgpu_acceptance_tests::kube::{EC2_NODE_CLASS, KubeTarget, NODE_POOL};
use eksgpu_acceptance_tests::{Workdir, terraform_versions};
use serde_json::json;

fn config(kube: &KubeTarget, monitoring: bool) -> String {
    format!(
        r##"{}
resource "eksgpu_node_strategy" "s" {{
  cluster_name = "gpu"
  name         = "upstream"
  gpu_operator {{}}
  pools = {{
    gpu = {{
      capacity = "karpenter"
      requirements = [
        {{
          key      = "karpenter.k8s.aws/instance-gpu-manufacturer"
          operator = "In"
          values   = ["nvidia"]
        }},
        {{
          key      = "karpenter.k8s.aws/instance-gpu-memory"
          operator = "Gt"
          values   = ["40000"]
        }},
        {{
          key      = "karpenter.k8s.aws/instance-family"
          operator = "In"
          values   = ["p5", "p5e"]
        }},
      ]
      termination_grace_period = "24h"
      node_class = {{
        instance_profile            = "KarpenterNodeInstanceProfile"
        detailed_monitoring         = {monitoring}
        associate_public_ip_address = false
        subnet_selector_ids         = ["subnet-0123456789abcdef0"]
        security_group_selector_ids = ["sg-0123456789abcdef0"]
        user_data                   = "#!/bin/bash\necho hello\n"
        root_volume = {{
          size = "200Gi"
        }}
        block_device_mappings = [
          {{
            device_name = "/dev/xvdb"
            volume_size = "500Gi"
            volume_type = "gp3"
            encrypted   = true
          }},
        ]
      }}
    }}
  }}
}}

output "matched" {{
  value = eksgpu_node_strategy.s.pools["gpu"].matched_instance_types
}}
"##,
        Provider::new().kube(kube).header()
    )
}

#[test]
fn upstream_inputs_render_read_back_and_drift_one_field_at_a_time() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let w = Workdir::new(&tf, &config(&kube, true));
        w.init();
        w.apply();
        let matched = w.outputs()["matched"]["value"].clone();
        assert!(
            matched
                .as_array()
                .is_some_and(|m| !m.is_empty() && m.iter().all(|t| t.as_str().is_some_and(|t| t.starts_with("p5")))),
            "{}: {matched}",
            tf.label
        );
        let np = kube.get(NODE_POOL, "gpu").expect("NodePool applied");
        let spec = &np["spec"]["template"]["spec"];
        assert_eq!(spec["terminationGracePeriod"], "24h", "{}", tf.label);
        let reqs = spec["requirements"].as_array().cloned().unwrap_or_default();
        assert!(
            reqs.contains(
                &json!({"key": "karpenter.k8s.aws/instance-gpu-memory", "operator": "Gt", "values": ["40000"]})
            ),
            "{}: {reqs:?}",
            tf.label
        );
        let nc = kube.get(EC2_NODE_CLASS, "gpu").expect("EC2NodeClass applied");
        let s = &nc["spec"];
        assert_eq!(s["instanceProfile"], "KarpenterNodeInstanceProfile", "{}", tf.label);
        assert!(
            s.get("role").is_none_or(serde_json::Value::is_null),
            "{}: {s}",
            tf.label
        );
        assert_eq!(s["detailedMonitoring"], true);
        assert_eq!(s["associatePublicIPAddress"], false);
        assert_eq!(s["userData"], "#!/bin/bash\necho hello\n");
        assert_eq!(
            s["subnetSelectorTerms"],
            json!([{"id": "subnet-0123456789abcdef0"}]),
            "{s}"
        );
        assert_eq!(
            s["securityGroupSelectorTerms"],
            json!([{"id": "sg-0123456789abcdef0"}]),
            "{s}"
        );
        let devices: Vec<&str> = s["blockDeviceMappings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|b| b["deviceName"].as_str())
            .collect();
        assert_eq!(devices.len(), 2, "{}: root volume and /dev/xvdb: {s}", tf.label);
        assert!(devices.contains(&"/dev/xvdb"), "{s}");
        w.assert_empty_plan();

        // Someone turns detailed monitoring off: a one-field diff; apply restores it.
        kube.edit(
            EC2_NODE_CLASS,
            "gpu",
            json!({"spec": {"detailedMonitoring": false}}),
            "kubectl",
        );
        let changes = w.planned_changes();
        assert!(
            changes.contains(&"pools[\"gpu\"].node_class.detailed_monitoring".to_owned()),
            "{}: {changes:?}",
            tf.label
        );
        w.write(
            "main.tf",
            &config(&kube, true).replace("gpu_operator {}", "force_conflicts = true\n  gpu_operator {}"),
        );
        w.apply();
        assert_eq!(
            kube.get(EC2_NODE_CLASS, "gpu").unwrap()["spec"]["detailedMonitoring"],
            true
        );
        w.assert_empty_plan();

        // A change of the input is an in-place update of the node class.
        w.write(
            "main.tf",
            &config(&kube, false).replace("gpu_operator {}", "force_conflicts = true\n  gpu_operator {}"),
        );
        w.apply();
        assert_eq!(
            kube.get(EC2_NODE_CLASS, "gpu").unwrap()["spec"]["detailedMonitoring"],
            false
        );
        w.assert_empty_plan();
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
        assert!(kube.get(NODE_POOL, "gpu").is_none() && kube.get(EC2_NODE_CLASS, "gpu").is_none());
    }
}
