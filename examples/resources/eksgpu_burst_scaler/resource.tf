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

# On-prem first: serve on-prem first; when the on-prem queue passes 20 waiting
# requests, start cloud replicas; keep them while the cloud runs more than 10
# requests, hold between 5 and 10, scale in below 5. No exporter needed.
resource "eksgpu_burst_scaler" "vllm" {
  cluster_name = "gpu-cluster"
  namespace    = "llm"
  name         = "vllm-burst"

  target {
    kind = "StatefulSet"
    name = "vllm"
  }

  max_replicas       = 3
  polling_interval   = 15
  cooldown_period    = 300
  prometheus_address = "http://prometheus.monitoring:9090"

  on_prem_waiting_query = "sum(vllm:num_requests_waiting{site=\"onprem\"})"
  scale_out_threshold   = 20
  cloud_running_query   = "sum(vllm:num_requests_running{site=\"cloud\"})"
  hold_threshold        = 10
  scale_in_threshold    = 5

  # Cold starts take 5-15 minutes: keep one replica warm on weekday mornings.
  pre_warm {
    timezone = "Asia/Seoul"
    start    = "30 8 * * 1-5"
    end      = "0 11 * * 1-5"
  }
}

output "formula" {
  value = eksgpu_burst_scaler.vllm.formula
}
