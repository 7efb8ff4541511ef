//! The network-interface rules (#34 item 3) through the Terraform CLI on the four types the issue
//! names, p5.48xlarge, p5en.48xlarge, p6-b300.48xlarge and trn2.48xlarge: the layouts the provider
//! renders (node group launch templates, EC2NodeClasses) plan with the interfaces each type takes,
//! each broken layout is refused with its code at its attribute, the launch templates reach EC2
//! (moto) as planned, and the EC2NodeClasses are applied to the cluster (in the real API server
//! lane, `EKSGPU_KUBE_UPSTREAM`, the CRD's CEL rules on `networkInterfaces` judge them).
//!
//! The expected layouts are written here from their sources, not taken from the provider:
//! - where card 0 takes EFA, a node group gets Karpenter's own layout, one `efa` per EFA the type
//!   has, interface i on card i, device 0 on card 0 and 1 elsewhere (aws/karpenter-provider-aws
//!   v1.14.1 pkg/providers/launchtemplate/launchtemplate.go `generateNetworkInterfaces`), and a
//!   Karpenter pool renders no `networkInterfaces` (Karpenter lays them out itself);
//! - on P6-B300, whose "primary network card supports only an ENA network interface" (EC2 user
//!   guide, https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html), both get
//!   the primary ENA `interface` on card 0 and one `efa-only` at device 0 of cards 1-16: Karpenter's
//!   own layout would put an `efa` on card 0 (`NetworkCardIndex: i` from 0), which fails the launch;
//! - per-type counts: aws/amazon-vpc-cni-k8s@b52188387f2e pkg/vpc/vpc_ip_resource_limit.go and
//!   aws/karpenter-provider-aws@1d927085dd81 pkg/providers/instancetype/zz_generated.vpclimits.go
//!   (p5.48xlarge 32 cards of 2, p5en.48xlarge 16 of 4, p6-b300.48xlarge 17 of 4, trn2.48xlarge
//!   16 of 2); EFA counts from Karpenter's instance-type reference (32, 16, 16, 16).

use eksgpu_acceptance_tests::hcl::{Provider, provider_header};
use eksgpu_acceptance_tests::kube::{EC2_NODE_CLASS, KubeTarget};
use eksgpu_acceptance_tests::{Workdir, eks_cluster, terraform_versions};
use serde_json::Value;

/// `(network card, device index, interface type)`.
type Nic = (i64, i64, String);

