# One GPU Operator release for two teams' strategies on one cluster. In a real
# configuration each value is eksgpu_node_strategy.<team>.gpu_operator_values_yaml.
data "eksgpu_gpu_stack" "cluster" {
  strategy {
    name                     = "research"
    gpu_operator_values_yaml = "mig:\n  strategy: single\n"
  }
  strategy {
    name                     = "serving"
    gpu_operator_values_yaml = "mig:\n  strategy: single\n"
  }
}

output "gpu_operator_values" {
  value = data.eksgpu_gpu_stack.cluster.gpu_operator_values_yaml
}
