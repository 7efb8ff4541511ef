# awslabs/awsome-distributed-training@0edaf152 1.architectures/4.amazon-eks/eks-g5-node-autorepair.yaml,
# managedNodeGroups[name=g5] of the eksctl ClusterConfig `eks-g5-autorepair`, read as the requests
# eksctl makes for it (eksctl-io/eksctl@99984adb pkg/cfn/builder/managed_nodegroup.go,
# managed_launch_template.go): the labels and tags eksctl adds, node repair, EFA on the one card of
# g5.8xlarge in a cluster placement group, the `Name` tag of `instancePrefix`, eksctl's 80 GiB gp3
# root, the NodeConfig override as user data. Values given: the node role eksctl would create
# (its `iam.withAddonPolicies` are the role's, passed as `node_role_arn`), the private subnet
# eksctl's VPC has in PLACEHOLDER_AZ_2, the cluster security group and the EFA security group
# eksctl creates for a 1.32 cluster.
resource "eksgpu_node_strategy" "s" {
  cluster_name = "eks-g5-autorepair"
  name         = "upstream"
  gpu_operator {}
  pools = {
    g5 = {
      capacity       = "managed_node_group"
      instance_types = ["g5.8xlarge"]
      gpu_taint      = false
      efa            = true
      labels = {
        "alpha.eksctl.io/cluster-name"   = "eks-g5-autorepair"
        "alpha.eksctl.io/nodegroup-name" = "g5"
      }
      tags = {
        "alpha.eksctl.io/nodegroup-name" = "g5"
        "alpha.eksctl.io/nodegroup-type" = "managed"
      }
      managed_node_group = {
        name          = "g5"
        node_role_arn = "arn:aws:iam::123456789012:role/eks-g5-autorepair-g5-nodes"
        subnet_ids    = ["subnet-0a2000000000000a2"]
        scaling = {
          min     = 0
          max     = 10
          desired = 2
        }
        node_repair_config = {
          enabled = true
        }
        cluster_placement_group = true
        instance_tags = {
          Name                             = "g5-eks-g5-autorepair-g5-Node"
          "alpha.eksctl.io/nodegroup-name" = "g5"
          "alpha.eksctl.io/nodegroup-type" = "managed"
        }
        # The cluster security group and the EFA group eksctl makes before Kubernetes 1.33.
        security_group_ids = ["sg-0c1000000000000c1", "sg-0ef000000000000e5"]
        metadata_options = {
          http_tokens                 = "required"
          http_put_response_hop_limit = 2
        }
        block_device_mappings = [{
          device_name = "/dev/xvda"
          volume_size = 80
          volume_type = "gp3"
          iops        = 3000
          throughput  = 125
        }]
        user_data = <<-EOT
          apiVersion: node.eks.aws/v1alpha1
          kind: NodeConfig
          spec:
            instance:
              localStorage:
                strategy: RAID0
        EOT
      }
    }
  }
}
