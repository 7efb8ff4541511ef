# `terraform test` (Terraform 1.6+) for the module above. Every run plans only:
# the provider renders the NodePool at plan, so these need no AWS and no cluster.

provider "eksgpu" {
  region = "us-west-2"
}

variables {
  cluster_name = "gpu-cluster"
  team         = "research"
  node_role    = "KarpenterNodeRole-gpu-cluster"
}

run "pool_is_selected_by_its_node_pool" {
  command = plan

  assert {
    condition     = output.node_selector["karpenter.sh/nodepool"] == "research-inference"
    error_message = "Pods must select the team's NodePool."
  }

  assert {
    condition     = contains([for t in output.tolerations : t.key], "nvidia.com/gpu")
    error_message = "Pods must tolerate the GPU taint."
  }
}

# Each run may set its own variables: another team gets its own NodePool.
run "another_team" {
  command = plan

  variables {
    team = "batch"
  }

  assert {
    condition     = output.node_selector["karpenter.sh/nodepool"] == "batch-inference"
    error_message = "Each team's pods select that team's NodePool."
  }

  assert {
    condition     = eksgpu_node_strategy.team.pools["batch-inference"].gpu_resource_name == "nvidia.com/gpu"
    error_message = "L40S pools advertise nvidia.com/gpu."
  }
}
