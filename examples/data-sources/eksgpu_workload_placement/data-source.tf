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

variable "cluster_name" {
  type    = string
  default = "gpu-cluster"
}

# A pool of L40S nodes on Karpenter and a pool of Trainium2 nodes.
resource "eksgpu_node_strategy" "inference" {
  cluster_name = var.cluster_name
  name         = "inference"
  gpu_operator {}
  pools = {
    l40s = {
      capacity       = "karpenter"
      instance_types = ["g6e.12xlarge"]
      taints         = [{ key = "nvidia.com/gpu", effect = "NoSchedule" }]
      node_class     = { role = "KarpenterNodeRole-${var.cluster_name}", root_volume = { size = "200Gi" } }
    }
    trn2 = {
      capacity       = "karpenter"
      instance_types = ["trn2.48xlarge"]
      taints         = [{ key = "aws.amazon.com/neuron", effect = "NoSchedule" }]
      node_class     = { role = "KarpenterNodeRole-${var.cluster_name}", root_volume = { size = "200Gi" } }
    }
  }
}

# vLLM with tensor parallelism over 4 GPUs, two replicas behind a load balancer:
# a PodDisruptionBudget of minAvailable 1 and a spread over nodes keep one serving
# while Karpenter consolidates the other's node.
data "eksgpu_workload_placement" "vllm" {
  pool                     = eksgpu_node_strategy.inference.pools["l40s"]
  name                     = "vllm"
  namespace                = "inference"
  replicas                 = 2
  accelerators_per_replica = 4
  load_balanced            = true
}

# The same model on 8 NeuronCores of a Trainium2 node per replica.
data "eksgpu_workload_placement" "vllm_neuron" {
  pool                     = eksgpu_node_strategy.inference.pools["trn2"]
  name                     = "vllm-neuron"
  namespace                = "inference"
  replicas                 = 2
  accelerators_per_replica = 0
  neuron_cores_per_replica = 8
}

# For a Helm release: the pod spec fragment, the container's resources, the budget.
output "vllm" {
  value = {
    pod_spec              = data.eksgpu_workload_placement.vllm.pod_spec_yaml
    container_resources   = data.eksgpu_workload_placement.vllm.container_resources_yaml
    pod_disruption_budget = data.eksgpu_workload_placement.vllm.pod_disruption_budget_yaml
    resources             = data.eksgpu_workload_placement.vllm.resources
    neuron_resources      = data.eksgpu_workload_placement.vllm_neuron.resources
    neuron_node_selector  = data.eksgpu_workload_placement.vllm_neuron.node_selector
  }
}
