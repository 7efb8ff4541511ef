//! The inputs of a pool (an entry of `pools`). Sources: karpenter.sh/v1 NodePool (kubernetes-sigs/karpenter
//! v1.14.1 CRD `pkg/apis/crds/karpenter.sh_nodepools.yaml`), the EKS API reference
//! (`CreateNodegroup`, `TagResource`).

use super::engine::{Decl, Object::NodePool, at};
use super::node_class::NODE_CLASS_BLOCK;
use super::node_group::{HYBRID_BLOCK, MANAGED_NODE_GROUP_BLOCK};
use super::{
    AWS_API, Attr, Check, IN_CLUSTER, KindCheck, List, Lit, NODE_GROUP, One, ReadBack, Ty, attr, lens, setting,
};
use crate::catalog::labels::REQUIREMENT_OPERATORS;
use crate::model::{Budget, Capacity, Disruption, NodeOverlay, Pool, Requirement, Taint};
use crate::node_strategy::outputs::Output;
use crate::rules::Code;
use crate::validate;

/// The kinds whose nodes are EC2 instances.
const EC2: &[Capacity] = &[Capacity::AutoMode, Capacity::Karpenter, Capacity::ManagedNodeGroup];

const CAPACITY: Attr<Pool> = attr(
    "capacity",
    Ty::String,
    "Capacity kind: `auto_mode` or `karpenter` (in-cluster objects), `managed_node_group` or `hybrid` (EKS API).",
    lens!(Pool, capacity),
)
.required()
.feeds(&[
    Output::NodeSelector,
    Output::MatchedInstanceTypes,
    Output::GpuOperatorValues,
    Output::NeuronValues,
    Output::DraDriverValues,
    Output::DevicePluginValues,
])
.checks(&[Check::Coded(
    Code::EKSGPU156,
    "A capacity kind (EKSGPU156 for self-managed node groups).",
    validate::capacity_kind,
)])
.custom();

const INSTANCE_TYPES: Attr<Pool> = attr(
    "instance_types",
    Ty::StringList,
    "EC2 instance types, validated against the GPU catalog (EKSGPU016). Required except on `hybrid` pools \
     (on-prem machines) and on `karpenter` / `auto_mode` pools whose `requirements` select instances, \
     EKSGPU115. For a node group, changing them replaces the node group.",
    lens!(Pool, instance_types),
)
// The vendor (accelerator, default taint, device resource) comes from the instance types.
.feeds(&[
    Output::Tolerations,
    Output::Accelerator,
    Output::GpuResourceName,
    Output::MatchedInstanceTypes,
    Output::GpuOperatorValues,
    Output::NeuronValues,
    Output::DraDriverValues,
    Output::DevicePluginValues,
])
// Hybrid nodes are on-prem machines: no EC2 instance type (EKS Hybrid Nodes).
.only(EC2, Code::EKSGPU115)
// A NodePool requirement on `node.kubernetes.io/instance-type` (rendered by hand); EKS API
// CreateNodegroup `instanceTypes`.
.renders(&[at(crate::node_strategy::inputs::Object::NodeGroup, &["instanceTypes"])])
.custom();

const CAPACITY_TYPES: Attr<Pool> = attr(
    "capacity_types",
    Ty::StringList,
    "`on-demand`, `spot`, `reserved` (Karpenter, Auto Mode). A managed node group takes one: `on-demand` \
     (`ON_DEMAND`) or `spot` (`SPOT`). Default on-demand.",
    lens!(Pool, capacity_types),
)
.custom();

const ZONES: Attr<Pool> = attr(
    "zones",
    Ty::StringList,
    "Availability zones. Default: any.",
    lens!(Pool, zones),
)
.checks(&[
    Check::Each("Availability zone names.", validate::availability_zone),
    Check::Distinct,
])
.only(IN_CLUSTER, Code::EKSGPU115)
.custom();

