//! The provider block: its schema (fixed names, see docs/index.md), offline
//! validation, and the configuration every resource and data source shares.

mod auth;
mod config;

use std::sync::{Arc, OnceLock};

use async_trait::async_trait;
use eksgpu_tfplugin::schema::{Attribute, Block, NestedBlock, Schema};
use eksgpu_tfplugin::{ConfigureRequest, DataSource, Diagnostics, Resource, Type, Value};

pub use config::{
    Configured, DEFAULT_FIELD_MANAGER, DEFAULT_KARPENTER_VERSION, KarpenterVersion, KubernetesSettings, Secret,
};

use crate::{data_sources, resources};

/// Shared by the provider and everything it serves; set once by ConfigureProvider.
#[derive(Default)]
pub struct ProviderState {
    configured: OnceLock<Configured>,
}

impl ProviderState {
    pub fn configured(&self) -> Option<&Configured> {
        self.configured.get()
    }
}

#[derive(Default)]
pub struct EksGpuProvider {
    state: Arc<ProviderState>,
}

impl EksGpuProvider {
    pub fn state(&self) -> &Arc<ProviderState> {
        &self.state
    }
}

#[async_trait]
impl eksgpu_tfplugin::Provider for EksGpuProvider {
    fn schema(&self) -> Schema {
        schema()
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        // Errors only: warnings wait for ConfigureProvider, which checks the block again. Terraform
        // validates the provider block in the validate walk and once more before configuring it
        // (the plan walk), so a warning here would show twice in every plan.
        let mut found = Diagnostics::new();
        check_config(config, &mut found);
        for d in found.iter().filter(|d| d.severity == eksgpu_tfplugin::Severity::Error) {
            diags.push(d.clone());
        }
    }

    async fn configure(&self, req: ConfigureRequest, diags: &mut Diagnostics) {
        check_config(&req.config, diags);
        if diags.has_errors() {
            return;
        }
        config::warnings(&req.config, diags);
        let configured = config::parse(&req.config);
        tracing::debug!(
            terraform_version = %req.terraform_version,
            region = configured.aws.settings().region.as_deref().unwrap_or("(default chain)"),
            karpenter_version = %configured.karpenter_version,
            "provider configured"
        );
        // A second ConfigureProvider in one process never happens; keep the first.
        let _ = self.state.configured.set(configured);
    }

    fn data_sources(&self) -> Vec<Arc<dyn DataSource>> {
        data_sources::all(&self.state)
    }

    fn resources(&self) -> Vec<Arc<dyn Resource>> {
        resources::all(&self.state)
    }

    fn functions(&self) -> Vec<Arc<dyn eksgpu_tfplugin::Function>> {
        crate::functions::all()
    }
}

/// The provider block's checks: the framework's, as for every resource and
/// data source (a required attribute set to null, declared validators), then
/// the block's own.
fn check_config(config: &Value, diags: &mut Diagnostics) {
    eksgpu_framework::validate::validate_block(&schema().block, config, diags);
    config::validate(config, diags);
}

