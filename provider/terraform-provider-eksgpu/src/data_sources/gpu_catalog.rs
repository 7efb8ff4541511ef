//! `eksgpu_gpu_catalog`: the embedded catalog of EC2 GPU and accelerator
//! instance types, filtered, optionally refreshed from EC2.

use std::sync::Arc;

use async_trait::async_trait;
use eksgpu_core::catalog::{self, Entry, Filter};
use eksgpu_framework::model::{ModelError, Obj, reported};
use eksgpu_framework::{ManagedDataSource, validators};
use eksgpu_tfplugin::schema::{Attribute, Block, Schema};
use eksgpu_tfplugin::{AttributePath, Context, Diagnostics, Number, Type, Value};

use crate::diagnostics;
use crate::provider::ProviderState;

pub struct GpuCatalog {
    state: Arc<ProviderState>,
}

impl GpuCatalog {
    pub(crate) fn new(state: Arc<ProviderState>) -> Self {
        Self { state }
    }
}

/// The object type of one MIG profile (also the `mig_profiles` function's elements).
pub(crate) fn mig_profile_type() -> Type {
    Type::object([
        ("name", Type::String),
        ("memory_gb", Type::Number),
        ("compute_slices", Type::Number),
        ("max_instances", Type::Number),
    ])
}

fn instance_type_type() -> Type {
    Type::object([
        ("instance_type", Type::String),
        ("gpu_model", Type::String),
        ("vendor", Type::String),
        ("gpu_count", Type::Number),
        ("gpu_memory_mib", Type::Number),
        ("mig_capable", Type::Bool),
        ("mig_profiles", Type::list(mig_profile_type())),
        ("architecture", Type::String),
        ("efa", Type::Bool),
        ("source", Type::String),
        ("verified", Type::Bool),
    ])
}

pub fn schema() -> Schema {
    Schema::new(
        Block::new(
            "The catalog of EC2 GPU and accelerator instance types this provider validates against: GPUs per \
             instance, memory per GPU, MIG capability and profiles, architecture and EFA. Embedded in the \
             provider with a source per row, so it works offline; `refresh_from_ec2` replaces the \
             instance figures with what EC2 reports in the provider's region.",
        )
        .attribute(Attribute::optional(
            "gpu_model",
            Type::String,
            "Only instance types with this GPU model (case-insensitive), e.g. `\"H200\"`, `\"A10G\"`, `\"L40S\"`.",
        ))
        .attribute(
            Attribute::optional(
                "vendor",
                Type::String,
                "Only instance types of this accelerator vendor: `nvidia` (NVIDIA GPUs) or `neuron` (AWS Trainium, \
                 Inferentia).",
            )
            .validate(validators::one_of(&["nvidia", "neuron"])),
        )
        .attribute(Attribute::optional(
            "mig_capable",
            Type::Bool,
            "Only instance types whose GPUs can (`true`) or cannot (`false`) be split with MIG.",
        ))
        .attribute(
            Attribute::optional(
                "min_gpu_memory_mib",
                Type::Number,
                "Only instance types with at least this much memory per GPU, in MiB as EC2 reports it.",
            )
            .validate(validators::integer(0, i64::from(u32::MAX), "GPU memory, MiB")),
        )
        .attribute(Attribute::optional(
            "refresh_from_ec2",
            Type::Bool,
            "Ask EC2 `DescribeInstanceTypes` (IAM `ec2:DescribeInstanceTypes`) for the region's accelerated \
             instance types and use its figures; types EC2 knows and the catalog does not are added. \
             Default `false`: no AWS call.",
        ))
        .attribute(Attribute::computed(
            "instance_types",
            Type::list(instance_type_type()),
            "Matching instance types, ordered by family and size. Each has `instance_type`, `gpu_model`, \
             `vendor` (`nvidia` or `neuron`), `gpu_count` (whole GPUs, or Neuron devices; 0 for fractional GPUs such as g6f), `gpu_memory_mib` (per GPU; null \
             where unknown), `mig_capable`, `mig_profiles` (`name`, `memory_gb`, `compute_slices`, \
             `max_instances` per GPU), `architecture` (`x86_64` or `arm64`), `efa` (null where unknown), \
             `source` (where the row's facts come from) and `verified` (false for rows not yet confirmed by \
             two sources).",
        )),
    )
}

/// What the configuration asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Query {
    filter: Filter,
    /// Ask EC2 for the figures (null reads as `false`).
    refresh_from_ec2: bool,
}

