# awsdocs/amazon-eks-user-guide@4d52b4d0 latest/ug/ml/capacity-blocks-mng.adoc, "Create a managed node
# group with Amazon EC2 Capacity Blocks": the CloudFormation launch template of step 1 and the
# `aws eks create-nodegroup` command of step 2. The guide's replaceable values: my-cluster = "gpu",
# node-role-arn, subnet-id, sizes 0..2; the provider makes the launch template (`lt-id`) itself.
resource "eksgpu_node_strategy" "s" {
  cluster_name = "gpu"
  name         = "upstream"
  gpu_operator {}
  pools = {
    my-mng = {
      capacity       = "managed_node_group"
      instance_types = ["p5.48xlarge"]
      capacity_types = ["capacity-block"]
      gpu_taint      = false
      managed_node_group = {
        name                    = "my-mng"
        node_role_arn           = "arn:aws:iam::123456789012:role/node-role"
        subnet_ids              = ["subnet-0123456789abcdef0"]
        capacity_reservation_id = "cr-02168da1478b509e0"
        scaling = {
          min     = 0
          max     = 2
          desired = 0
        }
      }
    }
  }
}
