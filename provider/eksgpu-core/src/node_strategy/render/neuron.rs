//! Helm values for the AWS Neuron chart (`oci://public.ecr.aws/neuron/neuron-helm-chart`,
//! source aws-neuron/neuron-helm-charts `charts/neuron-helm-chart/values.yaml`, chart 1.10.0)
//! that fit the strategy's Neuron pools:
//! - the Neuron device plugin serves Karpenter and node-group Neuron pools; Auto Mode ships its
//!   own (EKS user guide, Auto Mode accelerated workloads), and the chart's own affinity
//!   (`eks.amazonaws.com/compute-type NotIn [fargate, hybrid, auto]`) is kept as it is, so the
//!   plugin never lands on Auto Mode, hybrid or Fargate nodes;
//! - `dra = true` Neuron pools get the Neuron DRA driver instead (`draDriver.enabled`, with
//!   `devicePlugin.enabled` and `npd.enabled` off, as the EKS user guide installs it); one
//!   release never runs both (the chart's `validateConfig` refuses it; EKSGPU153);
//! - the plugin and the driver tolerate the Neuron pools' taints (the chart's defaults kept, as
//!   the value replaces them);
//! - `neuronInstances` lists the device-plugin pools' instance types beside the chart's own: the
//!   plugin's node affinity selects `node.kubernetes.io/instance-type In neuronInstances` in every
//!   chart version (`templates/device-plugin-daemonset.yaml` of chart 1.0.0 @8172e5e1, the
//!   `__NEURON_INSTANCES__` of `devicePlugin.affinity` in `templates/_helpers.tpl` later), and a
//!   type missing from the chart's list gets no device plugin (chart 1.0.0 lists no trn2);
//! - the Neuron scheduler extension (`scheduler.enabled`) runs with the device plugin when a pool's
//!   instances hold more than one Neuron device: without it the default scheduler may hand a pod
//!   devices that are not contiguous (Neuron documentation, Neuron scheduler extension).

use serde_json::{Value, json};

use super::effective_taints;
use crate::catalog;
use crate::model::{NodeStrategy, Pool};
use crate::node_strategy::rules::{uses_neuron_device_plugin, uses_neuron_dra_driver};

/// The chart's default tolerations of `devicePlugin` and `draDriver` (values.yaml, chart 1.10.0).
fn chart_tolerations() -> Vec<Value> {
    vec![
        json!({"key": "CriticalAddonsOnly", "operator": "Exists"}),
        json!({"key": catalog::NEURON_DEVICE_RESOURCE, "operator": "Exists", "effect": "NoSchedule"}),
        json!({"key": "sagemaker.amazonaws.com/node-health-status", "operator": "Equal", "value": "Unschedulable", "effect": "NoSchedule"}),
    ]
}

/// The chart's default `neuronInstances` (aws-neuron/neuron-helm-charts
/// `charts/neuron-helm-chart/values.yaml` @14049c20): setting the value replaces it, so it is kept.
const CHART_INSTANCES: [&str; 20] = [
    "trn1.2xlarge",
    "trn1.32xlarge",
    "trn1n.32xlarge",
    "trn2.48xlarge",
    "trn2u.48xlarge",
    "inf1.xlarge",
    "inf1.2xlarge",
    "inf1.6xlarge",
    "inf1.24xlarge",
    "inf2.xlarge",
    "inf2.8xlarge",
    "inf2.24xlarge",
    "inf2.48xlarge",
    "ml.inf2.xlarge",
    "ml.inf2.8xlarge",
    "ml.inf2.24xlarge",
    "ml.inf2.48xlarge",
    "ml.trn1.2xlarge",
    "ml.trn1.32xlarge",
    "ml.trn1n.32xlarge",
];

/// The chart's instance types, then each of `pools`' the chart does not list.
fn neuron_instances<'p>(pools: impl Iterator<Item = &'p Pool>) -> Vec<Value> {
    let mut out: Vec<String> = CHART_INSTANCES.iter().map(|t| (*t).to_owned()).collect();
    for t in pools.flat_map(|p| p.instance_types.iter()) {
        if !out.contains(t) {
            out.push(t.clone());
        }
    }
    out.into_iter().map(Value::String).collect()
}

/// The chart's defaults plus a toleration for each taint of `pools`.
fn tolerations<'p>(pools: impl Iterator<Item = &'p Pool>) -> Vec<Value> {
    let mut out = chart_tolerations();
    for pool in pools {
        for t in effective_taints(pool) {
            let tol = json!({"key": t.key, "operator": "Exists", "effect": t.effect});
            if !out.contains(&tol) {
                out.push(tol);
            }
        }
    }
    out
}

/// Some pool's instances hold several Neuron devices, so a pod may ask for a subset of them.
fn needs_scheduler_extension<'p>(mut pools: impl Iterator<Item = &'p Pool>) -> bool {
    pools.any(|p| {
        p.instance_types
            .iter()
            .filter_map(|t| catalog::instance_type(t))
            .any(|t| t.neuron_devices().is_some_and(|d| d > 1))
    })
}

