//! The managed-resource trait and its adapter to the protocol crate's
//! [`Resource`]: resources write create / read / update / delete / import and
//! the plan logic only they know; the framework does the rest the same way
//! for all of them.

use async_trait::async_trait;
use eksgpu_tfplugin::schema::Schema;
use eksgpu_tfplugin::{
    ApplyRequest, ApplyResponse, Context, Diagnostic, Diagnostics, ImportResponse, PlanRequest, PlanResponse,
    ReadRequest, ReadResponse, Resource, Value,
};

use crate::import::ImportId;
use crate::plan::{self, Plan};
use crate::{normalize, path, validate};

/// A resource as the framework runs it. Every method gets values of the
/// resource's schema type; `None` results mean "nothing changed" and the
/// framework keeps the prior state.
#[async_trait]
pub trait ManagedResource: Send + Sync + 'static {
    fn type_name(&self) -> &'static str;

    fn schema(&self) -> Schema;

    /// The accepted import ID formats.
    fn import_id(&self) -> ImportId;

    /// Cross-field checks of the configuration beyond the declared validators;
    /// values may be unknown: check what is known.
    fn validate_config(&self, _config: &Value, _diags: &mut Diagnostics) {}

    /// Fills computed values the framework left unknown that depend only on
    /// known inputs, and runs the rules on what is known.
    fn modify_plan(&self, _plan: &mut Plan<'_>, _diags: &mut Diagnostics) {}

    /// Warnings from what exists beside the resource, at plan (after `modify_plan`, when it found
    /// no error): the one place a plan may look outside the configuration. The resource keeps it
    /// bounded in time, cancellable and optional (what it cannot read adds nothing); it never
    /// changes the planned values, so a plan is the same with or without it.
    async fn plan_warnings(&self, _ctx: &Context, _planned: &Value, _diags: &mut Diagnostics) {}

    /// Rules on the fully known plan, run again at apply before any change:
    /// a rule whose inputs were unknown at plan is deferred here, never skipped.
    fn check_planned(&self, _planned: &Value, _diags: &mut Diagnostics) {}

    /// Creates the object. Returns the new state, or the part that exists
    /// after a failure (with an error diagnostic); `None` if nothing was made.
    async fn create(&self, ctx: &Context, planned: &Value, diags: &mut Diagnostics) -> Option<Value>;

    /// Changes the object from `prior` to `planned`; `None` if nothing changed.
    async fn update(&self, ctx: &Context, prior: &Value, planned: &Value, diags: &mut Diagnostics) -> Option<Value>;

    /// Deletes the object. Returns what remains after a failure (with an error
    /// diagnostic), `None` when nothing does; an error with `None` keeps the prior state.
    async fn delete(&self, ctx: &Context, prior: &Value, diags: &mut Diagnostics) -> Option<Value>;

    /// The object as it is: `Some(Null)` when gone, `None` after an error.
    async fn read(&self, ctx: &Context, state: &Value, diags: &mut Diagnostics) -> Option<Value>;

    /// The state of an existing object named by the parts of a parsed import ID.
    async fn import(&self, ctx: &Context, format: usize, parts: &[&str], diags: &mut Diagnostics) -> Option<Value>;

    /// Reshapes stored state JSON before it is decoded, after the framework
    /// has wrapped blocks that became blocks-of-at-most-one in lists.
    fn upgrade_json(&self, _version: i64, _json: &mut serde_json::Value) {}

    /// Upgrades stored state (decoded with the current schema's type) from `version`.
    fn upgrade(&self, _version: i64, state: Value, _diags: &mut Diagnostics) -> Value {
        state
    }
}

/// Runs a [`ManagedResource`] (or a [`crate::ManagedDataSource`]) as a protocol
/// [`Resource`] (or `DataSource`), with its schema built once.
pub struct Framework<R>(pub R, pub(crate) Schema);

impl<R: ManagedResource> Framework<R> {
    pub fn new(r: R) -> Self {
        let schema = r.schema();
        Self(r, schema)
    }
}

impl<R> Framework<R> {
    /// A data source on the framework.
    pub fn data_source(d: R) -> Self
    where
        R: crate::ManagedDataSource,
    {
        let schema = d.schema();
        Self(d, schema)
    }
}

