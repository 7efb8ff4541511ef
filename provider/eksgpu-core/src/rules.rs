//! Plan-time rules: every configuration that cannot work on EKS gets a stable
//! code, a severity, the attribute it is about, and what to do instead.
//! `RULES` is the catalogue (`docs/guides/rules.md` is generated from it); the checks
//! return data (`Violation`), never errors.

pub(crate) mod aws_side;
mod code;

pub use code::Code;

pub use crate::node_strategy::rules::{
    AUTO_MODE_OBSERVED_FAILURES, AUTO_MODE_OBSERVED_WORKING, Context as NodeStrategyContext, check_node_strategy,
};
pub use aws_side::{
    check_against_cluster, check_cluster, check_default_tags, cluster_overlaps, remote_network_problems,
};

/// `MAJOR.MINOR` as numbers, through the one version type.
pub(crate) fn parse_version(v: &str) -> Option<(u32, u32)> {
    crate::version::Version::parse(v)
        .ok()
        .map(crate::version::Version::as_tuple)
}

/// How bad a violation is: errors stop the plan, warnings inform it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

/// One step of the path to the attribute a violation is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Attr(&'static str),
    Index(usize),
    Key(String),
}

/// A rule of the catalogue.
#[derive(Debug)]
pub struct Rule {
    pub code: Code,
    pub severity: Severity,
    /// Short title, used as the diagnostic summary.
    pub summary: &'static str,
    /// When it fires.
    pub trigger: &'static str,
    /// What to do instead.
    pub fix: &'static str,
    /// Where the fact behind it comes from.
    pub source: &'static str,
}

/// A rule that fired, at a path, with a detail naming the values involved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub code: Code,
    pub severity: Severity,
    pub path: Vec<Step>,
    pub summary: &'static str,
    pub detail: String,
}

impl Violation {
    pub(crate) fn new(code: Code, path: Vec<Step>, detail: String) -> Violation {
        let rule = rule(code);
        Violation {
            code,
            severity: rule.map_or(Severity::Error, |r| r.severity),
            path,
            summary: rule.map_or("Invalid configuration", |r| r.summary),
            detail: format!("{detail} {}", rule.map_or("", |r| r.fix)).trim_end().to_owned(),
        }
    }
}

pub fn rule(code: Code) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.code == code)
}

