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

# Two teams, one strategy each, on one cluster.
resource "eksgpu_node_strategy" "team" {
  for_each = {
    research = { types = ["p5.48xlarge"], taint = "example.com/research" }
    serving  = { types = ["g6e.12xlarge"], taint = "example.com/serving" }
  }

  cluster_name       = var.cluster_name
  name               = each.key
  kubernetes_version = "1.34"

  gpu_operator {}

  pools = {
    "${each.key}-gpu" = {
      capacity       = "karpenter"
      instance_types = each.value.types
      gpu_limit      = 16

      # Each team keeps other pods off its nodes with its own taint.
      taints = [
        {
          key    = each.value.taint
          value  = "true"
          effect = "NoSchedule"
        },
      ]

      node_class = {
        role = "KarpenterNodeRole-gpu-cluster"
        root_volume = {
          size = "200Gi"
        }
      }
    }
  }
}

# The cluster's one GPU Operator release: both teams' values, merged.
data "eksgpu_gpu_stack" "cluster" {
  dynamic "strategy" {
    for_each = eksgpu_node_strategy.team
    content {
      name                     = strategy.value.name
      gpu_operator_values_yaml = strategy.value.gpu_operator_values_yaml
      neuron_values_yaml       = strategy.value.neuron_values_yaml
      dra_driver_values_yaml   = strategy.value.dra_driver_values_yaml
    }
  }
}

output "gpu_operator_values" {
  description = "For the one helm_release of nvidia/gpu-operator."
  value       = data.eksgpu_gpu_stack.cluster.gpu_operator_values_yaml
}
