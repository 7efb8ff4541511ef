# Multi-node training over EFA on p5.48xlarge (32 EFA interfaces each): one
# Karpenter pool in one Availability Zone (EKSGPU127), nodes that are never
# disrupted while a job runs, and room for large training images.
#
# Karpenter attaches EFA interfaces to the nodes it launches for pods that
# request `vpc.amazonaws.com/efa`; install the EFA device plugin
# (eks/aws-efa-k8s-device-plugin) and the GPU Operator with the values below.

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

resource "eksgpu_node_strategy" "training" {
  cluster_name = var.cluster_name
  name         = "efa-training"

  gpu_operator {}

  pools = {
    training = {
      capacity       = "karpenter"
      instance_types = ["p5.48xlarge"]
      capacity_types = ["on-demand"]
      zones          = ["us-west-2a"]
      efa            = true

      # At most 4 nodes (32 H100s), and the CPU and memory they bring.
      gpu_limit    = 32
      cpu_limit    = "768"
      memory_limit = "8192Gi"

      # A training job outlives Karpenter's 720h default only if nodes never expire.
      expire_after = "Never"

      disruption = {
        consolidation_policy = "WhenEmpty"
        consolidate_after    = "30m"

        # No voluntary disruption on weekdays 06:00-20:00 UTC; empty nodes go otherwise.
        budgets = [
          {
            nodes    = "0"
            schedule = "0 6 * * 1-5"
            duration = "14h"
          },
          {
            nodes   = "1"
            reasons = ["Empty", "Drifted"]
          },
        ]
      }

      node_class = {
        role = "KarpenterNodeRole-gpu-cluster"

        # Images and checkpoints on the eight local NVMe disks.
        instance_store_policy = "RAID0"

        # Training pods that read the node's IMDS (e.g. for the region) need a second hop.
        metadata_options = {
          http_tokens                 = "required"
          http_put_response_hop_limit = 2
        }

        root_volume = {
          size = "200Gi"
        }
      }
    }
  }
}

output "node_selector" {
  value = eksgpu_node_strategy.training.pools["training"].node_selector
}

output "manifests" {
  value = eksgpu_node_strategy.training.pools["training"].manifests_yaml
}

output "gpu_operator_values" {
  value = eksgpu_node_strategy.training.gpu_operator_values_yaml
}
