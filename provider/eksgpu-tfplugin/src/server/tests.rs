//! The service against a small in-crate provider: translation, dispatch,
//! diagnostics, and the promise that failures never lose state.

use std::sync::Arc;

use async_trait::async_trait;
use tonic::Request;

use super::*;
use crate::provider::{ApplyResponse, ImportResponse, PlanResponse, ReadResponse};
use crate::schema::{Attribute, Block};
use crate::value::{decode_msgpack, encode_msgpack};
use crate::wire::tfplugin6::provider_server::Provider as _;

struct TestProvider;
struct Echo;
struct Thing;

#[async_trait]
impl Provider for TestProvider {
    fn schema(&self) -> Schema {
        Schema::new(Block::new("p").attribute(Attribute::optional("region", Type::String, "r")))
    }
    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        if config.get("region").as_str() == Some("mars-1") {
            diags.error_at(
                crate::AttributePath::attr("region"),
                "Invalid region",
                "No such region.",
            );
        }
    }
    async fn configure(&self, _req: ConfigureRequest, _diags: &mut Diagnostics) {}
    fn data_sources(&self) -> Vec<Arc<dyn DataSource>> {
        vec![Arc::new(Echo)]
    }
    fn resources(&self) -> Vec<Arc<dyn Resource>> {
        vec![Arc::new(Thing)]
    }
    fn functions(&self) -> Vec<Arc<dyn Function>> {
        vec![Arc::new(Shout)]
    }
}

/// `shout(s)`: upper-cases; refuses "" (blaming argument 0) and panics on "panic".
struct Shout;

impl Function for Shout {
    fn name(&self) -> &'static str {
        "shout"
    }
    fn signature(&self) -> crate::provider::FunctionSignature {
        crate::provider::FunctionSignature {
            summary: "s",
            description: "d",
            parameters: vec![crate::provider::Parameter {
                name: "s",
                ty: Type::String,
                description: "p",
            }],
            returns: Type::String,
        }
    }
    fn call(&self, args: &[Value]) -> Result<Value, FunctionError> {
        match args[0].as_str() {
            Some("") => Err(FunctionError {
                text: "empty".into(),
                argument: Some(0),
            }),
            Some("panic") => panic!("bug"),
            Some(s) => Ok(s.to_uppercase().into()),
            None => Ok(Value::Null),
        }
    }
}

#[async_trait]
impl DataSource for Echo {
    fn type_name(&self) -> &'static str {
        "test_echo"
    }
    fn schema(&self) -> Schema {
        Schema::new(
            Block::new("e")
                .attribute(Attribute::required("input", Type::String, "i"))
                .attribute(Attribute::computed("output", Type::String, "o")),
        )
    }
    async fn read(&self, _ctx: &Context, config: Value, diags: &mut Diagnostics) -> Option<Value> {
        match config.get("input").as_str() {
            Some("panic") => panic!("bug"),
            Some("bad") => {
                diags.error("Bad input", "Use another.");
                None
            }
            // A provider bug: a value that does not fit the schema.
            Some("wrongtype") => Some(Value::object([("input", Value::Bool(true))])),
            Some(s) => Some(Value::object([
                ("input", s.into()),
                ("output", s.to_uppercase().into()),
            ])),
            None => None,
        }
    }
}

#[async_trait]
impl Resource for Thing {
    fn type_name(&self) -> &'static str {
        "test_thing"
    }
    fn schema(&self) -> Schema {
        Schema::new(
            Block::new("t")
                .attribute(Attribute::required("name", Type::String, "n"))
                .attribute(Attribute::computed("id", Type::String, "i")),
        )
    }
    async fn plan(&self, _ctx: &Context, req: PlanRequest, _d: &mut Diagnostics) -> PlanResponse {
        let mut planned = req.proposed_new_state;
        if let Value::Object(m) = &mut planned
            && req.prior_state.is_null()
        {
            m.insert("id".into(), Value::Unknown);
        }
        PlanResponse {
            planned_state: planned,
            requires_replace: vec![],
            planned_private: b"p".to_vec(),
        }
    }
    async fn apply(&self, _ctx: &Context, req: ApplyRequest, diags: &mut Diagnostics) -> ApplyResponse {
        if req.config.get("name").as_str() == Some("fail") {
            diags.error("Create failed", "The API said no.");
            return ApplyResponse {
                new_state: req.prior_state,
                private: vec![],
            };
        }
        let mut s = req.planned_state;
        if let Value::Object(m) = &mut s {
            m.insert("id".into(), "id-1".into());
        }
        ApplyResponse {
            new_state: s,
            private: req.planned_private,
        }
    }
    async fn read(&self, _ctx: &Context, req: ReadRequest, diags: &mut Diagnostics) -> ReadResponse {
        if req.current_state.get("name").as_str() == Some("unreachable") {
            diags.error("Read failed", "Timeout.");
        }
        ReadResponse {
            new_state: req.current_state,
            private: req.private,
        }
    }
    async fn import(&self, _ctx: &Context, id: &str, _d: &mut Diagnostics) -> Option<ImportResponse> {
        Some(ImportResponse {
            state: Value::object([("name", id.into()), ("id", id.into())]),
            private: vec![],
        })
    }
}

