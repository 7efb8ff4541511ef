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

# The three set-ups measured on A10G (g5.2xlarge) in the field report.

# 1. Device-plugin time-slicing, 2 replicas: node capacity goes 1 -> 2 GPUs.
#    Replicas reserve no memory: two vLLM at --gpu-memory-utilization 0.40 fit
#    the 22888 MiB GPU; at 0.90 the plan fails (EKSGPU012).
resource "eksgpu_sharing_pool" "time_sliced" {
  cluster_name  = "gpu-cluster"
  name          = "a10g-ts2"
  instance_type = "g5.2xlarge"
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

# 2. An NVIDIA DRA claim with time-slicing, shared by pods of one namespace.
resource "eksgpu_sharing_pool" "dra_shared" {
  cluster_name  = "gpu-cluster"
  name          = "a10g-dra"
  instance_type = "g5.2xlarge"
  strategy      = "dra"

  dra {
    namespace = "llm"
    sharing   = "time_slicing"
  }

  workload {
    name       = "pod-a"
    memory_mib = 9000
    namespace  = "llm"
  }

  workload {
    name       = "pod-b"
    memory_mib = 9000
    namespace  = "llm"
  }
}

# 3. HAMi: 6144 MiB and half the SMs per pod, enforced in user space
#    (a soft quota, not a security boundary between tenants).
resource "eksgpu_sharing_pool" "hami" {
  cluster_name  = "gpu-cluster"
  name          = "a10g-hami"
  instance_type = "g5.2xlarge"
  strategy      = "hami"

  hami {
    memory_mib    = 6144
    cores_percent = 50
  }
}

output "time_sliced_requests" {
  value = eksgpu_sharing_pool.time_sliced.resource_requests
}

output "dra_claim" {
  value = eksgpu_sharing_pool.dra_shared.resource_claim_name
}

# What each pod sharing the claim puts in its spec.resourceClaims.
output "dra_pod_resource_claims" {
  value = eksgpu_sharing_pool.dra_shared.pod_resource_claims
}

output "hami_requests" {
  value = eksgpu_sharing_pool.hami.resource_requests
}

output "hami_values" {
  value = eksgpu_sharing_pool.hami.hami_values_yaml
}
