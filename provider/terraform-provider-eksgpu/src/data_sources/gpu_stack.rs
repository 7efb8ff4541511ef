//! `eksgpu_gpu_stack`: the one set of Helm values per accelerator chart that a cluster shared by
//! several node strategies needs. Each strategy renders its own `gpu_operator_values_yaml`,
//! `neuron_values_yaml`, `dra_driver_values_yaml` and `device_plugin_values_yaml`; a cluster runs
//! one release of each chart,
//! so this merges them (`eksgpu_core::stack`), offline, and refuses values the strategies set
//! differently, naming both.

use async_trait::async_trait;
use eksgpu_core::stack::{self, Chart};
use eksgpu_core::yaml;
use eksgpu_framework::{ManagedDataSource, validators};
use eksgpu_tfplugin::schema::{Attribute, Block, NestedBlock, Schema};
use eksgpu_tfplugin::{AttributePath, Context, Diagnostics, Type, Value};

pub struct GpuStack;

/// The charts, as the strategy's output and this data source's output name them.
const CHARTS: [(Chart, &str, &str); 4] = [
    (
        Chart::GpuOperator,
        "gpu_operator_values_yaml",
        "the GPU Operator (nvidia/gpu-operator)",
    ),
    (
        Chart::Neuron,
        "neuron_values_yaml",
        "the Neuron chart (oci://public.ecr.aws/neuron/neuron-helm-chart)",
    ),
    (
        Chart::DraDriver,
        "dra_driver_values_yaml",
        "NVIDIA's DRA driver (k8s-dra-driver-gpu)",
    ),
    (
        Chart::DevicePlugin,
        "device_plugin_values_yaml",
        "NVIDIA's device plugin without the GPU Operator (nvdp/nvidia-device-plugin)",
    ),
];

pub fn schema() -> Schema {
    let mut strategy = Block::new("One node strategy of the cluster: its name and the values it renders.").attribute(
        Attribute::required("name", Type::String, "The strategy's `name`, for messages.").validate(validators::string(
            "A non-empty name.",
            |s| {
                if s.trim().is_empty() {
                    Err("The name is empty.".into())
                } else {
                    Ok(())
                }
            },
        )),
    );
    let mut block = Block::new(
        "One GPU stack per cluster: merges the Helm values of the node strategies that share a cluster into one \
         values document per chart (the GPU Operator, the Neuron chart, NVIDIA's DRA driver, NVIDIA's device \
         plugin without the operator), as the cluster's \
         one release of each chart needs. Tolerations are the union; settings the strategies give differently \
         (the MIG strategy, the device plugin's config, driver installation) are an error naming both \
         strategies; MIG Manager is on when any strategy needs it. Offline: needs no AWS or cluster access.",
    );
    for (_, attr, chart) in CHARTS {
        strategy = strategy.attribute(Attribute::optional(
            attr,
            Type::String,
            &format!("The strategy's `{attr}` (values for {chart}); empty or unset when it has none."),
        ));
        block = block.attribute(Attribute::computed(
            attr,
            Type::String,
            &format!("The merged values for {chart}: empty when no strategy gives any."),
        ));
    }
    Schema::new(block.block(NestedBlock::list("strategy", strategy).min_items(1)))
}

/// The strategies' values for one chart, parsed, with where each came from.
fn contributions<'a>(
    strategies: &'a [Value],
    attr: &str,
    diags: &mut Diagnostics,
) -> Option<Vec<(usize, &'a str, serde_json::Value)>> {
    let mut out = Vec::new();
    for (i, s) in strategies.iter().enumerate() {
        let name = s.get("name").as_str().unwrap_or_default();
        let Some(text) = s.get(attr).as_str().filter(|t| !t.trim().is_empty()) else {
            continue;
        };
        match stack::parse_values(text) {
            Some(v) => out.push((i, name, v)),
            None => {
                diags.error_at(
                    strategy_attr(i, attr),
                    "Not Helm values",
                    format!(
                        "The `{attr}` of strategy {name:?} is not a YAML mapping of Helm values: pass the \
                         strategy's output as it is (eksgpu_node_strategy.<name>.{attr})."
                    ),
                );
                return None;
            }
        }
    }
    Some(out)
}

fn strategy_attr(i: usize, attr: &str) -> AttributePath {
    AttributePath::attr("strategy").index(i).attribute(attr)
}

#[async_trait]
impl ManagedDataSource for GpuStack {
    fn type_name(&self) -> &'static str {
        "eksgpu_gpu_stack"
    }

    fn schema(&self) -> Schema {
        schema()
    }

    async fn read(&self, _ctx: &Context, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let strategies = config.get("strategy").elements();
        let mut seen = std::collections::BTreeSet::new();
        for (i, s) in strategies.iter().enumerate() {
            let name = s.get("name").as_str().unwrap_or_default();
            if !seen.insert(name) {
                diags.error_at(
                    AttributePath::attr("strategy").index(i).attribute("name"),
                    "Strategy listed twice",
                    format!("Strategy {name:?} is listed twice: list each strategy of the cluster once."),
                );
                return None;
            }
        }
        let Value::Object(mut out) = config.clone() else {
            return None;
        };
        for (chart, attr, what) in CHARTS {
            let parts = contributions(strategies, attr, diags)?;
            let named: Vec<(&str, serde_json::Value)> = parts.iter().map(|(_, n, v)| (*n, v.clone())).collect();
            match stack::merge(chart, &named) {
                Ok(merged) => {
                    out.insert(
                        attr.into(),
                        merged.map_or_else(String::new, |v| yaml::to_yaml(&v)).into(),
                    );
                }
                Err(e) => {
                    let at = parts.get(e.second_index).map_or(0, |(i, _, _)| *i);
                    diags.error_at(
                        strategy_attr(at, attr),
                        "Strategies disagree on the cluster's GPU stack",
                        format!(
                            "For {what}: {e}. Make the strategies' settings the same (for example one \
                             `gpu_operator {{ mig_strategy }}`), or run their pools in different clusters."
                        ),
                    );
                    return None;
                }
            }
        }
        Some(Value::Object(out))
    }
}
