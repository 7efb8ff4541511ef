//! The Helm lane: every Helm values output the provider renders goes through the upstream chart
//! it is for, rendered by Helm's own Go SDK (PyPI `helm-python-sdk`, `helm/render.py`), from
//! the chart directories in `../shared/charts/` (read in place, never copied here). A value is
//! judged three ways:
//!
//! - the chart takes it: its schema, and its own validation templates (`fail` in
//!   `templates/validation.yaml`), which a render runs;
//! - every key is one the chart reads ([`keys`]): in its `values.yaml` (subcharts' included) or
//!   its `values.schema.json`, below a documented free-form map, or on the chart's allowlist;
//! - what renders means what the configuration says ([`meaning`]), per rule.
//!
//! Values come from Terraform itself: the state after every acceptance apply
//! ([`records::log_state`], when `EKSGPU_VALUES_LOG` names a folder) and the plans of the
//! examples (`tests/helm.rs`), read by attribute name ([`OUTPUTS`]), not from the examples' HCL.

pub mod keys;
pub mod meaning;
pub mod records;

use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

pub use records::Record;

/// One upstream chart folder under `../shared/charts/`.
#[derive(Debug)]
pub struct Chart {
    /// The folder (see `../shared/charts/README.md` for its repository, tag and commit).
    pub folder: &'static str,
    /// How messages and the composition guide name it.
    pub label: &'static str,
    pub release: &'static str,
    pub namespace: &'static str,
    /// Keys the provider renders that this chart version does not read but a later one does,
    /// each with the upstream file that reads it: allowed (and not descended into), so any other
    /// unknown key still fails.
    pub later_keys: &'static [(&'static str, &'static str)],
}

pub const GPU_OPERATOR: Chart = Chart {
    folder: "gpu-operator-v26.7.0",
    label: "NVIDIA gpu-operator v26.7.0 (with node-feature-discovery 0.19.0)",
    release: "gpu-operator",
    namespace: "gpu-operator",
    later_keys: &[],
};

pub const DRA_DRIVER: Chart = Chart {
    folder: "dra-driver-nvidia-gpu-v0.4.1",
    label: "dra-driver-nvidia-gpu v0.4.1",
    release: "dra-driver",
    namespace: "dra-driver",
    later_keys: &[],
};

/// The last NVIDIA-named release, which users still run (the EKS P6e-GB200 guide installed it
/// before the move to kubernetes-sigs): the same values must work there.
pub const DRA_DRIVER_NVIDIA: Chart = Chart {
    folder: "nvidia-dra-driver-gpu-v25.12.0",
    label: "nvidia-dra-driver-gpu v25.12.0",
    release: "dra-driver",
    namespace: "dra-driver",
    later_keys: &[],
};

/// The newest whole snapshot of aws-neuron/neuron-helm-charts that could be vendored (chart
/// 1.0.0, device-plugin mode only); the provider writes for the current chart, whose DRA mode and
/// device-plugin switch came later.
pub const NEURON: Chart = Chart {
    folder: "neuron-helm-chart-8172e5e",
    label: "neuron-helm-chart 1.0.0 (aws-neuron/neuron-helm-charts 8172e5e)",
    release: "neuron",
    namespace: "kube-system",
    later_keys: &[
        (
            "devicePlugin.enabled",
            "aws-neuron/neuron-helm-charts charts/neuron-helm-chart/templates/device-plugin/device-plugin-daemonset.yaml \
             @7324cd0e80bdec434b4792a78dd56b643908510d (chart 1.5.0): `{{- if .Values.devicePlugin.enabled }}`",
        ),
        (
            "draDriver.enabled",
            "aws-neuron/neuron-helm-charts charts/neuron-helm-chart/templates/dra-driver/dra-driver-daemonset.yaml \
             @97e1b7d310f25919df39497daeddb7909e016646: `{{- if .Values.draDriver.enabled }}`",
        ),
        (
            "draDriver.tolerations",
            "aws-neuron/neuron-helm-charts charts/neuron-helm-chart/templates/dra-driver/dra-driver-daemonset.yaml \
             @97e1b7d310f25919df39497daeddb7909e016646: `{{- with .Values.draDriver.tolerations }}`",
        ),
    ],
};

/// NVIDIA's device plugin on its own, for clusters without the GPU Operator (with GPU Feature
/// Discovery and its NFD 0.19.0 subchart, `nfd.enabled,gfd.enabled`).
pub const DEVICE_PLUGIN: Chart = Chart {
    folder: "nvidia-device-plugin-v0.20.0",
    label: "nvidia-device-plugin v0.20.0 (with node-feature-discovery 0.19.0)",
    release: "nvdp",
    namespace: "nvidia-device-plugin",
    later_keys: &[],
};

