//! Every rule the node strategy and the sharing pool check fails a plan
//! (errors) or warns it (warnings) with its code, its catalogue summary and the
//! attribute it is about. Plans are offline.
//!
//! Each case is planned through the protocol client (`grpc::plan`), which
//! makes Terraform's calls to the real provider process: what is asserted is
//! what the provider says, and an `init` and a `plan` per case on each CLI
//! would add nothing to it. The cases in `ON_THE_CLI` also run through both
//! Terraform CLIs, for what Terraform itself does with a rule's diagnostic: the
//! exit code, and the configuration line its attribute path leads to. Unknown
//! values and `dynamic` blocks under the rules are in unknowns.rs.

use eksgpu_acceptance_tests::grpc::plan::{Planned, Severity, plan};
use eksgpu_acceptance_tests::hcl::{Provider, provider_header};
use eksgpu_acceptance_tests::{TerraformVersion, Workdir, terraform_versions};

/// (code, is_error, attribute path of the diagnostic, pool body)
const CASES: &[(&str, bool, &str, &str)] = &[
    (
        "EKSGPU001",
        true,
        "pools[\"p\"].labels[\"nvidia.com/mig.config\"]",
        r#"capacity = "auto_mode"
    instance_types = ["p5.48xlarge"]
    labels = { "nvidia.com/mig.config" = "all-1g.10gb" }"#,
    ),
    (
        "EKSGPU002",
        true,
        "pools[\"p\"].labels[\"nvidia.com/mig.config\"]",
        r#"capacity = "karpenter"
    instance_types = ["g5.2xlarge"]
    labels = { "nvidia.com/mig.config" = "all-1g.10gb" }
    node_class = { role = "r" }"#,
    ),
    (
        "EKSGPU003",
        true,
        "pools[\"p\"].labels[\"nvidia.com/mig.config\"]",
        r#"capacity = "karpenter"
    instance_types = ["p5en.48xlarge"]
    labels = { "nvidia.com/mig.config" = "all-1g.10gb" }
    node_class = { role = "r" }"#,
    ),
    (
        "EKSGPU003",
        true,
        "pools[\"p\"].labels[\"nvidia.com/mig.config\"]",
        r#"capacity = "karpenter"
    instance_types = ["p5en.48xlarge"]
    labels = { "nvidia.com/mig.config" = "garbage" }
    node_class = { role = "r" }"#,
    ),
    (
        // On Karpenter 1.14 (the default) a dynamic DRA pool never gets a node for its claims.
        "EKSGPU165",
        true,
        "pools[\"p\"].dra",
        r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    dra = true
    node_class = {
      role = "r"
      root_volume = { size = "200Gi" }
    }"#,
    ),
    (
        // Static Auto Mode capacity needs no gate; consolidation does not apply to it.
        "EKSGPU162",
        false,
        "pools[\"p\"].disruption",
        r#"capacity = "auto_mode"
    instance_types = ["p5.48xlarge"]
    replicas = 2
    node_limit = 4
    disruption = { consolidation_policy = "WhenEmpty" }"#,
    ),
    (
        "EKSGPU163",
        false,
        "pools[\"p\"].node_limit",
        r#"capacity = "auto_mode"
    instance_types = ["p5.48xlarge"]
    replicas = 2
    node_limit = 2"#,
    ),
    (
        "EKSGPU005",
        true,
        "pools[\"p\"].disruption.consolidation_policy",
        r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    disruption = {
      consolidation_policy = "WhenUnderutilized"
      consolidate_after    = "5m"
    }
    node_class = { role = "r" }"#,
    ),
    (
        "EKSGPU006",
        true,
        "pools[\"p\"].node_class.kubelet",
        r#"capacity = "auto_mode"
    instance_types = ["g6e.xlarge"]
    node_class = {
      kubelet = { max_pods = 110 }
    }"#,
    ),
    (
        "EKSGPU009",
        false,
        "pools[\"p\"].instance_types[0]",
        r#"capacity = "auto_mode"
    instance_types = ["p5en.48xlarge"]"#,
    ),
    (
        "EKSGPU010",
        true,
        "pools[\"p\"].labels[\"nvidia.com/gpu.deploy.device-plugin\"]",
        r#"capacity = "auto_mode"
    instance_types = ["g6e.xlarge"]
    labels = { "nvidia.com/gpu.deploy.device-plugin" = "true" }"#,
    ),
    (
        "EKSGPU011",
        false,
        "pools[\"p\"].labels[\"nvidia.com/device-plugin.config\"]",
        r#"capacity = "karpenter"
    instance_types = ["g5.2xlarge"]
    labels = { "nvidia.com/device-plugin.config" = "ts-2" }
    node_class = { role = "r" }"#,
    ),
    (
        "EKSGPU014",
        false,
        "pools[\"p\"].gpu_taint",
        r#"capacity = "karpenter"
    instance_types = ["g5.2xlarge"]
    gpu_taint = false
    node_class = { role = "r" }"#,
    ),
    (
        "EKSGPU015",
        true,
        "pools[\"p\"].labels[\"nvidia.com/mig.config\"]",
        r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    labels = { "nvidia.com/mig.config" = "all-balanced" }
    node_class = { role = "r" }"#,
    ),
    (
        "EKSGPU016",
        true,
        "pools[\"p\"].instance_types[0]",
        r#"capacity = "karpenter"
    instance_types = ["m5.large"]
    node_class = { role = "r" }"#,
    ),
    (
        "EKSGPU017",
        true,
        "pools[\"p\"].labels[\"gpu\"]",
        r#"capacity = "karpenter"
    instance_types = ["g5.2xlarge"]
    labels = { "gpu" = "on" }
    node_class = { role = "r" }"#,
    ),
    (
        "EKSGPU137",
        true,
        "pools[\"p\"].labels[\"eksgpu.terraform.io/gpu-replicas\"]",
        r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    labels = { "nvidia.com/device-plugin.config" = "ts-2", "eksgpu.terraform.io/gpu-replicas" = "9223372036854775807" }
    node_class = { role = "r" }"#,
    ),
    (
        "EKSGPU138",
        true,
        "pools[\"p\"].labels[\"eksgpu.terraform.io/gpu-replicas\"]",
        r#"capacity = "karpenter"
    instance_types = ["g6f.xlarge"]
    labels = { "nvidia.com/device-plugin.config" = "ts-2", "eksgpu.terraform.io/gpu-replicas" = "4" }
    node_class = { role = "r" }"#,
    ),
    (
        "EKSGPU101",
        false,
        "pools[\"p\"].instance_types[0]",
        r#"capacity = "karpenter"
    instance_types = ["g6f.xlarge"]
    node_class = { role = "r" }"#,
    ),
    (
        "EKSGPU102",
        true,
        "pools[\"p\"].labels[\"nvidia.com/device-plugin.config\"]",
        r#"capacity = "auto_mode"
    instance_types = ["g5.2xlarge"]
    labels = { "nvidia.com/device-plugin.config" = "ts-2" }"#,
    ),
    (
        "EKSGPU103",
        true,
        "pools[\"p\"].node_class.ami_alias",
        r#"capacity = "auto_mode"
    instance_types = ["g6e.xlarge"]
    node_class = { ami_alias = "al2023@latest" }"#,
    ),
    (
        "EKSGPU104",
        true,
        "pools[\"p\"].capacity",
        r#"capacity = "karpenter"
    instance_types = ["g6e.xlarge"]"#,
    ),
    (
        "EKSGPU105",
        true,
        "pools[\"Bad_Name\"]",
        r#"capacity = "karpenter"
    instance_types = ["g6e.xlarge"]
    node_class = { role = "r" }
  }
  Bad_Name = {
    capacity = "karpenter"
    instance_types = ["g6e.xlarge"]
    node_class = { role = "r" }"#,
    ),
    (
        "EKSGPU106",
        true,
        "pools[\"p\"].capacity_types[0]",
        r#"capacity = "karpenter"
    instance_types = ["g6e.xlarge"]
    capacity_types = ["SPOT"]
    node_class = { role = "r" }"#,
    ),
    (
        "EKSGPU007",
        true,
        "pools[\"p\"].hybrid.remote_node_networks[1]",
        r#"capacity = "hybrid"
    hybrid = {
      remote_node_networks = ["10.80.0.0/16", "8.8.8.0/24"]
      node_role_arn        = "arn:aws:iam::123456789012:role/hybrid"
    }"#,
    ),
    (
        "EKSGPU008",
        false,
        "pools[\"q\"].capacity",
        r#"capacity = "auto_mode"
    instance_types = ["g6e.xlarge"]
  }
  q = {
    capacity = "managed_node_group"
    instance_types = ["g6e.xlarge"]
    managed_node_group = {
      node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
      subnet_ids    = ["subnet-1"]
      scaling = {
        min     = 0
        max     = 2
        desired = 0
      }
    }"#,
    ),
    (
        "EKSGPU013",
        true,
        "pools[\"p\"].managed_node_group.ami_type",
        r#"capacity = "managed_node_group"
    instance_types = ["g5g.xlarge"]
    managed_node_group = {
      node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
      subnet_ids    = ["subnet-1"]
      ami_type = "AL2023_x86_64_NVIDIA"
      scaling = {
        min     = 0
        max     = 2
        desired = 0
      }
    }"#,
    ),
    (
        "EKSGPU115",
        true,
        "pools[\"p\"].capacity",
        r#"capacity = "managed_node_group"
    instance_types = ["g6e.xlarge"]"#,
    ),
    (
        "EKSGPU116",
        true,
        "pools[\"q\"].capacity",
        r#"capacity = "hybrid"
    hybrid = {
      remote_node_networks = ["10.80.0.0/16"]
      node_role_arn        = "arn:aws:iam::123456789012:role/hybrid"
    }
  }
  q = {
    capacity = "hybrid"
    hybrid = {
      remote_node_networks = ["10.81.0.0/16"]
      node_role_arn        = "arn:aws:iam::123456789012:role/hybrid"
    }"#,
    ),
    (
        "EKSGPU117",
        true,
        "pools[\"p\"].capacity_types[0]",
        r#"capacity = "managed_node_group"
    instance_types = ["g6e.xlarge"]
    capacity_types = ["reserved"]
    managed_node_group = {
      node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
      subnet_ids    = ["subnet-1"]
      scaling = {
        min     = 0
        max     = 2
        desired = 0
      }
    }"#,
    ),
    (
        "EKSGPU118",
        true,
        "pools[\"p\"].node_class.ami_alias",
        r#"capacity = "karpenter"
    instance_types = ["g6e.xlarge"]
    node_class = {
      role      = "r"
      ami_alias = "al2023"
    }"#,
    ),
    (
        "EKSGPU119",
        true,
        "pools[\"p\"].capacity_types",
        r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    capacity_types = ["reserved"]
    node_class = { role = "r" }"#,
    ),
    (
        "EKSGPU120",
        true,
        "pools[\"p\"].node_class.role",
        r#"capacity = "auto_mode"
    instance_types = ["g6e.xlarge"]
    node_class = {
      tags = { team = "ml" }
    }"#,
    ),
    (
        "EKSGPU121",
        true,
        "pools[\"p\"].labels[\"nvidia.com/device-plugin.config\"]",
        r#"capacity = "karpenter"
    instance_types = ["g5.2xlarge"]
    labels = { "nvidia.com/device-plugin.config" = "ts-2" }
    node_class = {
      role      = "r"
      ami_alias = "bottlerocket@latest"
    }"#,
    ),
    (
        "EKSGPU122",
        false,
        "pools[\"p\"].labels[\"nvidia.com/mig.config\"]",
        r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    labels = { "nvidia.com/mig.config" = "all-1g.10gb" }
    node_class = { role = "r" }"#,
    ),
    (
        "EKSGPU123",
        false,
        "pools[\"p\"].node_class.root_volume.size",
        r#"capacity = "karpenter"
    instance_types = ["g6e.xlarge"]
    node_class = {
      role = "r"
      root_volume = { size = "20Gi" }
    }"#,
    ),
    (
        "EKSGPU123",
        false,
        "pools[\"p\"].node_class.root_volume.size",
        r#"capacity = "karpenter"
    instance_types = ["g5g.xlarge"]
    node_class = {
      role                  = "r"
      instance_store_policy = "RAID0"
      root_volume = { size = "20Gi" }
    }"#,
    ),
    (
        "EKSGPU135",
        true,
        "pools[\"p\"].gpu_limit",
        r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    gpu_limit = 4
    node_class = { role = "r" }"#,
    ),
    (
        "EKSGPU136",
        false,
        "pools[\"p\"].memory_limit",
        r#"capacity = "karpenter"
    instance_types = ["g6e.xlarge"]
    memory_limit = "16Gi"
    node_class = { role = "r" }"#,
    ),
    (
        "EKSGPU125",
        true,
        "pools[\"p\"].tags[\"eksgpu.terraform.io/strategy\"]",
        r#"capacity = "managed_node_group"
    instance_types = ["p5.48xlarge"]
    tags = { "eksgpu.terraform.io/strategy" = "other" }
    managed_node_group = {
      node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
      subnet_ids    = ["subnet-1"]
      disk_size     = 200
      scaling = {
        min     = 0
        max     = 2
        desired = 0
      }
    }"#,
    ),
    (
        "EKSGPU126",
        true,
        "pools[\"p\"].instance_types[0]",
        r#"capacity = "karpenter"
    instance_types = ["g6e.xlarge"]
    efa = true
    zones = ["us-west-2a"]
    node_class = { role = "r" }"#,
    ),
    (
        "EKSGPU127",
        false,
        "pools[\"p\"].zones",
        r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    efa = true
    node_class = {
      role = "r"
      root_volume = { size = "200Gi" }
    }"#,
    ),
    (
        "EKSGPU128",
        false,
        "pools[\"p\"].capacity_types",
        r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    node_class = {
      role = "r"
      root_volume = { size = "200Gi" }
      capacity_reservations = [
        { id = "cr-0123456789abcdef0" },
      ]
    }"#,
    ),
    (
        "EKSGPU129",
        true,
        "pools[\"p\"].node_class.capacity_reservations[0]",
        r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    capacity_types = ["reserved"]
    node_class = {
      role = "r"
      capacity_reservations = [
        {
          id   = "cr-0123456789abcdef0"
          tags = { purpose = "training" }
        },
      ]
    }"#,
    ),
    (
        "EKSGPU124",
        true,
        "pools[\"p\"].node_class.metadata_options",
        r#"capacity = "auto_mode"
    instance_types = ["g6e.xlarge"]
    node_class = {
      role = "r"
      metadata_options = { http_put_response_hop_limit = 2 }
    }"#,
    ),
    (
        "EKSGPU133",
        true,
        "pools[\"p\"].node_class.root_volume.size",
        r#"capacity = "karpenter"
    instance_types = ["g6e.xlarge"]
    node_class = {
      role = "r"
      root_volume = { size = "1.5Ti" }
    }"#,
    ),
    (
        "EKSGPU133",
        true,
        "pools[\"p\"].node_class.root_volume.iops",
        r#"capacity = "karpenter"
    instance_types = ["g6e.xlarge"]
    node_class = {
      role = "r"
      root_volume = {
        size        = "200Gi"
        volume_type = "gp2"
        iops        = 3000
      }
    }"#,
    ),
    (
        "EKSGPU133",
        true,
        "pools[\"p\"].node_class.root_volume.iops",
        r#"capacity = "auto_mode"
    instance_types = ["g6e.xlarge"]
    node_class = {
      role = "r"
      root_volume = {
        size = "200Gi"
        iops = 20000
      }
    }"#,
    ),
    (
        "EKSGPU124",
        true,
        "pools[\"p\"].node_class.root_volume.volume_type",
        r#"capacity = "auto_mode"
    instance_types = ["g6e.xlarge"]
    node_class = {
      role = "r"
      root_volume = {
        size        = "200Gi"
        volume_type = "gp3"
      }
    }"#,
    ),
    (
        "EKSGPU117",
        true,
        "pools[\"p\"].labels[\"example.com/a-label-key-longer-than-the-sixty-three-characters-eks-takes\"]",
        r#"capacity = "managed_node_group"
    instance_types = ["g6e.xlarge"]
    labels = { "example.com/a-label-key-longer-than-the-sixty-three-characters-eks-takes" = "x" }
    managed_node_group = {
      node_role_arn = "arn:aws:iam::123456789012:role/gpu"
      subnet_ids    = ["subnet-1"]
      disk_size     = 200
      scaling = {
        min     = 0
        max     = 1
        desired = 0
      }
    }"#,
    ),
    (
        "EKSGPU170",
        true,
        "pools[\"p\"].requirements[0]",
        r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    requirements = [
      {
        key      = "karpenter.sh/nodepool"
        operator = "In"
        values   = ["other"]
      },
    ]
    node_class = {
      role = "r"
      root_volume = { size = "200Gi" }
    }"#,
    ),
    (
        "EKSGPU171",
        true,
        "pools[\"p\"].requirements[0]",
        r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    requirements = [
      {
        key      = "karpenter.sh/capacity-type"
        operator = "In"
        values   = ["spot"]
      },
    ]
    node_class = {
      role = "r"
      root_volume = { size = "200Gi" }
    }"#,
    ),
    (
        // p has no L40S: nothing is left after the second requirement.
        "EKSGPU172",
        true,
        "pools[\"p\"].requirements[1]",
        r#"capacity = "karpenter"
    requirements = [
      {
        key      = "karpenter.k8s.aws/instance-category"
        operator = "In"
        values   = ["p"]
      },
      {
        key      = "karpenter.k8s.aws/instance-gpu-name"
        operator = "In"
        values   = ["l40s"]
      },
    ]
    node_class = {
      role = "r"
      root_volume = { size = "200Gi" }
    }"#,
    ),
    (
        // A generation alone does not keep Karpenter on accelerated types.
        "EKSGPU173",
        false,
        "pools[\"p\"].requirements",
        r#"capacity = "karpenter"
    requirements = [
      {
        key      = "karpenter.k8s.aws/instance-generation"
        operator = "Gt"
        values   = ["4"]
      },
    ]
    node_class = {
      role = "r"
      root_volume = { size = "200Gi" }
    }"#,
    ),
    (
        // One DRA driver release: its GPU kubelet plugin, there for pool p, would also run on the
        // GB200 nodes of q, whose GPUs the device plugin serves.
        "EKSGPU145",
        true,
        "pools[\"p\"].dra",
        r#"capacity = "managed_node_group"
    instance_types = ["p5.48xlarge"]
    dra = true
    managed_node_group = {
      node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
      subnet_ids    = ["subnet-1"]
      scaling       = { min = 0, max = 2, desired = 0 }
    }
  }
  q = {
    capacity          = "managed_node_group"
    instance_types    = ["p6e-gb200.36xlarge"]
    capacity_types    = ["capacity-block"]
    dra               = true
    multi_node_nvlink = true
    managed_node_group = {
      node_role_arn           = "arn:aws:iam::123456789012:role/gpu-nodes"
      subnet_ids              = ["subnet-1"]
      capacity_reservation_id = "cr-0123456789abcdef0"
      scaling                 = { min = 0, max = 2, desired = 0 }
    }"#,
    ),
    (
        // The GPU Operator installs the hybrid pool's driver (/run/nvidia/driver); the node group's
        // AMI has its own (/): one release has one nvidiaDriverRoot.
        "EKSGPU146",
        true,
        "pools[\"p\"].dra",
        r#"capacity = "hybrid"
    dra      = true
    hybrid = {
      remote_node_networks = ["10.80.0.0/16"]
      node_role_arn        = "arn:aws:iam::123456789012:role/hybrid"
    }
  }
  q = {
    capacity       = "managed_node_group"
    instance_types = ["p5.48xlarge"]
    dra            = true
    managed_node_group = {
      node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
      subnet_ids    = ["subnet-1"]
      scaling       = { min = 0, max = 2, desired = 0 }
    }"#,
    ),
    (
        // P6e-GB200 is sold only as Capacity Blocks: an on-demand node group never gets a node.
        "EKSGPU300",
        true,
        "pools[\"p\"].capacity_types",
        r#"capacity = "managed_node_group"
    instance_types = ["p6e-gb200.36xlarge"]
    capacity_types = ["on-demand"]
    managed_node_group = {
      node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
      subnet_ids    = ["subnet-1"]
      scaling = {
        min     = 0
        max     = 2
        desired = 0
      }
    }"#,
    ),
    (
        // EKS AMIs from v20251103 run GB200 with CDMM, under which MIG is not supported.
        "EKSGPU301",
        false,
        "pools[\"p\"].labels[\"nvidia.com/mig.config\"]",
        r#"capacity = "managed_node_group"
    instance_types = ["p6e-gb200.36xlarge"]
    capacity_types = ["capacity-block"]
    labels = { "nvidia.com/mig.config" = "all-1g.23gb" }
    managed_node_group = {
      node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
      subnet_ids    = ["subnet-1"]
      capacity_reservation_id = "cr-0123456789abcdef0"
      scaling = {
        min     = 0
        max     = 2
        desired = 0
      }
    }"#,
    ),
    (
        // A NotIn on a label no Auto Mode node carries holds everywhere: it excludes nothing.
        "EKSGPU312",
        false,
        "pools[\"p\"].requirements[1]",
        r#"capacity = "auto_mode"
    requirements = [
      {
        key      = "eks.amazonaws.com/instance-gpu-manufacturer"
        operator = "In"
        values   = ["nvidia"]
      },
      {
        key      = "karpenter.k8s.aws/instance-family"
        operator = "NotIn"
        values   = ["g6e"]
      },
    ]"#,
    ),
    (
        // Auto Mode nodes carry eks.amazonaws.com/instance-family, not Karpenter's label.
        "EKSGPU313",
        true,
        "pools[\"p\"].requirements[0]",
        r#"capacity = "auto_mode"
    requirements = [
      {
        key      = "karpenter.k8s.aws/instance-family"
        operator = "In"
        values   = ["g6e"]
      },
    ]"#,
    ),
    (
        "EKSGPU174",
        true,
        "pools[\"p\"].node_class.user_data",
        r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    node_class = {
      role      = "r"
      user_data = "[settings.kubernetes]\nmax-pods = 50\n"
      kubelet = { max_pods = 110 }
      root_volume = { size = "200Gi" }
    }"#,
    ),
    (
        "EKSGPU175",
        true,
        "pools[\"p\"].node_class.block_device_mappings[0]",
        r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    node_class = {
      role = "r"
      root_volume = { size = "200Gi" }
      block_device_mappings = [
        {
          device_name = "/dev/xvda"
          volume_size = "100Gi"
        },
      ]
    }"#,
    ),
    (
        "EKSGPU176",
        true,
        "pools[\"p\"].node_class.network_interfaces",
        r#"capacity = "karpenter"
    instance_types = ["p5.48xlarge"]
    node_class = {
      role = "r"
      root_volume = { size = "200Gi" }
      network_interfaces = [
        {
          network_card_index = 1
          device_index       = 0
          interface_type     = "efa-only"
        },
      ]
    }"#,
    ),
    (
        "EKSGPU185",
        true,
        "pools[\"p\"].multi_node_nvlink",
        r#"capacity = "managed_node_group"
    instance_types = ["p6e-gb200.36xlarge"]
    multi_node_nvlink = true
    managed_node_group = {
      node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
      subnet_ids    = ["subnet-1"]
      ami_type      = "AL2023_ARM_64_NVIDIA"
      scaling = {
        min     = 0
        max     = 2
        desired = 0
      }
    }"#,
    ),
    (
        "EKSGPU186",
        true,
        "pools[\"p\"].instance_types[0]",
        r#"capacity = "managed_node_group"
    instance_types = ["p5.48xlarge"]
    dra = true
    multi_node_nvlink = true
    managed_node_group = {
      node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
      subnet_ids    = ["subnet-1"]
      ami_type      = "AL2023_x86_64_NVIDIA"
      scaling = {
        min     = 0
        max     = 2
        desired = 0
      }
    }"#,
    ),
    (
        "EKSGPU187",
        true,
        "pools[\"p\"].compute_domain_namespace",
        r#"capacity = "managed_node_group"
    instance_types = ["p5.48xlarge"]
    compute_domain_namespace = "training"
    managed_node_group = {
      node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
      subnet_ids    = ["subnet-1"]
      ami_type      = "AL2023_x86_64_NVIDIA"
      scaling = {
        min     = 0
        max     = 2
        desired = 0
      }
    }"#,
    ),
    (
        "EKSGPU188",
        true,
        "pools[\"p\"].capacity",
        r#"capacity = "karpenter"
    instance_types = ["p6e-gb200.36xlarge"]
    replicas = 2
    dra = true
    multi_node_nvlink = true
    node_class = {
      role = "r"
      root_volume = { size = "200Gi" }
    }"#,
    ),
    (
        // Bottlerocket's own device plugin would serve the GPUs the DRA driver hands out.
        "EKSGPU189",
        false,
        "pools[\"p\"].dra",
        r#"capacity = "managed_node_group"
    instance_types = ["p5.48xlarge"]
    dra = true
    managed_node_group = {
      node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
      subnet_ids    = ["subnet-1"]
      ami_type      = "BOTTLEROCKET_x86_64_NVIDIA"
      scaling = {
        min     = 0
        max     = 2
        desired = 0
      }
    }"#,
    ),
    (
        "EKSGPU182",
        false,
        "pools[\"p\"].instance_types[0]",
        r#"capacity = "managed_node_group"
    instance_types = ["p6e-gb200.36xlarge"]
    capacity_types = ["capacity-block"]
    efa = true
    managed_node_group = {
      node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
      subnet_ids    = ["subnet-1"]
      capacity_reservation_id = "cr-0123456789abcdef0"
      disk_size     = 200
      scaling = {
        min     = 0
        max     = 2
        desired = 0
      }
    }"#,
    ),
    (
        "EKSGPU181",
        true,
        "pools[\"p\"].managed_node_group.capacity_reservation_id",
        r#"capacity = "managed_node_group"
    instance_types = ["p5.48xlarge"]
    capacity_types = ["capacity-block"]
    managed_node_group = {
      node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
      subnet_ids    = ["subnet-1"]
      disk_size     = 200
      scaling = {
        min     = 0
        max     = 2
        desired = 0
      }
    }"#,
    ),
];

