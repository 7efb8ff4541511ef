//! The schema of `eksgpu_node_strategy` (fixed names: docs/resources/node_strategy.md)
//! and the structural checks Terraform can make before the provider is configured.

use eksgpu_core::validate;
use eksgpu_framework::validators;
use eksgpu_tfplugin::Type;
use eksgpu_tfplugin::schema::{Attribute, Block, Mode, NestedBlock, NestedType, ObjectNesting, Schema};

use eksgpu_core::model::inputs::POOL;

use crate::resources::{checks, inputs};

fn tolerations_type() -> Type {
    Type::list(Type::object([
        ("key", Type::String),
        ("operator", Type::String),
        ("value", Type::String),
        ("effect", Type::String),
    ]))
}

/// A pool's object: its inputs as declared (`eksgpu_core::node_strategy::inputs::POOL`), then the
/// outputs the plan computes.
fn pool_object() -> Block {
    inputs::object(
        "A class of GPU capacity, keyed by its name: unique within the strategy, it names the pool's NodePool and \
         node class (a DNS label, EKSGPU105) or its node group (`<cluster_name>-<name>`).",
        POOL,
    )
    .attribute(Attribute::computed(
        "node_selector",
        Type::map(Type::String),
        "What a pod needs in `nodeSelector` to land on this pool.",
    ))
    .attribute(Attribute::computed(
        "tolerations",
        tolerations_type(),
        "Tolerations a pod needs for the pool's taints.",
    ))
    .attribute(Attribute::computed(
        "accelerator",
        Type::String,
        "Whose accelerators the pool's nodes carry, from its instance types: `nvidia` (NVIDIA GPUs) or `neuron` \
             (AWS Trainium, Inferentia). One pool holds one vendor (EKSGPU150); hybrid pools are `nvidia`.",
    ))
    .attribute(Attribute::computed(
        "gpu_resource_name",
        Type::String,
        "Extended resource a container requests for a device of this pool (`nvidia.com/gpu`, \
             `nvidia.com/mig-<profile>` under MIG `mixed`, or `aws.amazon.com/neuron` on Neuron pools: whole Neuron \
             devices; `aws.amazon.com/neuroncore` counts their cores); null for DRA pools, except `multi_node_nvlink` \
             pools (their GPUs stay the device plugin's).",
    ))
    .attribute(Attribute::computed(
        "matched_instance_types",
        Type::list(Type::String),
        "The catalog instance types the pool may launch today: with `requirements`, every NVIDIA GPU type of \
             the catalog they match (bounded by Auto Mode's documented families on `auto_mode` pools); otherwise its \
             `instance_types`. Karpenter also launches types that appear later and match.",
    ))
    .attribute(Attribute::computed(
        "compute_domain_claim_template",
        Type::String,
        "The ResourceClaimTemplate of the pool's ComputeDomain (`<name>-channel`, in `compute_domain_namespace`), \
             which the NVIDIA DRA driver creates: a multi-node job's pods name it in \
             `resourceClaims[].resourceClaimTemplateName` to join the domain's IMEX channel. Null unless \
             `multi_node_nvlink`.",
    ))
    .attribute(Attribute::computed(
        "clique_topology_key",
        Type::String,
        "The node label naming a node's NVLink clique (`nvidia.com/gpu.clique`, set by GPU Feature Discovery): \
             the `topologyKey` of a pod affinity that keeps a job's pods in one NVLink domain. Null unless \
             `multi_node_nvlink`.",
    ))
    .attribute(Attribute::computed(
        "manifests_yaml",
        Type::String,
        "What this pool creates, as YAML rendered at plan time: the in-cluster objects of `karpenter` and \
             `auto_mode` pools; the EKS API requests (`CreateNodegroup`, or `UpdateClusterConfig` and \
             `CreateAccessEntry`) of `managed_node_group` and `hybrid` pools; then the `ComputeDomain` of a \
             `multi_node_nvlink` pool, applied in-cluster with server-side apply.",
    ))
}

fn timeouts_block() -> Block {
    Block::new("How long to wait for EKS API pools (node groups, cluster updates), as durations like `30m` or `1h30m`.")
        .attribute(
            Attribute::optional(
                "create",
                Type::String,
                "For a node group to become active. Default `60m`.",
            )
            .validate(duration()),
        )
        .attribute(
            Attribute::optional(
                "update",
                Type::String,
                "For an update of a node group or the cluster. Default `60m`.",
            )
            .validate(duration()),
        )
        .attribute(
            Attribute::optional("delete", Type::String, "For a node group to be deleted. Default `60m`.")
                .validate(duration()),
        )
}

fn duration() -> eksgpu_tfplugin::Validator {
    validators::string("A duration such as `45m`, `1h30m` or `90s`.", |d| {
        super::timeouts::parse_duration(d)
            .map(|_| ())
            .ok_or_else(|| format!("{d:?} is not a duration such as \"45m\", \"1h30m\" or \"90s\"."))
    })
}

