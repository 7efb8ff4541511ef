//! The TriggerAuthentications a burst scaler renders (`secret_auth`, `aws_sigv4`) and the objects
//! its `authentication_ref`s name. Like the ScaledObject, a TriggerAuthentication is written or
//! deleted only while it is this scaler's (labels, then the owner token), and an error names the
//! owner of one that is not.

use eksgpu_cloud::kube::{ApplyOptions, Cluster, KubeError};
use eksgpu_core::burst::{self, BurstScaler, CLUSTER_TRIGGER_AUTHENTICATION, SiteId};
use eksgpu_core::fields::project_ours;
use eksgpu_core::kinds::labels;
use eksgpu_core::ownership::Owner;
use eksgpu_tfplugin::{AttributePath, Context, Diagnostic, Diagnostics};
use serde_json::Value;

use super::{cancellable, with_token};
use crate::diagnostics;

/// Whether `o` is one of this scaler's objects (its cluster and its name in the labels), or
/// one an older version labelled without saying whose.
pub(super) fn ours(o: &Owner, b: &BurstScaler) -> bool {
    match o {
        Owner::BurstScaler { cluster, name } => labels::is_cluster(cluster, &b.cluster_name) && *name == b.name,
        Owner::ProviderUnknown => true,
        _ => false,
    }
}

fn token_of(o: &Value) -> Option<&str> {
    o["metadata"]["labels"][labels::OWNER_TOKEN].as_str()
}

/// The path of a site's authentication block, for diagnostics.
fn site_path(b: &BurstScaler, id: SiteId) -> AttributePath {
    let block = b.site(id).map_or("secret_auth", |s| {
        if s.aws_sigv4.is_some() {
            "aws_sigv4"
        } else {
            "secret_auth"
        }
    });
    AttributePath::attr(id.block()).index(0).attribute(block)
}

async fn get_ta(ctx: &Context, cluster: &dyn Cluster, b: &BurstScaler, id: SiteId) -> Result<Option<Value>, KubeError> {
    let name = burst::trigger_authentication_name(b, id);
    cancellable(
        ctx,
        "talking to the cluster",
        cluster.get(&burst::TRIGGER_AUTHENTICATION_KIND, Some(&b.namespace), &name),
    )
    .await
}

fn read_failed(e: &KubeError, diags: &mut Diagnostics) {
    diags.push(diagnostics::kube_failed(
        e,
        "reading a TriggerAuthentication",
        AttributePath::root(),
    ));
}

/// The scaler's own TriggerAuthentications its live ScaledObject references, projected to the
/// provider's fields, by site; `None` after a failure (a diagnostic).
pub(super) async fn read_rendered(
    ctx: &Context,
    cluster: &dyn Cluster,
    b: &BurstScaler,
    so: &Value,
    field_manager: &str,
    diags: &mut Diagnostics,
) -> Option<[Option<Value>; 2]> {
    let mut out = [None, None];
    for id in SiteId::BOTH {
        let referenced = so["spec"]["triggers"].as_array().into_iter().flatten().any(|t| {
            t["name"] == id.trigger() && t["authenticationRef"]["name"] == burst::trigger_authentication_name(b, id)
        });
        if !referenced {
            continue;
        }
        match get_ta(ctx, cluster, b, id).await {
            Ok(Some(ta)) if ours(&Owner::of_object(&ta), b) => {
                let rendered = burst::trigger_authentication(b, id);
                out[id.index()] = Some(project_ours(&ta, field_manager, rendered.as_ref()));
            }
            Ok(_) => {}
            Err(e) => {
                read_failed(&e, diags);
                return None;
            }
        }
    }
    Some(out)
}

/// Refuses (an error at the site's block) a TriggerAuthentication the scaler would write that
/// exists and is not its own. `false` when the write must not go on.
pub(super) async fn check_writable(
    ctx: &Context,
    cluster: &dyn Cluster,
    b: &BurstScaler,
    diags: &mut Diagnostics,
) -> bool {
    for id in SiteId::BOTH {
        if burst::trigger_authentication(b, id).is_none() {
            continue;
        }
        match get_ta(ctx, cluster, b, id).await {
            Ok(Some(ta)) => {
                let o = Owner::of_object(&ta);
                if !ours(&o, b) {
                    let name = burst::trigger_authentication_name(b, id);
                    diags.error_at(
                        site_path(b, id),
                        format!("TriggerAuthentication {}/{name} is not this scaler's", b.namespace),
                        format!(
                            "The {} needs a TriggerAuthentication named {name}, which already exists and belongs \
                             to {o}; this scaler leaves it untouched. Delete or rename that object, or reference \
                             it as it is with `authentication_ref {{ name = \"{name}\" }}`.",
                            id.words()
                        ),
                    );
                    return false;
                }
            }
            Ok(None) => {}
            Err(e) => {
                read_failed(&e, diags);
                return false;
            }
        }
    }
    true
}

