# awslabs/data-on-eks@a546a190 infra/terraform/manifests/karpenter/nodepool-gpu-g6.yaml and the `gpu`
# document (2 of 8) of ec2nodeclass.yaml: g5/g6/g6e/g7e GPU nodes without a taint, FastImagePull and
# kubelet settings in a MIME NodeConfig, RAID0 instance store, gp3 at 600 MiB/s, subnets and security
# groups by Name-tag wildcard. ${CLUSTER_NAME} = "gpu", ${KARPENTER_NODE_IAM_ROLE_NAME} = "KarpenterNodeRole-gpu".
resource "eksgpu_node_strategy" "s" {
  cluster_name = "gpu"
  name         = "upstream"
  gpu_operator {}
  pools = {
    gpu = {
      capacity       = "karpenter"
      capacity_types = ["on-demand", "spot"]
      requirements = [
        { key = "kubernetes.io/arch", operator = "In", values = ["amd64"] },
        { key = "karpenter.k8s.aws/instance-category", operator = "In", values = ["g"] },
        { key = "karpenter.k8s.aws/instance-family", operator = "In", values = ["g5", "g6", "g6e", "g7e"] },
        { key = "karpenter.k8s.aws/instance-size", operator = "In", values = ["xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "24xlarge", "48xlarge"] },
        { key = "karpenter.k8s.aws/instance-hypervisor", operator = "In", values = ["nitro"] },
      ]
      cpu_limit = "1000"
      gpu_limit = 8
      weight    = 20
      gpu_taint = false
      labels = {
        "node.kubernetes.io/workload-type"     = "gpu"
        "node.kubernetes.io/instance-category" = "accelerated"
        NodeGroupType                          = "GPU"
      }
      disruption = {
        consolidation_policy = "WhenEmptyOrUnderutilized"
        consolidate_after    = "15m"
      }
      node_class = {
        ami_family                   = "AL2023"
        ami_alias                    = "al2023@latest"
        role                         = "KarpenterNodeRole-gpu"
        subnet_selector_tags         = { Name = "gpu-private-secondary*" }
        security_group_selector_tags = { Name = "gpu-node" }
        instance_store_policy        = "RAID0"
        block_device_mappings = [{
          device_name           = "/dev/xvda"
          volume_size           = "200Gi"
          volume_type           = "gp3"
          iops                  = 3000
          throughput            = 600
          encrypted             = true
          delete_on_termination = true
        }]
        user_data = <<-MIME
          MIME-Version: 1.0
          Content-Type: multipart/mixed; boundary="//"

          --//
          Content-Type: application/node.eks.aws

          apiVersion: node.eks.aws/v1alpha1
          kind: NodeConfig
          spec:
            featureGates:
              # Experimental: SOCI snapshotter parallel pull/unpack mode.
              # nodeadm writes the snapshotter config (20 connections, 16MB
              # chunks, 12 unpacks per image, discard-after-unpack).
              FastImagePull: true
            kubelet:
              config:
                featureGates:
                  # MemoryQoS is Alpha and not enabled by default (since K8s 1.22).
                  # Enables cgroupsv2 memory.high soft limit between request and limit.
                  # AL2023 ships with cgroupsv2 — no kernel changes needed.
                  MemoryQoS: true
                # 0.9 is the kubernetes default. memory.high = request + 0.9 * (limit - request)
                memoryThrottlingFactor: 0.9
                # Let the large inference image and DaemonSet images (nvidia
                # device plugin, monitoring) pull concurrently on a fresh node.
                serializeImagePulls: false
                maxParallelImagePulls: 5
                registryPullQPS: 50
                registryBurst: 100

          --//--
        MIME
      }
    }
  }
}
