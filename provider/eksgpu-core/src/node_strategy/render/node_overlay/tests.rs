//! NodeOverlays: what each sharing layout advertises per instance type, only with the gate and
//! only on `karpenter` pools; and the warnings they answer.

use std::collections::BTreeMap;

use serde_json::json;

use crate::fixture;
use crate::karpenter_gates::FeatureGates;
use crate::kinds;
use crate::model::{Capacity, GpuOperator, NodeStrategy, Pool};
use crate::node_strategy::render::{DEVICE_PLUGIN_CONFIG, MIG_CONFIG, pool_manifests};
use crate::node_strategy::rules::{Context, check_node_strategy};
use crate::rules::Code;
use crate::sharing::handover::{GPU_REPLICAS, GPU_RESOURCE};

const OVERLAYS: FeatureGates = FeatureGates {
    static_capacity: false,
    node_overlay: true,
};

fn strategy(pool: Pool, gates: FeatureGates, mig_strategy: &str) -> NodeStrategy {
    NodeStrategy {
        cluster_name: "gpu".into(),
        name: "genai".into(),
        kubernetes_version: Some("1.34".into()),
        device_plugin: None,
        gpu_operator: Some(GpuOperator {
            mig_strategy: mig_strategy.into(),
            dcgm_exporter: true,
            service_monitor: false,
        }),
        pools: vec![pool],
        default_tags: BTreeMap::new(),
        karpenter_gates: gates,
    }
}

fn labelled(capacity: Capacity, types: &[&str], labels: &[(&str, &str)]) -> Pool {
    Pool {
        labels: labels.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(),
        ..fixture::valid_pool("shared", capacity, types)
    }
}

fn overlays(s: &NodeStrategy) -> Vec<serde_json::Value> {
    pool_manifests(s, &s.pools[0])
        .into_iter()
        .filter(|m| m.kind == kinds::NODE_OVERLAY)
        .map(|m| m.body)
        .collect()
}

fn codes(s: &NodeStrategy) -> Vec<Code> {
    check_node_strategy(
        s,
        &Context {
            karpenter_version: (1, 14),
        },
    )
    .into_iter()
    .map(|v| v.code)
    .collect()
}

