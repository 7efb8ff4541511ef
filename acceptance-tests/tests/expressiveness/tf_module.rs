//! terraform-aws-modules/terraform-aws-eks `eks_managed_node_groups` entries as the AWS requests
//! the module makes of them: the `CreateNodegroup` request (EKS API) and the `CreateLaunchTemplate`
//! request (EC2 API, `LaunchTemplateData`), the shapes `expressiveness.rs` compares with what a
//! node group pool renders.
//!
//! How: the entry's text is cut out of the upstream `.tf` (brace matching), references the module
//! call leaves in get the values the definition's `SOURCE` names (normalisation 1), and the real
//! Terraform CLI evaluates it (a configuration of `locals` and `output` only, applied without any
//! provider), so heredocs, functions and `merge()` mean what they mean to Terraform. The evaluated
//! object is then mapped to the requests the way the module does, read from its source at the
//! version a definition pins (<https://github.com/terraform-aws-modules/terraform-aws-eks>):
//!
//! - [`Major::V20`]: `~> 20.34` resolves to v20.37.2, the newest 20.x: `node_groups.tf`
//!   (`module "eks_managed_node_group"`: each input `try(entry, eks_managed_node_group_defaults,
//!   default)`), `modules/eks-managed-node-group/main.tf` (`aws_launch_template.this`,
//!   `aws_eks_node_group.this`, `aws_placement_group.this`, `local.efa_network_interfaces`) with
//!   its `variables.tf` defaults, and `modules/_user_data/main.tf` (the `cloudinit_config` parts).
//! - [`Major::V21`]: v21.19.0 (commit bef29c4d9523523e57fe898643fde2895106b339), the same files.
//!   Where v21 differs: no `eks_managed_node_group_defaults` (each entry stands alone); inputs
//!   typed `optional()` and submodule variables `nullable = false`, so an unset field takes the
//!   submodule's default; `metadata_options` hop limit 1 (v20: 2); `enable_monitoring` default
//!   `false` (v20: `true`); EFA interfaces carry a `description`; an EFA node group gets a
//!   security group of its own (`aws_security_group.this`, rule `all_self_efa`) beside the
//!   module's node security group; no placement-group subnet filtering.
//!
//! What the AWS provider (hashicorp/terraform-provider-aws, `internal/service/eks/node_group.go`
//! `resourceNodeGroupCreate`, `internal/service/ec2/ec2_launch_template.go`
//! `expandRequestLaunchTemplateData`) sends of those arguments: unset (null, `""`, empty) fields
//! are not sent; `metadata_options` sends `HttpTokens` and `HttpPutResponseHopLimit` only with
//! `HttpEndpoint = enabled`; `tag_specifications` blocks come from `toset()`, in the set's
//! (lexical) order; `user_data` is base64 already (the module encodes it).
//!
//! Values the module makes at apply and a definition gives (normalisation 1): the IAM role, the
//! security groups and the launch template's id, the subnets, and the unique suffixes the AWS
//! provider appends to `node_group_name_prefix` / `name_prefix`.

use serde_json::{Map, Value, json};

use eksgpu_acceptance_tests::{Workdir, terraform_versions};

/// The module's major version a definition pins (see the module doc for what differs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Major {
    V20,
    V21,
}

/// What the module call around the entry gives the node group, and what the module and the AWS
/// provider make at apply (the values a definition names).
pub struct ModuleCall<'a> {
    pub major: Major,
    /// The entry's key in `eks_managed_node_groups`.
    pub key: &'a str,
    /// `cluster_name` (v20) / `name` (v21) of the module call.
    pub cluster_name: &'a str,
    /// `cluster_version` (v20) / `kubernetes_version` (v21) of the module call.
    pub kubernetes_version: &'a str,
    /// The module call's `subnet_ids`, used when the entry has none; v20 EFA / placement group
    /// node groups use the subset in Availability Zones that offer the type (the given values).
    pub subnet_ids: &'a [&'a str],
    /// The module call's `tags`.
    pub tags: &'a [(&'a str, &'a str)],
    /// The node IAM role the module creates (`aws_iam_role.this`).
    pub node_role_arn: &'a str,
    /// The security groups the launch template's network interfaces carry: the module's node
    /// security group, and on v21 EFA node groups their own (`aws_security_group.this`).
    pub security_group_ids: &'a [&'a str],
    /// `aws_ec2_instance_type` `maximum_network_cards` of the first instance type (EC2
    /// DescribeInstanceTypes `NetworkInfo.MaximumNetworkCards`), for the EFA interfaces.
    pub network_cards: i64,
    /// The launch template's id (`lt-…`) the node group refers to.
    pub launch_template_id: &'a str,
    /// The AMI release version the module reads from SSM when `use_latest_ami_release_version`
    /// (v21 default `true`, v20 `false`): `data.aws_ssm_parameter.ami`, e.g.
    /// `/aws/service/eks/optimized-ami/<version>/amazon-linux-2023/x86_64/nvidia/recommended/release_version`.
    pub latest_release_version: &'a str,
    /// What the AWS provider appends to `node_group_name_prefix` (`<name>-`, `use_name_prefix`
    /// defaults `true`): a generated suffix, given the one the pool's `name_prefix` gets (the
    /// provider's eight hex digits, shown in the plan).
    pub node_group_suffix: &'a str,
    /// The launch template's name: the AWS provider generates it from `name_prefix = "<key>-"`
    /// (`launch_template_use_name_prefix` defaults `true`); a definition gives the name the pool's
    /// template has (`<cluster_name>-<pool>`), as `eksug-capacity-block-mng-cfn` gives the one
    /// CloudFormation generates: the template is compared by what it holds.
    pub launch_template_name: &'a str,
}

