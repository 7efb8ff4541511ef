//! What upstream GPU capacity says, said with this provider (#34): for each upstream definition
//! of GPU or Neuron capacity on EKS in `../shared/upstream/nodepools/<folder>/` (the index is that
//! folder's README; the definitions are not copied into this repository), the HCL in
//! `acceptance-tests/upstream/<folder>.tf` is planned by the current Terraform CLI, and the objects
//! the pool renders (`manifests_yaml`) are compared with the upstream documents field by field.
//!
//! Normalisations, and only these (each named where it is applied):
//! 1. interpolations and placeholders (`${…}`, `$VAR`, `<<PLACEHOLDER>>`) get the values the
//!    definition's `SOURCE` names, listed per definition in [`DEFINITIONS`];
//! 2. a scalar is compared by its text: Kubernetes quantities are int-or-string (`cpu: 100` and
//!    `"100"` are one quantity), and YAML `"true"` labels are strings either way; an empty list or
//!    map the provider renders is the field absent;
//! 3. lists of requirements, taints and selector terms are compared as sets (Karpenter ORs terms
//!    and ANDs requirements; order means nothing to it), and so are a launch template's
//!    `TagSpecifications` (one entry per resource type; EC2 applies each to its type, in no order);
//! 4. what the API server drops is dropped: `metadata.namespace` on the cluster-scoped kinds
//!    (NodePool, EC2NodeClass, NodeClass, NodeOverlay), and fields the v1 CRDs do not define
//!    (pruned from structural schemas), listed per definition as upstream mistakes;
//! 5. the provider's own additions are allowed: its ownership labels and annotations
//!    (`eksgpu.terraform.io/…`, `app.kubernetes.io/managed-by`), the same keys in an EC2 `Tags`
//!    list of a rendered request and in every node group's `tags` (with the Cluster Autoscaler's
//!    tags the provider sets on node groups), and the per-definition allowlist below (each entry
//!    says why).
//!
//! A definition ends *complete* (no field missing, differing or added beyond the allowlist), or
//! *refused* (the plan fails with the rule that says why it cannot work on EKS), or is listed in
//! the README table as *not yet expressed*; the figure in `acceptance-tests/upstream/README.md` is
//! checked against this table. Without `../shared/upstream/nodepools` the test prints `SKIPPED`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use eksgpu_acceptance_tests::hcl::Provider;
use eksgpu_acceptance_tests::skip;
use eksgpu_acceptance_tests::{Workdir, repo_root, terraform_versions};
use serde_json::Value;

#[path = "expressiveness/v1beta1.rs"]
mod v1beta1;

#[path = "expressiveness/eksctl.rs"]
mod eksctl;
#[path = "expressiveness/tf_module.rs"]
mod tf_module;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    /// Every upstream field rendered, nothing added beyond the allowlist.
    Complete,
    /// The plan fails with this rule code (its catalogue entry cites why).
    Refused(&'static str),
    /// No HCL yet: listed in the README table as not yet expressed, with why.
    NotYet,
}

struct Definition {
    folder: &'static str,
    status: Status,
    /// Upstream files (in the folder) holding the documents that form the definition.
    files: &'static [&'static str],
    /// Normalisation 1: placeholder → value.
    values: &'static [(&'static str, &'static str)],
    /// Normalisation 4: upstream fields the v1 CRDs do not define (the API server prunes them), as
    /// `Kind/name:dotted.path`, each an upstream mistake its `SOURCE` names.
    pruned: &'static [&'static str],
    /// Provider settings the definition needs (feature gates).
    provider: &'static str,
    /// The upstream documents (`Kind/name`) that form the definition, when its files hold others
    /// (empty: every document of the files).
    only: &'static [&'static str],
    /// Upstream documents (`Kind/name`) that are not the definition's own, each with why.
    elsewhere: &'static [(&'static str, &'static str)],
    /// Normalisation 5: rendered paths (`Kind/name:dotted.path`, prefix match) the upstream does not
    /// have and the provider adds, each with why.
    allow: &'static [(&'static str, &'static str)],
}

const CLUSTER: (&str, &str) = ("<<CLUSTER_NAME>>", "gpu");

/// Bottlerocket's NVIDIA variants run their own device plugin (time-slicing is its settings, in the
/// node class's user data): the provider switches the GPU Operator's device plugin off on their
/// nodes with this label (render/gpu_operator.rs), one device manager per node.
const BOTTLEROCKET_DEVICE_PLUGIN: (&str, &str) = (
    "NodePool/*:spec.template.metadata.labels.nvidia.com/gpu.deploy.device-plugin",
    "Bottlerocket runs its own NVIDIA device plugin; the GPU Operator's is switched off there",
);

