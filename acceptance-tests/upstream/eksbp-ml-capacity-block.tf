# aws-ia/terraform-aws-eks-blueprints@98d0eb40 patterns/ml-capacity-block/eks.tf, module "eks"
# (terraform-aws-modules/eks ~> 20.34) input eks_managed_node_groups["cbr"] with the node-repair
# default, enable_efa_support and the Capacity Block, as the requests the module makes of it
# (tests/expressiveness/tf_module.rs). Values given: the cluster is local.name
# ("ml-capacity-block", cluster_version "1.32"), local.tags from the pattern's main.tf,
# var.capacity_reservation_id = "cr-0123456789abcdef0", the first private subnet, the node role
# and security group the module creates.
resource "eksgpu_node_strategy" "s" {
  cluster_name = "ml-capacity-block"
  name         = "upstream"
  gpu_operator {}
  pools = {
    cbr = {
      capacity       = "managed_node_group"
      instance_types = ["p5e.48xlarge"]
      capacity_types = ["capacity-block"]
      efa            = true
      labels = {
        "vpc.amazonaws.com/efa.present" = "true"
        "nvidia.com/gpu.present"        = "true"
      }
      tags = {
        Blueprint  = "ml-capacity-block"
        GithubRepo = "github.com/aws-ia/terraform-aws-eks-blueprints"
        Name       = "cbr"
      }
      managed_node_group = {
        name_prefix   = "cbr-"
        node_role_arn = "arn:aws:iam::123456789012:role/cbr-eks-node-group"
        subnet_ids    = ["subnet-0a1b2c3d4e5f60001"]
        ami_type      = "AL2023_x86_64_NVIDIA"
        # The module sends the cluster's version (`cluster_version`).
        kubernetes_version = "1.32"
        # The reservation (capacity_reservation_specification.capacity_reservation_target).
        capacity_reservation_id = "cr-0123456789abcdef0"
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
        launch_template_description = "Custom launch template for cbr EKS managed node group"
        launch_template_tags = {
          Blueprint  = "ml-capacity-block"
          GithubRepo = "github.com/aws-ia/terraform-aws-eks-blueprints"
        }
        instance_tags = {
          Blueprint  = "ml-capacity-block"
          GithubRepo = "github.com/aws-ia/terraform-aws-eks-blueprints"
          Name       = "cbr"
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
