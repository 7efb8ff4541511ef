# Instance types with H200 GPUs.
data "eksgpu_gpu_catalog" "h200" {
  gpu_model = "H200"
}

output "h200_instance_types" {
  value = [for t in data.eksgpu_gpu_catalog.h200.instance_types : t.instance_type]
}
