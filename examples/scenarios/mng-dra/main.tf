# A managed node group serving DRA claims next to Karpenter (field report 001:
# DRA on managed node groups is supported in every dated EKS doc state; the
# device plugin and the DRA driver must never manage the same GPUs).

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

# One H100 per ResourceClaim, through the NVIDIA DRA driver.
resource "eksgpu_sharing_pool" "dra" {
  cluster_name  = var.cluster_name
  name          = "h100-dra"
  instance_type = "p5.48xlarge"
  capacity      = "managed_node_group"
  strategy      = "dra"

  dra {
    namespace = "training"
  }
}

resource "eksgpu_node_strategy" "dra" {
  cluster_name = var.cluster_name
  name         = "mng-dra"

  # resource.k8s.io/v1: Kubernetes 1.34 or later (EKSGPU004).
  kubernetes_version = "1.34"

  gpu_operator {}

  # Static H100 capacity for DRA claims: the operator's device plugin stays off.
  pools = {
    h100-dra = {
      capacity       = "managed_node_group"
      instance_types = ["p5.48xlarge"]
      dra            = true
      labels         = eksgpu_sharing_pool.dra.node_labels

      managed_node_group = {
        node_role_arn = "arn:aws:iam::123456789012:role/eks-gpu-nodes"
        subnet_ids    = var.subnet_ids
        disk_size     = 200

        scaling = {
          min     = 1
          max     = 4
          desired = 1
        }
      }
    }
    # Dynamic inference capacity next to it, served by the device plugin.
    inference = {
      capacity       = "karpenter"
      instance_types = ["g6e.12xlarge"]

      disruption = {
        consolidation_policy = "WhenEmpty"
        consolidate_after    = "5m"
      }

      node_class = {
        role = "KarpenterNodeRole-gpu-cluster"

        # Room for GPU container images, 10-30 GB each (EKSGPU123).
        root_volume = {
          size = "200Gi"
        }
      }
    }
  }
}

output "dra_node_labels" {
  value = eksgpu_node_strategy.dra.pools["h100-dra"].manifests_yaml
}

output "dra_pod_resource_claims" {
  value = eksgpu_sharing_pool.dra.pod_resource_claims
}

output "dra_gpu_resource_name" {
  value = eksgpu_node_strategy.dra.pools["h100-dra"].gpu_resource_name
}

# Helm values for NVIDIA's DRA driver chart (dra-driver-nvidia-gpu 0.4.1) that fit the DRA pool:
# GPU resources on, its kubelet plugin on the node group's nodes only.
output "dra_driver_values" {
  value = eksgpu_node_strategy.dra.dra_driver_values_yaml
}
