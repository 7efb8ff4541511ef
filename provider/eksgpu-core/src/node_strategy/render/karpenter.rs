//! Karpenter v1 objects (`karpenter.sh/v1` NodePool, `karpenter.k8s.aws/v1`
//! EC2NodeClass) and their EKS Auto Mode counterparts (the same NodePool with
//! `nodeClassRef.group: eks.amazonaws.com`, and `eks.amazonaws.com/v1`
//! NodeClass). Field names and shapes follow the karpenter-provider-aws v1.14.1 CRDs and the EKS Auto Mode NodeClass.

use serde_json::{Map, Value, json};

use super::{Manifest, effective_labels, effective_taints, metadata, string_map};
use crate::kinds;
use crate::model::{Budget, Capacity, NodeClass, NodeStrategy, Pool};

/// Karpenter's AL2023 alias picks the NVIDIA variant of the AMI by instance type.
pub const DEFAULT_AMI_ALIAS: &str = "al2023@latest";
/// Karpenter's root (AL2023) or data (Bottlerocket) volume size without `blockDeviceMappings`
/// (karpenter-provider-aws v1.14.1 pkg/providers/amifamily, DefaultBlockDeviceMappings).
pub const KARPENTER_DEFAULT_VOLUME_SIZE: &str = "20Gi";
/// The discovery tag the EKS Karpenter guides put on subnets and security groups.
pub const DISCOVERY_TAG: &str = "karpenter.sh/discovery";

pub(super) fn node_pool(strategy: &NodeStrategy, pool: &Pool) -> Manifest {
    let node_class_ref = match pool.capacity {
        Capacity::AutoMode => json!({
            "group": kinds::AUTO_MODE_NODE_CLASS.group,
            "kind": kinds::AUTO_MODE_NODE_CLASS.kind,
            // Without a node_class block, the built-in NodeClass of Auto Mode.
            "name": if pool.node_class.is_some() { pool.name.as_str() } else { "default" },
        }),
        _ => json!({
            "group": kinds::EC2_NODE_CLASS.group,
            "kind": kinds::EC2_NODE_CLASS.kind,
            "name": pool.name,
        }),
    };
    let mut requirements = vec![json!({
        "key": "node.kubernetes.io/instance-type",
        "operator": "In",
        "values": pool.instance_types,
    })];
    let capacity_types = if pool.capacity_types.is_empty() {
        vec!["on-demand".to_owned()]
    } else {
        pool.capacity_types.clone()
    };
    requirements.push(json!({"key": "karpenter.sh/capacity-type", "operator": "In", "values": capacity_types}));
    if !pool.zones.is_empty() {
        requirements.push(json!({"key": "topology.kubernetes.io/zone", "operator": "In", "values": pool.zones}));
    }

    let mut template_spec = Map::new();
    template_spec.insert("nodeClassRef".into(), node_class_ref);
    template_spec.insert("requirements".into(), Value::Array(requirements));
    // `expireAfter` (pattern `^(([0-9]+(s|m|h))+|Never)$`, default 720h) is on the template in v1.
    if let Some(e) = &pool.expire_after {
        template_spec.insert("expireAfter".into(), e.clone().into());
    }
    let taints = effective_taints(pool);
    if !taints.is_empty() {
        let taints = taints
            .iter()
            .map(|t| {
                let mut m = Map::new();
                m.insert("key".into(), t.key.clone().into());
                if let Some(v) = &t.value {
                    m.insert("value".into(), v.clone().into());
                }
                m.insert("effect".into(), t.effect.clone().into());
                Value::Object(m)
            })
            .collect();
        template_spec.insert("taints".into(), Value::Array(taints));
    }

    let mut template = Map::new();
    let labels = effective_labels(strategy, pool);
    if !labels.is_empty() {
        template.insert("metadata".into(), json!({"labels": string_map(&labels)}));
    }
    template.insert("spec".into(), Value::Object(template_spec));

    let mut spec = Map::new();
    spec.insert("template".into(), Value::Object(template));
    if let Some(d) = &pool.disruption {
        let mut m = Map::new();
        if let Some(p) = &d.consolidation_policy {
            m.insert("consolidationPolicy".into(), p.clone().into());
        }
        // consolidateAfter is required whenever disruption is written (Karpenter v1 CRD).
        m.insert(
            "consolidateAfter".into(),
            d.consolidate_after.clone().unwrap_or_else(|| "0s".to_owned()).into(),
        );
        if !d.budgets.is_empty() {
            m.insert("budgets".into(), d.budgets.iter().map(budget).collect());
        }
        spec.insert("disruption".into(), Value::Object(m));
    }
    let mut limits = Map::new();
    if let Some(limit) = pool.gpu_limit {
        limits.insert("nvidia.com/gpu".into(), limit.into());
    }
    // Quantities are int-or-string in the CRD; strings keep the user's spelling (`4000Gi`).
    if let Some(cpu) = &pool.cpu_limit {
        limits.insert("cpu".into(), cpu.clone().into());
    }
    if let Some(memory) = &pool.memory_limit {
        limits.insert("memory".into(), memory.clone().into());
    }
    if !limits.is_empty() {
        spec.insert("limits".into(), Value::Object(limits));
    }
    if let Some(w) = pool.weight {
        spec.insert("weight".into(), w.into());
    }
    let mut meta = metadata(strategy, &pool.name);
    let index = strategy.pools.iter().position(|p| p.name == pool.name).unwrap_or(0);
    let mut annotations = Map::new();
    annotations.insert(
        kinds::annotations::POOL.into(),
        json!({"index": index, "dra": pool.dra}).to_string().into(),
    );
    if let Some(op) = &strategy.gpu_operator {
        let op = json!({"mig_strategy": op.mig_strategy, "dcgm_exporter": op.dcgm_exporter, "service_monitor": op.service_monitor});
        annotations.insert(kinds::annotations::GPU_OPERATOR.into(), op.to_string().into());
    }
    meta["annotations"] = Value::Object(annotations);
    Manifest {
        kind: kinds::NODE_POOL,
        name: pool.name.clone(),
        namespace: None,
        body: object(kinds::NODE_POOL, meta, Value::Object(spec)),
    }
}