/// The `CreateLaunchTemplate` and `CreateNodegroup` requests the module makes for the entry
/// `call.key` of `eks_managed_node_groups` in `tf` (the upstream file's text), as two JSON
/// documents separated by `\n---\n` (the stream `expressiveness.rs` `documents()` reads).
/// `values` are normalisation 1's replacements, applied to the entry's text before Terraform
/// evaluates it (e.g. `var.capacity_reservation_id` → `"cr-…"`, quotes included).
pub fn requests(tf: &str, call: &ModuleCall, values: &[(&str, &str)]) -> Result<String, String> {
    let groups = assigned_object(tf, "eks_managed_node_groups", None).ok_or("no eks_managed_node_groups")?;
    let entry = assigned_object(groups, call.key, Some(1)).ok_or_else(|| format!("no entry {}", call.key))?;
    let defaults = match call.major {
        Major::V20 => assigned_object(tf, "eks_managed_node_group_defaults", None).unwrap_or("{}"),
        Major::V21 => "{}",
    };
    let mut entry = entry.to_owned();
    for (k, v) in values {
        entry = entry.replace(k, v);
    }
    let (entry, defaults) = evaluate(&entry, defaults)?;
    let g = Inputs {
        entry: &entry,
        defaults: &defaults,
    };
    let lt = launch_template(call, &g)?;
    let ng = node_group(call, &g);
    Ok(format!("{lt}\n---\n{ng}"))
}

/// The entry and the v20 defaults, evaluated: a field is the entry's, else (v20) the defaults'.
struct Inputs<'a> {
    entry: &'a Value,
    defaults: &'a Value,
}

impl Inputs<'_> {
    /// `try(each.value.X, var.eks_managed_node_group_defaults.X, …)`: the first that is set.
    fn get(&self, k: &str) -> Option<&Value> {
        [self.entry, self.defaults]
            .into_iter()
            .filter_map(|o| o.get(k))
            .find(|v| !v.is_null())
    }
    fn str_or(&self, k: &str, default: &str) -> String {
        self.get(k).and_then(Value::as_str).unwrap_or(default).to_owned()
    }
    fn bool_or(&self, k: &str, default: bool) -> bool {
        self.get(k).and_then(Value::as_bool).unwrap_or(default)
    }
    fn name(&self, call: &ModuleCall) -> String {
        self.str_or("name", call.key)
    }
}

/// The text of the object assigned to `key` (`key = { … }`) at brace depth `depth` of `text` (the
/// first at any depth: `None`), braces included; strings, heredocs and comments are skipped.
fn assigned_object<'t>(text: &'t str, key: &str, depth: Option<usize>) -> Option<&'t str> {
    let b = text.as_bytes();
    let mut level = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => i = skip_string(b, i),
            b'#' => i = skip_line(b, i),
            b'/' if b.get(i + 1) == Some(&b'/') => i = skip_line(b, i),
            b'<' if text[i..].starts_with("<<") => i = skip_heredoc(text, i),
            b'{' => {
                level += 1;
                i += 1;
            }
            b'}' => {
                level = level.saturating_sub(1);
                i += 1;
            }
            _ if depth.is_none_or(|d| d == level) && text[i..].starts_with(key) && at_word_start(b, i) => {
                let rest = text[i + key.len()..].trim_start();
                if let Some(after_eq) = rest.strip_prefix('=') {
                    let value = after_eq.trim_start();
                    if value.starts_with('{') {
                        let start = text.len() - value.len();
                        return matching_brace(text, start).map(|end| &text[start..=end]);
                    }
                }
                i += key.len();
            }
            _ => i += 1,
        }
    }
    None
}

fn at_word_start(b: &[u8], i: usize) -> bool {
    i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b'-' || b[i - 1] == b'.')
}

