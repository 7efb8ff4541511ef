//! Karpenter and Auto Mode pools in the cluster: NodePools and node classes
//! read back through the provider's field manager, and deleted NodePools first.

use eksgpu_cloud::kube::{Cluster, KubeError};
use eksgpu_core::fields::project_ours;
use eksgpu_core::kinds;
use eksgpu_core::model::{NodeStrategy, Pool};
use eksgpu_core::readback;
use eksgpu_core::render::{self, Manifest};
use eksgpu_tfplugin::{AttributePath, Context, Diagnostics};

use crate::diagnostics;
use crate::resources::cancellable;

/// Reads one in-cluster pool back: `None` when its NodePool is gone.
pub(super) async fn read_in_cluster_pool(
    ctx: &Context,
    cluster: &dyn Cluster,
    manager: &str,
    s: &NodeStrategy,
    pool: &Pool,
) -> Result<Option<Pool>, KubeError> {
    let mut node_pool = None;
    let mut node_class = None;
    for m in render::pool_manifests(s, pool) {
        let live = cancellable(
            ctx,
            "reading objects",
            cluster.get(&m.kind, m.namespace.as_deref(), &m.name),
        )
        .await?;
        // Our fields: what we own now, and what we rendered (a field another
        // manager took over is still ours to report).
        let projected = live.map(|o| project_ours(&o, manager, Some(&m.body)));
        if m.kind == kinds::NODE_POOL {
            node_pool = projected;
        } else {
            node_class = projected;
        }
    }
    Ok(node_pool.map(|np| readback::read_back_pool(s, pool, &np, node_class.as_ref())))
}

pub(super) async fn fetch_node_class(
    ctx: &Context,
    cluster: &dyn Cluster,
    node_pool: &serde_json::Value,
) -> Result<Option<serde_json::Value>, KubeError> {
    let r = &node_pool["spec"]["template"]["spec"]["nodeClassRef"];
    let kind = match r["group"].as_str() {
        Some(g) if g == kinds::EC2_NODE_CLASS.group => kinds::EC2_NODE_CLASS,
        // The built-in Auto Mode NodeClass is not ours.
        Some(g) if g == kinds::AUTO_MODE_NODE_CLASS.group && r["name"] != "default" => kinds::AUTO_MODE_NODE_CLASS,
        _ => return Ok(None),
    };
    let Some(name) = r["name"].as_str() else {
        return Ok(None);
    };
    cancellable(ctx, "reading node classes", cluster.get(&kind, None, name)).await
}

/// Deletes objects, node pools first; returns the pool names whose objects remain.
pub(super) async fn delete_objects(
    ctx: &Context,
    cluster: &dyn Cluster,
    objects: &[Manifest],
    diags: &mut Diagnostics,
) -> Vec<String> {
    let mut remaining = Vec::new();
    let mut ordered: Vec<&Manifest> = objects.iter().filter(|m| m.kind == kinds::NODE_POOL).collect();
    ordered.extend(objects.iter().filter(|m| m.kind != kinds::NODE_POOL));
    for m in ordered {
        let what = format!("deleting {} {}", m.kind.kind, m.name);
        if let Err(e) = cancellable(ctx, &what, cluster.delete(&m.kind, m.namespace.as_deref(), &m.name)).await {
            diags.push(diagnostics::kube_failed(&e, &what, AttributePath::attr("pool")));
            if !remaining.contains(&m.name) {
                remaining.push(m.name.clone());
            }
        }
    }
    remaining
}
