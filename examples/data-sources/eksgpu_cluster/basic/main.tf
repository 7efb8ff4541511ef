# The subnets of an existing cluster, read at plan time.
data "eksgpu_cluster" "gpu" {
  name = "gpu-cluster"
}

output "subnet_ids" {
  value = data.eksgpu_cluster.gpu.subnet_ids
}
