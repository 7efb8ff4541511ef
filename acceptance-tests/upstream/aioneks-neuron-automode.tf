# awslabs/ai-on-eks@886fe01b infra/base/terraform/karpenter-resources/auto-mode/neuron.yaml: an EKS Auto
# Mode Neuron pool chosen by Auto Mode's own `eks.amazonaws.com/instance-family` label alone (the vendor
# comes from the matched types). Its NodeClass `neuron` is the base module's (`${indent(2, ec2nodeclass)}`,
# not part of the definition), so the pool refers to it with `node_class_ref` and writes none.
# ${ami_family} = "bottlerocket" (Auto Mode's nodes run Bottlerocket).
resource "eksgpu_node_strategy" "s" {
  cluster_name = "gpu"
  name         = "upstream"
  gpu_operator {}
  pools = {
    neuron = {
      capacity       = "auto_mode"
      capacity_types = ["reserved", "spot", "on-demand"]
      requirements = [
        { key = "eks.amazonaws.com/instance-family", operator = "In", values = ["inf2", "trn1", "trn2"] },
      ]
      weight                   = 10
      expire_after             = "336h"
      termination_grace_period = "24h"
      labels = {
        "ai-on-eks.io/amiFamily" = "bottlerocket"
        accelerator              = "neuron"
      }
      taints = [{ key = "aws.amazon.com/neuron", effect = "NoSchedule" }]
      disruption = {
        budgets              = [{ nodes = "10%" }]
        consolidate_after    = "300s"
        consolidation_policy = "WhenEmptyOrUnderutilized"
      }
      node_class_ref = "neuron"
    }
  }
}
