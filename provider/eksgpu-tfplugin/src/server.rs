//! The tfplugin6 gRPC service: each RPC translates from the wire, delegates to
//! the provider, and translates back. Errors are diagnostics with status OK;
//! a gRPC error status would read as "plugin did not respond" to the user.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use tonic::{Request, Response, Status};

use crate::diag::{Diagnostic, Diagnostics};
use crate::provider::{
    ApplyRequest, ConfigureRequest, Context, DataSource, Function, FunctionError, PlanRequest, Provider, ReadRequest,
    Resource,
};
use crate::schema::Schema;
use crate::types::Type;
use crate::value::Value;
use crate::wire::tfplugin6 as pb;
use crate::wire::{decode_dynamic, decode_failed, diagnostics_to_proto, encode_dynamic, encode_failed, path_to_proto};

struct Entry<T: ?Sized> {
    imp: Arc<T>,
    schema: Schema,
    ty: Type,
}

impl<T: ?Sized> Entry<T> {
    fn new(imp: Arc<T>, schema: Schema) -> Self {
        let ty = schema.value_type();
        Self { imp, schema, ty }
    }
}

pub(crate) struct ProviderService {
    provider: Arc<dyn Provider>,
    provider_schema: Entry<dyn Provider>,
    data_sources: HashMap<&'static str, Entry<dyn DataSource>>,
    resources: HashMap<&'static str, Entry<dyn Resource>>,
    functions: HashMap<&'static str, (Arc<dyn Function>, crate::provider::FunctionSignature)>,
    ctx: Context,
}

impl ProviderService {
    pub(crate) fn new(provider: Arc<dyn Provider>) -> Self {
        let provider_schema = Entry::new(provider.clone(), provider.schema());
        let data_sources = provider
            .data_sources()
            .into_iter()
            .map(|d| (d.type_name(), Entry::new(d.clone(), d.schema())))
            .collect();
        let resources = provider
            .resources()
            .into_iter()
            .map(|r| (r.type_name(), Entry::new(r.clone(), r.schema())))
            .collect();
        let functions = provider
            .functions()
            .into_iter()
            .map(|f| (f.name(), (f.clone(), f.signature())))
            .collect();
        Self {
            provider,
            provider_schema,
            data_sources,
            resources,
            functions,
            ctx: Context::new(),
        }
    }

    fn function_definitions(&self) -> HashMap<String, pb::Function> {
        self.functions
            .iter()
            .map(|(k, (_, sig))| ((*k).to_owned(), crate::wire::function_to_proto(sig)))
            .collect()
    }

    fn data_source(&self, name: &str) -> Result<&Entry<dyn DataSource>, Diagnostics> {
        self.data_sources
            .get(name)
            .ok_or_else(|| unknown_type("data source", name))
    }

    fn resource(&self, name: &str) -> Result<&Entry<dyn Resource>, Diagnostics> {
        self.resources.get(name).ok_or_else(|| unknown_type("resource", name))
    }
}

fn unknown_type(kind: &str, name: &str) -> Diagnostics {
    Diagnostic::error(
        format!("Unknown {kind} type"),
        format!("This provider has no {kind} type {name:?}. Check the spelling, or upgrade the provider."),
    )
    .into()
}

/// Runs provider code on its own task, so that a bug which panics becomes an
/// error diagnostic for this one request instead of killing the user's run.
async fn guarded<T: Send + 'static>(
    what: &'static str,
    fut: impl Future<Output = (T, Diagnostics)> + Send + 'static,
) -> Result<(T, Diagnostics), Diagnostics> {
    tokio::spawn(fut).await.map_err(|e| {
        tracing::error!(operation = what, error = %e, "provider operation panicked");
        Diagnostic::error(
            "Provider internal error",
            format!(
                "terraform-provider-eksgpu failed unexpectedly during {what}. Nothing else was changed by this \
                 call; state is kept as it was. Please report this bug with the provider log (TF_LOG=DEBUG)."
            ),
        )
        .into()
    })
}

fn decode(v: Option<&pb::DynamicValue>, ty: &Type, what: &str, diags: &mut Diagnostics) -> Option<Value> {
    match decode_dynamic(v, ty) {
        Ok(v) => Some(v),
        Err(e) => {
            diags.push(decode_failed(what, &e));
            None
        }
    }
}

