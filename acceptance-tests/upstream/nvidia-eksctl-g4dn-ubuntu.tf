# NVIDIA/cloud-native-docs@52dcb7b8 gpu-operator/manifests/input/amazon-eks-cluster-config.yaml,
# nodeGroups[name=demo-gpu-workers]: a self-managed node group (eksctl `nodeGroups`) on a custom
# Ubuntu 20.04 AMI with an overridden bootstrap command. Self-managed node groups are not a capacity
# kind of this provider: the plan refuses them (EKSGPU156) and names the nearest, `managed_node_group`.
resource "eksgpu_node_strategy" "s" {
  cluster_name = "gpu"
  name         = "upstream"
  gpu_operator {}
  pools = {
    demo-gpu-workers = {
      capacity       = "self_managed_node_group"
      instance_types = ["g4dn.xlarge"]
    }
  }
}
