# The quickstart: what the provider knows about EC2 GPU capacity, offline by
# default, refreshed from EC2 when an endpoint is given (the demo points it at
# a local moto emulator: `scripts/quickstart`).

terraform {
  required_providers {
    eksgpu = {
      source = "eksgpu/eksgpu"
    }
  }
}

variable "ec2_endpoint" {
  description = "EC2 endpoint URL to refresh the catalog from; null keeps the provider offline."
  type        = string
  default     = null
}

provider "eksgpu" {
  region = "us-west-2"

  endpoints {
    ec2 = var.ec2_endpoint
  }
}

data "eksgpu_gpu_catalog" "h200" {
  gpu_model        = "H200"
  refresh_from_ec2 = var.ec2_endpoint != null
}

data "eksgpu_gpu_catalog" "inference" {
  mig_capable      = false
  refresh_from_ec2 = var.ec2_endpoint != null
}

output "h200" {
  description = "H200 instance types: GPUs, memory per GPU, MIG profiles, and where the figures come from."
  value = {
    for t in data.eksgpu_gpu_catalog.h200.instance_types :
    t.instance_type => {
      gpus           = t.gpu_count
      gpu_memory_mib = t.gpu_memory_mib
      efa            = t.efa
      mig_profiles   = [for p in t.mig_profiles : "${p.name} x${p.max_instances}"]
      source         = t.source
    }
  }
}

output "single_gpu_inference_types" {
  description = "Instance types with exactly one whole GPU or accelerator that MIG cannot split: whole-GPU or time-sliced inference."
  value = [
    for t in data.eksgpu_gpu_catalog.inference.instance_types :
    "${t.instance_type} (${t.gpu_model}, ${t.gpu_memory_mib} MiB)"
    if t.gpu_count == 1 && t.gpu_memory_mib != null
  ]
}
