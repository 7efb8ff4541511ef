# Two vLLM replicas of one L40S each on a strategy's pool: what their pod spec needs.
resource "eksgpu_node_strategy" "inference" {
  cluster_name = "gpu-cluster"
  name         = "inference"
  gpu_operator {}
  pools = {
    l40s = {
      capacity       = "karpenter"
      instance_types = ["g6e.12xlarge"]
      taints         = [{ key = "nvidia.com/gpu", effect = "NoSchedule" }]
      node_class     = { role = "KarpenterNodeRole-gpu-cluster", root_volume = { size = "200Gi" } }
    }
  }
}

data "eksgpu_workload_placement" "vllm" {
  pool                     = eksgpu_node_strategy.inference.pools["l40s"]
  name                     = "vllm"
  namespace                = "inference"
  replicas                 = 2
  accelerators_per_replica = 1
}

output "pod_spec" {
  value = data.eksgpu_workload_placement.vllm.pod_spec_yaml
}