const DEFINITIONS: &[Definition] = &[
    Definition {
        // Upstream's NodeClass sets no `role`, which the Auto Mode NodeClass requires.
        folder: "kbp-gpu-automode",
        status: Status::Refused("EKSGPU120"),
        files: &["gpu-nodepool-automode.yaml", "gpu-nodeclass-automode.yaml"],
        values: &[CLUSTER],
        pruned: &[],
        provider: "",
        only: &[],
        elsewhere: &[],
        allow: &[],
    },
    Definition {
        folder: "kbp-gpu-slices-bottlerocket",
        status: Status::Complete,
        files: &[
            "gpu-nodepool.yaml",
            "gpu-nodeclass.yaml",
            "node-overlay-gpu-slices.yaml",
        ],
        values: &[CLUSTER, ("<<KARPENTER_NODE_IAM_ROLE_NAME>>", "KarpenterNodeRole-gpu")],
        pruned: &[],
        provider: "karpenter_feature_gates = [\"nodeOverlay\"]",
        only: &[],
        elsewhere: &[],
        allow: &[BOTTLEROCKET_DEVICE_PLUGIN],
    },
    Definition {
        folder: "kbp-gpu-static-efa",
        status: Status::Complete,
        files: &["static-nodepool.yaml", "static-nodeclass.yaml"],
        values: &[
            ("$KARPENTER_NODE_IAM_ROLE_NAME", "KarpenterNodeRole-gpu"),
            ("$CLUSTER_NAME", "gpu"),
        ],
        pruned: &[],
        provider: "karpenter_feature_gates = [\"staticCapacity\"]",
        only: &[],
        elsewhere: &[],
        allow: &[BOTTLEROCKET_DEVICE_PLUGIN],
    },
    Definition {
        folder: "ekswsv2-neuron-chatbot",
        status: Status::Complete,
        files: &["nodepool.yaml"],
        values: &[
            ("${KARPENTER_NODE_ROLE}", "KarpenterNodeRole-gpu"),
            ("${EKS_CLUSTER_NAME}", "gpu"),
        ],
        pruned: &[],
        provider: "",
        only: &[],
        elsewhere: &[],
        allow: &[],
    },
    Definition {
        // eksctl's requests for the node group (expressiveness/eksctl.rs, which says what is
        // normalised: eksctl's own role, subnets, security groups, placement group and template
        // name are values).
        folder: "adt-eksctl-g5-autorepair",
        status: Status::Complete,
        files: &["eks-g5-node-autorepair.yaml"],
        values: &[
            (
                "<<eksctl node role of g5>>",
                "arn:aws:iam::123456789012:role/eks-g5-autorepair-g5-nodes",
            ),
            (
                "<<eksctl private subnet in PLACEHOLDER_AZ_2>>",
                "subnet-0a2000000000000a2",
            ),
            ("<<placement group of eks-g5-autorepair-g5>>", "eks-g5-autorepair-g5"),
            ("<<cluster security group>>", "sg-0c1000000000000c1"),
            ("<<eksctl EFA security group of g5>>", "sg-0ef000000000000e5"),
        ],
        // The template eksctl makes is referred to by its id; the provider's by its name.
        pruned: &["CreateNodegroup/g5:CreateNodegroup.launchTemplate"],
        provider: "",
        only: &["CreateNodegroup/g5", "CreateLaunchTemplate/eks-g5-autorepair-g5"],
        elsewhere: &[],
        allow: &[
            (
                "CreateNodegroup/g5:CreateNodegroup.launchTemplate.name",
                "the pool's own launch template, named <cluster>-<pool>",
            ),
            (
                "CreateNodegroup/g5:CreateNodegroup.capacityType",
                "EKS's default capacity type (ON_DEMAND) stated; eksctl sends none",
            ),
            (
                "CreateNodegroup/g5:CreateNodegroup.labels.k8s.amazonaws.com/accelerator",
                "the Cluster Autoscaler's GPU label on nodes that advertise nvidia.com/gpu (cluster-autoscaler \
                 cloudprovider/aws/README.md, \"Special note on GPU instances\")",
            ),
            (
                "CreateLaunchTemplate/eks-g5-autorepair-g5:CreateLaunchTemplate.TagSpecifications",
                "ownership tags of the template",
            ),
        ],
    },
    Definition {
        // eksctl's requests for the node group (expressiveness/eksctl.rs, which says what is
        // normalised: eksctl's own role, subnets, security groups, placement group and template
        // name are values).
        folder: "adt-eksctl-p5-capacity-block",
        status: Status::Complete,
        files: &["eks-p5-capacity-block.yaml"],
        values: &[
            (
                "<<eksctl node role of p5-cbr>>",
                "arn:aws:iam::123456789012:role/eks-p5-cbr-vpc-p5-cbr-nodes",
            ),
            ("PLACEHOLDER_SUBNET_PRIVATE_1", "subnet-0000000000000001a"),
            ("PLACEHOLDER_SUBNET_PRIVATE_2", "subnet-0000000000000002b"),
            ("cr-xxxxxxxxxx", "cr-0123456789abcdef0"),
            ("<<cluster security group>>", "sg-0c1000000000000c1"),
            ("<<eksctl EFA security group of p5-cbr>>", "sg-0ef000000000000e5"),
        ],
        // The template eksctl makes is referred to by its id; the provider's by its name.
        pruned: &["CreateNodegroup/p5-cbr:CreateNodegroup.launchTemplate"],
        provider: "",
        only: &["CreateNodegroup/p5-cbr", "CreateLaunchTemplate/eks-p5-cbr-vpc-p5-cbr"],
        elsewhere: &[],
        allow: &[
            (
                "CreateNodegroup/p5-cbr:CreateNodegroup.launchTemplate.name",
                "the pool's own launch template, named <cluster>-<pool>",
            ),
            (
                "CreateNodegroup/p5-cbr:CreateNodegroup.capacityType",
                "EKS's default capacity type (ON_DEMAND) stated; eksctl sends none",
            ),
            (
                "CreateNodegroup/p5-cbr:CreateNodegroup.labels.k8s.amazonaws.com/accelerator",
                "the Cluster Autoscaler's GPU label on nodes that advertise nvidia.com/gpu (cluster-autoscaler \
                 cloudprovider/aws/README.md, \"Special note on GPU instances\")",
            ),
            (
                "CreateLaunchTemplate/eks-p5-cbr-vpc-p5-cbr:CreateLaunchTemplate.TagSpecifications",
                "ownership tags of the template",
            ),
        ],
    },
    Definition {
        folder: "aioneks-gpu-karpenter",
        status: Status::Complete,
        files: &["gpu.yaml"],
        values: &[("${ami_family}", "al2023"), ("${indent(2, ec2nodeclass)}", "{}")],
        pruned: &[],
        provider: "",
        only: &[],
        elsewhere: &[(
            "EC2NodeClass/gpu",
            "its spec is the base module's `ec2nodeclass` block, not in the file: the pool refers to it (node_class_ref)",
        )],
        allow: &[],
    },
    Definition {
        folder: "aioneks-gpu-p5en-static",
        status: Status::Complete,
        files: &["gpu-p5en-48xlarge-static.yaml"],
        values: &[
            ("${node_iam_role}", "KarpenterNodeRole-gpu"),
            ("${cluster_name}", "gpu"),
            (
                "${indent(2, lookup(jsondecode(efa_network_interfaces), \"p5en.48xlarge\", \"\"))}",
                "",
            ),
        ],
        pruned: &["NodePool/gpu-p5en-48xlarge-static:spec.disruption.terminationGracePeriod"],
        provider: "karpenter_feature_gates = [\"staticCapacity\"]",
        only: &[],
        elsewhere: &[],
        allow: &[],
    },
    Definition {
        folder: "aioneks-neuron-automode",
        status: Status::Complete,
        files: &["neuron.yaml"],
        values: &[("${ami_family}", "bottlerocket"), ("${indent(2, ec2nodeclass)}", "{}")],
        pruned: &[],
        provider: "",
        only: &[],
        elsewhere: &[(
            "NodeClass/neuron",
            "its spec is the base module's `ec2nodeclass` block, not in the definition: the pool refers to it (node_class_ref)",
        )],
        allow: &[],
    },
    Definition {
        folder: "doeks-gpu-g6",
        status: Status::Complete,
        files: &["nodepool-gpu-g6.yaml", "ec2nodeclass.yaml"],
        values: &[
            ("${KARPENTER_NODE_IAM_ROLE_NAME}", "KarpenterNodeRole-gpu"),
            ("${CLUSTER_NAME}", "gpu"),
        ],
        pruned: &[],
        provider: "",
        only: &["NodePool/gpu", "EC2NodeClass/gpu"],
        elsewhere: &[],
        allow: &[],
    },
    Definition {
        folder: "doeks-inf2-mng",
        status: Status::Complete,
        files: &["eks.tf"],
        values: &[
            ("[module.vpc.private_subnets[2]]", "[\"subnet-0a1b2c3d4e5f60003\"]"),
            ("local.tags", "{}"),
            ("local.name", "\"trainium-inferentia\""),
            ("var.inf2_24xl_min_size", "0"),
            ("var.inf2_24xl_desired_size", "0"),
        ],
        // The module refers to its template by id (`aws_launch_template.this.id`, version 1): the
        // provider makes the template and refers to it by name.
        pruned: &["CreateNodegroup/inf2-24xl-ng-aca2d6a6:CreateNodegroup.launchTemplate"],
        provider: "",
        only: &[],
        elsewhere: &[],
        allow: &[(
            "CreateNodegroup/inf2-24xl-ng-aca2d6a6:CreateNodegroup.launchTemplate.name",
            "the pool's own launch template, named <cluster>-<pool>",
        )],
    },
    Definition {
        // Karpenter v1beta1 in `kubectl_manifest` heredocs, converted by the v1 migration guide
        // (expressiveness/v1beta1.rs); the file's CPU NodePool `default` is not the definition's.
        folder: "doeks-jark-gpu-v1beta1",
        status: Status::Complete,
        files: &["karpenter.tf"],
        values: &[
            (
                "${module.eks_blueprints_addons.karpenter.node_iam_role_name}",
                "KarpenterNodeRole-gpu",
            ),
            ("${module.eks.cluster_name}", "gpu"),
            // variables.tf defaults the snapshot to "", which is not null: the line renders empty.
            (
                "${var.bottlerocket_data_disk_snpashot_id != null ? \"snapshotID: ${var.bottlerocket_data_disk_snpashot_id}\" : \"\"}",
                "snapshotID: ",
            ),
            // main.tf: the first two zones of var.region (default us-west-2).
            ("${jsonencode(local.azs)}", "[\"us-west-2a\", \"us-west-2b\"]"),
        ],
        pruned: &[],
        provider: "",
        only: &[],
        elsewhere: &[],
        allow: &[BOTTLEROCKET_DEVICE_PLUGIN],
    },
    Definition {
        folder: "doeks-trn1-efa-mng",
        status: Status::Complete,
        files: &["eks.tf"],
        values: &[
            ("[module.vpc.private_subnets[2]]", "[\"subnet-0a1b2c3d4e5f60003\"]"),
            ("local.tags", "{}"),
            ("local.name", "\"trainium-inferentia\""),
            ("var.trn1_32xl_min_size", "0"),
            ("var.trn1_32xl_desired_size", "0"),
        ],
        // The module refers to its template by id (`aws_launch_template.this.id`, version 1): the
        // provider makes the template and refers to it by name.
        pruned: &["CreateNodegroup/trn1-32xl-ng1-8e85417e:CreateNodegroup.launchTemplate"],
        provider: "",
        only: &[],
        elsewhere: &[],
        allow: &[(
            "CreateNodegroup/trn1-32xl-ng1-8e85417e:CreateNodegroup.launchTemplate.name",
            "the pool's own launch template, named <cluster>-<pool>",
        )],
    },
    Definition {
        folder: "eksbp-ml-capacity-block",
        status: Status::Complete,
        files: &["eks.tf"],
        values: &[
            ("var.capacity_reservation_id", "\"cr-0123456789abcdef0\""),
            ("element(module.vpc.private_subnets, 0)", "\"subnet-0a1b2c3d4e5f60001\""),
        ],
        // The module refers to its template by id (`aws_launch_template.this.id`, version 1): the
        // provider makes the template and refers to it by name.
        pruned: &["CreateNodegroup/cbr-dc9802ea:CreateNodegroup.launchTemplate"],
        provider: "",
        only: &[],
        elsewhere: &[],
        allow: &[
            (
                "CreateNodegroup/cbr-dc9802ea:CreateNodegroup.launchTemplate.name",
                "the pool's own launch template, named <cluster>-<pool>",
            ),
            (
                "CreateNodegroup/cbr-dc9802ea:CreateNodegroup.labels.k8s.amazonaws.com/accelerator",
                "the Cluster Autoscaler's GPU label on nodes that advertise nvidia.com/gpu (cluster-autoscaler \
                 cloudprovider/aws/README.md, \"Special note on GPU instances\")",
            ),
        ],
    },
    Definition {
        folder: "eksbp-ml-container-cache",
        status: Status::Complete,
        files: &["eks.tf"],
        values: &[
            ("local.dev_name", "\"xvdb\""),
            (
                "nonsensitive(data.aws_ssm_parameter.snapshot_id.value)",
                "\"snap-0a1b2c3d4e5f60001\"",
            ),
        ],
        // The module refers to its template by id (`aws_launch_template.this.id`, version 1): the
        // provider makes the template and refers to it by name.
        pruned: &["CreateNodegroup/gpu-b38a740b:CreateNodegroup.launchTemplate"],
        provider: "",
        only: &[],
        elsewhere: &[],
        allow: &[
            (
                "CreateNodegroup/gpu-b38a740b:CreateNodegroup.launchTemplate.name",
                "the pool's own launch template, named <cluster>-<pool>",
            ),
            (
                "CreateNodegroup/gpu-b38a740b:CreateNodegroup.labels.k8s.amazonaws.com/accelerator",
                "the Cluster Autoscaler's GPU label on nodes that advertise nvidia.com/gpu (cluster-autoscaler \
                 cloudprovider/aws/README.md, \"Special note on GPU instances\")",
            ),
        ],
    },
    Definition {
        folder: "eksbp-nvidia-gpu-efa",
        status: Status::Complete,
        files: &["eks.tf"],
        values: &[],
        // The module refers to its template by id (`aws_launch_template.this.id`, version 1): the
        // provider makes the template and refers to it by name.
        pruned: &["CreateNodegroup/nvidia-efa-d28ee552:CreateNodegroup.launchTemplate"],
        provider: "",
        only: &[],
        elsewhere: &[],
        allow: &[
            (
                "CreateNodegroup/nvidia-efa-d28ee552:CreateNodegroup.launchTemplate.name",
                "the pool's own launch template, named <cluster>-<pool>",
            ),
            (
                "CreateNodegroup/nvidia-efa-d28ee552:CreateNodegroup.labels.k8s.amazonaws.com/accelerator",
                "the Cluster Autoscaler's GPU label on nodes that advertise nvidia.com/gpu (cluster-autoscaler \
                 cloudprovider/aws/README.md, \"Special note on GPU instances\")",
            ),
        ],
    },
    Definition {
        folder: "eksctl-gpu-node-repair",
        status: Status::Refused("EKSGPU321"),
        files: &["44-node-repair.yaml"],
        values: &[],
        pruned: &[],
        provider: "",
        only: &[],
        elsewhere: &[],
        allow: &[],
    },
    Definition {
        folder: "eksug-capacity-block-mng-cfn",
        status: Status::Complete,
        files: &["capacity-blocks-mng.adoc"],
        // The guide's replaceable values.
        values: &[
            ("my-cluster", "gpu"),
            ("node-role-arn", "arn:aws:iam::123456789012:role/node-role"),
            ("subnet-id", "subnet-0123456789abcdef0"),
            ("node-group-min-size", "0"),
            ("node-group-max-size", "2"),
            ("node-group-desired-size", "0"),
        ],
        // `lt-id` stands for the template of step 1: the provider makes it and refers to it by name.
        pruned: &["CreateNodegroup/my-mng:CreateNodegroup.launchTemplate"],
        provider: "",
        only: &[],
        elsewhere: &[],
        allow: &[
            (
                "CreateNodegroup/my-mng:CreateNodegroup.launchTemplate.name",
                "the pool's own launch template, named <cluster>-<pool>",
            ),
            (
                "CreateNodegroup/my-mng:CreateNodegroup.amiType",
                "the AMI type EKS chooses for p5 without one, stated (EKSGPU013 checks it)",
            ),
            (
                "CreateNodegroup/my-mng:CreateNodegroup.labels.k8s.amazonaws.com/accelerator",
                "the Cluster Autoscaler's GPU label on nodes that advertise nvidia.com/gpu (cluster-autoscaler \
                 cloudprovider/aws/README.md, \"Special note on GPU instances\")",
            ),
            (
                "CreateLaunchTemplate/gpu-my-mng:CreateLaunchTemplate.TagSpecifications",
                "ownership tags of the template",
            ),
        ],
    },
    Definition {
        folder: "karpenter-docs-g6f-fractional",
        status: Status::Complete,
        files: &["nodeoverlays.md"],
        values: &[],
        pruned: &[],
        provider: "karpenter_feature_gates = [\"nodeOverlay\"]",
        only: &["NodeOverlay/g6f-fractional-gpu", "NodePool/fractional-gpu"],
        elsewhere: &[],
        allow: &[],
    },
    Definition {
        folder: "nvidia-eksctl-g4dn-ubuntu",
        status: Status::Refused("EKSGPU156"),
        files: &["amazon-eks-cluster-config.yaml"],
        values: &[],
        pruned: &[],
        provider: "",
        only: &[],
        elsewhere: &[],
        allow: &[],
    },
    Definition {
        folder: "tfeks-efa-p4d",
        status: Status::Complete,
        files: &["main.tf"],
        values: &[],
        // The module refers to its template by id (`aws_launch_template.this.id`, version 1): the
        // provider makes the template and refers to it by name.
        pruned: &["CreateNodegroup/efa-dbbd77ff:CreateNodegroup.launchTemplate"],
        provider: "",
        only: &[],
        elsewhere: &[],
        allow: &[
            (
                "CreateNodegroup/efa-dbbd77ff:CreateNodegroup.launchTemplate.name",
                "the pool's own launch template, named <cluster>-<pool>",
            ),
            (
                "CreateNodegroup/efa-dbbd77ff:CreateNodegroup.labels.k8s.amazonaws.com/accelerator",
                "the Cluster Autoscaler's GPU label on nodes that advertise nvidia.com/gpu (cluster-autoscaler \
                 cloudprovider/aws/README.md, \"Special note on GPU instances\")",
            ),
        ],
    },
];

