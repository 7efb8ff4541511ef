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

# Facts about an existing cluster, read at plan time.
data "eksgpu_cluster" "gpu" {
  name = "gpu-cluster"
}

# Feed a node group pool's subnets, or check on-prem ranges in a module: Hybrid
# Nodes' remote networks must not overlap these (EKSGPU007).
output "subnet_ids" {
  value = data.eksgpu_cluster.gpu.subnet_ids
}

output "reserved_ranges" {
  value = concat(data.eksgpu_cluster.gpu.vpc_cidrs, [data.eksgpu_cluster.gpu.service_cidr])
}

output "auto_mode" {
  value = data.eksgpu_cluster.gpu.auto_mode
}
