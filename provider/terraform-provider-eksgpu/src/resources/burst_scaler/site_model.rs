//! The site blocks ↔ [`Site`], exactly (defaults planned by the framework).

use eksgpu_core::burst::{AuthenticationRef, AwsSigV4, SecretAuth, Site, TRIGGER_AUTHENTICATION};
use eksgpu_framework::model::{ModelError, Obj, ObjBuilder};
use eksgpu_tfplugin::Value;

/// The site block `name` of `o`, `None` when absent.
pub(crate) fn read(o: &Obj<'_>, name: &str) -> Result<Option<Site>, ModelError> {
    let Some(s) = o.block(name)? else {
        return Ok(None);
    };
    Ok(Some(Site {
        address: s.get("address")?,
        namespace: s.get("namespace")?,
        custom_headers: s.get("custom_headers")?,
        query_parameters: s.get("query_parameters")?,
        unsafe_ssl: s.get::<Option<bool>>("unsafe_ssl")?.unwrap_or(false),
        authentication_ref: s
            .block("authentication_ref")?
            .map(|r| -> Result<_, ModelError> {
                Ok(AuthenticationRef {
                    name: r.get("name")?,
                    kind: r
                        .get::<Option<String>>("kind")?
                        .unwrap_or_else(|| TRIGGER_AUTHENTICATION.into()),
                    auth_modes: r.get("auth_modes")?,
                })
            })
            .transpose()?,
        secret_auth: s
            .block("secret_auth")?
            .map(|a| -> Result<_, ModelError> {
                Ok(SecretAuth {
                    mode: a.get("mode")?,
                    secret_name: a.get("secret_name")?,
                    keys: a.get("keys")?,
                })
            })
            .transpose()?,
        aws_sigv4: s
            .block("aws_sigv4")?
            .map(|a| -> Result<_, ModelError> {
                Ok(AwsSigV4 {
                    region: a.get("region")?,
                    role_arn: a.get("role_arn")?,
                    identity_owner: a.get("identity_owner")?,
                })
            })
            .transpose()?,
    }))
}

/// A site as its block (the list of at most one Terraform holds).
pub(crate) fn write(s: Option<&Site>) -> Option<Value> {
    let s = s?;
    Some(
        ObjBuilder::new()
            .set("address", s.address.clone())
            .set("namespace", s.namespace.clone())
            .set("custom_headers", s.custom_headers.clone())
            .set("query_parameters", s.query_parameters.clone())
            .set("unsafe_ssl", s.unsafe_ssl)
            .one(
                "authentication_ref",
                s.authentication_ref.as_ref().map(|r| {
                    ObjBuilder::new()
                        .set("name", r.name.clone())
                        .set("kind", r.kind.clone())
                        .set("auth_modes", r.auth_modes.clone())
                        .build()
                }),
            )
            .one(
                "secret_auth",
                s.secret_auth.as_ref().map(|a| {
                    ObjBuilder::new()
                        .set("mode", a.mode.clone())
                        .set("secret_name", a.secret_name.clone())
                        .set("keys", a.keys.clone())
                        .build()
                }),
            )
            .one(
                "aws_sigv4",
                s.aws_sigv4.as_ref().map(|a| {
                    ObjBuilder::new()
                        .set("region", a.region.clone())
                        .set("role_arn", a.role_arn.clone())
                        .set("identity_owner", a.identity_owner.clone())
                        .build()
                }),
            )
            .build(),
    )
}