fn upstream_dir() -> PathBuf {
    repo_root().join("../shared/upstream/nodepools")
}

/// The YAML of a markdown page: its ```yaml code blocks, as documents of one stream.
fn yaml_blocks(md: &str) -> String {
    md.split("```yaml\n")
        .skip(1)
        .filter_map(|b| b.split_once("\n```").map(|(y, _)| y))
        .collect::<Vec<_>>()
        .join("\n---\n")
}

/// The EKS user guide's Capacity Block page (AsciiDoc) as the two requests it describes: the
/// CloudFormation `LaunchTemplateData` of step 1 (the EC2 API's own shape) as a `CreateLaunchTemplate`,
/// and the `aws eks create-nodegroup` flags of step 2 as a `CreateNodegroup` (each flag the request
/// field of its name, AWS CLI shorthand `k=v,…` as an object; `--region` is no request field).
/// The template's name is the provider's (CloudFormation names it), given as `template`.
fn capacity_block_page(adoc: &str, template: &str) -> String {
    let block = |start: &str| -> String {
        adoc.split_once(start)
            .and_then(|(_, rest)| rest.split_once("\n----"))
            .map(|(b, _)| b.to_owned())
            .unwrap_or_default()
    };
    let cfn: Value = serde_saphyr::from_str(&format!("{}{}", "NodeLaunchTemplate:", block("NodeLaunchTemplate:")))
        .unwrap_or_else(|e| panic!("the page's CloudFormation excerpt: {e}"));
    let data = cfn["NodeLaunchTemplate"]["Properties"]["LaunchTemplateData"].clone();
    let cli = block("aws eks create-nodegroup \\").replace("\\\n", " ");
    let mut req = serde_json::Map::new();
    let mut words = cli.split_whitespace();
    while let Some(flag) = words.next() {
        let (Some(flag), Some(v)) = (flag.strip_prefix("--"), words.next()) else {
            continue;
        };
        let v = v.trim_matches('"');
        let camel: String = flag
            .split('-')
            .enumerate()
            .map(|(i, w)| {
                if i == 0 {
                    w.to_owned()
                } else {
                    w[..1].to_uppercase() + &w[1..]
                }
            })
            .collect();
        let value = if v.contains('=') {
            Value::Object(
                v.split(',')
                    .filter_map(|kv| kv.split_once('='))
                    .map(|(k, x)| (k.to_owned(), Value::String(x.trim_matches('"').to_owned())))
                    .collect(),
            )
        } else if camel == "subnets" {
            Value::Array(vec![Value::String(v.to_owned())])
        } else {
            Value::String(v.to_owned())
        };
        let key = match camel.as_str() {
            "region" => continue,
            "nodeRole" | "subnets" | "clusterName" | "nodegroupName" | "capacityType" => camel,
            "scalingConfig" | "launchTemplate" => camel,
            other => other.to_owned(),
        };
        req.insert(key, value);
    }
    format!(
        "{}\n---\n{}",
        serde_json::json!({"CreateLaunchTemplate": {"LaunchTemplateName": template, "LaunchTemplateData": data}}),
        serde_json::json!({"CreateNodegroup": req}),
    )
}

