# The quickstart: a GPU strategy for one EKS cluster, end to end. The demo
# (`scripts/quickstart`) runs it against local emulators: moto for AWS (EKS,
# EC2) and the project's Kubernetes API emulator for the cluster.

terraform {
  # Nested attributes (pools) need Terraform 1.4.0 or later (design/0010).
  required_version = ">= 1.4.0"
  required_providers {
    eksgpu = {
      source = "eksgpu/eksgpu"
    }
  }
}

variable "refresh_catalog" {
  description = "Refresh the GPU catalog from EC2 DescribeInstanceTypes (false keeps it offline)."
  type        = bool
  default     = false
}

provider "eksgpu" {
  region = "us-west-2"

  # The cluster's Karpenter (1.7+) runs with the NodeOverlay gate, so the
  # time-sliced pool below tells Karpenter how many GPU slots its nodes offer
  # (a NodeOverlay) instead of being sized as whole GPUs (EKSGPU011).
  karpenter_feature_gates = ["nodeOverlay"]
}

# What EC2 GPU capacity looks like: H200 instance types and their MIG profiles.
data "eksgpu_gpu_catalog" "h200" {
  gpu_model        = "H200"
  refresh_from_ec2 = var.refresh_catalog
}

# Two small models share each A10G by time-slicing; their memory is checked
# against the GPU's (EKSGPU012).
resource "eksgpu_sharing_pool" "small_models" {
  cluster_name  = "gpu-cluster"
  name          = "a10g-ts2"
  instance_type = "g5.2xlarge"
  capacity      = "karpenter"
  strategy      = "time_slicing"

  time_slicing {
    replicas = 2
  }

  workload {
    name       = "chat-7b"
    memory_mib = 9155
  }

  workload {
    name       = "embed"
    memory_mib = 9155
  }
}

# Which capacity serves which workload class, with the GPU Operator's values.
resource "eksgpu_node_strategy" "genai" {
  cluster_name = "gpu-cluster"
  name         = "genai"

  gpu_operator {}

  pools = {
    small-models = {
      capacity       = "karpenter"
      instance_types = ["g5.2xlarge"]
      gpu_limit      = 8
      labels         = merge({ "node-type" = "small-models" }, eksgpu_sharing_pool.small_models.node_labels)

      node_class = {
        role = "KarpenterNodeRole-gpu-cluster"

        # Room for GPU container images, 10-30 GB each (EKSGPU123).
        root_volume = {
          size = "200Gi"
        }
      }
    }
    large-models = {
      capacity       = "auto_mode"
      instance_types = ["p5.48xlarge"]
    }
    # On-prem GPUs joining as EKS Hybrid Nodes: the cluster's remote networks and
    # an access entry for the nodes' role (checked against the VPC before apply).
    onprem = {
      capacity = "hybrid"

      hybrid = {
        remote_node_networks = ["192.168.100.0/24"]
        node_role_arn        = "arn:aws:iam::123456789012:role/eks-hybrid-nodes"
      }
    }
  }
}

# Where should a 70B model at bf16 run, and what does it cost? Prices are yours.
data "eksgpu_recommendation" "llama_70b" {
  model_params_b = 70
  precision      = "bf16"
  replicas       = 2
  price_per_hour = { "p5.48xlarge" = 55.04, "p5e.48xlarge" = 60.0 }
}

output "h200" {
  description = "H200 instance types: GPUs, memory per GPU, MIG profiles, and where the figures come from."
  value = {
    for t in data.eksgpu_gpu_catalog.h200.instance_types :
    t.instance_type => {
      gpus           = t.gpu_count
      gpu_memory_mib = t.gpu_memory_mib
      mig_profiles   = [for p in t.mig_profiles : "${p.name} x${p.max_instances}"]
      source         = t.source
    }
  }
}

output "small_models_pod" {
  description = "What a small-model pod needs: node selector, tolerations and GPU request."
  value = {
    node_selector = eksgpu_node_strategy.genai.pools["small-models"].node_selector
    tolerations   = eksgpu_node_strategy.genai.pools["small-models"].tolerations
    limits        = eksgpu_sharing_pool.small_models.resource_requests
  }
}

output "llama_70b" {
  description = "The recommendation: capacity kind, instance type, GPUs used, instances billed, monthly cost, and why."
  value = {
    capacity         = data.eksgpu_recommendation.llama_70b.capacity
    instance_type    = data.eksgpu_recommendation.llama_70b.billed_instance_type
    gpus_per_replica = data.eksgpu_recommendation.llama_70b.gpus_per_replica
    gpus_used        = data.eksgpu_recommendation.llama_70b.gpus_used
    billed_instances = data.eksgpu_recommendation.llama_70b.billed_instances
    monthly_cost_usd = data.eksgpu_recommendation.llama_70b.monthly_cost
    why              = [for r in data.eksgpu_recommendation.llama_70b.rationale : r.code]
  }
}

output "gpu_operator_values" {
  description = "Helm values for nvidia/gpu-operator that fit the pools."
  value       = eksgpu_node_strategy.genai.gpu_operator_values_yaml
}
