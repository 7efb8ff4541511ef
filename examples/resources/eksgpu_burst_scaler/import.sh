# Import ID: <cluster_name>/<namespace>/<name>.
terraform import eksgpu_burst_scaler.vllm gpu-cluster/llm/vllm-burst
