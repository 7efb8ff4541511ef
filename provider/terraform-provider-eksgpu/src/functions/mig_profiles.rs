//! `mig_profiles(gpu)`: the MIG profiles of an instance type's GPU or of a GPU model.

use eksgpu_core::catalog;
use eksgpu_framework::function;
use eksgpu_tfplugin::{Function, FunctionError, FunctionSignature, Parameter, Type, Value};

use crate::data_sources::gpu_catalog::{mig_profile_type, mig_profile_value};

pub(crate) struct MigProfiles;

impl Function for MigProfiles {
    fn name(&self) -> &'static str {
        "mig_profiles"
    }

    fn signature(&self) -> FunctionSignature {
        FunctionSignature {
            summary: "MIG profiles of a GPU",
            description: "The MIG profiles of the GPU of an EC2 instance type (`p5en.48xlarge`) or of a GPU model \
                          (`H200`, case-insensitive): name, memory in GB, compute slices and how many fit on one \
                          GPU. Empty for GPUs without MIG; fails for names the GPU catalog does not know. Profile \
                          names differ per GPU (H200's smallest is `1g.18gb`, H100's `1g.10gb`).",
            parameters: vec![Parameter {
                name: "gpu",
                ty: Type::String,
                description: "EC2 instance type or GPU model.",
            }],
            returns: Type::list(mig_profile_type()),
        }
    }

    fn call(&self, args: &[Value]) -> Result<Value, FunctionError> {
        let name: String = function::arg(args, 0, "the first argument")?;
        let name = name.as_str();
        let t = catalog::instance_type(name)
            .or_else(|| {
                catalog::instance_types()
                    .iter()
                    .find(|t| t.gpu_model.eq_ignore_ascii_case(name.trim()))
            })
            .ok_or_else(|| FunctionError {
                text: format!(
                    "{name:?} is neither an instance type nor a GPU model in the GPU catalog. GPU models: {}.",
                    catalog::gpu_models().join(", ")
                ),
                argument: Some(0),
            })?;
        let profiles = t
            .mig
            .map(|m| m.profiles.iter().map(mig_profile_value).collect())
            .unwrap_or_default();
        Ok(Value::List(profiles))
    }
}
