//! `eksgpu_recommendation`: the field reports' decision tables as a data source —
//! capacity kind, instance types, sharing strategy, GPUs used, billed
//! instances and monthly cost (from given prices only) for one model, with
//! the decision rules that decided it. Pure: no AWS call.

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use eksgpu_core::recommend::{self, Precision, Quantization, Recommendation, Request};

use crate::provider::ProviderState;
use eksgpu_framework::model::{ModelError, Obj, reported};
use eksgpu_framework::{ManagedDataSource, validators};
use eksgpu_tfplugin::schema::{Attribute, Block, Schema};
use eksgpu_tfplugin::{AttributePath, Context, Diagnostics, Number, Type, Value};

pub struct RecommendationDataSource {
    /// The provider's Karpenter settings decide where MIG goes (NodeOverlays).
    state: Arc<ProviderState>,
}

impl RecommendationDataSource {
    pub(crate) fn new(state: Arc<ProviderState>) -> Self {
        Self { state }
    }
}

pub fn schema() -> Schema {
    let flag = |name: &str, d: &str| Attribute::optional(name, Type::Bool, d);
    Schema::new(
        Block::new(
            "Where one model should run on EKS, from the decision tables of the field reports: accelerator \
             vendor, capacity kind, instance types, sharing strategy, GPUs used and instances billed. Memory per \
             replica is parameters × bytes per parameter (fp16/bf16 2, fp8 1, int4 0.5) plus 20 % for KV cache and \
             activations — an estimate to validate for your context length and batch size. AWS Neuron serves a \
             model you state is available on Neuron (`available_on_neuron`) unless something needs NVIDIA \
             (custom CUDA kernels, AWQ/GPTQ/GGUF, int4, MIG, DRA, multi-node NVLink); on-prem and data residency \
             mean NVIDIA on Hybrid Nodes. By model size: up to 13B share a GPU 4–7 ways with MIG, 13–30B 2 ways, \
             on Karpenter when the provider's Karpenter runs NodeOverlays (`nodeOverlay` in \
             `karpenter_feature_gates`), else on a managed node group; larger models get whole GPUs, the fewest \
             per replica (over NVLink when more than one), on EKS Auto Mode's documented families (else, or with \
             Spot, Karpenter). Instance-hours are billed, not GPUs. Costs come only from `price_per_hour`. Needs \
             no AWS access.",
        )
        .attribute(
            Attribute::required(
                "model_params_b",
                Type::Number,
                "Model size in billions of parameters, e.g. `7`, `70`.",
            )
            // The largest open models are a few thousand billion parameters; the bound keeps the arithmetic finite.
            .validate(validators::number(0.001, 100_000.0, "billions of parameters")),
        )
        .attribute(
            Attribute::required(
                "precision",
                Type::String,
                "Weight precision: `fp16`, `bf16`, `fp8` or `int4`.",
            )
            .validate(validators::one_of(&["fp16", "bf16", "fp8", "int4"])),
        )
        .attribute(
            Attribute::optional("replicas", Type::Number, "Replicas to serve. Default `1`.")
                .validate(validators::integer(1, 100_000, "replicas")),
        )
        .attribute(flag(
            "needs_mig",
            "The workload must run on a MIG slice. Default `false`.",
        ))
        .attribute(flag(
            "needs_dra",
            "The workload claims GPUs through DRA. Default `false`.",
        ))
        .attribute(flag(
            "on_prem",
            "The GPUs are on-prem (EKS Hybrid Nodes). Default `false`.",
        ))
        .attribute(flag(
            "spot_ok",
            "The workload tolerates Spot interruptions. Default `false`.",
        ))
        .attribute(flag(
            "multi_node_nvlink",
            "A replica spans nodes over NVLink (GB200/GB300 NVL72). Default `false`.",
        ))
        .attribute(flag(
            "custom_cuda_kernels",
            "The model or its serving stack uses custom CUDA kernels (NVIDIA only: Neuron runs graphs its compiler \
             builds). Default `false`.",
        ))
        .attribute(
            Attribute::optional(
                "quantization",
                Type::String,
                "How the weights are quantized: `none`, `awq`, `gptq` or `gguf` (the last three run on NVIDIA \
                 serving backends). Default: none beyond `precision`.",
            )
            .validate(validators::one_of(&["none", "awq", "gptq", "gguf"])),
        )
        .attribute(flag(
            "available_on_neuron",
            "You have checked that the model runs on AWS Neuron (NxD Inference, vLLM Neuron or TGI Neuron): the \
             provider never guesses model support. With it, Neuron serves the model unless something needs \
             NVIDIA. Default `false`.",
        ))
        .attribute(flag(
            "dev_test",
            "A development or test workload, any model size: EKS Auto Mode with whole GPUs for a quick start, no \
             MIG to set up. Default `false`.",
        ))
        .attribute(flag(
            "data_residency",
            "Data must stay on premises: NVIDIA GPUs on EKS Hybrid Nodes (Neuron is EC2 only). Default `false`.",
        ))
        .attribute(
            Attribute::optional(
                "price_per_hour",
                Type::map(Type::Number),
                "USD per instance-hour by instance type. When given, only these types are considered and the cheapest \
                 is billed; `monthly_cost` comes only from here.",
            )
            .validate(validators::each(validators::number(
                0.0,
                1_000_000.0,
                "USD per instance-hour",
            )))
            // Only catalog types are candidates: a price for another type would narrow the
            // candidates to nothing and read as "no type fits".
            .validate(validators::keys("An instance type of the GPU catalog.", |k| {
                match eksgpu_core::catalog::instance_type(k) {
                    Some(_) => Ok(()),
                    None => Err(format!(
                        "{k:?} is not an instance type of the GPU catalog, so the recommendation never considers \
                         it: see data.eksgpu_gpu_catalog for the types it knows."
                    )),
                }
            })),
        )
        .attribute(Attribute::computed(
            "accelerator",
            Type::String,
            "`nvidia` or `neuron`: whose accelerators serve the model (a node strategy pool's `accelerator`).",
        ))
        .attribute(Attribute::computed(
            "capacity",
            Type::String,
            "`auto_mode`, `karpenter`, `managed_node_group` or `hybrid` (a node strategy pool's `capacity`).",
        ))
        .attribute(Attribute::computed(
            "capacity_types",
            Type::list(Type::String),
            "Capacity types for the pool: `[\"spot\", \"on-demand\"]` when Spot is acceptable, else `[\"on-demand\"]`.",
        ))
        .attribute(Attribute::computed(
            "instance_types",
            Type::list(Type::String),
            "Instance types that fit, the billed one first; empty for on-prem.",
        ))
        .attribute(Attribute::computed(
            "sharing_strategy",
            Type::String,
            "`mig`, `exclusive` or `dra` (a sharing pool's `strategy`).",
        ))
        .attribute(Attribute::computed(
            "mig_profile",
            Type::String,
            "MIG profile of each replica under `mig`, e.g. `1g.20gb`.",
        ))
        .attribute(Attribute::computed(
            "memory_gb_per_replica",
            Type::Number,
            "Memory one replica needs, in GB.",
        ))
        .attribute(Attribute::computed(
            "gpus_per_replica",
            Type::Number,
            "Whole GPUs per replica (0 under MIG).",
        ))
        .attribute(Attribute::computed(
            "gpus_used",
            Type::Number,
            "GPUs the replicas occupy (null on-prem).",
        ))
        .attribute(Attribute::computed(
            "billed_instances",
            Type::Number,
            "EC2 instances billed per hour.",
        ))
        .attribute(Attribute::computed(
            "billed_instance_type",
            Type::String,
            "The instance type billed.",
        ))
        .attribute(Attribute::computed(
            "monthly_cost",
            Type::Number,
            "USD per month (730 hours) from `price_per_hour`; null without a price for the billed type.",
        ))
        .attribute(Attribute::computed(
            "rationale",
            Type::list(Type::object([("code", Type::String), ("message", Type::String)])),
            "The decision rules that decided, with what they decided (codes in the rules guide, https://registry.terraform.io/providers/eksgpu/eksgpu/latest/docs/guides/rules).",
        )),
    )
}