/// Normalisation 1, then the YAML documents of `text` that are Kubernetes objects or the AWS
/// requests of a node group pool.
fn documents(text: &str, values: &[(&str, &str)]) -> Vec<Value> {
    let mut t = text.to_owned();
    for (k, v) in values {
        t = t.replace(k, v);
    }
    t.split("\n---")
        // A document that does not parse fails the test (a placeholder left in would otherwise drop
        // it from the comparison); one of comments only is no document.
        .filter(|d| {
            d.lines()
                .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        })
        .map(|d| serde_saphyr::from_str::<Value>(d).unwrap_or_else(|e| panic!("{e}:\n{d}")))
        .filter(|d| {
            d.get("kind").is_some() || d.get("CreateNodegroup").is_some() || d.get("CreateLaunchTemplate").is_some()
        })
        .map(|mut d| {
            // Normalisation 4: every kind compared here is cluster-scoped.
            if let Some(m) = d.get_mut("metadata").and_then(Value::as_object_mut) {
                m.remove("namespace");
            }
            d
        })
        .collect()
}

fn id(d: &Value) -> String {
    // The AWS requests a node group pool renders: `CreateNodegroup: {…}`, `CreateLaunchTemplate: {…}`.
    for (op, name) in [
        ("CreateNodegroup", "nodegroupName"),
        ("CreateLaunchTemplate", "LaunchTemplateName"),
    ] {
        if let Some(r) = d.get(op) {
            return format!("{op}/{}", r[name].as_str().unwrap_or_default());
        }
    }
    format!(
        "{}/{}",
        d["kind"].as_str().unwrap_or_default(),
        d["metadata"]["name"].as_str().unwrap_or_default()
    )
}

