//! The site blocks of `eksgpu_burst_scaler`, `on_prem_prometheus {}` and `cloud_prometheus {}`:
//! one Prometheus per site, and how KEDA authenticates to it (kedacore/keda v2.20.2
//! pkg/scalers/prometheus_scaler.go and pkg/scalers/authentication/; ScaledObject and
//! TriggerAuthentication CRDs of the same tag).

use eksgpu_core::burst::{CLUSTER_TRIGGER_AUTHENTICATION, MODES, SiteId, TRIGGER_AUTHENTICATION};
use eksgpu_core::validate;
use eksgpu_framework::validators;
use eksgpu_tfplugin::schema::{Attribute, Block, NestedBlock};
use eksgpu_tfplugin::{Type, Value};

use crate::resources::checks;

fn empty_map() -> Value {
    Value::Map(Default::default())
}

/// The block of one site.
pub(crate) fn site(id: SiteId) -> NestedBlock {
    let (what, query) = match id {
        SiteId::OnPrem => ("on-prem", "`on_prem_waiting_query`"),
        SiteId::Cloud => ("cloud", "`cloud_running_query`"),
    };
    NestedBlock::optional_one(
        id.block(),
        Block::new(&format!(
            "The {what} site's Prometheus, which KEDA asks {query} (trigger `{}`). Without the block it is \
             `prometheus_address`, without credentials.",
            id.trigger()
        ))
        .attribute(
            Attribute::optional(
                "address",
                Type::String,
                "Prometheus URL (`serverAddress`). Default `prometheus_address`. For Amazon Managed Prometheus the \
                 workspace endpoint, `https://aps-workspaces.<region>.amazonaws.com/workspaces/<workspace-id>`.",
            )
            .validate(checks::string(
                "An http(s) URL without user-info.",
                validate::prometheus_address,
            )),
        )
        .attribute(
            Attribute::optional(
                "namespace",
                Type::String,
                "Tenant namespace sent as the `namespace` query parameter (Thanos Querier and similar).",
            )
            .validate(checks::string("URL-safe characters.", validate::prometheus_namespace)),
        )
        .attribute(
            Attribute::optional(
                "custom_headers",
                Type::map(Type::String),
                "Headers sent with every query (`customHeaders`), e.g. `{ \"X-Scope-OrgID\" = \"tenant-a\" }`. \
                 Plain text in the state and the ScaledObject: credentials go in `secret_auth`. Default `{}`.",
            )
            .default(empty_map())
            .validate(checks::keys("HTTP header names.", validate::custom_header_name))
            .validate(checks::each("Header values.", validate::custom_header_value)),
        )
        .attribute(
            Attribute::optional(
                "query_parameters",
                Type::map(Type::String),
                "Query parameters added to every query (`queryParameters`, KEDA 2.13+). Default `{}`.",
            )
            .default(empty_map())
            .validate(checks::keys("Query parameter names.", validate::query_parameter_name))
            .validate(checks::each("Query parameter values.", validate::query_parameter_value)),
        )
        .attribute(
            Attribute::optional(
                "unsafe_ssl",
                Type::Bool,
                "Skip certificate checks (`unsafeSsl`). KEDA ignores it with a `ca`, TLS client authentication \
                 or `aws_sigv4` (EKSGPU242). Default `false`.",
            )
            .default(false),
        )
        .block(authentication_ref())
        .block(secret_auth())
        .block(aws_sigv4()),
    )
}

