//! The kinds the emulator serves: core `v1` Namespace, Secret, ConfigMap, Pod (judged by
//! Kubernetes' own type, `typed.rs`) and Event, `apps/v1` DaemonSet and Deployment (judged by
//! Kubernetes' own types), and the
//! custom kinds from the CRD files in `crds/` (upstream files unchanged where
//! upstream publishes one).

use serde_json::{Value, json};

#[derive(Debug, Clone)]
pub struct KindInfo {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub plural: String,
    pub namespaced: bool,
    /// The openAPIV3Schema of the served version.
    pub schema: Value,
    /// For built-in kinds judged by Kubernetes' own types (`typed.rs`), that validator.
    pub typed: Option<crate::typed::Check>,
}

impl KindInfo {
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `plural.group`, the CRD's name (`nodepools.karpenter.sh`; `configmaps` for core).
    pub fn resource(&self) -> String {
        if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }
}

const CRDS: [&str; 11] = [
    include_str!("../crds/karpenter.sh_nodepools.yaml"),
    include_str!("../crds/karpenter.sh_nodeclaims.yaml"),
    include_str!("../crds/karpenter.sh_nodeoverlays.yaml"),
    include_str!("../crds/karpenter.k8s.aws_ec2nodeclasses.yaml"),
    include_str!("../crds/eks.amazonaws.com_nodeclasses.yaml"),
    include_str!("../crds/nvidia.com_clusterpolicies.yaml"),
    include_str!("../crds/keda.sh_scaledobjects.yaml"),
    include_str!("../crds/keda.sh_triggerauthentications.yaml"),
    include_str!("../crds/keda.sh_clustertriggerauthentications.yaml"),
    include_str!("../crds/resource.k8s.io_resourceclaims.yaml"),
    include_str!("../crds/resource.k8s.io_deviceclasses.yaml"),
];

#[derive(Debug, Clone)]
pub struct Registry {
    kinds: Vec<KindInfo>,
    /// Kinds answered as if their CRD were not installed.
    disabled: Vec<String>,
}

impl Registry {
    /// The kinds of `crds/`, and `extra` (CRDs given at start, `--crd FILE`).
    pub fn with(extra: &[KindInfo]) -> Registry {
        let mut r = Registry::builtin();
        r.kinds.extend(extra.iter().cloned());
        r
    }

