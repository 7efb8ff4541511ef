# Bottlerocket GPU nodes, on Karpenter and on a managed node group. Bottlerocket's
# NVIDIA variants ship their own device plugin, so the GPU Operator's plugin is
# kept off these nodes (the provider adds the label), device-plugin sharing is
# refused (EKSGPU121), and the root volume size goes to Bottlerocket's data
# volume /dev/xvdb, where images live (the OS volume /dev/xvda keeps 4Gi).

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
# and pass data.eksgpu_cluster.gpu.name and data.eksgpu_cluster.gpu.subnet_ids.
variable "cluster_name" {
  description = "Name of the EKS cluster."
  type        = string
  default     = "gpu-cluster"
}

variable "subnet_ids" {
  description = "Subnets of the cluster's VPC for the managed node groups."
  type        = list(string)
  default     = ["subnet-0123456789abcdef0"]
}

resource "eksgpu_node_strategy" "bottlerocket" {
  cluster_name = var.cluster_name
  name         = "bottlerocket"

  # DCGM metrics and the node feature discovery from the operator; no driver or plugin.
  gpu_operator {}

  pools = {
    inference = {
      capacity       = "karpenter"
      instance_types = ["g6e.xlarge", "g6e.2xlarge"]

      node_class = {
        role      = "KarpenterNodeRole-gpu-cluster"
        ami_alias = "bottlerocket@latest"

        root_volume = {
          size = "150Gi"
        }
      }
    }
    static = {
      capacity       = "managed_node_group"
      instance_types = ["g6e.12xlarge"]

      managed_node_group = {
        node_role_arn = "arn:aws:iam::123456789012:role/eks-gpu-nodes"
        subnet_ids    = var.subnet_ids
        ami_type      = "BOTTLEROCKET_x86_64_NVIDIA"
        disk_size     = 150

        scaling = {
          min     = 1
          max     = 2
          desired = 1
        }
      }
    }
  }
}

output "karpenter_manifests" {
  value = eksgpu_node_strategy.bottlerocket.pools["inference"].manifests_yaml
}

output "node_group_request" {
  value = eksgpu_node_strategy.bottlerocket.pools["static"].manifests_yaml
}
