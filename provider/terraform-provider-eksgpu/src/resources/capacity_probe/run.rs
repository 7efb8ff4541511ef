//! One run of a probe: the objects applied, the cluster watched until the outcome is known or
//! the timeout passes, and everything deleted again, whatever happened.

use std::time::{Duration, Instant};

use eksgpu_cloud::kube::{ApplyOptions, Cluster, KubeError};
use eksgpu_core::kinds;
use eksgpu_core::ownership::{Owner, stamp};
use eksgpu_core::probe::{self, Observation, Outcome, Probe, ProbeResult, Watched};
use eksgpu_tfplugin::{AttributePath, Context, Diagnostic, Diagnostics};
use serde_json::Value;

use super::cleanup::{self, POLL};
use crate::diagnostics;

/// Where client-go's event recorder files events about cluster-scoped objects (NodePools,
/// NodeClaims): `metav1.NamespaceDefault` (k8s.io/client-go tools/record/event.go `makeEvent`).
const CLUSTER_EVENTS: &str = "default";

/// A finished run: the outcome, and how long a ready node took.
pub(super) struct Finished {
    pub outcome: Outcome,
    pub ready_after: Option<Duration>,
}

fn kube(what: &str, e: &KubeError) -> Diagnostic {
    diagnostics::kube_failed(e, what, AttributePath::root())
}

/// What the cluster holds of an earlier run of this probe whose provider died (its NodePool not
/// heard from for [`cleanup::STALE`], or a pod without its NodePool) is removed first; a run in
/// progress elsewhere, or anything of another owner under the probe's names, stops this run
/// before a write.
async fn clear_the_way(cluster: &dyn Cluster, p: &Probe, diags: &mut Diagnostics) -> bool {
    let name = probe::object_name(p);
    let mut leftover = false;
    for (kind, ns) in [(&kinds::NODE_POOL, None), (&kinds::POD, Some(p.namespace.as_str()))] {
        match cluster.get(kind, ns, &name).await {
            Ok(None) => {}
            Ok(Some(o)) if cleanup::ours(&o, p, None) => {
                let silent = cleanup::silent_for(&o);
                if *kind == kinds::NODE_POOL
                    && let Some(s) = silent.filter(|s| *s < cleanup::STALE)
                {
                    diags.error(
                        "Another run of this probe is in progress",
                        format!(
                            "NodePool {name} was written by a run of probe {:?} that was alive {}s ago                              (owner token {}), from another Terraform state or workspace. This run launched                              nothing; wait for that run to end, or give this probe another `name`.",
                            p.name,
                            s.as_secs(),
                            o["metadata"]["labels"][eksgpu_core::kinds::labels::OWNER_TOKEN]
                                .as_str()
                                .unwrap_or("none")
                        ),
                    );
                    return false;
                }
                leftover = true;
            }
            Ok(Some(o)) => {
                diags.error(
                    format!("{} {name} is not this probe's", kind.kind),
                    format!(
                        "It belongs to {}; the probe leaves it untouched and launched nothing. Give the probe \
                         another `name`.",
                        Owner::of_object(&o)
                    ),
                );
                return false;
            }
            Err(e) => {
                diags.push(kube(&format!("reading {} {name}", kind.kind), &e));
                return false;
            }
        }
    }
    if !leftover {
        return true;
    }
    match cleanup::clean(cluster, p, None).await {
        Ok(_) => {
            diags.warning(
                "Removed what an earlier run of this probe left",
                format!(
                    "NodePool or pod {name} of an earlier run of this probe (its provider stopped before it \
                     could clean up) was deleted and its NodeClaims are gone; this run starts afresh."
                ),
            );
            true
        }
        Err(cleanup::Left(why)) => {
            diags.error("An earlier run of this probe could not be cleaned up", why);
            false
        }
    }
}

