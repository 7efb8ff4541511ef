//! An eksctl `ClusterConfig` (`eksctl.io/v1alpha5`) read as the AWS requests eksctl makes for each
//! of its `managedNodeGroups[]`: the `CreateNodegroup` request and the `CreateLaunchTemplate` of the
//! launch template eksctl always creates for a managed node group without `launchTemplate`.
//!
//! Written from eksctl's own source at eksctl-io/eksctl@99984adb6164ece593c0728523b7f497ea61d60e
//! (the commit the `eksctl-gpu-node-repair` definition pins; the awsome-distributed-training
//! definitions pin no eksctl version, and this one postdates them):
//!
//! - defaults: `pkg/apis/eksctl.io/v1alpha5/defaults.go` `SetManagedNodeGroupDefaults` (AMI family
//!   AmazonLinux2023, the `alpha.eksctl.io/nodegroup-name` / `-type: managed` tags, the
//!   `alpha.eksctl.io/cluster-name` / `nodegroup-name` labels, IMDSv1 off, an 80 GiB gp3 root of
//!   3000 IOPS and 125 MiB/s; constants in `types.go`);
//! - the node group: `pkg/cfn/builder/managed_nodegroup.go` `AddAllResources` (an
//!   `AWS::EKS::Nodegroup`, whose properties are the `CreateNodegroup` fields; `CAPACITY_BLOCK` and
//!   the instance type in the template for `instanceMarketOptions.marketType: capacity-block`;
//!   `nodeRepairConfig` field by field; the AMI type of `amitype.go` `GetAMIType`);
//! - the template: `pkg/cfn/builder/managed_launch_template.go` `makeLaunchTemplateData` and
//!   `makeTags` (the `Name` tag of `nodegroup.go` `generateNodeName`: `instancePrefix-` then
//!   `instanceName` or `<cluster>-<nodegroup>-Node`), `nodegroup.go` `makeMetadataOptions`,
//!   `block_device_mapping.go`, `network_interfaces.go` `buildNetworkInterfaces` (with
//!   `efaEnabled`: EFA on card 0 device 0, then device 1 of every other card), the cluster placement
//!   group of an EFA node group without `placement` or `capacityReservation`;
//! - subnets: `nodegroup.go` `AssignSubnets` (`privateNetworking` picks `vpc.subnets.private`,
//!   `availabilityZones` the VPC's subnets in those zones);
//! - user data: `pkg/nodebootstrap/al2023.go` `UserData` and `managed_al2.go` `createMimeMessage`
//!   (a MIME multi-part document: `preBootstrapCommands` as `#!/bin/bash` script parts, then
//!   `overrideBootstrapCommand` as a nodeadm `NodeConfig` part).
//!
//! Normalisations (each said where it is applied, none silent):
//! - eksctl's own objects, which the provider's HCL names instead, are placeholders the
//!   definition's `values` give: the node IAM role eksctl creates (with `iam.withAddonPolicies`:
//!   a role the user passes as `node_role_arn`), subnets of the VPC eksctl creates, the placement
//!   group CloudFormation names; the template's name (`${AWS::StackName}`) is the provider's
//!   `<cluster>-<pool>`, the template being referred to by its node group only;
//! - what eksctl writes in Go map order (subnets, tags after `Name`) is sorted: EKS and EC2 take
//!   them as sets;
//! - security groups: eksctl's template names the cluster security group (its VPC importer's
//!   `SecurityGroups`, `pkg/vpc/importer.go`) and, with `efaEnabled` before Kubernetes 1.33, an EFA
//!   group it creates (`pkg/utils/efa/efa.go` `ProcessSecurityGroup`: all traffic to and from
//!   itself; from 1.33 eksctl relies on the cluster group's built-in EFA support), on every EFA
//!   interface (`Groups`) or as `SecurityGroupIds`; both are eksctl's or EKS's objects, given as
//!   values (the HCL's `security_group_ids`);
//! - the MIME envelope of the user data is written the provider's way (boundary `//`, LF line
//!   ends): eksctl's boundary is random per run (Go `mime/multipart`) and it re-marshals the
//!   NodeConfig, adding only empty fields; the parts, their content types and bodies are eksctl's.

use base64::Engine as _;
use serde_json::{Map, Value, json};