/// A [`Nic`] as a case writes it.
type NicSpec = (i64, i64, &'static str);

/// Karpenter's layout of `n` EFA interfaces (see the module comment).
fn karpenter_layout(n: i64) -> Vec<Nic> {
    (0..n).map(|i| (i, i64::from(i != 0), "efa".to_owned())).collect()
}

/// The primary ENA interface, then one `efa-only` at device 0 of each of `cards`.
fn ena_first(cards: impl IntoIterator<Item = i64>) -> Vec<Nic> {
    let mut out = vec![(0, 0, "interface".to_owned())];
    out.extend(cards.into_iter().map(|c| (c, 0, "efa-only".to_owned())));
    out
}

/// The four types with the node group layout each gets from `efa = true` and whether a Karpenter
/// pool renders that layout itself (`true`: only where card 0 is ENA-only).
fn types() -> Vec<(&'static str, &'static str, Vec<Nic>, bool)> {
    vec![
        ("p5", "p5.48xlarge", karpenter_layout(32), false),
        ("p5en", "p5en.48xlarge", karpenter_layout(16), false),
        ("b300", "p6-b300.48xlarge", ena_first(1..=16), true),
        ("trn2", "trn2.48xlarge", karpenter_layout(16), false),
    ]
}

/// HCL of interfaces (`network_interfaces = [ … ]`).
fn hcl(nics: &[(i64, i64, &str)]) -> String {
    let items: Vec<String> = nics
        .iter()
        .map(|(c, d, t)| {
            format!("        {{ network_card_index = {c}, device_index = {d}, interface_type = \"{t}\" }},\n")
        })
        .collect();
    format!("network_interfaces = [\n{}      ]", items.concat())
}

/// A node group pool of `ty` with EFA; `extra` goes inside `managed_node_group`.
fn mng(name: &str, ty: &str, subnets: &str, extra: &str) -> String {
    format!(
        r#"
    "{name}" = {{
      capacity       = "managed_node_group"
      instance_types = ["{ty}"]
      efa            = true
      managed_node_group = {{
        node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
        subnet_ids    = {subnets}
        scaling = {{
          min     = 0
          max     = 2
          desired = 0
        }}
        {extra}
      }}
    }}"#
    )
}

/// A Karpenter pool of `types` with EFA; `extra` goes inside `node_class`.
fn karpenter(name: &str, types: &str, extra: &str) -> String {
    format!(
        r#"
    "{name}" = {{
      capacity       = "karpenter"
      instance_types = [{types}]
      efa            = true
      node_class = {{
        role = "KarpenterNodeRole-gpu"
        {extra}
      }}
    }}"#
    )
}

fn strategy(header: &str, pools: &str) -> String {
    format!(
        r#"{header}
resource "eksgpu_node_strategy" "s" {{
  cluster_name = "gpu"
  name         = "netif"
  gpu_operator {{}}
  pools = {{{pools}
  }}
}}
"#
    )
}

fn nics_of(list: &Value, card: &str, device: &str, ty: &str) -> Vec<Nic> {
    list.as_array()
        .into_iter()
        .flatten()
        .map(|n| {
            (
                n[card].as_i64().unwrap_or(-1),
                n[device].as_i64().unwrap_or(-1),
                n[ty].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// The documents of one planned pool's `manifests_yaml`.
fn documents(pool: &Value) -> Vec<Value> {
    pool["manifests_yaml"]
        .as_str()
        .unwrap_or_default()
        .split("\n---")
        .filter(|d| {
            d.lines()
                .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        })
        .map(|d| serde_saphyr::from_str::<Value>(d).unwrap_or_else(|e| panic!("{e}:\n{d}")))
        .collect()
}

/// The interfaces of the `CreateLaunchTemplate` a planned node group pool renders.
fn planned_template(pool: &Value) -> Vec<Nic> {
    documents(pool)
        .iter()
        .find_map(|d| d.get("CreateLaunchTemplate"))
        .map(|lt| {
            nics_of(
                &lt["LaunchTemplateData"]["NetworkInterfaces"],
                "NetworkCardIndex",
                "DeviceIndex",
                "InterfaceType",
            )
        })
        .unwrap_or_else(|| panic!("no CreateLaunchTemplate: {pool}"))
}

/// The `networkInterfaces` of the EC2NodeClass a planned Karpenter pool renders (empty if unset).
fn planned_node_class(pool: &Value) -> Vec<Nic> {
    documents(pool)
        .iter()
        .find(|d| d["kind"] == "EC2NodeClass")
        .map(|nc| {
            nics_of(
                &nc["spec"]["networkInterfaces"],
                "networkCardIndex",
                "deviceIndex",
                "interfaceType",
            )
        })
        .unwrap_or_else(|| panic!("no EC2NodeClass: {pool}"))
}

fn owned(nics: &[(i64, i64, &str)]) -> Vec<Nic> {
    nics.iter().map(|(c, d, t)| (*c, *d, (*t).to_owned())).collect()
}

/// Explicit layouts each type takes: `(pool, type, node group?, interfaces)`.
fn explicit_valid() -> Vec<(&'static str, &'static str, bool, Vec<NicSpec>)> {
    vec![
        // EFA with ENA as the primary where card 0 takes EFA, then efa-only on other cards.
        (
            "p5-own",
            "p5.48xlarge",
            true,
            vec![(0, 0, "efa"), (1, 1, "efa-only"), (31, 1, "efa-only")],
        ),
        // Karpenter's CRD wants an `interface` primary; device 3 is within p5en's 4 a card.
        (
            "p5en-own",
            "p5en.48xlarge",
            false,
            vec![(0, 0, "interface"), (1, 3, "efa-only"), (15, 0, "efa-only")],
        ),
        (
            "b300-own",
            "p6-b300.48xlarge",
            false,
            vec![(0, 0, "interface"), (16, 0, "efa-only")],
        ),
        (
            "trn2-own",
            "trn2.48xlarge",
            true,
            vec![(0, 0, "interface"), (0, 1, "efa-only"), (15, 1, "efa-only")],
        ),
    ]
}

/// Each broken layout, refused with its code: `(pool, code, path after pools["…"], detail, pool HCL)`.
fn broken() -> Vec<(&'static str, &'static str, &'static str, &'static str, String)> {
    let ng = |name: &str, ty: &str, nics: &[(i64, i64, &str)]| mng(name, ty, r#"["subnet-1"]"#, &hcl(nics));
    let kp = |name: &str, ty: &str, nics: &[(i64, i64, &str)]| karpenter(name, &format!("\"{ty}\""), &hcl(nics));
    vec![
        (
            "p5-card",
            "EKSGPU177",
            ".managed_node_group.network_interfaces[1]",
            "network card 32 is beyond its 32 cards",
            ng("p5-card", "p5.48xlarge", &[(0, 0, "efa"), (32, 0, "efa-only")]),
        ),
        (
            "p5-device",
            "EKSGPU177",
            ".managed_node_group.network_interfaces[1]",
            "device index 2 is beyond the 2 interfaces a card takes",
            ng("p5-device", "p5.48xlarge", &[(0, 0, "efa"), (1, 2, "efa-only")]),
        ),
        (
            "p5en-two-on-a-card",
            "EKSGPU177",
            ".managed_node_group.network_interfaces[2]",
            "a second EFA on network card 1 (one per card)",
            ng(
                "p5en-two-on-a-card",
                "p5en.48xlarge",
                &[(0, 0, "interface"), (1, 0, "efa-only"), (1, 1, "efa-only")],
            ),
        ),
        (
            "p5en-no-primary",
            "EKSGPU177",
            ".managed_node_group.network_interfaces",
            "there is no primary interface (card 0, device 0)",
            ng("p5en-no-primary", "p5en.48xlarge", &[(1, 0, "efa-only")]),
        ),
        (
            // The CRD's own rule (karpenter.k8s.aws_ec2nodeclasses.yaml v1.14.1): a primary `interface`.
            "p5en-karpenter-no-primary",
            "EKSGPU176",
            ".node_class.network_interfaces",
            "",
            kp("p5en-karpenter-no-primary", "p5en.48xlarge", &[(1, 0, "efa-only")]),
        ),
        (
            "b300-efa-on-card-0",
            "EKSGPU177",
            ".managed_node_group.network_interfaces[0]",
            "network card 0 carries no EFA (its card 0 supports only an ENA interface)",
            ng(
                "b300-efa-on-card-0",
                "p6-b300.48xlarge",
                &[(0, 0, "efa"), (1, 0, "efa-only")],
            ),
        ),
        (
            "b300-karpenter-card-0",
            "EKSGPU177",
            ".node_class.network_interfaces[1]",
            "network card 0 carries no EFA",
            kp(
                "b300-karpenter-card-0",
                "p6-b300.48xlarge",
                &[(0, 0, "interface"), (0, 1, "efa-only")],
            ),
        ),
        (
            // 16 on cards 1-16 and one more on card 0: more than its 16 as well.
            "b300-seventeen",
            "EKSGPU177",
            ".managed_node_group.network_interfaces",
            "17 EFA interfaces, more than its 16",
            ng(
                "b300-seventeen",
                "p6-b300.48xlarge",
                &std::iter::once((0, 0, "interface"))
                    .chain(std::iter::once((0, 1, "efa-only")))
                    .chain((1..=16).map(|c| (c, 0, "efa-only")))
                    .collect::<Vec<_>>(),
            ),
        ),
        (
            // One EC2NodeClass cannot carry P6-B300's layout and p5's.
            "b300-with-p5",
            "EKSGPU179",
            ".efa",
            "p6-b300.48xlarge",
            karpenter("b300-with-p5", r#""p6-b300.48xlarge", "p5.48xlarge""#, ""),
        ),
        (
            "trn2-efa-only-primary",
            "EKSGPU177",
            ".managed_node_group.network_interfaces[0]",
            "the primary interface (card 0, device 0) is `efa-only`",
            ng(
                "trn2-efa-only-primary",
                "trn2.48xlarge",
                &[(0, 0, "efa-only"), (1, 1, "efa-only")],
            ),
        ),
        (
            "trn2-device",
            "EKSGPU177",
            ".managed_node_group.network_interfaces[1]",
            "device index 2 is beyond the 2 interfaces a card takes",
            ng(
                "trn2-device",
                "trn2.48xlarge",
                &[(0, 0, "interface"), (3, 2, "efa-only")],
            ),
        ),
        (
            "trn2-card",
            "EKSGPU177",
            ".managed_node_group.network_interfaces[1]",
            "network card 16 is beyond its 16 cards",
            ng(
                "trn2-card",
                "trn2.48xlarge",
                &[(0, 0, "interface"), (16, 0, "efa-only")],
            ),
        ),
    ]
}

/// The text of the diagnostic that starts with `heading` and is about `path`, if any, its lines
/// joined (Terraform wraps a detail at its terminal width).
fn diagnostic(out: &str, heading: &str, path: &str) -> Option<String> {
    out.match_indices(heading).find_map(|(i, _)| {
        let after = &out[i + heading.len()..];
        let end = ["Error: ", "Warning: "]
            .iter()
            .filter_map(|h| after.find(h))
            .min()
            .unwrap_or(after.len());
        let own = after[..end].split_whitespace().collect::<Vec<_>>().join(" ");
        // The provider writes the path at the head of the detail, ended by a colon.
        own.contains(&format!(" {path}: ")).then_some(own)
    })
}

/// Every valid layout plans, with the interfaces expected of its type; trn2.48xlarge's node group
/// warns that its total is not verified (EKSGPU178), nothing else warns about interfaces.
#[test]
fn each_type_plans_the_interfaces_it_takes() {
    for tf in terraform_versions() {
        let mut pools = String::new();
        for (short, ty, _, _) in types() {
            pools += &mng(&format!("{short}-ng"), ty, r#"["subnet-1"]"#, "");
            pools += &karpenter(&format!("{short}-kp"), &format!("\"{ty}\""), "");
        }
        for (name, ty, ng, nics) in explicit_valid() {
            pools += &if ng {
                mng(name, ty, r#"["subnet-1"]"#, &hcl(&nics))
            } else {
                karpenter(name, &format!("\"{ty}\""), &hcl(&nics))
            };
        }
        let w = Workdir::new(&tf, &strategy(&provider_header(), &pools));
        w.init();
        let r = w.run(&["plan", "-no-color", "-out", "p.tfplan"]);
        let out = r.combined();
        assert_eq!(r.code, 0, "{}: {out}", tf.label);
        for code in ["EKSGPU176", "EKSGPU177", "EKSGPU179"] {
            assert!(!out.contains(code), "{}: {code}:\n{out}", tf.label);
        }
        // The one unverified fact among the four: trn2.48xlarge's total interfaces, for both
        // trn2 node groups (the provider joins one code's warnings into one diagnostic).
        let unverified = diagnostic(&out, "Warning: EKSGPU178: ", r#"pools["trn2-ng"].efa"#)
            .unwrap_or_else(|| panic!("{}: no EKSGPU178:\n{out}", tf.label));
        assert_eq!(out.matches("Warning: EKSGPU178").count(), 1, "{out}");
        assert_eq!(
            unverified
                .matches("trn2.48xlarge (max_network_interfaces unverified)")
                .count(),
            2,
            "trn2-ng and trn2-own: {unverified}"
        );
        assert!(
            unverified.contains(r#"Pool "trn2-own"'s"#) && !unverified.contains("p5") && !unverified.contains("b300"),
            "{unverified}"
        );
        let plan: Value = serde_json::from_str(&w.ok(&["show", "-json", "p.tfplan"]).stdout).unwrap_or_default();
        let planned = &plan["planned_values"]["root_module"]["resources"][0]["values"]["pools"];
        for (short, ty, layout, renders_for_karpenter) in types() {
            let ng = &planned[format!("{short}-ng")];
            assert_eq!(planned_template(ng), layout, "{}: {ty} node group", tf.label);
            let kp = planned_node_class(&planned[format!("{short}-kp")]);
            let want = if renders_for_karpenter { layout } else { Vec::new() };
            assert_eq!(kp, want, "{}: {ty} EC2NodeClass", tf.label);
        }
        for (name, ty, ng, nics) in explicit_valid() {
            let got = if ng {
                planned_template(&planned[name])
            } else {
                planned_node_class(&planned[name])
            };
            assert_eq!(got, owned(&nics), "{}: {name} on {ty}", tf.label);
        }
    }
}

/// Each broken layout fails the plan (exit 1) with its code, at its attribute, saying why.
#[test]
fn each_broken_layout_is_refused_with_its_code() {
    for tf in terraform_versions() {
        let w = Workdir::new(&tf, &strategy(&provider_header(), ""));
        w.init();
        let mut failures = Vec::new();
        for (pool, code, rest, detail, body) in broken() {
            w.write("main.tf", &strategy(&provider_header(), &body));
            let (exit, r) = w.plan_code(&[]);
            let out = r.combined();
            let path = format!("pools[\"{pool}\"]{rest}");
            let found = diagnostic(&out, &format!("Error: {code}: "), &path);
            if exit != 1 || !found.is_some_and(|d| d.contains(detail)) {
                failures.push(format!(
                    "{pool}: exit {exit}, want {code} at {path} ({detail:?}):\n{out}"
                ));
            }
        }
        assert!(failures.is_empty(), "{}:\n{}", tf.label, failures.join("\n\n"));
    }
}

/// `(card, device, type)` of each interface of a launch template version as EC2 (moto) describes it.
fn described_interfaces(xml: &str) -> Vec<Nic> {
    let set = xml
        .split_once("<networkInterfaceSet>")
        .and_then(|(_, rest)| rest.split_once("</networkInterfaceSet>"))
        .map_or("", |(set, _)| set);
    let tag = |item: &str, name: &str| -> Option<String> {
        let open = format!("<{name}>");
        let (_, rest) = item.split_once(&open)?;
        rest.split_once(&format!("</{name}>")).map(|(v, _)| v.to_owned())
    };
    set.split("<item>")
        .filter_map(|item| {
            Some((
                tag(item, "networkCardIndex")?.parse().ok()?,
                tag(item, "deviceIndex")?.parse().ok()?,
                tag(item, "interfaceType")?,
            ))
        })
        .collect()
}

/// The node group launch templates of the four types reach EC2 with the planned interfaces; a
/// refresh plans nothing.
#[test]
fn node_group_templates_reach_ec2_with_each_type_s_layout() {
    for tf in terraform_versions() {
        let (_kube, moto) = eks_cluster("gpu");
        let header = format!(
            "{}data \"eksgpu_cluster\" \"gpu\" {{\n  name = \"gpu\"\n}}\n",
            provider_header()
        );
        let pools: String = types()
            .iter()
            .map(|(short, ty, _, _)| mng(&format!("{short}-ng"), ty, "data.eksgpu_cluster.gpu.subnet_ids", ""))
            .collect();
        let mut w = Workdir::new(&tf, &strategy(&header, &pools));
        w.env("AWS_ENDPOINT_URL", &moto.url());
        w.init();
        w.apply();
        for (short, ty, layout, _) in types() {
            let xml = moto.ec2(&format!(
                "Action=DescribeLaunchTemplateVersions&LaunchTemplateName=gpu-{short}-ng&Versions.1=%24Latest"
            ));
            assert_eq!(described_interfaces(&xml), layout, "{}: {ty}: {xml}", tf.label);
        }
        w.assert_empty_plan();
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
    }
}

/// The EC2NodeClasses of the four types, the provider's layouts and explicit ones, are applied to
/// the cluster (the real API server in its lane) with their interfaces, and a refresh plans
/// nothing.
#[test]
fn node_classes_with_each_type_s_interfaces_are_applied() {
    for tf in terraform_versions() {
        let kube = KubeTarget::start();
        let mut pools = String::new();
        for (short, ty, _, _) in types() {
            pools += &karpenter(&format!("{short}-kp"), &format!("\"{ty}\""), "");
        }
        for (name, ty, ng, nics) in explicit_valid() {
            if !ng {
                pools += &karpenter(name, &format!("\"{ty}\""), &hcl(&nics));
            }
        }
        let w = Workdir::new(&tf, &strategy(&Provider::new().kube(&kube).header(), &pools));
        w.init();
        w.apply();
        let applied = |name: &str| -> Vec<Nic> {
            let nc = kube
                .get(EC2_NODE_CLASS, name)
                .unwrap_or_else(|| panic!("{}: EC2NodeClass {name} applied", tf.label));
            nics_of(
                &nc["spec"]["networkInterfaces"],
                "networkCardIndex",
                "deviceIndex",
                "interfaceType",
            )
        };
        for (short, ty, layout, renders) in types() {
            let want = if renders { layout } else { Vec::new() };
            assert_eq!(applied(&format!("{short}-kp")), want, "{}: {ty}", tf.label);
        }
        for (name, _, ng, nics) in explicit_valid() {
            if !ng {
                assert_eq!(applied(name), owned(&nics), "{}: {name}", tf.label);
            }
        }
        w.assert_empty_plan();
        w.ok(&["destroy", "-auto-approve", "-no-color"]);
        assert!(kube.get(EC2_NODE_CLASS, "b300-kp").is_none());
    }
}
