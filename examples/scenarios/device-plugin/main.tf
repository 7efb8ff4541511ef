# GPUs on managed node groups served by NVIDIA's standalone device plugin, not
# the GPU Operator (field report 003 §4: the EKS-optimised NVIDIA AMIs carry
# the driver and toolkit, and time-slicing lives in the plugin's config). The
# strategy's device_plugin_values_yaml feeds the nvidia-device-plugin chart
# (https://github.com/NVIDIA/k8s-device-plugin, v0.20.0): one named config per
# sharing pool, selected per node by nvidia.com/device-plugin.config.

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
  description = "Name of the EKS cluster."
  type        = string
  default     = "gpu-cluster"
}

variable "subnet_ids" {
  description = "Subnets of the cluster's VPC for the managed node groups."
  type        = list(string)
  default     = ["subnet-0123456789abcdef0"]
}

# Two chat replicas per A10G, time-sliced by the device plugin.
resource "eksgpu_sharing_pool" "time_sliced" {
  cluster_name  = var.cluster_name
  name          = "a10g-ts2"
  instance_type = "g5.2xlarge"
  capacity      = "managed_node_group"
  strategy      = "time_slicing"

  time_slicing {
    replicas = 2
  }
}

resource "eksgpu_node_strategy" "plugin" {
  cluster_name = var.cluster_name
  name         = "device-plugin"

  # The standalone plugin manages the GPUs of these pools (exclusive with gpu_operator, EKSGPU183).
  device_plugin {}

  pools = {
    a10g-ts2 = {
      capacity       = "managed_node_group"
      instance_types = ["g5.2xlarge"]
      labels         = eksgpu_sharing_pool.time_sliced.node_labels

      managed_node_group = {
        node_role_arn = "arn:aws:iam::123456789012:role/eks-gpu-nodes"
        subnet_ids    = var.subnet_ids
        disk_size     = 200

        scaling = {
          min     = 0
          max     = 4
          desired = 0
        }
      }
    }

    l40s = {
      capacity       = "managed_node_group"
      instance_types = ["g6e.2xlarge"]

      managed_node_group = {
        node_role_arn = "arn:aws:iam::123456789012:role/eks-gpu-nodes"
        subnet_ids    = var.subnet_ids
        disk_size     = 200

        scaling = {
          min     = 0
          max     = 2
          desired = 0
        }
      }
    }
  }
}

# Values for `helm install nvidia-device-plugin nvdp/nvidia-device-plugin --version 0.20.0 -f -`.
output "device_plugin_values_yaml" {
  value = eksgpu_node_strategy.plugin.device_plugin_values_yaml
}