/// Network cards of the EFA types the definitions use (EC2 DescribeInstanceTypes
/// `NetworkInfo.MaximumNetworkCards`, which eksctl asks for; EC2 user guide, "Network cards").
const NETWORK_CARDS: &[(&str, i64)] = &[("g5.8xlarge", 1), ("g4dn.xlarge", 1), ("p5.48xlarge", 32)];

/// The `managedNodeGroups[]` keys translated below; any other key fails the test, so a definition
/// is never compared half translated.
const KNOWN: &[&str] = &[
    "name",
    "instanceType",
    "instanceTypes",
    "instancePrefix",
    "instanceName",
    "privateNetworking",
    "efaEnabled",
    "minSize",
    "maxSize",
    "desiredCapacity",
    "availabilityZones",
    "overrideBootstrapCommand",
    "preBootstrapCommands",
    "iam",
    "nodeRepairConfig",
    "capacityReservation",
    "instanceMarketOptions",
    "labels",
    "tags",
    "spot",
    "volumeSize",
    "volumeType",
];

/// The requests of every managed node group of `yaml`, as documents of one stream.
/// `template(cluster, nodegroup)` is the provider's name of the node group's launch template.
pub fn cluster_config(yaml: &str, template: impl Fn(&str, &str) -> String) -> String {
    let cfg: Value = serde_saphyr::from_str(yaml).unwrap_or_else(|e| panic!("eksctl ClusterConfig: {e}"));
    let cluster = cfg["metadata"]["name"].as_str().unwrap_or_default().to_owned();
    let mut docs = Vec::new();
    for ng in cfg["managedNodeGroups"].as_array().into_iter().flatten() {
        let unknown: Vec<&String> = ng
            .as_object()
            .into_iter()
            .flat_map(Map::keys)
            .filter(|k| !KNOWN.contains(&k.as_str()))
            .collect();
        assert!(unknown.is_empty(), "eksctl fields not translated: {unknown:?}");
        // A name YAML reads as another type (`n`, `no`: YAML 1.1 booleans) is no name.
        let name = ng["name"]
            .as_str()
            .unwrap_or_else(|| panic!("a managed node group without a name: {ng}"));
        let lt = template(&cluster, name);
        let (nodegroup, data) = node_group(&cfg, &cluster, ng, &lt);
        docs.push(json!({"CreateLaunchTemplate": {"LaunchTemplateName": lt, "LaunchTemplateData": data}}).to_string());
        docs.push(json!({ "CreateNodegroup": nodegroup }).to_string());
    }
    docs.join("\n---\n")
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_owned))
        .collect()
}

