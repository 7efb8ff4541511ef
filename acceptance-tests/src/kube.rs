//! The Kubernetes side of a test: the project's API emulator on loopback by
//! default, or any real API server given by `EKSGPU_TEST_KUBECONFIG` (then the
//! same scenarios prove the provider against a real cluster). Tests read and
//! edit objects through the Kubernetes API itself, so they run unchanged on both.
//!
//! The real API server lane (`EKSGPU_KUBE_UPSTREAM=<kubeconfig>`, set by
//! `scripts/test`) keeps the emulator in front, in upstream mode: it serves
//! core kinds, auth, faults and the request log itself and forwards every
//! custom kind to the real `apiextensions-apiserver` of that kubeconfig, which
//! judges every custom object. Tests then run one at a time (each emulator
//! start empties the shared real server).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use kube::api::{Api, ApiResource, DynamicObject, Patch, PatchParams};
use serde_json::Value;

use crate::provider_bin::emulator_binary;

/// A kind as tests address it.
#[derive(Debug, Clone, Copy)]
pub struct TestKind {
    pub group: &'static str,
    pub version: &'static str,
    pub kind: &'static str,
    pub plural: &'static str,
}

pub const NODE_POOL: TestKind = TestKind {
    group: "karpenter.sh",
    version: "v1",
    kind: "NodePool",
    plural: "nodepools",
};
pub const NODE_OVERLAY: TestKind = TestKind {
    group: "karpenter.sh",
    version: "v1alpha1",
    kind: "NodeOverlay",
    plural: "nodeoverlays",
};
pub const NAMESPACE: TestKind = TestKind {
    group: "",
    version: "v1",
    kind: "Namespace",
    plural: "namespaces",
};
pub const CONFIG_MAP: TestKind = TestKind {
    group: "",
    version: "v1",
    kind: "ConfigMap",
    plural: "configmaps",
};
pub const RESOURCE_CLAIM: TestKind = TestKind {
    group: "resource.k8s.io",
    version: "v1",
    kind: "ResourceClaim",
    plural: "resourceclaims",
};
/// NVIDIA's DRA ComputeDomain: served from upstream's CRD in `../shared/crds/` (the emulator
/// loads it at start, `scripts/real-apiserver/start` into the real server), where that is present;
/// see [`compute_domain_crds`].
pub const COMPUTE_DOMAIN: TestKind = TestKind {
    group: "resource.nvidia.com",
    version: "v1beta1",
    kind: "ComputeDomain",
    plural: "computedomains",
};
pub const SECRET: TestKind = TestKind {
    group: "",
    version: "v1",
    kind: "Secret",
    plural: "secrets",
};
pub const SCALED_OBJECT: TestKind = TestKind {
    group: "keda.sh",
    version: "v1alpha1",
    kind: "ScaledObject",
    plural: "scaledobjects",
};
pub const TRIGGER_AUTHENTICATION: TestKind = TestKind {
    group: "keda.sh",
    version: "v1alpha1",
    kind: "TriggerAuthentication",
    plural: "triggerauthentications",
};
pub const CLUSTER_TRIGGER_AUTHENTICATION: TestKind = TestKind {
    group: "keda.sh",
    version: "v1alpha1",
    kind: "ClusterTriggerAuthentication",
    plural: "clustertriggerauthentications",
};
pub const EC2_NODE_CLASS: TestKind = TestKind {
    group: "karpenter.k8s.aws",
    version: "v1",
    kind: "EC2NodeClass",
    plural: "ec2nodeclasses",
};

/// apps/v1 DaemonSet and Deployment: built-in kinds the emulator serves itself and judges by
/// Kubernetes' own types (k8s-openapi), in both lanes (the real API server lane's server serves no
/// built-in kinds).
pub const DAEMON_SET: TestKind = TestKind {
    group: "apps",
    version: "v1",
    kind: "DaemonSet",
    plural: "daemonsets",
};
pub const DEPLOYMENT: TestKind = TestKind {
    group: "apps",
    version: "v1",
    kind: "Deployment",
    plural: "deployments",
};

/// Core v1 Pod and Event, served by the emulator itself in both lanes; Karpenter's NodeClaim
/// (upstream CRD, `kube-emulator/crds/`), written by the emulator's Karpenter simulation.
pub const POD: TestKind = TestKind {
    group: "",
    version: "v1",
    kind: "Pod",
    plural: "pods",
};
pub const EVENT: TestKind = TestKind {
    group: "",
    version: "v1",
    kind: "Event",
    plural: "events",
};
pub const NODE_CLAIM: TestKind = TestKind {
    group: "karpenter.sh",
    version: "v1",
    kind: "NodeClaim",
    plural: "nodeclaims",
};

