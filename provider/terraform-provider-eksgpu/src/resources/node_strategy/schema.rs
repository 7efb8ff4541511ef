//! The schema of `eksgpu_node_strategy` (fixed names: docs/resources/node_strategy.md)
//! and the structural checks Terraform can make before the provider is configured.

use eksgpu_core::validate;
use eksgpu_framework::path::one;
use eksgpu_framework::validators;
use eksgpu_tfplugin::schema::{Attribute, Block, NestedBlock, Schema};
use eksgpu_tfplugin::{AttributePath, Diagnostics, Type, Value};

use crate::resources::{CAPACITY_KINDS, checks};

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
    .attribute(Attribute::optional("role", Type::String, "IAM role name of the nodes. Required for `karpenter` pools (EKSGPU104) and for an `auto_mode` pool's own NodeClass (EKSGPU120)."))
    .attribute(
        tags("subnet_selector_tags", "Tags selecting the nodes' subnets. Default `karpenter.sh/discovery = <cluster_name>`.")
            .validate(validators::keys("Non-empty tag keys.", |k| if k.is_empty() { non_empty("tag key") } else { Ok(()) }))
            .validate(validators::each(validators::string("Non-empty tag values.", |v| {
                if v.is_empty() { non_empty("tag value") } else { Ok(()) }
            }))),
    )
    .attribute(
        tags(
            "security_group_selector_tags",
            "Tags selecting the nodes' security groups. Default `karpenter.sh/discovery = <cluster_name>`.",
        )
        .validate(validators::keys("Non-empty tag keys.", |k| if k.is_empty() { non_empty("tag key") } else { Ok(()) }))
        .validate(validators::each(validators::string("Non-empty tag values.", |v| {
            if v.is_empty() { non_empty("tag value") } else { Ok(()) }
        }))),
    )
    .attribute(
        tags("tags", "Tags on the EC2 resources the node class launches.")
            .validate(checks::keys("Tag keys Karpenter lets a node class set.", validate::node_class_tag_key))
            .validate(checks::each("Tag values.", validate::node_class_tag_value)),
    )
    .attribute(
        Attribute::optional(
            "instance_store_policy",
            Type::String,
            "`RAID0`: the instance-store NVMe disks (p4d, p5, g6e, …) become one array for kubelet, images and containers, \
             so large images do not need a large root volume. Karpenter only (EKSGPU124).",
        )
        // EC2NodeClass spec.instanceStorePolicy: enum [RAID0] (karpenter-provider-aws v1.14.1 CRD).
        .validate(validators::one_of(&["RAID0"])),
    )
    .block(
        NestedBlock::list(
            "capacity_reservation",
            Block::new(
                "A term of `capacityReservationSelectorTerms`: On-Demand Capacity Reservations or Capacity Blocks for ML \
                 that `reserved` capacity launches into (Karpenter 1.3+, Auto Mode). Select one by `id` alone, or several by \
                 `tags` (and `owner_id`) or `instance_match_criteria` (EKSGPU129); allow `reserved` in `capacity_types` \
                 (EKSGPU119, EKSGPU128).",
            )
            .attribute(
                Attribute::optional("id", Type::String, "Reservation ID, `cr-…`.")
                    .validate(checks::string("A capacity reservation ID.", validate::capacity_reservation_id)),
            )
            .attribute(
                tags("tags", "Tags selecting reservations (`*` matches any value).")
                    .validate(validators::keys("Non-empty tag keys.", |k| if k.is_empty() { non_empty("tag key") } else { Ok(()) }))
                    .validate(validators::each(validators::string("Non-empty tag values.", |v| {
                        if v.is_empty() { non_empty("tag value") } else { Ok(()) }
                    }))),
            )
            .attribute(
                Attribute::optional("owner_id", Type::String, "12-digit account ID owning shared reservations.")
                    .validate(checks::string("An AWS account ID.", validate::aws_account_id)),
            )
            .attribute(
                Attribute::optional("instance_match_criteria", Type::String, "`open` or `targeted`.")
                    .validate(validators::one_of(&["open", "targeted"])),
            ),
        )
        // EC2NodeClass spec.capacityReservationSelectorTerms: maxItems 30 (v1.14.1 CRD).
        .max_items(30),
    )
    .block(NestedBlock::optional_one(
        "metadata_options",
        Block::new(
            "Instance metadata (IMDS) of the nodes: EC2NodeClass `metadataOptions`. Without this block Karpenter's default \
             applies (IMDSv2 required, hop limit 1, so pods without host networking cannot reach IMDS). Karpenter only (EKSGPU124).",
        )
        .attribute(
            Attribute::optional("http_tokens", Type::String, "`required` (IMDSv2 only) or `optional`. Default `required`.")
                .validate(validators::one_of(&["required", "optional"])),
        )
        .attribute(
            Attribute::optional(
                "http_put_response_hop_limit",
                Type::Number,
                "IMDS PUT response hop limit, 1–64. Set `2` when pods (e.g. ones using the node role or IMDS for the region) must reach IMDS. Default Karpenter's `1`.",
            )
            // EC2NodeClass metadataOptions.httpPutResponseHopLimit: minimum 1, maximum 64.
            .validate(validators::integer(1, 64, "EC2NodeClass `metadataOptions.httpPutResponseHopLimit`")),
        ),
    ))
    .block(NestedBlock::optional_one(
        "root_volume",
        Block::new("Root volume (`blockDeviceMappings` on Karpenter, `ephemeralStorage` on Auto Mode). With a `bottlerocket@…` alias it is Bottlerocket's data volume `/dev/xvdb` (kubelet, images, containers); the OS volume `/dev/xvda` keeps 4Gi.")
            .attribute(
                Attribute::optional("size", Type::String, "Size as a Kubernetes quantity, e.g. `200Gi`. Default on Karpenter `20Gi`, on Auto Mode `80Gi`; under `30Gi` a GPU pool warns (EKSGPU123).")
                    .validate(checks::string("A Kubernetes quantity.", validate::quantity)),
            )
            .attribute(
                Attribute::optional("volume_type", Type::String, "EBS volume type. Default `gp3`. Karpenter only.")
                    .validate(checks::string("An EBS volume type.", validate::ebs_volume_type)),
            )
            .attribute(
                Attribute::optional("iops", Type::Number, "Provisioned IOPS.")
                    // EC2NodeClass blockDeviceMappings[].ebs.iops is int64; EBS allows 100–256000 (io2 Block Express).
                    .validate(validators::integer(100, 256_000, "EBS `iops`")),
            )
            .attribute(
                Attribute::optional("throughput", Type::Number, "Throughput in MiB/s.")
                    // gp3 throughput is 125–2000 MiB/s (EBS volume types, AWS docs).
                    .validate(validators::integer(125, 2000, "EBS gp3 `throughput`, MiB/s")),
            )
            .attribute(Attribute::optional("encrypted", Type::Bool, "Encrypt the volume. Karpenter only.")),
    ))
    .block(NestedBlock::optional_one(
        "kubelet",
        Block::new(
            "Kubelet settings, rendered on the EC2NodeClass (Karpenter v1 has no NodePool kubelet). Not for `auto_mode` (EKSGPU006).",
        )
        .attribute(
            Attribute::optional("max_pods", Type::Number, "Most pods per node.")
                // EC2NodeClass spec.kubelet.maxPods is int32, minimum 0 (karpenter-provider-aws v1.14.1 CRD).
                .validate(validators::int32(0, i32::MAX, "EC2NodeClass `kubelet.maxPods`")),
        )
        .attribute(
            Attribute::optional("eviction_hard", Type::map(Type::String), "Hard eviction thresholds, e.g. `{\"memory.available\" = \"5%\"}`.")
                .validate(checks::keys("Kubelet eviction signals.", validate::eviction_signal))
                .validate(checks::each("Eviction thresholds (a percentage or a quantity).", validate::eviction_threshold)),
        ),
    ))
}