    pub fn builtin() -> Registry {
        let mut kinds = vec![
            KindInfo {
                group: String::new(),
                version: "v1".into(),
                kind: "Namespace".into(),
                plural: "namespaces".into(),
                namespaced: false,
                schema: json!({"type": "object", "properties": {
                    "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
                    "spec": {"type": "object", "properties": {"finalizers": {"type": "array", "items": {"type": "string"}}}},
                    "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}),
                typed: None,
            },
            // Secrets hold what a TriggerAuthentication's secretTargetRef points at (the KEDA
            // simulation, `keda.rs`, reads them as KEDA's resolver does).
            KindInfo {
                group: String::new(),
                version: "v1".into(),
                kind: "Secret".into(),
                plural: "secrets".into(),
                namespaced: true,
                schema: json!({"type": "object", "properties": {
                    "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
                    "type": {"type": "string"},
                    "data": {"type": "object", "additionalProperties": {"type": "string"}},
                    "stringData": {"type": "object", "additionalProperties": {"type": "string"}},
                    "immutable": {"type": "boolean"}}}),
                typed: None,
            },
            KindInfo {
                group: String::new(),
                version: "v1".into(),
                kind: "ConfigMap".into(),
                plural: "configmaps".into(),
                namespaced: true,
                schema: json!({"type": "object", "properties": {
                    "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
                    "data": {"type": "object", "additionalProperties": {"type": "string"}},
                    "binaryData": {"type": "object", "additionalProperties": {"type": "string"}},
                    "immutable": {"type": "boolean"}}}),
                typed: None,
            },
        ];
        // Pods: what the capacity probe places on a NodePool (the Karpenter simulation,
        // `karpenter/`, binds them); Events: what Karpenter and the scheduler report.
        kinds.push(KindInfo {
            group: String::new(),
            version: "v1".into(),
            kind: "Pod".into(),
            plural: "pods".into(),
            namespaced: true,
            schema: preserved_spec_status(),
            typed: Some(crate::typed::pod),
        });
        kinds.push(event());
        // DaemonSets: the provider lists them to find the device managers a cluster runs;
        // Deployments: what workloads placed with `eksgpu_workload_placement` are.
        kinds.push(apps("DaemonSet", "daemonsets", crate::typed::daemon_set));
        kinds.push(apps("Deployment", "deployments", crate::typed::deployment));
        for text in CRDS {
            if let Some(k) = parse_crd(text) {
                kinds.push(k);
            }
        }
        Registry {
            kinds,
            disabled: Vec::new(),
        }
    }

    pub fn find(&self, group: &str, plural: &str) -> Option<&KindInfo> {
        self.kinds
            .iter()
            .find(|k| k.group == group && k.plural == plural && !self.disabled.contains(&k.resource()))
    }

    pub fn served(&self) -> impl Iterator<Item = &KindInfo> {
        self.kinds.iter().filter(|k| !self.disabled.contains(&k.resource()))
    }

    /// Whether a test made this kind disappear.
    pub fn is_disabled(&self, group: &str, plural: &str) -> bool {
        self.disabled.contains(&format!("{plural}.{group}"))
    }

    /// Makes a kind disappear (as if its CRD were deleted), by `plural.group`.
    pub fn disable(&mut self, resource: &str) {
        self.disabled.push(resource.to_owned());
    }
}

/// A CRD file given at start (`--crd FILE`: upstream CRDs the tests read from outside the
/// repository, such as NVIDIA's ComputeDomain from `../shared/crds/`).
pub fn load_crd(path: &str) -> Result<KindInfo, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    parse_crd(&text).ok_or_else(|| format!("{path}: not a CustomResourceDefinition with a served storage version"))
}

fn parse_crd(text: &str) -> Option<KindInfo> {
    let crd: Value = serde_saphyr::from_str(text).ok()?;
    let spec = &crd["spec"];
    let version = spec["versions"]
        .as_array()?
        .iter()
        .find(|v| v["served"] == true && v["storage"] == true)?;
    Some(KindInfo {
        group: spec["group"].as_str()?.to_owned(),
        version: version["name"].as_str()?.to_owned(),
        kind: spec["names"]["kind"].as_str()?.to_owned(),
        plural: spec["names"]["plural"].as_str()?.to_owned(),
        namespaced: spec["scope"] == "Namespaced",
        schema: version["schema"]["openAPIV3Schema"].clone(),
        typed: None,
    })
}

/// A built-in `apps/v1` kind: any object below the top (pruning and defaulting leave it as it
/// is), judged by Kubernetes' own type instead (`typed.rs`).
fn apps(kind: &str, plural: &str, check: crate::typed::Check) -> KindInfo {
    KindInfo {
        group: "apps".into(),
        version: "v1".into(),
        kind: kind.into(),
        plural: plural.into(),
        namespaced: true,
        schema: preserved_spec_status(),
        typed: Some(check),
    }
}

/// Any object below `spec` and `status` (pruning and defaulting leave it as it is), for kinds
/// judged by Kubernetes' own types instead.
fn preserved_spec_status() -> Value {
    json!({"type": "object", "properties": {
        "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
        "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
        "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}})
}

/// Core `v1` Event, the fields of k8s.io/api `core/v1/types.go` `Event` (Kubernetes 1.33).
fn event() -> KindInfo {
    let s = json!({"type": "string"});
    let object_reference = json!({"type": "object", "properties": {
        "kind": s, "namespace": s, "name": s, "uid": s, "apiVersion": s, "resourceVersion": s, "fieldPath": s}});
    KindInfo {
        group: String::new(),
        version: "v1".into(),
        kind: "Event".into(),
        plural: "events".into(),
        namespaced: true,
        schema: json!({"type": "object", "properties": {
            "apiVersion": s, "kind": s, "metadata": {"type": "object"},
            "involvedObject": object_reference, "related": object_reference,
            "reason": s, "message": s, "type": s, "action": s,
            "source": {"type": "object", "properties": {"component": s, "host": s}},
            "reportingComponent": s, "reportingInstance": s,
            "firstTimestamp": s, "lastTimestamp": s, "eventTime": s,
            "count": {"type": "integer"},
            "series": {"type": "object", "properties": {"count": {"type": "integer"}, "lastObservedTime": s}}}}),
        typed: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_crd_file_loads() {
        let r = Registry::builtin();
        for (g, p) in [
            ("karpenter.sh", "nodepools"),
            ("karpenter.k8s.aws", "ec2nodeclasses"),
            ("eks.amazonaws.com", "nodeclasses"),
            ("nvidia.com", "clusterpolicies"),
            ("keda.sh", "scaledobjects"),
            ("keda.sh", "triggerauthentications"),
            ("keda.sh", "clustertriggerauthentications"),
            ("", "secrets"),
            ("resource.k8s.io", "resourceclaims"),
            ("resource.k8s.io", "deviceclasses"),
            ("", "configmaps"),
            ("", "pods"),
            ("", "events"),
            ("karpenter.sh", "nodeclaims"),
        ] {
            let k = r.find(g, p).unwrap_or_else(|| panic!("{p}.{g} not loaded"));
            assert!(k.schema["type"] == "object", "{p}");
        }
        assert!(!r.find("karpenter.sh", "nodepools").unwrap().namespaced);
        assert!(r.find("keda.sh", "scaledobjects").unwrap().namespaced);
        assert!(!r.find("karpenter.sh", "nodeclaims").unwrap().namespaced);
        assert!(r.find("", "pods").unwrap().typed.is_some());
        assert!(r.find("keda.sh", "triggerauthentications").unwrap().namespaced);
        assert!(!r.find("keda.sh", "clustertriggerauthentications").unwrap().namespaced);
    }

    #[test]
    fn a_crd_given_at_start_is_served_beside_the_builtin_ones() {
        let dir = std::env::temp_dir().join(format!("emulator-crd-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("crd.yaml");
        std::fs::write(
            &file,
            concat!(
                "apiVersion: apiextensions.k8s.io/v1\n",
                "kind: CustomResourceDefinition\n",
                "metadata:\n  name: widgets.example.com\n",
                "spec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n",
                "  versions:\n  - name: v1\n    served: true\n    storage: true\n",
                "    schema:\n      openAPIV3Schema: {type: object}\n",
            ),
        )
        .unwrap();
        let k = load_crd(file.to_str().unwrap()).unwrap();
        let r = Registry::with(&[k]);
        assert!(r.find("example.com", "widgets").unwrap().namespaced);
        assert!(r.find("karpenter.sh", "nodepools").is_some());
        assert!(load_crd(dir.join("missing.yaml").to_str().unwrap()).is_err());
        std::fs::write(&file, "kind: ConfigMap\n").unwrap();
        assert!(load_crd(file.to_str().unwrap()).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
