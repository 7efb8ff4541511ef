//! A merged `eksgpu_gpu_stack` render.

use serde_json::Value;

use super::Found;
use crate::helm::{Chart, Rendered};

/// A merged stack's render holds what each strategy's did: every toleration and node-selector
/// term, and MIG Manager where any strategy runs it.
pub(super) fn stack(chart: &Chart, r: &Rendered, inputs: &[&Rendered], f: &mut Found) {
    let lists: &[(&str, &str, &[&str])] = match chart.folder {
        "gpu-operator-v26.7.0" => &[
            (
                "ClusterPolicy",
                "templates/clusterpolicy.yaml",
                &["spec", "daemonsets", "tolerations"],
            ),
            (
                "DaemonSet",
                "node-feature-discovery/templates/worker.yaml",
                &["spec", "template", "spec", "tolerations"],
            ),
        ],
        "nvidia-device-plugin-v0.20.0" => &[
            (
                "DaemonSet",
                "templates/daemonset-device-plugin.yml",
                &["spec", "template", "spec", "tolerations"],
            ),
            (
                "DaemonSet",
                "templates/daemonset-device-plugin.yml",
                &[
                    "spec",
                    "template",
                    "spec",
                    "affinity",
                    "nodeAffinity",
                    "requiredDuringSchedulingIgnoredDuringExecution",
                    "nodeSelectorTerms",
                ],
            ),
        ],
        "neuron-helm-chart-8172e5e" => &[(
            "DaemonSet",
            "device-plugin-daemonset.yaml",
            &["spec", "template", "spec", "tolerations"],
        )],
        _ => &[
            (
                "DaemonSet",
                "templates/kubeletplugin.yaml",
                &["spec", "template", "spec", "tolerations"],
            ),
            (
                "DaemonSet",
                "templates/kubeletplugin.yaml",
                &[
                    "spec",
                    "template",
                    "spec",
                    "affinity",
                    "nodeAffinity",
                    "requiredDuringSchedulingIgnoredDuringExecution",
                    "nodeSelectorTerms",
                ],
            ),
        ],
    };
    let at = |r: &Rendered, kind: &str, template: &str, path: &[&str]| -> Vec<Value> {
        r.objects(kind, template)
            .into_iter()
            .flat_map(|o| {
                let v = path.iter().fold(o, |v, k| &v[*k]);
                v.as_array().cloned().unwrap_or_default()
            })
            .collect()
    };
    for (kind, template, path) in lists {
        let merged = at(r, kind, template, path);
        for (i, input) in inputs.iter().enumerate() {
            for x in at(input, kind, template, path) {
                if !merged.contains(&x) {
                    f.problems.push(format!(
                        "strategy {i}'s {kind} {} item {x} is not in the merged render",
                        path.join(".")
                    ));
                }
            }
        }
    }
    if chart.folder == "gpu-operator-v26.7.0" {
        let mig = |r: &Rendered| {
            r.objects("ClusterPolicy", "templates/clusterpolicy.yaml")
                .first()
                .is_some_and(|cp| cp["spec"]["migManager"]["enabled"] == true)
        };
        if mig(r) != inputs.iter().any(|i| mig(i)) {
            f.problems.push(format!(
                "merged migManager.enabled is {}, while strategies' are {:?}",
                mig(r),
                inputs.iter().map(|i| mig(i)).collect::<Vec<_>>()
            ));
        }
    }
    if chart.folder == "nvidia-device-plugin-v0.20.0" {
        // Every strategy's named config is in the one release's ConfigMap, as it wrote it.
        let configs = |r: &Rendered| -> Vec<(String, Value)> {
            r.objects("ConfigMap", "templates/configmap.yml")
                .into_iter()
                .flat_map(|cm| cm["data"].as_object().cloned().unwrap_or_default())
                .collect()
        };
        let merged = configs(r);
        for (i, input) in inputs.iter().enumerate() {
            for c in configs(input) {
                if !merged.contains(&c) {
                    f.problems.push(format!(
                        "strategy {i}'s device-plugin config {:?} is not in the merged render",
                        c.0
                    ));
                }
            }
        }
    }
}