#[test]
fn time_slicing_advertises_replicas_per_gpu_scoped_to_the_pool() {
    let p = labelled(
        Capacity::Karpenter,
        &["g6e.12xlarge", "g5.xlarge"],
        &[(DEVICE_PLUGIN_CONFIG, "small-models"), (GPU_REPLICAS, "4")],
    );
    let s = strategy(p, OVERLAYS, "single");
    let o = overlays(&s);
    assert_eq!(o.len(), 2);
    assert_eq!(o[0]["apiVersion"], "karpenter.sh/v1alpha1");
    assert_eq!(o[0]["metadata"]["name"], "shared-g6e.12xlarge");
    assert_eq!(o[0]["metadata"]["labels"]["eksgpu.terraform.io/strategy"], "genai");
    assert_eq!(
        o[0]["spec"],
        json!({
            "requirements": [
                {"key": "karpenter.sh/nodepool", "operator": "In", "values": ["shared"]},
                {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g6e.12xlarge"]},
            ],
            // 4 L40S GPUs, 4 replicas each.
            "capacity": {"nvidia.com/gpu": "16"},
        })
    );
    assert_eq!(o[1]["spec"]["capacity"], json!({"nvidia.com/gpu": "4"}));
    // EKSGPU011 is answered.
    assert!(!codes(&s).contains(&Code::EKSGPU011), "{:?}", codes(&s));
}

#[test]
fn a_renamed_resource_is_advertised_under_its_name() {
    let p = labelled(
        Capacity::Karpenter,
        &["g5.xlarge"],
        &[
            (DEVICE_PLUGIN_CONFIG, "x"),
            (GPU_REPLICAS, "2"),
            (GPU_RESOURCE, "gpu.shared"),
        ],
    );
    let s = strategy(p, OVERLAYS, "single");
    let o = overlays(&s);
    // Renamed, the plugin advertises gpu.shared *instead of* gpu: the overlay zeroes gpu, which
    // it would otherwise leave at the type's count.
    assert_eq!(
        o[0]["spec"]["capacity"],
        json!({"nvidia.com/gpu": "0", "nvidia.com/gpu.shared": "2"})
    );
    // The pool's resource name says so too, as the sharing pool's resource_requests does.
    assert_eq!(
        crate::render::gpu_resource_name(&s, &s.pools[0]).as_deref(),
        Some("nvidia.com/gpu.shared")
    );
}

#[test]
fn an_unrenamed_pool_keeps_nvidia_gpu_as_its_resource() {
    let p = labelled(
        Capacity::Karpenter,
        &["g5.xlarge"],
        &[(DEVICE_PLUGIN_CONFIG, "x"), (GPU_REPLICAS, "2")],
    );
    let s = strategy(p, OVERLAYS, "single");
    assert_eq!(
        crate::render::gpu_resource_name(&s, &s.pools[0]).as_deref(),
        Some("nvidia.com/gpu")
    );
}

/// Rule codes and the overlays of a time-sliced pool with this replicas label.
fn replicas_label(types: &[&str], replicas: &str) -> (Vec<Code>, Vec<serde_json::Value>) {
    let p = labelled(
        Capacity::Karpenter,
        types,
        &[(DEVICE_PLUGIN_CONFIG, "x"), (GPU_REPLICAS, replicas)],
    );
    let s = strategy(p, OVERLAYS, "single");
    (codes(&s), overlays(&s))
}

#[test]
fn a_replicas_label_beyond_int64_is_refused_never_wrapped() {
    // 2^63-1 on 8 GPUs wrapped to -8; 2^62 on 4 GPUs wrapped to 0.
    for (types, replicas) in [
        (&["p5.48xlarge"][..], i64::MAX.to_string()),
        (&["g6e.12xlarge"][..], (1_i64 << 62).to_string()),
        (&["g5.xlarge", "p5.48xlarge"][..], (1_i64 << 62).to_string()),
    ] {
        let (c, o) = replicas_label(types, &replicas);
        assert!(c.contains(&Code::EKSGPU137), "{replicas} on {types:?}: {c:?}");
        for overlay in &o {
            for (k, v) in overlay["spec"]["capacity"].as_object().expect("capacity") {
                let n: i64 = v.as_str().and_then(|v| v.parse().ok()).expect("count");
                assert!(n > 0 || k == "nvidia.com/gpu", "{k}: {v} for {replicas}");
            }
        }
        // Only types whose product fits get an overlay.
        assert!(o.iter().all(|o| o["metadata"]["name"] != "shared-p5.48xlarge"), "{o:?}");
    }
    // i64::MAX on one GPU fits: the count is the label itself.
    let (c, o) = replicas_label(&["g5.xlarge"], &i64::MAX.to_string());
    assert!(!c.contains(&Code::EKSGPU137), "{c:?}");
    assert_eq!(o[0]["spec"]["capacity"]["nvidia.com/gpu"], i64::MAX.to_string());
    // Beyond int64 the label is no integer at all.
    let (c, o) = replicas_label(&["g5.xlarge"], "9223372036854775808");
    assert!(c.contains(&Code::EKSGPU137), "{c:?}");
    assert!(o.is_empty(), "{o:?}");
    // An ordinary count passes.
    assert!(!replicas_label(&["p5.48xlarge"], "4").0.contains(&Code::EKSGPU137));
}

#[test]
fn time_slicing_a_fractional_gpu_is_refused_not_rendered_as_zero() {
    let (c, o) = replicas_label(&["g6f.xlarge"], "4");
    assert!(c.contains(&Code::EKSGPU138), "{c:?}");
    assert!(o.is_empty(), "no overlay advertising 0 shared GPUs: {o:?}");
    // Unshared, the fractional type is advertised as one GPU, and nothing is refused.
    let p = labelled(Capacity::Karpenter, &["g6f.xlarge"], &[]);
    let s = strategy(p, OVERLAYS, "single");
    assert!(!codes(&s).contains(&Code::EKSGPU138));
    assert_eq!(overlays(&s)[0]["spec"]["capacity"], json!({"nvidia.com/gpu": "1"}));
}

#[test]
fn mig_mixed_counts_come_from_the_mig_tables() {
    // H100 80GB: seven 1g.10gb per GPU, eight GPUs.
    let p = labelled(Capacity::Karpenter, &["p5.48xlarge"], &[(MIG_CONFIG, "all-1g.10gb")]);
    let s = strategy(p, OVERLAYS, "mixed");
    assert_eq!(
        overlays(&s)[0]["spec"]["capacity"],
        json!({"nvidia.com/gpu": "0", "nvidia.com/mig-1g.10gb": "56"})
    );
    assert!(!codes(&s).contains(&Code::EKSGPU122), "{:?}", codes(&s));
    // all-balanced: each profile of the GPU's balanced layout, times the GPUs.
    let p = labelled(Capacity::Karpenter, &["p5.48xlarge"], &[(MIG_CONFIG, "all-balanced")]);
    let capacity = overlays(&strategy(p, OVERLAYS, "mixed"))[0]["spec"]["capacity"].clone();
    let gpu = crate::catalog::instance_type("p5.48xlarge")
        .and_then(|t| t.mig)
        .expect("H100 MIG");
    for (profile, n) in gpu.balanced {
        let name = crate::catalog::MigProfileName::parse(profile)
            .expect("profile")
            .resource_name();
        assert_eq!(capacity[name.as_str()], (n * 8).to_string(), "{profile}");
    }
    // Under `single` the GPUs are advertised as nvidia.com/gpu: nothing to overlay.
    let p = labelled(Capacity::Karpenter, &["p5.48xlarge"], &[(MIG_CONFIG, "all-1g.10gb")]);
    assert!(overlays(&strategy(p, OVERLAYS, "single")).is_empty());
}

#[test]
fn hami_advertises_its_split_memory_and_cores() {
    let p = labelled(
        Capacity::Karpenter,
        &["g6e.12xlarge"],
        &[("gpu", "on"), (GPU_REPLICAS, "10")],
    );
    let s = strategy(p, OVERLAYS, "single");
    assert_eq!(
        overlays(&s)[0]["spec"]["capacity"],
        json!({"nvidia.com/gpu": "40", "nvidia.com/gpumem": (45776 * 4).to_string(), "nvidia.com/gpucores": "400"})
    );
    assert!(!codes(&s).contains(&Code::EKSGPU122), "{:?}", codes(&s));
}

#[test]
fn fractional_types_get_one_gpu() {
    let p = labelled(Capacity::Karpenter, &["g6f.xlarge"], &[]);
    let s = strategy(p.clone(), OVERLAYS, "single");
    assert_eq!(overlays(&s)[0]["spec"]["capacity"], json!({"nvidia.com/gpu": "1"}));
    assert!(!codes(&s).contains(&Code::EKSGPU101));
    let ungated = strategy(p, FeatureGates::default(), "single");
    assert!(codes(&ungated).contains(&Code::EKSGPU101));
}

#[test]
fn without_the_gate_or_on_auto_mode_nothing_is_rendered_and_the_warning_says_how() {
    let labels = [(DEVICE_PLUGIN_CONFIG, "small-models"), (GPU_REPLICAS, "4")];
    let s = strategy(
        labelled(Capacity::Karpenter, &["g5.xlarge"], &labels),
        FeatureGates::default(),
        "single",
    );
    assert!(overlays(&s).is_empty());
    let v = check_node_strategy(
        &s,
        &Context {
            karpenter_version: (1, 14),
        },
    );
    let w = v.iter().find(|v| v.code == Code::EKSGPU011).expect("EKSGPU011 stays");
    assert!(w.detail.contains("karpenter_feature_gates"), "{}", w.detail);
    // On Karpenter 1.6 there is no NodeOverlay to turn on.
    let v = check_node_strategy(
        &s,
        &Context {
            karpenter_version: (1, 6),
        },
    );
    let w = v.iter().find(|v| v.code == Code::EKSGPU011).expect("EKSGPU011 stays");
    assert!(w.detail.contains("1.7+"), "{}", w.detail);
    // Labels written by hand without the handed-over replicas: no overlay, and the warning says why.
    let s = strategy(
        labelled(Capacity::Karpenter, &["g5.xlarge"], &[(DEVICE_PLUGIN_CONFIG, "x")]),
        OVERLAYS,
        "single",
    );
    assert!(overlays(&s).is_empty());
    let v = check_node_strategy(
        &s,
        &Context {
            karpenter_version: (1, 14),
        },
    );
    assert!(
        v.iter()
            .any(|v| v.code == Code::EKSGPU011 && v.detail.contains(GPU_REPLICAS))
    );
    // Auto Mode has no NodeOverlay.
    let auto = strategy(labelled(Capacity::AutoMode, &["g6f.xlarge"], &[]), OVERLAYS, "single");
    assert!(overlays(&auto).is_empty());
    assert!(codes(&auto).contains(&Code::EKSGPU101));
}
