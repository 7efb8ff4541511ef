# aws-samples/karpenter-blueprints@529b88cf blueprints/node-overlay/gpu-nodepool.yaml, gpu-nodeclass.yaml and
# node-overlay-gpu-slices.yaml: Bottlerocket time-slicing in user data, with the hand-written NodeOverlays
# that tell Karpenter four nvidia.com/gpu per physical GPU. <<CLUSTER_NAME>> = "gpu",
# <<KARPENTER_NODE_IAM_ROLE_NAME>> = "KarpenterNodeRole-gpu". Needs the `nodeOverlay` feature gate.
resource "eksgpu_node_strategy" "s" {
  cluster_name = "gpu"
  name         = "upstream"
  gpu_operator {}
  pools = {
    gpu-slices = {
      capacity       = "karpenter"
      capacity_types = ["on-demand"]
      requirements = [
        { key = "karpenter.k8s.aws/instance-category", operator = "In", values = ["g", "p"] },
        { key = "karpenter.k8s.aws/instance-gpu-manufacturer", operator = "In", values = ["nvidia"] },
      ]
      cpu_limit    = "100"
      memory_limit = "200Gi"
      gpu_limit    = 40
      expire_after = "720h"
      taints       = [{ key = "nvidia.com/gpu", effect = "NoSchedule" }]
      labels       = { intent = "gpu-workloads", "nvidia.com/gpu.present" = "true" }
      disruption = {
        consolidation_policy = "WhenEmpty"
        consolidate_after    = "5m"
      }
      node_class = {
        name                         = "gpu-bottlerocket"
        ami_alias                    = "bottlerocket@latest"
        role                         = "KarpenterNodeRole-gpu"
        subnet_selector_tags         = { "karpenter.sh/discovery" = "gpu" }
        security_group_selector_tags = { "karpenter.sh/discovery" = "gpu" }
        tags                         = { intent = "gpu-workloads", "karpenter.sh/discovery" = "gpu" }
        user_data                    = <<-TOML
          [settings.kubelet-device-plugins.nvidia]
          device-sharing-strategy = "time-slicing"
          [settings.kubelet-device-plugins.nvidia.time-slicing]
          replicas = 4
          rename-by-default = false
        TOML
      }
      node_overlays = [for n in [1, 2, 4, 8] : {
        name   = "gpu-slices-${n}gpu"
        weight = 10
        requirements = [
          { key = "karpenter.k8s.aws/instance-gpu-count", operator = "In", values = [tostring(n)] },
          { key = "karpenter.k8s.aws/instance-gpu-manufacturer", operator = "In", values = ["nvidia"] },
        ]
        capacity = { "nvidia.com/gpu" = tostring(4 * n) }
      }]
    }
  }
}
