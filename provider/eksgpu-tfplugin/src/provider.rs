//! The traits a provider implements. Requests and responses are structs so the
//! API can grow without breaking implementations; nothing here names the wire.

use std::sync::Arc;

use async_trait::async_trait;
use tokio_util::sync::CancellationToken;

use crate::diag::{AttributePath, Diagnostics};
use crate::schema::Schema;
use crate::value::Value;

/// Per-process context handed to every operation. Cancelled when Terraform
/// calls `StopProvider` (Ctrl-C), so long waits can end promptly.
#[derive(Debug, Clone, Default)]
pub struct Context {
    cancel: CancellationToken,
}

impl Context {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// Resolves once Terraform asked the provider to stop.
    pub async fn cancelled(&self) {
        self.cancel.cancelled().await;
    }

    pub(crate) fn cancel(&self) {
        self.cancel.cancel();
    }
}

pub struct ConfigureRequest {
    pub terraform_version: String,
    pub config: Value,
}

#[async_trait]
pub trait Provider: Send + Sync + 'static {
    fn schema(&self) -> Schema;

    fn validate(&self, _config: &Value, _diags: &mut Diagnostics) {}

    /// Called once per process before any read, plan or apply. With
    /// `get_provider_schema_optional`, `schema()` may not have been requested first.
    async fn configure(&self, req: ConfigureRequest, diags: &mut Diagnostics);

    fn data_sources(&self) -> Vec<Arc<dyn DataSource>>;

    fn resources(&self) -> Vec<Arc<dyn Resource>>;

    /// Provider-defined functions (protocol 6.5, Terraform 1.8+). Clients that
    /// predate them never see them: the schema field is unknown to them.
    fn functions(&self) -> Vec<Arc<dyn Function>> {
        Vec::new()
    }
}

/// One parameter of a function.
#[derive(Debug, Clone)]
pub struct Parameter {
    pub name: &'static str,
    pub ty: crate::Type,
    pub description: &'static str,
}

/// What a function takes and returns, and its documentation.
#[derive(Debug, Clone)]
pub struct FunctionSignature {
    pub summary: &'static str,
    pub description: &'static str,
    pub parameters: Vec<Parameter>,
    pub returns: crate::Type,
}

/// Why a function call failed: a message, and the argument at fault if one is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionError {
    pub text: String,
    /// 0-based position of the argument.
    pub argument: Option<usize>,
}

/// A provider-defined function. Terraform passes only known, non-null
/// arguments (the parameters allow neither), so `call` sees plain values.
pub trait Function: Send + Sync + 'static {
    fn name(&self) -> &'static str;

    fn signature(&self) -> FunctionSignature;

    fn call(&self, args: &[Value]) -> Result<Value, FunctionError>;
}

#[async_trait]
pub trait DataSource: Send + Sync + 'static {
    fn type_name(&self) -> &'static str;

    fn schema(&self) -> Schema;

    /// Offline checks of the configuration; values may be unknown.
    fn validate(&self, _config: &Value, _diags: &mut Diagnostics) {}

    /// Returns the full state (config plus computed attributes), or `None`
    /// after recording an error.
    async fn read(&self, ctx: &Context, config: Value, diags: &mut Diagnostics) -> Option<Value>;
}

pub struct PlanRequest {
    /// `Null` when the object is being created.
    pub prior_state: Value,
    /// `Null` when the object is being destroyed.
    pub proposed_new_state: Value,
    pub config: Value,
    pub prior_private: Vec<u8>,
}

pub struct PlanResponse {
    pub planned_state: Value,
    pub requires_replace: Vec<AttributePath>,
    pub planned_private: Vec<u8>,
}

impl PlanResponse {
    /// The plan of a destroy: nothing afterwards, private data passed through.
    pub fn destroy(prior_private: Vec<u8>) -> Self {
        PlanResponse {
            planned_state: Value::Null,
            requires_replace: Vec::new(),
            planned_private: prior_private,
        }
    }
}

pub struct ApplyRequest {
    pub prior_state: Value,
    /// `Null` for a destroy.
    pub planned_state: Value,
    pub config: Value,
    pub planned_private: Vec<u8>,
}

pub struct ApplyResponse {
    /// Must be `Null` after a destroy and non-null otherwise. On a partial
    /// failure return what exists, so state loses nothing.
    pub new_state: Value,
    pub private: Vec<u8>,
}

pub struct ReadRequest {
    pub current_state: Value,
    pub private: Vec<u8>,
}

pub struct ReadResponse {
    /// `Null` when the object is gone.
    pub new_state: Value,
    pub private: Vec<u8>,
}

pub struct ImportResponse {
    pub state: Value,
    pub private: Vec<u8>,
}

#[async_trait]
pub trait Resource: Send + Sync + 'static {
    fn type_name(&self) -> &'static str;

    fn schema(&self) -> Schema;

    fn validate(&self, _config: &Value, _diags: &mut Diagnostics) {}

    /// Plans offline: no cloud calls, unknown inputs give unknown outputs.
    async fn plan(&self, ctx: &Context, req: PlanRequest, diags: &mut Diagnostics) -> PlanResponse;

    async fn apply(&self, ctx: &Context, req: ApplyRequest, diags: &mut Diagnostics) -> ApplyResponse;

    async fn read(&self, ctx: &Context, req: ReadRequest, diags: &mut Diagnostics) -> ReadResponse;

    async fn import(&self, ctx: &Context, id: &str, diags: &mut Diagnostics) -> Option<ImportResponse>;

    /// Upgrades stored state (already decoded with the current schema's type)
    /// from `version`. Called for every instance on every run.
    fn upgrade(&self, _version: i64, state: Value, _diags: &mut Diagnostics) -> Value {
        state
    }

    /// Reshapes stored state JSON from `version` before it is decoded with the
    /// current schema's type (for changes of type, e.g. a block that became a list).
    fn upgrade_json(&self, _version: i64, _state: &mut serde_json::Value) {}
}
