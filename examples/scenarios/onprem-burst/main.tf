# On-prem first, completed: on-prem GPUs first, burst to EKS Spot GPU nodes that
# Karpenter adds on demand and removes when empty, driven by KEDA alone, which
# reads the waiting queue from the on-prem Prometheus and the running requests
# from Amazon Managed Prometheus in the cloud, each with its own credentials. The
# on-prem GPUs join the same cluster as Hybrid Nodes: the four ranges — on-prem
# nodes, on-prem pods, the VPC and the service CIDR — must not overlap; the plan
# checks the first two, apply checks them against the cluster's before changing
# anything (EKSGPU007).

terraform {
  # Nested attributes (pools) need Terraform 1.4.0 or later (design/0010).
  required_version = ">= 1.4.0"
  required_providers {
    eksgpu = {
      source = "eksgpu/eksgpu"
    }
  }
}

# The clusters' Karpenter runs with settings.featureGates.staticCapacity: true,
# for the warm pool below.
provider "eksgpu" {
  region                  = "us-west-2"
  karpenter_feature_gates = ["staticCapacity"]
}

resource "eksgpu_node_strategy" "burst" {
  cluster_name = "gpu-cluster"
  name         = "onprem-burst"

  gpu_operator {}

  # Spot g5.2xlarge for the burst replicas, removed as soon as they are empty.
  pools = {
    burst-spot = {
      capacity       = "karpenter"
      instance_types = ["g5.2xlarge"]
      capacity_types = ["spot"]
      gpu_limit      = 3

      disruption = {
        consolidation_policy = "WhenEmpty"
        consolidate_after    = "1m"
      }

      node_class = {
        role = "KarpenterNodeRole-gpu-cluster"

        # Room for GPU container images, 10-30 GB each (EKSGPU123).
        root_volume = {
          size = "200Gi"
        }
      }
    }
    # The on-prem GPUs, first in line for traffic.
    onprem = {
      capacity = "hybrid"
      labels   = { "site" = "onprem" }

      hybrid = {
        remote_node_networks = ["192.168.10.0/24"]
        remote_pod_networks  = ["192.168.128.0/18"]
        node_role_arn        = "arn:aws:iam::123456789012:role/eks-hybrid-nodes"
      }
    }
    # One on-demand node kept warm (a static NodePool, spec.replicas): the first
    # cloud replica lands without waiting for a launch (about 8 minutes cold).
    warm = {
      capacity       = "karpenter"
      instance_types = ["g5.2xlarge"]
      replicas       = 1
      node_limit     = 2

      node_class = {
        role = "KarpenterNodeRole-gpu-cluster"
        root_volume = {
          size = "200Gi"
        }
      }
    }
  }
}

# Read after the strategy has set the remote networks.
data "eksgpu_cluster" "gpu" {
  name       = "gpu-cluster"
  depends_on = [eksgpu_node_strategy.burst]
}

# The four ranges, as the cluster now reports them.
output "ranges" {
  value = {
    onprem_nodes = data.eksgpu_cluster.gpu.remote_node_networks
    onprem_pods  = data.eksgpu_cluster.gpu.remote_pod_networks
    vpc          = data.eksgpu_cluster.gpu.vpc_cidrs
    services     = data.eksgpu_cluster.gpu.service_cidr
  }
}

resource "eksgpu_burst_scaler" "vllm" {
  cluster_name = "gpu-cluster"
  namespace    = "llm"
  name         = "vllm-burst"

  target {
    kind = "StatefulSet"
    name = "vllm"
  }

  max_replicas = 3

  # Two sites, two Prometheus servers. On-prem: the site's own Prometheus behind
  # a token proxy; the token stays in the Secret prom-onprem-token (namespace
  # llm), which the provider names for KEDA and never reads.
  on_prem_prometheus {
    address = "https://prometheus.onprem.example.com"
    secret_auth {
      mode        = "bearer"
      secret_name = "prom-onprem-token"
      keys        = { bearerToken = "token", ca = "ca.crt" }
    }
  }

  # Cloud: Amazon Managed Service for Prometheus, SigV4-signed by KEDA with a
  # role that may only query this workspace (aps:QueryMetrics).
  cloud_prometheus {
    address = "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-0123abcd-4567-89ef-0123-456789abcdef"
    aws_sigv4 {
      region   = "us-west-2"
      role_arn = "arn:aws:iam::123456789012:role/keda-amp-query"
    }
  }

  on_prem_waiting_query = "sum(vllm:num_requests_waiting)"
  cloud_running_query   = "sum(vllm:num_requests_running)"

  # The burst replicas run on Spot: Karpenter's interruption queue (SQS +
  # EventBridge) drains nodes ahead of the 2-minute reclaim notice.
  target_capacity_types      = eksgpu_node_strategy.burst.pools["burst-spot"].capacity_types
  spot_interruption_handling = true
}

# What the StatefulSet's pod template needs to land on the burst pool.
output "burst_node_selector" {
  value = eksgpu_node_strategy.burst.pools["burst-spot"].node_selector
}

output "burst_tolerations" {
  value = eksgpu_node_strategy.burst.pools["burst-spot"].tolerations
}

output "formula" {
  value = eksgpu_burst_scaler.vllm.formula
}

# The two TriggerAuthentications and the ScaledObject, as applied.
output "burst_manifests" {
  value = eksgpu_burst_scaler.vllm.manifests_yaml
}