pub fn schema() -> Schema {
    Schema::new(
        Block::new(
            "Configures how the provider reaches AWS and each cluster. Nothing contacts AWS until a \
             resource or data source needs it, so `terraform plan` of rendered objects works offline.",
        )
        .attribute(s(
            "region",
            "AWS region. Defaults to the AWS default chain (`AWS_REGION`, the profile's region).",
        ))
        .attribute(s(
            "profile",
            "Named profile of the AWS shared config and credentials files.",
        ))
        .attribute(s(
            "karpenter_version",
            &format!(
                "Karpenter release the clusters run, as `MAJOR.MINOR` (e.g. `\"1.14\"`). Validation only \
                 assumes Karpenter API features this release has. Default `\"{DEFAULT_KARPENTER_VERSION}\"`."
            ),
        ))
        .attribute(Attribute::optional(
            "karpenter_feature_gates",
            Type::set(Type::String),
            "The feature gates the clusters' Karpenter runs with, as its Helm chart's `settings.featureGates` keys \
             (`staticCapacity`, `nodeOverlay`, `reservedCapacity`, `nodeRepair`, `spotToSpotConsolidation`, \
             `capacityBuffer`), each known from the Karpenter release that introduced it. `staticCapacity` \
             (Karpenter 1.8+) lets `karpenter` pools set `replicas`; `nodeOverlay` (1.7+) makes each `karpenter` \
             pool whose nodes advertise resources Karpenter cannot know (device-plugin time-slicing or MPS \
             replicas, MIG `mixed` profiles, HAMi) render a NodeOverlay. Auto Mode needs none. Default: none.",
        ))
        .attribute(s(
            "field_manager",
            &format!("Server-side apply field manager for in-cluster objects. Default `\"{DEFAULT_FIELD_MANAGER}\"`."),
        ))
        .block(assume_role())
        .block(assume_role_with_web_identity())
        .block(NestedBlock::single(
            "endpoints",
            Block::new("Endpoint URL overrides, e.g. for VPC endpoints or local emulators.")
                .attribute(s("eks", "EKS endpoint URL."))
                .attribute(s("ec2", "EC2 endpoint URL."))
                .attribute(s("sts", "STS endpoint URL (used to assume `assume_role`).")),
        ))
        .block(kubernetes())
        .block(NestedBlock::single(
            "default_tags",
            Block::new(
                "Tags on every AWS object the provider creates (node groups, access entries), e.g. for cost attribution. \
                 A pool's `tags` override them; the provider's identifying tags (`app.kubernetes.io/managed-by`, \
                 `eksgpu.terraform.io/*`) cannot be set (EKSGPU125). A change retags the objects on the next apply.",
            )
            .attribute(Attribute::optional("tags", Type::map(Type::String), "Tag keys and values.")),
        )),
    )
}

fn s(name: &str, description: &str) -> Attribute {
    Attribute::optional(name, Type::String, description)
}

// The names and meanings of hashicorp/aws v6 (website/docs/index.html.markdown,
// "assume_role Configuration Block").
fn assume_role() -> NestedBlock {
    NestedBlock::single(
        "assume_role",
        Block::new("IAM role to assume (STS `AssumeRole`) for every AWS call, as hashicorp/aws's `assume_role`.")
            .attribute(Attribute::required(
                "role_arn",
                Type::String,
                "ARN of the role to assume.",
            ))
            .attribute(s("session_name", "Session name. Default `terraform-provider-eksgpu`."))
            .attribute(s("external_id", "External ID the role's trust policy requires.").sensitive())
            .attribute(s(
                "duration",
                "How long the session lasts, as a Go duration from `15m` to `12h` (the role's maximum session \
                 duration caps it). Default: STS's, 1 hour.",
            ))
            .attribute(Attribute::optional(
                "tags",
                Type::map(Type::String),
                "Session tags: up to 50 keys and values the role's policies can read as `aws:PrincipalTag`.",
            ))
            .attribute(Attribute::optional(
                "transitive_tag_keys",
                Type::set(Type::String),
                "Keys of `tags` that stay on the session through further role chaining.",
            ))
            .attribute(s(
                "source_identity",
                "Source identity recorded in CloudTrail and kept through role chaining (2 to 64 characters of \
                 letters, digits and `_+=,.@-`).",
            )),
    )
}

