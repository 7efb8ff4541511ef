# MIG on Karpenter through a NodeOverlay: a MIG sharing pool splits each H100
# of a p5.48xlarge into two 3g.40gb slices for 13–30B models. Under the mixed
# strategy pods request nvidia.com/mig-3g.40gb, a resource Karpenter cannot know
# of an instance type; with the nodeOverlay gate the pool renders a NodeOverlay
# (karpenter.sh/v1alpha1) that adds it, 16 per node, so Karpenter launches
# nodes for those pods. Without the gate, MIG belongs on a managed node group
# (EKSGPU122 says so).
#
# Plans offline: the cluster is a variable (read it with data.eksgpu_cluster in
# a real configuration).

terraform {
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

resource "eksgpu_node_strategy" "mig" {
  cluster_name       = var.cluster_name
  name               = "karpenter-mig"
  kubernetes_version = "1.34"

  gpu_operator {
    mig_strategy = "mixed"
  }

  pool {
    name           = "h100-mig"
    capacity       = "karpenter"
    instance_types = ["p5.48xlarge"]
    labels         = eksgpu_sharing_pool.mid_models.node_labels
    gpu_limit      = 16

    node_class {
      role = var.node_role
      root_volume {
        size = "500Gi"
      }
    }
  }
}

output "manifests" {
  description = "The NodePool, EC2NodeClass and NodeOverlay."
  value       = eksgpu_node_strategy.mig.pool[0].manifests_yaml
}

output "resource_requests" {
  value = eksgpu_sharing_pool.mid_models.resource_requests
}
