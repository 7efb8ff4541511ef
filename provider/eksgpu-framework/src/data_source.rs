//! Data sources on the framework: declared validators run on every known
//! value (also when others are unknown), and `read` gets a known configuration.

use async_trait::async_trait;
use eksgpu_tfplugin::schema::Schema;
use eksgpu_tfplugin::{Context, DataSource, Diagnostics, Value};

use crate::resource::Framework;
use crate::validate;

#[async_trait]
pub trait ManagedDataSource: Send + Sync + 'static {
    fn type_name(&self) -> &'static str;

    fn schema(&self) -> Schema;

    /// Cross-field checks beyond the declared validators; values may be unknown.
    fn validate_config(&self, _config: &Value, _diags: &mut Diagnostics) {}

    /// The full state (configuration plus computed attributes), or `None`
    /// after an error diagnostic.
    async fn read(&self, ctx: &Context, config: &Value, diags: &mut Diagnostics) -> Option<Value>;
}

#[async_trait]
impl<D: ManagedDataSource> DataSource for Framework<D> {
    fn type_name(&self) -> &'static str {
        self.0.type_name()
    }

    fn schema(&self) -> Schema {
        self.1.clone()
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        validate::validate_block(&self.1.block, config, diags);
        self.0.validate_config(config, diags);
    }

    async fn read(&self, ctx: &Context, config: Value, diags: &mut Diagnostics) -> Option<Value> {
        // Terraform reads data sources with a known configuration; the
        // validators ran on it at validation, so read sees checked values.
        self.0.read(ctx, &config, diags).await
    }
}
