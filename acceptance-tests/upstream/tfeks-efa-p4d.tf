# terraform-aws-modules/terraform-aws-eks@bef29c4d (v21.19.0) tests/eks-managed-node-group/main.tf,
# module "eks" (source "../..") input eks_managed_node_groups["efa"] (enable_efa_only,
# efa_indices = [0]), as the requests the module makes of it (tests/expressiveness/tf_module.rs).
# Values given: the cluster is local.name ("ex-eks-managed-node-group", kubernetes_version
# "1.33"), local.tags of that file, three private subnets, the node role, the module's node
# security group and the node group's EFA security group, and the release the module reads from
# SSM (use_latest_ami_release_version).
resource "eksgpu_node_strategy" "s" {
  cluster_name = "ex-eks-managed-node-group"
  name         = "upstream"
  gpu_operator {}
  pools = {
    efa = {
      capacity       = "managed_node_group"
      instance_types = ["p4d.24xlarge"]
      efa            = true
      labels = {
        "vpc.amazonaws.com/efa.present" = "true"
        "nvidia.com/gpu.present"        = "true"
      }
      tags = {
        Test       = "ex-eks-managed-node-group"
        GithubRepo = "terraform-aws-eks"
        GithubOrg  = "terraform-aws-modules"
        Name       = "efa"
      }
      managed_node_group = {
        name_prefix   = "efa-"
        node_role_arn = "arn:aws:iam::123456789012:role/efa-eks-node-group"
        subnet_ids    = ["subnet-0a1b2c3d4e5f60001", "subnet-0a1b2c3d4e5f60002", "subnet-0a1b2c3d4e5f60003"]
        ami_type      = "AL2023_x86_64_NVIDIA"
        # The module sends the cluster's version and the latest release for it.
        kubernetes_version = "1.33"
        release_version    = "1.33.4-20250821"
        scaling = {
          min     = 0
          max     = 1
          desired = 0
        }
        update = {
          max_unavailable_percentage = 33
        }
        cluster_placement_group = true
        metadata_options = {
          http_endpoint               = "enabled"
          http_tokens                 = "required"
          http_put_response_hop_limit = 1
        }
        # Card 0 EFA (efa_indices = [0]), the others EFA-only, each with the module's description.
        network_interfaces = [for i in range(4) : {
          network_card_index          = i
          device_index                = i == 0 ? 0 : 1
          interface_type              = i == 0 ? "efa" : "efa-only"
          associate_public_ip_address = false
          delete_on_termination       = true
          description                 = "EFA-only Network Interface ${i}"
          security_group_ids          = ["sg-0a1b2c3d4e5f60001", "sg-0a1b2c3d4e5f60002"]
        }]
        # The module's template: its description, and the module's tags without the node group's Name.
        launch_template_description = "Custom launch template for efa EKS managed node group"
        launch_template_tags = {
          Test       = "ex-eks-managed-node-group"
          GithubRepo = "terraform-aws-eks"
          GithubOrg  = "terraform-aws-modules"
        }
        instance_tags = {
          Test       = "ex-eks-managed-node-group"
          GithubRepo = "terraform-aws-eks"
          GithubOrg  = "terraform-aws-modules"
          Name       = "efa"
        }
        user_data = join("", [
          "Content-Type: multipart/mixed; boundary=\"MIMEBOUNDARY\"\nMIME-Version: 1.0\r\n\r\n",
          "--MIMEBOUNDARY\r\nContent-Transfer-Encoding: 7bit\r\nContent-Type: application/node.eks.aws\r\nMime-Version: 1.0\r\n\r\n",
          "---\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  instance:\n    localStorage:\n      strategy: RAID0\n",
          "\r\n--MIMEBOUNDARY--\r\n",
        ])
      }
    }
  }
}
