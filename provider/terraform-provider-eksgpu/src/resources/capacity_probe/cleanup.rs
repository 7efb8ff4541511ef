//! Deleting what a probe made: its pod, its NodePool and the NodeClaims Karpenter made for the
//! NodePool, and waiting until those NodeClaims are gone (Karpenter terminates the instance
//! before it removes a NodeClaim's `karpenter.sh/termination` finalizer). It runs after every
//! probe, also after a failure, a timeout or Ctrl-C, so it never listens to Terraform's stop:
//! it has its own deadline.

use std::time::{Duration, Instant};

use eksgpu_cloud::kube::{Cluster, KubeError};
use eksgpu_core::kinds::{self, labels};
use eksgpu_core::ownership::Owner;
use eksgpu_core::probe::{self, Probe};
use serde_json::Value;

/// How long Karpenter may take to drain and terminate the node (EC2 terminates in a minute or
/// two; drain of a pause pod is immediate).
pub(super) const DEADLINE: Duration = Duration::from_secs(10 * 60);
pub(super) const POLL: Duration = Duration::from_secs(2);

/// Whether `o` is this probe's (its labels name it), and, when `token` is given, written by the
/// instance with that `owner_token`.
pub(super) fn ours(o: &Value, p: &Probe, token: Option<&str>) -> bool {
    let probe_matches = matches!(
        Owner::of_object(o),
        Owner::CapacityProbe { cluster, name } if labels::is_cluster(&cluster, &p.cluster_name) && name == p.name
    );
    let token_matches = token.is_none_or(|t| o["metadata"]["labels"][labels::OWNER_TOKEN] == t);
    probe_matches && token_matches
}

/// The NodeClaims Karpenter made for the probe's NodePool: labelled `karpenter.sh/nodepool` (the
/// label kubernetes-sigs/karpenter v1.14.1 `pkg/utils/nodeclaim` selects a NodePool's claims by)
/// and owned by a NodePool of that name (`nodeclaimtemplate.go` sets the owner reference). A
/// claim with the label that another object owns is not the probe's.
pub(super) async fn claims(cluster: &dyn Cluster, p: &Probe) -> Result<Vec<Value>, KubeError> {
    let pool = probe::object_name(p);
    let owned = |c: &Value| {
        c["metadata"]["ownerReferences"].as_array().is_some_and(|refs| {
            refs.iter()
                .any(|r| r["kind"] == "NodePool" && r["name"] == pool.as_str())
        })
    };
    Ok(cluster
        .list(&kinds::NODE_CLAIM, &format!("karpenter.sh/nodepool={pool}"))
        .await?
        .into_iter()
        .filter(owned)
        .collect())
}

/// On the probe's NodePool: when its run last said it is alive (Unix seconds), every
/// [`HEARTBEAT`]. A NodePool of this probe not heard from for [`STALE`] is what a run whose
/// provider died left; a fresher one is another run's, in progress (from another state).
pub(super) const HEARTBEAT_ANNOTATION: &str = "eksgpu.terraform.io/capacity-probe-heartbeat";
pub(super) const HEARTBEAT: Duration = Duration::from_secs(10);
pub(super) const STALE: Duration = Duration::from_secs(30);

pub(super) fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// How long ago the run that wrote the NodePool `o` last said it is alive; `None` when it never
/// said (then it is stale).
pub(super) fn silent_for(o: &Value) -> Option<Duration> {
    let at: u64 = o["metadata"]["annotations"][HEARTBEAT_ANNOTATION]
        .as_str()?
        .parse()
        .ok()?;
    Some(Duration::from_secs(now_secs().saturating_sub(at)))
}

/// What was left, when something was.
#[derive(Debug)]
pub(super) struct Left(pub String);

/// Deletes the pod and the NodePool if they are this probe's (`token`: only this instance's;
/// `None`: any run of this probe, for what a crashed run left), deletes their NodeClaims, and
/// waits until no NodeClaim is left. Another owner's objects are never touched: they are in the
/// returned warnings.
pub(super) async fn clean(cluster: &dyn Cluster, p: &Probe, token: Option<&str>) -> Result<Vec<String>, Left> {
    let name = probe::object_name(p);
    let fail = |what: &str, e: KubeError| Left(format!("{what}: {e}"));
    let mut kept = Vec::new();
    let mut pool_kept = false;
    for (kind, ns) in [(&kinds::POD, Some(p.namespace.as_str())), (&kinds::NODE_POOL, None)] {
        let live = cluster
            .get(kind, ns, &name)
            .await
            .map_err(|e| fail(&format!("reading {} {name}", kind.kind), e))?;
        match live {
            None => {}
            Some(o) if ours(&o, p, token) => {
                cluster
                    .delete(kind, ns, &name)
                    .await
                    .map_err(|e| fail(&format!("deleting {} {name}", kind.kind), e))?;
            }
            Some(o) => {
                pool_kept |= *kind == kinds::NODE_POOL;
                kept.push(format!(
                    "{} {name} belongs to {}: left untouched",
                    kind.kind,
                    Owner::of_object(&o)
                ));
            }
        }
    }
    if pool_kept {
        // Not our NodePool: neither are its NodeClaims.
        return Ok(kept);
    }
    let deadline = Instant::now() + DEADLINE;
    let mut asked = Vec::new();
    loop {
        let left = claims(cluster, p)
            .await
            .map_err(|e| fail("listing the NodeClaims", e))?;
        if left.is_empty() {
            return Ok(kept);
        }
        // Deleting a NodeClaim is how Karpenter's docs say to remove its node; the NodePool's
        // deletion also reaches them through their owner reference.
        for c in &left {
            let n = c["metadata"]["name"].as_str().unwrap_or_default().to_owned();
            if c["metadata"]["deletionTimestamp"].is_null() && !asked.contains(&n) {
                cluster
                    .delete(&kinds::NODE_CLAIM, None, &n)
                    .await
                    .map_err(|e| fail(&format!("deleting NodeClaim {n}"), e))?;
                asked.push(n);
            }
        }
        if Instant::now() >= deadline {
            let names: Vec<String> = left
                .iter()
                .map(|c| {
                    format!(
                        "{} ({})",
                        c["metadata"]["name"].as_str().unwrap_or_default(),
                        c["status"]["providerID"].as_str().unwrap_or("no instance yet")
                    )
                })
                .collect();
            return Err(Left(format!(
                "NodeClaim {} still exists {} minutes after its deletion: Karpenter has not terminated the \
                 instance yet. Check `kubectl describe nodeclaim` and the Karpenter logs; the next apply or \
                 destroy of this probe deletes again and waits.",
                names.join(", "),
                DEADLINE.as_secs() / 60
            )));
        }
        tokio::time::sleep(POLL).await;
    }
}
