use std::collections::BTreeMap;

use serde_json::json;

use super::*;
use crate::fields::FieldSet;
use crate::fixture;
use crate::model::Disruption;
use crate::model::GpuOperator;
use crate::render::pool_manifests;

fn strategy(pools: Vec<Pool>) -> NodeStrategy {
    NodeStrategy {
        cluster_name: "gpu".into(),
        name: "genai".into(),
        kubernetes_version: None,
        device_plugin: None,
        gpu_operator: Some(GpuOperator {
            mig_strategy: "single".into(),
            dcgm_exporter: true,
            service_monitor: false,
        }),
        pools,
        default_tags: BTreeMap::new(),
        karpenter_gates: Default::default(),
    }
}

fn karpenter_pool() -> Pool {
    Pool {
        gpu_limit: Some(32),
        labels: BTreeMap::from([("team".into(), "ml".into())]),
        disruption: Some(Disruption {
            consolidation_policy: Some("WhenEmpty".into()),
            consolidate_after: None,
            budgets: Vec::new(),
        }),
        node_class: Some(NodeClass {
            role: Some("NodeRole".into()),
            ..NodeClass::default()
        }),
        ..fixture::pool("inference", Capacity::Karpenter, &["p5.48xlarge"])
    }
}

fn auto_pool() -> Pool {
    Pool {
        name: "auto".into(),
        capacity: Capacity::AutoMode,
        node_class: None,
        managed_node_group: None,
        hybrid: None,
        disruption: None,
        ..karpenter_pool()
    }
}

/// What a server holds after applying the manifests, plus server defaults.
fn served(manifest: &Value) -> Value {
    let mut v = manifest.clone();
    if v["kind"] == "NodePool" {
        if v["spec"]["template"]["spec"].get("expireAfter").is_none() {
            v["spec"]["template"]["spec"]["expireAfter"] = json!("720h");
        }
        if v["spec"]["disruption"].get("budgets").is_none() {
            v["spec"]["disruption"]["budgets"] = json!([{"nodes": "10%"}]);
        }
        if v["spec"]["disruption"].get("consolidationPolicy").is_none() {
            v["spec"]["disruption"]["consolidationPolicy"] = json!("WhenEmptyOrUnderutilized");
            v["spec"]["disruption"]["consolidateAfter"] = json!("0s");
        }
    }
    v
}

fn project(manifest: &Value, live: &Value) -> Value {
    FieldSet::of_value(manifest).project(live).unwrap()
}

#[test]
fn unchanged_objects_read_back_as_the_prior_pool() {
    for pool in [karpenter_pool(), auto_pool()] {
        let s = strategy(vec![pool.clone()]);
        let m = pool_manifests(&s, &pool);
        let np = m.iter().find(|m| m.kind.kind == "NodePool").unwrap();
        let nc = m.iter().find(|m| m.kind.kind != "NodePool");
        let live_np = project(&np.body, &served(&np.body));
        let live_nc = nc.map(|nc| project(&nc.body, &served(&nc.body)));
        assert_eq!(
            read_back_pool(&s, &pool, &live_np, live_nc.as_ref()),
            pool,
            "{}",
            pool.name
        );
    }
}

/// A pool with every NodePool setting of issue #14: limits, weight, expiry and budgets.
fn tuned_pool() -> Pool {
    let mut p = karpenter_pool();
    p.cpu_limit = Some("1000".into());
    p.memory_limit = Some("4000Gi".into());
    p.weight = Some(50);
    p.expire_after = Some("336h".into());
    let nc = p.node_class.as_mut().unwrap();
    nc.metadata_options = Some(crate::model::MetadataOptions {
        http_tokens: None,
        http_put_response_hop_limit: Some(2),
    });
    nc.instance_store_policy = Some("RAID0".into());
    nc.capacity_reservations = vec![crate::model::CapacityReservationTerm {
        id: Some("cr-0123456789abcdef0".into()),
        ..Default::default()
    }];
    p.disruption = Some(Disruption {
        consolidation_policy: Some("WhenEmpty".into()),
        consolidate_after: Some("10m".into()),
        budgets: vec![
            crate::model::Budget {
                nodes: "0".into(),
                schedule: Some("0 9 * * 1-5".into()),
                duration: Some("8h".into()),
                reasons: vec!["Underutilized".into(), "Empty".into()],
            },
            crate::model::Budget {
                nodes: "10%".into(),
                schedule: None,
                duration: None,
                reasons: vec![],
            },
        ],
    });
    p
}