/// The request of a configuration (validated by the schema's validators).
fn request(config: &Value) -> Result<Request, ModelError> {
    let o = Obj::new(config)?;
    let flag = |k: &str| o.get::<Option<bool>>(k).map(|b| b.unwrap_or(false));
    Ok(Request {
        model_params_b: o.get("model_params_b")?,
        precision: o.parse("precision", |p| {
            Precision::parse(p).ok_or_else(|| format!("{p:?} is not a precision: use fp16, bf16, fp8 or int4"))
        })?,
        replicas: o.get::<Option<u32>>("replicas")?.unwrap_or(1),
        needs_mig: flag("needs_mig")?,
        needs_dra: flag("needs_dra")?,
        on_prem: flag("on_prem")?,
        spot_ok: flag("spot_ok")?,
        multi_node_nvlink: flag("multi_node_nvlink")?,
        price_per_hour: o.get("price_per_hour")?,
        custom_cuda_kernels: flag("custom_cuda_kernels")?,
        quantization: match o.get::<Option<String>>("quantization")? {
            None => None,
            Some(q) => {
                Some(Quantization::parse(&q).ok_or_else(|| {
                    ModelError::invalid(format!("quantization: {q:?} is not none, awq, gptq or gguf"))
                })?)
            }
        },
        available_on_neuron: flag("available_on_neuron")?,
        data_residency: flag("data_residency")?,
        dev_test: flag("dev_test")?,
        // From the provider's configuration, in `read`.
        karpenter_node_overlay: false,
        karpenter_static_capacity: false,
    })
}