const GPU_LIMIT: Attr<Pool> = attr(
    "gpu_limit",
    Ty::Number,
    "Most accelerators the pool may hold: NodePool `limits[\"nvidia.com/gpu\"]` (whole GPUs) on NVIDIA pools, \
     `limits[\"aws.amazon.com/neuron\"]` on Neuron pools, counting Neuron devices (chips), not NeuronCores \
     (`aws.amazon.com/neuroncore`, devices x cores per device).",
    lens!(Pool, gpu_limit),
)
// A resource quantity; whole devices, and a count no fleet reaches keeps arithmetic on it exact.
.checks(&[Check::Int(
    0,
    1 << 31,
    "NodePool `limits` of the pool's accelerator, whole devices",
)])
.only(IN_CLUSTER, Code::EKSGPU115)
// The limit's key is the vendor's device resource (karpenter-provider-aws v1.14.1
// pkg/apis/v1/labels.go ResourceNVIDIAGPU, ResourceAWSNeuron): rendered by hand (render/karpenter.rs).
.custom();

const CPU_LIMIT: Attr<Pool> = attr(
    "cpu_limit",
    Ty::String,
    "Most CPU the pool may hold: NodePool `limits.cpu`, a quantity such as `1000` or `1500m`.",
    lens!(Pool, cpu_limit),
)
.checks(&[Check::Str("A Kubernetes quantity.", validate::quantity)])
.only(IN_CLUSTER, Code::EKSGPU115)
// Quantities are int-or-string in the CRD; strings keep the user's spelling (`4000Gi`).
.renders(&[at(NodePool, &["spec", "limits", "cpu"])]);

const MEMORY_LIMIT: Attr<Pool> = attr(
    "memory_limit",
    Ty::String,
    "Most memory the pool may hold: NodePool `limits.memory`, a quantity such as `4000Gi`.",
    lens!(Pool, memory_limit),
)
.checks(&[Check::Str("A Kubernetes quantity.", validate::quantity)])
.only(IN_CLUSTER, Code::EKSGPU115)
.renders(&[at(NodePool, &["spec", "limits", "memory"])]);

const WEIGHT: Attr<Pool> = attr(
    "weight",
    Ty::Number,
    "NodePool `weight`: pools of higher weight are tried first (e.g. reserved or Capacity Block pools before on-demand). Default: none (0).",
    lens!(Pool, weight),
)
// karpenter.sh/v1 NodePool spec.weight: int32, minimum 1, maximum 100 (v1.14.1 CRD).
.checks(&[Check::Int32(1, 100, "NodePool `weight`")])
.only(IN_CLUSTER, Code::EKSGPU115)
.renders(&[at(NodePool, &["spec", "weight"])]);

const REPLICAS: Attr<Pool> = attr(
    "replicas",
    Ty::Number,
    "A static NodePool of this many nodes: NodePool `spec.replicas` (Karpenter 1.8+ with the `staticCapacity` \
     gate in the provider's `karpenter_feature_gates`; Auto Mode needs no gate). Karpenter keeps the count \
     whatever pods ask for; only `node_limit` may limit the pool (EKSGPU160), no `weight` (EKSGPU161), and \
     `disruption` consolidation is ignored (EKSGPU162). Setting or removing it on an existing pool replaces the \
     NodePool (the CRD refuses the change in place; the plan warns and apply drains the old nodes). A scale by \
     someone else (`kubectl scale nodepool`) is drift: the plan shows it and apply restores this count (with \
     `force_conflicts = true`, since the scale takes the field over). Default: none (a dynamic NodePool).",
    lens!(Pool, replicas),
)
// karpenter.sh/v1 NodePool spec.replicas: int64, minimum 0 (kubernetes-sigs/karpenter v1.8.0
// pkg/apis/v1/nodepool.go; karpenter-provider-aws v1.14.1 CRD).
.checks(&[Check::Int(0, 1 << 31, "NodePool `spec.replicas`, nodes")])
.only(IN_CLUSTER, Code::EKSGPU115)
.renders(&[at(NodePool, &["spec", "replicas"])]);

const NODE_LIMIT: Attr<Pool> = attr(
    "node_limit",
    Ty::Number,
    "Most nodes the pool may hold: NodePool `limits.nodes` (Karpenter 1.8+). The one limit a static pool \
     (`replicas`) takes; keep it above `replicas` so drifted nodes can be replaced before they go (EKSGPU163).",
    lens!(Pool, node_limit),
)
// limits is a map of resource quantities; `nodes` counts NodeClaims (kubernetes-sigs/karpenter
// v1.8.0, the static capacity change; karpenter-provider-aws v1.14.1 CRD, spec.limits).
.checks(&[Check::Int(0, 1 << 31, "NodePool `limits.nodes`, nodes")])
.only(IN_CLUSTER, Code::EKSGPU115)
.renders(&[at(NodePool, &["spec", "limits", "nodes"])]);

