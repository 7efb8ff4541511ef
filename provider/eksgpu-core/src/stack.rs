//! One GPU stack per cluster. A cluster runs one release of each accelerator chart (the GPU
//! Operator, the Neuron chart, NVIDIA's DRA driver), while platform teams declare one node
//! strategy each, every one with its own values. This merges the values of the strategies of one
//! cluster into one document per chart, offline:
//!
//! - lists (tolerations) are the union, in the order the strategies give them;
//! - maps merge key by key;
//! - a scalar two strategies set differently is a conflict, reported naming both strategies and
//!   the key, except where the chart's value is right for every node once one strategy needs it:
//!   `migManager.enabled` (MIG Manager applies the layout a node's `nvidia.com/mig.config` label
//!   names, and on unlabelled nodes its default `all-disabled`, i.e. the whole GPUs other
//!   strategies expect: gpu-operator v26.7.0 deployments/gpu-operator/values.yaml,
//!   `migManager.config.default`), which is on when any strategy needs it; and, for the standalone
//!   device plugin, `devicePlugin.enabled` (a strategy whose pools it does not serve turns it off;
//!   the merged affinity still holds only the pools that need it) and `gfd.enabled` (GPU Feature
//!   Discovery only labels nodes, so it is right on every node the plugin serves once one strategy
//!   needs its labels: k8s-device-plugin v0.20.0 deployments/helm/nvidia-device-plugin values.yaml).

use serde_json::{Map, Value};

/// A chart whose values are merged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chart {
    GpuOperator,
    Neuron,
    DraDriver,
    DevicePlugin,
}

impl Chart {
    /// Values read per node, where "on" in one strategy is right for all.
    fn any_of(self) -> &'static [&'static str] {
        match self {
            Chart::GpuOperator => &["migManager.enabled"],
            Chart::DevicePlugin => &["devicePlugin.enabled", "gfd.enabled"],
            Chart::Neuron | Chart::DraDriver => &[],
        }
    }
}

/// Two strategies that set one key differently.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "strategies {first:?} and {second:?} set {key} differently ({first_value} and {second_value}); one release of \
     the chart serves the whole cluster, so the strategies must agree on it"
)]
pub struct Conflict {
    pub key: String,
    pub first: String,
    pub first_value: String,
    pub second: String,
    pub second_value: String,
    /// The index of the second strategy's contribution.
    pub second_index: usize,
}

/// Helm values as a strategy output renders them: a YAML mapping; `None` for anything else.
pub fn parse_values(text: &str) -> Option<Value> {
    serde_saphyr::from_str::<Value>(text).ok().filter(Value::is_object)
}

/// The merged values of `parts` (strategy name and its values), `None` when none contributes.
pub fn merge(chart: Chart, parts: &[(&str, Value)]) -> Result<Option<Value>, Box<Conflict>> {
    let mut merged: Option<(Value, Map<String, Value>)> = None;
    for (i, (name, values)) in parts.iter().enumerate() {
        match &mut merged {
            None => {
                let mut owners = Map::new();
                record_owners(values, "", name, &mut owners);
                merged = Some((values.clone(), owners));
            }
            Some((into, owners)) => merge_into(chart, into, values, "", name, i, owners)?,
        }
    }
    Ok(merged.map(|(v, _)| v))
}

/// Which strategy set each scalar first, by key path (for the conflict message).
fn record_owners(v: &Value, key: &str, name: &str, owners: &mut Map<String, Value>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                record_owners(x, &join(key, k), name, owners);
            }
        }
        Value::Array(_) => {}
        _ => {
            owners.insert(key.to_owned(), Value::from(name));
        }
    }
}

fn join(key: &str, k: &str) -> String {
    if key.is_empty() {
        k.to_owned()
    } else {
        format!("{key}.{k}")
    }
}

