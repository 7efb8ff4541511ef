# Where eight replicas of a 7B model fit best.
data "eksgpu_recommendation" "small_models" {
  model_params_b = 7
  precision      = "fp16"
  replicas       = 8
}

output "capacity" {
  value = data.eksgpu_recommendation.small_models.capacity
}

output "sharing" {
  value = data.eksgpu_recommendation.small_models.sharing_strategy
}