/// The upstream ComputeDomain CRDs (kubernetes-sigs/dra-driver-nvidia-gpu v0.4.1
/// `deployments/helm/dra-driver-nvidia-gpu/crds/`, vendored in `../shared/crds/`, never copied
/// here), or why a test needing them cannot run (it then says `SKIPPED:`).
pub fn compute_domain_crds() -> Result<Vec<std::path::PathBuf>, String> {
    let dir = crate::helm::shared_dir().join("crds");
    let files: Vec<std::path::PathBuf> = [
        "resource.nvidia.com_computedomains.yaml",
        "resource.nvidia.com_computedomaincliques.yaml",
    ]
    .iter()
    .map(|f| dir.join(f))
    .collect();
    match files.iter().find(|f| !f.is_file()) {
        None => Ok(files),
        Some(missing) => Err(format!(
            "upstream's ComputeDomain CRD is not here ({} is missing): it is read from ../shared/crds",
            missing.display()
        )),
    }
}

struct Emulator {
    child: Child,
    control_url: String,
}

pub struct KubeTarget {
    pub url: String,
    pub ca_pem: Option<String>,
    /// A client certificate and key (PEM) the emulator accepts instead of its token.
    pub client_pem: Option<(String, String)>,
    token: Option<String>,
    kubeconfig: Option<String>,
    emulator: Option<Emulator>,
    runtime: tokio::runtime::Runtime,
    client: kube::Client,
}

/// Options for the emulator; ignored against a real cluster.
#[derive(Debug, Clone, Default)]
pub struct EmulatorOptions {
    /// Accept EKS IAM tokens for this cluster name (the DescribeCluster path).
    pub eks_cluster: Option<String>,
    /// Kinds (`plural.group`) to leave unserved.
    pub without: Vec<String>,
}

impl KubeTarget {
    pub fn start() -> KubeTarget {
        Self::start_with(&EmulatorOptions::default())
    }

