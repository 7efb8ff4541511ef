# awslabs/data-on-eks@11f2e445 ai-ml/trainium-inferentia/eks.tf, module "eks"
# (terraform-aws-modules/eks ~> 20.17, v20.37.2) input eks_managed_node_groups["inf2-24xl-ng"] with
# the module's eks_managed_node_group_defaults (ebs_optimized; the entry's own 500 GB root volume).
# Read as the requests the module makes of it (tests/expressiveness/tf_module.rs). Values given: the
# cluster is local.name ("trainium-inferentia"), local.tags from that folder's main.tf, the
# variables' default sizes (0), Kubernetes 1.32 for var.eks_cluster_version (1.30 is past EKS
# extended support; 1.32 is the last with AL2 AMIs), one subnet for module.vpc.private_subnets[2],
# the node role and security group the module makes at apply; the node group name's suffix is the
# provider's (`name_prefix`). The entry's `description` is no input of the module (node_groups.tf
# passes none): nothing renders it.
locals {
  # The entry's pre_bootstrap_user_data, in the one-part MIME document the module's cloudinit_config
  # renders for AL2 (boundary "//").
  inf2_pre_bootstrap = <<-EOT
    # Mount instance store volumes in RAID-0 for kubelet and containerd
    # https://github.com/awslabs/amazon-eks-ami/blob/master/doc/USER_GUIDE.md#raid-0-for-kubelet-and-containerd-raid0
    /bin/setup-local-disks raid0

    # Install Neuron monitoring tools
    yum install aws-neuronx-tools-2.* -y
    export PATH=/opt/aws/neuron/bin:$PATH
  EOT
  doeks_tags = {
    Blueprint                = "trainium-inferentia"
    GithubRepo               = "github.com/awslabs/data-on-eks"
    "karpenter.sh/discovery" = "trainium-inferentia"
  }
}

resource "eksgpu_node_strategy" "s" {
  cluster_name = "trainium-inferentia"
  name         = "upstream"
  pools = {
    inf2-24xl-ng = {
      capacity       = "managed_node_group"
      instance_types = ["inf2.24xlarge"]
      capacity_types = ["on-demand"]
      labels = {
        instanceType    = "inf2-24xl"
        provisionerType = "cluster-autoscaler"
      }
      taints = [{
        key    = "aws.amazon.com/neuron"
        value  = "true"
        effect = "NoSchedule"
      }]
      tags = merge(local.doeks_tags, { Name = "inf2-24xl-ng" })
      managed_node_group = {
        name_prefix   = "inf2-24xl-ng-"
        node_role_arn = "arn:aws:iam::123456789012:role/inf2-24xl-ng-eks-node-group"
        subnet_ids    = ["subnet-0a1b2c3d4e5f60003"]
        ami_type      = "AL2_x86_64_GPU"
        # The module sends the cluster's version (`cluster_version`).
        kubernetes_version = "1.32"
        scaling = {
          min     = 0
          max     = 2
          desired = 0
        }
        update = {
          max_unavailable_percentage = 33
        }
        ebs_optimized = true
        block_device_mappings = [{
          device_name = "/dev/xvda"
          volume_size = 500
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
        # The module's template description (its tags are the pool's: the entry's own tags carry the Name).
        launch_template_description = "Custom launch template for inf2-24xl-ng EKS managed node group"
        instance_tags               = merge(local.doeks_tags, { Name = "inf2-24xl-ng" })
        user_data = join("", [
          "Content-Type: multipart/mixed; boundary=\"//\"\nMIME-Version: 1.0\r\n\r\n",
          "--//\r\nContent-Transfer-Encoding: 7bit\r\nContent-Type: text/x-shellscript\r\nMime-Version: 1.0\r\n\r\n",
          local.inf2_pre_bootstrap,
          "\r\n--//--\r\n",
        ])
      }
    }
  }
}
