# awslabs/ai-on-eks@5f336be6 infra/base/terraform/karpenter-resources/karpenter/gpu.yaml: a dynamic GPU
# pool by instance category and generation. Its EC2NodeClass spec is the base module's shared
# `${indent(2, ec2nodeclass)}` block, not part of the file: the pool refers to the node class `gpu` with
# `node_class_ref` and writes none. ${ami_family} = "al2023" (one of the two values SOURCE names).
resource "eksgpu_node_strategy" "s" {
  cluster_name = "gpu"
  name         = "upstream"
  gpu_operator {}
  pools = {
    gpu = {
      capacity       = "karpenter"
      capacity_types = ["reserved", "spot", "on-demand"]
      requirements = [
        { key = "karpenter.k8s.aws/instance-category", operator = "In", values = ["g"] },
        { key = "karpenter.k8s.aws/instance-generation", operator = "Gt", values = ["4"] },
      ]
      weight                   = 10
      expire_after             = "720h"
      termination_grace_period = "24h"
      labels = {
        "ai-on-eks.io/amiFamily" = "al2023"
        accelerator              = "nvidia"
      }
      taints = [{ key = "nvidia.com/gpu", effect = "NoSchedule" }]
      disruption = {
        budgets              = [{ nodes = "10%" }]
        consolidate_after    = "300s"
        consolidation_policy = "WhenEmptyOrUnderutilized"
      }
      node_class_ref = "gpu"
    }
  }
}