const EXPIRE_AFTER: Attr<Pool> = attr(
    "expire_after",
    Ty::String,
    "NodePool `template.spec.expireAfter`: how long a node lives before Karpenter replaces it, e.g. `336h`, or `Never`. Default Karpenter's `720h`.",
    lens!(Pool, expire_after),
)
// Pattern `^(([0-9]+(s|m|h))+|Never)$`, default 720h; on the template in v1.
.checks(&[Check::Str("A Karpenter duration or `Never`.", validate::karpenter_duration)])
.only(IN_CLUSTER, Code::EKSGPU115)
.renders(&[at(NodePool, &["spec", "template", "spec", "expireAfter"])]);

const LABELS: Attr<Pool> = attr(
    "labels",
    Ty::StringMap,
    "Node labels. Merge a sharing pool's `node_labels` here. The GPU stack's labels (`nvidia.com/mig.config`, \
     `nvidia.com/device-plugin.config`, `gpu=on`, `nvidia.com/gpu.deploy.*`) are validated against the capacity kind. \
     Default `{}`.",
    lens!(Pool, labels),
)
// `nvidia.com/mig.config` picks the MIG resource name and MIG Manager; the sharing config label
// the device plugin's config.
.feeds(&[
    Output::GpuResourceName,
    Output::GpuOperatorValues,
    Output::DraDriverValues,
    Output::DevicePluginValues,
])
.default(Lit::EmptyMap)
.checks(&[
    Check::Keys("Kubernetes label keys.", validate::label_key),
    Check::Each("Kubernetes label values.", validate::label_value),
])
// EKS API CreateNodegroup `labels`: keys and values 1–63 characters.
.on_kinds(&[
    KindCheck {
        kinds: NODE_GROUP,
        code: Code::EKSGPU117,
        check: Check::Keys("EKS label keys.", validate::eks_label_key),
    },
    KindCheck {
        kinds: NODE_GROUP,
        code: Code::EKSGPU117,
        check: Check::Each("EKS label values.", validate::eks_label_value),
    },
])
// Merged with the labels the GPU stack needs (render::effective_labels).
.custom();

const GPU_TAINT: Attr<Pool> = attr(
    "gpu_taint",
    Ty::Bool,
    "Add the taint `nvidia.com/gpu=true:NoSchedule` (Neuron pools: `aws.amazon.com/neuron:NoSchedule`) unless a \
     `taints` entry on that key is given. Default `true`.",
    lens!(Pool, gpu_taint),
)
.feeds(&[
    Output::Tolerations,
    Output::GpuOperatorValues,
    Output::NeuronValues,
    Output::DraDriverValues,
    Output::DevicePluginValues,
])
.default(Lit::Bool(true))
.custom();

const ADOPT: Attr<Pool> = attr(
    "adopt",
    Ty::Bool,
    "Take over this pool's existing objects (NodePool and node class by the pool's name, node group \
     `<cluster_name>-<name>`) although another strategy, another tool or nobody owns them: apply \
     relabels them as this strategy's and takes over their fields. Without it, apply refuses to touch \
     an object that is not the strategy's own and names its owner. Default `false` (unset: states \
     written before it existed plan no change).",
    // A setting of the apply, read from the plan; unset reads as `false`.
    setting(),
)
.keep_prior();

const DRA: Attr<Pool> = attr(
    "dra",
    Ty::Bool,
    "The pool serves DRA ResourceClaims: the GPU Operator's device plugin is kept off its nodes (not on a \
     `multi_node_nvlink` pool, whose GPUs the device plugin keeps serving while the DRA driver serves its \
     ComputeDomain). Default `false`.",
    lens!(Pool, dra),
)
.feeds(&[
    Output::GpuResourceName,
    Output::NeuronValues,
    Output::DraDriverValues,
    Output::DevicePluginValues,
])
.default(Lit::Bool(false))
// Recorded in the NodePool's pool annotation and the node group's tags (read there).
.custom();