pub const HAMI: Chart = Chart {
    folder: "hami-v2.10.0",
    label: "HAMi v2.10.0",
    release: "hami",
    namespace: "kube-system",
    later_keys: &[],
};

/// Which chart reads which values output. Adding an output is one row here and, for its meaning,
/// one arm in [`meaning::check`].
pub struct Output {
    /// The resource or data source type carrying the attribute.
    pub kind: &'static str,
    pub attribute: &'static str,
    pub charts: &'static [&'static Chart],
}

pub const OUTPUTS: &[Output] = &[
    Output {
        kind: "eksgpu_node_strategy",
        attribute: "gpu_operator_values_yaml",
        charts: &[&GPU_OPERATOR],
    },
    Output {
        kind: "eksgpu_node_strategy",
        attribute: "dra_driver_values_yaml",
        charts: &[&DRA_DRIVER, &DRA_DRIVER_NVIDIA],
    },
    Output {
        kind: "eksgpu_node_strategy",
        attribute: "neuron_values_yaml",
        charts: &[&NEURON],
    },
    Output {
        kind: "eksgpu_node_strategy",
        attribute: "device_plugin_values_yaml",
        charts: &[&DEVICE_PLUGIN],
    },
    Output {
        kind: "eksgpu_sharing_pool",
        attribute: "hami_values_yaml",
        charts: &[&HAMI],
    },
    Output {
        kind: "eksgpu_gpu_stack",
        attribute: "gpu_operator_values_yaml",
        charts: &[&GPU_OPERATOR],
    },
    Output {
        kind: "eksgpu_gpu_stack",
        attribute: "dra_driver_values_yaml",
        charts: &[&DRA_DRIVER, &DRA_DRIVER_NVIDIA],
    },
    Output {
        kind: "eksgpu_gpu_stack",
        attribute: "neuron_values_yaml",
        charts: &[&NEURON],
    },
    Output {
        kind: "eksgpu_gpu_stack",
        attribute: "device_plugin_values_yaml",
        charts: &[&DEVICE_PLUGIN],
    },
];

/// `../shared` next to the repository (the only place upstream charts and CRDs are read from).
pub fn shared_dir() -> PathBuf {
    crate::repo_root().join("../shared")
}

/// The charts folder, or why the lane cannot run (then it says `SKIPPED:`).
pub fn charts_dir() -> Result<PathBuf, String> {
    let dir = shared_dir().join("charts");
    let missing: Vec<&str> = [
        &GPU_OPERATOR,
        &DRA_DRIVER,
        &DRA_DRIVER_NVIDIA,
        &NEURON,
        &HAMI,
        &DEVICE_PLUGIN,
    ]
    .iter()
    .filter(|c| !dir.join(c.folder).join("Chart.yaml").is_file())
    .map(|c| c.folder)
    .collect();
    if missing.is_empty() {
        Ok(dir)
    } else {
        Err(format!(
            "the upstream charts are not here ({} lacks {}): the Helm lane reads them from ../shared/charts",
            dir.display(),
            missing.join(", ")
        ))
    }
}

/// What a chart made of one values document.
#[derive(Debug, Clone)]
pub struct Rendered {
    /// The values as Helm read them (its YAML reader, as `helm install -f` does).
    pub values: Value,
    /// Every rendered object, with the template it came from.
    pub objects: Vec<(String, Value)>,
    /// The chart's default values, subcharts' under their names.
    pub defaults: Value,
    /// `values.schema.json` of the chart (key `""`) and of each subchart (its name).
    pub schemas: serde_json::Map<String, Value>,
}

impl Rendered {
    /// The objects of `kind` rendered from a template whose path contains `template`.
    pub fn objects(&self, kind: &str, template: &str) -> Vec<&Value> {
        self.objects
            .iter()
            .filter(|(t, o)| o["kind"] == kind && t.contains(template))
            .map(|(_, o)| o)
            .collect()
    }
}

/// One render to do: a values document (YAML text, as the output holds it) through a chart.
#[derive(Debug, Clone)]
pub struct Job<'a> {
    pub chart: &'a Chart,
    pub values_yaml: String,
}