/// Normalisation 2: a scalar's text.
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Normalisation 3: the lists compared as sets.
const SETS: &[&str] = &[
    "requirements",
    "taints",
    "securityGroupSelectorTerms",
    "subnetSelectorTerms",
    "TagSpecifications",
];

/// Normalisation 5, the provider's ownership metadata.
fn owned(path: &str) -> bool {
    let ownership = |k: &str| k.starts_with("eksgpu.terraform.io/") || k == "app.kubernetes.io/managed-by";
    ["metadata.labels.", "metadata.annotations."]
        .iter()
        .any(|p| path.strip_prefix(p).is_some_and(ownership))
        // Every node group's tags: the ownership tags, and the Cluster Autoscaler's discovery and
        // node-template tags the provider sets on node groups (eks/autoscaler.rs).
        || path
            .strip_prefix("CreateNodegroup.tags.")
            .is_some_and(|k| ownership(k) || k.starts_with("k8s.io/cluster-autoscaler/"))
}

/// Normalisation 5 for EC2 `Tags` lists: a `{Key, Value}` entry of the provider's ownership keys.
fn owned_tag(t: &Value) -> bool {
    t["Key"]
        .as_str()
        .is_some_and(|k| k.starts_with("eksgpu.terraform.io/") || k == "app.kubernetes.io/managed-by")
}