fn config(body: &str, mig_strategy: &str) -> String {
    format!(
        r#"{}
resource "eksgpu_node_strategy" "s" {{
  cluster_name = "gpu"
  name         = "rules"
  gpu_operator {{
    mig_strategy = "{mig_strategy}"
  }}
  pools = {{
    p = {{
    {body}
    }}
  }}
}}
"#,
        provider_header()
    )
}

/// EKSGPU015 is about MIG's `single` strategy; the others plan with `mixed`.
fn mig_strategy(code: &str) -> &'static str {
    if code == "EKSGPU015" { "single" } else { "mixed" }
}

fn sharing_config(body: &str) -> String {
    format!(
        "{}resource \"eksgpu_sharing_pool\" \"s\" {{\n  cluster_name = \"gpu\"\n  name = \"p\"\n  {body}\n}}\n",
        provider_header()
    )
}

/// Rules checked by a validator on a schema attribute, whose diagnostic says
/// `Invalid value` (eksgpu-framework `validate.rs`) instead of the catalogue's summary.
const FROM_A_SCHEMA_VALIDATOR: &[&str] = &["EKSGPU108"];

/// What a case's plan must say: a diagnostic with the rule's code, the
/// severity of the case, the rule's summary from the catalogue and the
/// attribute path; a warning's plan goes through to a planned state.
fn check(code: &str, is_error: bool, path: &str, planned: &Planned) -> Result<(), String> {
    let all = || format!("{:#?}", planned.diagnostics);
    let rule = eksgpu_core::rules::RULES
        .iter()
        .find(|r| r.code.as_str() == code)
        .ok_or_else(|| format!("{code} is not in the catalogue"))?;
    let summary = if FROM_A_SCHEMA_VALIDATOR.contains(&code) {
        "Invalid value"
    } else {
        rule.summary
    };
    let prefix = format!("{code}: ");
    let d = planned
        .diagnostics
        .iter()
        .find(|d| d.summary.starts_with(&prefix))
        .ok_or_else(|| format!("{code}: no diagnostic with its code:\n{}", all()))?;
    let severity = if is_error { Severity::Error } else { Severity::Warning };
    if d.severity != severity {
        return Err(format!("{code}: {:?}, expected {severity:?}:\n{}", d.severity, all()));
    }
    if d.summary != format!("{prefix}{summary}") {
        return Err(format!("{code}: summary {:?}, expected {summary:?}", d.summary));
    }
    if d.path != path {
        return Err(format!("{code}: at {:?}, expected {path:?}:\n{}", d.path, all()));
    }
    if !is_error && (planned.has_errors() || planned.planned_state.as_ref().is_none_or(|s| s.is_null())) {
        return Err(format!("{code}: a warning must not stop the plan:\n{}", all()));
    }
    Ok(())
}