/// Renders every job in one Helm SDK process, each chart loaded afresh. `Err` is the chart's
/// refusal (schema, validation template, template error).
pub fn render(charts: &std::path::Path, jobs: &[Job<'_>]) -> Vec<Result<Rendered, String>> {
    if jobs.is_empty() {
        return Vec::new();
    }
    let python = match crate::tools::helm_python() {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    let request = json!({"jobs": jobs.iter().map(|j| json!({
        "chart": charts.join(j.chart.folder),
        "values_yaml": j.values_yaml,
        "release": j.chart.release,
        "namespace": j.chart.namespace,
    })).collect::<Vec<_>>()});
    let script = crate::repo_root().join("acceptance-tests/helm/render.py");
    let mut child = Command::new(python)
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("start {}: {e}", script.display()));
    if let Some(mut stdin) = child.stdin.take() {
        std::io::Write::write_all(&mut stdin, request.to_string().as_bytes())
            .unwrap_or_else(|e| panic!("write to render.py: {e}"));
    }
    let out = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("run render.py: {e}"));
    assert!(
        out.status.success(),
        "render.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answer: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("render.py answered no JSON ({e})"));
    let results = answer["results"].as_array().cloned().unwrap_or_default();
    assert_eq!(
        results.len(),
        jobs.len(),
        "render.py answered {} of {} jobs",
        results.len(),
        jobs.len()
    );
    results
        .into_iter()
        .map(|r| {
            if r["ok"] != true {
                return Err(r["error"].as_str().unwrap_or("no message").trim().to_owned());
            }
            Ok(Rendered {
                values: r["values"].clone(),
                objects: r["objects"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|o| {
                        (
                            o["template"].as_str().unwrap_or_default().to_owned(),
                            o["object"].clone(),
                        )
                    })
                    .collect(),
                defaults: r["defaults"].clone(),
                schemas: r["schemas"].as_object().cloned().unwrap_or_default(),
            })
        })
        .collect()
}

/// What the lane found: one line per problem, and counts for the report.
#[derive(Debug, Default)]
pub struct Verdict {
    pub problems: Vec<String>,
    /// Renders per chart label.
    pub rendered: std::collections::BTreeMap<&'static str, usize>,
    /// Meaning checks a chart version cannot judge, with why (printed, not failed).
    pub not_judged: Vec<String>,
}

/// Renders every values output of `records` through its charts and judges it.
pub fn judge(charts: &std::path::Path, records: &[Record]) -> Verdict {
    let records = records::distinct(records);
    let mut jobs = Vec::new();
    // (record, output, chart, index of the job; for a stack, the jobs of its inputs)
    let mut plan: Vec<(&Record, &Output, &Chart, usize, Vec<usize>)> = Vec::new();
    for r in &records {
        for out in OUTPUTS.iter().filter(|o| o.kind == r.kind) {
            let Some(text) = r.attributes[out.attribute].as_str().filter(|s| !s.trim().is_empty()) else {
                continue;
            };
            for chart in out.charts {
                let at = jobs.len();
                jobs.push(Job {
                    chart,
                    values_yaml: text.to_owned(),
                });
                let mut inputs = Vec::new();
                for s in r.attributes["strategy"].as_array().into_iter().flatten() {
                    if let Some(t) = s[out.attribute].as_str().filter(|t| !t.trim().is_empty()) {
                        inputs.push(jobs.len());
                        jobs.push(Job {
                            chart,
                            values_yaml: t.to_owned(),
                        });
                    }
                }
                plan.push((r, out, chart, at, inputs));
            }
        }
    }
    let results = render(charts, &jobs);
    let mut v = Verdict::default();
    for (r, out, chart, at, inputs) in plan {
        let what = format!("{} {}.{} through {}", r.source, r.address, out.attribute, chart.label);
        *v.rendered.entry(chart.label).or_insert(0) += 1;
        let rendered = match &results[at] {
            Ok(x) => x,
            Err(e) => {
                v.problems.push(format!("{what}: the chart refuses the values: {e}"));
                continue;
            }
        };
        for k in keys::unknown(rendered, chart) {
            v.problems.push(format!(
                "{what}: `{k}` is not a value the chart reads (not in its values.yaml or values.schema.json)"
            ));
        }
        let inputs: Vec<&Rendered> = inputs.iter().filter_map(|i| results[*i].as_ref().ok()).collect();
        let found = meaning::check(r, out.attribute, chart, rendered, &inputs);
        v.problems
            .extend(found.problems.into_iter().map(|p| format!("{what}: {p}")));
        v.not_judged
            .extend(found.not_judged.into_iter().map(|p| format!("{what}: {p}")));
    }
    v
}
