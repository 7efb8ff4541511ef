//! The rules on the inputs upstream GPU capacity definitions need (#34), each failing or warning
//! an offline plan through the real provider process with its code, its catalogue summary and the
//! attribute it is about, as `rules.rs` does for the older rules; and the network-interface rules
//! (EKSGPU177-179) on the types the issue names: p5.48xlarge, p5en.48xlarge, p6-b300.48xlarge and
//! trn2.48xlarge, each beside a neighbour that plans clean.

use eksgpu_acceptance_tests::grpc::plan::{Planned, Severity, plan};
use eksgpu_acceptance_tests::hcl::provider_header;

/// A node group pool's settings around `extra` (lines inside `managed_node_group = { … }`).
fn node_group(types: &str, pool_extra: &str, extra: &str) -> String {
    format!(
        r#"capacity = "managed_node_group"
    instance_types = [{types}]
    {pool_extra}
    managed_node_group = {{
      node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
      subnet_ids    = ["subnet-1"]
      scaling = {{
        min     = 0
        max     = 2
        desired = 0
      }}
      {extra}
    }}"#
    )
}

fn config(body: &str) -> String {
    format!(
        r#"{}
resource "eksgpu_node_strategy" "s" {{
  cluster_name = "gpu"
  name         = "upstream"
  gpu_operator {{}}
  pools = {{
    p = {{
    {body}
    }}
  }}
}}
"#,
        provider_header()
    )
}

/// Rules checked by a validator on a schema attribute (`Check::Coded`), whose diagnostic says
/// `<code>: Invalid value` instead of the catalogue's summary.
const FROM_A_SCHEMA_VALIDATOR: &[&str] = &["EKSGPU156"];

/// The plan says `code` at `path` with the catalogue's summary and the case's severity; a warning
/// leaves a planned state.
fn check(code: &str, is_error: bool, path: &str, planned: &Planned) -> Result<(), String> {
    let all = || format!("{:#?}", planned.diagnostics);
    let rule = eksgpu_core::rules::RULES
        .iter()
        .find(|r| r.code.as_str() == code)
        .ok_or_else(|| format!("{code} is not in the catalogue"))?;
    let summary = if FROM_A_SCHEMA_VALIDATOR.contains(&code) {
        "Invalid value"
    } else {
        rule.summary
    };
    let prefix = format!("{code}: ");
    let d = planned
        .diagnostics
        .iter()
        .find(|d| d.summary.starts_with(&prefix) && d.path == path)
        .ok_or_else(|| format!("{code}: no diagnostic with its code at {path}:\n{}", all()))?;
    let severity = if is_error { Severity::Error } else { Severity::Warning };
    if d.severity != severity {
        return Err(format!("{code}: {:?}, expected {severity:?}:\n{}", d.severity, all()));
    }
    if d.summary != format!("{prefix}{summary}") {
        return Err(format!("{code}: summary {:?}, expected {summary:?}", d.summary));
    }
    if !is_error && (planned.has_errors() || planned.planned_state.as_ref().is_none_or(|s| s.is_null())) {
        return Err(format!("{code}: a warning must not stop the plan:\n{}", all()));
    }
    Ok(())
}