fn pool_block() -> Block {
    Block::new("A class of GPU capacity. Pools are applied in order.")
        .attribute(Attribute::required(
            "name",
            Type::String,
            "Unique within the strategy; NodePools and node classes are named after it (a DNS label, EKSGPU105).",
        ))
        .attribute(
            Attribute::required(
                "capacity",
                Type::String,
                "Capacity kind: `auto_mode` or `karpenter` (in-cluster objects), `managed_node_group` or `hybrid` (EKS API).",
            )
            .validate(validators::one_of(CAPACITY_KINDS)),
        )
        .attribute(Attribute::optional(
            "instance_types",
            Type::list(Type::String),
            "EC2 instance types, validated against the GPU catalog (EKSGPU016). Required except on `hybrid` pools \
             (on-prem machines), EKSGPU115. For a node group, changing them replaces the node group.",
        ))
        .attribute(Attribute::optional(
            "capacity_types",
            Type::list(Type::String),
            "`on-demand`, `spot`, `reserved` (Karpenter, Auto Mode). A managed node group takes one: `on-demand` \
             (`ON_DEMAND`) or `spot` (`SPOT`). Default on-demand.",
        ))
        .attribute(
            Attribute::optional("zones", Type::list(Type::String), "Availability zones. Default: any.")
                .validate(checks::each("Availability zone names.", validate::availability_zone))
                .validate(validators::distinct()),
        )
        .attribute(
            Attribute::optional("gpu_limit", Type::Number, "Most GPUs the pool may hold: NodePool `limits[\"nvidia.com/gpu\"]`.")
                // A resource quantity; whole GPUs, and a count no fleet reaches keeps arithmetic on it exact.
                .validate(validators::integer(0, 1 << 31, "NodePool `limits[\"nvidia.com/gpu\"]`, GPUs")),
        )
        .attribute(
            Attribute::optional("cpu_limit", Type::String, "Most CPU the pool may hold: NodePool `limits.cpu`, a quantity such as `1000` or `1500m`.")
                .validate(checks::string("A Kubernetes quantity.", validate::quantity)),
        )
        .attribute(
            Attribute::optional("memory_limit", Type::String, "Most memory the pool may hold: NodePool `limits.memory`, a quantity such as `4000Gi`.")
                .validate(checks::string("A Kubernetes quantity.", validate::quantity)),
        )
        .attribute(
            Attribute::optional(
                "weight",
                Type::Number,
                "NodePool `weight`: pools of higher weight are tried first (e.g. reserved or Capacity Block pools before on-demand). Default: none (0).",
            )
            // karpenter.sh/v1 NodePool spec.weight: int32, minimum 1, maximum 100 (v1.14.1 CRD).
            .validate(validators::int32(1, 100, "NodePool `weight`")),
        )
        .attribute(
            Attribute::optional(
                "expire_after",
                Type::String,
                "NodePool `template.spec.expireAfter`: how long a node lives before Karpenter replaces it, e.g. `336h`, or `Never`. Default Karpenter's `720h`.",
            )
            .validate(checks::string("A Karpenter duration or `Never`.", validate::karpenter_duration)),
        )
        .attribute(
            Attribute::optional(
                "labels",
                Type::map(Type::String),
                "Node labels. Merge a sharing pool's `node_labels` here. The GPU stack's labels (`nvidia.com/mig.config`, \
                 `nvidia.com/device-plugin.config`, `gpu=on`, `nvidia.com/gpu.deploy.*`) are validated against the capacity kind. \
                 Default `{}`.",
            )
            .default(Value::Map(Default::default()))
            .validate(checks::keys("Kubernetes label keys.", validate::label_key))
            .validate(checks::each("Kubernetes label values.", validate::label_value)),
        )
        .attribute(
            Attribute::optional(
                "gpu_taint",
                Type::Bool,
                "Add the taint `nvidia.com/gpu=true:NoSchedule` unless a `taint` on `nvidia.com/gpu` is given. Default `true`.",
            )
            .default(true),
        )
        .attribute(
            Attribute::optional(
                "adopt",
                Type::Bool,
                "Take over this pool's existing objects (NodePool and node class by the pool's name, node group \
                 `<cluster_name>-<name>`) although another strategy, another tool or nobody owns them: apply \
                 relabels them as this strategy's and takes over their fields. Without it, apply refuses to touch \
                 an object that is not the strategy's own and names its owner. Default `false` (unset: states \
                 written before it existed plan no change).",
            ),
        )
        .attribute(
            Attribute::optional(
                "dra",
                Type::Bool,
                "The pool serves DRA ResourceClaims: the GPU Operator's device plugin is kept off its nodes. Default `false`.",
            )
            .default(false),
        )
        .attribute(
            Attribute::optional(
                "efa",
                Type::Bool,
                "The pool runs multi-node training over EFA: its instance types must have EFA interfaces (EKSGPU126) and its \
                 nodes should stay in one zone (EKSGPU127). Karpenter and Auto Mode attach EFA interfaces to nodes launched \
                 for pods that request `vpc.amazonaws.com/efa` (install the EFA device plugin); node groups need a launch \
                 template this provider does not manage. Not read back by `terraform import`. Default `false`.",
            )
            .default(false),
        )
        .attribute(
            Attribute::optional(
                "tags",
                Type::map(Type::String),
                "Tags on the pool's AWS objects (the node group of a `managed_node_group` pool, the access entry of a \
                 `hybrid` pool), over the provider's `default_tags`. The provider's identifying tags \
                 (`app.kubernetes.io/managed-by`, `eksgpu.terraform.io/*`) cannot be set (EKSGPU125). In-cluster pools \
                 tag what Karpenter launches with `node_class.tags` (EKSGPU115).",
            )
            .validate(checks::keys("EKS tag keys.", validate::aws_tag_key))
            .validate(checks::each("EKS tag values.", validate::aws_tag_value)),
        )
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
            "What this pool creates, as YAML rendered at plan time: the in-cluster objects of `karpenter` and \
             `auto_mode` pools; the EKS API requests (`CreateNodegroup`, or `UpdateClusterConfig` and \
             `CreateAccessEntry`) of `managed_node_group` and `hybrid` pools.",
        ))
        .block(NestedBlock::list(
            "taint",
            Block::new("A node taint, in Kubernetes spelling.")
                .attribute(
                    Attribute::required("key", Type::String, "Taint key.")
                        .validate(checks::string("A taint key (a label key).", validate::taint_key)),
                )
                .attribute(
                    Attribute::optional("value", Type::String, "Taint value (empty means none).")
                        .validate(checks::string("A taint value (a label value, may be empty).", validate::taint_value)),
                )
                .attribute(
                    Attribute::required("effect", Type::String, "`NoSchedule`, `PreferNoSchedule` or `NoExecute`.")
                        .validate(checks::string("A taint effect.", validate::taint_effect)),
                ),
        ))
        .block(NestedBlock::optional_one(
            "disruption",
            Block::new("Karpenter v1 disruption settings.")
                .attribute(Attribute::optional(
                    "consolidation_policy",
                    Type::String,
                    "`WhenEmpty`, `WhenEmptyOrUnderutilized`, or `Balanced` (Karpenter 1.14+). EKSGPU005.",
                ))
                .attribute(
                    Attribute::optional("consolidate_after", Type::String, "Duration such as `5m`, or `Never`. Default `0s`.")
                        .validate(checks::string("A Karpenter duration or `Never`.", validate::karpenter_duration)),
                )
                .block(
                    NestedBlock::list("budget", budget_block())
                        // karpenter.sh/v1 NodePool spec.disruption.budgets: maxItems 50.
                        .max_items(50),
                ),
        ))
        .block(NestedBlock::optional_one("node_class", node_class_block()))
        .block(NestedBlock::optional_one("managed_node_group", managed_node_group_block()))
        .block(NestedBlock::optional_one("hybrid", hybrid_block()))
}