/// The index of the `}` closing the `{` at `start`.
fn matching_brace(text: &str, start: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut level = 0usize;
    let mut i = start;
    while i < b.len() {
        match b[i] {
            b'"' => i = skip_string(b, i),
            b'#' => i = skip_line(b, i),
            b'/' if b.get(i + 1) == Some(&b'/') => i = skip_line(b, i),
            b'<' if text[i..].starts_with("<<") => i = skip_heredoc(text, i),
            b'{' => {
                level += 1;
                i += 1;
            }
            b'}' => {
                level = level.checked_sub(1)?;
                if level == 0 {
                    return Some(i);
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    None
}

/// Past the quoted string starting at `i` (backslash escapes honoured).
fn skip_string(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

fn skip_line(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i] != b'\n' {
        i += 1;
    }
    i
}

/// Past a heredoc `<<EOT` / `<<-EOT` starting at `i`: to the end of its closing line.
fn skip_heredoc(text: &str, i: usize) -> usize {
    let rest = &text[i + 2..];
    let rest = rest.strip_prefix('-').unwrap_or(rest);
    let marker: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if marker.is_empty() {
        return i + 2;
    }
    let mut at = i + 2;
    // The body starts on the next line; it ends at a line that is the marker alone.
    let mut lines = text[at..].split_inclusive('\n');
    if let Some(first) = lines.next() {
        at += first.len();
    }
    for line in lines {
        at += line.len();
        if line.trim() == marker {
            return at;
        }
    }
    text.len()
}

/// The entry and the defaults as Terraform evaluates them (`terraform apply` of `locals` and
/// `output`s, no provider; `terraform output -json`).
fn evaluate(entry: &str, defaults: &str) -> Result<(Value, Value), String> {
    let tf = terraform_versions().into_iter().last().ok_or("no Terraform CLI")?;
    let main = format!(
        "locals {{\n  entry = {entry}\n  defaults = {defaults}\n}}\n\
         output \"entry\" {{\n  value = local.entry\n}}\n\
         output \"defaults\" {{\n  value = local.defaults\n}}\n"
    );
    let w = Workdir::new(&tf, &main);
    for args in [&["init", "-no-color"][..], &["apply", "-auto-approve", "-no-color"]] {
        let r = w.run(args);
        if r.code != 0 {
            return Err(format!("terraform {}: {}\n{main}", args.join(" "), r.combined()));
        }
    }
    let r = w.run(&["output", "-json"]);
    let out: Value = serde_json::from_str(&r.stdout).map_err(|e| format!("terraform output: {e}"))?;
    Ok((out["entry"]["value"].clone(), out["defaults"]["value"].clone()))
}

/// Inserts `v` unless it is what the AWS provider does not send (null, `""`, empty list or map).
fn put(m: &mut Map<String, Value>, k: &str, v: Value) {
    let empty = match &v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    };
    if !empty {
        m.insert(k.to_owned(), v);
    }
}

/// `merge(a, b, …)` of string maps, later keys winning.
fn merge(maps: &[&Value]) -> Map<String, Value> {
    let mut out = Map::new();
    for m in maps {
        if let Some(o) = m.as_object() {
            out.extend(o.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
    }
    out
}

/// Tags as an EC2 `Tags` list, in the order Terraform iterates a map: its keys' lexical order.
fn tag_list(tags: &Map<String, Value>) -> Value {
    let mut keys: Vec<&String> = tags.keys().collect();
    keys.sort();
    Value::Array(keys.into_iter().map(|k| json!({"Key": k, "Value": tags[k]})).collect())
}

/// The node group's `tags` as the module gives them: `merge(var.tags, each.value.tags)`.
fn group_tags(call: &ModuleCall, g: &Inputs) -> Value {
    let module: Map<String, Value> = call.tags.iter().map(|(k, v)| ((*k).to_owned(), json!(v))).collect();
    Value::Object(merge(&[&Value::Object(module), g.get("tags").unwrap_or(&Value::Null)]))
}

/// `aws_launch_template.this` as `CreateLaunchTemplate` (module main.tf; the module makes one
/// unless `use_custom_launch_template = false`, which no definition here sets).
fn launch_template(call: &ModuleCall, g: &Inputs) -> Result<Value, String> {
    if !g.bool_or("use_custom_launch_template", true) || !g.bool_or("create_launch_template", true) {
        return Err("use_custom_launch_template = false: no launch template (not translated)".into());
    }
    let name = g.name(call);
    let tags = group_tags(call, g);
    let mut d = Map::new();
    if let Some(b) = g.get("block_device_mappings").and_then(Value::as_object) {
        put(&mut d, "BlockDeviceMappings", block_devices(b));
    }
    if let Some(c) = g.get("capacity_reservation_specification") {
        let mut s = Map::new();
        put(
            &mut s,
            "CapacityReservationPreference",
            c["capacity_reservation_preference"].clone(),
        );
        let t = &c["capacity_reservation_target"];
        let mut target = Map::new();
        put(
            &mut target,
            "CapacityReservationId",
            t["capacity_reservation_id"].clone(),
        );
        put(
            &mut target,
            "CapacityReservationResourceGroupArn",
            t["capacity_reservation_resource_group_arn"].clone(),
        );
        put(&mut s, "CapacityReservationTarget", Value::Object(target));
        put(&mut d, "CapacityReservationSpecification", Value::Object(s));
    }
    if let Some(m) = g.get("instance_market_options") {
        let mut o = Map::new();
        put(&mut o, "MarketType", m["market_type"].clone());
        if m.get("spot_options").is_some_and(|s| !s.is_null()) {
            return Err("instance_market_options.spot_options: not translated".into());
        }
        put(&mut d, "InstanceMarketOptions", Value::Object(o));
    }
    let capacity_type = g.str_or("capacity_type", "ON_DEMAND");
    let types = g.get("instance_types").cloned().unwrap_or(Value::Null);
    if capacity_type == "CAPACITY_BLOCK" {
        // "Instance type(s) are generally set on the node group, except when a ML capacity
        // block reservation is used": `element(var.instance_types, 0)`.
        put(&mut d, "InstanceType", types[0].clone());
    }
    put(&mut d, "ImageId", g.get("ami_id").cloned().unwrap_or(Value::Null));
    put(&mut d, "KeyName", g.get("key_name").cloned().unwrap_or(Value::Null));
    put(
        &mut d,
        "EbsOptimized",
        g.get("ebs_optimized").cloned().unwrap_or(Value::Null),
    );
    put(&mut d, "MetadataOptions", metadata_options(call, g));
    // `dynamic "monitoring"` only when enabled; v20 defaults it on, v21 off.
    if g.bool_or("enable_monitoring", call.major == Major::V20) {
        d.insert("Monitoring".into(), json!({"Enabled": true}));
    }
    let efa = g.bool_or("enable_efa_support", false);
    let interfaces = if efa {
        efa_interfaces(call, g)
    } else if g
        .get("network_interfaces")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty())
    {
        return Err("network_interfaces without EFA: not translated".into());
    } else {
        Vec::new()
    };
    put(&mut d, "NetworkInterfaces", Value::Array(interfaces));
    // `create_placement_group = enable_efa_support || create_placement_group`; the group is
    // `"${var.cluster_name}-${var.name}"`.
    if efa || g.bool_or("create_placement_group", false) {
        d.insert(
            "Placement".into(),
            json!({"GroupName": format!("{}-{name}", call.cluster_name)}),
        );
    } else if g.get("placement").is_some() {
        return Err("placement: not translated".into());
    }
    let instance_tags = merge(&[
        &tags,
        &json!({"Name": name}),
        g.get("launch_template_tags").unwrap_or(&Value::Null),
    ]);
    let mut kinds: Vec<String> = g
        .get("tag_specifications")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_else(|| ["instance", "volume", "network-interface"].map(str::to_owned).to_vec());
    // `for_each = toset(var.tag_specifications)`: a set of strings iterates in lexical order.
    kinds.sort();
    kinds.dedup();
    let specs: Vec<Value> = kinds
        .iter()
        .map(|k| json!({"ResourceType": k, "Tags": tag_list(&instance_tags)}))
        .collect();
    put(&mut d, "TagSpecifications", Value::Array(specs));
    put(&mut d, "UserData", json!(user_data(g)?));
    if interfaces_absent(&d) {
        // `vpc_security_group_ids = length(local.network_interfaces) > 0 ? [] : local.security_group_ids`
        put(
            &mut d,
            "SecurityGroupIds",
            json!(call.security_group_ids.iter().collect::<Vec<_>>()),
        );
    }
    let description = format!("Custom launch template for {name} EKS managed node group");
    let template_tags = merge(&[&tags, g.get("launch_template_tags").unwrap_or(&Value::Null)]);
    let mut req = Map::new();
    let lt_name = if g.bool_or("launch_template_use_name_prefix", true) {
        call.launch_template_name.to_owned()
    } else {
        g.str_or("launch_template_name", call.key)
    };
    req.insert("LaunchTemplateName".into(), json!(lt_name));
    req.insert("LaunchTemplateData".into(), Value::Object(d));
    req.insert("VersionDescription".into(), json!(description));
    if !template_tags.is_empty() {
        req.insert(
            "TagSpecifications".into(),
            json!([{"ResourceType": "launch-template", "Tags": tag_list(&template_tags)}]),
        );
    }
    Ok(json!({ "CreateLaunchTemplate": req }))
}

fn interfaces_absent(d: &Map<String, Value>) -> bool {
    !d.contains_key("NetworkInterfaces")
}

/// `block_device_mappings` (a map of `device_name`, `ebs`) as EC2 `BlockDeviceMappings`.
fn block_devices(b: &Map<String, Value>) -> Value {
    let fields = [
        ("delete_on_termination", "DeleteOnTermination"),
        ("encrypted", "Encrypted"),
        ("iops", "Iops"),
        ("kms_key_id", "KmsKeyId"),
        ("snapshot_id", "SnapshotId"),
        ("throughput", "Throughput"),
        ("volume_initialization_rate", "VolumeInitializationRate"),
        ("volume_size", "VolumeSize"),
        ("volume_type", "VolumeType"),
    ];
    // `for_each` over a map: its keys in lexical order.
    Value::Array(
        b.values()
            .map(|m| {
                let mut ebs = Map::new();
                for (tf, api) in fields {
                    put(&mut ebs, api, m["ebs"][tf].clone());
                }
                let mut o = Map::new();
                put(&mut o, "DeviceName", m["device_name"].clone());
                put(&mut o, "Ebs", Value::Object(ebs));
                o.into()
            })
            .collect(),
    )
}

/// `metadata_options`: v20 root `local.metadata_options` (endpoint enabled, tokens required, hop
/// limit 2), v21 the variable's default (hop limit 1).
fn metadata_options(call: &ModuleCall, g: &Inputs) -> Value {
    let hop = if call.major == Major::V20 { 2 } else { 1 };
    let default = json!({"http_endpoint": "enabled", "http_tokens": "required", "http_put_response_hop_limit": hop});
    let m = g.get("metadata_options").unwrap_or(&default);
    let mut o = Map::new();
    put(&mut o, "HttpEndpoint", m["http_endpoint"].clone());
    if m["http_endpoint"] == "enabled" {
        put(&mut o, "HttpTokens", m["http_tokens"].clone());
        put(
            &mut o,
            "HttpPutResponseHopLimit",
            m["http_put_response_hop_limit"].clone(),
        );
        put(&mut o, "InstanceMetadataTags", m["instance_metadata_tags"].clone());
    }
    put(&mut o, "HttpProtocolIpv6", m["http_protocol_ipv6"].clone());
    Value::Object(o)
}

/// `local.efa_network_interfaces`: one interface per network card, card 0 at device 0 and the
/// others at device 1; `efa` everywhere, or with `enable_efa_only` `efa` on card 0 and the
/// `efa_indices` cards and `efa-only` on the others. Each carries the launch template's security
/// groups (`compact(concat(ni.security_groups, local.security_group_ids))`).
fn efa_interfaces(call: &ModuleCall, g: &Inputs) -> Vec<Value> {
    let only = g.bool_or("enable_efa_only", false);
    let indices: Vec<i64> = g
        .get("efa_indices")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_i64().or_else(|| v.as_str().and_then(|s| s.parse().ok())))
                .collect()
        })
        .unwrap_or_else(|| vec![0]);
    (0..call.network_cards)
        .map(|i| {
            let efa = !only || i == 0 || indices.contains(&i);
            let mut n = Map::new();
            n.insert("AssociatePublicIpAddress".into(), json!(false));
            n.insert("DeleteOnTermination".into(), json!(true));
            if call.major == Major::V21 {
                let kind = if only { "-only" } else { "" };
                n.insert("Description".into(), json!(format!("EFA{kind} Network Interface {i}")));
            }
            n.insert("DeviceIndex".into(), json!(i64::from(i != 0)));
            put(
                &mut n,
                "Groups",
                json!(call.security_group_ids.iter().collect::<Vec<_>>()),
            );
            n.insert("InterfaceType".into(), json!(if efa { "efa" } else { "efa-only" }));
            n.insert("NetworkCardIndex".into(), json!(i));
            n.into()
        })
        .collect()
}

/// `module.user_data.user_data` of an EKS managed node group without a custom AMI
/// (`enable_bootstrap_user_data = false`): AL2023 with `cloudinit_pre_nodeadm` parts, the
/// `cloudinit_config` MIME document of them (boundary `MIMEBOUNDARY`); AL2 with
/// `pre_bootstrap_user_data`, one `text/x-shellscript` part (boundary `//`); otherwise the
/// template renders nothing (no user data).
fn user_data(g: &Inputs) -> Result<String, String> {
    if g.bool_or("enable_bootstrap_user_data", false) || g.get("ami_id").is_some() {
        return Err("enable_bootstrap_user_data / ami_id: not translated".into());
    }
    let ami_type = g.str_or("ami_type", "AL2023_x86_64_STANDARD");
    let parts: Vec<(String, String)> = if ami_type.starts_with("AL2023_") {
        g.get("cloudinit_pre_nodeadm")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|p| {
                let ct = p["content_type"].as_str().unwrap_or("text/plain").to_owned();
                (ct, p["content"].as_str().unwrap_or_default().to_owned())
            })
            .collect()
    } else if ami_type.starts_with("AL2_") {
        let pre = g.str_or("pre_bootstrap_user_data", "");
        if pre.is_empty() {
            Vec::new()
        } else {
            vec![("text/x-shellscript".to_owned(), pre)]
        }
    } else if g.get("bootstrap_extra_args").is_some() {
        return Err(format!("{ami_type} bootstrap_extra_args: not translated"));
    } else {
        Vec::new()
    };
    if parts.is_empty() {
        return Ok(String::new());
    }
    let boundary = if ami_type.starts_with("AL2023_") {
        "MIMEBOUNDARY"
    } else {
        "//"
    };
    use base64::Engine as _;
    Ok(base64::engine::general_purpose::STANDARD.encode(cloudinit_mime(boundary, &parts)))
}