// hashicorp/aws v6 "assume_role_with_web_identity Configuration Block".
fn assume_role_with_web_identity() -> NestedBlock {
    NestedBlock::single(
        "assume_role_with_web_identity",
        Block::new(
            "IAM role to assume with an OIDC token (STS `AssumeRoleWithWebIdentity`), as hashicorp/aws's block of the \
             same name, e.g. from a CI system's identity token. Its credentials are the base ones: with \
             `assume_role` too, they assume that role.",
        )
        .attribute(Attribute::required(
            "role_arn",
            Type::String,
            "ARN of the role to assume.",
        ))
        .attribute(s("session_name", "Session name. Default `terraform-provider-eksgpu`."))
        .attribute(
            s(
                "web_identity_token",
                "The OIDC token. Conflicts with `web_identity_token_file`.",
            )
            .sensitive(),
        )
        .attribute(s(
            "web_identity_token_file",
            "Path of a file holding the OIDC token, read at each renewal (tokens projected into pods rotate).",
        ))
        .attribute(s(
            "duration",
            "How long the session lasts, as a Go duration from `15m` to `12h`. Default: STS's, 1 hour.",
        )),
    )
}

// hashicorp/kubernetes v2 provider block (website/docs/index.html.markdown, "Argument Reference").
fn kubernetes() -> NestedBlock {
    NestedBlock::single(
        "kubernetes",
        Block::new(
            "How to reach the clusters' Kubernetes API. By default the provider finds each cluster itself: endpoint \
             and CA from EKS `DescribeCluster`, and an EKS IAM token as `aws eks get-token` makes. With `host`, the \
             credential is `token`, else what `exec` prints, and/or `client_certificate`; with none of them an EKS \
             IAM token.",
        )
        .attribute(s("host", "API server URL (`https://…`)."))
        .attribute(s("cluster_ca_certificate", "PEM CA bundle of the API server."))
        .attribute(s("token", "Bearer token.").sensitive())
        .attribute(s(
            "client_certificate",
            "PEM client certificate for TLS client authentication (with `client_key`).",
        ))
        .attribute(s("client_key", "PEM private key of `client_certificate`.").sensitive())
        .attribute(Attribute::optional(
            "insecure",
            Type::Bool,
            "Skip TLS verification of the API server. For test clusters only.",
        ))
        .attribute(s("config_path", "Path to a kubeconfig file."))
        .attribute(s("config_context", "Context of the kubeconfig to use."))
        .block(NestedBlock::single(
            "exec",
            Block::new(
                "A client-go credential plugin, e.g. `aws eks get-token`: the command prints an `ExecCredential` \
                 whose bearer token (or client certificate) the provider uses until its `expirationTimestamp`. Needs \
                 `host`; conflicts with `token`.",
            )
            .attribute(Attribute::required(
                "api_version",
                Type::String,
                "`apiVersion` of the `ExecCredential`: `client.authentication.k8s.io/v1` or \
                 `client.authentication.k8s.io/v1beta1`.",
            ))
            .attribute(Attribute::required(
                "command",
                Type::String,
                "The command, found on `PATH` unless a path.",
            ))
            .attribute(Attribute::optional("args", Type::list(Type::String), "Its arguments."))
            .attribute(Attribute::optional(
                "env",
                Type::map(Type::String),
                "Environment variables set for it, on top of the provider's own.",
            )),
        )),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_required_attribute_set_to_null_is_missing_configuration() {
        let role = |arn: Value| {
            Value::object([
                ("role_arn", arn),
                ("session_name", Value::Null),
                ("external_id", Value::Null),
            ])
        };
        let mut d = Diagnostics::new();
        check_config(&Value::object([("assume_role", role(Value::Null))]), &mut d);
        let found: Vec<_> = d
            .iter()
            .map(|d| (d.summary.as_str(), d.path.as_ref().map(ToString::to_string)))
            .collect();
        assert_eq!(
            found,
            [(
                "Missing Configuration for Required Attribute",
                Some("assume_role.role_arn".to_owned())
            )]
        );
        // Unknown (e.g. from a resource not applied yet) is checked once known.
        let mut d = Diagnostics::new();
        check_config(&Value::object([("assume_role", role(Value::Unknown))]), &mut d);
        assert!(d.is_empty(), "{d:?}");
    }
}
