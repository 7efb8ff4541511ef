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

# A 70B model at fp8 needs about 84 GB per replica: just within one H100
# (80 GiB, 85.9 GB), with little room for longer contexts.
output "llama_70b_fp8_gb" {
  value = provider::eksgpu::replica_memory_gb(70, "fp8")
}