fn string_map(v: &Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

/// `CreateNodegroup` fields and the `LaunchTemplateData` of one node group.
fn node_group(cfg: &Value, cluster: &str, ng: &Value, lt: &str) -> (Map<String, Value>, Value) {
    let name = ng["name"].as_str().unwrap_or_default();
    let types = match ng["instanceTypes"].as_array() {
        Some(_) => strings(&ng["instanceTypes"]),
        None => ng["instanceType"].as_str().map(str::to_owned).into_iter().collect(),
    };
    // SetManagedNodeGroupDefaults: labels and tags eksctl adds.
    let mut labels = string_map(&ng["labels"]);
    labels.insert("alpha.eksctl.io/cluster-name".into(), json!(cluster));
    labels.insert("alpha.eksctl.io/nodegroup-name".into(), json!(name));
    let mut tags = string_map(&ng["tags"]);
    for (k, v) in string_map(&cfg["metadata"]["tags"]) {
        tags.entry(k).or_insert(v);
    }
    tags.insert("alpha.eksctl.io/nodegroup-name".into(), json!(name));
    tags.insert("alpha.eksctl.io/nodegroup-type".into(), json!("managed"));

    let mut req = Map::new();
    req.insert("clusterName".into(), json!(cluster));
    req.insert("nodegroupName".into(), json!(name));
    let mut scaling = Map::new();
    for (from, to) in [
        ("minSize", "minSize"),
        ("maxSize", "maxSize"),
        ("desiredCapacity", "desiredSize"),
    ] {
        if !ng[from].is_null() {
            scaling.insert(to.into(), ng[from].clone());
        }
    }
    req.insert("scalingConfig".into(), Value::Object(scaling));
    req.insert("subnets".into(), json!(subnets(cfg, ng)));
    // Normalisation: the role eksctl creates (createRole, with the add-on policies) or the one given.
    let role = ng["iam"]["instanceRoleARN"]
        .as_str()
        .map_or_else(|| format!("<<eksctl node role of {name}>>"), str::to_owned);
    req.insert("nodeRole".into(), json!(role));
    req.insert("labels".into(), Value::Object(labels));
    req.insert("tags".into(), Value::Object(tags.clone()));
    if let Some(r) = ng["nodeRepairConfig"].as_object() {
        // Field by field under the API's own names (CloudFormation Nodegroup NodeRepairConfig).
        req.insert("nodeRepairConfig".into(), Value::Object(r.clone()));
    }
    if ng["spot"].as_bool() == Some(true) {
        req.insert("capacityType".into(), json!("SPOT"));
    }
    let market = ng["instanceMarketOptions"]["marketType"].as_str();
    let capacity_block = market == Some("capacity-block");
    if capacity_block {
        req.insert("capacityType".into(), json!("CAPACITY_BLOCK"));
    }
    req.insert(
        "amiType".into(),
        json!(ami_type(types.first().map_or("", String::as_str))),
    );
    let version = cfg["metadata"]["version"].as_str().unwrap_or_default();
    let mut data = template_data(cluster, version, ng, lt, &tags);
    if capacity_block {
        assert!(types.len() == 1, "eksctl: one instance type with a capacity block");
        data.insert("InstanceType".into(), json!(types[0]));
    } else {
        req.insert("instanceTypes".into(), json!(types));
    }
    // The template eksctl creates, by its CloudFormation id.
    req.insert(
        "launchTemplate".into(),
        json!({"id": format!("<<eksctl template of {name}>>")}),
    );
    (req, Value::Object(data))
}

/// `GetAMIType` for the AmazonLinux2023 family eksctl defaults to: NVIDIA types (the g and p
/// families, `instanceutils.IsNvidiaInstanceType`), Neuron types (inf, trn), the rest standard;
/// Graviton (a `g` after the generation, e.g. g5g) on arm64.
fn ami_type(instance_type: &str) -> &'static str {
    let family = instance_type.split('.').next().unwrap_or_default();
    // Grace (p6e-gb200) is arm64 too.
    let arm = family.contains("-gb")
        || family
            .trim_start_matches(|c: char| c.is_ascii_alphabetic())
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .starts_with('g');
    match (family.chars().next(), arm) {
        _ if family.starts_with("inf") || family.starts_with("trn") => "AL2023_x86_64_NEURON",
        (Some('g' | 'p'), false) => "AL2023_x86_64_NVIDIA",
        (Some('g' | 'p'), true) => "AL2023_ARM_64_NVIDIA",
        (_, true) => "AL2023_ARM_64_STANDARD",
        _ => "AL2023_x86_64_STANDARD",
    }
}

/// `AssignSubnets`: the VPC's private or public subnets, or those in `availabilityZones`.
fn subnets(cfg: &Value, ng: &Value) -> Vec<String> {
    let kind = if ng["privateNetworking"].as_bool() == Some(true) {
        "private"
    } else {
        "public"
    };
    let mut out: Vec<String> = if ng["availabilityZones"].is_array() {
        // The subnets eksctl's own VPC has in those zones (vpc.SelectNodeGroupSubnets).
        strings(&ng["availabilityZones"])
            .iter()
            .map(|az| format!("<<eksctl {kind} subnet in {az}>>"))
            .collect()
    } else {
        string_map(&cfg["vpc"]["subnets"][kind])
            .values()
            .filter_map(|s| s["id"].as_str().map(str::to_owned))
            .collect()
    };
    out.sort();
    out
}