const EFA: Attr<Pool> = attr(
    "efa",
    Ty::Bool,
    "The pool runs multi-node training over EFA: its instance types must have EFA interfaces (EKSGPU126) and its \
     nodes should stay in one zone (EKSGPU127). Karpenter and Auto Mode attach EFA interfaces to nodes launched \
     for pods that request `vpc.amazonaws.com/efa` (install the EFA device plugin); a `managed_node_group` pool \
     gets them from the launch template the provider creates for it (the EFA layout of its instance types, or \
     its `network_interfaces`), and reads `efa` back from that template. In-cluster pools: not read back by \
     `terraform import`. Default `false`.",
    lens!(Pool, efa),
)
.default(Lit::Bool(false))
// Rules read it; no object carries it.
.keep_prior();

const MULTI_NODE_NVLINK: Attr<Pool> = attr(
    "multi_node_nvlink",
    Ty::Bool,
    "Workloads of this pool span nodes over NVLink (GB200-class UltraServers, `p6e-gb200`): the provider renders \
     and applies a DRA `ComputeDomain` (`resource.nvidia.com/v1beta1`, NVIDIA DRA driver) for the pool, whose \
     ResourceClaimTemplate (`compute_domain_claim_template`) a workload's pods claim the IMEX channel with. Needs \
     `dra = true` (EKSGPU185) and GB200-class instance types (EKSGPU186). `terraform import` reads it (and \
     `compute_domain_namespace`) back from the pool's ComputeDomain. Default `false`.",
    lens!(Pool, multi_node_nvlink),
)
.default(Lit::Bool(false))
// Its GPUs stay the device plugin's (`nvidia.com/gpu`) although the pool is `dra`.
.feeds(&[
    Output::GpuResourceName,
    Output::ComputeDomainClaimTemplate,
    Output::CliqueTopologyKey,
    Output::DraDriverValues,
    Output::DevicePluginValues,
])
// No NodePool or node group field carries it: the ComputeDomain it makes is its own object, read
// back for drift beside the pool (render/compute_domain.rs).
.keep_prior();

const COMPUTE_DOMAIN_NAMESPACE: Attr<Pool> = attr(
    "compute_domain_namespace",
    Ty::String,
    "Namespace of the pool's `ComputeDomain`, where the DRA driver creates its ResourceClaimTemplate: a pod can \
     only claim a template of its own namespace, so this is the workloads' namespace (it must exist). Only with \
     `multi_node_nvlink` (EKSGPU187). Default `default`.",
    lens!(Pool, compute_domain_namespace),
)
.checks(&[Check::Str("A Kubernetes namespace name.", validate::namespace_name)])
// The ComputeDomain's metadata.namespace (render/compute_domain.rs).
.keep_prior();

const TAGS: Attr<Pool> = attr(
    "tags",
    Ty::StringMap,
    "Tags on the pool's AWS objects (the node group of a `managed_node_group` pool, the access entry of a \
     `hybrid` pool), over the provider's `default_tags`. The provider's identifying tags \
     (`app.kubernetes.io/managed-by`, `eksgpu.terraform.io/*`) cannot be set (EKSGPU125). In-cluster pools \
     tag what Karpenter launches with `node_class.tags` (EKSGPU115).",
    lens!(Pool, tags),
)
.checks(&[
    Check::Keys("EKS tag keys.", validate::aws_tag_key),
    Check::Each("EKS tag values.", validate::aws_tag_value),
])
.only(AWS_API, Code::EKSGPU115)
// Merged with `default_tags` and the provider's own (eks::pool_tags).
.custom();

const TERMINATION_GRACE_PERIOD: Attr<Pool> = attr(
    "termination_grace_period",
    Ty::String,
    "NodePool `template.spec.terminationGracePeriod`: how long Karpenter waits for a node's pods to drain before it \
     deletes them (past PDBs and `karpenter.sh/do-not-disrupt`), e.g. `24h` for long training steps. Default: no limit.",
    lens!(Pool, termination_grace_period),
)
// Pattern `^([0-9]+(s|m|h))+$` (no `Never`), on the template (karpenter.sh/v1 NodePool v1.14.1 CRD).
.checks(&[Check::Str(
    "A duration such as `30s`, `10m` or `24h`.",
    validate::termination_grace_period,
)])
.only(IN_CLUSTER, Code::EKSGPU115)
.renders(&[at(NodePool, &["spec", "template", "spec", "terminationGracePeriod"])]);

/// What requirements feed: the types they match, and (on a pool they select the instances of
/// alone) the vendor those types have, which the taint, resource and chart values follow.
const REQUIREMENT_FEEDS: &[Output] = &[
    Output::MatchedInstanceTypes,
    Output::Tolerations,
    Output::Accelerator,
    Output::GpuResourceName,
    Output::GpuOperatorValues,
    Output::NeuronValues,
    Output::DraDriverValues,
];

