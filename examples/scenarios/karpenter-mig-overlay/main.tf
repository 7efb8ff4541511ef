# MIG and time-slicing on Karpenter through NodeOverlays. A MIG sharing pool
# splits each H100 of a p5.48xlarge into two 3g.40gb slices for 13–30B models,
# and a time-slicing pool shares each L40S four ways for small ones. Under the mixed
# strategy pods request nvidia.com/mig-3g.40gb, a resource Karpenter cannot know
# of an instance type; with the nodeOverlay gate the pool renders a NodeOverlay
# (karpenter.sh/v1alpha1) that adds it, 16 per node, so Karpenter launches
# nodes for those pods; the time-sliced pool's overlay advertises nvidia.com/gpu
# at four per GPU. Without the gate, MIG belongs on a managed node group
# (EKSGPU122 says so) and time-slicing on static capacity (EKSGPU011).
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

# The clusters' Karpenter runs with settings.featureGates.nodeOverlay: true.
provider "eksgpu" {
  region                  = "us-west-2"
  karpenter_version       = "1.14"
  karpenter_feature_gates = ["nodeOverlay"]
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

resource "eksgpu_sharing_pool" "mid_models" {
  cluster_name  = var.cluster_name
  name          = "h100-3g40"
  instance_type = "p5.48xlarge"
  capacity      = "karpenter"
  strategy      = "mig"

  mig {
    strategy = "mixed"
    profiles = { "3g.40gb" = 2 }
  }

  workload {
    name       = "qwen-14b"
    memory_mib = 36000
  }
}

# Four time-sliced replicas per L40S for small models: the overlay advertises
# nvidia.com/gpu at four per GPU, so Karpenter sizes nodes by the shared count.
resource "eksgpu_sharing_pool" "small_models" {
  cluster_name  = var.cluster_name
  name          = "l40s-ts4"
  instance_type = "g6e.12xlarge"
  capacity      = "karpenter"
  strategy      = "time_slicing"

  time_slicing {
    replicas = 4
  }
}

resource "eksgpu_node_strategy" "mig" {
  cluster_name       = var.cluster_name
  name               = "karpenter-mig"
  kubernetes_version = "1.34"

  gpu_operator {
    mig_strategy = "mixed"
  }

  pools = {
    h100-mig = {
      capacity       = "karpenter"
      instance_types = ["p5.48xlarge"]
      labels         = eksgpu_sharing_pool.mid_models.node_labels
      gpu_limit      = 16

      node_class = {
        role = var.node_role
        root_volume = {
          size = "500Gi"
        }
      }
    }
    l40s-shared = {
      capacity       = "karpenter"
      instance_types = ["g6e.12xlarge"]
      labels         = eksgpu_sharing_pool.small_models.node_labels
      # Counted as the overlay advertises them: 16 shared GPUs per node, 4 nodes.
      gpu_limit = 64

      node_class = {
        role = var.node_role
        root_volume = {
          size = "200Gi"
        }
      }
    }
  }
}

output "shared_manifests" {
  value = eksgpu_node_strategy.mig.pools["l40s-shared"].manifests_yaml
}

output "manifests" {
  description = "The NodePool, EC2NodeClass and NodeOverlay."
  value       = eksgpu_node_strategy.mig.pools["h100-mig"].manifests_yaml
}

output "resource_requests" {
  value = eksgpu_sharing_pool.mid_models.resource_requests
}
