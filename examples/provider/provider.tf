terraform {
  # Nested attributes (pools) need Terraform 1.4.0 or later (design/0010).
  required_version = ">= 1.4.0"
  required_providers {
    eksgpu = {
      source = "eksgpu/eksgpu"
    }
  }
}

# Credentials come from the standard AWS chain (environment, shared config,
# SSO cache, instance role). Nothing contacts AWS until a resource or data
# source needs it.
provider "eksgpu" {
  region            = "us-west-2"
  karpenter_version = "1.14"
}
