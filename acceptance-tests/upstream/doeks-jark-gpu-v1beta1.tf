# awslabs/data-on-eks@d732759d ai-ml/jark-stack/terraform/karpenter.tf, the `yaml_body` heredocs of
# kubectl_manifest.karpenter_gpu_node_class (EC2NodeClass `default`) and .karpenter_gpu_node_pool
# (NodePool `gpu`), Karpenter v1beta1, compared after the v1 migration guide's conversion
# (acceptance-tests/tests/expressiveness/v1beta1.rs): Bottlerocket (`bottlerocket@latest`), an OS
# volume of 50Gi and a 300Gi data volume, g-category types of 4, 8 or 16 vCPUs on Nitro in the
# region's first two zones, on demand, a GPU taint whose value is the literal "Exists".
# Values: node_iam_role_name = "KarpenterNodeRole-gpu", cluster_name = "gpu", local.azs =
# ["us-west-2a", "us-west-2b"] (the first two zones of var.region's default, us-west-2), and the
# data volume's snapshot line renders `snapshotID:` with nothing (var.bottlerocket_data_disk_snpashot_id
# defaults to "", not null): no snapshot. With a snapshot it would be `snapshot_id = "snap-…"` on
# the /dev/xvdb mapping.
resource "eksgpu_node_strategy" "s" {
  cluster_name = "gpu"
  name         = "upstream"
  gpu_operator {}
  pools = {
    gpu = {
      capacity = "karpenter"
      requirements = [
        { key = "kubernetes.io/arch", operator = "In", values = ["amd64"] },
        { key = "karpenter.k8s.aws/instance-category", operator = "In", values = ["g"] },
        { key = "karpenter.k8s.aws/instance-generation", operator = "Gt", values = ["4"] },
        { key = "karpenter.k8s.aws/instance-cpu", operator = "In", values = ["4", "8", "16"] },
        { key = "kubernetes.io/os", operator = "In", values = ["linux"] },
        { key = "karpenter.k8s.aws/instance-hypervisor", operator = "In", values = ["nitro"] },
      ]
      zones          = ["us-west-2a", "us-west-2b"]
      capacity_types = ["on-demand"]
      cpu_limit      = "1k"
      memory_limit   = "1000Gi"
      gpu_limit      = 50
      expire_after   = "720h"
      gpu_taint      = false
      taints         = [{ key = "nvidia.com/gpu", value = "Exists", effect = "NoSchedule" }]
      labels         = { NodeGroupType = "g5-gpu-karpenter", type = "karpenter" }
      disruption = {
        consolidation_policy = "WhenEmpty"
        consolidate_after    = "600s"
      }
      node_class = {
        name                         = "default"
        ami_alias                    = "bottlerocket@latest"
        role                         = "KarpenterNodeRole-gpu"
        security_group_selector_tags = { Name = "gpu-node" }
        subnet_selector_tags         = { "karpenter.sh/discovery" = "gpu" }
        tags                         = { "karpenter.sh/discovery" = "gpu" }
        block_device_mappings = [
          {
            device_name = "/dev/xvda"
            volume_size = "50Gi"
            volume_type = "gp3"
            encrypted   = true
          },
          {
            device_name = "/dev/xvdb"
            volume_size = "300Gi"
            volume_type = "gp3"
            encrypted   = true
          },
        ]
      }
    }
  }
}