fn encode(v: &Value, ty: &Type, what: &str, diags: &mut Diagnostics) -> Option<pb::DynamicValue> {
    match encode_dynamic(v, ty) {
        Ok(dv) => Some(dv),
        Err(e) => {
            diags.push(encode_failed(what, &e));
            None
        }
    }
}

#[tonic::async_trait]
impl pb::provider_server::Provider for ProviderService {
    async fn get_provider_schema(
        &self,
        _req: Request<pb::get_provider_schema::Request>,
    ) -> Result<Response<pb::get_provider_schema::Response>, Status> {
        let to_map = |entries: Vec<(&str, &Schema)>| {
            entries
                .into_iter()
                .map(|(k, s)| (k.to_owned(), crate::wire::schema_to_proto(s)))
                .collect()
        };
        Ok(Response::new(pb::get_provider_schema::Response {
            provider: Some(crate::wire::schema_to_proto(&self.provider_schema.schema)),
            resource_schemas: to_map(self.resources.iter().map(|(k, e)| (*k, &e.schema)).collect()),
            data_source_schemas: to_map(self.data_sources.iter().map(|(k, e)| (*k, &e.schema)).collect()),
            diagnostics: Vec::new(),
            // Terraform 1.0.3 reads a nil provider_meta block without a check: always send one.
            provider_meta: Some(crate::wire::schema_to_proto(&Schema::new(crate::schema::Block::new(
                "",
            )))),
            server_capabilities: Some(pb::ServerCapabilities {
                plan_destroy: true,
                get_provider_schema_optional: true,
            }),
            functions: self.function_definitions(),
        }))
    }

    async fn get_functions(
        &self,
        _req: Request<pb::get_functions::Request>,
    ) -> Result<Response<pb::get_functions::Response>, Status> {
        Ok(Response::new(pb::get_functions::Response {
            functions: self.function_definitions(),
            diagnostics: Vec::new(),
        }))
    }

    async fn call_function(
        &self,
        req: Request<pb::call_function::Request>,
    ) -> Result<Response<pb::call_function::Response>, Status> {
        let req = req.into_inner();
        let fail = |e: FunctionError| {
            Ok(Response::new(pb::call_function::Response {
                result: None,
                error: Some(pb::FunctionError {
                    text: e.text,
                    function_argument: e.argument.and_then(|a| i64::try_from(a).ok()),
                }),
            }))
        };
        let Some((f, sig)) = self.functions.get(req.name.as_str()) else {
            return fail(FunctionError {
                text: format!("This provider has no function {:?}.", req.name),
                argument: None,
            });
        };
        if req.arguments.len() != sig.parameters.len() {
            return fail(FunctionError {
                text: format!(
                    "{} takes {} argument(s), got {}.",
                    req.name,
                    sig.parameters.len(),
                    req.arguments.len()
                ),
                argument: None,
            });
        }
        let mut args = Vec::with_capacity(req.arguments.len());
        for (i, (a, p)) in req.arguments.iter().zip(&sig.parameters).enumerate() {
            match decode_dynamic(Some(a), &p.ty) {
                Ok(v) => args.push(v),
                Err(e) => {
                    return fail(FunctionError {
                        text: format!("Argument {} ({}) could not be decoded: {e}.", i + 1, p.name),
                        argument: Some(i),
                    });
                }
            }
        }
        // A panic in the function body is one failed call, not a dead provider.
        let (f, returns) = (f.clone(), sig.returns.clone());
        let called = tokio::task::spawn_blocking(move || f.call(&args)).await;
        match called {
            Ok(Ok(v)) => match encode_dynamic(&v, &returns) {
                Ok(result) => Ok(Response::new(pb::call_function::Response {
                    result: Some(result),
                    error: None,
                })),
                Err(e) => fail(FunctionError {
                    text: format!("The provider produced a result it could not encode: {e}. Please report this bug."),
                    argument: None,
                }),
            },
            Ok(Err(e)) => fail(e),
            Err(e) => {
                tracing::error!(function = %req.name, error = %e, "function panicked");
                fail(FunctionError {
                    text: format!(
                        "{} failed unexpectedly. Please report this bug with TF_LOG=DEBUG output.",
                        req.name
                    ),
                    argument: None,
                })
            }
        }
    }

