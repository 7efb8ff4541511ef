//! The schema of `eksgpu_sharing_pool` (fixed names: docs/resources/sharing_pool.md).

use eksgpu_core::rules::Code;
use eksgpu_core::{sharing, validate};
use eksgpu_framework::validators;
use eksgpu_tfplugin::Type;
use eksgpu_tfplugin::schema::{Attribute, Block, NestedBlock, Schema};

use crate::resources::{CAPACITY_KINDS, checks};

const STRATEGIES: &[&str] = &["exclusive", "time_slicing", "mps", "mig", "dra", "hami"];

fn slicing(what: &str, strategy: sharing::Strategy) -> Block {
    Block::new(&format!(
        "Device-plugin {what}: each GPU is advertised `replicas` times; replicas reserve no memory."
    ))
    .attribute(
        Attribute::required("replicas", Type::Number, "Shares per GPU, at least 2.")
            // k8s-device-plugin api/config/v1 `ReplicatedResource.Replicas` is an int.
            .validate(
                validators::int32(2, i32::MAX, "device-plugin sharing `replicas`").code(Code::EKSGPU108.as_str()),
            ),
    )
    .attribute(
        Attribute::optional(
            "rename_by_default",
            Type::Bool,
            "Advertise the shares as `nvidia.com/gpu.shared` instead of `nvidia.com/gpu`. Default `false`.",
        )
        .default(false),
    )
    .attribute(
        Attribute::optional(
            "fail_requests_greater_than_one",
            Type::Bool,
            "Refuse containers that request more than one share. Default `false` for time-slicing, `true` for MPS \
             (the device plugin forces it for MPS).",
        )
        .default(sharing::Slicing::default_fail_requests_greater_than_one(strategy)),
    )
}