/// UIDs of the events about this probe's NodeClaims already there (from an earlier run of the
/// same name): they say nothing about this one.
async fn events_before(cluster: &dyn Cluster, p: &Probe) -> Result<Vec<String>, KubeError> {
    let prefix = format!("{}-", probe::object_name(p));
    Ok(cluster
        .list_by_fields(&kinds::EVENT, CLUSTER_EVENTS, "involvedObject.kind=NodeClaim")
        .await?
        .iter()
        .filter(|e| {
            e["involvedObject"]["name"]
                .as_str()
                .is_some_and(|n| n.starts_with(&prefix))
        })
        .filter_map(|e| e["metadata"]["uid"].as_str().map(str::to_owned))
        .collect())
}

/// One look: the NodePool, the pod, the NodeClaims and the events about them.
async fn look(cluster: &dyn Cluster, p: &Probe, before: &[String]) -> Result<Observation, KubeError> {
    let name = probe::object_name(p);
    let pool = cluster
        .get(&kinds::NODE_POOL, None, &name)
        .await?
        .unwrap_or(Value::Null);
    let pod = cluster
        .get(&kinds::POD, Some(&p.namespace), &name)
        .await?
        .unwrap_or(Value::Null);
    let claims = cleanup::claims(cluster, p).await?;
    let mut events = cluster
        .list_by_fields(
            &kinds::EVENT,
            &p.namespace,
            &format!("involvedObject.kind=Pod,involvedObject.name={name}"),
        )
        .await?;
    events.extend(
        cluster
            .list_by_fields(
                &kinds::EVENT,
                CLUSTER_EVENTS,
                &format!("involvedObject.kind=NodePool,involvedObject.name={name}"),
            )
            .await?,
    );
    events.extend(
        cluster
            .list_by_fields(&kinds::EVENT, CLUSTER_EVENTS, "involvedObject.kind=NodeClaim")
            .await?,
    );
    Ok(probe::observe(Watched {
        node_pool: &pool,
        pod: &pod,
        claims: &claims,
        events: &events,
        events_before: before,
        single_offering: p.single_offering(),
    }))
}

enum Watch {
    Done(Finished),
    Stopped,
    Failed(Diagnostic),
}

/// Looks every [`POLL`] until the outcome is known, the timeout passes or Terraform stops the
/// provider. A failed look is retried twice before the run gives up.
async fn watch(
    ctx: &Context,
    cluster: &dyn Cluster,
    p: &Probe,
    beat: &Heartbeat<'_>,
    before: &[String],
    start: Instant,
) -> Watch {
    let mut last = Observation::Waiting {
        status: "no look yet".into(),
        failure: None,
    };
    let mut failures = 0;
    loop {
        let looked = tokio::select! {
            r = look(cluster, p, before) => r,
            () = ctx.cancelled() => return Watch::Stopped,
        };
        match looked {
            Ok(Observation::Done(outcome)) => {
                let ready_after = (outcome.result == ProbeResult::Provisioned).then(|| start.elapsed());
                return Watch::Done(Finished { outcome, ready_after });
            }
            Ok(waiting) => {
                last = waiting.after(&last);
                failures = 0;
            }
            Err(e) if failures < 2 => {
                tracing::debug!(error = %e, "a look at the probe failed; trying again");
                failures += 1;
            }
            Err(e) => return Watch::Failed(kube("watching the probe's NodeClaim", &e)),
        }
        if start.elapsed() >= p.timeout {
            return Watch::Done(Finished {
                outcome: probe::timed_out(&last, p.timeout),
                ready_after: None,
            });
        }
        if let Err(e) = beat.maybe(cluster).await {
            tracing::debug!(error = %e, "the probe's heartbeat failed; trying again");
        }
        tokio::select! {
            () = tokio::time::sleep(POLL) => {}
            () = ctx.cancelled() => return Watch::Stopped,
        }
    }
}

/// The run's NodePool, written again every [`cleanup::HEARTBEAT`] with the time: how another
/// apply of the same probe tells a live run from what a dead one left.
struct Heartbeat<'a> {
    p: &'a Probe,
    token: &'a str,
    opts: ApplyOptions<'a>,
    last: std::sync::Mutex<Option<Instant>>,
}

