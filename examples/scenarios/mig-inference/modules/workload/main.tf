# A workload module as platform teams write them: it takes the GPU resources,
# node selector and tolerations from the eksgpu resources and renders the
# Deployment (here as YAML; feed it to a kubernetes_manifest in real use).

variable "name" {
  type = string
}

variable "image" {
  type = string
}

variable "replicas" {
  type = number
}

variable "resource_requests" {
  type = map(string)
}

variable "node_selector" {
  type = map(string)
}

variable "tolerations" {
  type = list(object({ key = string, operator = string, value = string, effect = string }))
}

locals {
  deployment = {
    apiVersion = "apps/v1"
    kind       = "Deployment"
    metadata   = { name = var.name }
    spec = {
      replicas = var.replicas
      selector = { matchLabels = { app = var.name } }
      template = {
        metadata = { labels = { app = var.name } }
        spec = {
          nodeSelector = var.node_selector
          tolerations  = [for t in var.tolerations : { for k, v in t : k => v if v != null }]
          containers = [{
            name      = var.name
            image     = var.image
            resources = { limits = var.resource_requests }
          }]
        }
      }
    }
  }
}

output "deployment_yaml" {
  value = yamlencode(local.deployment)
}