/// Plans every case and reports every one that fails, not only the first.
async fn check_all<'a>(cases: impl IntoIterator<Item = (&'a str, bool, &'a str, String)>) {
    let mut failures = Vec::new();
    for (code, is_error, path, main_tf) in cases {
        if let Err(e) = check(code, is_error, path, &plan(&main_tf).await) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[tokio::test]
async fn every_node_strategy_rule_fails_or_warns_a_plan_with_its_code() {
    check_all(
        CASES
            .iter()
            .map(|(code, is_error, path, body)| (*code, *is_error, *path, config(body, mig_strategy(code)))),
    )
    .await;
}

/// (code, is_error, attribute path of the diagnostic, sharing pool body)
const SHARING_CASES: &[(&str, bool, &str, &str)] = &[
    (
        "EKSGPU001",
        true,
        "capacity",
        r#"instance_type = "p5.48xlarge"
  capacity = "auto_mode"
  strategy = "mig"
  mig { config = "all-1g.10gb" }"#,
    ),
    (
        "EKSGPU002",
        true,
        "strategy",
        r#"instance_type = "g5.2xlarge"
  strategy = "mig"
  mig { config = "all-1g.10gb" }"#,
    ),
    (
        "EKSGPU003",
        true,
        "mig[0].profiles[\"1g.10gb\"]",
        r#"instance_type = "p5en.48xlarge"
  strategy = "mig"
  mig { profiles = { "1g.10gb" = 7 } }"#,
    ),
    (
        "EKSGPU003",
        true,
        "mig[0].config",
        r#"instance_type = "p5en.48xlarge"
  strategy = "mig"
  mig { config = "garbage" }"#,
    ),
    (
        "EKSGPU011",
        false,
        "capacity",
        r#"instance_type = "g5.2xlarge"
  capacity = "karpenter"
  strategy = "time_slicing"
  time_slicing { replicas = 2 }"#,
    ),
    (
        "EKSGPU012",
        true,
        "workload",
        r#"instance_type = "g5.2xlarge"
  strategy = "time_slicing"
  time_slicing { replicas = 2 }
  workload {
    name       = "vllm-a"
    memory_mib = 20599
  }
  workload {
    name       = "vllm-b"
    memory_mib = 20599
  }"#,
    ),
    (
        "EKSGPU015",
        true,
        "mig[0].strategy",
        r#"instance_type = "p5.48xlarge"
  strategy = "mig"
  mig {
    strategy = "single"
    config   = "all-balanced"
  }"#,
    ),
    (
        "EKSGPU017",
        true,
        "capacity",
        r#"instance_type = "g5.2xlarge"
  capacity = "auto_mode"
  strategy = "hami"
  hami {}"#,
    ),
    (
        "EKSGPU102",
        true,
        "capacity",
        r#"instance_type = "g5.2xlarge"
  capacity = "auto_mode"
  strategy = "mps"
  mps { replicas = 2 }"#,
    ),
    ("EKSGPU107", true, "instance_type", r#"strategy = "exclusive""#),
    (
        "EKSGPU107",
        true,
        "gpu_model",
        r#"instance_type = "g5.2xlarge"
  gpu_model = "L40S"
  strategy = "exclusive""#,
    ),
    (
        "EKSGPU138",
        true,
        "time_slicing[0].replicas",
        r#"instance_type = "g6f.xlarge"
  strategy = "time_slicing"
  time_slicing { replicas = 4 }"#,
    ),
    (
        "EKSGPU108",
        true,
        "time_slicing[0].replicas",
        r#"instance_type = "g5.2xlarge"
  strategy = "time_slicing"
  time_slicing { replicas = 1 }"#,
    ),
    (
        "EKSGPU109",
        true,
        "mig[0].profiles[\"1g.18gb\"]",
        r#"instance_type = "p5en.48xlarge"
  strategy = "mig"
  mig { profiles = { "1g.18gb" = 3 } }"#,
    ),
    (
        "EKSGPU110",
        true,
        "workload[0].namespace",
        r#"instance_type = "g5.2xlarge"
  strategy = "dra"
  dra { namespace = "inference" }
  workload {
    name       = "elsewhere"
    memory_mib = 1000
    namespace  = "batch"
  }"#,
    ),
    (
        "EKSGPU131",
        false,
        "dra[0].sharing",
        r#"instance_type = "g5.2xlarge"
  strategy = "dra"
  dra {
    namespace = "inference"
    sharing   = "mps"
  }"#,
    ),
];

#[tokio::test]
async fn every_sharing_pool_rule_fails_or_warns_a_plan_with_its_code() {
    check_all(
        SHARING_CASES
            .iter()
            .map(|(code, is_error, path, body)| (*code, *is_error, *path, sharing_config(body))),
    )
    .await;
}

/// Rules whose case needs a configuration of its own: EKSGPU132 a strategy without
/// `gpu_operator` (the shared configuration always has one), EKSGPU130 Karpenter 1.15
/// (a provider setting, through `ConfigureProvider`).
#[tokio::test]
async fn warnings_that_need_their_own_configuration() {
    let cases = [
        (
            "EKSGPU132",
            "",
            "pools[\"p\"].capacity",
            r#"pools = {
    p = {
      capacity       = "karpenter"
      instance_types = ["g6e.xlarge"]
      node_class = {
        role        = "r"
        root_volume = { size = "200Gi" }
      }
    }
  }"#,
        ),
        (
            "EKSGPU130",
            "karpenter_version = \"1.15\"",
            "pools[\"p\"].dra",
            r#"kubernetes_version = "1.34"
  gpu_operator {}
  pools = {
    p = {
      capacity       = "karpenter"
      instance_types = ["p5.48xlarge"]
      dra            = true
      node_class = {
        role        = "r"
        root_volume = { size = "200Gi" }
      }
    }
  }"#,
        ),
    ];
    check_all(cases.iter().map(|(code, provider, path, body)| {
        (
            *code,
            false,
            *path,
            format!(
                "{}resource \"eksgpu_node_strategy\" \"s\" {{\n  cluster_name = \"gpu\"\n  name = \"rules\"\n  {body}\n}}\n",
                Provider::new().setting(provider).header()
            ),
        )
    }))
    .await;
}

/// EKSGPU004 on a strategy of its own: DRA on a node group of a Kubernetes minor before DRA
/// (the strategy's `kubernetes_version`, which the shared configuration leaves to the cluster).
#[tokio::test]
async fn errors_that_need_their_own_configuration() {
    let main_tf = format!(
        r#"{}resource "eksgpu_node_strategy" "s" {{
  cluster_name       = "gpu"
  name               = "rules"
  kubernetes_version = "1.33"
  gpu_operator {{}}
  pools = {{
    p = {{
      capacity       = "managed_node_group"
      instance_types = ["p5.48xlarge"]
      dra            = true
      managed_node_group = {{
        node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
        subnet_ids    = ["subnet-1"]
        scaling       = {{ min = 0, max = 2, desired = 0 }}
      }}
    }}
    q = {{
      capacity       = "karpenter"
      instance_types = ["p5.48xlarge"]
      node_class     = {{ role = "r" }}
    }}
  }}
}}
"#,
        provider_header()
    );
    check_all([("EKSGPU004", true, r#"pools["p"].dra"#, main_tf)]).await;
}

/// Limits of counts and of a value against the strategy's `kubernetes_version`, whose cases
/// are generated: EKSGPU134 (101 NodePool labels), EKSGPU117 (50 taints and the GPU taint on a
/// node group; a node group release of another Kubernetes minor).
#[tokio::test]
async fn limits_that_need_their_own_configuration() {
    let labels: Vec<String> = (0..101).map(|i| format!("\"l{i}\" = \"v\"")).collect();
    let taints: String = (0..50)
        .map(|i| format!("\n      {{ key = \"t{i}\", effect = \"NoSchedule\" }},"))
        .collect();
    let node_group = |extra: &str| {
        format!(
            r#"managed_node_group = {{
      node_role_arn = "arn:aws:iam::123456789012:role/gpu"
      subnet_ids    = ["subnet-1"]
      disk_size     = 200
      {extra}
      scaling = {{
        min     = 0
        max     = 1
        desired = 0
      }}
    }}"#
        )
    };
    // 100 requirements of the pool's own: with the provider's instance-type one, 101 rendered.
    let requirements: String = (0..100)
        .map(|i| {
            format!(
                "\n      {{ key = \"karpenter.k8s.aws/instance-family\", operator = \"NotIn\", values = [\"x{i}\"] }},"
            )
        })
        .collect();
    let subnets: Vec<String> = (0..31).map(|i| format!("\"subnet-{i:017x}\"")).collect();
    // 16 KB and one byte of TOML, and Bottlerocket settings that do not parse.
    let big = format!("[settings.kubernetes]\\n# {}", "x".repeat(16 * 1024 - 23));
    let cases = [
        (
            "EKSGPU143",
            "pools[\"p\"].node_class.user_data",
            format!(
                "capacity       = \"karpenter\"\n    instance_types = [\"g6e.xlarge\"]\n    node_class     = {{\n      role = \"r\"\n      ami_alias = \"bottlerocket@latest\"\n      user_data = \"{big}\"\n    }}"
            ),
        ),
        (
            "EKSGPU144",
            "pools[\"p\"].node_class.user_data",
            "capacity       = \"karpenter\"\n    instance_types = [\"g6e.xlarge\"]\n    node_class     = {\n      role = \"r\"\n      ami_alias = \"bottlerocket@latest\"\n      user_data = \"[settings.kubernetes\\nmax-pods = 110\\n\"\n    }".to_owned(),
        ),
        (
            "EKSGPU142",
            "pools[\"p\"].node_class.subnet_selector_ids",
            format!(
                "capacity       = \"karpenter\"\n    instance_types = [\"g6e.xlarge\"]\n    node_class     = {{\n      role = \"r\"\n      subnet_selector_ids = [{}]\n    }}",
                subnets.join(", ")
            ),
        ),
        (
            "EKSGPU141",
            "pools[\"p\"].requirements",
            format!(
                "capacity       = \"karpenter\"\n    instance_types = [\"g6e.xlarge\"]\n    node_class     = {{ role = \"r\" }}\n    requirements = [{requirements}\n    ]"
            ),
        ),
        (
            "EKSGPU134",
            "pools[\"p\"].labels",
            format!(
                r#"capacity       = "karpenter"
    instance_types = ["g6e.xlarge"]
    labels         = {{ {} }}
    node_class     = {{ role = "r" }}"#,
                labels.join(", ")
            ),
        ),
        (
            "EKSGPU117",
            "pools[\"p\"].taints",
            format!(
                "capacity       = \"managed_node_group\"\n    instance_types = [\"g6e.xlarge\"]\n    taints = [{taints}\n    ]\n    {}",
                node_group("")
            ),
        ),
        (
            "EKSGPU117",
            "pools[\"p\"].managed_node_group.release_version",
            format!(
                "capacity       = \"managed_node_group\"\n    instance_types = [\"g6e.xlarge\"]\n    {}",
                node_group(r#"release_version = "1.33.0-20260801""#)
            ),
        ),
    ];
    check_all(cases.iter().map(|(code, path, body)| {
        (
            *code,
            true,
            *path,
            format!(
                "{}resource \"eksgpu_node_strategy\" \"s\" {{\n  cluster_name = \"gpu\"\n  name = \"rules\"\n  kubernetes_version = \"1.34\"\n  gpu_operator {{}}\n  pools = {{\n    p = {{\n    {body}\n    }}\n  }}\n}}\n",
                provider_header()
            ),
        )
    }))
    .await;
}

/// The cases that also run through the Terraform CLI, each for what it shows of Terraform:
/// (code, why, what the diagnostic shows of where it is). Terraform quotes the configuration
/// line an attribute path leads to through blocks only (`internal/tfdiags/contextual.go`,
/// `traversePathSteps`); a path inside `pools` leads it to the resource's first line, so the
/// provider writes the path at the head of the detail, and that is what is looked for.
const ON_THE_CLI: &[(&str, &str, &str)] = &[
    (
        "EKSGPU001",
        "a path ending in a map key inside a pool",
        r#"pools["p"].labels["nvidia.com/mig.config"]"#,
    ),
    (
        "EKSGPU006",
        "a path through a nested object to the object inside it (node_class, kubelet)",
        r#"pools["p"].node_class.kubelet"#,
    ),
    (
        "EKSGPU137",
        "a shared count beyond int64 at the handed-over label, never a wrapped number",
        r#"pools["p"].labels["eksgpu.terraform.io/gpu-replicas"]"#,
    ),
    ("EKSGPU105", "a path to a key of the pools map", r#"pools["Bad_Name"]"#),
    (
        "EKSGPU009",
        "a warning: Terraform shows it and the plan still has changes (exit 2)",
        r#"pools["p"].instance_types[0]"#,
    ),
];

/// The same for the sharing pool (another resource type and schema).
const SHARING_ON_THE_CLI: &[(&str, &str, &str)] = &[(
    "EKSGPU110",
    "an error in a sharing pool, at an attribute of one of its repeated `workload` blocks",
    r#"namespace  = "batch""#,
)];

/// A burst scaler whose sites are `body` (`on_prem_prometheus {}` and `cloud_prometheus {}`).
fn burst_config(body: &str) -> String {
    format!(
        "{}resource \"eksgpu_burst_scaler\" \"b\" {{\n  cluster_name = \"gpu\"\n  namespace = \"llm\"\n  \
         name = \"vllm-burst\"\n  max_replicas = 3\n  on_prem_waiting_query = \"sum(w)\"\n  \
         cloud_running_query = \"sum(r)\"\n  target {{\n    name = \"vllm\"\n  }}\n{body}\n}}\n",
        provider_header()
    )
}

const AMP: &str = "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-0123";
const ON_PREM_BEARER: &str = "  on_prem_prometheus {\n    address = \"http://prometheus.onprem:9090\"\n    secret_auth {\n      mode = \"bearer\"\n      secret_name = \"t\"\n      keys = { bearerToken = \"token\" }\n    }\n  }";

/// (code, is_error, attribute path, site blocks) of the burst scaler's site rules (EKSGPU240-246;
/// EKSGPU247, and EKSGPU240/241 against a referenced object, are apply-time: burst_sites.rs).
fn burst_cases() -> Vec<(&'static str, bool, &'static str, String)> {
    let cloud = |inner: &str| format!("  cloud_prometheus {{\n{inner}\n  }}");
    let amp = |aws: &str| cloud(&format!("    address = \"{AMP}\"\n    aws_sigv4 {{\n{aws}\n    }}"));
    let role = "      region = \"us-west-2\"\n      role_arn = \"arn:aws:iam::123456789012:role/keda-amp\"";
    vec![
        (
            "EKSGPU240",
            true,
            "prometheus_address",
            format!("{ON_PREM_BEARER}\n{}", cloud("    namespace = \"t\"")),
        ),
        (
            "EKSGPU240",
            true,
            "on_prem_prometheus[0].secret_auth[0].keys",
            format!(
                "{}\n{}",
                ON_PREM_BEARER.replace("bearerToken = \"token\"", "ca = \"ca.crt\""),
                amp(role)
            ),
        ),
        (
            "EKSGPU241",
            true,
            "cloud_prometheus[0].aws_sigv4[0]",
            format!(
                "{ON_PREM_BEARER}\n{}",
                cloud(&format!(
                    "    address = \"{AMP}\"\n    authentication_ref {{\n      name = \"x\"\n    }}\n    aws_sigv4 {{\n{role}\n    }}"
                ))
            ),
        ),
        (
            "EKSGPU242",
            true,
            "cloud_prometheus[0].unsafe_ssl",
            format!(
                "{ON_PREM_BEARER}\n{}",
                amp(role).replace("    aws_sigv4 {", "    unsafe_ssl = true\n    aws_sigv4 {")
            ),
        ),
        (
            "EKSGPU243",
            false,
            "cloud_prometheus[0].aws_sigv4[0].role_arn",
            format!("{ON_PREM_BEARER}\n{}", amp("      region = \"us-west-2\"")),
        ),
        (
            "EKSGPU244",
            false,
            "cloud_prometheus[0].address",
            format!(
                "{ON_PREM_BEARER}\n{}",
                amp(role).replace(AMP, "https://prometheus.cloud.example.com")
            ),
        ),
        (
            "EKSGPU245",
            true,
            "cloud_prometheus[0].aws_sigv4[0].region",
            format!("{ON_PREM_BEARER}\n{}", amp(&role.replace("us-west-2", "eu-west-1"))),
        ),
        (
            "EKSGPU246",
            true,
            "cloud_prometheus[0].aws_sigv4[0]",
            format!("  keda_version = \"2.12\"\n{ON_PREM_BEARER}\n{}", amp(role)),
        ),
    ]
}

#[tokio::test]
async fn every_burst_scaler_site_rule_fails_or_warns_a_plan_with_its_code() {
    let cases = burst_cases();
    check_all(
        cases
            .iter()
            .map(|(code, is_error, path, body)| (*code, *is_error, *path, burst_config(body))),
    )
    .await;
    // The two sites without a finding plan clean.
    let clean = plan(&burst_config(&format!(
        "{ON_PREM_BEARER}\n  cloud_prometheus {{\n    address = \"{AMP}\"\n    aws_sigv4 {{\n      region = \"us-west-2\"\n      role_arn = \"arn:aws:iam::123456789012:role/keda-amp\"\n    }}\n  }}"
    )))
    .await;
    assert!(clean.diagnostics.is_empty(), "{:#?}", clean.diagnostics);
}

/// A credential header in `custom_headers` is refused at validate (it would be plain text in the
/// state, the plan and the ScaledObject), without repeating its value.
#[tokio::test]
async fn a_credential_header_is_refused_at_its_key() {
    let planned = plan(&burst_config(
        "  prometheus_address = \"http://p:9090\"\n  on_prem_prometheus {\n    custom_headers = { Authorization = \"Bearer canaryHeaderT0ken\" }\n  }",
    ))
    .await;
    let d = planned
        .diagnostics
        .iter()
        .find(|d| d.summary == "Invalid value")
        .unwrap_or_else(|| panic!("{:#?}", planned.diagnostics));
    assert_eq!(d.path, "on_prem_prometheus[0].custom_headers[\"Authorization\"]");
    assert!(d.detail.contains("secret_auth"), "{}", d.detail);
    assert!(!format!("{:?}", planned.diagnostics).contains("canaryHeaderT0ken"));
}

/// The one case of `cases` with `code`.
fn case<'a>(cases: &[(&'a str, bool, &'a str, &'a str)], code: &str) -> (bool, &'a str) {
    let found: Vec<_> = cases.iter().filter(|c| c.0 == code).collect();
    assert_eq!(
        found.len(),
        1,
        "{code}: ON_THE_CLI needs exactly one case with the code"
    );
    (found[0].1, found[0].3)
}

