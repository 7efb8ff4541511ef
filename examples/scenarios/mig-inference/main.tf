# Composition: a MIG sharing pool hands its node labels to a node strategy pool
# and its resource requests to a workload, as a platform module would.

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

# Seven 1g.18gb slices per H200: small models, one slice each. Under the mixed
# strategy containers request nvidia.com/mig-1g.18gb, which no instance type
# advertises, so Karpenter would never launch a node for them (EKSGPU122):
# MIG runs on static capacity, a managed node group.
resource "eksgpu_sharing_pool" "small_models" {
  cluster_name  = var.cluster_name
  name          = "h200-1g18"
  instance_type = "p5en.48xlarge"
  capacity      = "managed_node_group"
  strategy      = "mig"

  mig {
    strategy = "mixed"
    profiles = { "1g.18gb" = 7 }
  }

  workload {
    name       = "llama-8b-int4"
    memory_mib = 9000
  }
}

resource "eksgpu_node_strategy" "inference" {
  cluster_name = var.cluster_name
  name         = "mig-inference"

  gpu_operator {
    mig_strategy = "mixed"
  }

  pools = {
    h200-mig = {
      capacity       = "managed_node_group"
      instance_types = ["p5en.48xlarge"]
      labels         = merge({ "node-type" = "mig-inference" }, eksgpu_sharing_pool.small_models.node_labels)

      managed_node_group = {
        node_role_arn = "arn:aws:iam::123456789012:role/eks-gpu-nodes"
        subnet_ids    = var.subnet_ids
        disk_size     = 200

        scaling = {
          min     = 1
          max     = 2
          desired = 1
        }
      }
    }
  }
}

module "workload" {
  source = "./modules/workload"

  name              = "llama-8b"
  image             = "vllm/vllm-openai:latest"
  replicas          = 7
  resource_requests = eksgpu_sharing_pool.small_models.resource_requests
  node_selector     = eksgpu_node_strategy.inference.pools["h200-mig"].node_selector
  tolerations       = eksgpu_node_strategy.inference.pools["h200-mig"].tolerations
}

output "deployment_yaml" {
  value = module.workload.deployment_yaml
}

output "gpu_operator_values" {
  value = eksgpu_node_strategy.inference.gpu_operator_values_yaml
}