impl Heartbeat<'_> {
    fn body(&self) -> Value {
        let mut body = probe::node_pool(self.p);
        stamp(&mut body, self.token);
        body["metadata"]["annotations"] =
            serde_json::json!({cleanup::HEARTBEAT_ANNOTATION: cleanup::now_secs().to_string()});
        body
    }

    async fn write(&self, cluster: &dyn Cluster) -> Result<(), KubeError> {
        let name = probe::object_name(self.p);
        cluster
            .apply(&kinds::NODE_POOL, None, &name, &self.body(), self.opts)
            .await?;
        if let Ok(mut last) = self.last.lock() {
            *last = Some(Instant::now());
        }
        Ok(())
    }

    async fn maybe(&self, cluster: &dyn Cluster) -> Result<(), KubeError> {
        let due = self
            .last
            .lock()
            .map_or(true, |l| l.is_none_or(|t| t.elapsed() >= cleanup::HEARTBEAT));
        if due { self.write(cluster).await } else { Ok(()) }
    }
}

/// Applies the NodePool (with its first heartbeat), then the pod, with the instance's token.
async fn apply(cluster: &dyn Cluster, beat: &Heartbeat<'_>) -> Result<(), Diagnostic> {
    let name = probe::object_name(beat.p);
    if let Err(e) = beat.write(cluster).await {
        return Err(kube(&format!("applying NodePool {name}"), &e));
    }
    let mut pod = probe::pod(beat.p);
    stamp(&mut pod, beat.token);
    match cluster
        .apply(&kinds::POD, Some(&beat.p.namespace), &name, &pod, beat.opts)
        .await
    {
        Ok(_) => Ok(()),
        Err(e) => Err(kube(&format!("applying Pod {name}"), &e)),
    }
}

/// Runs the probe. `None` when it did not finish (stopped, refused, or failed before an
/// outcome): what it made is deleted again and the diagnostics say why. A finished run whose
/// clean-up failed is returned with an error: Terraform then keeps it (tainted), and its
/// destroy cleans up again.
pub(super) async fn run(
    ctx: &Context,
    cluster: &dyn Cluster,
    p: &Probe,
    token: &str,
    opts: ApplyOptions<'_>,
    diags: &mut Diagnostics,
) -> Option<Finished> {
    if !clear_the_way(cluster, p, diags).await {
        return None;
    }
    let before = match events_before(cluster, p).await {
        Ok(b) => b,
        Err(e) => {
            diags.push(kube("listing the events about NodeClaims", &e));
            return None;
        }
    };
    let start = Instant::now();
    let beat = Heartbeat {
        p,
        token,
        opts,
        last: std::sync::Mutex::new(None),
    };
    let watched = match apply(cluster, &beat).await {
        Ok(()) => watch(ctx, cluster, p, &beat, &before, start).await,
        Err(d) => Watch::Failed(d),
    };
    let cleaned = cleanup::clean(cluster, p, Some(token)).await;
    let left = match cleaned {
        Ok(kept) => {
            for k in kept {
                diags.warning("Left in place", k);
            }
            None
        }
        Err(cleanup::Left(why)) => Some(why),
    };
    match watched {
        Watch::Done(f) => {
            if let Some(why) = left {
                diags.error("The probe's node may still be running", why);
            }
            Some(f)
        }
        Watch::Stopped => {
            let gone = left.map_or_else(
                || {
                    "Its pod and NodePool were deleted and its NodeClaims are gone: nothing it launched is left."
                        .to_owned()
                },
                |why| format!("Cleaning up did not finish: {why}"),
            );
            diags.error("Terraform asked the provider to stop: the probe was cancelled", gone);
            None
        }
        Watch::Failed(d) => {
            diags.push(d);
            if let Some(why) = left {
                diags.error("The probe's node may still be running", why);
            }
            None
        }
    }
}