    async fn validate_provider_config(
        &self,
        req: Request<pb::validate_provider_config::Request>,
    ) -> Result<Response<pb::validate_provider_config::Response>, Status> {
        let req = req.into_inner();
        let mut diags = Diagnostics::new();
        if let Some(config) = decode(
            req.config.as_ref(),
            &self.provider_schema.ty,
            "provider configuration",
            &mut diags,
        ) {
            // Before anything can log them: the provider's sensitive inputs.
            crate::logging::register_sensitive(&self.provider_schema.schema.block, &config);
            self.provider.validate(&config, &mut diags);
        }
        Ok(Response::new(pb::validate_provider_config::Response {
            diagnostics: diagnostics_to_proto(diags),
        }))
    }

    async fn validate_resource_config(
        &self,
        req: Request<pb::validate_resource_config::Request>,
    ) -> Result<Response<pb::validate_resource_config::Response>, Status> {
        let req = req.into_inner();
        let mut diags = Diagnostics::new();
        match self.resource(&req.type_name) {
            Ok(e) => {
                if let Some(config) = decode(req.config.as_ref(), &e.ty, "resource configuration", &mut diags) {
                    e.imp.validate(&config, &mut diags);
                }
            }
            Err(d) => diags.extend(d),
        }
        Ok(Response::new(pb::validate_resource_config::Response {
            diagnostics: diagnostics_to_proto(diags),
        }))
    }

    async fn validate_data_resource_config(
        &self,
        req: Request<pb::validate_data_resource_config::Request>,
    ) -> Result<Response<pb::validate_data_resource_config::Response>, Status> {
        let req = req.into_inner();
        let mut diags = Diagnostics::new();
        match self.data_source(&req.type_name) {
            Ok(e) => {
                if let Some(config) = decode(req.config.as_ref(), &e.ty, "data source configuration", &mut diags) {
                    e.imp.validate(&config, &mut diags);
                }
            }
            Err(d) => diags.extend(d),
        }
        Ok(Response::new(pb::validate_data_resource_config::Response {
            diagnostics: diagnostics_to_proto(diags),
        }))
    }

    async fn upgrade_resource_state(
        &self,
        req: Request<pb::upgrade_resource_state::Request>,
    ) -> Result<Response<pb::upgrade_resource_state::Response>, Status> {
        let req = req.into_inner();
        let mut diags = Diagnostics::new();
        let mut upgraded = None;
        match self.resource(&req.type_name) {
            Ok(e) => {
                let raw = req.raw_state.unwrap_or_default();
                // Parsed once: reshaped in place and decoded from the parsed form.
                let decoded = match serde_json::from_slice::<serde_json::Value>(&raw.json) {
                    Ok(mut j) => {
                        e.imp.upgrade_json(req.version, &mut j);
                        crate::value::decode_json_value(&j, &e.ty)
                    }
                    // Left to the decoder, which says what is wrong with it.
                    Err(_) => crate::value::decode_json(&raw.json, &e.ty),
                };
                match decoded {
                    Ok(state) => {
                        let state = e.imp.upgrade(req.version, state, &mut diags);
                        upgraded = encode(&state, &e.ty, "upgraded state", &mut diags);
                    }
                    Err(err) => diags.push(decode_failed("stored state", &err)),
                }
            }
            Err(d) => diags.extend(d),
        }
        Ok(Response::new(pb::upgrade_resource_state::Response {
            upgraded_state: upgraded,
            diagnostics: diagnostics_to_proto(diags),
        }))
    }

    async fn configure_provider(
        &self,
        req: Request<pb::configure_provider::Request>,
    ) -> Result<Response<pb::configure_provider::Response>, Status> {
        let req = req.into_inner();
        let mut diags = Diagnostics::new();
        if let Some(config) = decode(
            req.config.as_ref(),
            &self.provider_schema.ty,
            "provider configuration",
            &mut diags,
        ) {
            let provider = self.provider.clone();
            let creq = ConfigureRequest {
                terraform_version: req.terraform_version,
                config,
            };
            match guarded("ConfigureProvider", async move {
                let mut d = Diagnostics::new();
                provider.configure(creq, &mut d).await;
                ((), d)
            })
            .await
            {
                Ok(((), d)) | Err(d) => diags.extend(d),
            }
        }
        Ok(Response::new(pb::configure_provider::Response {
            diagnostics: diagnostics_to_proto(diags),
        }))
    }