fn service() -> ProviderService {
    ProviderService::new(Arc::new(TestProvider))
}

fn dv(v: &Value, ty: &Type) -> Option<pb::DynamicValue> {
    Some(pb::DynamicValue {
        msgpack: encode_msgpack(v, ty).unwrap(),
        json: vec![],
    })
}

fn echo_type() -> Type {
    Echo.schema().value_type()
}

fn thing_type() -> Type {
    Thing.schema().value_type()
}

#[tokio::test]
async fn schema_has_provider_meta_and_capabilities() {
    let r = service()
        .get_provider_schema(Request::new(Default::default()))
        .await
        .unwrap()
        .into_inner();
    assert!(r.provider.unwrap().block.is_some());
    assert!(r.provider_meta.unwrap().block.is_some());
    assert!(r.data_source_schemas.contains_key("test_echo"));
    let caps = r.server_capabilities.unwrap();
    assert!(caps.plan_destroy && caps.get_provider_schema_optional);
    let attr = &r.resource_schemas["test_thing"].block.as_ref().unwrap().attributes[0];
    assert_eq!(attr.r#type, b"\"string\"");
}

#[tokio::test]
async fn data_source_reads_and_reports_errors() {
    let s = service();
    let ty = echo_type();
    let read = |input: &str| pb::read_data_source::Request {
        type_name: "test_echo".into(),
        config: dv(&Value::object([("input", input.into()), ("output", Value::Null)]), &ty),
        ..Default::default()
    };
    let r = s
        .read_data_source(Request::new(read("gpu")))
        .await
        .unwrap()
        .into_inner();
    let state = decode_msgpack(&r.state.unwrap().msgpack, &ty).unwrap();
    assert_eq!(state.get("output"), &Value::from("GPU"));

    let r = s
        .read_data_source(Request::new(read("bad")))
        .await
        .unwrap()
        .into_inner();
    assert!(r.state.is_none());
    assert_eq!(r.diagnostics[0].summary, "Bad input");

    // A panicking provider is one error diagnostic, not a dead process.
    let r = s
        .read_data_source(Request::new(read("panic")))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.diagnostics[0].summary, "Provider internal error");

    let r = s
        .read_data_source(Request::new(read("wrongtype")))
        .await
        .unwrap()
        .into_inner();
    assert!(
        r.diagnostics[0].summary.starts_with("Provider produced an invalid"),
        "{:?}",
        r.diagnostics
    );
}