/// `None` when no pool is a Neuron pool. With only Auto Mode Neuron pools every component is off:
/// Auto Mode brings its own device plugin and node health monitoring.
pub fn neuron_values(strategy: &NodeStrategy) -> Option<Value> {
    if !strategy.pools.iter().any(Pool::is_neuron) {
        return None;
    }
    let plugin_pools = || strategy.pools.iter().filter(|p| uses_neuron_device_plugin(p));
    let dra_pools = || strategy.pools.iter().filter(|p| uses_neuron_dra_driver(p));
    let plugin = plugin_pools().next().is_some();
    // EKSGPU153 refuses a strategy with both; the device plugin wins in what is rendered for it.
    let dra = !plugin && dra_pools().next().is_some();
    let mut device_plugin = json!({"enabled": plugin});
    if plugin {
        device_plugin["tolerations"] = Value::Array(tolerations(plugin_pools()));
    }
    let mut dra_driver = json!({"enabled": dra});
    if dra {
        dra_driver["tolerations"] = Value::Array(tolerations(dra_pools()));
    }
    let mut values = json!({
        "devicePlugin": device_plugin,
        "draDriver": dra_driver,
        "scheduler": {"enabled": plugin && needs_scheduler_extension(plugin_pools())},
        // The node problem detector watches Neuron kernel errors next to the device plugin (chart
        // default on); the EKS user guide installs the DRA driver with it off.
        "npd": {"enabled": plugin},
    });
    if plugin {
        values["neuronInstances"] = Value::Array(neuron_instances(plugin_pools()));
    }
    Some(values)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::fixture;
    use crate::model::{Capacity, Taint};

    fn strategy(pools: Vec<Pool>) -> NodeStrategy {
        NodeStrategy {
            cluster_name: "gpu".into(),
            name: "genai".into(),
            kubernetes_version: Some("1.34".into()),
            gpu_operator: None,
            device_plugin: None,
            pools,
            default_tags: BTreeMap::new(),
            karpenter_gates: Default::default(),
        }
    }

    #[test]
    fn no_neuron_pool_no_values() {
        let s = strategy(vec![fixture::pool("g", Capacity::Karpenter, &["p5.48xlarge"])]);
        assert_eq!(neuron_values(&s), None);
    }

    #[test]
    fn karpenter_and_node_group_pools_get_the_device_plugin_with_their_taints() {
        let mut k = fixture::pool("k", Capacity::Karpenter, &["trn2.48xlarge"]);
        k.taints.push(Taint {
            key: "team.example.com/ml".into(),
            value: Some("x".into()),
            effect: "NoExecute".into(),
        });
        let n = fixture::pool("n", Capacity::ManagedNodeGroup, &["inf2.xlarge"]);
        let gpu = fixture::pool("g", Capacity::Karpenter, &["p5.48xlarge"]);
        let v = neuron_values(&strategy(vec![k, n, gpu])).unwrap();
        assert_eq!(v["devicePlugin"]["enabled"], true);
        assert_eq!(v["draDriver"], json!({"enabled": false}));
        assert_eq!(v["npd"]["enabled"], true);
        // trn2.48xlarge holds 16 devices: the scheduler extension keeps a pod's devices contiguous.
        assert_eq!(v["scheduler"]["enabled"], true);
        let tols = v["devicePlugin"]["tolerations"].as_array().unwrap();
        assert!(tols.contains(&json!({"key": "team.example.com/ml", "operator": "Exists", "effect": "NoExecute"})));
        // The default Neuron taint is the chart's own toleration, once; no NVIDIA toleration.
        assert_eq!(tols.iter().filter(|t| t["key"] == "aws.amazon.com/neuron").count(), 1);
        assert!(!tols.iter().any(|t| t["key"] == "nvidia.com/gpu"));
        // No key the renderer sets overrides the chart's affinity.
        assert!(v["devicePlugin"].get("affinity").is_none());
    }

    #[test]
    fn the_plugin_pools_instance_types_join_the_charts_list() {
        let mut k = fixture::pool("k", Capacity::Karpenter, &["trn2.48xlarge", "inf2.xlarge"]);
        k.instance_types.push("trn2.3xlarge".into());
        let v = neuron_values(&strategy(vec![k])).unwrap();
        let list: Vec<&str> = v["neuronInstances"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        // The chart's list first, unchanged; only what it lacks is added, once.
        assert_eq!(list[..CHART_INSTANCES.len()], CHART_INSTANCES);
        assert_eq!(list[CHART_INSTANCES.len()..], ["trn2.3xlarge"]);
        // Without device-plugin pools the chart's own list stays.
        let a = fixture::pool("a", Capacity::AutoMode, &["trn2.48xlarge"]);
        assert!(
            neuron_values(&strategy(vec![a]))
                .unwrap()
                .get("neuronInstances")
                .is_none()
        );
    }

    #[test]
    fn single_device_types_need_no_scheduler_extension() {
        let n = fixture::pool("n", Capacity::Karpenter, &["inf2.xlarge", "inf2.8xlarge"]);
        let v = neuron_values(&strategy(vec![n])).unwrap();
        assert_eq!(v["scheduler"]["enabled"], false);
    }

    #[test]
    fn auto_mode_only_installs_nothing() {
        let a = fixture::pool("a", Capacity::AutoMode, &["trn2.48xlarge"]);
        let v = neuron_values(&strategy(vec![a])).unwrap();
        assert_eq!(
            v,
            json!({"devicePlugin": {"enabled": false}, "draDriver": {"enabled": false},
                   "scheduler": {"enabled": false}, "npd": {"enabled": false}})
        );
    }

    #[test]
    fn dra_pools_get_the_dra_driver_instead() {
        let d = Pool {
            dra: true,
            ..fixture::pool("d", Capacity::ManagedNodeGroup, &["trn2.48xlarge"])
        };
        let a = fixture::pool("a", Capacity::AutoMode, &["inf2.48xlarge"]);
        let v = neuron_values(&strategy(vec![d, a])).unwrap();
        assert_eq!(v["devicePlugin"], json!({"enabled": false}));
        assert_eq!(v["draDriver"]["enabled"], true);
        assert_eq!(v["scheduler"]["enabled"], false);
        assert_eq!(v["npd"]["enabled"], false);
        assert!(v["draDriver"]["tolerations"].as_array().unwrap().len() >= 3);
    }
}
