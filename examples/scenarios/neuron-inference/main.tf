# Serving on AWS Neuron: a Trainium2 pool for a 70B model and an Inferentia2
# pool for small models, both on Karpenter, and the Helm values of the Neuron
# chart (oci://public.ecr.aws/neuron/neuron-helm-chart) that run its device
# plugin on their nodes. Neuron nodes are tainted aws.amazon.com/neuron, so
# nothing else lands on them; workloads request aws.amazon.com/neuron devices.
#
# Plans offline: the cluster is a variable (read it with data.eksgpu_cluster in
# a real configuration).

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

variable "node_role" {
  description = "The IAM role of Karpenter's nodes."
  type        = string
  default     = "KarpenterNodeRole-gpu-cluster"
}

# Where the recommendation puts a 70B bf16 model you have checked runs on
# Neuron (NxD Inference, vLLM Neuron): two Trainium2 devices per replica.
data "eksgpu_recommendation" "llama_70b" {
  model_params_b      = 70
  precision           = "bf16"
  replicas            = 4
  available_on_neuron = true
  spot_ok             = true
}

resource "eksgpu_node_strategy" "neuron" {
  cluster_name       = var.cluster_name
  name               = "neuron-inference"
  kubernetes_version = "1.34"

  pools = {
    trn2 = {
      capacity       = data.eksgpu_recommendation.llama_70b.capacity
      instance_types = data.eksgpu_recommendation.llama_70b.instance_types
      capacity_types = data.eksgpu_recommendation.llama_70b.capacity_types

      # Neuron devices (chips), not NeuronCores: two trn2.48xlarge of 16 each.
      gpu_limit = 32

      node_class = {
        role = var.node_role
        root_volume = {
          size = "500Gi"
        }
      }
    }
    inf2 = {
      capacity       = "karpenter"
      instance_types = ["inf2.xlarge", "inf2.8xlarge"]
      capacity_types = ["spot", "on-demand"]
      gpu_limit      = 8

      node_class = {
        role = var.node_role
        root_volume = {
          size = "200Gi"
        }
      }
    }
  }
}

output "accelerators" {
  value = [for p in eksgpu_node_strategy.neuron.pools : p.accelerator]
}

output "device_resource" {
  description = "What a workload requests in resources.limits."
  value       = eksgpu_node_strategy.neuron.pools["trn2"].gpu_resource_name
}

output "trn2_tolerations" {
  value = eksgpu_node_strategy.neuron.pools["trn2"].tolerations
}

output "neuron_values" {
  description = "Helm values for the Neuron chart."
  value       = eksgpu_node_strategy.neuron.neuron_values_yaml
}

output "recommendation" {
  value = [for r in data.eksgpu_recommendation.llama_70b.rationale : "${r.code}: ${r.message}"]
}
