# aws-ia/terraform-aws-eks-blueprints@98d0eb40 patterns/nvidia-gpu-efa/eks.tf, module "eks"
# (terraform-aws-modules/eks ~> 20.34) input eks_managed_node_groups["nvidia-efa"] with the
# node-repair default and enable_efa_support, as the requests the module makes of it
# (tests/expressiveness/tf_module.rs). Values given: the cluster is local.name ("nvidia-gpu-efa",
# cluster_version "1.32"), local.tags from the pattern's main.tf, two private subnets, the node
# role and security group the module creates.
resource "eksgpu_node_strategy" "s" {
  cluster_name = "nvidia-gpu-efa"
  name         = "upstream"
  gpu_operator {}
  pools = {
    nvidia-efa = {
      capacity       = "managed_node_group"
      instance_types = ["p5.48xlarge"]
      efa            = true
      labels = {
        "vpc.amazonaws.com/efa.present" = "true"
        "nvidia.com/gpu.present"        = "true"
      }
      tags = {
        Blueprint  = "nvidia-gpu-efa"
        GithubRepo = "github.com/aws-ia/terraform-aws-eks-blueprints"
        Name       = "nvidia-efa"
      }
      managed_node_group = {
        name_prefix   = "nvidia-efa-"
        node_role_arn = "arn:aws:iam::123456789012:role/nvidia-efa-eks-node-group"
        subnet_ids    = ["subnet-0a1b2c3d4e5f60001", "subnet-0a1b2c3d4e5f60002"]
        ami_type      = "AL2023_x86_64_NVIDIA"
        # The module sends the cluster's version (`cluster_version`).
        kubernetes_version = "1.32"
        scaling = {
          min     = 2
          max     = 2
          desired = 2
        }
        update = {
          max_unavailable_percentage = 33
        }
        node_repair_config = {
          enabled = true
        }
        cluster_placement_group = true
        detailed_monitoring     = true
        metadata_options = {
          http_endpoint               = "enabled"
          http_tokens                 = "required"
          http_put_response_hop_limit = 2
        }
        network_interfaces = [for i in range(32) : {
          network_card_index          = i
          device_index                = i == 0 ? 0 : 1
          interface_type              = "efa"
          associate_public_ip_address = false
          delete_on_termination       = true
          security_group_ids          = ["sg-0a1b2c3d4e5f60001"]
        }]
        # The module's template: its description, and the module's tags without the node group's Name.
        launch_template_description = "Custom launch template for nvidia-efa EKS managed node group"
        launch_template_tags = {
          Blueprint  = "nvidia-gpu-efa"
          GithubRepo = "github.com/aws-ia/terraform-aws-eks-blueprints"
        }
        instance_tags = {
          Blueprint  = "nvidia-gpu-efa"
          GithubRepo = "github.com/aws-ia/terraform-aws-eks-blueprints"
          Name       = "nvidia-efa"
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
