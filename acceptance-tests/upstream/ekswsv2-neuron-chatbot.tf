# aws-samples/eks-workshop-v2@bb1b3000 manifests/modules/aiml/chatbot/nodepool.yaml: a Neuron pool on
# trn1.2xlarge and inf2.xlarge with two ORed security-group tag terms. ${EKS_CLUSTER_NAME} = "gpu",
# ${KARPENTER_NODE_ROLE} = "KarpenterNodeRole-gpu".
resource "eksgpu_node_strategy" "s" {
  cluster_name = "gpu"
  name         = "upstream"
  gpu_operator {}
  pools = {
    neuron = {
      capacity                 = "karpenter"
      instance_types           = ["trn1.2xlarge", "inf2.xlarge"]
      capacity_types           = ["on-demand"]
      requirements             = [{ key = "kubernetes.io/arch", operator = "In", values = ["amd64"] }]
      expire_after             = "720h"
      termination_grace_period = "24h"
      gpu_limit                = 2
      cpu_limit                = "16"
      memory_limit             = "64Gi"
      labels = {
        "neuron.amazonaws.com/neuron-device"   = "true"
        "vpc.amazonaws.com/has-trunk-attached" = "true"
      }
      taints = [{ key = "aws.amazon.com/neuron", value = "true", effect = "NoSchedule" }]
      disruption = {
        consolidate_after    = "300s"
        consolidation_policy = "WhenEmptyOrUnderutilized"
      }
      node_class = {
        ami_family            = "AL2023"
        ami_alias             = "al2023@latest"
        role                  = "KarpenterNodeRole-gpu"
        instance_store_policy = "RAID0"
        block_device_mappings = [{
          device_name           = "/dev/xvda"
          delete_on_termination = true
          encrypted             = true
          volume_size           = "256Gi"
          iops                  = 16000
          throughput            = 1000
          volume_type           = "gp3"
        }]
        user_data = <<-YAML
          apiVersion: node.eks.aws/v1alpha1
          kind: NodeConfig
          spec:
            featureGates:
              FastImagePull: true
        YAML
        security_group_selector_terms = [
          { tags = { "karpenter.sh/discovery" = "gpu" } },
          { tags = { "kubernetes.io/cluster/eks-workshop" = "owned" } },
        ]
        subnet_selector_tags = { "karpenter.sh/discovery" = "gpu", "kubernetes.io/role/internal-elb" = "1" }
        tags = {
          "app.kubernetes.io/created-by" = "eks-workshop"
          "karpenter.sh/discovery"       = "gpu"
          aws-neuron                     = "true"
        }
      }
    }
  }
}
