//! The schema of `eksgpu_node_strategy` (fixed names: docs/resources/node_strategy.md)
//! and the structural checks Terraform can make before the provider is configured.

use eksgpu_core::model::Capacity;
use eksgpu_tfplugin::schema::{Attribute, Block, NestedBlock, Schema};
use eksgpu_tfplugin::{AttributePath, Diagnostics, Type, Value};

fn tolerations_type() -> Type {
    Type::list(Type::object([
        ("key", Type::String),
        ("operator", Type::String),
        ("value", Type::String),
        ("effect", Type::String),
    ]))
}

fn node_class_block() -> Block {
    let tags = |name: &str, d: &str| Attribute::optional(name, Type::map(Type::String), d);
    Block::new(
        "The node class of the pool: a Karpenter `EC2NodeClass` (named like the pool) for `karpenter` pools, or an \
         `eks.amazonaws.com/v1` NodeClass for `auto_mode` pools (without this block, Auto Mode's built-in `default`).",
    )
    .attribute(Attribute::optional(
        "ami_alias",
        Type::String,
        "Karpenter AMI alias `family@version`. Default `al2023@latest`, which picks the NVIDIA AMI variant for GPU types. Not for `auto_mode` (EKSGPU103).",
    ))
    .attribute(Attribute::optional("role", Type::String, "IAM role name of the nodes. Required for `karpenter` pools (EKSGPU104)."))
    .attribute(tags("subnet_selector_tags", "Tags selecting the nodes' subnets. Default `karpenter.sh/discovery = <cluster_name>`."))
    .attribute(tags(
        "security_group_selector_tags",
        "Tags selecting the nodes' security groups. Default `karpenter.sh/discovery = <cluster_name>`.",
    ))
    .attribute(tags("tags", "Tags on the EC2 resources the node class launches."))
    .block(NestedBlock::single(
        "root_volume",
        Block::new("Root volume (`blockDeviceMappings` on Karpenter, `ephemeralStorage` on Auto Mode).")
            .attribute(Attribute::optional("size", Type::String, "Size as a Kubernetes quantity, e.g. `200Gi`."))
            .attribute(Attribute::optional("volume_type", Type::String, "EBS volume type. Default `gp3`. Karpenter only."))
            .attribute(Attribute::optional("iops", Type::Number, "Provisioned IOPS."))
            .attribute(Attribute::optional("throughput", Type::Number, "Throughput in MiB/s."))
            .attribute(Attribute::optional("encrypted", Type::Bool, "Encrypt the volume. Karpenter only.")),
    ))
    .block(NestedBlock::single(
        "kubelet",
        Block::new(
            "Kubelet settings, rendered on the EC2NodeClass (Karpenter v1 has no NodePool kubelet). Not for `auto_mode` (EKSGPU006).",
        )
        .attribute(Attribute::optional("max_pods", Type::Number, "Most pods per node."))
        .attribute(Attribute::optional("eviction_hard", Type::map(Type::String), "Hard eviction thresholds, e.g. `{\"memory.available\" = \"5%\"}`.")),
    ))
}

fn pool_block() -> Block {
    Block::new("A class of GPU capacity. Pools are applied in order.")
        .attribute(Attribute::required(
            "name",
            Type::String,
            "Unique within the strategy; NodePools and node classes are named after it (a DNS label, EKSGPU105).",
        ))
        .attribute(Attribute::required(
            "capacity",
            Type::String,
            "Capacity kind: `auto_mode` or `karpenter` (in-cluster), `managed_node_group` or `hybrid` (AWS side).",
        ))
        .attribute(Attribute::required(
            "instance_types",
            Type::list(Type::String),
            "EC2 instance types, validated against the GPU catalog (EKSGPU016).",
        ))
        .attribute(Attribute::optional(
            "capacity_types",
            Type::list(Type::String),
            "`on-demand`, `spot`, `reserved`. Default on-demand.",
        ))
        .attribute(Attribute::optional("zones", Type::list(Type::String), "Availability zones. Default: any."))
        .attribute(Attribute::optional("gpu_limit", Type::Number, "Most GPUs the pool may hold: NodePool `limits[\"nvidia.com/gpu\"]`."))
        .attribute(Attribute::optional(
            "labels",
            Type::map(Type::String),
            "Node labels. Merge a sharing pool's `node_labels` here. The GPU stack's labels (`nvidia.com/mig.config`, \
             `nvidia.com/device-plugin.config`, `gpu=on`, `nvidia.com/gpu.deploy.*`) are validated against the capacity kind.",
        ))
        .attribute(Attribute::optional_computed(
            "gpu_taint",
            Type::Bool,
            "Add the taint `nvidia.com/gpu=true:NoSchedule` unless a `taint` on `nvidia.com/gpu` is given. Default `true`.",
        ))
        .attribute(Attribute::optional_computed(
            "dra",
            Type::Bool,
            "The pool serves DRA ResourceClaims: the GPU Operator's device plugin is kept off its nodes. Default `false`.",
        ))
        .attribute(Attribute::computed(
            "node_selector",
            Type::map(Type::String),
            "What a pod needs in `nodeSelector` to land on this pool.",
        ))
        .attribute(Attribute::computed("tolerations", tolerations_type(), "Tolerations a pod needs for the pool's taints."))
        .attribute(Attribute::computed(
            "gpu_resource_name",
            Type::String,
            "Extended resource a container requests for a GPU of this pool (`nvidia.com/gpu`, or `nvidia.com/mig-<profile>` \
             under MIG `mixed`); null for DRA pools.",
        ))
        .attribute(Attribute::computed(
            "manifests_yaml",
            Type::String,
            "The objects applied in-cluster for this pool, as YAML, rendered at plan time.",
        ))
        .block(NestedBlock::list(
            "taint",
            Block::new("A node taint, in Kubernetes spelling.")
                .attribute(Attribute::required("key", Type::String, "Taint key."))
                .attribute(Attribute::optional("value", Type::String, "Taint value."))
                .attribute(Attribute::required("effect", Type::String, "`NoSchedule`, `PreferNoSchedule` or `NoExecute`.")),
        ))
        .block(NestedBlock::single(
            "disruption",
            Block::new("Karpenter v1 disruption settings.")
                .attribute(Attribute::optional(
                    "consolidation_policy",
                    Type::String,
                    "`WhenEmpty`, `WhenEmptyOrUnderutilized`, or `Balanced` (Karpenter 1.14+). EKSGPU005.",
                ))
                .attribute(Attribute::optional("consolidate_after", Type::String, "Duration such as `5m`, or `Never`. Default `0s`.")),
        ))
        .block(NestedBlock::single("node_class", node_class_block()))
}