/// The document hashicorp/terraform-provider-cloudinit renders (internal/provider/cloudinit_config.go
/// `renderPartsToWriter`, Go `mime/multipart`): a `Content-Type` line ending `\n`, `MIME-Version:
/// 1.0` and a blank line with CRLF, then each part's canonical headers sorted by name, a blank line
/// and its content, and the closing boundary.
fn cloudinit_mime(boundary: &str, parts: &[(String, String)]) -> String {
    let mut out = format!("Content-Type: multipart/mixed; boundary=\"{boundary}\"\nMIME-Version: 1.0\r\n\r\n");
    for (i, (content_type, content)) in parts.iter().enumerate() {
        if i > 0 {
            out.push_str("\r\n");
        }
        out.push_str(&format!(
            "--{boundary}\r\nContent-Transfer-Encoding: 7bit\r\nContent-Type: {content_type}\r\nMime-Version: 1.0\r\n\r\n{content}"
        ));
    }
    out.push_str(&format!("\r\n--{boundary}--\r\n"));
    out
}

/// `aws_eks_node_group.this` as `CreateNodegroup`.
fn node_group(call: &ModuleCall, g: &Inputs) -> Value {
    let name = g.name(call);
    let capacity_type = g.str_or("capacity_type", "ON_DEMAND");
    let mut r = Map::new();
    r.insert("clusterName".into(), json!(call.cluster_name));
    let group_name = if g.bool_or("use_name_prefix", true) {
        format!("{name}-{}", call.node_group_suffix)
    } else {
        name.clone()
    };
    r.insert("nodegroupName".into(), json!(group_name));
    r.insert("nodeRole".into(), json!(call.node_role_arn));
    let subnets = g
        .get("subnet_ids")
        .cloned()
        .unwrap_or_else(|| json!(call.subnet_ids.iter().collect::<Vec<_>>()));
    r.insert("subnets".into(), subnets);
    // v20 `try(…, 1)`, `3`, `1`; v21 the submodule's defaults, the same.
    let size = |k: &str, d: i64| g.get(k).cloned().unwrap_or(json!(d));
    let (min, max, desired) = (1, 3, 1);
    r.insert(
        "scalingConfig".into(),
        json!({"minSize": size("min_size", min), "maxSize": size("max_size", max), "desiredSize": size("desired_size", desired)}),
    );
    put(&mut r, "amiType", g.get("ami_type").cloned().unwrap_or(Value::Null));
    let latest = g.bool_or("use_latest_ami_release_version", call.major == Major::V21);
    let release = if latest {
        json!(call.latest_release_version)
    } else {
        g.get("ami_release_version").cloned().unwrap_or(Value::Null)
    };
    put(&mut r, "releaseVersion", release);
    r.insert("version".into(), json!(call.kubernetes_version));
    r.insert("capacityType".into(), json!(capacity_type));
    if capacity_type != "CAPACITY_BLOCK" {
        put(
            &mut r,
            "instanceTypes",
            g.get("instance_types").cloned().unwrap_or(Value::Null),
        );
    }
    put(&mut r, "labels", g.get("labels").cloned().unwrap_or(Value::Null));
    r.insert(
        "launchTemplate".into(),
        json!({"id": call.launch_template_id, "version": "1"}),
    );
    // `dynamic "taint" { for_each = var.taints }`: a map's values or a list's items (data-on-eks
    // writes a list); a bool `value` is the string Terraform converts it to.
    let taints: Vec<Value> = match g.get("taints") {
        Some(Value::Object(t)) => t.values().collect(),
        Some(Value::Array(t)) => t.iter().collect(),
        _ => Vec::new(),
    }
    .into_iter()
    .map(|t| json!({"key": t["key"], "value": t["value"], "effect": t["effect"]}))
    .collect();
    put(&mut r, "taints", Value::Array(taints));
    let default_update = json!({"max_unavailable_percentage": 33});
    let u = g.get("update_config").unwrap_or(&default_update);
    let mut update = Map::new();
    put(&mut update, "maxUnavailable", u["max_unavailable"].clone());
    put(
        &mut update,
        "maxUnavailablePercentage",
        u["max_unavailable_percentage"].clone(),
    );
    put(&mut update, "updateStrategy", u["update_strategy"].clone());
    put(&mut r, "updateConfig", Value::Object(update));
    if let Some(n) = g.get("node_repair_config") {
        let mut repair = Map::new();
        // v21's `enabled = optional(bool, true)`; v20 passes the map as written.
        let enabled = n.get("enabled").cloned().filter(|v| !v.is_null());
        put(
            &mut repair,
            "enabled",
            enabled.unwrap_or(if call.major == Major::V21 {
                json!(true)
            } else {
                Value::Null
            }),
        );
        for (tf, api) in [
            ("max_parallel_nodes_repaired_count", "maxParallelNodesRepairedCount"),
            (
                "max_parallel_nodes_repaired_percentage",
                "maxParallelNodesRepairedPercentage",
            ),
            ("max_unhealthy_node_threshold_count", "maxUnhealthyNodeThresholdCount"),
            (
                "max_unhealthy_node_threshold_percentage",
                "maxUnhealthyNodeThresholdPercentage",
            ),
        ] {
            put(&mut repair, api, n.get(tf).cloned().unwrap_or(Value::Null));
        }
        put(&mut r, "nodeRepairConfig", Value::Object(repair));
    }
    let tags = merge(&[&group_tags(call, g), &json!({"Name": name})]);
    r.insert("tags".into(), Value::Object(tags));
    json!({ "CreateNodegroup": r })
}