/// One NodePool disruption budget (karpenter.sh/v1 `spec.disruption.budgets[]`, v1.14.1 CRD).
fn budget_block() -> Block {
    Block::new(
        "A disruption budget: at most `nodes` of the pool's nodes are disrupted at once, always or in a cron window. \
         Without any, Karpenter's default of one `10%` budget applies. Training pools often set `nodes = \"0\"` in \
         working hours.",
    )
    .attribute(
        Attribute::required(
            "nodes",
            Type::String,
            "Node count (`\"0\"`, `\"2\"`) or percentage (`\"10%\"`).",
        )
        .validate(checks::string(
            "A node count or a percentage up to 100%.",
            validate::budget_nodes,
        )),
    )
    .attribute(
        Attribute::optional(
            "schedule",
            Type::String,
            "Cron schedule (UTC) when the budget becomes active, e.g. `0 9 * * 1-5` or `@daily`. Set with `duration`.",
        )
        .validate(checks::string("A cron schedule.", validate::budget_schedule)),
    )
    .attribute(
        Attribute::optional(
            "duration",
            Type::String,
            "How long the budget stays active after each schedule hit, e.g. `8h` or `1h30m`. Set with `schedule`.",
        )
        .validate(checks::string("Hours and minutes.", validate::budget_duration)),
    )
    .attribute(
        Attribute::optional(
            "reasons",
            Type::list(Type::String),
            "Disruption reasons the budget limits: `Underutilized`, `Empty`, `Drifted`. Default: all.",
        )
        .validate(validators::each(validators::one_of(&[
            "Underutilized",
            "Empty",
            "Drifted",
        ])))
        .validate(validators::distinct()),
    )
}

