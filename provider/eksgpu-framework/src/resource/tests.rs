//! The adapter's own promises, with a resource that records what it was asked.

use std::sync::Mutex;

use async_trait::async_trait;
use eksgpu_tfplugin::schema::{Attribute, Block, Schema};
use eksgpu_tfplugin::{ApplyRequest, Context, Diagnostics, PlanRequest, ReadRequest, Resource, Type, Value};

use super::*;

/// Fails every call when `fail` is set, else echoes.
#[derive(Default)]
struct Probe {
    fail: bool,
    calls: Mutex<Vec<&'static str>>,
}

impl Probe {
    fn called(&self, what: &'static str) {
        self.calls.lock().unwrap().push(what);
    }

    fn result(&self, v: &Value, diags: &mut Diagnostics) -> Option<Value> {
        if self.fail {
            diags.error("boom", "the API said no");
            None
        } else {
            Some(v.clone())
        }
    }
}

#[async_trait]
impl ManagedResource for Probe {
    fn type_name(&self) -> &'static str {
        "probe"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            Block::new("p")
                .attribute(Attribute::required("name", Type::String, "n").forces_replacement())
                .attribute(Attribute::optional("size", Type::Number, "s").default(1)),
        )
    }

    fn import_id(&self) -> ImportId {
        ImportId {
            formats: &[&["name"]],
            example: "x",
        }
    }

    async fn create(&self, _: &Context, planned: &Value, diags: &mut Diagnostics) -> Option<Value> {
        self.called("create");
        self.result(planned, diags)
    }

    async fn update(&self, _: &Context, _: &Value, planned: &Value, diags: &mut Diagnostics) -> Option<Value> {
        self.called("update");
        self.result(planned, diags)
    }

    async fn delete(&self, _: &Context, prior: &Value, diags: &mut Diagnostics) -> Option<Value> {
        self.called("delete");
        self.result(prior, diags)
    }

    async fn read(&self, _: &Context, state: &Value, diags: &mut Diagnostics) -> Option<Value> {
        self.called("read");
        self.result(state, diags)
    }

    async fn import(&self, _: &Context, _: usize, parts: &[&str], _: &mut Diagnostics) -> Option<Value> {
        Some(Value::object([("name", parts[0].into()), ("size", Value::from(1))]))
    }
}

fn obj(name: &str, size: Value) -> Value {
    Value::object([("name", name.into()), ("size", size)])
}

#[tokio::test]
async fn destroy_is_planned_without_the_resource_and_delete_errors_keep_the_state() {
    let r = Framework::new(Probe {
        fail: true,
        ..Probe::default()
    });
    let ctx = Context::new();
    let mut d = Diagnostics::new();
    let prior = obj("a", Value::from(1));
    let plan = r
        .plan(
            &ctx,
            PlanRequest {
                prior_state: prior.clone(),
                proposed_new_state: Value::Null,
                config: Value::Null,
                prior_private: b"p".to_vec(),
            },
            &mut d,
        )
        .await;
    assert_eq!(plan.planned_state, Value::Null);
    assert_eq!(plan.planned_private, b"p");
    let out = r
        .apply(
            &ctx,
            ApplyRequest {
                prior_state: prior.clone(),
                planned_state: Value::Null,
                config: Value::Null,
                planned_private: Vec::new(),
            },
            &mut d,
        )
        .await;
    assert!(d.has_errors());
    assert_eq!(out.new_state, prior, "a failed delete keeps the object in state");
}

#[tokio::test]
async fn failed_updates_and_reads_keep_the_prior_state_and_defaults_are_planned() {
    let r = Framework::new(Probe {
        fail: true,
        ..Probe::default()
    });
    let ctx = Context::new();
    let mut d = Diagnostics::new();
    let prior = obj("a", Value::from(1));
    // Config leaves `size` out: the default is planned, and `name` forces replacement.
    let plan = r
        .plan(
            &ctx,
            PlanRequest {
                prior_state: prior.clone(),
                proposed_new_state: obj("b", Value::Null),
                config: obj("b", Value::Null),
                prior_private: Vec::new(),
            },
            &mut d,
        )
        .await;
    assert_eq!(plan.planned_state, obj("b", Value::from(1)));
    assert_eq!(plan.requires_replace.len(), 1);
    let out = r
        .apply(
            &ctx,
            ApplyRequest {
                prior_state: prior.clone(),
                planned_state: obj("a", Value::from(2)),
                config: obj("a", Value::from(2)),
                planned_private: Vec::new(),
            },
            &mut d,
        )
        .await;
    assert_eq!(out.new_state, prior);
    let read = r
        .read(
            &ctx,
            ReadRequest {
                current_state: prior.clone(),
                private: Vec::new(),
            },
            &mut d,
        )
        .await;
    assert_eq!(read.new_state, prior, "a failed read loses nothing");
}

#[tokio::test]
async fn import_ids_are_parsed_before_the_resource_sees_them() {
    let r = Framework::new(Probe::default());
    let mut d = Diagnostics::new();
    assert!(r.import(&Context::new(), "a/b", &mut d).await.is_none());
    assert!(d.iter().next().unwrap().detail.contains("<name>"));
    let mut d = Diagnostics::new();
    let got = r.import(&Context::new(), "a", &mut d).await.unwrap();
    assert_eq!(got.state, obj("a", Value::from(1)));
    assert!(
        r.0.calls.lock().unwrap().is_empty(),
        "no cloud call for a bad ID or an import"
    );
}