/// The module calls of the definitions translated here, by upstream folder: what each
/// definition's `SOURCE` names around its entry (normalisation 1), and what the module and the
/// AWS provider make at apply (given the values the pool's HCL uses, so a field compares by what
/// it says, not by a generated id).
const CALLS: &[(&str, ModuleCall)] = &[
    // aws-ia/terraform-aws-eks-blueprints@98d0eb40 patterns/nvidia-gpu-efa: `~> 20.34`;
    // `local.name = basename(path.cwd)`, `local.tags` from the pattern's main.tf.
    (
        "eksbp-nvidia-gpu-efa",
        ModuleCall {
            major: Major::V20,
            key: "nvidia-efa",
            cluster_name: "nvidia-gpu-efa",
            kubernetes_version: "1.32",
            subnet_ids: &["subnet-0a1b2c3d4e5f60001", "subnet-0a1b2c3d4e5f60002"],
            tags: BLUEPRINT_TAGS_EFA,
            node_role_arn: "arn:aws:iam::123456789012:role/nvidia-efa-eks-node-group",
            security_group_ids: &["sg-0a1b2c3d4e5f60001"],
            network_cards: 32,
            launch_template_id: "lt-0a1b2c3d4e5f60001",
            latest_release_version: "",
            node_group_suffix: "d28ee552",
            launch_template_name: "nvidia-gpu-efa-nvidia-efa",
        },
    ),
    // The same repository's patterns/ml-capacity-block: `~> 20.34`.
    (
        "eksbp-ml-capacity-block",
        ModuleCall {
            major: Major::V20,
            key: "cbr",
            cluster_name: "ml-capacity-block",
            kubernetes_version: "1.32",
            subnet_ids: &["subnet-0a1b2c3d4e5f60001"],
            tags: BLUEPRINT_TAGS_CB,
            node_role_arn: "arn:aws:iam::123456789012:role/cbr-eks-node-group",
            security_group_ids: &["sg-0a1b2c3d4e5f60001"],
            network_cards: 32,
            launch_template_id: "lt-0a1b2c3d4e5f60001",
            latest_release_version: "",
            node_group_suffix: "dc9802ea",
            launch_template_name: "ml-capacity-block-cbr",
        },
    ),
    // terraform-aws-modules/terraform-aws-eks@bef29c4d tests/eks-managed-node-group: the module
    // itself (`source = "../.."`, v21.19.0); `local.name` of that folder, `local.tags`.
    (
        "tfeks-efa-p4d",
        ModuleCall {
            major: Major::V21,
            key: "efa",
            cluster_name: "ex-eks-managed-node-group",
            kubernetes_version: "1.33",
            subnet_ids: &[
                "subnet-0a1b2c3d4e5f60001",
                "subnet-0a1b2c3d4e5f60002",
                "subnet-0a1b2c3d4e5f60003",
            ],
            tags: &[
                ("Test", "ex-eks-managed-node-group"),
                ("GithubRepo", "terraform-aws-eks"),
                ("GithubOrg", "terraform-aws-modules"),
            ],
            node_role_arn: "arn:aws:iam::123456789012:role/efa-eks-node-group",
            security_group_ids: &["sg-0a1b2c3d4e5f60001", "sg-0a1b2c3d4e5f60002"],
            network_cards: 4,
            launch_template_id: "lt-0a1b2c3d4e5f60001",
            latest_release_version: "1.33.4-20250821",
            node_group_suffix: "dbbd77ff",
            launch_template_name: "ex-eks-managed-node-group-efa",
        },
    ),
    // awslabs/data-on-eks@11f2e445 ai-ml/trainium-inferentia: `~> 20.17` (v20.37.2); the module
    // call's `tags = merge(local.tags, {"karpenter.sh/discovery" = local.name})` with `local.name =
    // var.name` ("trainium-inferentia") and `local.tags` from that folder's main.tf. Kubernetes
    // 1.32 for `var.eks_cluster_version` (default "1.30"): 1.30 left EKS extended support on
    // 2026-07-23 (EKS user guide, kubernetes-versions), and 1.32 is the last version EKS made AL2
    // AMIs for (EKS user guide, eks-ami-deprecation-faqs), which the definitions boot. trn1.32xlarge
    // has 8 network cards (EC2 DescribeInstanceTypes; the provider's network-card table).
    (
        "doeks-trn1-efa-mng",
        ModuleCall {
            major: Major::V20,
            key: "trn1-32xl-ng1",
            cluster_name: "trainium-inferentia",
            kubernetes_version: "1.32",
            subnet_ids: &["subnet-0a1b2c3d4e5f60003"],
            tags: DOEKS_TAGS,
            node_role_arn: "arn:aws:iam::123456789012:role/trn1-32xl-ng1-eks-node-group",
            security_group_ids: &["sg-0a1b2c3d4e5f60001"],
            network_cards: 8,
            launch_template_id: "lt-0a1b2c3d4e5f60001",
            latest_release_version: "",
            node_group_suffix: "8e85417e",
            launch_template_name: "trainium-inferentia-trn1-32xl-ng1",
        },
    ),
    (
        "doeks-inf2-mng",
        ModuleCall {
            major: Major::V20,
            key: "inf2-24xl-ng",
            cluster_name: "trainium-inferentia",
            kubernetes_version: "1.32",
            subnet_ids: &["subnet-0a1b2c3d4e5f60003"],
            tags: DOEKS_TAGS,
            node_role_arn: "arn:aws:iam::123456789012:role/inf2-24xl-ng-eks-node-group",
            security_group_ids: &["sg-0a1b2c3d4e5f60001"],
            network_cards: 0, // no EFA: the module lays out no interfaces
            launch_template_id: "lt-0a1b2c3d4e5f60001",
            latest_release_version: "",
            node_group_suffix: "aca2d6a6",
            launch_template_name: "trainium-inferentia-inf2-24xl-ng",
        },
    ),
    // aws-ia/terraform-aws-eks-blueprints@98d0eb40 patterns/ml-container-cache: `~> 20.34`
    // (v20.37.2), `cluster_version = "1.32"`; `local.name = basename(path.cwd)`, `local.tags` from
    // the pattern's main.tf.
    (
        "eksbp-ml-container-cache",
        ModuleCall {
            major: Major::V20,
            key: "gpu",
            cluster_name: "ml-container-cache",
            kubernetes_version: "1.32",
            subnet_ids: &[
                "subnet-0a1b2c3d4e5f60001",
                "subnet-0a1b2c3d4e5f60002",
                "subnet-0a1b2c3d4e5f60003",
            ],
            tags: &[
                ("Blueprint", "ml-container-cache"),
                ("GithubRepo", "github.com/aws-ia/terraform-aws-eks-blueprints"),
            ],
            node_role_arn: "arn:aws:iam::123456789012:role/gpu-eks-node-group",
            security_group_ids: &["sg-0a1b2c3d4e5f60001"],
            network_cards: 0, // no EFA: the module lays out no interfaces
            launch_template_id: "lt-0a1b2c3d4e5f60001",
            latest_release_version: "",
            node_group_suffix: "b38a740b",
            launch_template_name: "ml-container-cache-gpu",
        },
    ),
];

