# Multi-node training on P6e-GB200 UltraServers, as the EKS user guide documents
# it: a managed node group on a Capacity Block (P6e-GB200 comes only that way)
# with a launch template the provider owns (the reservation, the capacity-block
# market and the EFA interfaces), a DRA ComputeDomain whose IMEX channel the
# training pods claim, the NVIDIA DRA driver's values (ComputeDomains only; the
# GPU Operator's device plugin keeps serving the GPUs), and the Cluster
# Autoscaler's tags so it can scale the group from zero.
#
# Install the DRA driver from dra_driver_values below: its chart brings the
# ComputeDomain CRD, so the first apply creates the node group and says the
# ComputeDomain waits for it; the next apply creates it.
#
# Plans offline: the cluster and subnets are variables (read them with
# data.eksgpu_cluster in a real configuration).

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

variable "subnet_ids" {
  description = "The subnet of the Capacity Block's Availability Zone."
  type        = list(string)
  default     = ["subnet-0123456789abcdef0"]
}

variable "capacity_block_id" {
  type    = string
  default = "cr-0123456789abcdef0"
}

resource "eksgpu_node_strategy" "gb200" {
  cluster_name       = var.cluster_name
  name               = "gb200-training"
  kubernetes_version = "1.34"

  # No public source states p6e-gb200's EFA interface count (EKSGPU182) nor its per-card
  # limits (EKSGPU178) yet: its launch template lays EFA out as the EC2 user guide gives for
  # P6e-GB200 (EFA-only on network cards 1, 3, ... 15; card 0 is ENA-only), unchecked.
  acknowledged_warnings = ["EKSGPU178", "EKSGPU182"]

  gpu_operator {}

  pools = {
    nvl72 = {
      capacity                 = "managed_node_group"
      instance_types           = ["p6e-gb200.36xlarge"]
      capacity_types           = ["capacity-block"]
      efa                      = true
      dra                      = true
      multi_node_nvlink        = true
      compute_domain_namespace = "training"

      managed_node_group = {
        node_role_arn           = "arn:aws:iam::123456789012:role/eks-gpu-nodes"
        subnet_ids              = var.subnet_ids
        ami_type                = "AL2023_ARM_64_NVIDIA"
        disk_size               = 500
        capacity_reservation_id = var.capacity_block_id

        # The autoscaler takes it from zero; the block's instances are paid for
        # from its start whether they run or not.
        scaling = {
          min     = 0
          max     = 18
          desired = 0
        }
      }
    }
  }
}

output "node_group_request" {
  description = "The CreateNodegroup request and its launch template: reservation, market, EFA, autoscaler tags."
  value       = eksgpu_node_strategy.gb200.pools["nvl72"].manifests_yaml
}

output "claim_template" {
  description = "The ResourceClaimTemplate a training pod claims the IMEX channel with."
  value       = eksgpu_node_strategy.gb200.pools["nvl72"].compute_domain_claim_template
}

output "clique_topology_key" {
  value = eksgpu_node_strategy.gb200.pools["nvl72"].clique_topology_key
}

output "dra_driver_values" {
  value = eksgpu_node_strategy.gb200.dra_driver_values_yaml
}
