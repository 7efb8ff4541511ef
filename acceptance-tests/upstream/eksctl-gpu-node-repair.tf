# eksctl-io/eksctl@99984adb examples/44-node-repair.yaml, managedNodeGroups[name=gpu-repair-ng]
# ("Example 4"): a g4dn.xlarge node group with node repair thresholds and per-condition overrides.
# Upstream's repair actions `Terminate` and `Restart` are not EKS API RepairAction values
# (Replace | Reboot | NoAction): the plan refuses them (EKSGPU321).
resource "eksgpu_node_strategy" "s" {
  cluster_name = "gpu"
  name         = "upstream"
  gpu_operator {}
  pools = {
    gpu-repair-ng = {
      capacity       = "managed_node_group"
      instance_types = ["g4dn.xlarge"]
      gpu_taint      = false
      managed_node_group = {
        name          = "gpu-repair-ng"
        node_role_arn = "arn:aws:iam::123456789012:role/gpu-nodes"
        subnet_ids    = ["subnet-0123456789abcdef0"]
        scaling = {
          min     = 2
          max     = 8
          desired = 4
        }
        node_repair_config = {
          enabled                                 = true
          max_unhealthy_node_threshold_percentage = 25
          max_parallel_nodes_repaired_count       = 1
          node_repair_config_overrides = [
            {
              node_monitoring_condition = "AcceleratedInstanceNotReady"
              node_unhealthy_reason     = "NvidiaXID13Error"
              min_repair_wait_time_mins = 5
              repair_action             = "Terminate"
            },
            {
              node_monitoring_condition = "NetworkNotReady"
              node_unhealthy_reason     = "InterfaceNotUp"
              min_repair_wait_time_mins = 15
              repair_action             = "Restart"
            },
          ]
        }
      }
    }
  }
}