#[async_trait]
impl<R: ManagedResource> Resource for Framework<R> {
    fn type_name(&self) -> &'static str {
        self.0.type_name()
    }

    fn schema(&self) -> Schema {
        self.1.clone()
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        let block = &self.1.block;
        validate::validate_block(block, config, diags);
        let mut own = Diagnostics::new();
        self.0.validate_config(config, &mut own);
        diags.extend(path::diagnostics_through_blocks(block, own));
    }

    async fn plan(&self, ctx: &Context, req: PlanRequest, diags: &mut Diagnostics) -> PlanResponse {
        if req.proposed_new_state.is_null() {
            return PlanResponse::destroy(req.prior_private);
        }
        let schema = &self.1;
        let mut p = plan::plan(&schema.block, &req.prior_state, &req.config, req.proposed_new_state);
        let mut own = Diagnostics::new();
        self.0.modify_plan(&mut p, &mut own);
        if !own.has_errors() {
            let mut looked = Diagnostics::new();
            self.0.plan_warnings(ctx, &p.planned, &mut looked).await;
            // Warnings only: an error here would make a plan depend on what it cannot promise to read.
            for d in looked.into_vec() {
                if d.severity == eksgpu_tfplugin::diag::Severity::Warning {
                    own.push(d);
                }
            }
        }
        diags.extend(path::diagnostics_through_blocks(&schema.block, own));
        PlanResponse {
            planned_state: p.planned,
            requires_replace: p.requires_replace,
            planned_private: req.prior_private,
        }
    }

    async fn apply(&self, ctx: &Context, req: ApplyRequest, diags: &mut Diagnostics) -> ApplyResponse {
        let keep = |state: Value| ApplyResponse {
            new_state: state,
            private: req.planned_private.clone(),
        };
        if req.planned_state.is_null() {
            let remaining = self.0.delete(ctx, &req.prior_state, diags);
            let remaining = remaining.await;
            return keep(match remaining {
                Some(v) if diags.has_errors() => v,
                // Without an error, "something remains" would lose track of it: keep the prior state.
                Some(_) => {
                    diags.push(bug("delete returned a remaining object without an error"));
                    req.prior_state
                }
                // An error and no word of what remains: keep the object in state
                // (the next destroy tries again; deleting tolerates what is gone).
                None if diags.has_errors() => req.prior_state,
                None => Value::Null,
            });
        }
        if !req.planned_state.is_wholly_known() {
            // Terraform plans again with known values before apply; computed
            // values are the only unknowns allowed here and the resource sets them.
            tracing::debug!("applying a plan with computed values unknown");
        }
        let mut checks = Diagnostics::new();
        self.0.check_planned(&req.planned_state, &mut checks);
        let failed = checks.has_errors();
        diags.extend(path::diagnostics_through_blocks(&self.1.block, checks));
        if failed {
            return keep(req.prior_state);
        }
        let result = if req.prior_state.is_null() {
            self.0.create(ctx, &req.planned_state, diags).await
        } else {
            self.0.update(ctx, &req.prior_state, &req.planned_state, diags).await
        };
        let state = match result {
            Some(v) => v,
            None if diags.has_errors() => req.prior_state,
            None => {
                diags.push(bug("apply returned no state and no error"));
                req.prior_state
            }
        };
        if !state.is_wholly_known() {
            diags.push(bug("apply left a value unknown"));
        }
        keep(state)
    }

    async fn read(&self, ctx: &Context, req: ReadRequest, diags: &mut Diagnostics) -> ReadResponse {
        let state = match self.0.read(ctx, &req.current_state, diags).await {
            Some(Value::Null) => Value::Null,
            Some(v) => normalize::like_prior(&req.current_state, v),
            None => req.current_state,
        };
        ReadResponse {
            new_state: state,
            private: req.private,
        }
    }

    async fn import(&self, ctx: &Context, id: &str, diags: &mut Diagnostics) -> Option<ImportResponse> {
        let (format, parts) = match self.0.import_id().parse(id) {
            Ok(p) => p,
            Err(d) => {
                diags.push(d);
                return None;
            }
        };
        let invalid = self.0.import_id().check_parts(format, &parts, &self.1.block);
        if !invalid.is_empty() {
            invalid.into_iter().for_each(|d| diags.push(d));
            return None;
        }
        let state = self.0.import(ctx, format, &parts, diags).await?;
        Some(ImportResponse {
            state,
            private: Vec::new(),
        })
    }

    fn upgrade(&self, version: i64, state: Value, diags: &mut Diagnostics) -> Value {
        self.0.upgrade(version, state, diags)
    }

    fn upgrade_json(&self, version: i64, state: &mut serde_json::Value) {
        // With the schema built once, not per stored state (a resource's
        // `schema()` builds it anew, validators and descriptions included).
        crate::upgrade::blocks_as_lists(&self.1.block, state);
        self.0.upgrade_json(version, state);
    }
}

fn bug(what: &str) -> Diagnostic {
    Diagnostic::error(
        "Provider bug",
        format!("The provider {what}. Please report it with the output of TF_LOG=DEBUG."),
    )
}

#[cfg(test)]
mod tests;
