terraform {
  # Nested attributes (pools) need Terraform 1.4.0 or later (design/0010).
  required_version = ">= 1.4.0"
  required_providers {
    eksgpu = {
      source = "eksgpu/eksgpu"
    }
  }
}

# The cluster's API is found through EKS (DescribeCluster) and reached with an
# EKS IAM token, as `aws eks get-token` makes; no kubeconfig needed.
provider "eksgpu" {
  region = "us-west-2"
}

# The GPU pools of the field reports, corrected for Karpenter v1:
# `WhenUnderutilized` is `WhenEmptyOrUnderutilized` (or `WhenEmpty`) in v1, and
# kubelet settings live on the EC2NodeClass, not the NodePool.
resource "eksgpu_node_strategy" "genai" {
  cluster_name = "gpu-cluster"
  name         = "genai"

  # Helm values for nvidia/gpu-operator that fit these pools (gpu_operator_values_yaml).
  gpu_operator {
    service_monitor = true
  }

  # Inference: on-demand, nodes removed only when empty, 5 minutes after.
  pools = {
    gpu-inference = {
      capacity       = "karpenter"
      instance_types = ["p5.48xlarge", "g6e.12xlarge", "g5.12xlarge"]
      gpu_limit      = 32
      labels = {
        "node-type"    = "gpu-inference"
        "gpu-operator" = "enabled"
      }

      disruption = {
        consolidation_policy = "WhenEmpty"
        consolidate_after    = "5m"
      }

      node_class = {
        role = "KarpenterNodeRole-gpu-cluster"

        root_volume = {
          size       = "200Gi"
          iops       = 16000
          throughput = 1000
          encrypted  = true
        }

        kubelet = {
          max_pods = 110
        }
      }
    }
    # Training: Spot first, on-demand as fallback. consolidate_after only delays
    # voluntary consolidation; Spot reclaims still happen, so checkpoint.
    gpu-training = {
      capacity       = "karpenter"
      instance_types = ["p5.48xlarge", "p4d.24xlarge"]
      capacity_types = ["spot", "on-demand"]
      gpu_limit      = 64

      taints = [
        {
          key    = "workload"
          value  = "training"
          effect = "NoSchedule"
        },
      ]

      disruption = {
        consolidation_policy = "WhenEmpty"
        consolidate_after    = "30m"
      }

      node_class = {
        role = "KarpenterNodeRole-gpu-cluster"

        # Room for GPU container images, 10-30 GB each (EKSGPU123).
        root_volume = {
          size = "200Gi"
        }
      }
    }
    # Simple inference on EKS Auto Mode: AWS manages driver and device plugin;
    # the provider labels the pool so the GPU Operator's own plugin stays off.
    auto-gpu = {
      capacity       = "auto_mode"
      instance_types = ["p5.48xlarge", "g6e.12xlarge"]
      capacity_types = ["spot", "on-demand"]
    }
  }
}

# What workload modules consume.
output "inference_node_selector" {
  value = eksgpu_node_strategy.genai.pools["gpu-inference"].node_selector
}

output "inference_tolerations" {
  value = eksgpu_node_strategy.genai.pools["gpu-inference"].tolerations
}

output "gpu_operator_values" {
  value = eksgpu_node_strategy.genai.gpu_operator_values_yaml
}

# The AWS side of the same cluster, in its own strategy: a managed node group
# for steady H100 capacity and EKS Hybrid Nodes for the on-prem GPUs. The
# remote networks are checked against each other at plan and against the VPC
# and service CIDRs before apply changes anything.
# The cluster, as variables: `terraform plan` needs no AWS call. With the
# cluster in AWS, a root module can read them with the eksgpu_cluster data
# source instead (examples/data-sources/eksgpu_cluster):
#
#   data "eksgpu_cluster" "gpu" {
#     name = "gpu-cluster"
#   }
#
# and pass data.eksgpu_cluster.gpu.name and data.eksgpu_cluster.gpu.subnet_ids.
variable "cluster_name" {
  description = "Name of the EKS cluster."
  type        = string
  default     = "gpu-cluster"
}

variable "subnet_ids" {
  description = "Subnets of the cluster's VPC for the managed node groups."
  type        = list(string)
  default     = ["subnet-0123456789abcdef0"]
}

resource "eksgpu_node_strategy" "standard" {
  cluster_name = var.cluster_name
  name         = "standard"

  # Hybrid nodes get no driver from AWS: the operator installs it there, and the
  # node group (NVIDIA AMI, driver preinstalled) is labelled to skip it.
  gpu_operator {}

  pools = {
    h100 = {
      capacity       = "managed_node_group"
      instance_types = ["p5.48xlarge"]
      labels         = { "node-type" = "gpu-training" }

      managed_node_group = {
        node_role_arn = "arn:aws:iam::123456789012:role/eks-gpu-nodes"
        subnet_ids    = var.subnet_ids
        disk_size     = 200

        # desired is the size at creation; autoscaler changes are not drift.
        scaling = {
          min     = 0
          max     = 4
          desired = 0
        }

        update = {
          max_unavailable = 1
        }
      }
    }
    onprem = {
      capacity = "hybrid"

      hybrid = {
        remote_node_networks = ["192.168.100.0/23"]
        remote_pod_networks  = ["192.168.104.0/22"]
        node_role_arn        = "arn:aws:iam::123456789012:role/eks-hybrid-nodes"
      }
    }
  }

  timeouts {
    create = "45m"
  }
}

output "onprem_node_selector" {
  value = eksgpu_node_strategy.standard.pools["onprem"].node_selector
}
