# aws-samples/karpenter-blueprints@529b88cf blueprints/static-nodepool/static-nodepool.yaml and
# static-nodeclass.yaml: static capacity (one node, at most two) on g6e.8xlarge with an ENA primary
# and one EFA-only interface, Bottlerocket, RAID0 instance store. $CLUSTER_NAME = "gpu",
# $KARPENTER_NODE_IAM_ROLE_NAME = "KarpenterNodeRole-gpu". Needs the `staticCapacity` gate.
resource "eksgpu_node_strategy" "s" {
  cluster_name = "gpu"
  name         = "upstream"
  gpu_operator {}
  pools = {
    gpu-static = {
      capacity       = "karpenter"
      instance_types = ["g6e.8xlarge"]
      capacity_types = ["spot", "on-demand"]
      replicas       = 1
      node_limit     = 2
      expire_after   = "Never"
      efa            = true
      labels = {
        capacity-type                   = "gpu-static"
        "nvidia.com/gpu.present"        = "true"
        "vpc.amazonaws.com/efa.present" = "true"
      }
      taints = [{ key = "nvidia.com/gpu", effect = "NoSchedule" }]
      node_class = {
        ami_alias                    = "bottlerocket@latest"
        role                         = "KarpenterNodeRole-gpu"
        subnet_selector_tags         = { "karpenter.sh/discovery" = "gpu" }
        security_group_selector_tags = { "karpenter.sh/discovery" = "gpu" }
        instance_store_policy        = "RAID0"
        network_interfaces = [
          { network_card_index = 0, device_index = 0, interface_type = "interface" },
          { network_card_index = 0, device_index = 1, interface_type = "efa-only" },
        ]
      }
    }
  }
}
