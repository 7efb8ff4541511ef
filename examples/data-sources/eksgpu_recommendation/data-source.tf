terraform {
  # Nested attributes (pools) need Terraform 1.4.0 or later (design/0010).
  required_version = ">= 1.4.0"
  required_providers {
    eksgpu = {
      source = "eksgpu/eksgpu"
    }
  }
}

provider "eksgpu" {
  region = "us-west-2"
}

# The field reports' example: eight replicas of a 7B model on a p5.48xlarge.
# MIG 4-way uses 2 of its 8 GPUs; whole GPUs would use all 8 — and either way
# one instance is billed. Prices are yours to give; none is built in.
data "eksgpu_recommendation" "small_models" {
  model_params_b = 7
  precision      = "fp16"
  replicas       = 8
  price_per_hour = { "p5.48xlarge" = 55.04 }
}

# A 70B model with whole GPUs; without prices the fewest GPUs per replica (then
# the smallest GPU memory) decide, and monthly_cost stays null.
data "eksgpu_recommendation" "large_model" {
  model_params_b = 70
  precision      = "bf16"
}

# A stable, high-traffic model you have checked runs on AWS Neuron: the volume
# layer goes to Trainium / Inferentia unless something needs NVIDIA (here AWQ
# weights would: try quantization = "awq").
data "eksgpu_recommendation" "volume" {
  model_params_b      = 70
  precision           = "bf16"
  available_on_neuron = true
  quantization        = "none"
}

output "volume" {
  value = {
    accelerator    = data.eksgpu_recommendation.volume.accelerator
    capacity       = data.eksgpu_recommendation.volume.capacity
    instance_types = data.eksgpu_recommendation.volume.instance_types
  }
}

output "small_models" {
  value = {
    capacity         = data.eksgpu_recommendation.small_models.capacity
    sharing          = data.eksgpu_recommendation.small_models.sharing_strategy
    mig_profile      = data.eksgpu_recommendation.small_models.mig_profile
    gpus_used        = data.eksgpu_recommendation.small_models.gpus_used
    billed_instances = data.eksgpu_recommendation.small_models.billed_instances
    monthly_cost     = data.eksgpu_recommendation.small_models.monthly_cost
  }
}

output "large_model" {
  value = {
    capacity       = data.eksgpu_recommendation.large_model.capacity
    instance_types = data.eksgpu_recommendation.large_model.instance_types
    monthly_cost   = data.eksgpu_recommendation.large_model.monthly_cost
  }
}

# Why: each line names a decision rule (the rules guide).
output "rationale" {
  value = [for r in data.eksgpu_recommendation.small_models.rationale : "${r.code}: ${r.message}"]
}
