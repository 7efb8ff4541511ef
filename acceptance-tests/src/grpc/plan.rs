//! `terraform plan` of one new resource, played by the protocol client against
//! the real provider process: the calls Terraform makes, in its order, with
//! the values it would send for a literal configuration. It saves the CLI's
//! `init` and its process starts where a test asserts only what the provider
//! says (a rule's code, severity, summary and attribute path); what Terraform
//! itself does (expressions, unknowns, `dynamic`, rendering a diagnostic at its
//! source line, checking the plan it gets) stays with the CLI tests.
//!
//! The order is Terraform's (hashicorp/terraform v1.11, internal/terraform):
//! the validate walk (`ValidateProviderConfig`, `ValidateResourceConfig`;
//! node_provider.go, node_resource_validate.go) stops on errors; the plan walk
//! configures the provider (`ConfigureProvider`, node_provider.go) and plans
//! with no prior state, the proposed new state being the configuration itself
//! (`objchange.ProposedNew` of a null prior, internal/plans/objchange/objchange.go;
//! node_resource_abstract_instance.go).

use std::fmt::Write as _;
use std::sync::OnceLock;

use eksgpu_tfplugin::testing::proto;
use eksgpu_tfplugin::value::{decode_msgpack, encode_msgpack};
use eksgpu_tfplugin::{Type, Value};

use super::config::{block_type, body_value};
use super::{ClientIdentity, ProviderProcess};
use crate::provider_bin::provider_binary;

/// The Terraform version the provider is told (it only logs it).
const TERRAFORM_VERSION: &str = "1.11.4";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

/// A diagnostic as Terraform receives it; `path` written as Terraform shows
/// one (`pool[0].labels["team"]`), empty when the diagnostic has none.
#[derive(Debug, Clone)]
pub struct Diag {
    pub severity: Severity,
    pub summary: String,
    pub detail: String,
    pub path: String,
}

#[derive(Debug)]
pub struct Planned {
    /// Every call's diagnostics, in call order.
    pub diagnostics: Vec<Diag>,
    /// The planned new state, when the plan got that far.
    pub planned_state: Option<Value>,
}

impl Planned {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.severity == Severity::Error)
    }
}

