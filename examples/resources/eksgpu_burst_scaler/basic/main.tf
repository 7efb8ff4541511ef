# Cloud replicas of an on-prem vLLM when more than 20 requests wait on-prem.
resource "eksgpu_burst_scaler" "vllm" {
  cluster_name = "gpu-cluster"
  namespace    = "llm"
  name         = "vllm-burst"

  target {
    kind = "StatefulSet"
    name = "vllm"
  }

  max_replicas       = 3
  prometheus_address = "http://prometheus.monitoring:9090"

  on_prem_waiting_query = "sum(vllm:num_requests_waiting{site=\"onprem\"})"
  cloud_running_query   = "sum(vllm:num_requests_running{site=\"cloud\"})"
}

output "formula" {
  value = eksgpu_burst_scaler.vllm.formula
}
