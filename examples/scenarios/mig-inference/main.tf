# Composition: a MIG sharing pool hands its node labels to a node strategy pool
# and its resource requests to a workload, as a platform module would.

terraform {
  required_providers {
    eksgpu = {
      source = "eksgpu/eksgpu"
    }
  }
}

provider "eksgpu" {
  region = "us-west-2"
}

# Seven 1g.18gb slices per H200: small models, one slice each.
resource "eksgpu_sharing_pool" "small_models" {
  cluster_name  = "gpu-cluster"
  name          = "h200-1g18"
  instance_type = "p5en.48xlarge"
  capacity      = "karpenter"
  strategy      = "mig"

  mig {
    strategy = "mixed"
    profiles = { "1g.18gb" = 7 }
  }

  workload {
    name       = "llama-8b-int4"
    memory_mib = 9000
  }
}

resource "eksgpu_node_strategy" "inference" {
  cluster_name = "gpu-cluster"
  name         = "mig-inference"

  gpu_operator {
    mig_strategy = "mixed"
  }

  pool {
    name           = "h200-mig"
    capacity       = "karpenter"
    instance_types = ["p5en.48xlarge"]
    gpu_limit      = 16
    labels         = merge({ "node-type" = "mig-inference" }, eksgpu_sharing_pool.small_models.node_labels)

    node_class {
      role = "KarpenterNodeRole-gpu-cluster"
    }
  }
}

module "workload" {
  source = "./modules/workload"

  name              = "llama-8b"
  image             = "vllm/vllm-openai:latest"
  replicas          = 7
  resource_requests = eksgpu_sharing_pool.small_models.resource_requests
  node_selector     = eksgpu_node_strategy.inference.pool[0].node_selector
  tolerations       = eksgpu_node_strategy.inference.pool[0].tolerations
}

output "deployment_yaml" {
  value = module.workload.deployment_yaml
}

output "gpu_operator_values" {
  value = eksgpu_node_strategy.inference.gpu_operator_values_yaml
}