    async fn read_resource(
        &self,
        req: Request<pb::read_resource::Request>,
    ) -> Result<Response<pb::read_resource::Response>, Status> {
        let req = req.into_inner();
        let mut diags = Diagnostics::new();
        // On any failure, hand the prior state and private data back unchanged: never lose state.
        let mut out = pb::read_resource::Response {
            new_state: req.current_state.clone(),
            diagnostics: Vec::new(),
            private: req.private.clone(),
        };
        match self.resource(&req.type_name) {
            Ok(e) => {
                if let Some(current_state) = decode(req.current_state.as_ref(), &e.ty, "state", &mut diags) {
                    let (imp, ctx) = (e.imp.clone(), self.ctx.clone());
                    let rreq = ReadRequest {
                        current_state,
                        private: req.private,
                    };
                    match guarded("ReadResource", async move {
                        let mut d = Diagnostics::new();
                        let r = imp.read(&ctx, rreq, &mut d).await;
                        (r, d)
                    })
                    .await
                    {
                        Ok((r, d)) => {
                            let failed = d.has_errors();
                            diags.extend(d);
                            if !failed && let Some(dv) = encode(&r.new_state, &e.ty, "state", &mut diags) {
                                out.new_state = Some(dv);
                                out.private = r.private;
                            }
                        }
                        Err(d) => diags.extend(d),
                    }
                }
            }
            Err(d) => diags.extend(d),
        }
        out.diagnostics = diagnostics_to_proto(diags);
        Ok(Response::new(out))
    }

    async fn plan_resource_change(
        &self,
        req: Request<pb::plan_resource_change::Request>,
    ) -> Result<Response<pb::plan_resource_change::Response>, Status> {
        let req = req.into_inner();
        let mut diags = Diagnostics::new();
        let mut out = pb::plan_resource_change::Response::default();
        match self.resource(&req.type_name) {
            Ok(e) => {
                let prior = decode(req.prior_state.as_ref(), &e.ty, "prior state", &mut diags);
                let proposed = decode(req.proposed_new_state.as_ref(), &e.ty, "proposed state", &mut diags);
                let config = decode(req.config.as_ref(), &e.ty, "resource configuration", &mut diags);
                if let (Some(prior_state), Some(proposed_new_state), Some(config)) = (prior, proposed, config) {
                    let (imp, ctx) = (e.imp.clone(), self.ctx.clone());
                    let preq = PlanRequest {
                        prior_state,
                        proposed_new_state,
                        config,
                        prior_private: req.prior_private,
                    };
                    match guarded("PlanResourceChange", async move {
                        let mut d = Diagnostics::new();
                        let r = imp.plan(&ctx, preq, &mut d).await;
                        (r, d)
                    })
                    .await
                    {
                        Ok((r, d)) => {
                            diags.extend(d);
                            out.planned_state = encode(&r.planned_state, &e.ty, "plan", &mut diags);
                            out.requires_replace = r.requires_replace.iter().map(path_to_proto).collect();
                            out.planned_private = r.planned_private;
                        }
                        Err(d) => diags.extend(d),
                    }
                }
            }
            Err(d) => diags.extend(d),
        }
        out.diagnostics = diagnostics_to_proto(diags);
        Ok(Response::new(out))
    }

