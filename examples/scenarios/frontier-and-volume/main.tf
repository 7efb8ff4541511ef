# The mixed pattern of EKS GPU node strategies: frontier models on NVIDIA
# (p5en, new models run on CUDA first), stable high-traffic models on AWS
# Neuron as the volume layer (Inferentia2), and on-prem NVIDIA GPUs joined as
# EKS Hybrid Nodes (Neuron exists only on EC2). One strategy, three pools, and
# each chart's values: the GPU Operator stays off the Neuron nodes, the Neuron
# chart off the NVIDIA ones.
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

provider "eksgpu" {
  region = "us-west-2"
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

# The vendor of each layer, from what is known about its model.
data "eksgpu_recommendation" "frontier" {
  model_params_b = 70
  precision      = "fp8"
  spot_ok        = true
  # Released last week: not yet ported to Neuron.
  available_on_neuron = false
}

data "eksgpu_recommendation" "volume" {
  model_params_b      = 8
  precision           = "bf16"
  replicas            = 16
  spot_ok             = true
  available_on_neuron = true
}

resource "eksgpu_node_strategy" "mixed" {
  cluster_name       = var.cluster_name
  name               = "frontier-and-volume"
  kubernetes_version = "1.34"

  gpu_operator {}

  # Frontier: H200s on Karpenter.
  pools = {
    frontier = {
      capacity       = "karpenter"
      instance_types = ["p5en.48xlarge"]
      capacity_types = ["on-demand"]
      gpu_limit      = 16

      node_class = {
        role = var.node_role
        root_volume = {
          size = "500Gi"
        }
      }
    }
    # Volume: Inferentia2 with Spot first, as the recommendation says.
    volume = {
      capacity       = data.eksgpu_recommendation.volume.capacity
      instance_types = data.eksgpu_recommendation.volume.instance_types
      capacity_types = data.eksgpu_recommendation.volume.capacity_types
      gpu_limit      = 16

      node_class = {
        role = var.node_role
        root_volume = {
          size = "200Gi"
        }
      }
    }
    # On premises: NVIDIA GPUs as EKS Hybrid Nodes.
    onprem = {
      capacity = "hybrid"

      hybrid = {
        remote_node_networks = ["192.168.100.0/23"]
        remote_pod_networks  = ["192.168.104.0/22"]
        node_role_arn        = "arn:aws:iam::123456789012:role/eks-hybrid-nodes"
      }
    }
  }
}

output "layers" {
  value = {
    frontier = data.eksgpu_recommendation.frontier.accelerator
    volume   = data.eksgpu_recommendation.volume.accelerator
    pools    = { for name, p in eksgpu_node_strategy.mixed.pools : name => p.accelerator }
  }
}

output "gpu_operator_values" {
  value = eksgpu_node_strategy.mixed.gpu_operator_values_yaml
}

output "neuron_values" {
  value = eksgpu_node_strategy.mixed.neuron_values_yaml
}
