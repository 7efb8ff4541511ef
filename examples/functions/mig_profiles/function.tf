terraform {
  required_version = ">= 1.8"
  required_providers {
    eksgpu = {
      source = "eksgpu/eksgpu"
    }
  }
}

provider "eksgpu" {
  region = "us-west-2"
}

# The smallest MIG slice of an H200 with room for 16 GB, and how many fit on one GPU.
locals {
  fitting = [for p in provider::eksgpu::mig_profiles("p5en.48xlarge") : p if p.memory_gb >= 16 && length(regexall("\\+", p.name)) == 0]
}

output "slice" {
  value = {
    profile = local.fitting[0].name
    per_gpu = local.fitting[0].max_instances
  }
}