/// The configuration of `r` (computed attributes left out: they read as
/// null), the inverse of [`request`]. Only the round-trip test writes a
/// request: the provider receives configurations, it never sends one.
#[cfg(test)]
fn write_request(r: &Request) -> Value {
    use eksgpu_framework::model::ObjBuilder;
    ObjBuilder::new()
        .set("model_params_b", r.model_params_b)
        .set("precision", r.precision.as_str())
        .set("replicas", r.replicas)
        .set("needs_mig", r.needs_mig)
        .set("needs_dra", r.needs_dra)
        .set("on_prem", r.on_prem)
        .set("spot_ok", r.spot_ok)
        .set("multi_node_nvlink", r.multi_node_nvlink)
        .set("price_per_hour", r.price_per_hour.clone())
        .set("custom_cuda_kernels", r.custom_cuda_kernels)
        .set("quantization", r.quantization.map(Quantization::as_str))
        .set("available_on_neuron", r.available_on_neuron)
        .set("data_residency", r.data_residency)
        .set("dev_test", r.dev_test)
        .build()
}

fn value(config: &Value, r: &Recommendation) -> Value {
    let mut out = match config {
        Value::Object(m) => m.clone(),
        _ => BTreeMap::new(),
    };
    let mut set = |k: &str, v: Value| {
        out.insert(k.to_owned(), v);
    };
    let strings = |xs: &[String]| Value::List(xs.iter().map(|s| Value::from(s.as_str())).collect());
    set("capacity", r.capacity.as_str().into());
    let spot_ok = config.get("spot_ok").as_bool() == Some(true);
    set(
        "capacity_types",
        strings(&recommend::capacity_types(r.capacity, &r.instance_types, spot_ok)),
    );
    set("accelerator", r.accelerator.as_str().into());
    set("instance_types", strings(&r.instance_types));
    set("sharing_strategy", r.sharing.as_str().into());
    set("mig_profile", r.mig_profile.as_deref().map_or(Value::Null, Value::from));
    set(
        "memory_gb_per_replica",
        Value::Number(Number::from_f64(recommend::round_gb(r.memory_gb_per_replica))),
    );
    set("gpus_per_replica", i64::from(r.gpus_per_replica).into());
    set("gpus_used", r.gpus_used.map_or(Value::Null, |g| i64::from(g).into()));
    set("billed_instances", i64::from(r.billed_instances).into());
    set(
        "billed_instance_type",
        r.billed_instance_type.as_deref().map_or(Value::Null, Value::from),
    );
    set(
        "monthly_cost",
        r.monthly_cost.map_or(Value::Null, |c| {
            Value::Number(Number::from_f64((c * 100.0).round() / 100.0))
        }),
    );
    set(
        "rationale",
        Value::List(
            r.rationale
                .iter()
                .map(|x| Value::object([("code", x.code.as_str().into()), ("message", x.message.as_str().into())]))
                .collect(),
        ),
    );
    Value::Object(out)
}

