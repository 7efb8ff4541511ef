# aws-samples/karpenter-blueprints@529b88cf blueprints/nvidia-gpu-workload/gpu-nodepool-automode.yaml and
# gpu-nodeclass-automode.yaml: an EKS Auto Mode GPU pool chosen by Auto Mode's own labels.
# <<CLUSTER_NAME>> = "gpu".
resource "eksgpu_node_strategy" "s" {
  cluster_name = "gpu"
  name         = "upstream"
  gpu_operator {}
  pools = {
    gpu = {
      capacity       = "auto_mode"
      capacity_types = ["on-demand"]
      requirements = [
        { key = "eks.amazonaws.com/instance-category", operator = "In", values = ["g"] },
        { key = "eks.amazonaws.com/instance-gpu-manufacturer", operator = "In", values = ["nvidia"] },
      ]
      cpu_limit    = "100"
      memory_limit = "100Gi"
      gpu_limit    = 5
      expire_after = "336h"
      labels       = { "nvidia.com/gpu.present" = "true" }
      disruption = {
        consolidation_policy = "WhenEmpty"
        consolidate_after    = "5m"
      }
      node_class = {
        subnet_selector_tags         = { "karpenter.sh/discovery" = "gpu" }
        security_group_selector_tags = { "karpenter.sh/discovery" = "gpu" }
        root_volume                  = { size = "100Gi" }
      }
    }
  }
}
