# aws-ia/terraform-aws-eks-blueprints@98d0eb40 patterns/ml-container-cache/eks.tf, module "eks"
# (terraform-aws-modules/eks ~> 20.34, v20.37.2, cluster_version "1.32") input
# eks_managed_node_groups["gpu"] with the node-repair default: g6e.xlarge on AL2 with a second
# volume /dev/xvdb restored from the cache builder's snapshot and mounted over /var/lib/containerd
# by the pre-bootstrap script. Read as the requests the module makes of it
# (tests/expressiveness/tf_module.rs). Values given: local.dev_name = "xvdb", the snapshot id the
# cache builder writes to SSM (snap-0a1b2c3d4e5f60001), the cluster local.name
# ("ml-container-cache"), local.tags from the pattern's main.tf, the module's subnets, node role and
# security group; the node group name's suffix is the provider's (`name_prefix`).
locals {
  cache_pre_bootstrap = <<-EOT
    # Mount the second volume for containerd persistent data
    # This volume contains the cached images and layers

    systemctl stop containerd kubelet

    rm -rf /var/lib/containerd/*
    echo '/dev/xvdb /var/lib/containerd xfs defaults 0 0' >> /etc/fstab
    mount -a

    systemctl restart containerd kubelet

  EOT
  blueprint_tags = {
    Blueprint  = "ml-container-cache"
    GithubRepo = "github.com/aws-ia/terraform-aws-eks-blueprints"
  }
}

resource "eksgpu_node_strategy" "s" {
  cluster_name = "ml-container-cache"
  name         = "upstream"
  gpu_operator {}
  pools = {
    gpu = {
      capacity       = "managed_node_group"
      instance_types = ["g6e.xlarge"]
      labels = {
        "nvidia.com/gpu.present" = "true"
        "ml-container-cache"     = "true"
      }
      taints = [{
        key    = "nvidia.com/gpu"
        value  = "true"
        effect = "NoSchedule"
      }]
      tags = merge(local.blueprint_tags, { Name = "gpu" })
      managed_node_group = {
        name_prefix   = "gpu-"
        node_role_arn = "arn:aws:iam::123456789012:role/gpu-eks-node-group"
        subnet_ids    = ["subnet-0a1b2c3d4e5f60001", "subnet-0a1b2c3d4e5f60002", "subnet-0a1b2c3d4e5f60003"]
        ami_type      = "AL2_x86_64_GPU"
        # The module sends the cluster's version (`cluster_version`).
        kubernetes_version = "1.32"
        scaling = {
          min     = 1
          max     = 1
          desired = 1
        }
        update = {
          max_unavailable_percentage = 33
        }
        node_repair_config = {
          enabled = true
        }
        block_device_mappings = [{
          device_name = "/dev/xvdb"
          snapshot_id = "snap-0a1b2c3d4e5f60001"
          volume_size = 64
          volume_type = "gp3"
        }]
        detailed_monitoring = true
        metadata_options = {
          http_endpoint               = "enabled"
          http_tokens                 = "required"
          http_put_response_hop_limit = 2
        }
        # The module's node security group, on the template (no interfaces).
        security_group_ids = ["sg-0a1b2c3d4e5f60001"]
        # The module's template: its description, and the module's tags without the node group's Name.
        launch_template_description = "Custom launch template for gpu EKS managed node group"
        launch_template_tags        = local.blueprint_tags
        instance_tags               = merge(local.blueprint_tags, { Name = "gpu" })
        user_data = join("", [
          "Content-Type: multipart/mixed; boundary=\"//\"\nMIME-Version: 1.0\r\n\r\n",
          "--//\r\nContent-Transfer-Encoding: 7bit\r\nContent-Type: text/x-shellscript\r\nMime-Version: 1.0\r\n\r\n",
          local.cache_pre_bootstrap,
          "\r\n--//--\r\n",
        ])
      }
    }
  }
}
