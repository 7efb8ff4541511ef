# Two vLLM replicas on one A10G with device-plugin time-slicing.
resource "eksgpu_sharing_pool" "chat" {
  cluster_name  = "gpu-cluster"
  name          = "a10g-ts2"
  instance_type = "g5.2xlarge"
  strategy      = "time_slicing"

  time_slicing {
    replicas = 2
  }

  workload {
    name       = "vllm-chat"
    memory_mib = 9155
  }

  workload {
    name       = "vllm-embed"
    memory_mib = 9155
  }
}

output "node_labels" {
  value = eksgpu_sharing_pool.chat.node_labels
}