const REQUIREMENT_KEY: Attr<Requirement> = attr(
    "key",
    Ty::String,
    "Node label the requirement is on: a Karpenter well-known label such as `karpenter.k8s.aws/instance-category`, \
     `karpenter.k8s.aws/instance-generation`, `karpenter.k8s.aws/instance-gpu-manufacturer`, \
     `karpenter.k8s.aws/instance-gpu-count`, `karpenter.k8s.aws/instance-gpu-memory`, `kubernetes.io/arch`, or a \
     custom label. Restricted labels (`karpenter.sh/nodepool`, `kubernetes.io/hostname`, other `karpenter.sh` and \
     `karpenter.k8s.aws` labels) are refused (EKSGPU170).",
    lens!(Requirement, key),
)
.feeds(REQUIREMENT_FEEDS)
.required()
// `requirements[].key`: a qualified name (pattern, maxLength 316), CEL rules on its domain.
.checks(&[Check::Str("A label key.", validate::label_key)]);

const REQUIREMENT_OPERATOR: Attr<Requirement> = attr(
    "operator",
    Ty::String,
    "`In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt` (and `Gte`, `Lte`). `In` needs values; `Exists` and \
     `DoesNotExist` take none; `Gt`, `Lt`, `Gte`, `Lte` take one whole number (EKSGPU170).",
    lens!(Requirement, operator),
)
.feeds(REQUIREMENT_FEEDS)
.required()
// `requirements[].operator` enum (karpenter.sh/v1 NodePool v1.14.1 CRD).
.checks(&[Check::OneOf(&REQUIREMENT_OPERATORS)]);

const REQUIREMENT_VALUES: Attr<Requirement> = attr(
    "values",
    Ty::StringList,
    "Label values (each a label value, at most 63 characters).",
    lens!(Requirement, values),
)
.feeds(REQUIREMENT_FEEDS)
// `requirements[].values[]`: maxLength 63, pattern `^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`.
.checks(&[Check::Each("Label values.", validate::label_value)]);

/// NodePool `spec.template.spec.requirements[]` as written, after the provider's own (instance
/// types, capacity types, zones): rendered and read back next to the NodePool renderer.
pub const REQUIREMENT: List<Pool, Requirement> = List {
    name: "requirements",
    doc: "A NodePool requirement on a node label, rendered as written: select instances by well-known labels \
          (`karpenter.k8s.aws/instance-category In [g, p]`, `karpenter.k8s.aws/instance-generation Gt 4`, \
          `karpenter.k8s.aws/instance-gpu-manufacturer In [nvidia]`) so Karpenter picks new types and sizes as they \
          appear; `instance_types` is then optional. The rules run on every catalog type the requirements match \
          (`matched_instance_types`), and refuse requirements that match none (EKSGPU172). Use `capacity_types`, \
          `instance_types` and `zones` for `In` on their labels (EKSGPU171).",
    kinds: super::Kinds::Only(IN_CLUSTER, Code::EKSGPU115),
    min_items: None,
    // NodePool requirements: maxItems 100 (validate::NODE_POOL_REQUIREMENTS_MAX). The pool's own
    // alone may reach it; EKSGPU141 counts them with those the provider renders.
    max_items: Some(crate::validate::NODE_POOL_REQUIREMENTS_MAX as i64),
    renders: &[],
    read_back: ReadBack::Custom,
    children: &[&REQUIREMENT_KEY, &REQUIREMENT_OPERATOR, &REQUIREMENT_VALUES],
    get: |p| &p.requirements,
    put: |p, r| p.requirements = r,
};

const TAINT_KEY: Attr<Taint> = attr("key", Ty::String, "Taint key.", lens!(Taint, key))
    .feeds(&[
        Output::Tolerations,
        Output::GpuOperatorValues,
        Output::NeuronValues,
        Output::DraDriverValues,
        Output::DevicePluginValues,
    ])
    .required()
    .checks(&[Check::Str("A taint key (a label key).", validate::taint_key)])
    // EKS API CreateNodegroup `Taint.key`: 1–63 characters.
    .on_kinds(&[KindCheck {
        kinds: NODE_GROUP,
        code: Code::EKSGPU117,
        check: Check::Str("An EKS taint key.", validate::eks_taint_key),
    }]);