/// (code, is_error, attribute path, pool body)
fn cases() -> Vec<(&'static str, bool, &'static str, String)> {
    let raid0 = "apiVersion: node.eks.aws/v1alpha1\\nkind: NodeConfig\\nspec:\\n  instance:\\n    localStorage:\\n      strategy: RAID0\\n";
    vec![
        (
            "EKSGPU156",
            true,
            r#"pools["p"].capacity"#,
            r#"capacity = "self_managed_node_group"
    instance_types = ["g4dn.xlarge"]"#
                .into(),
        ),
        (
            "EKSGPU157",
            true,
            r#"pools["p"].managed_node_group.name_prefix"#,
            node_group(r#""g5.8xlarge""#, "", "name = \"g5\"\n      name_prefix = \"g5-\""),
        ),
        (
            "EKSGPU158",
            true,
            r#"pools["p"].managed_node_group.user_data"#,
            node_group(
                r#""p5.48xlarge""#,
                "",
                r#"user_data = "[settings.kubernetes]\nmax-pods = 110\n""#,
            ),
        ),
        (
            "EKSGPU159",
            true,
            r#"pools["p"].managed_node_group.user_data"#,
            node_group(
                r#""p5.48xlarge""#,
                "",
                &format!(r#"user_data = "{raid0}  cluster:\n    name: other\n""#),
            ),
        ),
        (
            "EKSGPU166",
            true,
            r#"pools["p"].node_class_ref"#,
            r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    node_class_ref = "shared"
    node_class = { role = "r" }"#
                .into(),
        ),
        (
            "EKSGPU167",
            true,
            r#"pools["p"].node_class.ami_family"#,
            r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    node_class = {
      role       = "r"
      ami_family = "Bottlerocket"
    }"#
            .into(),
        ),
        (
            // Without `nodeOverlay` in the provider's karpenter_feature_gates.
            "EKSGPU168",
            true,
            r#"pools["p"].node_overlays"#,
            r#"capacity = "karpenter"
    requirements = [{ key = "karpenter.k8s.aws/instance-family", operator = "In", values = ["g6f"] }]
    node_class = { role = "r" }
    node_overlays = [
      {
        name         = "g6f-fractional-gpu"
        requirements = [{ key = "karpenter.k8s.aws/instance-family", operator = "In", values = ["g6f"] }]
        capacity     = { "nvidia.com/gpu" = "1" }
      },
    ]"#
            .into(),
        ),
        (
            "EKSGPU169",
            true,
            r#"pools["p"].managed_node_group.block_device_mappings[0]"#,
            node_group(
                r#""g6e.xlarge""#,
                "",
                r#"block_device_mappings = [{ device_name = "/dev/xvdb", volume_type = "gp3" }]"#,
            ),
        ),
        (
            "EKSGPU321",
            true,
            r#"pools["p"].managed_node_group.node_repair_config.node_repair_config_overrides[0].repair_action"#,
            node_group(
                r#""g4dn.xlarge""#,
                "",
                r#"node_repair_config = {
        enabled = true
        node_repair_config_overrides = [{
          node_monitoring_condition = "AcceleratedHardwareReady"
          node_unhealthy_reason     = "NvidiaXID13Error"
          min_repair_wait_time_mins = 10
          repair_action             = "Terminate"
        }]
      }"#,
            ),
        ),
        (
            "EKSGPU322",
            true,
            r#"pools["p"].managed_node_group.capacity_reservation_resource_group_arn"#,
            node_group(
                r#""p5.48xlarge""#,
                "",
                r#"capacity_reservation_id                 = "cr-0123456789abcdef0"
      capacity_reservation_resource_group_arn = "arn:aws:resource-groups:us-west-2:123456789012:group/gpu-odcrs""#,
            ),
        ),
        (
            "EKSGPU323",
            true,
            r#"pools["p"].managed_node_group.network_interfaces"#,
            node_group(
                r#""p5.48xlarge""#,
                "",
                r#"network_interfaces = [
        { network_card_index = 0, device_index = 0, interface_type = "interface" },
        { network_card_index = 1, device_index = 0, interface_type = "efa-only" },
      ]"#,
            ),
        ),
        (
            "EKSGPU324",
            true,
            r#"pools["p"].node_class.security_group_selector_terms"#,
            r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    node_class = {
      role                          = "r"
      security_group_selector_tags  = { "karpenter.sh/discovery" = "gpu" }
      security_group_selector_terms = [{ tags = { "Name" = "gpu-nodes" } }]
    }"#
            .into(),
        ),
        (
            "EKSGPU325",
            false,
            r#"pools["p"].managed_node_group.cluster_placement_group"#,
            node_group(
                r#""p5.48xlarge""#,
                "",
                r#"capacity_reservation_id = "cr-0123456789abcdef0"
      cluster_placement_group = true"#,
            ),
        ),
        // The network-interface rules on the types the issue names.
        (
            // p5.48xlarge has 32 network cards (aws/amazon-vpc-cni-k8s vpc_ip_resource_limit.go).
            "EKSGPU177",
            true,
            r#"pools["p"].managed_node_group.network_interfaces[1]"#,
            node_group(
                r#""p5.48xlarge""#,
                "efa = true",
                r#"network_interfaces = [
        { network_card_index = 0, device_index = 0, interface_type = "efa" },
        { network_card_index = 32, device_index = 0, interface_type = "efa-only" },
      ]"#,
            ),
        ),
        (
            // One EFA per network card (EC2 user guide, EFA limitations).
            "EKSGPU177",
            true,
            r#"pools["p"].node_class.network_interfaces[2]"#,
            r#"capacity = "karpenter"
    instance_types = ["p5en.48xlarge"]
    efa = true
    node_class = {
      role = "r"
      network_interfaces = [
        { network_card_index = 0, device_index = 0, interface_type = "interface" },
        { network_card_index = 1, device_index = 0, interface_type = "efa-only" },
        { network_card_index = 1, device_index = 1, interface_type = "efa-only" },
      ]
    }"#
            .into(),
        ),
        (
            // P6-B300's network card 0 is ENA-only (EC2 user guide, efa-acc-inst-types).
            "EKSGPU177",
            true,
            r#"pools["p"].node_class.network_interfaces[1]"#,
            r#"capacity = "karpenter"
    instance_types = ["p6-b300.48xlarge"]
    efa = true
    node_class = {
      role = "r"
      network_interfaces = [
        { network_card_index = 0, device_index = 0, interface_type = "interface" },
        { network_card_index = 0, device_index = 1, interface_type = "efa-only" },
      ]
    }"#
            .into(),
        ),
        (
            // trn2.48xlarge's total interface count is stated by no source the table has.
            "EKSGPU178",
            false,
            r#"pools["p"].efa"#,
            node_group(r#""trn2.48xlarge""#, "efa = true", ""),
        ),
        (
            "EKSGPU179",
            true,
            r#"pools["p"].efa"#,
            r#"capacity = "karpenter"
    instance_types = ["p6-b300.48xlarge", "p5.48xlarge"]
    efa = true
    node_class = { role = "r" }"#
                .into(),
        ),
    ]
}