    pub fn start_with(opts: &EmulatorOptions) -> KubeTarget {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap_or_else(|e| panic!("{e}"));
        if let Ok(path) = std::env::var("EKSGPU_TEST_KUBECONFIG") {
            let client = runtime.block_on(async {
                let kc = kube::config::Kubeconfig::read_from(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
                let config = kube::Config::from_custom_kubeconfig(kc, &Default::default())
                    .await
                    .unwrap_or_else(|e| panic!("{e}"));
                kube::Client::try_from(config).unwrap_or_else(|e| panic!("{e}"))
            });
            return KubeTarget {
                url: String::new(),
                ca_pem: None,
                client_pem: None,
                token: None,
                kubeconfig: Some(path),
                emulator: None,
                runtime,
                client,
            };
        }
        let token = format!("test-token-{}", std::process::id());
        let mut cmd = Command::new(emulator_binary());
        cmd.args(["--tls", "--token", &token]);
        if let Some(c) = &opts.eks_cluster {
            cmd.args(["--eks-cluster", c]);
        }
        for w in &opts.without {
            cmd.args(["--without", w]);
        }
        for crd in compute_domain_crds().unwrap_or_default() {
            cmd.arg("--crd").arg(crd);
        }
        if let Some(upstream) = upstream_kubeconfig() {
            cmd.args(["--upstream", &upstream]);
        }
        // The emulator serves until its stdin closes: it never outlives the test.
        // Its stderr says why it failed to start (e.g. the upstream is down).
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("emulator: {e}"));
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap_or_else(|| panic!("no stdout")))
            .read_line(&mut line)
            .unwrap_or_else(|e| panic!("{e}"));
        let info: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("emulator said {line:?}: {e}"));
        let url = info["url"].as_str().unwrap_or_default().to_owned();
        let ca_pem = info["ca_pem"].as_str().map(str::to_owned);
        let client_pem = info["client_cert_pem"]
            .as_str()
            .zip(info["client_key_pem"].as_str())
            .map(|(c, k)| (c.to_owned(), k.to_owned()));
        let control_url = info["control_url"].as_str().unwrap_or_default().to_owned();
        let client = {
            let mut config = kube::Config::new(url.parse().unwrap_or_else(|e| panic!("{e}")));
            config.accept_invalid_certs = true;
            config.auth_info.token = Some(token.clone().into());
            let _guard = runtime.enter();
            kube::Client::try_from(config).unwrap_or_else(|e| panic!("{e}"))
        };
        KubeTarget {
            url,
            ca_pem,
            client_pem,
            token: Some(token),
            kubeconfig: None,
            emulator: Some(Emulator { child, control_url }),
            runtime,
            client,
        }
    }

    /// The bearer token the emulator accepts (unique to this test process).
    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    pub fn is_emulator(&self) -> bool {
        self.emulator.is_some()
    }

    /// The provider's `kubernetes { … }` block that reaches this API server.
    pub fn provider_block(&self) -> String {
        match (&self.kubeconfig, &self.token, &self.ca_pem) {
            (Some(path), _, _) => format!("  kubernetes {{\n    config_path = {path:?}\n  }}\n"),
            (None, Some(token), Some(ca)) => format!(
                "  kubernetes {{\n    host                   = {:?}\n    token                  = {token:?}\n    cluster_ca_certificate = <<-EOT\n{}    EOT\n  }}\n",
                self.url,
                ca.lines().map(|l| format!("      {l}\n")).collect::<String>()
            ),
            _ => String::new(),
        }
    }

    fn api(&self, k: TestKind, ns: Option<&str>) -> Api<DynamicObject> {
        let r = ApiResource {
            group: k.group.into(),
            version: k.version.into(),
            api_version: if k.group.is_empty() {
                k.version.into()
            } else {
                format!("{}/{}", k.group, k.version)
            },
            kind: k.kind.into(),
            plural: k.plural.into(),
        };
        match ns {
            Some(ns) => Api::namespaced_with(self.client.clone(), ns, &r),
            None => Api::all_with(self.client.clone(), &r),
        }
    }

    pub fn get(&self, k: TestKind, name: &str) -> Option<Value> {
        self.get_in(k, None, name)
    }

    pub fn get_in(&self, k: TestKind, ns: Option<&str>, name: &str) -> Option<Value> {
        let api = self.api(k, ns);
        self.runtime
            .block_on(async { api.get_opt(name).await.unwrap_or_else(|e| panic!("get {name}: {e}")) })
            .map(|o| serde_json::to_value(o).unwrap_or_default())
    }

    /// An out-of-band edit by another field manager (a merge patch, as `kubectl edit` makes).
    pub fn edit(&self, k: TestKind, name: &str, patch: Value, manager: &str) {
        self.edit_in(k, None, name, patch, manager);
    }

    pub fn edit_in(&self, k: TestKind, ns: Option<&str>, name: &str, patch: Value, manager: &str) {
        if let Err(e) = self.try_edit_in(k, ns, name, patch, manager) {
            panic!("edit {name}: {e}");
        }
    }

    /// [`edit_in`](Self::edit_in), with the server's refusal as `Err` (a CEL rule of a real
    /// server, say).
    pub fn try_edit_in(
        &self,
        k: TestKind,
        ns: Option<&str>,
        name: &str,
        patch: Value,
        manager: &str,
    ) -> Result<(), String> {
        let api = self.api(k, ns);
        let params = PatchParams {
            field_manager: Some(manager.to_owned()),
            ..Default::default()
        };
        self.runtime.block_on(async {
            api.patch(name, &params, &Patch::Merge(&patch))
                .await
                .map(|_| ())
                .map_err(|e| e.to_string())
        })
    }

    /// An object made outside Terraform: server-side applied by `manager`.
    pub fn create(&self, k: TestKind, ns: Option<&str>, body: Value, manager: &str) {
        let api = self.api(k, ns);
        let name = body["metadata"]["name"].as_str().unwrap_or_default().to_owned();
        let params = PatchParams::apply(manager).force();
        self.runtime.block_on(async {
            api.patch(&name, &params, &Patch::Apply(&body))
                .await
                .unwrap_or_else(|e| panic!("create {name}: {e}"))
        });
    }

    /// Objects of a kind (all namespaces) matching a label selector.
    pub fn list(&self, k: TestKind, label_selector: &str) -> Vec<Value> {
        let api = self.api(k, None);
        let params = kube::api::ListParams::default().labels(label_selector);
        self.runtime.block_on(async {
            api.list(&params)
                .await
                .unwrap_or_else(|e| panic!("list {}: {e}", k.plural))
                .items
                .into_iter()
                .map(|o| serde_json::to_value(o).unwrap_or_default())
                .collect()
        })
    }

    /// An out-of-band delete (`kubectl delete`).
    pub fn delete(&self, k: TestKind, ns: Option<&str>, name: &str) {
        let api = self.api(k, ns);
        self.runtime.block_on(async {
            api.delete(name, &Default::default())
                .await
                .unwrap_or_else(|e| panic!("delete {name}: {e}"))
        });
    }

    /// Sets the object's `status` (a merge patch) as its controller would, e.g.
    /// KEDA's `conditions`, through the emulator's control endpoint.
    pub fn set_status(&self, k: TestKind, ns: Option<&str>, name: &str, status: Value) {
        let Some(e) = &self.emulator else {
            panic!("set_status needs the emulator's control endpoint");
        };
        let body =
            serde_json::json!({"group": k.group, "plural": k.plural, "namespace": ns, "name": name, "status": status});
        let answer = http(&e.control_url, "POST", "/status", &body.to_string());
        assert!(!answer.contains("\"Failure\""), "set status of {name}: {answer}");
    }

    /// Switches on the emulator's KEDA simulation (`kube-emulator/src/keda.rs`): from now on every
    /// write of a KEDA kind or a Secret rebuilds and queries each ScaledObject's triggers and writes
    /// the status KEDA would. Runs it once now.
    pub fn simulate_keda(&self) {
        let Some(e) = &self.emulator else {
            panic!("simulate_keda needs the emulator's control endpoint");
        };
        let answer = http(&e.control_url, "POST", "/keda", "{\"enabled\": true}");
        assert!(answer.contains("\"ok\""), "KEDA simulation: {answer}");
    }

    /// Switches on the emulator's Karpenter simulation (`kube-emulator/src/karpenter/`) with a
    /// scenario: `{"flavor": "karpenter"|"auto_mode", "outcome": "provisioned"|
    /// "no_compatible_instance_types"|"insufficient_capacity"|"launch_failed"|"pending",
    /// "instance_type", "zone", "capacity_type", "launch_ms", "register_ms", "initialize_ms",
    /// "terminate_ms", "retry_ms", "launch_timeout_ms"}` (all optional); `{"enabled": false}`
    /// switches it off. Returns `Err` with the reason where it cannot run (no emulator in front;
    /// the real API server lane runs no controllers), for the test to say `SKIPPED:`.
    pub fn simulate_karpenter(&self, scenario: Value) -> Result<(), String> {
        let Some(e) = &self.emulator else {
            return Err("the Karpenter simulation needs the emulator's control endpoint".into());
        };
        let answer = http(&e.control_url, "POST", "/karpenter", &scenario.to_string());
        if answer.contains("\"NotImplemented\"") {
            return Err(format!("Karpenter simulation: {answer}"));
        }
        assert!(answer.contains("\"ok\""), "Karpenter simulation: {answer}");
        Ok(())
    }

    /// The Karpenter simulation's record: `{"enabled", "scenario", "nodeclaims": [{"name",
    /// "nodepool", "pod": {"namespace", "name"}, "created", "launched", "deleted", "gone",
    /// "instance": null | {"id", "type", "zone", "capacity_type", "running"}}]}`.
    pub fn karpenter_record(&self) -> Value {
        let Some(e) = &self.emulator else {
            panic!("karpenter_record needs the emulator's control endpoint");
        };
        let answer = http(&e.control_url, "GET", "/karpenter", "");
        serde_json::from_str(&answer).unwrap_or_else(|err| panic!("Karpenter record {answer:?}: {err}"))
    }

    /// The emulator's request log (method, path, query, auth), after clearing nothing.
    pub fn requests(&self) -> Vec<Value> {
        let Some(e) = &self.emulator else { return Vec::new() };
        serde_json::from_str(&http(&e.control_url, "GET", "/requests", "")).unwrap_or_default()
    }

    /// Injects a fault in the emulator: `{"method", "path" (regex), "status", "count", "latency_ms"}`.
    pub fn fault(&self, fault: &Value) {
        if let Some(e) = &self.emulator {
            http(&e.control_url, "POST", "/faults", &fault.to_string());
        }
    }

    /// Drops faults not yet served.
    pub fn clear_faults(&self) {
        if let Some(e) = &self.emulator {
            http(&e.control_url, "DELETE", "/faults", "");
        }
    }

    pub fn clear_requests(&self) {
        if let Some(e) = &self.emulator {
            http(&e.control_url, "DELETE", "/requests", "");
        }
    }
}

impl Drop for KubeTarget {
    fn drop(&mut self) {
        if let Some(e) = &mut self.emulator {
            let _ = e.child.kill();
            let _ = e.child.wait();
        }
    }
}

/// The real API server lane's kubeconfig (`EKSGPU_KUBE_UPSTREAM`), if this run is that lane.
pub fn upstream_kubeconfig() -> Option<String> {
    std::env::var("EKSGPU_KUBE_UPSTREAM").ok().filter(|s| !s.is_empty())
}

/// A minimal HTTP/1.0 call to a loopback control endpoint.
pub fn http(base: &str, method: &str, path: &str, body: &str) -> String {
    use std::io::{Read, Write};
    let addr = base.trim_start_matches("http://");
    let mut s = std::net::TcpStream::connect(addr).unwrap_or_else(|e| panic!("{addr}: {e}"));
    let req = format!(
        "{method} {path} HTTP/1.0\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    let mut resp = String::new();
    s.read_to_string(&mut resp).unwrap_or_else(|e| panic!("{e}"));
    resp.split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default()
}