/// The catalogue of rules the provider checks. Codes EKSGPU001–018 are fixed by the
/// interface (each is listed here once a resource checks it); additions are EKSGPU1xx.
pub static RULES: &[Rule] = &[
    Rule {
        code: Code::EKSGPU001,
        severity: Severity::Error,
        summary: "MIG on an Auto Mode pool",
        trigger: "A pool with `capacity = \"auto_mode\"` selects a MIG layout (`nvidia.com/mig.config` label).",
        fix: "MIG Manager cannot run on the AWS-managed Auto Mode AMI. Serve MIG workloads from a `karpenter` or `managed_node_group` pool on a MIG-capable GPU.",
        source: "EKS user guide, Deploy an accelerated workload on EKS Auto Mode (https://docs.aws.amazon.com/eks/latest/userguide/auto-accelerated.html): AWS-managed AMI and device plugin, no MIG Manager",
    },
    Rule {
        code: Code::EKSGPU002,
        severity: Severity::Error,
        summary: "MIG on a GPU without MIG",
        trigger: "A MIG layout is requested for an instance type whose GPU is not MIG-capable (A10G, L4, L40S, T4, T4G, V100).",
        fix: "Use a MIG-capable type (p4d, p4de, p5, p5e, p5en, p6-b200, p6-b300, g7e) or share the GPU with time-slicing, MPS or HAMi instead.",
        source: "NVIDIA MIG user guide r580, supported GPUs (https://docs.nvidia.com/datacenter/tesla/mig-user-guide/)",
    },
    Rule {
        code: Code::EKSGPU003,
        severity: Severity::Error,
        summary: "MIG profile not valid for the GPU",
        trigger: "A MIG layout names a profile the GPU model does not have, or takes more compute slices or instances than one GPU has.",
        fix: "Pick a profile from `data.eksgpu_gpu_catalog` (`mig_profiles` of the instance type); profile names differ per GPU (H200's smallest is 1g.18gb, H100's 1g.10gb).",
        source: "NVIDIA GPU Operator v25.10.1 default mig-parted config; NVIDIA go-nvml mock GPU tables (provider/eksgpu-core/data/mig_profiles.csv cites each row)",
    },
    Rule {
        code: Code::EKSGPU004,
        severity: Severity::Error,
        summary: "DRA not supported here",
        trigger: "A pool serves DRA claims (`dra = true`) on a capacity kind, Kubernetes version or Karpenter version that does not support it: Kubernetes before 1.34 (resource.k8s.io/v1), Karpenter before 1.15, or Auto Mode before Kubernetes 1.36.",
        fix: "Upgrade the cluster or Karpenter, or serve DRA workloads from a managed node group on Kubernetes 1.34 or later.",
        source: "EKS user guide, DRA on Amazon EKS (https://docs.aws.amazon.com/eks/latest/userguide/device-management-dra.html, doc states 2025-11 to 2026-08); Karpenter v1.15 DRA (https://karpenter.sh/docs/tasks/dra/); Kubernetes 1.34 resource.k8s.io/v1",
    },
    Rule {
        code: Code::EKSGPU005,
        severity: Severity::Error,
        summary: "Disruption setting not valid for Karpenter v1",
        trigger: "`consolidation_policy` is not a Karpenter v1 value (`WhenUnderutilized` is the v1beta1 name; `Balanced` needs Karpenter 1.14), `consolidate_after` or `expire_after` is not a duration such as `5m` or `Never`, or a disruption `budget` has a `schedule` without a `duration` or the reverse.",
        fix: "Use `WhenEmpty` or `WhenEmptyOrUnderutilized` (or `Balanced` on Karpenter 1.14+), a duration like `30s`, `5m`, `1h` or `Never`, and give a budget both `schedule` and `duration` (or neither, for an always-active budget).",
        source: "karpenter.sh/v1 NodePool CRD v1.14.1, spec.disruption and its budgets CEL rule (https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/apis/crds/karpenter.sh_nodepools.yaml)",
    },
    Rule {
        code: Code::EKSGPU006,
        severity: Severity::Error,
        summary: "Kubelet settings where they cannot apply",
        trigger: "`node_class.kubelet` on an `auto_mode` pool: the Auto Mode NodeClass has no kubelet block.",
        fix: "Remove the kubelet block, or move the workload to a `karpenter` pool, where the provider renders kubelet settings on the EC2NodeClass (Karpenter v1 has no NodePool kubelet).",
        source: "EKS Auto Mode NodeClass reference; Karpenter v1 migration guide",
    },
    Rule {
        code: Code::EKSGPU007,
        severity: Severity::Error,
        summary: "Hybrid remote networks not valid",
        trigger: "A hybrid pool's `remote_node_networks` or `remote_pod_networks` has a CIDR that is not IPv4, not inside RFC 1918 (10/8, 172.16/12, 192.168/16), outside /8–/32, more than 15 per list, or overlapping another remote network, the cluster VPC's CIDRs or its service CIDR. The VPC and service CIDRs are checked at apply, before any change (the plan makes no AWS call).",
        fix: "Use the private on-prem ranges your nodes and pods really use, at most 15 per list, disjoint from each other and from the VPC and service CIDRs (see `data.eksgpu_cluster`).",
        source: "EKS API RemoteNetworkConfigRequest; EKS user guide, Hybrid Nodes networking and quotas (https://docs.aws.amazon.com/eks/latest/userguide/hybrid-nodes-networking.html)",
    },
    Rule {
        code: Code::EKSGPU008,
        severity: Severity::Warning,
        summary: "Auto Mode and managed node groups in one cluster",
        trigger: "A strategy has `auto_mode` and `managed_node_group` pools, or (at apply) a `managed_node_group` pool goes into a cluster running Auto Mode compute.",
        fix: "AWS documents the combination, but one recorded attempt stalled in CREATING for over 30 minutes. Validate it in your account first, or run Standard Mode with Karpenter and managed node groups for H200/B200 capacity.",
        source: "EKS user guide, Auto Mode (https://docs.aws.amazon.com/eks/latest/userguide/automode.html); a recorded node group creation that stalled in CREATING (2026)",
    },
    Rule {
        code: Code::EKSGPU009,
        severity: Severity::Warning,
        summary: "Instance type observed not to provision on Auto Mode",
        trigger: "An `auto_mode` pool lists an instance type seen failing to provision on Auto Mode (p5en.48xlarge, p6-b200.48xlarge as of 2026-04).",
        fix: "Re-validate in your account and region, or serve these types from a `karpenter` pool.",
        source: "Provisioning observed on Auto Mode in 2026-04 (NoCompatibleInstanceTypes); to be re-validated",
    },
    Rule {
        code: Code::EKSGPU010,
        severity: Severity::Error,
        summary: "GPU Operator device plugin on Auto Mode nodes",
        trigger: "With the GPU Operator, an `auto_mode` pool's label `nvidia.com/gpu.deploy.device-plugin` is set to something other than \"false\".",
        fix: "Leave the label out (the provider sets it to \"false\" on Auto Mode pools): the operator's plugin next to Auto Mode's own leaves `nvidia.com/gpu` allocatable at 0.",
        source: "EKS user guide (https://docs.aws.amazon.com/eks/latest/userguide/auto-accelerated.html); NVIDIA GPU Operator v26.7.0 per-node label nvidia.com/gpu.deploy.device-plugin (a pre-set false wins)",
    },
    Rule {
        code: Code::EKSGPU011,
        severity: Severity::Warning,
        summary: "Device-plugin sharing on dynamic Karpenter capacity",
        trigger: "Time-slicing or MPS through the device plugin (`nvidia.com/device-plugin.config` label) on a `karpenter` pool.",
        fix: "Karpenter counts each shared slot as a whole GPU when it sizes nodes; prefer static capacity (a managed node group) for shared GPUs, or DRA.",
        source: "kubernetes-sigs/karpenter v1.7.0 pkg/utils/resources (an instance type offers its physical GPU count); NVIDIA k8s-device-plugin v0.20.0 time-slicing (replicas are advertised, not reserved)",
    },
    Rule {
        code: Code::EKSGPU012,
        severity: Severity::Error,
        summary: "Declared workloads exceed GPU memory",
        trigger: "The memory declared by a sharing pool's `workload` blocks exceeds one GPU's memory (shared strategies), or one workload exceeds its share (a MIG profile, a HAMi quota, a whole GPU).",
        fix: "Sharing splits time, not memory: lower the workloads' memory (e.g. vLLM's --gpu-memory-utilization), put fewer of them on a GPU, or use a GPU with more memory.",
        source: "NVIDIA k8s-device-plugin v0.20.0 README, time-slicing (no memory isolation between replicas); measured on an A10G: two vLLM at --gpu-memory-utilization 0.90 fail, 0.40 each fit",
    },
    Rule {
        code: Code::EKSGPU013,
        severity: Severity::Error,
        summary: "AMI type not valid for the GPUs or Kubernetes version",
        trigger: "`managed_node_group.ami_type` is not an EKS AMI type, carries no NVIDIA driver, does not match the instance types' architecture (x86_64 or arm64), or is `AL2_x86_64_GPU` on Kubernetes 1.33 or later.",
        fix: "Leave `ami_type` unset (the provider picks `AL2023_x86_64_NVIDIA` or `AL2023_ARM_64_NVIDIA` for the instance types), or choose an NVIDIA variant of AL2023 or Bottlerocket for the right architecture.",
        source: "EKS API amiType enum (2026-08); EKS accelerated AMIs; AL2 AMIs end with Kubernetes 1.32 (https://docs.aws.amazon.com/eks/latest/userguide/eks-ami-deprecation-faqs.html)",
    },
    Rule {
        code: Code::EKSGPU014,
        severity: Severity::Warning,
        summary: "GPU pool without a taint",
        trigger: "A pool opts out of the GPU taint (`gpu_taint = false`) and has no other NoSchedule or NoExecute taint.",
        fix: "Without a taint, CPU-only pods (CoreDNS, monitoring) land on expensive GPU nodes. Keep the default `nvidia.com/gpu=true:NoSchedule` or add a taint.",
        source: "Kubernetes taints and tolerations (https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/); EKS best practices, AI/ML compute (https://docs.aws.amazon.com/eks/latest/best-practices/aiml-compute.html)",
    },
    Rule {
        code: Code::EKSGPU015,
        severity: Severity::Error,
        summary: "MIG strategy single with a mixed layout",
        trigger: "MIG strategy `single` with a layout of more than one profile (e.g. `all-balanced`).",
        fix: "Use `mixed`, or a uniform layout (`all-<profile>`): under `single`, nodes with mixed profiles advertise `...-MIG-INVALID`.",
        source: "NVIDIA k8s-device-plugin, MIG strategies",
    },
    Rule {
        code: Code::EKSGPU016,
        severity: Severity::Error,
        summary: "Not a GPU instance type",
        trigger: "An instance type is unknown to the catalog, or is not an NVIDIA GPU instance where a GPU pool is declared.",
        fix: "Use a type from `data.eksgpu_gpu_catalog` (Neuron types such as trn and inf carry no NVIDIA stack).",
        source: "Karpenter v1.14.1 instance-type reference (provider/eksgpu-core/data/gpu_instances.csv cites each row)",
    },
    Rule {
        code: Code::EKSGPU017,
        severity: Severity::Error,
        summary: "Two device managers on the same nodes",
        trigger: "A pool would run two GPU device managers: the device plugin with the DRA driver (the device-plugin label not \"false\", or a device-plugin sharing config on a DRA pool), or HAMi with a device plugin (including Auto Mode's and Bottlerocket's built-in ones).",
        fix: "Keep one device manager per node: the device plugin is switched off per node with `nvidia.com/gpu.deploy.device-plugin = \"false\"` (the provider renders it on DRA pools); HAMi and DRA need their own pools, and DRA pools share GPUs through the claim's `GpuConfig`, not the device plugin.",
        source: "EKS user guide, DRA with NVIDIA GPUs (no DRA driver and device plugin on one node); NVIDIA gpu-operator v26.7.0 per-node deploy labels",
    },
    Rule {
        code: Code::EKSGPU018,
        severity: Severity::Error,
        summary: "Auto Mode capability flags inconsistent",
        trigger: "The cluster's Auto Mode compute, block storage and load balancing flags are not all on or all off (reported by `data.eksgpu_cluster`, and checked at apply for strategies with `auto_mode` pools).",
        fix: "Enable or disable `computeConfig`, `storageConfig.blockStorage` and `kubernetesNetworkConfig.elasticLoadBalancing` together (EKS requires it in one request).",
        source: "EKS API UpdateClusterConfig; Terraform AWS provider's plan-time check of aws_eks_cluster compute_config (hashicorp/terraform-provider-aws)",
    },
    Rule {
        code: Code::EKSGPU101,
        severity: Severity::Warning,
        summary: "Fractional GPU type gives no nvidia.com/gpu",
        trigger: "A Karpenter or Auto Mode pool lists a fractional-GPU type (g6f, gr6f).",
        fix: "Karpenter advertises no `nvidia.com/gpu` on these types, so pods requesting it never land there; use whole-GPU types for such pods.",
        source: "Karpenter v1.14.1 instance-type reference (g6f and gr6f advertise no nvidia.com/gpu)",
    },
    Rule {
        code: Code::EKSGPU102,
        severity: Severity::Error,
        summary: "Device-plugin sharing config on Auto Mode",
        trigger: "An `auto_mode` pool selects a device-plugin sharing config (`nvidia.com/device-plugin.config` label).",
        fix: "Auto Mode's device plugin is AWS-managed and takes no sharing config; share GPUs on a `karpenter` or `managed_node_group` pool, or use DRA (Auto Mode, Kubernetes 1.36+).",
        source: "EKS user guide, Auto Mode accelerated workloads (https://docs.aws.amazon.com/eks/latest/userguide/auto-accelerated.html)",
    },
    Rule {
        code: Code::EKSGPU103,
        severity: Severity::Error,
        summary: "Custom AMI on Auto Mode",
        trigger: "`node_class.ami_alias` on an `auto_mode` pool.",
        fix: "Auto Mode runs EKS-owned AMIs only; remove `ami_alias` or use a `karpenter` pool.",
        source: "EKS user guide, Auto Mode NodeClass (https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html): no AMI selection",
    },
    Rule {
        code: Code::EKSGPU104,
        severity: Severity::Error,
        summary: "EC2NodeClass without a node role",
        trigger: "A `karpenter` pool has no `node_class.role`: an EC2NodeClass needs the IAM role of its nodes.",
        fix: "Set `node_class { role = \"<node role name>\" }` to the role your Karpenter nodes use.",
        source: "karpenter.k8s.aws/v1 EC2NodeClass CRD (role or instanceProfile required)",
    },
    Rule {
        code: Code::EKSGPU105,
        severity: Severity::Error,
        summary: "Invalid pool name",
        trigger: "A pool name is used twice in the strategy, or is not a valid Kubernetes object name (lower-case letters, digits, '-', at most 63).",
        fix: "Give each pool a unique DNS-label name such as `gpu-inference`.",
        source: "Kubernetes object names (RFC 1123 labels)",
    },
    Rule {
        code: Code::EKSGPU106,
        severity: Severity::Error,
        summary: "Invalid capacity type or taint effect",
        trigger: "A capacity type is not `on-demand`, `spot` or `reserved` for a Karpenter or Auto Mode pool, or a taint effect is not `NoSchedule`, `PreferNoSchedule` or `NoExecute`.",
        fix: "Write Kubernetes spellings in `capacity_types` and `taint.effect`; the provider maps them to the EKS API's style for node groups.",
        source: "karpenter.sh/v1 NodePool CRD; Kubernetes taints",
    },
    Rule {
        code: Code::EKSGPU107,
        severity: Severity::Error,
        summary: "Sharing pool without a GPU",
        trigger: "A sharing pool sets neither `instance_type` nor `gpu_model`.",
        fix: "Name the instance type (or GPU model) the pool's nodes have, so memory and MIG can be checked.",
        source: "this provider",
    },
    Rule {
        code: Code::EKSGPU108,
        severity: Severity::Error,
        summary: "Invalid sharing settings",
        trigger: "The strategy's settings block is missing or another strategy's block is set, or a value is out of range (time-slicing or MPS replicas below 2, MPS with `fail_requests_greater_than_one = false`, HAMi cores above 100, DRA count below 1).",
        fix: "Set exactly the block named by `strategy`, with values the device plugin, DRA driver or HAMi accept.",
        source: "NVIDIA k8s-device-plugin v0.20.0 api/config/v1 (replicas ≥ 2; MPS failRequestsGreaterThanOne forced true since v0.15.0); NVIDIA DRA driver GpuConfig; HAMi chart values",
    },
    Rule {
        code: Code::EKSGPU109,
        severity: Severity::Error,
        summary: "MIG layout without a named config",
        trigger: "`mig.profiles` is neither one profile filling every GPU (`all-<profile>`) nor the GPU's balanced layout.",
        fix: "Use a layout MIG Manager knows by name (`all-<profile>` at the profile's full count, or `all-balanced`); custom layouts need a custom mig-parted config, which this provider does not manage.",
        source: "NVIDIA mig-parted config names (GPU Operator mig-manager)",
    },
    Rule {
        code: Code::EKSGPU110,
        severity: Severity::Error,
        summary: "DRA claim shared across namespaces",
        trigger: "A workload of a DRA sharing pool runs in a namespace other than the ResourceClaim's.",
        fix: "Pods can reference a ResourceClaim only in their own namespace: run the workloads in `dra.namespace`, or give each namespace its own pool.",
        source: "Kubernetes DRA (resource.k8s.io/v1): claims are namespaced",
    },
    Rule {
        code: Code::EKSGPU111,
        severity: Severity::Error,
        summary: "Invalid burst scaler settings",
        trigger: "A burst scaler's thresholds are out of order (`scale_in_threshold` must be below `hold_threshold`), `min_replicas` is above `max_replicas`, the polling or cooldown period is out of range, a pre-warm window is malformed, or the name is too long for KEDA's HPA.",
        fix: "Order the thresholds scale-in < hold, keep 0 ≤ min ≤ max, use 5-field cron windows, and names of at most 54 characters.",
        source: "KEDA v2.20 ScaledObject admission (kedacore/keda apis/keda/v1alpha1); Kubernetes object name limits",
    },
    Rule {
        code: Code::EKSGPU112,
        severity: Severity::Error,
        summary: "KEDA too old for a burst scaler",
        trigger: "`keda_version` is before 2.12, which has no `scalingModifiers` formula.",
        fix: "Upgrade KEDA to 2.18 or later (2.12 at least).",
        source: "kedacore/keda CHANGELOG (v2.12.0: formula-based evaluation)",
    },
    Rule {
        code: Code::EKSGPU113,
        severity: Severity::Warning,
        summary: "No fallback on this KEDA version",
        trigger: "`keda_version` is 2.12–2.17: the ScaledObject cannot hold its size when Prometheus fails and is rendered without a fallback.",
        fix: "Upgrade KEDA to 2.18 or later (fallback `behavior` since 2.17, fallback on `Value` metrics since 2.18).",
        source: "kedacore/keda CHANGELOG (v2.17.0, v2.18.0)",
    },
    Rule {
        code: Code::EKSGPU114,
        severity: Severity::Warning,
        summary: "Spot capacity without interruption handling",
        trigger: "The burst target runs on a pool with `spot` capacity and `spot_interruption_handling` is not set.",
        fix: "Configure Karpenter's interruption queue (SQS + EventBridge) so Spot reclaims drain nodes ahead of the 2-minute notice, then set `spot_interruption_handling = true`.",
        source: "Karpenter docs v1.14, interruption handling with SQS and EventBridge (https://karpenter.sh/v1.14/concepts/disruption/#interruption)",
    },
    Rule {
        code: Code::EKSGPU115,
        severity: Severity::Error,
        summary: "Setting for another capacity kind",
        trigger: "A pool misses the block its capacity kind needs (`managed_node_group`, `hybrid`) or `instance_types`, or has settings its kind ignores: `node_class`, `disruption`, `gpu_limit`, `cpu_limit`, `memory_limit`, `weight`, `expire_after` or `zones` on an AWS-side pool, `tags` on a `karpenter` or `auto_mode` pool (use `node_class.tags`), `instance_types` on a hybrid pool, or a `managed_node_group`/`hybrid` block on another kind.",
        fix: "Give each pool the settings of its capacity kind only; a node group's zones follow its `subnet_ids`.",
        source: "interface: eksgpu_node_strategy pool attributes",
    },
    Rule {
        code: Code::EKSGPU116,
        severity: Severity::Error,
        summary: "More than one hybrid pool",
        trigger: "A strategy declares two `hybrid` pools: the remote networks are one setting of the cluster.",
        fix: "Declare one hybrid pool with all remote networks; tell on-prem node classes apart by the labels nodeadm gives them.",
        source: "EKS API RemoteNetworkConfigRequest (one node network list per cluster)",
    },
    Rule {
        code: Code::EKSGPU117,
        severity: Severity::Error,
        summary: "Node group or hybrid setting not valid for EKS",
        trigger: "A `managed_node_group` pool has a capacity type other than `on-demand`/`spot` (`capacity-block` needs a launch template this provider does not manage) or more than one, no subnets, more than 20 instance types, scaling outside 0 ≤ min ≤ desired ≤ max with max ≥ 1, `max_unavailable` or `max_unavailable_percentage` outside 1–100 or both set; or a node role is not an IAM role ARN.",
        fix: "Fix the value as the detail says; EKS would reject the request at apply.",
        source: "EKS API CreateNodegroup (https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html); EKS user guide, Capacity Blocks for ML with managed node groups (https://docs.aws.amazon.com/eks/latest/userguide/capacity-blocks-mng.html)",
    },
    Rule {
        code: Code::EKSGPU118,
        severity: Severity::Error,
        summary: "AMI alias that gives no GPU nodes",
        trigger: "A `karpenter` pool's `node_class.ami_alias` is not `family@version`, names a family without NVIDIA AMI variants (the Windows families), or is an `al2@…` alias on Kubernetes 1.33 or later.",
        fix: "Use `al2023@<version>` (or `bottlerocket@<version>`), pinned to a release for production or `@latest`; leave it unset for `al2023@latest`.",
        source: "karpenter.k8s.aws/v1 EC2NodeClass CRD v1.14.1 (alias pattern and families); EKS user guide, AL2 AMIs end with Kubernetes 1.32 (https://docs.aws.amazon.com/eks/latest/userguide/eks-ami-deprecation-faqs.html)",
    },
    Rule {
        code: Code::EKSGPU119,
        severity: Severity::Error,
        summary: "Reserved capacity without a reservation to select",
        trigger: "A `karpenter` or `auto_mode` pool has `capacity_types = [\"reserved\"]` only and its `node_class` selects no capacity reservation: Karpenter launches reserved capacity only into the reservations its node class selects.",
        fix: "Select the On-Demand Capacity Reservations or Capacity Blocks for ML with `node_class { capacity_reservation { id = \"cr-…\" } }` (or by `tags`), or add `on-demand` (or `spot`) to `capacity_types`.",
        source: "karpenter.k8s.aws/v1 EC2NodeClass CRD v1.14.1 `capacityReservationSelectorTerms`; Karpenter docs v1.14, capacity reservations (https://karpenter.sh/v1.14/concepts/nodeclasses/)",
    },
    Rule {
        code: Code::EKSGPU120,
        severity: Severity::Error,
        summary: "Auto Mode NodeClass without a node role",
        trigger: "An `auto_mode` pool has a `node_class` block (the provider renders an `eks.amazonaws.com/v1` NodeClass) without `role`.",
        fix: "Set `node_class { role = \"<node role name>\" }` to the IAM role of Auto Mode nodes (it needs an EKS access entry), or drop the block to use the built-in `default` NodeClass.",
        source: "EKS user guide, Create a Node Class for Amazon EKS (https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html): `spec.role` is required",
    },
    Rule {
        code: Code::EKSGPU121,
        severity: Severity::Error,
        summary: "Device-plugin sharing on Bottlerocket",
        trigger: "A pool on Bottlerocket (a `BOTTLEROCKET_*` node group AMI type or a `bottlerocket@…` alias) selects a device-plugin sharing config (`nvidia.com/device-plugin.config` label).",
        fix: "Bottlerocket's NVIDIA variants run their own device plugin, configured through `settings.kubelet-device-plugins.nvidia` in the node's user data; the provider keeps the operator's plugin off these nodes. Share GPUs on an AL2023 pool, or configure Bottlerocket's settings yourself.",
        source: "bottlerocket.dev v1.54 settings.kubelet-device-plugins; EKS user guide, accelerated AMIs (Bottlerocket NVIDIA variants include the device plugin)",
    },
    Rule {
        code: Code::EKSGPU122,
        severity: Severity::Warning,
        summary: "Extended resource Karpenter cannot predict",
        trigger: "A `karpenter` pool (or a sharing pool with `capacity = \"karpenter\"`) serves MIG under the `mixed` strategy (`nvidia.com/mig-<profile>` resources) or HAMi (`nvidia.com/gpumem`, `nvidia.com/gpucores`, split `nvidia.com/gpu`).",
        fix: "Karpenter knows only the resources an instance type advertises (`nvidia.com/gpu` = physical GPUs) and treats any other extended resource as zero, so pending pods requesting it never get a node. Serve these pools from static capacity (a `managed_node_group` pool), or on Karpenter 1.7+ enable the NodeOverlay feature gate and advertise the resource with a `karpenter.sh/v1alpha1` NodeOverlay.",
        source: "kubernetes-sigs/karpenter v1.7.0 pkg/utils/resources (Fits: a request absent from the instance type's capacity does not fit); NodeOverlay alpha since v1.7.0 (https://karpenter.sh/v1.7/concepts/nodeoverlays/)",
    },
    Rule {
        code: Code::EKSGPU123,
        severity: Severity::Warning,
        summary: "GPU pool with a small image volume",
        trigger: "A `karpenter` pool keeps Karpenter's default 20Gi root volume (the data volume `/dev/xvdb` on Bottlerocket) or sets `node_class.root_volume.size` under 30Gi without `instance_store_policy = \"RAID0\"`, an `auto_mode` pool sets its ephemeral storage under 30Gi, or a `managed_node_group` pool keeps EKS's default 20 GiB disk or sets `disk_size` under 30.",
        fix: "Inference images are 10–30 GB and a pull needs room for compressed and unpacked layers: set `node_class { root_volume { size = \"200Gi\" } }` or `managed_node_group { disk_size = 200 }` (100+), or on Karpenter put images on the instance store with `instance_store_policy = \"RAID0\"` on types that have NVMe disks.",
        source: "karpenter-provider-aws v1.14.1 pkg/providers/amifamily/al2023.go and bottlerocket.go, DefaultBlockDeviceMappings 20Gi (https://github.com/aws/karpenter-provider-aws/tree/v1.14.1/pkg/providers/amifamily); EKS API CreateNodegroup `diskSize`, default 20 GiB (https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html); EKS best practices, AI/ML compute, reduce container image sizes and pull time (https://docs.aws.amazon.com/eks/latest/best-practices/aiml-compute.html)",
    },
    Rule {
        code: Code::EKSGPU124,
        severity: Severity::Error,
        summary: "EC2NodeClass setting on an Auto Mode pool",
        trigger: "An `auto_mode` pool's `node_class` sets `metadata_options` or `instance_store_policy`, which only Karpenter's EC2NodeClass has.",
        fix: "Remove the setting: Auto Mode manages instance metadata (IMDSv2) and local storage of its nodes itself. Use a `karpenter` pool where you need them.",
        source: "EKS user guide, Create a Node Class for Amazon EKS (https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html): no metadataOptions or instanceStorePolicy; karpenter.k8s.aws/v1 EC2NodeClass CRD v1.14.1 (https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml)",
    },
    Rule {
        code: Code::EKSGPU125,
        severity: Severity::Error,
        summary: "Tag the provider owns, or too many tags",
        trigger: "A pool's `tags` or the provider's `default_tags` set one of the provider's identifying tags (`app.kubernetes.io/managed-by` or a key under `eksgpu.terraform.io/`), or a node group or access entry would carry more than 50 tags.",
        fix: "Remove the key: the provider finds and imports its node groups and access entries by these tags, and sets them itself. Keep default, pool and identifying tags within EKS's 50.",
        source: "this provider's identifying tags (https://registry.terraform.io/providers/eksgpu/eksgpu/latest/docs/guides/iam); EKS API TagResource, at most 50 tags per resource (https://docs.aws.amazon.com/eks/latest/APIReference/API_TagResource.html)",
    },
    Rule {
        code: Code::EKSGPU126,
        severity: Severity::Error,
        summary: "EFA where the pool cannot have it",
        trigger: "A pool with `efa = true` lists an instance type without EFA interfaces (the catalog's `efa`), or is a `managed_node_group` pool (EFA interfaces need a launch template, which this provider does not manage) or a `hybrid` pool.",
        fix: "Use EFA-capable types (p4d, p4de, p5, p5e, p5en, p6-b200, p6-b300, and g-types with EFA; see `data.eksgpu_gpu_catalog`) on a `karpenter` or `auto_mode` pool, whose nodes get EFA interfaces for pods requesting `vpc.amazonaws.com/efa`; install the EFA device plugin. For a node group, manage a launch template with EFA network interfaces outside this provider.",
        source: "EKS user guide, Manage EFA devices on Amazon EKS (https://docs.aws.amazon.com/eks/latest/userguide/device-management-efa.html); EC2 user guide, EFA supported instance types (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html#efa-instance-types); Karpenter v1.14.1 instance-type reference (vpc.amazonaws.com/efa per type, provider/eksgpu-core/data/gpu_instances.csv)",
    },
    Rule {
        code: Code::EKSGPU127,
        severity: Severity::Warning,
        summary: "EFA pool not confined to one Availability Zone",
        trigger: "A `karpenter` or `auto_mode` pool with `efa = true` sets no `zones`, or more than one.",
        fix: "EFA traffic does not cross Availability Zones (and training wants the nodes close): set `zones` to the one zone with your capacity, e.g. where a Capacity Block or reservation is.",
        source: "EC2 user guide, EFA limitations: EFA traffic cannot cross Availability Zones (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html#efa-limits)",
    },
    Rule {
        code: Code::EKSGPU128,
        severity: Severity::Warning,
        summary: "Capacity reservations selected but not allowed",
        trigger: "A `karpenter` or `auto_mode` pool's `node_class` selects capacity reservations (`capacity_reservation`) but `capacity_types` does not include `reserved`.",
        fix: "Add `reserved` to `capacity_types` (e.g. `[\"reserved\", \"on-demand\"]` to fall back to on-demand, and a higher `weight` than other pools), or drop the selection: Karpenter launches into reservations only for the `reserved` capacity type.",
        source: "Karpenter docs v1.14, NodeClasses: capacityReservationSelectorTerms and the reserved capacity type (https://karpenter.sh/v1.14/concepts/nodeclasses/); kubernetes-sigs/karpenter v1.14.1 pkg/apis/v1/labels.go (CapacityTypeReserved)",
    },
    Rule {
        code: Code::EKSGPU129,
        severity: Severity::Error,
        summary: "Capacity reservation selector term not valid",
        trigger: "A `node_class.capacity_reservation` term sets `id` together with `tags`, `owner_id` or `instance_match_criteria`, or sets none of `id`, `tags` and `instance_match_criteria`.",
        fix: "Select one reservation by `id = \"cr-…\"` alone, or several by `tags` (with `owner_id` for shared ones) or `instance_match_criteria`.",
        source: "karpenter.k8s.aws/v1 EC2NodeClass CRD v1.14.1, capacityReservationSelectorTerms CEL rules (https://github.com/aws/karpenter-provider-aws/blob/v1.14.1/pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml)",
    },
    Rule {
        code: Code::EKSGPU130,
        severity: Severity::Warning,
        summary: "Karpenter's DRA support is switched off by default",
        trigger: "A `karpenter` pool serves DRA claims (`dra = true`) on Karpenter 1.15 or later.",
        fix: "Karpenter's DRA provisioning is alpha: set `settings.enableDRA` in Karpenter's Helm values, or pods with ResourceClaims stay pending. GPU time-slicing through DRA also needs Kubernetes 1.36.",
        source: "Karpenter docs, Utilizing GPUs and EFAs with Dynamic Resource Allocation (https://karpenter.sh/docs/tasks/dra/): Alpha, settings.enableDRA; Kubernetes 1.34+, GPU time-slicing 1.36+",
    },
    Rule {
        code: Code::EKSGPU131,
        severity: Severity::Warning,
        summary: "DRA sharing needs a DRA driver feature gate",
        trigger: "A DRA sharing pool shares GPUs with `time_slicing` (the claim's `GpuConfig` sets time-slicing settings) or `mps`.",
        fix: "Enable the NVIDIA DRA driver's feature gate in its Helm values (`featureGates: {TimeSlicingSettings: true}` for time-slicing, `{MPSSupport: true}` for MPS; MPSSupport cannot be on with DynamicMIG): both are alpha and off by default, and the driver refuses the claim's config without them.",
        source: "NVIDIA k8s-dra-driver-gpu v0.4.0 pkg/featuregates/featuregates.go (TimeSlicingSettings, MPSSupport: alpha, default false) and api/nvidia.com/resource/v1beta1/validate.go (https://github.com/NVIDIA/k8s-dra-driver-gpu/tree/v0.4.0)",
    },
    Rule {
        code: Code::EKSGPU132,
        severity: Severity::Warning,
        summary: "NVIDIA nodes without a device plugin",
        trigger: "A `karpenter` or `managed_node_group` pool runs the EKS AL2023 (or AL2) NVIDIA AMI, is not a DRA or HAMi pool, and the strategy has no `gpu_operator` block.",
        fix: "The EKS NVIDIA AMIs carry the driver and container toolkit but no device plugin, so `nvidia.com/gpu` is never advertised: add `gpu_operator {}` and install the GPU Operator with `gpu_operator_values_yaml`, or install the NVIDIA device plugin yourself (then ignore this warning). Bottlerocket and Auto Mode ship their own plugin.",
        source: "EKS user guide, Amazon EKS optimized accelerated AMIs: install the NVIDIA device plugin for Kubernetes (https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-optimized-ami.html); NVIDIA k8s-device-plugin v0.20.0 README",
    },
    Rule {
        code: Code::EKSGPU140,
        severity: Severity::Error,
        summary: "Name of an Auto Mode built-in object",
        trigger: "A `karpenter` or `auto_mode` pool is named `general-purpose` or `system` (its NodePool would be one of EKS Auto Mode's built-in NodePools), or an `auto_mode` pool with a `node_class` block is named `default` (its NodeClass would be the built-in one).",
        fix: "Rename the pool. To change the built-in NodePools, turn them off in the cluster's `computeConfig.nodePools` and declare pools of your own.",
        source: "EKS user guide, Enable or disable built-in NodePools (https://docs.aws.amazon.com/eks/latest/userguide/set-builtin-node-pools.html) and Create a Node Class (https://docs.aws.amazon.com/eks/latest/userguide/create-node-class.html): EKS manages `general-purpose`, `system` and the `default` NodeClass",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_code_is_in_the_catalogue_or_the_decisions() {
        for code in Code::ALL {
            let in_rules = RULES.iter().any(|r| r.code == *code);
            let in_decisions = crate::recommend::DECISIONS.iter().any(|d| d.code == *code);
            assert!(in_rules ^ in_decisions, "{code}: in exactly one table");
        }
    }

    #[test]
    fn codes_are_unique_sorted_and_documented() {
        let codes: Vec<_> = RULES.iter().map(|r| r.code).collect();
        let mut sorted = codes.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(codes, sorted);
        for r in RULES {
            let code = r.code.as_str();
            assert!(code.len() == 9 && code.starts_with("EKSGPU"), "{code}");
            assert!(
                !r.fix.is_empty() && !r.trigger.is_empty() && !r.source.is_empty(),
                "{}",
                r.code
            );
        }
    }
}
