//! `replica_memory_gb(model_params_b, precision)`: the recommendation's sizing rule.

use eksgpu_core::recommend::{Precision, replica_memory_gb, round_gb};
use eksgpu_framework::function;
use eksgpu_tfplugin::{Function, FunctionError, FunctionSignature, Parameter, Type, Value};

pub(crate) struct ReplicaMemoryGb;

impl Function for ReplicaMemoryGb {
    fn name(&self) -> &'static str {
        "replica_memory_gb"
    }

    fn signature(&self) -> FunctionSignature {
        FunctionSignature {
            summary: "GPU memory one model replica needs",
            description: "Parameters × bytes per parameter (fp16/bf16 2, fp8 1, int4 0.5) plus 20 % for KV cache \
                          and activations, in GB — the estimate `data.eksgpu_recommendation` sizes with. Long \
                          contexts and large batches need more: validate per workload.",
            parameters: vec![
                Parameter {
                    name: "model_params_b",
                    ty: Type::Number,
                    description: "Model size in billions of parameters.",
                },
                Parameter {
                    name: "precision",
                    ty: Type::String,
                    description: "`fp16`, `bf16`, `fp8` or `int4`.",
                },
            ],
            returns: Type::Number,
        }
    }

    fn call(&self, args: &[Value]) -> Result<Value, FunctionError> {
        let params: f64 = function::arg(args, 0, "model_params_b")?;
        if params <= 0.0 {
            return Err(FunctionError {
                text: "model_params_b must be a positive number of billions of parameters.".into(),
                argument: Some(0),
            });
        }
        let p: String = function::arg(args, 1, "precision")?;
        let precision = Precision::parse(&p).ok_or_else(|| FunctionError {
            text: format!("{p:?} is not a precision. Use fp16, bf16, fp8 or int4."),
            argument: Some(1),
        })?;
        function::finite(round_gb(replica_memory_gb(params, precision)), 0, "model_params_b")
    }
}