pub fn schema() -> Schema {
    Schema::new(
        Block::new(
            "Which capacity kind serves which GPU workload class in one EKS cluster. Karpenter and EKS Auto Mode pools \
             become NodePools and node classes, applied with server-side apply; the NVIDIA GPU Operator's Helm values are \
             computed for the mix. `terraform plan` renders every object without contacting the cluster and rejects \
             configurations that cannot work (see the rules); refresh reports drift only in fields this provider owns.",
        )
        .attribute(Attribute::computed("id", Type::String, "`<cluster_name>/<name>`, also the import ID."))
        .attribute(Attribute::required("cluster_name", Type::String, "EKS cluster name. Changing it replaces the strategy.").forces_replacement())
        .attribute(
            Attribute::required("name", Type::String, "Strategy name, unique per cluster; labels every object. Changing it replaces the strategy.")
                .forces_replacement(),
        )
        .attribute(Attribute::optional_computed(
            "kubernetes_version",
            Type::String,
            "Kubernetes version of the cluster (`MAJOR.MINOR`); read from the cluster at apply when not set.",
        ))
        .attribute(Attribute::optional_computed(
            "force_conflicts",
            Type::Bool,
            "Take ownership of fields another field manager changed (server-side apply `force`). Default `false`: such \
             a change is a conflict error, so nothing is overwritten silently. Not stored in the cluster: an import \
             reads it as `false`.",
        ))
        .attribute(Attribute::computed(
            "gpu_operator_values_yaml",
            Type::String,
            "Helm values for `nvidia/gpu-operator` that fit the pools (null without a `gpu_operator` block).",
        ))
        .block(NestedBlock::single(
            "gpu_operator",
            Block::new("The strategy's cluster runs the NVIDIA GPU Operator: compute its values and label pools to match.")
                .attribute(Attribute::optional_computed("mig_strategy", Type::String, "`single` or `mixed`. Default `single`."))
                .attribute(Attribute::optional_computed("dcgm_exporter", Type::Bool, "Run the DCGM exporter. Default `true`."))
                .attribute(Attribute::optional_computed(
                    "service_monitor",
                    Type::Bool,
                    "Create a Prometheus ServiceMonitor for the DCGM exporter. Default `false`.",
                )),
        ))
        .block(NestedBlock::list("pool", pool_block()).min_items(1)),
    )
}

/// Structural checks that need no provider configuration; the rules run at plan.
pub(super) fn validate(config: &Value, diags: &mut Diagnostics) {
    for (i, pool) in config.get("pool").elements().iter().enumerate() {
        if let Some(c) = pool.get("capacity").as_str()
            && Capacity::parse(c).is_none()
        {
            diags.error_at(
                AttributePath::attr("pool").index(i).attribute("capacity"),
                "Invalid capacity kind",
                format!("{c:?} is not a capacity kind. Use auto_mode, karpenter, managed_node_group or hybrid."),
            );
        }
        if let Some(c @ ("managed_node_group" | "hybrid")) = pool.get("capacity").as_str() {
            diags.error_at(
                AttributePath::attr("pool").index(i).attribute("capacity"),
                "Capacity kind not available yet",
                format!("Pools with capacity = {c:?} are not supported by this version of the provider; use karpenter or auto_mode."),
            );
        }
    }
    if let Some(m) = config.get("gpu_operator").get("mig_strategy").as_str()
        && m != "single"
        && m != "mixed"
    {
        diags.error_at(
            AttributePath::attr("gpu_operator").attribute("mig_strategy"),
            "Invalid MIG strategy",
            format!("{m:?} is not a MIG strategy. Use single or mixed."),
        );
    }
    if let Some(v) = config.get("kubernetes_version").as_str()
        && !v
            .split_once('.')
            .is_some_and(|(a, b)| a.parse::<u32>().is_ok() && b.parse::<u32>().is_ok())
    {
        diags.error_at(
            AttributePath::attr("kubernetes_version"),
            "Invalid Kubernetes version",
            format!("{v:?} is not MAJOR.MINOR, e.g. \"1.33\"."),
        );
    }
}