#[async_trait]
impl ManagedDataSource for RecommendationDataSource {
    fn type_name(&self) -> &'static str {
        "eksgpu_recommendation"
    }

    fn schema(&self) -> Schema {
        schema()
    }

    async fn read(&self, _ctx: &Context, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let mut req = reported(request, config, diags)?;
        // The gate is checked against `karpenter_version` in the provider block (NodeOverlay from 1.7).
        req.karpenter_node_overlay = self.state.configured().is_some_and(|c| c.karpenter_gates.node_overlay);
        // Likewise `staticCapacity` (static NodePools from Karpenter 1.8), for DRA on Karpenter.
        req.karpenter_static_capacity = self
            .state
            .configured()
            .is_some_and(|c| c.karpenter_gates.static_capacity);
        match recommend::recommend(&req) {
            Ok(r) => Some(value(config, &r)),
            Err(e) => {
                diags.error_at(
                    AttributePath::attr("model_params_b"),
                    "No recommendation",
                    format!(
                        "{e}. Lower the precision (fp8, int4), split the model across nodes (multi_node_nvlink), \
                         or add larger instance types to price_per_hour."
                    ),
                );
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use eksgpu_framework::model::shape::{Expect, round_trip};
    use proptest::prelude::*;

    use super::*;

    fn requests() -> impl Strategy<Value = Request> {
        (
            (
                0.001..100_000.0f64,
                prop_oneof![
                    Just(Precision::Fp16),
                    Just(Precision::Bf16),
                    Just(Precision::Fp8),
                    Just(Precision::Int4)
                ],
                1..=100_000u32,
            ),
            proptest::array::uniform8(any::<bool>()),
            proptest::collection::btree_map("[a-z0-9]{1,4}\\.[a-z0-9]{1,8}", 0.0..1_000_000.0f64, 0..3),
            proptest::option::of(proptest::sample::select(Quantization::ALL.to_vec())),
            any::<bool>(),
        )
            .prop_map(
                |(
                    (model_params_b, precision, replicas),
                    [
                        needs_mig,
                        needs_dra,
                        on_prem,
                        spot_ok,
                        multi_node_nvlink,
                        custom_cuda_kernels,
                        available_on_neuron,
                        data_residency,
                    ],
                    price_per_hour,
                    quantization,
                    dev_test,
                )| {
                    Request {
                        model_params_b,
                        precision,
                        replicas,
                        needs_mig,
                        needs_dra,
                        on_prem,
                        spot_ok,
                        multi_node_nvlink,
                        price_per_hour,
                        custom_cuda_kernels,
                        quantization,
                        available_on_neuron,
                        data_residency,
                        karpenter_node_overlay: false,
                        karpenter_static_capacity: false,
                        dev_test,
                    }
                },
            )
    }

    proptest! {
        /// The written configuration has exactly the schema's inputs, and
        /// reading it asks for no other key.
        #[test]
        fn read_of_write_is_the_same_request(r in requests()) {
            prop_assert_eq!(round_trip(&schema().block, Expect::Inputs, &write_request(&r), request), Ok(r));
        }
    }
}