/// `makeLaunchTemplateData` of a node group without `launchTemplate`.
fn template_data(cluster: &str, version: &str, ng: &Value, lt: &str, tags: &Map<String, Value>) -> Map<String, Value> {
    let name = ng["name"].as_str().unwrap_or_default();
    let mut d = Map::new();
    // makeTags: `Name` first, then the node group's tags (sorted, see the module doc).
    let node_name = format!(
        "{}{}",
        ng["instancePrefix"]
            .as_str()
            .map(|p| format!("{p}-"))
            .unwrap_or_default(),
        ng["instanceName"]
            .as_str()
            .map_or_else(|| format!("{cluster}-{name}-Node"), str::to_owned)
    );
    let mut tag_list = vec![json!({"Key": "Name", "Value": node_name})];
    tag_list.extend(tags.iter().map(|(k, v)| json!({"Key": k, "Value": v})));
    let specs: Vec<Value> = ["instance", "volume", "network-interface"]
        .iter()
        .map(|r| json!({"ResourceType": r, "Tags": tag_list}))
        .collect();
    d.insert("TagSpecifications".into(), Value::Array(specs));
    // makeMetadataOptions with the defaults (disableIMDSv1 true, disablePodIMDS false).
    d.insert(
        "MetadataOptions".into(),
        json!({"HttpPutResponseHopLimit": 2, "HttpTokens": "required"}),
    );
    let reservation = &ng["capacityReservation"];
    if reservation.is_object() {
        let mut spec = Map::new();
        if let Some(p) = reservation["capacityReservationPreference"].as_str() {
            spec.insert("CapacityReservationPreference".into(), json!(p));
        }
        let t = &reservation["capacityReservationTarget"];
        if t.is_object() {
            let mut target = Map::new();
            if let Some(id) = t["capacityReservationID"].as_str() {
                target.insert("CapacityReservationId".into(), json!(id));
            }
            if let Some(arn) = t["capacityReservationResourceGroupARN"].as_str() {
                target.insert("CapacityReservationResourceGroupArn".into(), json!(arn));
            }
            spec.insert("CapacityReservationTarget".into(), Value::Object(target));
        }
        d.insert("CapacityReservationSpecification".into(), Value::Object(spec));
        // eksctl writes the market options only next to a reservation.
        if let Some(m) = ng["instanceMarketOptions"]["marketType"].as_str() {
            d.insert("InstanceMarketOptions".into(), json!({ "MarketType": m }));
        }
    }
    if let Some(u) = user_data(ng) {
        d.insert("UserData".into(), json!(u));
    }
    // The VPC importer's group: the cluster security group.
    let mut groups = vec![json!("<<cluster security group>>")];
    if ng["efaEnabled"].as_bool() == Some(true) {
        // EFA's own group before Kubernetes 1.33 (api.EFABuiltInSupportVersion).
        let minor = version
            .strip_prefix("1.")
            .and_then(|m| m.parse::<u32>().ok())
            .unwrap_or(0);
        if minor < 33 {
            groups.push(json!(format!("<<eksctl EFA security group of {name}>>")));
        }
        let t = ng["instanceType"].as_str().unwrap_or_default();
        let cards = NETWORK_CARDS
            .iter()
            .find(|(n, _)| *n == t)
            .map(|(_, c)| *c)
            .unwrap_or_else(|| panic!("no network card count for {t}"));
        let nis: Vec<Value> = (0..cards)
            .map(|card| {
                let device = i64::from(card > 0);
                json!({"DeviceIndex": device, "NetworkCardIndex": card, "InterfaceType": "efa", "Groups": groups})
            })
            .collect();
        d.insert("NetworkInterfaces".into(), Value::Array(nis));
        // "A reservation should already be created with a placement group": none then.
        if !reservation.is_object() {
            d.insert(
                "Placement".into(),
                json!({ "GroupName": format!("<<placement group of {lt}>>") }),
            );
        }
    } else {
        d.insert("SecurityGroupIds".into(), Value::Array(groups));
    }
    // makeBlockDeviceMappings: the AL2023 root with eksctl's defaults.
    let size = ng["volumeSize"].as_i64().unwrap_or(80);
    let kind = ng["volumeType"].as_str().unwrap_or("gp3");
    let mut ebs = json!({"VolumeSize": size, "VolumeType": kind});
    if kind == "gp3" {
        ebs["Iops"] = json!(3000);
        ebs["Throughput"] = json!(125);
    }
    d.insert(
        "BlockDeviceMappings".into(),
        json!([{"DeviceName": "/dev/xvda", "Ebs": ebs}]),
    );
    d
}

