# The three sharing set-ups measured on A10G (g5.2xlarge) in field report 003,
# each on its own static managed node group: device-plugin time-slicing
# (Karpenter would count each slot as a whole GPU, EKSGPU011), an NVIDIA DRA
# claim shared by pods of one namespace, and HAMi's memory and core quotas.

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

locals {
  node_group = {
    node_role_arn = "arn:aws:iam::123456789012:role/eks-gpu-nodes"
    subnet_ids    = var.subnet_ids
  }
}

# 1. Time-slicing, 2 replicas: two vLLM at --gpu-memory-utilization 0.40 fit.
resource "eksgpu_sharing_pool" "time_sliced" {
  cluster_name  = var.cluster_name
  name          = "a10g-ts2"
  instance_type = "g5.2xlarge"
  capacity      = "managed_node_group"
  strategy      = "time_slicing"

  time_slicing {
    replicas = 2
  }

  workload {
    name       = "vllm-chat"
    memory_mib = 9155
  }

  workload {
    name       = "vllm-embed"
    memory_mib = 9155
  }
}

# 2. One DRA claim with time-slicing, shared by two pods in namespace llm.
resource "eksgpu_sharing_pool" "dra_shared" {
  cluster_name  = var.cluster_name
  name          = "a10g-dra"
  instance_type = "g5.2xlarge"
  capacity      = "managed_node_group"
  strategy      = "dra"

  # DRA time-slicing needs the driver's TimeSlicingSettings gate (EKSGPU131):
  # the strategy's dra_driver_values_yaml turns it on from this pool's labels,
  # so the driver installed with those values accepts the claim.
  acknowledged_warnings = ["EKSGPU131"]

  dra {
    namespace = "llm"
    sharing   = "time_slicing"
  }
}

# 3. HAMi: 6144 MiB and half the SMs per pod (a soft quota, not isolation).
resource "eksgpu_sharing_pool" "hami" {
  cluster_name  = var.cluster_name
  name          = "a10g-hami"
  instance_type = "g5.2xlarge"
  capacity      = "managed_node_group"
  strategy      = "hami"

  hami {
    memory_mib    = 6144
    cores_percent = 50
  }
}

resource "eksgpu_node_strategy" "a10g" {
  cluster_name       = var.cluster_name
  name               = "a10g-sharing"
  kubernetes_version = "1.34"

  gpu_operator {}

  pools = {
    time-sliced = {
      capacity       = "managed_node_group"
      instance_types = ["g5.2xlarge"]
      labels         = eksgpu_sharing_pool.time_sliced.node_labels

      managed_node_group = {
        node_role_arn = local.node_group.node_role_arn
        subnet_ids    = local.node_group.subnet_ids
        disk_size     = 200

        scaling = {
          min     = 1
          max     = 1
          desired = 1
        }
      }
    }
    dra = {
      capacity       = "managed_node_group"
      instance_types = ["g5.2xlarge"]
      dra            = true
      labels         = eksgpu_sharing_pool.dra_shared.node_labels

      managed_node_group = {
        node_role_arn = local.node_group.node_role_arn
        subnet_ids    = local.node_group.subnet_ids
        disk_size     = 200

        scaling = {
          min     = 1
          max     = 1
          desired = 1
        }
      }
    }
    hami = {
      capacity       = "managed_node_group"
      instance_types = ["g5.2xlarge"]
      labels         = eksgpu_sharing_pool.hami.node_labels

      managed_node_group = {
        node_role_arn = local.node_group.node_role_arn
        subnet_ids    = local.node_group.subnet_ids
        disk_size     = 200

        scaling = {
          min     = 1
          max     = 1
          desired = 1
        }
      }
    }
  }
}

output "requests" {
  value = {
    time_sliced = eksgpu_sharing_pool.time_sliced.resource_requests
    hami        = eksgpu_sharing_pool.hami.resource_requests
  }
}

output "dra_pod_resource_claims" {
  value = eksgpu_sharing_pool.dra_shared.pod_resource_claims
}

output "node_selectors" {
  value = { for name, p in eksgpu_node_strategy.a10g.pools : name => p.node_selector }
}

# The NVIDIA DRA driver's Helm values for the DRA pool, TimeSlicingSettings on.
output "dra_driver_values" {
  value = eksgpu_node_strategy.a10g.dra_driver_values_yaml
}
