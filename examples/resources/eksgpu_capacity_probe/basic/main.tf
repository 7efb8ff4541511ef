# Launch one p5en.48xlarge through EKS Auto Mode, record what happened, delete it.
resource "eksgpu_capacity_probe" "p5en" {
  cluster_name   = "gpu-cluster"
  name           = "p5en"
  capacity       = "auto_mode"
  instance_types = ["p5en.48xlarge"]
  timeout        = "20m"

  # The apply launches a real instance (EKSGPU361 says for how long).
  acknowledged_warnings = ["EKSGPU361"]
}

output "result" {
  value = eksgpu_capacity_probe.p5en.result
}

output "message" {
  value = eksgpu_capacity_probe.p5en.message
}