/// `terraform init` and `plan`: the exit code, and the diagnostic's heading followed by the
/// configuration line Terraform found for its path, or the path itself in its detail.
fn plan_on_the_cli(tf: &TerraformVersion, main_tf: &str, code: &str, is_error: bool, line: &str) {
    let w = Workdir::new(tf, main_tf);
    w.init();
    let (exit, r) = w.plan_code(&[]);
    let out = r.combined();
    assert_eq!(
        exit,
        if is_error { 1 } else { 2 },
        "{} {code}: exit {exit}:\n{out}",
        tf.label
    );
    let heading = format!("{}: {code}: ", if is_error { "Error" } else { "Warning" });
    let (_, after) = out
        .split_once(&heading)
        .unwrap_or_else(|| panic!("{} {code}: no {heading:?}:\n{out}", tf.label));
    // The diagnostic ends where the next one starts.
    let end = ["Error: ", "Warning: "]
        .iter()
        .filter_map(|h| after.find(h))
        .min()
        .unwrap_or(after.len());
    let own = &after[..end];
    assert!(
        own.contains("on main.tf line") && own.contains(line),
        "{} {code}: the diagnostic does not show {line:?}:\n{out}",
        tf.label
    );
}

#[test]
fn rule_diagnostics_through_terraform() {
    for tf in terraform_versions() {
        for (code, _why, line) in ON_THE_CLI {
            let (is_error, body) = case(CASES, code);
            plan_on_the_cli(&tf, &config(body, mig_strategy(code)), code, is_error, line);
        }
        for (code, _why, line) in SHARING_ON_THE_CLI {
            let (is_error, body) = case(SHARING_CASES, code);
            plan_on_the_cli(&tf, &sharing_config(body), code, is_error, line);
        }
    }
}