const DOEKS_TAGS: &[(&str, &str)] = &[
    ("Blueprint", "trainium-inferentia"),
    ("GithubRepo", "github.com/awslabs/data-on-eks"),
    ("karpenter.sh/discovery", "trainium-inferentia"),
];

const BLUEPRINT_TAGS_EFA: &[(&str, &str)] = &[
    ("Blueprint", "nvidia-gpu-efa"),
    ("GithubRepo", "github.com/aws-ia/terraform-aws-eks-blueprints"),
];
const BLUEPRINT_TAGS_CB: &[(&str, &str)] = &[
    ("Blueprint", "ml-capacity-block"),
    ("GithubRepo", "github.com/aws-ia/terraform-aws-eks-blueprints"),
];

/// The requests of the definition in `folder` (its `.tf` file's text), for `expressiveness.rs`.
pub fn for_folder(folder: &str, tf: &str, values: &[(&str, &str)]) -> String {
    let Some((_, call)) = CALLS.iter().find(|(f, _)| *f == folder) else {
        panic!("{folder}: no terraform-aws-eks module call in tf_module.rs CALLS");
    };
    requests(tf, call, values).unwrap_or_else(|e| panic!("{folder}: {e}"))
}

/// The translator on a module call of its own (not upstream's): the entry is found past a
/// heredoc with braces and a comment, evaluated by Terraform (`merge()`, a heredoc), and mapped
/// as the v21 module maps it; the v20 defaults fill what the entry leaves unset.
#[test]
fn an_entry_becomes_the_requests_the_module_makes() {
    if terraform_versions().is_empty() {
        eksgpu_acceptance_tests::skip("no Terraform CLI");
        return;
    }
    let tf = r#"
module "eks" {
  note = <<-EOT
    not { an entry
  EOT
  eks_managed_node_group_defaults = {
    node_repair_config = { enabled = true }
  }
  eks_managed_node_groups = {
    # a = { not this one }
    other = { instance_types = ["m5.large"] }
    a = {
      ami_type       = "AL2023_x86_64_NVIDIA"
      instance_types = ["p4d.24xlarge"]
      labels         = merge({ x = "1" }, { y = var.y })
      cloudinit_pre_nodeadm = [{
        content_type = "application/node.eks.aws"
        content      = <<-EOT
          kind: NodeConfig
        EOT
      }]
      enable_efa_support = true
      enable_efa_only    = true
      efa_indices        = [2]
      taints = { gpu = { key = "k", value = "v", effect = "NO_SCHEDULE" } }
    }
  }
}
"#;
    let mut call = ModuleCall {
        major: Major::V21,
        key: "a",
        cluster_name: "c",
        kubernetes_version: "1.33",
        subnet_ids: &["subnet-1"],
        tags: &[("T", "1")],
        node_role_arn: "arn:aws:iam::123456789012:role/r",
        security_group_ids: &["sg-1"],
        network_cards: 4,
        launch_template_id: "lt-1",
        latest_release_version: "1.33.0-1",
        node_group_suffix: "s",
        launch_template_name: "c-a",
    };
    let docs = |call: &ModuleCall| -> Vec<Value> {
        requests(tf, call, &[("var.y", "\"2\"")])
            .unwrap_or_else(|e| panic!("{e}"))
            .split("\n---\n")
            .map(|d| serde_json::from_str(d).unwrap_or_else(|e| panic!("{e}: {d}")))
            .collect()
    };
    let v21 = docs(&call);
    let lt = &v21[0]["CreateLaunchTemplate"];
    let ng = &v21[1]["CreateNodegroup"];
    let kinds: Vec<&str> = lt["LaunchTemplateData"]["NetworkInterfaces"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| n["InterfaceType"].as_str())
        .collect();
    assert_eq!(kinds, ["efa", "efa-only", "efa", "efa-only"]);
    assert_eq!(lt["LaunchTemplateName"], "c-a");
    assert_eq!(lt["LaunchTemplateData"]["Placement"]["GroupName"], "c-a");
    assert_eq!(
        lt["LaunchTemplateData"]["MetadataOptions"]["HttpPutResponseHopLimit"],
        1
    );
    assert!(lt["LaunchTemplateData"].get("Monitoring").is_none(), "v21: off");
    use base64::Engine as _;
    let user_data = base64::engine::general_purpose::STANDARD
        .decode(lt["LaunchTemplateData"]["UserData"].as_str().unwrap_or_default())
        .unwrap_or_default();
    assert_eq!(
        String::from_utf8_lossy(&user_data),
        "Content-Type: multipart/mixed; boundary=\"MIMEBOUNDARY\"\nMIME-Version: 1.0\r\n\r\n--MIMEBOUNDARY\r\n\
         Content-Transfer-Encoding: 7bit\r\nContent-Type: application/node.eks.aws\r\nMime-Version: 1.0\r\n\r\n\
         kind: NodeConfig\n\r\n--MIMEBOUNDARY--\r\n"
    );
    assert_eq!(ng["nodegroupName"], "a-s");
    assert_eq!(ng["labels"], json!({"x": "1", "y": "2"}));
    assert_eq!(ng["releaseVersion"], "1.33.0-1");
    assert_eq!(ng["updateConfig"], json!({"maxUnavailablePercentage": 33}));
    assert_eq!(ng["tags"], json!({"T": "1", "Name": "a"}));
    assert!(ng.get("nodeRepairConfig").is_none(), "v21 has no defaults");
    call.major = Major::V20;
    let v20 = docs(&call);
    let lt = &v20[0]["CreateLaunchTemplate"]["LaunchTemplateData"];
    assert_eq!(lt["MetadataOptions"]["HttpPutResponseHopLimit"], 2);
    assert_eq!(lt["Monitoring"], json!({"Enabled": true}));
    assert_eq!(v20[1]["CreateNodegroup"]["nodeRepairConfig"], json!({"enabled": true}));
    assert!(v20[1]["CreateNodegroup"].get("releaseVersion").is_none());
}

/// The data-on-eks entries (`../shared/upstream/nodepools/doeks-*`, skipped without them): a taint
/// list with a bare `true` value, the v20 defaults' root volume and `ebs_optimized` under an entry
/// without its own (trn1) and the entry's volume over them (inf2), an EFA interface per network
/// card, and the AL2 pre-bootstrap script in a `//` MIME document.
#[test]
fn data_on_eks_entries_take_list_taints_and_the_v20_defaults() {
    let dir = eksgpu_acceptance_tests::repo_root().join("../shared/upstream/nodepools/doeks-trn1-efa-mng/eks.tf");
    let (Ok(tf), false) = (std::fs::read_to_string(&dir), terraform_versions().is_empty()) else {
        eksgpu_acceptance_tests::skip("the data-on-eks definition or a Terraform CLI is absent");
        return;
    };
    let values = [
        ("[module.vpc.private_subnets[2]]", "[\"subnet-0a1b2c3d4e5f60003\"]"),
        ("var.trn1_32xl_min_size", "0"),
        ("var.trn1_32xl_desired_size", "0"),
        ("var.inf2_24xl_min_size", "0"),
        ("var.inf2_24xl_desired_size", "0"),
        ("local.tags", "{}"),
        ("local.name", "\"trainium-inferentia\""),
    ];
    let docs = |folder: &str| -> Vec<Value> {
        for_folder(folder, &tf, &values)
            .split("\n---\n")
            .map(|d| serde_json::from_str(d).unwrap_or_else(|e| panic!("{e}: {d}")))
            .collect()
    };
    let trn1 = docs("doeks-trn1-efa-mng");
    let (lt, ng) = (&trn1[0]["CreateLaunchTemplate"], &trn1[1]["CreateNodegroup"]);
    let d = &lt["LaunchTemplateData"];
    assert_eq!(
        ng["taints"],
        json!([{"key": "aws.amazon.com/neuron", "value": true, "effect": "NO_SCHEDULE"}])
    );
    assert_eq!(d["EbsOptimized"], true, "from eks_managed_node_group_defaults");
    assert_eq!(d["BlockDeviceMappings"][0]["Ebs"]["VolumeSize"], 100);
    assert_eq!(d["NetworkInterfaces"].as_array().map(Vec::len), Some(8));
    assert_eq!(d["Placement"]["GroupName"], "trainium-inferentia-trn1-32xl-ng1");
    assert_eq!(ng["nodegroupName"], "trn1-32xl-ng1-8e85417e");
    use base64::Engine as _;
    let user_data = base64::engine::general_purpose::STANDARD
        .decode(d["UserData"].as_str().unwrap_or_default())
        .unwrap_or_default();
    let user_data = String::from_utf8_lossy(&user_data);
    assert!(
        user_data.starts_with("Content-Type: multipart/mixed; boundary=\"//\"\n")
            && user_data.contains("\r\n\r\n# Mount instance store volumes in RAID-0")
            && user_data.ends_with("&& rm -rf /awscli\n\r\n--//--\r\n"),
        "{user_data:?}"
    );
    let inf2 = docs("doeks-inf2-mng");
    let d = &inf2[0]["CreateLaunchTemplate"]["LaunchTemplateData"];
    assert_eq!(d["BlockDeviceMappings"][0]["Ebs"]["VolumeSize"], 500, "the entry's own");
    assert!(d.get("NetworkInterfaces").is_none());
    assert_eq!(inf2[1]["CreateNodegroup"]["taints"][0]["value"], "true");
    assert_eq!(inf2[1]["CreateNodegroup"]["capacityType"], "ON_DEMAND");
}

/// Every module call in [`CALLS`] translates its upstream entry (where the upstream copies are
/// here): the requests parse, the EFA interfaces are one per network card, and the node group is
/// the entry's. The values are the references each entry leaves (normalisation 1).
#[test]
fn every_module_call_translates_its_upstream_entry() {
    let dir = eksgpu_acceptance_tests::repo_root().join("../shared/upstream/nodepools");
    if !dir.is_dir() || terraform_versions().is_empty() {
        eksgpu_acceptance_tests::skip("no upstream definitions or no Terraform CLI");
        return;
    }
    let values: &[(&str, &str)] = &[
        ("var.capacity_reservation_id", "\"cr-0123456789abcdef0\""),
        ("element(module.vpc.private_subnets, 0)", "\"subnet-0a1b2c3d4e5f60001\""),
        // data-on-eks trainium-inferentia (variables.tf defaults) and ml-container-cache.
        ("[module.vpc.private_subnets[2]]", "[\"subnet-0a1b2c3d4e5f60003\"]"),
        ("var.trn1_32xl_min_size", "0"),
        ("var.trn1_32xl_desired_size", "0"),
        ("var.inf2_24xl_min_size", "0"),
        ("var.inf2_24xl_desired_size", "0"),
        ("local.tags", "{}"),
        ("local.name", "\"trainium-inferentia\""),
        ("local.dev_name", "\"xvdb\""),
        (
            "nonsensitive(data.aws_ssm_parameter.snapshot_id.value)",
            "\"snap-0a1b2c3d4e5f60001\"",
        ),
    ];
    for (folder, call) in CALLS {
        let tf = std::fs::read_dir(dir.join(folder))
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "tf"))
            .filter_map(|e| std::fs::read_to_string(e.path()).ok())
            // The file with the module call (data-on-eks keeps a variables.tf beside it).
            .find(|t| t.contains("eks_managed_node_groups"))
            .unwrap_or_else(|| panic!("{folder}: no .tf file"));
        let out = requests(&tf, call, values).unwrap_or_else(|e| panic!("{folder}: {e}"));
        if std::env::var_os("EKSGPU_EXPRESSIVENESS_DUMP").is_some() {
            eprintln!("{folder}:\n{out}");
        }
        let docs: Vec<Value> = out
            .split("\n---\n")
            .map(|d| serde_json::from_str(d).unwrap_or_else(|e| panic!("{folder}: {e}")))
            .collect();
        let nics = docs[0]["CreateLaunchTemplate"]["LaunchTemplateData"]["NetworkInterfaces"]
            .as_array()
            .map_or(0, Vec::len);
        assert_eq!(i64::try_from(nics).ok(), Some(call.network_cards), "{folder}");
        let name = docs[1]["CreateNodegroup"]["nodegroupName"].as_str().unwrap_or_default();
        assert!(name.starts_with(&format!("{}-", call.key)), "{folder}: {name}");
    }
}
