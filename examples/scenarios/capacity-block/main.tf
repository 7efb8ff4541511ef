# A Capacity Block for ML (a reservation of p5.48xlarge for fixed dates) used
# first, with on-demand capacity as the fallback, and the cost-attribution tags
# every AWS object of the provider carries.
#
# Karpenter launches `reserved` capacity only into the reservations its node
# class selects (EKSGPU119); the higher weight makes it try the Capacity Block
# first. A node group can run on a Capacity Block too: give it
# `capacity_types = ["capacity-block"]` and `managed_node_group {
# capacity_reservation_id }`, and the provider makes the launch template that
# targets it (EKSGPU181).

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

  default_tags {
    tags = {
      cost-center = "ml-platform"
      team        = "training"
    }
  }
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

variable "capacity_block_id" {
  type    = string
  default = "cr-0123456789abcdef0"
}

resource "eksgpu_node_strategy" "reserved" {
  cluster_name = var.cluster_name
  name         = "capacity-block"

  gpu_operator {}

  # The Capacity Block: tried first.
  pools = {
    capacity-block = {
      capacity       = "karpenter"
      instance_types = ["p5.48xlarge"]
      capacity_types = ["reserved"]
      zones          = ["us-west-2a"]
      weight         = 100
      gpu_limit      = 16

      node_class = {
        role = "KarpenterNodeRole-gpu-cluster"

        capacity_reservations = [
          {
            id = var.capacity_block_id
          },
        ]

        root_volume = {
          size = "200Gi"
        }
      }
    }
    # On-demand H100s when the block is full or over.
    on-demand = {
      capacity       = "karpenter"
      instance_types = ["p5.48xlarge"]
      weight         = 10
      gpu_limit      = 16

      node_class = {
        role = "KarpenterNodeRole-gpu-cluster"

        root_volume = {
          size = "200Gi"
        }
      }
    }
    # Static inference next to it: tags and node repair on the node group.
    inference = {
      capacity       = "managed_node_group"
      instance_types = ["g6e.12xlarge"]

      tags = {
        team = "inference"
      }

      managed_node_group = {
        node_role_arn = "arn:aws:iam::123456789012:role/eks-gpu-nodes"
        subnet_ids    = var.subnet_ids
        disk_size     = 200

        scaling = {
          min     = 1
          max     = 4
          desired = 1
        }

        update = {
          max_unavailable_percentage = 25
        }

        node_repair_config = {
          enabled = true
        }
      }
    }
  }
}

output "capacity_block_manifests" {
  value = eksgpu_node_strategy.reserved.pools["capacity-block"].manifests_yaml
}

output "inference_request" {
  value = eksgpu_node_strategy.reserved.pools["inference"].manifests_yaml
}