/// Every rule of the catalogue has a case in the acceptance tests that makes
/// Terraform report it (a plan, or for cluster facts an apply or data source).
#[test]
fn every_rule_has_an_acceptance_case() {
    let dir = eksgpu_acceptance_tests::repo_root().join("acceptance-tests/tests");
    let all: String = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect();
    let missing: Vec<eksgpu_core::rules::Code> = eksgpu_core::rules::RULES
        .iter()
        .map(|r| r.code)
        .filter(|code| !all.contains(&format!("\"{code}\"")))
        .collect();
    assert!(missing.is_empty(), "rules without an acceptance case: {missing:?}");
}

/// EKSGPU180: the Cluster Autoscaler's node-template tags (one per label) take a node group past
/// EKS's 50 tags; the error names the pool.
#[tokio::test]
async fn eksgpu180_autoscaler_tags_over_the_eks_tag_limit_fail_the_plan() {
    let labels: Vec<String> = (0..40).map(|i| format!("l{i} = \"v\"")).collect();
    let body = format!(
        r#"capacity = "managed_node_group"
    instance_types = ["p5.48xlarge"]
    labels = {{ {} }}
    managed_node_group = {{
      node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
      subnet_ids    = ["subnet-1"]
      disk_size     = 200
      scaling = {{
        min     = 0
        max     = 2
        desired = 0
      }}
    }}"#,
        labels.join(", ")
    );
    let planned = plan(&config(&body, "mixed")).await;
    check("EKSGPU180", true, r#"pools["p"].labels"#, &planned).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        format!("{:?}", planned.diagnostics).contains("pool \\\"p\\\""),
        "{:#?}",
        planned.diagnostics
    );
}

