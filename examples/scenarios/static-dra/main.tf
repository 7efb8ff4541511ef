# DRA on static Karpenter capacity, with a dynamic pool to burst into: two L40S
# nodes kept warm (NodePool spec.replicas) serve ResourceClaims through the
# NVIDIA DRA driver, and a Spot pool of whole GPUs takes bursts. On Karpenter
# 1.14 a dynamic NodePool cannot launch nodes for DRA claims; a static one runs
# its nodes whatever is pending, so claims land on them (Karpenter 1.8+ with the
# staticCapacity gate).
#
# Plans offline: the cluster is a variable (read it with data.eksgpu_cluster in
# a real configuration).

terraform {
  # Nested attributes (pools) need Terraform 1.4.0 or later (design/0010).
  required_version = ">= 1.4.0"
  required_providers {
    eksgpu = {
      source = "eksgpu/eksgpu"
    }
  }
}

# The clusters' Karpenter runs with settings.featureGates.staticCapacity: true.
provider "eksgpu" {
  region                  = "us-west-2"
  karpenter_version       = "1.14"
  karpenter_feature_gates = ["staticCapacity"]
}

variable "cluster_name" {
  type    = string
  default = "gpu-cluster"
}

variable "node_role" {
  description = "The IAM role of Karpenter's nodes."
  type        = string
  default     = "KarpenterNodeRole-gpu-cluster"
}

resource "eksgpu_node_strategy" "dra" {
  cluster_name       = var.cluster_name
  name               = "static-dra"
  kubernetes_version = "1.34"

  gpu_operator {}

  # Warm: two nodes always, at most three while one is replaced.
  pools = {
    warm = {
      capacity       = "karpenter"
      instance_types = ["g6e.12xlarge"]
      dra            = true
      replicas       = 2
      node_limit     = 3

      node_class = {
        role = var.node_role
        root_volume = {
          size = "200Gi"
        }
      }
    }
    # Burst: whole GPUs on Spot, removed once empty.
    burst = {
      capacity       = "karpenter"
      instance_types = ["g6e.12xlarge", "g6e.24xlarge"]
      capacity_types = ["spot", "on-demand"]
      gpu_limit      = 16

      disruption = {
        consolidation_policy = "WhenEmpty"
        consolidate_after    = "5m"
      }

      node_class = {
        role = var.node_role
        root_volume = {
          size = "200Gi"
        }
      }
    }
  }
}

output "warm_manifests" {
  value = eksgpu_node_strategy.dra.pools["warm"].manifests_yaml
}

output "burst_node_selector" {
  value = eksgpu_node_strategy.dra.pools["burst"].node_selector
}

output "dra_driver_values" {
  description = "Helm values for NVIDIA's DRA driver (k8s-dra-driver-gpu), for the warm pool's claims."
  value       = eksgpu_node_strategy.dra.dra_driver_values_yaml
}
