//! Each output changes only with the inputs declared to feed it: a pool input is swapped for
//! another pool's value (of the same capacity kind), a strategy input for another value, and
//! every output the input does not feed must stay as it was. An undeclared dependency would make
//! the plan show a value apply then changes ("Provider produced inconsistent final plan").

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde_json::{Value, json};

use super::Output;
use crate::model::inputs::tests::{in_cluster_pool, node_group_pool, strategy};
use crate::model::inputs::{POOL, write_config};
use crate::model::{Capacity, DevicePlugin, GpuOperator, NodeStrategy, Pool};
use crate::render;

fn value(o: Output, s: &NodeStrategy, pool: &Pool) -> Value {
    match o {
        Output::NodeSelector => json!(render::node_selector(s, pool)),
        Output::Tolerations => json!(render::tolerations(pool)),
        Output::Accelerator => json!(pool.vendor().as_str()),
        Output::GpuResourceName => json!(render::gpu_resource_name(s, pool)),
        Output::MatchedInstanceTypes => json!(crate::model::matching::matched_instance_types(pool)),
        Output::GpuOperatorValues => json!(render::gpu_operator_values(s)),
        Output::NeuronValues => json!(render::neuron_values(s)),
        Output::ComputeDomainClaimTemplate => json!(render::compute_domain_claim_template(pool)),
        Output::CliqueTopologyKey => json!(pool.multi_node_nvlink.then_some(render::CLIQUE_LABEL)),
        Output::DraDriverValues => json!(render::dra_driver_values(s)),
        Output::DevicePluginValues => json!(render::device_plugin_values(s)),
    }
}

fn all() -> impl Iterator<Item = Output> {
    Output::POOL.into_iter().chain(Output::STRATEGY)
}

/// Two pools of one capacity kind; the second with another name and sometimes a MIG layout or a
/// DRA sharing label, so that swapping those inputs changes something.
fn pair() -> BoxedStrategy<(Pool, Pool)> {
    let kind = |c: Capacity| match c {
        Capacity::ManagedNodeGroup => node_group_pool(),
        other => in_cluster_pool(other),
    };
    prop_oneof![
        Just(Capacity::Karpenter),
        Just(Capacity::AutoMode),
        Just(Capacity::ManagedNodeGroup)
    ]
    .prop_flat_map(move |c| (kind(c), kind(c), any::<bool>(), any::<bool>()))
    .prop_map(|(a, mut b, mig, dra_sharing)| {
        b.name = "batch".into();
        if mig {
            b.labels.insert(render::MIG_CONFIG.into(), "all-1g.10gb".into());
        }
        // The label a DRA sharing pool hands over, which the DRA driver's feature gates follow.
        if dra_sharing {
            b.labels
                .insert(crate::sharing::handover::DRA_SHARING.into(), "time_slicing".into());
        }
        (a, b)
    })
    .boxed()
}

fn with_device_plugin(s: &mut NodeStrategy) {
    s.device_plugin = Some(DevicePlugin {
        mig_strategy: "mixed".into(),
    });
}

fn with_operator(s: &mut NodeStrategy, mig_strategy: &str) {
    s.gpu_operator = Some(GpuOperator {
        mig_strategy: mig_strategy.into(),
        dcgm_exporter: true,
        service_monitor: false,
    });
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_pool_input_changes_only_the_outputs_it_feeds((a, b) in pair(), mixed in any::<bool>()) {
        let mut s = strategy(&a, true);
        with_operator(&mut s, if mixed { "mixed" } else { "single" });
        with_device_plugin(&mut s);
        let (cfg_a, cfg_b) = (write_config(POOL, &a), write_config(POOL, &b));
        for (key, other) in cfg_b.as_object().into_iter().flatten() {
            let mut cfg = cfg_a.clone();
            cfg[key.as_str()] = other.clone();
            // A mix of two pools' blocks may not read (a node group's settings are checked together).
            let Ok(c) = crate::model::inputs::read_pool(&a.name, &cfg) else { continue };
            let t = NodeStrategy { pools: vec![c.clone()], ..s.clone() };
            for o in all().filter(|o| !o.reads(&[key.as_str()])) {
                prop_assert_eq!(value(o, &s, &a), value(o, &t, &c), "{:?} changed with pool input {}", o, key);
            }
        }
    }

    #[test]
    fn a_strategy_input_changes_only_the_outputs_that_read_it((a, _) in pair(), operator in any::<bool>()) {
        let s = strategy(&a, operator);
        let mut mixed = s.clone();
        with_operator(&mut mixed, "mixed");
        let mut plugin = s.clone();
        with_device_plugin(&mut plugin);
        let changed: [(&str, NodeStrategy); 6] = [
            ("cluster_name", NodeStrategy { cluster_name: "other".into(), ..s.clone() }),
            ("name", NodeStrategy { name: "other".into(), ..s.clone() }),
            ("kubernetes_version", NodeStrategy { kubernetes_version: Some("1.31".into()), ..s.clone() }),
            ("default_tags", NodeStrategy { default_tags: BTreeMap::new(), ..s.clone() }),
            ("gpu_operator", if operator { NodeStrategy { gpu_operator: None, ..s.clone() } } else { mixed }),
            ("device_plugin", plugin),
        ];
        for (input, t) in &changed {
            for o in all().filter(|o| !o.strategy_inputs(a.capacity).contains(input)) {
                prop_assert_eq!(value(o, &s, &a), value(o, t, &a), "{:?} changed with {}", o, input);
            }
        }
    }
}

#[test]
fn outputs_read_their_inputs_and_not_the_node_class() {
    assert!(
        Output::Tolerations.reads(&["taints"]),
        "an unknown list of taints holds taint keys"
    );
    assert!(Output::Tolerations.reads(&["taints", "effect"]));
    assert!(
        Output::GpuResourceName.reads(&["labels", "nvidia.com/mig.config"]),
        "a label inside the map"
    );
    for o in Output::POOL.into_iter().chain(Output::STRATEGY) {
        for unrelated in [
            &["node_class", "role"][..],
            &["node_class"],
            &["tags"],
            &["managed_node_group", "node_role_arn"],
            &["managed_node_group", "subnet_ids"],
            &["hybrid"],
        ] {
            // The standalone device plugin stays off Bottlerocket nodes, whose AMI is chosen in
            // those two blocks (`ami_alias`, `ami_type`).
            let ami = matches!(unrelated, ["node_class"] | ["managed_node_group"]);
            if o == Output::DevicePluginValues && ami {
                continue;
            }
            assert!(!o.reads(unrelated), "{o:?} must not wait for {unrelated:?}");
        }
    }
    // A node group's selector names it: its `name` or `name_prefix` (so a whole unknown block).
    assert!(Output::NodeSelector.reads(&["managed_node_group", "name"]));
    assert!(Output::NodeSelector.reads(&["managed_node_group"]));
    assert!(!Output::Tolerations.reads(&["managed_node_group"]));
}

#[test]
fn the_device_plugin_waits_for_the_ami_but_not_the_role() {
    assert!(Output::DevicePluginValues.reads(&["node_class", "ami_alias"]));
    assert!(Output::DevicePluginValues.reads(&["managed_node_group", "ami_type"]));
    assert!(!Output::DevicePluginValues.reads(&["node_class", "role"]));
    assert!(!Output::DevicePluginValues.reads(&["managed_node_group", "node_role_arn"]));
}
