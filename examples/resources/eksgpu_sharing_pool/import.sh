# Import ID: <cluster_name>/<name>, or <cluster_name>/<config_namespace>/<name>
# when the pool's config_namespace is not gpu-operator.
terraform import eksgpu_sharing_pool.time_sliced gpu-cluster/a10g-ts2