fn authentication_ref() -> NestedBlock {
    NestedBlock::optional_one(
        "authentication_ref",
        Block::new(
            "A `TriggerAuthentication` (in the scaler's namespace) or `ClusterTriggerAuthentication` that exists \
             already, as the trigger's `authenticationRef`. Apply checks that it exists (EKSGPU247). At most one \
             of `authentication_ref`, `secret_auth` and `aws_sigv4`.",
        )
        .attribute(
            Attribute::required("name", Type::String, "Name of the object.")
                .validate(checks::string("A Kubernetes object name.", validate::object_name)),
        )
        .attribute(
            Attribute::optional(
                "kind",
                Type::String,
                "`TriggerAuthentication` or `ClusterTriggerAuthentication`. Default `TriggerAuthentication`.",
            )
            .default(TRIGGER_AUTHENTICATION)
            .validate(validators::one_of(&[
                TRIGGER_AUTHENTICATION,
                CLUSTER_TRIGGER_AUTHENTICATION,
            ])),
        )
        .attribute(
            Attribute::optional(
                "auth_modes",
                Type::list(Type::String),
                "KEDA's `authModes` for what the object holds: `bearer`, `basic`, `tls`, `custom` (KEDA sends no \
                 credential unless a mode is on; leave empty for a pod identity). Default `[]`.",
            )
            .default(Value::List(Vec::new()))
            .validate(validators::each(validators::one_of(MODES))),
        ),
    )
}

fn secret_auth() -> NestedBlock {
    NestedBlock::optional_one(
        "secret_auth",
        Block::new(
            "Credentials from a Secret in the scaler's namespace: the provider renders and owns a \
             `TriggerAuthentication` `<name>-onprem` / `<name>-cloud` whose `secretTargetRef` points at the \
             Secret's keys, and switches the mode on with `authModes`. Neither the state nor the plan holds a \
             secret: only the Secret's name and key names.",
        )
        .attribute(
            Attribute::required(
                "mode",
                Type::String,
                "`bearer` (`Authorization: Bearer`), `basic`, `tls` (client certificate) or `custom` (a header of \
                 your choosing).",
            )
            .validate(validators::one_of(MODES)),
        )
        .attribute(
            Attribute::required("secret_name", Type::String, "The Secret, in the scaler's namespace.")
                .validate(checks::string("A Kubernetes object name.", validate::object_name)),
        )
        .attribute(
            Attribute::required(
                "keys",
                Type::map(Type::String),
                "KEDA parameter → key of the Secret. bearer: `bearerToken`; basic: `username` (and `password`); \
                 tls: `cert` and `key`; custom: `customAuthHeader` and `customAuthValue`; any mode: `ca` (a CA \
                 bundle to trust), e.g. `{ bearerToken = \"token\" }`.",
            )
            .validate(checks::keys("KEDA parameter names.", validate::keda_auth_parameter))
            .validate(checks::each("Keys of the Secret.", validate::secret_key)),
        ),
    )
}

fn aws_sigv4() -> NestedBlock {
    NestedBlock::optional_one(
        "aws_sigv4",
        Block::new(
            "Amazon Managed Service for Prometheus: queries signed with AWS SigV4 through KEDA's `aws` pod \
             identity (KEDA 2.13+). The provider renders and owns a `TriggerAuthentication` with \
             `podIdentity.provider: aws`; the role needs `aps:QueryMetrics` on the workspace.",
        )
        .attribute(
            Attribute::required(
                "region",
                Type::String,
                "The workspace's region, which signs the queries (`awsRegion`).",
            )
            .validate(checks::string("An AWS Region code.", validate::aws_region)),
        )
        .attribute(
            Attribute::optional(
                "role_arn",
                Type::String,
                "Role KEDA assumes for this site (`podIdentity.roleArn`). Without it KEDA signs with its operator's \
                 own credentials (EKSGPU243).",
            )
            .validate(checks::string("An IAM role ARN.", validate::iam_role_arn)),
        )
        .attribute(
            Attribute::optional(
                "identity_owner",
                Type::String,
                "`keda` (the operator's identity, KEDA's default) or `workload` (the role in the target's \
                 ServiceAccount annotation `eks.amazonaws.com/role-arn`).",
            )
            .validate(validators::one_of(&["keda", "workload"])),
        ),
    )
}
