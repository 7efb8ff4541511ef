# The recommended mix for one cluster (field reports 000 and 001): EKS Auto
# Mode for system components and simple inference, Karpenter for MIG inference
# and Spot training, Hybrid Nodes for the on-prem GPUs — and GPU Operator values
# that fit all of them. System components run on Auto Mode's built-in `system`
# and `general-purpose` NodePools (enabled on the cluster); this strategy adds
# the GPU pools.

terraform {
  # Nested attributes (pools) need Terraform 1.4.0 or later (design/0010).
  required_version = ">= 1.4.0"
  required_providers {
    eksgpu = {
      source = "eksgpu/eksgpu"
    }
  }
}

provider "eksgpu" {
  region = "us-west-2"
}

# The cluster, as variables: `terraform plan` needs no AWS call. With the
# cluster in AWS, a root module can read them with the eksgpu_cluster data
# source instead (examples/data-sources/eksgpu_cluster):
#
#   data "eksgpu_cluster" "gpu" {
#     name = "gpu-cluster"
#   }
#
# and pass data.eksgpu_cluster.gpu.name.
variable "cluster_name" {
  description = "Name of the EKS cluster."
  type        = string
  default     = "gpu-cluster"
}

# A 70B model at bf16 (168 GB per replica): whole GPUs, on Auto Mode.
data "eksgpu_recommendation" "llm_70b" {
  model_params_b = 70
  precision      = "bf16"
}

# Seven 1g.18gb slices per H200 for small models. The single strategy keeps the
# slices advertised as nvidia.com/gpu, a resource Karpenter knows; under mixed
# (nvidia.com/mig-1g.18gb) Karpenter would launch no node for them (EKSGPU122).
resource "eksgpu_sharing_pool" "small_models" {
  cluster_name  = var.cluster_name
  name          = "h200-1g18"
  instance_type = "p5en.48xlarge"
  capacity      = "karpenter"
  strategy      = "mig"

  mig {
    strategy = "single"
    profiles = { "1g.18gb" = 7 }
  }
}

resource "eksgpu_node_strategy" "platform" {
  cluster_name = var.cluster_name
  name         = "platform"

  # Auto Mode nodes keep the operator's device plugin off; NVIDIA AMIs keep its
  # driver off; hybrid nodes get driver and toolkit from the operator; MIG
  # Manager runs for the MIG pool.
  gpu_operator {
    mig_strategy = "single"
  }

  # Simple inference on Auto Mode, on what the recommendation found.
  pools = {
    simple-inference = {
      capacity       = data.eksgpu_recommendation.llm_70b.capacity
      instance_types = data.eksgpu_recommendation.llm_70b.instance_types
    }
    # MIG inference: Karpenter on H200, labelled by the sharing pool.
    mig-inference = {
      capacity       = "karpenter"
      instance_types = ["p5en.48xlarge"]
      gpu_limit      = 16
      labels         = merge({ "node-type" = "mig-inference" }, eksgpu_sharing_pool.small_models.node_labels)

      node_class = {
        role = "KarpenterNodeRole-gpu-cluster"

        # Room for GPU container images, 10-30 GB each (EKSGPU123).
        root_volume = {
          size = "200Gi"
        }
      }
    }
    # Training on Spot first, on-demand as fallback; checkpoint, Spot reclaims happen.
    training-spot = {
      capacity       = "karpenter"
      instance_types = ["p5.48xlarge", "p4d.24xlarge"]
      capacity_types = ["spot", "on-demand"]
      gpu_limit      = 64

      taints = [
        {
          key    = "workload"
          value  = "training"
          effect = "NoSchedule"
        },
      ]

      disruption = {
        consolidation_policy = "WhenEmpty"
        consolidate_after    = "30m"
      }

      node_class = {
        role = "KarpenterNodeRole-gpu-cluster"

        # Room for GPU container images, 10-30 GB each (EKSGPU123).
        root_volume = {
          size = "200Gi"
        }
      }
    }
    # On-prem GPUs as Hybrid Nodes; the ranges must stay clear of the VPC and
    # service CIDRs (checked before apply changes anything).
    onprem = {
      capacity = "hybrid"

      hybrid = {
        remote_node_networks = ["192.168.0.0/20"]
        remote_pod_networks  = ["192.168.64.0/18"]
        node_role_arn        = "arn:aws:iam::123456789012:role/eks-hybrid-nodes"
      }
    }
  }
}

output "simple_inference" {
  value = {
    capacity       = data.eksgpu_recommendation.llm_70b.capacity
    instance_types = data.eksgpu_recommendation.llm_70b.instance_types
  }
}

output "node_selectors" {
  value = { for name, p in eksgpu_node_strategy.platform.pools : name => p.node_selector }
}

output "gpu_operator_values" {
  value = eksgpu_node_strategy.platform.gpu_operator_values_yaml
}