#[tokio::test]
async fn every_upstream_input_rule_fails_or_warns_a_plan_with_its_code() {
    let mut failures = Vec::new();
    for (code, is_error, path, body) in cases() {
        if let Err(e) = check(code, is_error, path, &plan(&config(&body)).await) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The valid neighbours of the network-interface cases plan with no EKSGPU177-179 diagnostic:
/// the EFA layouts the provider renders for each type, and explicit interfaces that fit.
#[tokio::test]
async fn network_interfaces_that_fit_the_type_plan_clean() {
    let bodies = [
        node_group(r#""p5.48xlarge""#, "efa = true", ""),
        node_group(
            r#""p5.48xlarge""#,
            "efa = true",
            r#"network_interfaces = [
        { network_card_index = 0, device_index = 0, interface_type = "efa" },
        { network_card_index = 1, device_index = 0, interface_type = "efa-only" },
      ]"#,
        ),
        r#"capacity = "karpenter"
    instance_types = ["p5en.48xlarge"]
    efa = true
    node_class = { role = "r" }"#
            .to_owned(),
        // The provider lays P6-B300's EFA on cards 1.. itself.
        r#"capacity = "karpenter"
    instance_types = ["p6-b300.48xlarge"]
    efa = true
    node_class = { role = "r" }"#
            .to_owned(),
        node_group(r#""p6-b300.48xlarge""#, "efa = true", ""),
    ];
    let mut failures = Vec::new();
    for body in bodies {
        let planned = plan(&config(&body)).await;
        let bad: Vec<_> = planned
            .diagnostics
            .iter()
            .filter(|d| {
                ["EKSGPU177", "EKSGPU178", "EKSGPU179"]
                    .iter()
                    .any(|c| d.summary.starts_with(c))
            })
            .collect();
        if !bad.is_empty() || planned.has_errors() {
            failures.push(format!("{body}\n{:#?}", planned.diagnostics));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