/// AL2023 `UserData`: script parts, then the NodeConfig part, base64 as the API takes it.
fn user_data(ng: &Value) -> Option<String> {
    let mut parts: Vec<(&str, String)> = strings(&ng["preBootstrapCommands"])
        .into_iter()
        .map(|c| ("text/x-shellscript; charset=\"us-ascii\"", format!("#!/bin/bash\n{c}")))
        .collect();
    if let Some(nc) = ng["overrideBootstrapCommand"].as_str() {
        parts.push(("application/node.eks.aws", nc.to_owned()));
    }
    if parts.is_empty() {
        return None;
    }
    // Normalisation: the provider's envelope (module doc).
    let mut mime = String::from("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"//\"\n\n");
    for (content_type, body) in parts {
        let body = if body.ends_with('\n') {
            body
        } else {
            format!("{body}\n")
        };
        mime.push_str(&format!("--//\nContent-Type: {content_type}\n\n{body}\n"));
    }
    mime.push_str("--//--\n");
    Some(base64::engine::general_purpose::STANDARD.encode(mime))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn requests(yaml: &str) -> Vec<Value> {
        cluster_config(yaml, |c, n| format!("{c}-{n}"))
            .split("\n---\n")
            .map(|d| serde_json::from_str(d).expect("json"))
            .collect()
    }

    /// A Capacity Block with EFA, written here: the type in the template, one EFA per card
    /// (device 1 off card 0), no placement group next to the reservation, CAPACITY_BLOCK.
    #[test]
    fn a_capacity_block_efa_group_reads_as_eksctl_builds_it() {
        let r = requests(
            "metadata: {name: c}\nmanagedNodeGroups:\n- name: ng\n  instanceType: p5.48xlarge\n  efaEnabled: true\n  \
             capacityReservation: {capacityReservationTarget: {capacityReservationID: cr-1}}\n  \
             instanceMarketOptions: {marketType: capacity-block}\n",
        );
        let data = &r[0]["CreateLaunchTemplate"]["LaunchTemplateData"];
        let nis = data["NetworkInterfaces"].as_array().expect("interfaces");
        assert_eq!(nis.len(), 32);
        assert_eq!(nis[0]["DeviceIndex"], 0);
        assert_eq!(
            nis[31],
            json!({"DeviceIndex": 1, "NetworkCardIndex": 31, "InterfaceType": "efa", "Groups": [
                "<<cluster security group>>",
                "<<eksctl EFA security group of ng>>",
            ]})
        );
        assert!(data.get("Placement").is_none(), "{data}");
        assert_eq!(data["InstanceType"], "p5.48xlarge");
        assert_eq!(data["InstanceMarketOptions"]["MarketType"], "capacity-block");
        let ng = &r[1]["CreateNodegroup"];
        assert_eq!(ng["capacityType"], "CAPACITY_BLOCK");
        assert!(ng.get("instanceTypes").is_none(), "{ng}");
        assert_eq!(ng["tags"]["alpha.eksctl.io/nodegroup-type"], "managed");
    }

    /// Without a reservation an EFA group gets a placement group; `instancePrefix` leads the
    /// `Name` tag; the AMI type follows the type.
    #[test]
    fn an_efa_group_without_a_reservation_gets_a_placement_group_and_its_name_tag() {
        let r = requests(
            "metadata: {name: c}\nmanagedNodeGroups:\n- name: ng\n  instanceType: g5.8xlarge\n  efaEnabled: true\n  \
             instancePrefix: x\n",
        );
        let data = &r[0]["CreateLaunchTemplate"]["LaunchTemplateData"];
        assert_eq!(data["Placement"]["GroupName"], "<<placement group of c-ng>>");
        assert_eq!(data["TagSpecifications"][0]["Tags"][0]["Value"], "x-c-ng-Node");
        assert_eq!(r[1]["CreateNodegroup"]["amiType"], "AL2023_x86_64_NVIDIA");
        assert_eq!(ami_type("g5g.xlarge"), "AL2023_ARM_64_NVIDIA");
        // From 1.33 the cluster security group alone (built-in EFA support).
        let r = requests(
            "metadata: {name: c, version: \"1.33\"}\nmanagedNodeGroups:\n- name: ng\n  instanceType: g5.8xlarge\n  \
             efaEnabled: true\n",
        );
        let groups = &r[0]["CreateLaunchTemplate"]["LaunchTemplateData"]["NetworkInterfaces"][0]["Groups"];
        assert_eq!(groups, &json!(["<<cluster security group>>"]));
        assert_eq!(ami_type("trn2.48xlarge"), "AL2023_x86_64_NEURON");
        assert_eq!(ami_type("m5.large"), "AL2023_x86_64_STANDARD");
    }
}
