//! moto, the AWS emulator, behind `emulators/aws_front.py` (cluster endpoints
//! for DescribeCluster, a request log, fault injection), on a free loopback
//! port for the life of a test.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Moto {
    child: Child,
    pub port: u16,
}

impl Moto {
    pub fn start() -> Moto {
        let tools = crate::tools::tools();
        let script = crate::repo_root().join("acceptance-tests/emulators/aws_front.py");
        // The front binds port 0 and prints the port it got, so parallel tests never race for one.
        let mut child = Command::new(&tools.python)
            .arg(&script)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("failed to start {}: {e}", script.display()));
        let mut line = String::new();
        let stdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
        std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line)
            .unwrap_or_else(|e| panic!("reading the AWS front's port: {e}"));
        let port = serde_json::from_str::<serde_json::Value>(&line)
            .ok()
            .and_then(|v| v["port"].as_u64())
            .and_then(|p| u16::try_from(p).ok())
            .unwrap_or_else(|| panic!("the AWS front said {line:?} instead of its port"));
        let moto = Moto { child, port };
        moto.wait_ready();
        moto
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn wait_ready(&self) {
        // Ready in ~1 s on an idle machine; bounded so a broken install fails fast.
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", self.port)) {
                use std::io::{Read, Write};
                let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
                let req = "GET /moto-api/ HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
                let mut resp = String::new();
                if s.write_all(req.as_bytes()).is_ok()
                    && s.read_to_string(&mut resp).is_ok()
                    && resp.starts_with("HTTP/1.")
                    && resp.contains(" 200 ")
                {
                    return;
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("moto did not become ready on port {} within 30 s", self.port);
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Moto {
    /// Creates an EKS cluster in moto and makes DescribeCluster answer with
    /// the given API endpoint and CA (base64 of PEM, as EKS returns it). The
    /// cluster sits in a VPC `10.0.0.0/16` with one subnet, service CIDR
    /// `172.20.0.0/16`; `extra` adds or replaces CreateCluster fields.
    pub fn create_cluster(&self, name: &str, version: &str, endpoint: &str, ca_pem: &str) {
        self.create_cluster_with(name, version, endpoint, ca_pem, serde_json::json!({}));
    }

    pub fn create_cluster_with(
        &self,
        name: &str,
        version: &str,
        endpoint: &str,
        ca_pem: &str,
        extra: serde_json::Value,
    ) {
        use base64::Engine;
        let (_, subnet) = self.vpc("10.0.0.0/16", "10.0.1.0/24");
        let mut body = serde_json::json!({
            "name": name, "version": version, "roleArn": "arn:aws:iam::123456789012:role/eks-cluster",
            "resourcesVpcConfig": {"subnetIds": [subnet]},
            "kubernetesNetworkConfig": {"serviceIpv4Cidr": "172.20.0.0/16"},
        });
        if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
            b.extend(e.clone());
        }
        let created = self.eks("POST", "/clusters", &body);
        assert!(
            created.get("cluster").is_some(),
            "create cluster in moto failed: {created}"
        );
        let ca = base64::engine::general_purpose::STANDARD.encode(ca_pem);
        let reg = serde_json::json!({"endpoint": endpoint, "ca_data": ca}).to_string();
        raw(self.port, "POST", &format!("/_eksgpu/clusters/{name}"), &reg, &[]);
    }

    /// Creates a VPC with one subnet in EC2; returns their IDs.
    pub fn vpc(&self, vpc_cidr: &str, subnet_cidr: &str) -> (String, String) {
        let vpc = self.ec2(&format!("Action=CreateVpc&CidrBlock={vpc_cidr}"));
        let vpc_id = xml_value(&vpc, "vpcId").unwrap_or_else(|| panic!("CreateVpc: {vpc}"));
        let subnet = self.ec2(&format!(
            "Action=CreateSubnet&VpcId={vpc_id}&CidrBlock={subnet_cidr}&AvailabilityZone=us-west-2a"
        ));
        let subnet_id = xml_value(&subnet, "subnetId").unwrap_or_else(|| panic!("CreateSubnet: {subnet}"));
        (vpc_id, subnet_id)
    }

    /// An EKS API call (restJson) as an operator would make it out of band.
    pub fn eks(&self, method: &str, path: &str, body: &serde_json::Value) -> serde_json::Value {
        // moto routes by the SigV4 credential scope and does not check signatures.
        let auth =
            "AWS4-HMAC-SHA256 Credential=testing/20261129/us-west-2/eks/aws4_request, SignedHeaders=host, Signature=0";
        let text = if body.is_null() {
            String::new()
        } else {
            body.to_string()
        };
        let resp = raw(self.port, method, path, &text, &[("Authorization", auth)]);
        serde_json::from_str(&resp).unwrap_or(serde_json::Value::String(resp))
    }

    /// An EC2 query-protocol call; returns the XML answer.
    pub fn ec2(&self, params: &str) -> String {
        let auth =
            "AWS4-HMAC-SHA256 Credential=testing/20261129/us-west-2/ec2/aws4_request, SignedHeaders=host, Signature=0";
        raw_typed(
            self.port,
            "POST",
            "/",
            &format!("{params}&Version=2016-11-15"),
            "application/x-www-form-urlencoded",
            &[("Authorization", auth)],
        )
    }

    /// Injects a fault in front of moto (see `emulators/aws_front.py`):
    /// `{method, path (regex), action, status, code, count, after, latency_ms}`.
    pub fn fault(&self, fault: &serde_json::Value) {
        raw(self.port, "POST", "/_eksgpu/faults", &fault.to_string(), &[]);
    }

    pub fn clear_faults(&self) {
        raw(self.port, "DELETE", "/_eksgpu/faults", "", &[]);
    }

    /// Statuses the next Describe calls of a node group (`kind = "nodegroup"`)
    /// or cluster show after an operation (`"create"`, `"update"`, `"delete"`),
    /// or from now on (`"now"`).
    pub fn status_sequence(&self, kind: &str, name: &str, operation: &str, statuses: &[&str]) {
        let key = if operation == "now" {
            "now".to_owned()
        } else {
            format!("after_{operation}")
        };
        let body = serde_json::json!({"kind": kind, "name": name, key: statuses});
        raw(self.port, "POST", "/_eksgpu/status", &body.to_string(), &[]);
    }

    pub fn clear_requests(&self) {
        raw(self.port, "DELETE", "/_eksgpu/requests", "", &[]);
    }

    /// How many logged requests match `method` and a path containing `path_part`.
    pub fn count(&self, method: &str, path_part: &str) -> usize {
        self.requests()
            .iter()
            .filter(|r| r["method"] == method && r["path"].as_str().is_some_and(|p| p.contains(path_part)))
            .count()
    }

    /// The AWS request log: `{operation, method, path}` per call.
    pub fn requests(&self) -> Vec<serde_json::Value> {
        serde_json::from_str(&raw(self.port, "GET", "/_eksgpu/requests", "", &[])).unwrap_or_default()
    }
}

fn raw(port: u16, method: &str, path: &str, body: &str, headers: &[(&str, &str)]) -> String {
    raw_typed(port, method, path, body, "application/json", headers)
}

fn xml_value(xml: &str, tag: &str) -> Option<String> {
    let start = xml.find(&format!("<{tag}>"))? + tag.len() + 2;
    let end = start + xml[start..].find(&format!("</{tag}>"))?;
    Some(xml[start..end].to_owned())
}

fn raw_typed(port: u16, method: &str, path: &str, body: &str, content_type: &str, headers: &[(&str, &str)]) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap_or_else(|e| panic!("{e}"));
    let extra: String = headers.iter().map(|(k, v)| format!("{k}: {v}\r\n")).collect();
    let req = format!(
        "{method} {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nContent-Type: {content_type}\r\n{extra}Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    let mut resp = String::new();
    s.read_to_string(&mut resp).unwrap_or_else(|e| panic!("{e}"));
    resp.split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default()
}