#[tokio::test]
async fn malformed_values_are_diagnostics_with_paths() {
    let r = service()
        .read_data_source(Request::new(pb::read_data_source::Request {
            type_name: "test_echo".into(),
            // {"input": 5, "output": nil}
            config: Some(pb::DynamicValue {
                msgpack: vec![
                    0x82, 0xa5, b'i', b'n', b'p', b'u', b't', 0x05, 0xa6, b'o', b'u', b't', b'p', b'u', b't', 0xc0,
                ],
                json: vec![],
            }),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    let d = &r.diagnostics[0];
    assert_eq!(d.summary, "Invalid data source configuration");
    assert!(d.attribute.is_some());
}

#[tokio::test]
async fn unknown_types_are_diagnostics() {
    let r = service()
        .read_data_source(Request::new(pb::read_data_source::Request {
            type_name: "nope".into(),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.diagnostics[0].summary, "Unknown data source type");
}

#[tokio::test]
async fn provider_validation_points_at_the_attribute() {
    let ty = TestProvider.schema().value_type();
    let r = service()
        .validate_provider_config(Request::new(pb::validate_provider_config::Request {
            config: dv(&Value::object([("region", "mars-1".into())]), &ty),
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.diagnostics.len(), 1);
    assert!(r.diagnostics[0].attribute.is_some());
}

#[tokio::test]
async fn resource_lifecycle_through_the_wire() {
    let s = service();
    let ty = thing_type();
    let config = Value::object([("name", "a".into()), ("id", Value::Null)]);
    let plan = s
        .plan_resource_change(Request::new(pb::plan_resource_change::Request {
            type_name: "test_thing".into(),
            prior_state: dv(&Value::Null, &ty),
            proposed_new_state: dv(&config, &ty),
            config: dv(&config, &ty),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    let planned = decode_msgpack(&plan.planned_state.clone().unwrap().msgpack, &ty).unwrap();
    assert_eq!(planned.get("id"), &Value::Unknown);

    let apply = s
        .apply_resource_change(Request::new(pb::apply_resource_change::Request {
            type_name: "test_thing".into(),
            prior_state: dv(&Value::Null, &ty),
            planned_state: plan.planned_state,
            config: dv(&config, &ty),
            planned_private: plan.planned_private,
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    let state = decode_msgpack(&apply.new_state.unwrap().msgpack, &ty).unwrap();
    assert_eq!(state.get("id"), &Value::from("id-1"));
    assert_eq!(apply.private, b"p");

    let import = s
        .import_resource_state(Request::new(pb::import_resource_state::Request {
            type_name: "test_thing".into(),
            id: "x".into(),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(import.imported_resources.len(), 1);
}

#[tokio::test]
async fn a_failed_read_keeps_the_prior_state() {
    let s = service();
    let ty = thing_type();
    let prior = dv(
        &Value::object([("name", "unreachable".into()), ("id", "i".into())]),
        &ty,
    );
    let r = s
        .read_resource(Request::new(pb::read_resource::Request {
            type_name: "test_thing".into(),
            current_state: prior.clone(),
            private: b"keep".to_vec(),
            ..Default::default()
        }))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.new_state, prior);
    assert_eq!(r.private, b"keep");
    assert_eq!(r.diagnostics[0].summary, "Read failed");
}

#[tokio::test]
async fn upgrade_reads_json_state() {
    let r = service()
        .upgrade_resource_state(Request::new(pb::upgrade_resource_state::Request {
            type_name: "test_thing".into(),
            version: 0,
            raw_state: Some(pb::RawState {
                json: br#"{"name":"a","id":"i","gone":1}"#.to_vec(),
                ..Default::default()
            }),
        }))
        .await
        .unwrap()
        .into_inner();
    let v = decode_msgpack(&r.upgraded_state.unwrap().msgpack, &thing_type()).unwrap();
    assert_eq!(v.get("id"), &Value::from("i"));
}

#[tokio::test]
async fn stop_provider_cancels_the_context() {
    let s = service();
    assert!(!s.ctx.is_cancelled());
    s.stop_provider(Request::new(Default::default())).await.unwrap();
    assert!(s.ctx.is_cancelled());
}

#[tokio::test]
async fn functions_are_declared_and_called() {
    let s = service();
    let schema = s
        .get_provider_schema(Request::new(Default::default()))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(schema.functions["shout"].parameters[0].r#type, b"\"string\"");
    let listed = s
        .get_functions(Request::new(Default::default()))
        .await
        .unwrap()
        .into_inner();
    assert!(listed.functions.contains_key("shout"));

    let call = |name: &str, args: Vec<Value>| {
        let arguments = args
            .iter()
            .map(|a| pb::DynamicValue {
                msgpack: encode_msgpack(a, &Type::String).unwrap(),
                json: Vec::new(),
            })
            .collect();
        s.call_function(Request::new(pb::call_function::Request {
            name: name.to_owned(),
            arguments,
        }))
    };
    let ok = call("shout", vec!["hi".into()]).await.unwrap().into_inner();
    assert_eq!(
        decode_msgpack(&ok.result.unwrap().msgpack, &Type::String).unwrap(),
        Value::from("HI")
    );
    let refused = call("shout", vec!["".into()]).await.unwrap().into_inner();
    let e = refused.error.unwrap();
    assert_eq!((e.text.as_str(), e.function_argument), ("empty", Some(0)));
    // A panic is one failed call; the provider keeps serving.
    let panicked = call("shout", vec!["panic".into()]).await.unwrap().into_inner();
    assert!(panicked.error.unwrap().text.contains("failed unexpectedly"));
    assert!(
        call("shout", vec!["again".into()])
            .await
            .unwrap()
            .into_inner()
            .result
            .is_some()
    );
    let unknown = call("whisper", vec![]).await.unwrap().into_inner();
    assert!(unknown.error.unwrap().text.contains("no function"));
    let arity = call("shout", vec![]).await.unwrap().into_inner();
    assert!(arity.error.unwrap().text.contains("takes 1 argument"));
}
