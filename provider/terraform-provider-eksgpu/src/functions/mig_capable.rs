//! `mig_capable(instance_type)`: whether MIG can split the type's GPUs.

use eksgpu_framework::function;
use eksgpu_tfplugin::{Function, FunctionError, FunctionSignature, Parameter, Type, Value};

pub(crate) struct MigCapable;

impl Function for MigCapable {
    fn name(&self) -> &'static str {
        "mig_capable"
    }

    fn signature(&self) -> FunctionSignature {
        FunctionSignature {
            summary: "Whether an instance type's GPUs support MIG",
            description: "True when NVIDIA MIG can partition the GPUs of the EC2 instance type (A100, H100, H200, \
                          B200, B300, GB200, RTX PRO 6000); false for A10G, L4, L40S, T4 and others. Fails for a \
                          type the GPU catalog does not know.",
            parameters: vec![Parameter {
                name: "instance_type",
                ty: Type::String,
                description: "EC2 instance type, e.g. `p5.48xlarge`.",
            }],
            returns: Type::Bool,
        }
    }

    fn call(&self, args: &[Value]) -> Result<Value, FunctionError> {
        let name: String = function::arg(args, 0, "the first argument")?;
        let name = name.as_str();
        Ok(super::instance_type(name, 0)?.mig_capable().into())
    }
}