/// The differences of `got` from `want` below `path`: `missing`, `differs` and `added` lines.
fn diff(want: &Value, got: &Value, path: &str, out: &mut Vec<String>) {
    let last = path.rsplit('.').next().unwrap_or_default();
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => {
            for (k, wv) in w {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match g.get(k) {
                    Some(gv) => diff(wv, gv, &p, out),
                    None if wv.is_null() => {}
                    None => out.push(format!("missing {p} = {wv}")),
                }
            }
            for (k, gv) in g {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                if !w.contains_key(k) {
                    // An added object is reported leaf by leaf, so the allowlist sees each key.
                    if gv.is_object() {
                        diff(&Value::Object(serde_json::Map::new()), gv, &p, out);
                    } else if gv.as_array().is_some_and(Vec::is_empty) {
                        // Normalisation 2: an empty list is the field absent.
                    } else {
                        out.push(format!("added {p} = {gv}"));
                    }
                }
            }
        }
        (Value::Array(w), Value::Array(g)) if SETS.contains(&last) => {
            let canon = |v: &Value| canonical(v);
            let mut ws: Vec<String> = w.iter().map(canon).collect();
            let mut gs: Vec<String> = g.iter().map(canon).collect();
            ws.sort();
            gs.sort();
            if ws != gs {
                out.push(format!("differs {path}: upstream {ws:?}, rendered {gs:?}"));
            }
        }
        (Value::Array(w), Value::Array(g)) if last.ends_with("Tags") && g.iter().any(owned_tag) => {
            // Normalisation 5: the provider's ownership tags in an EC2 `Tags` list.
            let g: Vec<Value> = g.iter().filter(|t| !owned_tag(t)).cloned().collect();
            diff(want, &Value::Array(g), path, out);
        }
        (Value::Array(w), Value::Array(g)) => {
            if w.len() != g.len() {
                out.push(format!("differs {path}: upstream {want}, rendered {got}"));
                return;
            }
            for (i, (wv, gv)) in w.iter().zip(g).enumerate() {
                diff(wv, gv, &format!("{path}[{i}]"), out);
            }
        }
        _ => {
            if scalar(want).is_none() || scalar(want) != scalar(got) {
                out.push(format!("differs {path}: upstream {want}, rendered {got}"));
            }
        }
    }
}

