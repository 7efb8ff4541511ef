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

# EKS documents p5en for Auto Mode, yet in 2026-04 it failed there with
# NoCompatibleInstanceTypes (EKSGPU009). Prove it in this account first: the
# apply launches one node, records the outcome and deletes everything again.
# Run it again with `terraform apply -replace=eksgpu_capacity_probe.p5en`.
resource "eksgpu_capacity_probe" "p5en" {
  cluster_name   = "gpu-cluster"
  name           = "p5en"
  capacity       = "auto_mode"
  instance_types = ["p5en.48xlarge"]
  zones          = ["us-west-2a"]
  timeout        = "20m"

  # Your price, for `max_cost` (the provider has no built-in prices).
  price_per_hour = var.p5en_price_per_hour == null ? {} : { "p5en.48xlarge" = var.p5en_price_per_hour }

  acknowledged_warnings = ["EKSGPU361"]
}

variable "p5en_price_per_hour" {
  type        = number
  description = "USD per hour of one p5en.48xlarge in your account and region (optional)."
  default     = null
}

# The pool depends on the probe: it is applied only once the probe provisioned
# the type, and the probe's evidence answers EKSGPU009 (`answers`).
resource "eksgpu_node_strategy" "h200" {
  cluster_name = "gpu-cluster"
  name         = "h200"

  pools = {
    h200 = {
      capacity       = "auto_mode"
      instance_types = ["p5en.48xlarge"]
      node_class_ref = "default"
      gpu_limit      = 8
    }
  }

  acknowledged_warnings = eksgpu_capacity_probe.p5en.answers

  lifecycle {
    precondition {
      condition     = eksgpu_capacity_probe.p5en.result == "provisioned"
      error_message = "p5en.48xlarge did not provision on Auto Mode: ${eksgpu_capacity_probe.p5en.message}"
    }
  }
}

output "probe" {
  value = {
    result      = eksgpu_capacity_probe.p5en.result
    zone        = eksgpu_capacity_probe.p5en.zone
    ready_after = eksgpu_capacity_probe.p5en.ready_after
    max_cost    = eksgpu_capacity_probe.p5en.max_cost
  }
}
