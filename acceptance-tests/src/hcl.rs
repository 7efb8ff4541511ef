//! The HCL a test configuration starts with: the `required_providers` entry
//! that maps `eksgpu` to the provider in the working directory's mirror, and
//! the provider block with what the test points it at (the emulator's
//! `kubernetes` block, AWS endpoints). Tests that are about the provider block
//! itself (its errors, aliases, a missing region) write theirs out instead.

use crate::kube::KubeTarget;

/// `terraform { required_providers { eksgpu = … } }` alone: for a module, or a
/// configuration that calls only provider functions.
pub const REQUIRED_PROVIDERS: &str =
    "terraform {\n  required_providers {\n    eksgpu = { source = \"eksgpu/eksgpu\" }\n  }\n}\n";

/// Port 1 on loopback: nothing listens there, so a call is refused at once.
pub const DEAD_ENDPOINT: &str = "http://127.0.0.1:1";

/// The provider block's settings. The region is always `us-west-2`: moto's
/// fixtures and the rules' region-specific facts are there.
#[derive(Debug, Clone, Default)]
pub struct Provider {
    settings: String,
}

impl Provider {
    pub fn new() -> Provider {
        Provider::default()
    }

    /// Reaches the cluster `kube` serves, with its `kubernetes` block
    /// ([`KubeTarget::provider_block`]).
    pub fn kube(mut self, kube: &KubeTarget) -> Provider {
        self.settings.push_str(&kube.provider_block());
        self
    }

    /// An `endpoints` block with these `(service, URL)` pairs.
    pub fn endpoints(self, endpoints: &[(&str, &str)]) -> Provider {
        let lines: String = endpoints
            .iter()
            .map(|(s, url)| format!("  {s} = \"{url}\"\n"))
            .collect();
        self.setting(&format!("endpoints {{\n{lines}}}"))
    }

    /// EKS and STS at [`DEAD_ENDPOINT`]: a plan that needed AWS fails at once
    /// instead of finding credentials or a cluster.
    pub fn offline(self) -> Provider {
        self.endpoints(&[("eks", DEAD_ENDPOINT), ("sts", DEAD_ENDPOINT)])
    }

    /// One more setting as written (`karpenter_version = "1.15"`, a
    /// `default_tags` block), indented into the block.
    pub fn setting(mut self, hcl: &str) -> Provider {
        for line in hcl.lines() {
            self.settings.push_str("  ");
            self.settings.push_str(line);
            self.settings.push('\n');
        }
        self
    }

    /// [`REQUIRED_PROVIDERS`] and the provider block.
    pub fn header(&self) -> String {
        format!(
            "{REQUIRED_PROVIDERS}provider \"eksgpu\" {{\n  region = \"us-west-2\"\n{}}}\n",
            self.settings
        )
    }
}

/// The header of a configuration that needs nothing but the region (plans
/// that reach no cluster and no AWS API).
pub fn provider_header() -> String {
    Provider::new().header()
}

/// The node role the pool snippets below name (any IAM role ARN: the plan does not read it).
pub const NODE_ROLE: &str = "arn:aws:iam::123456789012:role/gpu-nodes";

/// One `pools` entry: a managed node group pool `name` of `types` (HCL), with `extra` attributes.
pub fn node_group_pool(name: &str, types: &str, extra: &str) -> String {
    format!(
        r#"{name} = {{
    capacity       = "managed_node_group"
    instance_types = {types}
    {extra}
    managed_node_group = {{
      node_role_arn = "{NODE_ROLE}"
      subnet_ids    = ["subnet-1"]
      disk_size     = 200
      scaling       = {{ min = 0, max = 2, desired = 0 }}
    }}
  }}"#
    )
}