pub fn schema() -> Schema {
    let s = |n: &str, d: &str| Attribute::optional(n, Type::String, d);
    Schema::new(
        Block::new(
            "How the GPUs of a set of nodes are shared: whole GPUs, device-plugin time-slicing or MPS, MIG, an NVIDIA DRA \
             ResourceClaim, or HAMi. Validated against the GPU (memory budget, MIG profiles) and the capacity kind; its \
             `node_labels` go into a node strategy pool's `labels` and its `resource_requests` into a container's limits.",
        )
        .attribute(Attribute::computed("id", Type::String, "`<cluster_name>/<name>`.").use_state_for_unknown())
        .attribute(
            Attribute::required("cluster_name", Type::String, "EKS cluster name. Changing it replaces the pool.")
                .forces_replacement()
                .validate(checks::string("An EKS cluster name.", validate::eks_cluster_name))
                .validate(checks::string("Usable as a label value (it labels the pool's objects).", validate::cluster_name_label_value)),
        )
        .attribute(
            Attribute::required("name", Type::String, "Pool name: its device-plugin config key and record key. Changing it replaces the pool.")
                .forces_replacement()
                .validate(checks::string("A non-empty label value (the device-plugin config label).", validate::non_empty_label_value))
                .validate(checks::string("A ConfigMap key.", validate::config_map_key)),
        )
        .attribute(s("instance_type", "Instance type of the pool's nodes, for validation (or `gpu_model`)."))
        .attribute(s("gpu_model", "GPU model of the pool's nodes (`A10G`, `H200`), when not one instance type."))
        .attribute(
            s("capacity", "Capacity kind of the nodes (`auto_mode`, `karpenter`, `managed_node_group`, `hybrid`), validated like a pool's.")
                .validate(validators::one_of(CAPACITY_KINDS)),
        )
        .attribute(
            Attribute::required("strategy", Type::String, "`exclusive`, `time_slicing`, `mps`, `mig`, `dra` or `hami`. Changing it replaces the pool.")
                .forces_replacement()
                .validate(validators::one_of(STRATEGIES)),
        )
        .attribute(
            Attribute::optional(
                "config_namespace",
                Type::String,
                "Namespace of the device-plugin config ConfigMap and of the pools' record. Default `gpu-operator`.",
            )
            .default(sharing::DEFAULT_CONFIG_NAMESPACE)
            .forces_replacement()
            .validate(checks::string("A namespace name.", validate::namespace_name)),
        )
        .attribute(
            Attribute::optional(
                "config_map",
                Type::String,
                "Device-plugin config ConfigMap the GPU Operator's `devicePlugin.config.name` points at; each pool owns one key. \
                 Default `device-plugin-config`.",
            )
            .default(sharing::DEFAULT_CONFIG_MAP)
            .forces_replacement()
            .validate(checks::string("A ConfigMap name.", validate::config_map_name)),
        )
        .attribute(
            Attribute::optional(
                "force_conflicts",
                Type::Bool,
                "Take back fields another field manager changed. Default `false`.",
            )
            .default(false),
        )
        .attribute(crate::resources::acknowledged::attribute(
            "`[\"EKSGPU131\"]` when the DRA driver's values come from a strategy's `dra_driver_values_yaml`, which \
             turns the sharing feature gates on",
        ))
        .attribute(Attribute::computed("node_labels", Type::map(Type::String), "Labels the pool's nodes need."))
        .attribute(Attribute::computed(
            "resource_requests",
            Type::map(Type::String),
            "What one container puts in `resources.limits` for its share (empty for DRA: reference the claim).",
        ))
        .attribute(Attribute::computed("resource_claim_name", Type::String, "The DRA ResourceClaim pods reference (`spec.resourceClaims[].resourceClaimName`)."))
        .attribute(Attribute::computed(
            "pod_resource_claims",
            Type::list(Type::object([("name", Type::String), ("resource_claim_name", Type::String)])),
            "For DRA: the pod spec's `resourceClaims` entry (`name`, `resourceClaimName`); containers then list \
             `resources.claims = [{ name = \"gpu\" }]`. Empty for other strategies.",
        ))
        .attribute(Attribute::computed("manifests_yaml", Type::String, "The objects applied in-cluster for this pool, as YAML."))
        .attribute(Attribute::computed("hami_values_yaml", Type::String, "Helm values for the HAMi chart (strategy `hami`)."))
        .block(NestedBlock::optional_one("time_slicing", slicing("time-slicing", sharing::Strategy::TimeSlicing)))
        .block(NestedBlock::optional_one("mps", slicing("MPS", sharing::Strategy::Mps)))
        .block(NestedBlock::optional_one(
            "mig",
            Block::new("MIG partitions, by profile layout or mig-parted config name.")
                .attribute(
                    Attribute::optional("strategy", Type::String, "`single` or `mixed`. Default `single`.")
                        .default("single")
                        .validate(validators::one_of(&["single", "mixed"])),
                )
                .attribute(
                    Attribute::optional("profiles", Type::map(Type::Number), "Profile → instances per GPU, e.g. `{\"1g.18gb\" = 7}`.")
                        // A GPU has at most 7 GPU instances (NVIDIA MIG user guide, "Supported MIG profiles").
                        .validate(validators::each(validators::integer(1, 7, "MIG instances per GPU"))),
                )
                .attribute(s("config", "A mig-parted config name instead: `all-balanced` or `all-<profile>`.")),
        ))
        .block(
            NestedBlock::optional_one(
                "dra",
                Block::new("An NVIDIA DRA ResourceClaim (`resource.k8s.io/v1`). A claim's spec is immutable: changes replace it.")
                    .attribute(
                        Attribute::required("namespace", Type::String, "Namespace of the claim and of the pods that share it.")
                            .validate(checks::string("A namespace name.", validate::namespace_name)),
                    )
                    .attribute(
                        Attribute::optional_computed("claim_name", Type::String, "Claim name. Default: the pool name.")
                            .validate(checks::string("A Kubernetes object name.", validate::object_name)),
                    )
                    .attribute(
                        Attribute::optional("device_class", Type::String, "DeviceClass. Default `gpu.nvidia.com`.")
                            .default("gpu.nvidia.com")
                            .validate(checks::string("A DeviceClass name.", validate::device_class_name)),
                    )
                    .attribute(
                        Attribute::optional("count", Type::Number, "GPUs claimed. Default 1.")
                            .default(1)
                            // resource.k8s.io/v1 `ExactDeviceRequest.count` is int64, at least 1.
                            .validate(validators::integer(1, 128, "DRA device request `count`").code(Code::EKSGPU108.as_str())),
                    )
                    .attribute(
                        Attribute::optional(
                            "sharing",
                            Type::String,
                            "`exclusive`, `time_slicing` or `mps` (a `GpuConfig` for the DRA driver). Default `exclusive`.",
                        )
                        .default("exclusive")
                        .validate(validators::one_of(&["exclusive", "time_slicing", "mps"])),
                    )
                    .attribute(
                        Attribute::optional(
                            "create_namespace",
                            Type::Bool,
                            "Create the namespace with the claim, and delete it (with everything in it) on destroy. Default `false`: \
                             the namespace must exist.",
                        )
                        .default(false),
                    ),
            )
            .forces_replacement(),
        )
        .block(NestedBlock::optional_one(
            "hami",
            Block::new("HAMi soft partitioning: per-pod memory and core quotas, enforced in user space (not a security boundary).")
                .attribute(
                    Attribute::optional("split_count", Type::Number, "Pods per GPU (`deviceSplitCount`). Default 10.")
                        .default(10)
                        .validate(validators::int32(1, i32::MAX, "HAMi `deviceSplitCount`")),
                )
                .attribute(
                    Attribute::optional("memory_mib", Type::Number, "Memory per pod, MiB (`nvidia.com/gpumem`).")
                        .validate(validators::int32(1, i32::MAX, "HAMi `nvidia.com/gpumem`, MiB")),
                )
                .attribute(
                    Attribute::optional("cores_percent", Type::Number, "Share of SMs per pod, 0–100 (`nvidia.com/gpucores`).")
                        .validate(validators::integer(0, 100, "HAMi `nvidia.com/gpucores`, percent").code(Code::EKSGPU108.as_str())),
                )
                .attribute(
                    Attribute::optional("memory_scaling", Type::Number, "`deviceMemoryScaling`; above 1 oversubscribes. Default 1.")
                        .default(1)
                        .validate(validators::number(0.01, 100.0, "HAMi `deviceMemoryScaling`")),
                )
                .attribute(
                    Attribute::optional("core_policy", Type::String, "`default`, `force` or `disable`. Default `default`.")
                        .default("default")
                        .validate(validators::one_of(&["default", "force", "disable"])),
                ),
        ))
        .block(NestedBlock::list(
            "workload",
            Block::new("A consumer of the pool, declared so the memory budget can be checked (EKSGPU012).")
                .attribute(Attribute::required("name", Type::String, "Workload name."))
                .attribute(
                    Attribute::required("memory_mib", Type::Number, "GPU memory it uses, MiB.")
                        .validate(validators::integer(1, 1 << 40, "workload GPU memory, MiB")),
                )
                .attribute(
                    s("namespace", "Namespace it runs in (DRA claims are shared within one namespace).")
                        .validate(checks::string("A namespace name.", validate::namespace_name)),
                ),
        )),
    )
}

/// The schema, built once per process: plans consult it for every resource.
pub(crate) fn cached() -> &'static Schema {
    static SCHEMA: std::sync::LazyLock<Schema> = std::sync::LazyLock::new(schema);
    &SCHEMA
}