#[test]
fn node_pool_settings_read_back_and_their_edits_are_drift() {
    let pool = tuned_pool();
    let s = strategy(vec![pool.clone()]);
    let m = pool_manifests(&s, &pool);
    let nc = project(&m[0].body, &served(&m[0].body));
    let live = served(&m[1].body);
    assert_eq!(read_back_pool(&s, &pool, &project(&m[1].body, &live), Some(&nc)), pool);

    let mut edited = live.clone();
    edited["spec"]["weight"] = json!(10);
    edited["spec"]["limits"]["memory"] = json!("8000Gi");
    edited["spec"]["template"]["spec"]["expireAfter"] = json!("Never");
    edited["spec"]["disruption"]["budgets"][0]["nodes"] = json!("1");
    let read = read_back_pool(&s, &pool, &project(&m[1].body, &edited), Some(&nc));
    assert_eq!(read.weight, Some(10));
    assert_eq!(read.memory_limit.as_deref(), Some("8000Gi"));
    assert_eq!(read.expire_after.as_deref(), Some("Never"));
    assert_eq!(read.disruption.unwrap().budgets[0].nodes, "1");

    // IMDS: the rendered `required` reads back as unset; a live `optional` is drift.
    let mut live_nc = served(&m[0].body);
    live_nc["spec"]["metadataOptions"]["httpTokens"] = json!("optional");
    let read = read_back_pool(
        &s,
        &pool,
        &project(&m[1].body, &live),
        Some(&project(&m[0].body, &live_nc)),
    );
    let mo = read.node_class.unwrap().metadata_options.unwrap();
    assert_eq!(mo.http_tokens.as_deref(), Some("optional"));
    assert_eq!(mo.http_put_response_hop_limit, Some(2));
}

#[test]
fn an_edited_limit_is_one_field_of_drift() {
    let pool = karpenter_pool();
    let s = strategy(vec![pool.clone()]);
    let m = pool_manifests(&s, &pool);
    let mut live = served(&m[1].body);
    live["spec"]["limits"]["nvidia.com/gpu"] = json!("64");
    let read = read_back_pool(
        &s,
        &pool,
        &project(&m[1].body, &live),
        Some(&project(&m[0].body, &served(&m[0].body))),
    );
    assert_eq!(
        read,
        Pool {
            gpu_limit: Some(64),
            ..pool
        }
    );
}

#[test]
fn a_removed_gpu_taint_and_an_edited_label_read_back() {
    let pool = karpenter_pool();
    let s = strategy(vec![pool.clone()]);
    let m = pool_manifests(&s, &pool);
    let mut live = served(&m[1].body);
    live["spec"]["template"]["spec"]["taints"] = json!([]);
    live["spec"]["template"]["metadata"]["labels"]["team"] = json!("infra");
    let read = read_back_pool(&s, &pool, &project(&m[1].body, &live), Some(&m[0].body));
    assert!(!read.gpu_taint);
    assert_eq!(read.labels["team"], "infra");
}

#[test]
fn import_reconstructs_the_pool() {
    let pool = karpenter_pool();
    let s = strategy(vec![pool.clone()]);
    let m = pool_manifests(&s, &pool);
    let imported = import_pool(&s, "inference", false, &m[1].body, Some(&m[0].body));
    assert_eq!(imported, pool);
    let auto = auto_pool();
    let s = strategy(vec![auto.clone()]);
    let m = pool_manifests(&s, &auto);
    assert_eq!(import_pool(&s, "auto", false, &m[0].body, None), auto);
}

#[test]
fn import_of_a_bottlerocket_pool_keeps_the_provider_label_out_of_labels() {
    let mut pool = karpenter_pool();
    if let Some(nc) = &mut pool.node_class {
        nc.ami_alias = Some("bottlerocket@latest".into());
    }
    let s = strategy(vec![pool.clone()]);
    let m = pool_manifests(&s, &pool);
    assert_eq!(
        m[1].body["spec"]["template"]["metadata"]["labels"]["nvidia.com/gpu.deploy.device-plugin"],
        "false"
    );
    let imported = import_pool(&s, "inference", false, &m[1].body, Some(&m[0].body));
    assert_eq!(imported, pool);
}
