# One Karpenter GPU pool: a NodePool and EC2NodeClass for L40S inference.
resource "eksgpu_node_strategy" "inference" {
  cluster_name = "gpu-cluster"
  name         = "inference"

  pools = {
    l40s = {
      capacity       = "karpenter"
      instance_types = ["g6e.12xlarge"]
      gpu_limit      = 16

      node_class = {
        role = "KarpenterNodeRole-gpu-cluster"
      }
    }
  }
}

# What a Deployment's pod template needs to land on the pool.
output "node_selector" {
  value = eksgpu_node_strategy.inference.pools["l40s"].node_selector
}

output "tolerations" {
  value = eksgpu_node_strategy.inference.pools["l40s"].tolerations
}