fn managed_node_group_block() -> Block {
    Block::new(
        "For `capacity = \"managed_node_group\"`: an EKS managed node group named `<cluster_name>-<pool name>`. \
         Labels, taints, scaling and update settings change in place; instance types, capacity type, AMI type, \
         subnets and node role need a new node group, which the provider creates after deleting the old one \
         (the plan warns). The desired size is set at creation; later changes by autoscalers are not drift.",
    )
    .attribute(Attribute::required("node_role_arn", Type::String, "IAM role ARN of the nodes."))
    .attribute(
        Attribute::required("subnet_ids", Type::list(Type::String), "Subnets of the nodes (they decide the zones).")
            .validate(validators::distinct()),
    )
    .attribute(Attribute::optional(
        "ami_type",
        Type::String,
        "EKS AMI type. Default `AL2023_x86_64_NVIDIA`, or `AL2023_ARM_64_NVIDIA` for arm64 GPUs (EKSGPU013).",
    ))
    .attribute(
        Attribute::optional(
            "release_version",
            Type::String,
            "AMI release of the nodes, e.g. `1.34.0-20260801` (AL2023) or `1.42.0-4f5d8ea2` (Bottlerocket). Default: the \
             latest at creation, then kept (not drift). A change rolls the nodes to it in place (`UpdateNodegroupVersion`).",
        )
        .validate(checks::string("An EKS AMI release version.", validate::node_group_release_version)),
    )
    .attribute(
        Attribute::optional(
            "disk_size",
            Type::Number,
            "Root disk of each node in GiB (the node group has no launch template). Default EKS's 20 GiB, which inference \
             images outgrow (EKSGPU123). A change replaces the node group.",
        )
        // EKS API CreateNodegroup diskSize (Integer, GiB); EBS gp2/gp3 volumes hold at most 16384 GiB.
        .validate(validators::integer(1, 16_384, "node group `diskSize`, GiB")),
    )
    .block(NestedBlock::optional_one(
        "node_repair_config",
        Block::new("EKS node auto repair: EKS replaces or reboots nodes it finds unhealthy, GPU failures included (`nodeRepairConfig`).")
            .attribute(Attribute::required("enabled", Type::Bool, "Turn node auto repair on or off.")),
    ))
    .block(NestedBlock::optional_one(
        "scaling",
        Block::new("Node group size (required).")
            // EKS API NodegroupScalingConfig: minSize ≥ 0, maxSize ≥ 1, desiredSize ≥ 0 (Integer).
            .attribute(Attribute::required("min", Type::Number, "Fewest nodes.").validate(validators::int32(0, i32::MAX, "node group `minSize`")))
            .attribute(Attribute::required("max", Type::Number, "Most nodes.").validate(validators::int32(1, i32::MAX, "node group `maxSize`")))
            .attribute(
                Attribute::required(
                    "desired",
                    Type::Number,
                    "Nodes at creation. Autoscaler changes are not drift; a new value applies only when the node group is created.",
                )
                .validate(validators::int32(0, i32::MAX, "node group `desiredSize`")),
            ),
    ))
    .block(NestedBlock::optional_one(
        "update",
        Block::new("How node updates roll.")
            .attribute(
                Attribute::optional("max_unavailable", Type::Number, "Most nodes updated at once (1–100). Not with `max_unavailable_percentage` (EKSGPU117).")
                    // EKS API NodegroupUpdateConfig.maxUnavailable: 1–100.
                    .validate(validators::integer(1, 100, "node group `updateConfig.maxUnavailable`")),
            )
            .attribute(
                Attribute::optional(
                    "max_unavailable_percentage",
                    Type::Number,
                    "Most nodes updated at once, as a percentage of the node group (1–100). Not with `max_unavailable` (EKSGPU117).",
                )
                // EKS API NodegroupUpdateConfig.maxUnavailablePercentage: 1–100.
                .validate(validators::integer(1, 100, "node group `updateConfig.maxUnavailablePercentage`")),
            ),
    ))
}