    async fn apply_resource_change(
        &self,
        req: Request<pb::apply_resource_change::Request>,
    ) -> Result<Response<pb::apply_resource_change::Response>, Status> {
        let req = req.into_inner();
        let mut diags = Diagnostics::new();
        // Until the provider says otherwise, the object is as it was before.
        let mut out = pb::apply_resource_change::Response {
            new_state: req.prior_state.clone(),
            private: req.planned_private.clone(),
            diagnostics: Vec::new(),
        };
        match self.resource(&req.type_name) {
            Ok(e) => {
                let prior = decode(req.prior_state.as_ref(), &e.ty, "prior state", &mut diags);
                let planned = decode(req.planned_state.as_ref(), &e.ty, "planned state", &mut diags);
                let config = decode(req.config.as_ref(), &e.ty, "resource configuration", &mut diags);
                if let (Some(prior_state), Some(planned_state), Some(config)) = (prior, planned, config) {
                    let (imp, ctx) = (e.imp.clone(), self.ctx.clone());
                    let areq = ApplyRequest {
                        prior_state,
                        planned_state,
                        config,
                        planned_private: req.planned_private,
                    };
                    match guarded("ApplyResourceChange", async move {
                        let mut d = Diagnostics::new();
                        let r = imp.apply(&ctx, areq, &mut d).await;
                        (r, d)
                    })
                    .await
                    {
                        Ok((r, d)) => {
                            diags.extend(d);
                            if let Some(dv) = encode(&r.new_state, &e.ty, "new state", &mut diags) {
                                out.new_state = Some(dv);
                                out.private = r.private;
                            }
                        }
                        Err(d) => diags.extend(d),
                    }
                }
            }
            Err(d) => diags.extend(d),
        }
        out.diagnostics = diagnostics_to_proto(diags);
        Ok(Response::new(out))
    }

    async fn import_resource_state(
        &self,
        req: Request<pb::import_resource_state::Request>,
    ) -> Result<Response<pb::import_resource_state::Response>, Status> {
        let req = req.into_inner();
        let mut diags = Diagnostics::new();
        let mut imported = Vec::new();
        match self.resource(&req.type_name) {
            Ok(e) => {
                let (imp, ctx, id) = (e.imp.clone(), self.ctx.clone(), req.id);
                match guarded("ImportResourceState", async move {
                    let mut d = Diagnostics::new();
                    let r = imp.import(&ctx, &id, &mut d).await;
                    (r, d)
                })
                .await
                {
                    Ok((r, d)) => {
                        diags.extend(d);
                        if let Some(r) = r
                            && let Some(dv) = encode(&r.state, &e.ty, "imported state", &mut diags)
                        {
                            imported.push(pb::import_resource_state::ImportedResource {
                                type_name: req.type_name.clone(),
                                state: Some(dv),
                                private: r.private,
                            });
                        }
                    }
                    Err(d) => diags.extend(d),
                }
            }
            Err(d) => diags.extend(d),
        }
        Ok(Response::new(pb::import_resource_state::Response {
            imported_resources: imported,
            diagnostics: diagnostics_to_proto(diags),
        }))
    }

    async fn read_data_source(
        &self,
        req: Request<pb::read_data_source::Request>,
    ) -> Result<Response<pb::read_data_source::Response>, Status> {
        let req = req.into_inner();
        let mut diags = Diagnostics::new();
        let mut state = None;
        match self.data_source(&req.type_name) {
            Ok(e) => {
                if let Some(config) = decode(req.config.as_ref(), &e.ty, "data source configuration", &mut diags) {
                    let (imp, ctx) = (e.imp.clone(), self.ctx.clone());
                    match guarded("ReadDataSource", async move {
                        let mut d = Diagnostics::new();
                        let r = imp.read(&ctx, config, &mut d).await;
                        (r, d)
                    })
                    .await
                    {
                        Ok((r, d)) => {
                            diags.extend(d);
                            if let Some(v) = r {
                                state = encode(&v, &e.ty, "data source state", &mut diags);
                            }
                        }
                        Err(d) => diags.extend(d),
                    }
                }
            }
            Err(d) => diags.extend(d),
        }
        Ok(Response::new(pb::read_data_source::Response {
            state,
            diagnostics: diagnostics_to_proto(diags),
        }))
    }

    async fn stop_provider(
        &self,
        _req: Request<pb::stop_provider::Request>,
    ) -> Result<Response<pb::stop_provider::Response>, Status> {
        tracing::info!("StopProvider: cancelling in-flight operations");
        self.ctx.cancel();
        Ok(Response::new(pb::stop_provider::Response { error: String::new() }))
    }
}

#[cfg(test)]
mod tests;