const TAINT_VALUE: Attr<Taint> = attr(
    "value",
    Ty::String,
    "Taint value (empty means none).",
    super::Lens {
        get: |t: &Taint| super::value::FieldValue::to_json(&t.value),
        // An empty taint value is legal and means "no value" (Kubernetes core/v1 Taint).
        set: |t: &mut Taint, v: &super::Json| {
            t.value = super::value::FieldValue::from_json(v).map(|v: Option<String>| v.filter(|v| !v.is_empty()))?;
            Ok(())
        },
    },
)
// Tolerations of the charts' DaemonSets are `Exists`: the value is the pods' only.
.feeds(&[Output::Tolerations])
.checks(&[Check::Str(
    "A taint value (a label value, may be empty).",
    validate::taint_value,
)])
// EKS API CreateNodegroup `Taint.value`: at most 63 characters.
.on_kinds(&[KindCheck {
    kinds: NODE_GROUP,
    code: Code::EKSGPU117,
    check: Check::Str("An EKS taint value.", validate::eks_taint_value),
}]);

const TAINT_EFFECT: Attr<Taint> = attr(
    "effect",
    Ty::String,
    "`NoSchedule`, `PreferNoSchedule` or `NoExecute`.",
    lens!(Taint, effect),
)
.feeds(&[
    Output::Tolerations,
    Output::GpuOperatorValues,
    Output::NeuronValues,
    Output::DraDriverValues,
    Output::DevicePluginValues,
])
.required()
.checks(&[Check::Str("A taint effect.", validate::taint_effect)]);

const TAINT: List<Pool, Taint> = List {
    name: "taints",
    doc: "A node taint, in Kubernetes spelling.",
    kinds: super::Kinds::All,
    min_items: None,
    max_items: None,
    // Merged with the default GPU taint (render::effective_taints).
    renders: &[],
    read_back: ReadBack::Custom,
    children: &[&TAINT_KEY, &TAINT_VALUE, &TAINT_EFFECT],
    get: |p| &p.taints,
    put: |p, t| p.taints = t,
};

const CONSOLIDATION_POLICY: Attr<Disruption> = attr(
    "consolidation_policy",
    Ty::String,
    "`WhenEmpty`, `WhenEmptyOrUnderutilized`, or `Balanced` (Karpenter 1.14+). EKSGPU005.",
    lens!(Disruption, consolidation_policy),
)
.renders(&[at(NodePool, &["consolidationPolicy"])]);

const CONSOLIDATE_AFTER: Attr<Disruption> = attr(
    "consolidate_after",
    Ty::String,
    "Duration such as `5m`, or `Never`. Default `0s`.",
    lens!(Disruption, consolidate_after),
)
.checks(&[Check::Str(
    "A Karpenter duration or `Never`.",
    validate::karpenter_duration,
)])
// consolidateAfter is required whenever disruption is written (Karpenter v1 CRD).
.renders(&[at(NodePool, &["consolidateAfter"])])
.unset(Lit::Str("0s"));

const BUDGET_NODES: Attr<Budget> = attr(
    "nodes",
    Ty::String,
    "Node count (`\"0\"`, `\"2\"`) or percentage (`\"10%\"`).",
    lens!(Budget, nodes),
)
.required()
// A string in the CRD (`"0"`, `"10%"`, pattern `^((100|[0-9]{1,2})%|[0-9]+)$`).
.checks(&[Check::Str(
    "A node count or a percentage up to 100%.",
    validate::budget_nodes,
)])
.renders(&[at(NodePool, &["nodes"])]);

const BUDGET_SCHEDULE: Attr<Budget> = attr(
    "schedule",
    Ty::String,
    "Cron schedule (UTC) when the budget becomes active, e.g. `0 9 * * 1-5` or `@daily`. Set with `duration`.",
    lens!(Budget, schedule),
)
.checks(&[Check::Str("A cron schedule.", validate::budget_schedule)])
// `schedule` and `duration` come together (CEL rule on budgets[]).
.renders(&[at(NodePool, &["schedule"])]);

const BUDGET_DURATION: Attr<Budget> = attr(
    "duration",
    Ty::String,
    "How long the budget stays active after each schedule hit, e.g. `8h` or `1h30m`. Set with `schedule`.",
    lens!(Budget, duration),
)
.checks(&[Check::Str("Hours and minutes.", validate::budget_duration)])
.renders(&[at(NodePool, &["duration"])]);