/// Plans the one `resource` block of `main_tf` with its `provider "eksgpu"`
/// block (none: an empty one), in a provider process of its own as each
/// Terraform command has. The `terraform` block is ignored; any other block,
/// and anything but literals, panics: such a configuration needs the CLI.
pub async fn plan(main_tf: &str) -> Planned {
    let file = hcl::parse(main_tf).unwrap_or_else(|e| panic!("HCL: {e}\n{main_tf}"));
    let mut provider_body = hcl::Body::default();
    let mut resource = None;
    for b in file.blocks() {
        let labels: Vec<&str> = b.labels().iter().map(hcl::BlockLabel::as_str).collect();
        match (b.identifier(), labels.as_slice()) {
            ("terraform", []) => {}
            ("provider", ["eksgpu"]) => provider_body = b.body().clone(),
            ("resource", [ty, name]) if resource.is_none() => resource = Some((*ty, *name, b.body())),
            (kind, _) => panic!("the protocol client plans one resource; {kind} {labels:?} needs the CLI"),
        }
    }
    let (type_name, name, body) = resource.unwrap_or_else(|| panic!("no resource block in\n{main_tf}"));
    assert!(file.attributes().next().is_none(), "top-level attributes in\n{main_tf}");

    let process = ProviderProcess::start(provider_binary(), client());
    let mut client = process.provider(client()).await;
    let schema = client
        .get_provider_schema(proto::get_provider_schema::Request {})
        .await
        .unwrap_or_else(|e| panic!("GetProviderSchema: {e}"))
        .into_inner();
    let block = |s: Option<&proto::Schema>, what: &str| {
        s.and_then(|s| s.block.clone())
            .unwrap_or_else(|| panic!("the provider serves no schema for {what}"))
    };
    let provider_block = block(schema.provider.as_ref(), "the provider");
    let resource_block = block(schema.resource_schemas.get(type_name), type_name);
    let (provider_ty, resource_ty) = (block_type(&provider_block), block_type(&resource_block));
    let provider_config = body_value(&provider_body, &provider_block, "provider").unwrap_or_else(|e| panic!("{e}"));
    let config = body_value(body, &resource_block, &format!("{type_name}.{name}")).unwrap_or_else(|e| panic!("{e}"));
    let dv = |v: &Value, ty: &Type| proto::DynamicValue {
        msgpack: encode_msgpack(v, ty).unwrap_or_else(|e| panic!("encode: {e:?}")),
        json: Vec::new(),
    };

    let mut out = Planned {
        diagnostics: Vec::new(),
        planned_state: None,
    };
    let r = client
        .validate_provider_config(proto::validate_provider_config::Request {
            config: Some(dv(&provider_config, &provider_ty)),
        })
        .await
        .unwrap_or_else(|e| panic!("ValidateProviderConfig: {e}"));
    out.extend(&r.into_inner().diagnostics);
    let r = client
        .validate_resource_config(proto::validate_resource_config::Request {
            type_name: type_name.to_owned(),
            config: Some(dv(&config, &resource_ty)),
            client_capabilities: None,
        })
        .await
        .unwrap_or_else(|e| panic!("ValidateResourceConfig: {e}"));
    out.extend(&r.into_inner().diagnostics);
    if out.has_errors() {
        return out;
    }
    let r = client
        .configure_provider(proto::configure_provider::Request {
            terraform_version: TERRAFORM_VERSION.to_owned(),
            config: Some(dv(&provider_config, &provider_ty)),
            client_capabilities: None,
        })
        .await
        .unwrap_or_else(|e| panic!("ConfigureProvider: {e}"));
    out.extend(&r.into_inner().diagnostics);
    if out.has_errors() {
        return out;
    }
    let r = client
        .plan_resource_change(proto::plan_resource_change::Request {
            type_name: type_name.to_owned(),
            prior_state: Some(dv(&Value::Null, &resource_ty)),
            proposed_new_state: Some(dv(&config, &resource_ty)),
            config: Some(dv(&config, &resource_ty)),
            prior_private: Vec::new(),
            provider_meta: None,
            client_capabilities: None,
        })
        .await
        .unwrap_or_else(|e| panic!("PlanResourceChange: {e}"))
        .into_inner();
    out.extend(&r.diagnostics);
    out.planned_state = r.planned_state.map(|p| {
        decode_msgpack(&p.msgpack, &resource_ty).unwrap_or_else(|e| panic!("the planned state does not decode: {e:?}"))
    });
    out
}

/// One client identity for every plan of the test process (a P-521 key is slow to make).
fn client() -> &'static ClientIdentity {
    static CLIENT: OnceLock<ClientIdentity> = OnceLock::new();
    CLIENT.get_or_init(ClientIdentity::generate)
}

impl Planned {
    fn extend(&mut self, diags: &[proto::Diagnostic]) {
        self.diagnostics.extend(diags.iter().map(|d| Diag {
            // Anything but a warning is an error, as Terraform reads it
            // (internal/plugin6/convert/diagnostics.go).
            severity: match proto::diagnostic::Severity::try_from(d.severity) {
                Ok(proto::diagnostic::Severity::Warning) => Severity::Warning,
                _ => Severity::Error,
            },
            summary: d.summary.clone(),
            detail: d.detail.clone(),
            path: d.attribute.as_ref().map(path_text).unwrap_or_default(),
        }));
    }
}

fn path_text(p: &proto::AttributePath) -> String {
    use proto::attribute_path::step::Selector;
    let mut s = String::new();
    for step in &p.steps {
        match &step.selector {
            Some(Selector::AttributeName(a)) if s.is_empty() => s.push_str(a),
            Some(Selector::AttributeName(a)) => {
                let _ = write!(s, ".{a}");
            }
            Some(Selector::ElementKeyString(k)) => {
                let _ = write!(s, "[{k:?}]");
            }
            Some(Selector::ElementKeyInt(i)) => {
                let _ = write!(s, "[{i}]");
            }
            None => {}
        }
    }
    s
}