/// The query of a configuration (validated: a whole, non-negative memory).
fn query(config: &Value) -> Result<Query, ModelError> {
    let o = Obj::new(config)?;
    Ok(Query {
        filter: Filter {
            gpu_model: o.get("gpu_model")?,
            mig_capable: o.get("mig_capable")?,
            min_gpu_memory_mib: o.get::<Option<u32>>("min_gpu_memory_mib")?.map(u64::from),
            // The schema's validator admits only the two spellings.
            vendor: o
                .get::<Option<String>>("vendor")?
                .as_deref()
                .and_then(catalog::Vendor::parse),
        },
        refresh_from_ec2: o.get::<Option<bool>>("refresh_from_ec2")?.unwrap_or(false),
    })
}

/// The configuration of `q` (the computed `instance_types` left out: it reads
/// as null), the inverse of [`query`]. Only the round-trip test writes a
/// query: the provider receives configurations, it never sends one.
#[cfg(test)]
fn write_query(q: &Query) -> Value {
    use eksgpu_framework::model::ObjBuilder;
    let memory = q
        .filter
        .min_gpu_memory_mib
        .map(|m| Value::Number(Number::Int(i64::try_from(m).unwrap_or(i64::MAX))));
    ObjBuilder::new()
        .set("gpu_model", q.filter.gpu_model.clone())
        .set("vendor", q.filter.vendor.map(|v| v.as_str().to_owned()))
        .set("mig_capable", q.filter.mig_capable)
        .set("min_gpu_memory_mib", memory)
        .set("refresh_from_ec2", q.refresh_from_ec2)
        .build()
}

/// A GPU model the catalog lacks, unless EC2 is asked (it may know newer ones).
fn check_model(config: &Value, diags: &mut Diagnostics) {
    let refresh = config.get("refresh_from_ec2");
    if let Some(model) = config.get("gpu_model").as_str()
        && refresh.as_bool() != Some(true)
        && !refresh.is_unknown()
        && !catalog::gpu_models()
            .iter()
            .any(|m| m.eq_ignore_ascii_case(model.trim()))
    {
        diags.error_at(
            AttributePath::attr("gpu_model"),
            "Unknown GPU model",
            format!(
                "{model:?} is not a GPU model in the catalog. Use one of: {}. For a model newer than this \
                 provider, set refresh_from_ec2 = true.",
                catalog::gpu_models().join(", ")
            ),
        );
    }
}

/// One MIG profile as a value of [`mig_profile_type`].
pub(crate) fn mig_profile_value(p: &catalog::MigProfile) -> Value {
    let num = |n: u32| Value::Number(Number::Int(i64::from(n)));
    Value::object([
        ("name", p.name.into()),
        ("memory_gb", num(p.memory_gb)),
        ("compute_slices", num(p.compute_slices)),
        ("max_instances", num(p.max_instances)),
    ])
}

fn to_value(e: &Entry) -> Value {
    let num = |n: u32| Value::Number(Number::Int(i64::from(n)));
    let profiles = e.mig_profiles.iter().map(mig_profile_value).collect();
    Value::object([
        ("instance_type", e.instance_type.as_str().into()),
        ("gpu_model", e.gpu_model.as_str().into()),
        ("vendor", e.vendor.as_str().into()),
        ("gpu_count", num(e.gpu_count)),
        ("gpu_memory_mib", e.gpu_memory_mib.map_or(Value::Null, num)),
        ("mig_capable", e.mig_capable.into()),
        ("mig_profiles", Value::List(profiles)),
        ("architecture", e.architecture.as_str().into()),
        ("efa", e.efa.into()),
        ("source", e.source.key().into()),
        ("verified", e.verified.into()),
    ])
}

#[async_trait]
impl ManagedDataSource for GpuCatalog {
    fn type_name(&self) -> &'static str {
        "eksgpu_gpu_catalog"
    }

    fn schema(&self) -> Schema {
        schema()
    }

    fn validate_config(&self, config: &Value, diags: &mut Diagnostics) {
        check_model(config, diags);
    }

    async fn read(&self, ctx: &Context, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        check_model(config, diags);
        let Query {
            filter: f,
            refresh_from_ec2,
        } = reported(query, config, diags)?;
        if diags.has_errors() {
            return None;
        }
        let live = if refresh_from_ec2 {
            let Some(configured) = self.state.configured() else {
                diags.push(diagnostics::not_configured());
                return None;
            };
            let ec2 = configured.aws.instance_types().await;
            let call = eksgpu_cloud::InstanceTypes::accelerated_instance_types(&ec2);
            let result = tokio::select! {
                r = call => r,
                () = ctx.cancelled() => {
                    diags.push(diagnostics::cancelled("reading EC2 instance types"));
                    return None;
                }
            };
            match result {
                Ok(live) => Some(live),
                Err(e) => {
                    diags.push(diagnostics::aws_failed(&e, AttributePath::attr("refresh_from_ec2")));
                    return None;
                }
            }
        } else {
            None
        };
        let rows = catalog::entries(&f, live.as_deref()).iter().map(to_value).collect();
        let Value::Object(mut state) = config.clone() else {
            return None;
        };
        state.insert("instance_types".into(), Value::List(rows));
        Some(Value::Object(state))
    }
}