fn hybrid_block() -> Block {
    Block::new(
        "For `capacity = \"hybrid\"`: the cluster's remote networks (`remoteNetworkConfig`, which this pool owns) \
         and a `HYBRID_LINUX` access entry for the nodes' role. CIDRs are checked against each other at plan \
         and against the cluster's VPC and service CIDRs at apply, before any change (EKSGPU007).",
    )
    .attribute(Attribute::required(
        "remote_node_networks",
        Type::list(Type::String),
        "CIDRs of the on-prem nodes (RFC 1918, /8–/32, at most 15).",
    ))
    .attribute(Attribute::optional(
        "remote_pod_networks",
        Type::list(Type::String),
        "CIDRs of the pods on hybrid nodes, needed when the CNI does not SNAT pod traffic or webhooks run there.",
    ))
    .attribute(Attribute::required(
        "node_role_arn",
        Type::String,
        "IAM role the hybrid nodes use (SSM or IAM Roles Anywhere).",
    ))
}

fn timeouts_block() -> Block {
    Block::new(
        "How long to wait for AWS-side pools (node groups, cluster updates), as durations like `30m` or `1h30m`.",
    )
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

/// Karpenter's selector terms refuse empty tag keys and values (EC2NodeClass
/// CRD CEL rules on `subnetSelectorTerms` / `securityGroupSelectorTerms`, v1.14.1).
fn non_empty(what: &'static str) -> Result<(), String> {
    Err(format!("an empty {what} selects nothing: Karpenter refuses it"))
}

/// Version 1: `labels` of a pool default to `{}` (version 0 stored null).
/// Version 2: a pool's `efa` defaults to `false` (earlier versions had none).
pub fn schema() -> Schema {
    let mut schema = schema_v();
    schema.version = 2;
    schema
}

fn schema_v() -> Schema {
    Schema::new(
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
            .validate(checks::version("Kubernetes")),
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
        .attribute(Attribute::computed(
            "gpu_operator_values_yaml",
            Type::String,
            "Helm values for `nvidia/gpu-operator` that fit the pools (null without a `gpu_operator` block).",
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
        .block(NestedBlock::list("pool", pool_block()).min_items(1))
        .block(NestedBlock::optional_one("timeouts", timeouts_block())),
    )
}

/// What declared validators cannot say: a managed node group needs its `scaling` block.
pub(super) fn validate(config: &Value, diags: &mut Diagnostics) {
    for (i, pool) in config.get("pool").elements().iter().enumerate() {
        let mng = one(pool.get("managed_node_group"));
        if matches!(mng, Value::Object(_)) && matches!(mng.get("scaling"), Value::List(l) if l.is_empty()) {
            diags.error_at(
                AttributePath::attr("pool").index(i).attribute("managed_node_group"),
                "Missing scaling block",
                "A managed node group needs `scaling { min, max, desired }`.",
            );
        }
    }
}

/// The schema, built once per process: plans consult it for every resource.
pub(crate) fn cached() -> &'static Schema {
    static SCHEMA: std::sync::LazyLock<Schema> = std::sync::LazyLock::new(schema);
    &SCHEMA
}