/// A value with scalars as text, object keys sorted and set-like lists sorted, as one string.
fn canonical(v: &Value) -> String {
    fn norm(v: &Value, key: &str) -> Value {
        match v {
            Value::Object(m) => {
                let sorted: BTreeMap<&String, Value> = m.iter().map(|(k, x)| (k, norm(x, k))).collect();
                Value::Object(sorted.into_iter().map(|(k, x)| (k.clone(), x)).collect())
            }
            Value::Array(a) => {
                // Normalisation 5 inside a set's entries too (a `TagSpecifications` entry's `Tags`).
                let mut items: Vec<Value> = a
                    .iter()
                    .filter(|x| !(key.ends_with("Tags") && owned_tag(x)))
                    .map(|x| norm(x, ""))
                    .collect();
                if SETS.contains(&key) {
                    items.sort_by_key(ToString::to_string);
                }
                Value::Array(items)
            }
            other => scalar(other).map_or(Value::Null, Value::String),
        }
    }
    norm(v, "").to_string()
}

/// The rendered objects of every pool of the planned strategy, by `Kind/name`.
fn rendered(plan: &Value) -> BTreeMap<String, Value> {
    let after = &plan["resource_changes"][0]["change"]["after"];
    let mut out = BTreeMap::new();
    for pool in after["pools"].as_object().into_iter().flat_map(|m| m.values()) {
        let text = pool["manifests_yaml"].as_str().unwrap_or_default();
        for d in text.split("\n---") {
            if std::env::var_os("EKSGPU_EXPRESSIVENESS_DUMP").is_some() {
                eprintln!("--- rendered\n{d}");
            }
        }
        for d in documents(text, &[]) {
            out.insert(id(&d), d);
        }
    }
    out
}

/// The mismatches of one complete definition (empty when it is complete).
fn compare(def: &Definition, upstream: &[Value], got: &BTreeMap<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    for key in def.only {
        if !upstream.iter().any(|d| id(d) == *key) {
            out.push(format!("{key}: not in the upstream files"));
        }
    }
    let compared = upstream
        .iter()
        .filter(|d| def.only.is_empty() || def.only.contains(&id(d).as_str()))
        .filter(|d| !def.elsewhere.iter().any(|(e, _)| *e == id(d)))
        .count();
    if compared == 0 {
        out.push("no upstream document compared".into());
    }
    for want in upstream {
        let key = id(want);
        if def.elsewhere.iter().any(|(e, _)| *e == key) || !(def.only.is_empty() || def.only.contains(&key.as_str())) {
            continue;
        }
        let Some(g) = got.get(&key) else {
            out.push(format!(
                "{key}: not rendered (rendered: {:?})",
                got.keys().collect::<Vec<_>>()
            ));
            continue;
        };
        let mut want = want.clone();
        for p in def.pruned {
            if let Some(path) = p.strip_prefix(&format!("{key}:")) {
                let (parent, leaf) = path.rsplit_once('.').unwrap_or(("", path));
                let mut at = &mut want;
                for step in parent.split('.').filter(|s| !s.is_empty()) {
                    at = &mut at[step];
                }
                if let Some(m) = at.as_object_mut() {
                    assert!(m.remove(leaf).is_some(), "{key}: pruned {path} is not upstream");
                }
            }
        }
        let mut d = Vec::new();
        diff(&want, g, "", &mut d);
        for line in d {
            let path = line.split_whitespace().nth(1).unwrap_or_default();
            let allowed = line.starts_with("added ")
                && (owned(path)
                    || def.allow.iter().any(|(p, _)| {
                        let kind = key.split('/').next().unwrap_or_default();
                        format!("{key}:{path}").starts_with(p) || format!("{kind}/*:{path}").starts_with(p)
                    }));
            if !allowed {
                out.push(format!("{key}: {line}"));
            }
        }
    }
    out
}