#[cfg(test)]
mod tests {
    use eksgpu_framework::model::shape::{self, Expect, round_trip};
    use eksgpu_tfplugin::DataSource;
    use proptest::prelude::*;

    use super::*;

    fn ds() -> eksgpu_framework::Framework<GpuCatalog> {
        eksgpu_framework::Framework::data_source(GpuCatalog::new(Arc::new(ProviderState::default())))
    }

    fn check(config: &Value, d: &mut Diagnostics) {
        ds().validate(config, d);
    }

    fn config(pairs: Vec<(&str, Value)>) -> Value {
        let mut v = Value::object([
            ("gpu_model", Value::Null),
            ("vendor", Value::Null),
            ("mig_capable", Value::Null),
            ("min_gpu_memory_mib", Value::Null),
            ("refresh_from_ec2", Value::Null),
            ("instance_types", Value::Null),
        ]);
        if let Value::Object(m) = &mut v {
            for (k, val) in pairs {
                m.insert(k.into(), val);
            }
        }
        v
    }

    #[tokio::test]
    async fn reads_offline_and_fits_the_schema() {
        let ds = ds();
        let mut d = Diagnostics::new();
        let state = ds
            .read(&Context::new(), config(vec![("gpu_model", "H200".into())]), &mut d)
            .await
            .unwrap();
        assert!(d.is_empty());
        let rows = state.get("instance_types").elements();
        assert_eq!(rows[1].get("instance_type"), &Value::from("p5en.48xlarge"));
        assert_eq!(rows[1].get("gpu_count"), &Value::from(8));
        assert_eq!(rows[1].get("mig_profiles").elements().len(), 7);
        // The state must encode with the schema's type, or Terraform rejects it, and have every key.
        eksgpu_tfplugin::value::encode_msgpack(&state, &schema().value_type()).unwrap();
        assert_eq!(shape::check(&schema().block, &state, shape::Expect::Everything), Ok(()));
    }

    #[test]
    fn bad_filters_point_at_their_attribute() {
        let mut d = Diagnostics::new();
        check(&config(vec![("gpu_model", "H900".into())]), &mut d);
        check(
            &config(vec![("min_gpu_memory_mib", Value::Number(Number::Float(1.5)))]),
            &mut d,
        );
        check(&config(vec![("min_gpu_memory_mib", Value::from(-1))]), &mut d);
        let paths: Vec<_> = d.iter().map(|d| d.path.clone().unwrap().to_string()).collect();
        assert_eq!(paths, ["gpu_model", "min_gpu_memory_mib", "min_gpu_memory_mib"]);
        let detail = &d.iter().next().unwrap().detail;
        assert!(
            detail.contains("H200") && detail.contains("refresh_from_ec2"),
            "{detail}"
        );
    }

    #[test]
    fn unknown_filters_are_not_errors() {
        let mut d = Diagnostics::new();
        check(
            &config(vec![
                ("gpu_model", Value::Unknown),
                ("min_gpu_memory_mib", Value::Unknown),
            ]),
            &mut d,
        );
        assert!(d.is_empty());
    }

    fn queries() -> impl Strategy<Value = Query> {
        (
            proptest::option::of("[A-Za-z0-9 ]{0,8}"),
            proptest::option::of(any::<bool>()),
            proptest::option::of(0..=u64::from(u32::MAX)),
            any::<bool>(),
            proptest::option::of(prop_oneof![
                Just(catalog::Vendor::Nvidia),
                Just(catalog::Vendor::Neuron)
            ]),
        )
            .prop_map(
                |(gpu_model, mig_capable, min_gpu_memory_mib, refresh_from_ec2, vendor)| Query {
                    filter: Filter {
                        gpu_model,
                        mig_capable,
                        min_gpu_memory_mib,
                        vendor,
                    },
                    refresh_from_ec2,
                },
            )
    }

    proptest! {
        /// The written configuration has exactly the schema's inputs, and
        /// reading it asks for no other key.
        #[test]
        fn read_of_write_is_the_same_query(q in queries()) {
            prop_assert_eq!(round_trip(&schema().block, Expect::Inputs, &write_query(&q), query), Ok(q));
        }
    }

    #[test]
    fn refresh_allows_models_the_catalog_lacks() {
        let mut d = Diagnostics::new();
        check(
            &config(vec![("gpu_model", "X900".into()), ("refresh_from_ec2", true.into())]),
            &mut d,
        );
        assert!(d.is_empty());
    }
}