/// One `disruption.budgets[]` item: `nodes` is a string (`"0"`, `"10%"`, CRD pattern
/// `^((100|[0-9]{1,2})%|[0-9]+)$`); `schedule` and `duration` come together (CEL rule).
fn budget(b: &Budget) -> Value {
    let mut m = Map::new();
    m.insert("nodes".into(), b.nodes.clone().into());
    if let Some(s) = &b.schedule {
        m.insert("schedule".into(), s.clone().into());
    }
    if let Some(d) = &b.duration {
        m.insert("duration".into(), d.clone().into());
    }
    if !b.reasons.is_empty() {
        m.insert("reasons".into(), json!(b.reasons));
    }
    Value::Object(m)
}

fn selector_terms(tags: &std::collections::BTreeMap<String, String>, cluster: &str) -> Value {
    let tags = if tags.is_empty() {
        json!({ DISCOVERY_TAG: cluster })
    } else {
        string_map(tags)
    };
    json!([{ "tags": tags }])
}

/// Role and subnet / security-group selection: the same on Karpenter's
/// EC2NodeClass and Auto Mode's NodeClass.
fn node_class_placement(spec: &mut Map<String, Value>, nc: &NodeClass, cluster: &str) {
    // Reservations `reserved` capacity may use: ODCRs and Capacity Blocks for ML (EC2NodeClass
    // v1.14.1 `capacityReservationSelectorTerms`; the Auto Mode NodeClass has the same field).
    if !nc.capacity_reservations.is_empty() {
        let terms = nc
            .capacity_reservations
            .iter()
            .map(|t| {
                let mut m = Map::new();
                if let Some(id) = &t.id {
                    m.insert("id".into(), id.clone().into());
                }
                if !t.tags.is_empty() {
                    m.insert("tags".into(), string_map(&t.tags));
                }
                if let Some(o) = &t.owner_id {
                    m.insert("ownerID".into(), o.clone().into());
                }
                if let Some(c) = &t.instance_match_criteria {
                    m.insert("instanceMatchCriteria".into(), c.clone().into());
                }
                Value::Object(m)
            })
            .collect();
        spec.insert("capacityReservationSelectorTerms".into(), Value::Array(terms));
    }
    if let Some(role) = &nc.role {
        spec.insert("role".into(), role.clone().into());
    }
    spec.insert(
        "subnetSelectorTerms".into(),
        selector_terms(&nc.subnet_selector_tags, cluster),
    );
    spec.insert(
        "securityGroupSelectorTerms".into(),
        selector_terms(&nc.security_group_selector_tags, cluster),
    );
}