fn merge_into(
    chart: Chart,
    into: &mut Value,
    from: &Value,
    key: &str,
    name: &str,
    index: usize,
    owners: &mut Map<String, Value>,
) -> Result<(), Box<Conflict>> {
    match (into, from) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, x) in b {
                let sub = join(key, k);
                match a.get_mut(k) {
                    Some(y) => merge_into(chart, y, x, &sub, name, index, owners)?,
                    None => {
                        record_owners(x, &sub, name, owners);
                        a.insert(k.clone(), x.clone());
                    }
                }
            }
            Ok(())
        }
        (Value::Array(a), Value::Array(b)) => {
            for x in b {
                if !a.contains(x) {
                    a.push(x.clone());
                }
            }
            Ok(())
        }
        (a, b) if a == b => Ok(()),
        (a, b) if chart.any_of().contains(&key) && a.is_boolean() && b.is_boolean() => {
            *a = Value::Bool(a.as_bool() == Some(true) || b.as_bool() == Some(true));
            Ok(())
        }
        (a, b) => Err(Box::new(Conflict {
            key: key.to_owned(),
            first: owners
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or("an earlier strategy")
                .to_owned(),
            first_value: a.to_string(),
            second: name.to_owned(),
            second_value: b.to_string(),
            second_index: index,
        })),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn tolerations_are_the_union_and_maps_merge() {
        let a = json!({"daemonsets": {"tolerations": [{"key": "nvidia.com/gpu"}]}, "mig": {"strategy": "single"}});
        let b = json!({"daemonsets": {"tolerations": [{"key": "nvidia.com/gpu"}, {"key": "team-b"}]}, "gfd": {"enabled": true}});
        let m = merge(Chart::GpuOperator, &[("a", a), ("b", b)]).unwrap().unwrap();
        assert_eq!(
            m["daemonsets"]["tolerations"],
            json!([{"key": "nvidia.com/gpu"}, {"key": "team-b"}])
        );
        assert_eq!(m["mig"]["strategy"], "single");
        assert_eq!(m["gfd"]["enabled"], true);
    }

    #[test]
    fn a_scalar_set_differently_names_both_strategies_and_the_key() {
        let a = json!({"mig": {"strategy": "single"}});
        let b = json!({"mig": {"strategy": "mixed"}});
        let e = merge(Chart::GpuOperator, &[("team-a", a), ("team-b", b)]).unwrap_err();
        assert_eq!(
            (e.key.as_str(), e.first.as_str(), e.second.as_str()),
            ("mig.strategy", "team-a", "team-b")
        );
        assert_eq!(e.second_index, 1);
        assert!(e.to_string().contains("\"single\" and \"mixed\""), "{e}");
    }

    #[test]
    fn mig_manager_is_on_when_any_strategy_needs_it_but_the_neuron_plugin_is_not_or_ed() {
        let off = json!({"migManager": {"enabled": false}});
        let on = json!({"migManager": {"enabled": true}});
        let m = merge(Chart::GpuOperator, &[("a", off.clone()), ("b", on.clone())])
            .unwrap()
            .unwrap();
        assert_eq!(m["migManager"]["enabled"], true);
        let dp = json!({"devicePlugin": {"enabled": true}, "draDriver": {"enabled": false}});
        let dra = json!({"devicePlugin": {"enabled": false}, "draDriver": {"enabled": true}});
        let e = merge(Chart::Neuron, &[("a", dp), ("b", dra)]).unwrap_err();
        assert_eq!(e.key, "devicePlugin.enabled");
    }

    #[test]
    fn device_plugin_configs_merge_by_name_and_gfd_is_on_when_any_needs_it() {
        let a = json!({"config": {"map": {"default": "d", "ts": "x"}}, "devicePlugin": {"enabled": true}, "gfd": {"enabled": false}});
        let b = json!({"config": {"map": {"default": "d", "mps": "y"}}, "devicePlugin": {"enabled": false}, "gfd": {"enabled": true}});
        let m = merge(Chart::DevicePlugin, &[("a", a.clone()), ("b", b)])
            .unwrap()
            .unwrap();
        assert_eq!(m["config"]["map"], json!({"default": "d", "ts": "x", "mps": "y"}));
        assert_eq!(
            (m["devicePlugin"]["enabled"].clone(), m["gfd"]["enabled"].clone()),
            (json!(true), json!(true))
        );
        // One config name with two settings cannot be one release's.
        let c = json!({"config": {"map": {"ts": "z"}}});
        let e = merge(Chart::DevicePlugin, &[("a", a), ("c", c)]).unwrap_err();
        assert_eq!(e.key, "config.map.ts");
    }

    #[test]
    fn two_strategies_whose_dra_pools_need_different_driver_roots_conflict() {
        // Each strategy renders its root (EKSGPU146 holds within one); across strategies the
        // cluster's one DRA release still has one `nvidiaDriverRoot`.
        let host = json!({"nvidiaDriverRoot": "/", "resources": {"gpus": {"enabled": true}}});
        let operator = json!({"nvidiaDriverRoot": "/run/nvidia/driver", "resources": {"gpus": {"enabled": true}}});
        let e = merge(Chart::DraDriver, &[("cloud", host.clone()), ("onprem", operator)]).unwrap_err();
        assert_eq!((e.key.as_str(), e.second.as_str()), ("nvidiaDriverRoot", "onprem"));
        assert!(merge(Chart::DraDriver, &[("a", host.clone()), ("b", host)]).is_ok());
    }

    #[test]
    fn a_gb200_strategy_and_a_dra_gpu_strategy_cannot_share_the_release() {
        // The one release's kubelet plugin would run its GPU plugin on the GB200 nodes too, which
        // the device plugin serves (EKSGPU145 within one strategy; here across two).
        let gb200 = json!({"resources": {"gpus": {"enabled": false}, "computeDomains": {"enabled": true}}});
        let gpus = json!({"resources": {"gpus": {"enabled": true}, "computeDomains": {"enabled": false}}});
        let e = merge(Chart::DraDriver, &[("training", gb200), ("serving", gpus)]).unwrap_err();
        assert_eq!(e.key, "resources.gpus.enabled");
    }

    #[test]
    fn nothing_to_merge_is_none() {
        assert_eq!(merge(Chart::DraDriver, &[]).unwrap(), None);
    }
}