/// The apply-time checks of each `authentication_ref` against the object it names (EKSGPU240,
/// 241, 247). `false` when one is an error.
pub(super) async fn check_referenced(
    ctx: &Context,
    cluster: &dyn Cluster,
    b: &BurstScaler,
    acknowledged: &[eksgpu_core::rules::Code],
    diags: &mut Diagnostics,
) -> bool {
    let mut ok = true;
    for id in SiteId::BOTH {
        let Some(r) = b.site(id).and_then(|s| s.authentication_ref.as_ref()) else {
            continue;
        };
        let (kind, ns) = if r.kind == CLUSTER_TRIGGER_AUTHENTICATION {
            (&burst::CLUSTER_TRIGGER_AUTHENTICATION_KIND, None)
        } else {
            (&burst::TRIGGER_AUTHENTICATION_KIND, Some(b.namespace.as_str()))
        };
        let found = match cancellable(ctx, "talking to the cluster", cluster.get(kind, ns, &r.name)).await {
            Ok(found) => found,
            Err(e) => {
                diags.push(diagnostics::kube_failed(
                    &e,
                    &format!("reading the {} {}", kind.kind, r.name),
                    AttributePath::root(),
                ));
                return false;
            }
        };
        let found = eksgpu_core::rules::unanswered(burst::check_referenced(b, id, found.as_ref()), acknowledged);
        for v in found {
            ok &= v.severity != eksgpu_core::rules::Severity::Error;
            diags.push(diagnostics::violation(&v));
        }
    }
    ok
}

/// Applies the scaler's TriggerAuthentications (after [`check_writable`]). Returns the names of
/// those it created (not there before), which a failed create deletes again.
pub(super) async fn apply(
    ctx: &Context,
    cluster: &dyn Cluster,
    b: &BurstScaler,
    token: &str,
    opts: ApplyOptions<'_>,
    diags: &mut Diagnostics,
) -> Result<Vec<SiteId>, Vec<SiteId>> {
    let mut made = Vec::new();
    for id in SiteId::BOTH {
        let Some(ta) = burst::trigger_authentication(b, id) else {
            continue;
        };
        let name = burst::trigger_authentication_name(b, id);
        let existed = match get_ta(ctx, cluster, b, id).await {
            Ok(found) => found.is_some(),
            Err(e) => {
                read_failed(&e, diags);
                return Err(made);
            }
        };
        let applied = cancellable(
            ctx,
            "talking to the cluster",
            cluster.apply(
                &burst::TRIGGER_AUTHENTICATION_KIND,
                Some(&b.namespace),
                &name,
                &with_token(ta, token),
                opts,
            ),
        )
        .await;
        if let Err(e) = applied {
            diags.push(diagnostics::kube_failed(
                &e,
                &format!("applying TriggerAuthentication {}/{name}", b.namespace),
                site_path(b, id),
            ));
            return Err(made);
        }
        if !existed {
            made.push(id);
        }
    }
    Ok(made)
}

/// Deletes the scaler's TriggerAuthentication of each site in `sites` while it is this instance's
/// (`token`: the instance's owner token; `None` for states written before tokens). One another
/// owner or a successor instance took over is left, with a warning.
pub(super) async fn delete(
    ctx: &Context,
    cluster: &dyn Cluster,
    b: &BurstScaler,
    sites: &[SiteId],
    token: Option<&str>,
    diags: &mut Diagnostics,
) -> bool {
    for id in sites {
        let name = burst::trigger_authentication_name(b, *id);
        let live = match get_ta(ctx, cluster, b, *id).await {
            Ok(Some(live)) => live,
            Ok(None) => continue,
            Err(e) => {
                read_failed(&e, diags);
                return false;
            }
        };
        let o = Owner::of_object(&live);
        let successor = token.is_some_and(|mine| token_of(&live).is_some_and(|t| t != mine));
        if !ours(&o, b) || successor {
            let whose = if successor {
                "the instance of this scaler that replaced this one".to_owned()
            } else {
                o.to_string()
            };
            diags.push(Diagnostic::warning(
                format!("TriggerAuthentication {}/{name} left in place", b.namespace),
                format!("It now belongs to {whose}, so it was not deleted."),
            ));
            continue;
        }
        let deleted = cancellable(
            ctx,
            "talking to the cluster",
            cluster.delete(&burst::TRIGGER_AUTHENTICATION_KIND, Some(&b.namespace), &name),
        )
        .await;
        if let Err(e) = deleted {
            diags.push(diagnostics::kube_failed(
                &e,
                &format!("deleting TriggerAuthentication {}/{name}", b.namespace),
                AttributePath::root(),
            ));
            return false;
        }
    }
    true
}

/// The sites whose TriggerAuthentication `prior` rendered and `planned` does not.
pub(super) fn no_longer_rendered(prior: Option<&BurstScaler>, planned: Option<&BurstScaler>) -> Vec<SiteId> {
    let renders = |b: Option<&BurstScaler>, id| b.is_some_and(|b| burst::trigger_authentication(b, id).is_some());
    SiteId::BOTH
        .into_iter()
        .filter(|id| renders(prior, *id) && !renders(planned, *id))
        .collect()
}