pub(super) fn ec2_node_class(strategy: &NodeStrategy, pool: &Pool) -> Manifest {
    let nc = pool.node_class.clone().unwrap_or_default();
    let mut spec = Map::new();
    spec.insert(
        "amiSelectorTerms".into(),
        json!([{"alias": nc.ami_alias.as_deref().unwrap_or(DEFAULT_AMI_ALIAS)}]),
    );
    node_class_placement(&mut spec, &nc, &strategy.cluster_name);
    if let Some(rv) = &nc.root_volume {
        let mut ebs = Map::new();
        // The CRD refuses an EBS mapping without `volumeSize` or `snapshotID` (CEL rule): without a
        // size, the one Karpenter would have used without `blockDeviceMappings`.
        ebs.insert(
            "volumeSize".into(),
            rv.size
                .clone()
                .unwrap_or_else(|| KARPENTER_DEFAULT_VOLUME_SIZE.to_owned())
                .into(),
        );
        ebs.insert(
            "volumeType".into(),
            rv.volume_type.clone().unwrap_or_else(|| "gp3".to_owned()).into(),
        );
        if let Some(i) = rv.iops {
            ebs.insert("iops".into(), i.into());
        }
        if let Some(t) = rv.throughput {
            ebs.insert("throughput".into(), t.into());
        }
        if let Some(e) = rv.encrypted {
            ebs.insert("encrypted".into(), e.into());
        }
        spec.insert(
            "blockDeviceMappings".into(),
            block_device_mappings(pool, ebs, rv.encrypted),
        );
    }
    if let Some(k) = &nc.kubelet {
        let mut m = Map::new();
        if let Some(p) = k.max_pods {
            m.insert("maxPods".into(), p.into());
        }
        if !k.eviction_hard.is_empty() {
            m.insert("evictionHard".into(), string_map(&k.eviction_hard));
        }
        if !m.is_empty() {
            spec.insert("kubelet".into(), Value::Object(m));
        }
    }
    if !nc.tags.is_empty() {
        spec.insert("tags".into(), string_map(&nc.tags));
    }
    // IMDS of the nodes (EC2NodeClass `metadataOptions`, v1.14.1 CRD: httpTokens required|optional,
    // httpPutResponseHopLimit 1–64). Written only when asked for; IMDSv2 stays required unless the
    // user says otherwise.
    if let Some(mo) = &nc.metadata_options {
        let mut m = Map::new();
        m.insert(
            "httpTokens".into(),
            mo.http_tokens.clone().unwrap_or_else(|| "required".to_owned()).into(),
        );
        if let Some(h) = mo.http_put_response_hop_limit {
            m.insert("httpPutResponseHopLimit".into(), h.into());
        }
        spec.insert("metadataOptions".into(), Value::Object(m));
    }
    // `RAID0` puts the instance-store NVMe disks in one array for kubelet and containerd
    // (EC2NodeClass `instanceStorePolicy`, enum [RAID0]).
    if let Some(p) = &nc.instance_store_policy {
        spec.insert("instanceStorePolicy".into(), p.clone().into());
    }
    Manifest {
        kind: kinds::EC2_NODE_CLASS,
        name: pool.name.clone(),
        namespace: None,
        body: object(
            kinds::EC2_NODE_CLASS,
            metadata(strategy, &pool.name),
            Value::Object(spec),
        ),
    }
}

/// Where the pool's `root_volume` goes. AL2023 has one volume, `/dev/xvda`. Bottlerocket
/// boots from a small OS volume (`/dev/xvda`, 4Gi) and keeps kubelet, images and containers on
/// a data volume (`/dev/xvdb`): the user's size (inference images are 10–30 GB) belongs there,
/// and the OS volume keeps Karpenter's default (karpenter-provider-aws v1.14.1
/// pkg/providers/amifamily/bottlerocket.go, DefaultBlockDeviceMappings and EphemeralBlockDevice).
fn block_device_mappings(pool: &Pool, data: Map<String, Value>, encrypted: Option<bool>) -> Value {
    if pool.bottlerocket() {
        let os = json!({"volumeSize": "4Gi", "volumeType": "gp3", "encrypted": encrypted.unwrap_or(true)});
        json!([
            {"deviceName": "/dev/xvda", "ebs": os},
            {"deviceName": "/dev/xvdb", "rootVolume": true, "ebs": Value::Object(data)},
        ])
    } else {
        json!([{"deviceName": "/dev/xvda", "rootVolume": true, "ebs": Value::Object(data)}])
    }
}

/// The Auto Mode NodeClass takes no AMI and no kubelet settings (EKSGPU006);
/// the root volume maps to its ephemeral storage.
pub(super) fn auto_mode_node_class(strategy: &NodeStrategy, pool: &Pool) -> Manifest {
    let nc: NodeClass = pool.node_class.clone().unwrap_or_default();
    let mut spec = Map::new();
    node_class_placement(&mut spec, &nc, &strategy.cluster_name);
    if let Some(rv) = &nc.root_volume {
        let mut m = Map::new();
        if let Some(s) = &rv.size {
            m.insert("size".into(), s.clone().into());
        }
        if let Some(i) = rv.iops {
            m.insert("iops".into(), i.into());
        }
        if let Some(t) = rv.throughput {
            m.insert("throughput".into(), t.into());
        }
        if !m.is_empty() {
            spec.insert("ephemeralStorage".into(), Value::Object(m));
        }
    }
    if !nc.tags.is_empty() {
        spec.insert("tags".into(), string_map(&nc.tags));
    }
    Manifest {
        kind: kinds::AUTO_MODE_NODE_CLASS,
        name: pool.name.clone(),
        namespace: None,
        body: object(
            kinds::AUTO_MODE_NODE_CLASS,
            metadata(strategy, &pool.name),
            Value::Object(spec),
        ),
    }
}

fn object(kind: kinds::Kind, metadata: Value, spec: Value) -> Value {
    json!({"apiVersion": kind.api_version(), "kind": kind.kind, "metadata": metadata, "spec": spec})
}
