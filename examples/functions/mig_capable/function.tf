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

variable "instance_types" {
  type    = list(string)
  default = ["p5.48xlarge", "g6e.12xlarge", "p5en.48xlarge"]
}

# Only MIG-capable types may serve a MIG sharing pool (EKSGPU002).
output "mig_capable_types" {
  value = [for t in var.instance_types : t if provider::eksgpu::mig_capable(t)]
}