fn plan_json(def: &Definition) -> Result<Value, String> {
    let hcl_path = repo_root().join(format!("acceptance-tests/upstream/{}.tf", def.folder));
    let hcl = std::fs::read_to_string(&hcl_path).map_err(|e| format!("{}: {e}", hcl_path.display()))?;
    let tf = terraform_versions().into_iter().last().ok_or("no Terraform CLI")?;
    let header = Provider::new().offline().setting(def.provider).header();
    let w = Workdir::new(&tf, &format!("{header}\n{hcl}"));
    w.init();
    let r = w.run(&["plan", "-no-color", "-out", "up.tfplan"]);
    if r.code != 0 {
        return Err(r.combined());
    }
    serde_json::from_str(&w.ok(&["show", "-json", "up.tfplan"]).stdout).map_err(|e| e.to_string())
}

#[test]
fn upstream_definitions_are_expressed_field_by_field() {
    let dir = upstream_dir();
    if !dir.join("README.md").is_file() {
        skip(&format!(
            "{} is absent: the upstream definitions are not here",
            dir.display()
        ));
        return;
    }
    let mut failures = Vec::new();
    let mut done = 0;
    for def in DEFINITIONS {
        let upstream: Vec<Value> = def
            .files
            .iter()
            .flat_map(|f| {
                let text = std::fs::read_to_string(dir.join(def.folder).join(f))
                    .unwrap_or_else(|e| panic!("{}/{f}: {e}", def.folder));
                let text = if f.ends_with(".md") {
                    yaml_blocks(&text)
                } else if f.ends_with(".adoc") {
                    capacity_block_page(&text, "gpu-my-mng")
                } else if def.folder == "doeks-jark-gpu-v1beta1" {
                    v1beta1::translate(
                        &text,
                        &["karpenter_gpu_node_class", "karpenter_gpu_node_pool"],
                        def.values,
                    )
                } else if text.contains("kind: ClusterConfig") && text.contains("managedNodeGroups:") {
                    eksctl::cluster_config(&text, |cluster, ng| format!("{cluster}-{ng}"))
                } else if f.ends_with(".tf") {
                    tf_module::for_folder(def.folder, &text, def.values)
                } else {
                    text
                };
                documents(&text, def.values)
            })
            .collect();
        match (def.status, plan_json(def)) {
            (Status::NotYet, _) => continue,
            (Status::Complete, Ok(plan)) => {
                let got = rendered(&plan);
                if std::env::var_os("EKSGPU_EXPRESSIVENESS_DUMP").is_some() {
                    // For whoever writes the next definition's HCL: what the pool renders.
                    eprintln!(
                        "{}: {}",
                        def.folder,
                        serde_json::to_string_pretty(&got).unwrap_or_default()
                    );
                }
                assert!(!upstream.is_empty(), "{}: no upstream documents", def.folder);
                let m = compare(def, &upstream, &got);
                if m.is_empty() {
                    done += 1;
                } else {
                    failures.push(format!("{}:\n  {}", def.folder, m.join("\n  ")));
                }
            }
            (Status::Refused(code), Err(out)) if out.contains(&format!("{code}:")) => done += 1,
            (Status::Refused(code), r) => failures.push(format!("{}: expected {code}, got {r:?}", def.folder)),
            (Status::Complete, Err(e)) => failures.push(format!("{}: plan failed:\n{e}", def.folder)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(done > 0, "no definition was compared");
}

fn status_word(s: Status) -> String {
    match s {
        Status::Complete => "complete".into(),
        Status::Refused(code) => format!("refused ({code})"),
        Status::NotYet => "not yet expressed".into(),
    }
}

/// The README's table has one row per upstream folder, with this test's status, and its figure
/// counts them; every folder of the upstream index is in [`DEFINITIONS`], each `.tf` file here
/// belongs to a definition that is not `NotYet`.
#[test]
fn the_readme_table_gives_each_definitions_status_and_the_figure() {
    let readme = std::fs::read_to_string(repo_root().join("acceptance-tests/upstream/README.md")).unwrap_or_default();
    let mut wrong = Vec::new();
    for def in DEFINITIONS {
        let want = format!("| `{}` | {} |", def.folder, status_word(def.status));
        if !readme.contains(&want) {
            wrong.push(want);
        }
        let tf = repo_root().join(format!("acceptance-tests/upstream/{}.tf", def.folder));
        if tf.is_file() == (def.status == Status::NotYet) {
            wrong.push(format!(
                "{}: a .tf file goes with a status other than not yet expressed",
                def.folder
            ));
        }
    }
    let count = |f: fn(&Status) -> bool| DEFINITIONS.iter().filter(|d| f(&d.status)).count();
    let figure = format!(
        "**{} of {} complete, {} refused, {} not yet expressed.**",
        count(|s| *s == Status::Complete),
        DEFINITIONS.len(),
        count(|s| matches!(s, Status::Refused(_))),
        count(|s| *s == Status::NotYet),
    );
    if !readme.contains(&figure) {
        wrong.push(figure);
    }
    assert!(
        wrong.is_empty(),
        "acceptance-tests/upstream/README.md lacks:\n{}",
        wrong.join("\n")
    );
    let dir = upstream_dir();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        skip(&format!("{} is absent: the folder list is not checked", dir.display()));
        return;
    };
    let mut folders: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    let mut ours: Vec<String> = DEFINITIONS.iter().map(|d| d.folder.to_owned()).collect();
    ours.sort();
    assert_eq!(ours, folders, "one definition per upstream folder");
}