/// Version 1: `labels` of a pool default to `{}` (version 0 stored null).
/// Version 2: a pool's `efa` defaults to `false` (earlier versions had none).
/// Version 3: pools have `accelerator`, the strategy `neuron_values_yaml` (computed from what is stored).
/// Version 4: a pool's `multi_node_nvlink` defaults to `false`; the strategy has `dra_driver_values_yaml`.
/// Version 5: pools became a map nested attribute keyed by name (design/0010).
/// Version 6: see [`SCHEMA_VERSION`].
pub fn schema() -> Schema {
    let mut schema = Schema::new(
        Block::new(
            "Which capacity kind serves which GPU workload class in one EKS cluster. Karpenter and EKS Auto Mode pools \
             become NodePools and node classes, applied with server-side apply; the NVIDIA GPU Operator's Helm values are \
             computed for the mix. `terraform plan` renders every object without contacting the cluster and rejects \
             configurations that cannot work (see the rules); refresh reports drift only in fields this provider owns.",
        )
        .attribute(Attribute::computed("id", Type::String, "`<cluster_name>/<name>`, also the import ID.").use_state_for_unknown())
        .attribute(
            Attribute::required("cluster_name", Type::String, "EKS cluster name. Changing it replaces the strategy.")
                .forces_replacement()
                .validate(checks::string("An EKS cluster name.", validate::eks_cluster_name))
                .validate(checks::string("Usable as a label value (it labels every object).", validate::cluster_name_label_value)),
        )
        .attribute(
            Attribute::required(
                "name",
                Type::String,
                "Strategy name, unique per cluster; it labels (and tags) every object as the strategy's own. Changing it \
                 renames the strategy in place: objects keep their names and are relabelled, nothing is recreated.",
            )
                .validate(checks::string("A non-empty label value (it labels every object).", validate::non_empty_label_value)),
        )
        .attribute(
            Attribute::optional_computed(
                "kubernetes_version",
                Type::String,
                "Kubernetes version of the cluster (`MAJOR.MINOR`); read from the cluster at apply when not set.",
            )
            // As EKS writes it (CreateCluster / DescribeCluster `version`): no `v`, no patch.
            .validate(checks::string("A Kubernetes version as EKS writes it, `MAJOR.MINOR` such as `1.34`.", validate::kubernetes_version)),
        )
        .attribute(Attribute::optional(
            "force_conflicts",
            Type::Bool,
            "Take ownership of fields another field manager changed (server-side apply `force`). Default `false`: such \
             a change is a conflict error, so nothing is overwritten silently. Not stored in the cluster: an import \
             reads it as `false`.",
        ).default(false))
        .attribute(
            Attribute::optional(
                "wait_for_ready",
                Type::Bool,
                "After applying a `karpenter` or `auto_mode` pool, wait until its node class and NodePool report \
                 `Ready` (their `status.conditions`, set by Karpenter or EKS Auto Mode), and fail the apply with the \
                 condition's message when they do not within `ready_timeout`: a node class whose role, subnets or \
                 AMI cannot be resolved launches nothing. Default `false`.",
            ),
        )
        .attribute(
            Attribute::optional(
                "ready_timeout",
                Type::String,
                "How long `wait_for_ready` waits for each object, as a duration such as `90s`, `5m` or `1h`. Default `5m`.",
            )
            .validate(checks::duration()),
        )
        .attribute(crate::resources::acknowledged::attribute(
            "`[\"EKSGPU132\"]` when the NVIDIA device plugin is installed another way (for any pool of the strategy)",
        ))
        .attribute(Attribute::computed(
            "gpu_operator_values_yaml",
            Type::String,
            "Helm values for `nvidia/gpu-operator` that fit the pools (null without a `gpu_operator` block).",
        ))
        .attribute(Attribute::computed(
            "neuron_values_yaml",
            Type::String,
            "Helm values for the AWS Neuron chart (`oci://public.ecr.aws/neuron/neuron-helm-chart`, chart 1.10.0) that \
             fit the Neuron pools (null without one): the Neuron device plugin for `karpenter` and `managed_node_group` \
             Neuron pools (Auto Mode brings its own; the chart keeps the plugin off Auto Mode, hybrid and Fargate \
             nodes), or the Neuron DRA driver for `dra = true` Neuron pools (never both, EKSGPU153), with tolerations \
             for the pools' taints, and the Neuron scheduler extension where an instance holds several Neuron devices \
             (pods asking for a subset of them set `schedulerName: my-scheduler`, the chart's default name).",
        ))
        .attribute(Attribute::computed(
            "dra_driver_values_yaml",
            Type::String,
            "Helm values for NVIDIA's DRA driver for GPUs (chart \
             `oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu`, 0.4.1 as the EKS user guide \
             installs it) that fit the NVIDIA `dra = true` pools (Auto Mode pools left out: Auto Mode runs its own): \
             `resources.gpus` with `gpuResourcesEnabledOverride` where a pool's GPUs are claimed, \
             `resources.computeDomains` where a pool is `multi_node_nvlink` (GPUs off when every DRA pool is, as for \
             P6e-GB200: the device plugin keeps them), the `featureGates` the sharing pools' DRA sharing needs \
             (`TimeSlicingSettings`, `MPSSupport`, from the labels a sharing pool hands over), `nvidiaDriverRoot` \
             (`/run/nvidia/driver` where the GPU Operator installs the hybrid nodes' driver, `/` where the host has \
             it; one root per release, EKSGPU146), and the kubelet plugin's tolerations and node affinity for the \
             pools' nodes (one DaemonSet: no GPU plugin beside a GB200 pool's device plugin, EKSGPU145). Empty (`\"\"`) when no NVIDIA pool has \
             `dra = true`.",
        ))
        .attribute(Attribute::computed(
            "device_plugin_values_yaml",
            Type::String,
            "Helm values for NVIDIA's device plugin chart (`nvdp/nvidia-device-plugin` 0.20.0,              https://nvidia.github.io/k8s-device-plugin) that fit the pools, for clusters that run the plugin without              the GPU Operator (null without a `device_plugin` block): one named config per time-slicing or MPS              sharing pool in `config.map` (a node selects its own with `nvidia.com/device-plugin.config`; whole GPUs              are `default`), node affinity for the pools the plugin serves (not Auto Mode, DRA, HAMi, Bottlerocket              or Neuron pools, which run their own device manager), tolerations for their taints, and GPU Feature              Discovery with NFD where MPS or multi-node NVLink pools need its labels. Install it in a namespace              other than `default` (the chart refuses `default`).",
        ))
        .attribute(Attribute::computed(
            "owner_token",
            Type::String,
            "A random token this instance of the strategy writes on every object it applies (label or tag \
             `eksgpu.terraform.io/owner-token`). A destroy deletes only objects bearing its own token, so when \
             Terraform replaces the strategy with `create_before_destroy`, the old instance's destroy leaves what \
             the new one wrote. Set at creation (or import) and kept.",
        ))
        .block(NestedBlock::optional_one(
            "gpu_operator",
            Block::new("The strategy's cluster runs the NVIDIA GPU Operator: compute its values and label pools to match.")
                .attribute(
                    Attribute::optional("mig_strategy", Type::String, "`single` or `mixed`. Default `single`.")
                        .default("single")
                        .validate(validators::one_of(&["single", "mixed"])),
                )
                .attribute(Attribute::optional("dcgm_exporter", Type::Bool, "Run the DCGM exporter. Default `true`.").default(true))
                .attribute(
                    Attribute::optional(
                        "service_monitor",
                        Type::Bool,
                        "Create a Prometheus ServiceMonitor for the DCGM exporter. Default `false`.",
                    )
                    .default(false),
                ),
        ))
        .block(NestedBlock::optional_one(
            "device_plugin",
            Block::new(
                "The strategy's cluster runs NVIDIA's device plugin without the GPU Operator (the EKS NVIDIA AMIs carry                  the driver and container toolkit): compute its Helm values (`device_plugin_values_yaml`). Exclusive                  with `gpu_operator` (EKSGPU183). MIG layouts need the operator's MIG Manager (EKSGPU184); hybrid                  nodes need the driver and toolkit installed on the host.",
            )
            .attribute(
                Attribute::optional(
                    "mig_strategy",
                    Type::String,
                    "`single` or `mixed`: how the plugin advertises MIG devices where a pool splits its GPUs                      (`flags.migStrategy`). Default `single`.",
                )
                .default("single")
                .validate(validators::one_of(&["single", "mixed"])),
            ),
        ))
        .attribute(
            Attribute::nested(
                "pools",
                Mode::Required,
                NestedType::new(ObjectNesting::Map, pool_object()),
                "The pools, keyed by name: `pools = { inference = { capacity = \"karpenter\", … } }`. A module builds \
                 them with `for` and `merge()`; a plan shows only the pools that change, and outputs are addressed by \
                 name (`pools[\"inference\"].node_selector`).",
            )
            // One pool at least: a strategy of none stands for nothing.
            .validate(validators::size(1, usize::MAX, "a strategy holds at least one pool")),
        )
        .block(NestedBlock::optional_one("timeouts", timeouts_block())),
    );
    schema.version = SCHEMA_VERSION;
    schema
}

/// Version 6: the strategy has a `device_plugin` block (stored as none) and `device_plugin_values_yaml`
/// (null without the block); `upgrade.rs`.
pub(crate) const SCHEMA_VERSION: i64 = 6;

/// The schema, built once per process: plans consult it for every resource.
pub(crate) fn cached() -> &'static Schema {
    static SCHEMA: std::sync::LazyLock<Schema> = std::sync::LazyLock::new(schema);
    &SCHEMA
}
