# A platform team's module: one GPU inference pool per team. Its test
# (tests/plan.tftest.hcl) runs `terraform test` with `command = plan`, so it
# needs no AWS account and no cluster: the provider renders every object at plan.

terraform {
  required_version = ">= 1.6"
  required_providers {
    eksgpu = {
      source = "eksgpu/eksgpu"
    }
  }
}

variable "cluster_name" {
  description = "Name of the EKS cluster."
  type        = string
}

variable "team" {
  description = "Team name: the strategy and pool names start with it."
  type        = string
}

variable "node_role" {
  description = "IAM role of the Karpenter nodes."
  type        = string
}

variable "gpu_limit" {
  description = "Most GPUs the team's pool may hold."
  type        = number
  default     = 8
}

resource "eksgpu_node_strategy" "team" {
  cluster_name = var.cluster_name
  name         = var.team

  pools = {
    "${var.team}-inference" = {
      capacity       = "karpenter"
      instance_types = ["g6e.12xlarge"]
      gpu_limit      = var.gpu_limit

      node_class = {
        role = var.node_role
      }
    }
  }
}

output "node_selector" {
  value = eksgpu_node_strategy.team.pools["${var.team}-inference"].node_selector
}

output "tolerations" {
  value = eksgpu_node_strategy.team.pools["${var.team}-inference"].tolerations
}
