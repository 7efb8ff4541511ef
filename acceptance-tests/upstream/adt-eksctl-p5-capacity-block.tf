# awslabs/awsome-distributed-training@0edaf152 1.architectures/4.amazon-eks/eks-p5-capacity-block.yaml,
# managedNodeGroups[name=p5-cbr] of the eksctl ClusterConfig `eks-p5-cbr-vpc`, read as the requests
# eksctl makes for it (eksctl-io/eksctl@99984adb pkg/cfn/builder/managed_nodegroup.go,
# managed_launch_template.go): a Capacity Block (CAPACITY_BLOCK, the instance type, reservation and
# market type in the template), EFA on all 32 cards of p5.48xlarge (no placement group: eksctl
# adds none next to a reservation), the private subnets, eksctl's labels, tags, `Name` tag and
# 80 GiB gp3 root, the NodeConfig override as user data. Values given: PLACEHOLDER_SUBNET_PRIVATE_1/2,
# the reservation id "cr-xxxxxxxxxx" (not a valid id), the node role eksctl would create (its
# `iam.withAddonPolicies` are the role's, passed as `node_role_arn`), the cluster security group
# and the EFA security group eksctl creates for a 1.32 cluster.
resource "eksgpu_node_strategy" "s" {
  cluster_name = "eks-p5-cbr-vpc"
  name         = "upstream"
  gpu_operator {}
  pools = {
    p5-cbr = {
      capacity       = "managed_node_group"
      instance_types = ["p5.48xlarge"]
      capacity_types = ["capacity-block"]
      gpu_taint      = false
      efa            = true
      labels = {
        "alpha.eksctl.io/cluster-name"   = "eks-p5-cbr-vpc"
        "alpha.eksctl.io/nodegroup-name" = "p5-cbr"
      }
      tags = {
        "alpha.eksctl.io/nodegroup-name" = "p5-cbr"
        "alpha.eksctl.io/nodegroup-type" = "managed"
      }
      managed_node_group = {
        name                    = "p5-cbr"
        node_role_arn           = "arn:aws:iam::123456789012:role/eks-p5-cbr-vpc-p5-cbr-nodes"
        subnet_ids              = ["subnet-0000000000000001a", "subnet-0000000000000002b"]
        capacity_reservation_id = "cr-0123456789abcdef0"
        scaling = {
          min     = 0
          max     = 10
          desired = 1
        }
        instance_tags = {
          Name                             = "eks-p5-cbr-vpc-p5-cbr-Node"
          "alpha.eksctl.io/nodegroup-name" = "p5-cbr"
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