/// A strategy with `device_plugin {}` and one pool: the standalone device plugin's rules.
fn plugin_config(extra: &str, body: &str) -> String {
    format!(
        r#"{}resource "eksgpu_node_strategy" "s" {{
  cluster_name = "gpu"
  name         = "rules"
  device_plugin {{}}
  {extra}
  pools = {{
    p = {{
    {body}
    }}
  }}
}}
"#,
        provider_header()
    )
}

const PLUGIN_NODE_GROUP: &str = r#"managed_node_group = {
      node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
      subnet_ids    = ["subnet-1"]
      disk_size     = 200
      scaling       = { min = 0, max = 2, desired = 0 }
    }"#;

/// EKSGPU183 (both installers), EKSGPU184 (a MIG layout nothing applies under the plugin alone),
/// EKSGPU191 (a config label merged without the sharing pool's settings).
#[tokio::test]
async fn the_standalone_device_plugins_rules() {
    let mig = format!(
        "capacity = \"managed_node_group\"\n    instance_types = [\"p5.48xlarge\"]\n    labels = {{ \"nvidia.com/mig.config\" = \"all-1g.10gb\" }}\n    {PLUGIN_NODE_GROUP}"
    );
    let by_hand = format!(
        "capacity = \"managed_node_group\"\n    instance_types = [\"g5.2xlarge\"]\n    labels = {{ \"nvidia.com/device-plugin.config\" = \"a10g-ts2\" }}\n    {PLUGIN_NODE_GROUP}"
    );
    let whole =
        format!("capacity = \"managed_node_group\"\n    instance_types = [\"g5.2xlarge\"]\n    {PLUGIN_NODE_GROUP}");
    check_all([
        (
            "EKSGPU183",
            true,
            "device_plugin[0]",
            plugin_config("gpu_operator {}", &whole),
        ),
        (
            "EKSGPU184",
            false,
            r#"pools["p"].labels["nvidia.com/mig.config"]"#,
            plugin_config("", &mig),
        ),
        (
            "EKSGPU191",
            true,
            r#"pools["p"].labels["nvidia.com/device-plugin.config"]"#,
            plugin_config("", &by_hand),
        ),
    ])
    .await;
    // With the plugin, the node group's GPUs are advertised: no EKSGPU132, no warning at all.
    let planned = plan(&plugin_config("", &whole)).await;
    assert!(planned.diagnostics.is_empty(), "{:#?}", planned.diagnostics);
}
