# Import ID: <cluster_name>/<name>. Every object a strategy applies is labelled
# with its cluster and strategy, so import finds them all.
terraform import eksgpu_node_strategy.genai gpu-cluster/genai
