# awslabs/ai-on-eks@cd14c57b infra/static-nodepool/nodepools/gpu-p5en-48xlarge-static.yaml: a static
# p5en.48xlarge pool (replicas 0) with a FastImagePull NodeConfig, RAID0 and a 300Gi root volume.
# ${node_iam_role} = "KarpenterNodeRole-gpu", ${cluster_name} = "gpu"; the injected
# `networkInterfaces` (the module's efa-networkinterfaces-generator output, not in the file) is given
# the lookup's default "". Upstream's `spec.disruption.terminationGracePeriod` is no field of the v1
# NodePool (the API server prunes it): it is not expressed. Needs the `staticCapacity` gate.
resource "eksgpu_node_strategy" "s" {
  cluster_name = "gpu"
  name         = "upstream"
  gpu_operator {}
  pools = {
    gpu-p5en-48xlarge-static = {
      capacity       = "karpenter"
      instance_types = ["p5en.48xlarge"]
      capacity_types = ["spot", "on-demand"]
      replicas       = 0
      expire_after   = "Never"
      labels = {
        "ai-on-eks.io/amiFamily" = "al2023"
        accelerator              = "nvidia"
      }
      taints = [{ key = "nvidia.com/gpu", effect = "NoSchedule" }]
      disruption = {
        budgets              = [{ nodes = "10%" }]
        consolidate_after    = "86400s"
        consolidation_policy = "WhenEmpty"
      }
      node_class = {
        ami_family                   = "AL2023"
        ami_alias                    = "al2023@latest"
        role                         = "KarpenterNodeRole-gpu"
        subnet_selector_tags         = { "karpenter.sh/discovery" = "gpu", Name = "gpu-private-secondary*" }
        security_group_selector_tags = { "karpenter.sh/discovery" = "gpu" }
        instance_store_policy        = "RAID0"
        block_device_mappings = [{
          device_name = "/dev/xvda"
          volume_size = "300Gi"
          volume_type = "gp3"
          encrypted   = true
        }]
        user_data = <<-YAML
          apiVersion: node.eks.aws/v1alpha1
          kind: NodeConfig
          spec:
            featureGates:
              FastImagePull: true
        YAML
      }
    }
  }
}