const BUDGET_REASONS: Attr<Budget> = attr(
    "reasons",
    Ty::StringList,
    "Disruption reasons the budget limits: `Underutilized`, `Empty`, `Drifted`. Default: all.",
    lens!(Budget, reasons),
)
.checks(&[
    Check::EachOneOf(&["Underutilized", "Empty", "Drifted"]),
    Check::Distinct,
])
.renders(&[at(NodePool, &["reasons"])]);

/// One NodePool disruption budget (karpenter.sh/v1 `spec.disruption.budgets[]`, v1.14.1 CRD).
const BUDGET: List<Disruption, Budget> = List {
    name: "budgets",
    doc: "A disruption budget: at most `nodes` of the pool's nodes are disrupted at once, always or in a cron window. \
          Without any, Karpenter's default of one `10%` budget applies. Training pools often set `nodes = \"0\"` in \
          working hours.",
    kinds: super::Kinds::All,
    min_items: None,
    // karpenter.sh/v1 NodePool spec.disruption.budgets: maxItems 50.
    max_items: Some(50),
    renders: &[at(NodePool, &["budgets"])],
    read_back: ReadBack::Live,
    children: &[&BUDGET_NODES, &BUDGET_SCHEDULE, &BUDGET_DURATION, &BUDGET_REASONS],
    get: |d| &d.budgets,
    put: |d, b| d.budgets = b,
};

const DISRUPTION: One<Pool, Disruption> = One {
    name: "disruption",
    doc: "Karpenter v1 disruption settings.",
    kinds: super::Kinds::Only(IN_CLUSTER, Code::EKSGPU115),
    renders: &[at(NodePool, &["spec", "disruption"])],
    read_back: ReadBack::Live,
    children: &[&CONSOLIDATION_POLICY, &CONSOLIDATE_AFTER, &BUDGET],
    get: |p| p.disruption.as_ref(),
    put: |p, d| {
        p.disruption = d;
        Ok(())
    },
};

const NODE_CLASS_REF: Attr<Pool> = attr(
    "node_class_ref",
    Ty::String,
    "The node class the pool's NodePool uses when the pool renders none: the `node_class.name` of another pool, or \
     a node class another tool writes (`karpenter`: an EC2NodeClass, `auto_mode`: a NodeClass). The pool never \
     writes or deletes it. Not with `node_class` (EKSGPU166).",
    lens!(Pool, node_class_ref),
)
.checks(&[Check::Str("A Kubernetes object name.", validate::object_name)])
.only(IN_CLUSTER, Code::EKSGPU115)
// NodePool `spec.template.spec.nodeClassRef.name` (render/karpenter.rs), read back from it.
.custom();

const OVERLAY_NAME: Attr<NodeOverlay> = attr("name", Ty::String, "The NodeOverlay's name.", lens!(NodeOverlay, name))
    .required()
    .checks(&[Check::Str("A Kubernetes object name.", validate::object_name)])
    // metadata.name (render/node_overlay.rs).
    .custom();

const OVERLAY_WEIGHT: Attr<NodeOverlay> = attr(
    "weight",
    Ty::Number,
    "Precedence among overlays matching the same instance type (higher wins), 1–10000.",
    lens!(NodeOverlay, weight),
)
// karpenter.sh/v1alpha1 NodeOverlay spec.weight: int32, 1–10000 (v1.14.1 CRD).
.checks(&[Check::Int32(1, 10_000, "NodeOverlay `weight`")])
.custom();

const OVERLAY_CAPACITY: Attr<NodeOverlay> = attr(
    "capacity",
    Ty::StringMap,
    "Extended resources the matching instance types advertise, e.g. `{\"nvidia.com/gpu\" = \"1\"}` (never `cpu`, \
     `memory`, `ephemeral-storage` or `pods`).",
    lens!(NodeOverlay, capacity),
)
// An overlay that gives fractional types `nvidia.com/gpu` makes them schedulable GPU types.
.feeds(&[Output::MatchedInstanceTypes])
.checks(&[
    Check::Keys("Extended resource names.", validate::overlay_capacity_resource),
    Check::Each("Kubernetes quantities.", validate::quantity),
])
.custom();

