# aws/karpenter-provider-aws@1d927085 website/content/en/docs/concepts/nodeoverlays.md, section "Example:
# Fractional GPU Instances (g6f)": a NodePool on g6f (fractional L4, which EC2 reports with GPU count 0)
# and the hand-written NodeOverlay that tells Karpenter each has one nvidia.com/gpu. Its EC2NodeClass
# `gpu-nodeclass` is not part of the page: the pool refers to it. Needs the `nodeOverlay` gate.
resource "eksgpu_node_strategy" "s" {
  cluster_name = "gpu"
  name         = "upstream"
  gpu_operator {}
  pools = {
    fractional-gpu = {
      capacity       = "karpenter"
      capacity_types = ["on-demand"]
      requirements = [
        { key = "karpenter.k8s.aws/instance-family", operator = "In", values = ["g6f"] },
      ]
      gpu_limit      = 4
      gpu_taint      = false
      node_class_ref = "gpu-nodeclass"
      node_overlays = [{
        name         = "g6f-fractional-gpu"
        requirements = [{ key = "karpenter.k8s.aws/instance-family", operator = "In", values = ["g6f"] }]
        capacity     = { "nvidia.com/gpu" = "1" }
      }]
    }
  }
}
