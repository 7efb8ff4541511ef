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

# Instance types with H200 GPUs, and the MIG profiles each GPU can be split into.
data "eksgpu_gpu_catalog" "h200" {
  gpu_model = "H200"
}

# Every MIG-capable type with at least 80 GiB per GPU.
data "eksgpu_gpu_catalog" "large_mig" {
  mig_capable        = true
  min_gpu_memory_mib = 81920
}

output "h200_instance_types" {
  value = {
    for t in data.eksgpu_gpu_catalog.h200.instance_types :
    t.instance_type => {
      gpus         = t.gpu_count
      gpu_memory   = t.gpu_memory_mib
      mig_profiles = [for p in t.mig_profiles : p.name]
    }
  }
}

output "large_mig_instance_types" {
  value = [for t in data.eksgpu_gpu_catalog.large_mig.instance_types : t.instance_type]
}