const OVERLAY_PRICE: Attr<NodeOverlay> = attr(
    "price",
    Ty::String,
    "An absolute price for the matching types (`\"5.00\"`); not with `price_adjustment` (EKSGPU168).",
    lens!(NodeOverlay, price),
)
.checks(&[Check::Str("A NodeOverlay price.", validate::overlay_price)])
.custom();

const OVERLAY_PRICE_ADJUSTMENT: Attr<NodeOverlay> = attr(
    "price_adjustment",
    Ty::String,
    "A price change for the matching types: `+0.5`, `-10%`.",
    lens!(NodeOverlay, price_adjustment),
)
.checks(&[Check::Str(
    "A NodeOverlay price adjustment.",
    validate::overlay_price_adjustment,
)])
.custom();

/// One overlay requirement: the NodePool requirement's fields, declared again for their own list.
const OVERLAY_REQUIREMENT: List<NodeOverlay, Requirement> = List {
    name: "requirements",
    doc: "Which instance types the overlay applies to, in NodePool requirement syntax (an empty list: every type).",
    kinds: super::Kinds::All,
    min_items: None,
    // karpenter.sh/v1alpha1 NodeOverlay spec.requirements: maxItems 100.
    max_items: Some(100),
    renders: &[],
    read_back: ReadBack::Custom,
    children: &[&REQUIREMENT_KEY, &REQUIREMENT_OPERATOR, &REQUIREMENT_VALUES],
    get: |o| &o.requirements,
    put: |o, r| o.requirements = r,
};

/// The fields of one `node_overlays` entry (rendered by hand in render/node_overlay.rs).
pub const NODE_OVERLAY_FIELDS: &[&dyn Decl<NodeOverlay>] = &[
    &OVERLAY_NAME,
    &OVERLAY_WEIGHT,
    &OVERLAY_REQUIREMENT,
    &OVERLAY_CAPACITY,
    &OVERLAY_PRICE,
    &OVERLAY_PRICE_ADJUSTMENT,
];

/// NodeOverlays written by hand (karpenter.sh/v1alpha1 NodeOverlay, Karpenter 1.7+ with its
/// `nodeOverlay` gate; aws/karpenter-provider-aws v1.14.1 `pkg/apis/crds/karpenter.sh_nodeoverlays.yaml`).
const NODE_OVERLAYS: List<Pool, NodeOverlay> = List {
    name: "node_overlays",
    doc: "A Karpenter NodeOverlay the pool writes as given, beside those the provider derives from sharing labels: \
          tell Karpenter what instance types advertise that EC2 does not report, e.g. `nvidia.com/gpu` on fractional \
          g6f types (EC2 counts their GPU as 0) or the time-sliced GPU count Bottlerocket user data configures. An \
          overlay applies to every NodePool its requirements match, unless one is on `karpenter.sh/nodepool`. Needs \
          the `nodeOverlay` gate in `karpenter_feature_gates`, names unique in the strategy (EKSGPU168). Karpenter \
          only (EKSGPU115).",
    kinds: super::Kinds::Only(super::KARPENTER, Code::EKSGPU115),
    min_items: None,
    max_items: None,
    renders: &[],
    read_back: ReadBack::Custom,
    children: NODE_OVERLAY_FIELDS,
    get: |p| &p.node_overlays,
    put: |p, o| p.node_overlays = o,
};

/// A pool's inputs, in schema order. Its name is its key in `pools` (the model's `Pool::name`),
/// not an input of its own.
pub const POOL: &[&dyn Decl<Pool>] = &[
    &CAPACITY,
    &INSTANCE_TYPES,
    &CAPACITY_TYPES,
    &ZONES,
    &GPU_LIMIT,
    &CPU_LIMIT,
    &MEMORY_LIMIT,
    &WEIGHT,
    &REPLICAS,
    &NODE_LIMIT,
    &EXPIRE_AFTER,
    &TERMINATION_GRACE_PERIOD,
    &LABELS,
    &GPU_TAINT,
    &ADOPT,
    &DRA,
    &EFA,
    &MULTI_NODE_NVLINK,
    &COMPUTE_DOMAIN_NAMESPACE,
    &TAGS,
    &TAINT,
    &REQUIREMENT,
    &DISRUPTION,
    &NODE_CLASS_REF,
    &NODE_OVERLAYS,
    &NODE_CLASS_BLOCK,
    &MANAGED_NODE_GROUP_BLOCK,
    &HYBRID_BLOCK,
];
