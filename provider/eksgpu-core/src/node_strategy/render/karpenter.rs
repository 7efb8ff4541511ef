//! Karpenter v1 objects (`karpenter.sh/v1` NodePool, `karpenter.k8s.aws/v1`
//! EC2NodeClass) and their EKS Auto Mode counterparts (the same NodePool with
//! `nodeClassRef.group: eks.amazonaws.com`, and `eks.amazonaws.com/v1`
//! NodeClass). Field names and shapes follow the karpenter-provider-aws v1.14.1 CRDs and the EKS Auto Mode NodeClass.

use serde_json::{Map, Value, json};

use std::sync::LazyLock;

use super::{Manifest, effective_labels, effective_taints, metadata, selection, string_map};
use crate::kinds;
use crate::model::{Capacity, NodeClass, NodeStrategy, Pool};
use crate::node_strategy::inputs::{self, Object};

/// Karpenter's AL2023 alias picks the NVIDIA variant of the AMI by instance type.
pub const DEFAULT_AMI_ALIAS: &str = "al2023@latest";
/// Karpenter's root (AL2023) or data (Bottlerocket) volume size without `blockDeviceMappings`
/// (karpenter-provider-aws v1.14.1 pkg/providers/amifamily, DefaultBlockDeviceMappings).
pub const KARPENTER_DEFAULT_VOLUME_SIZE: &str = "20Gi";
/// The discovery tag the EKS Karpenter guides put on subnets and security groups.
pub const DISCOVERY_TAG: &str = "karpenter.sh/discovery";

/// The key order of objects rendered before their inputs were declared: `manifests_yaml` keeps
/// it, so states written then plan no change. Keys it does not name follow in the order they were
/// rendered (the declared inputs in declaration order), which is all a key that came last needs.
static NODE_POOL_ORDER: LazyLock<Value> = LazyLock::new(|| {
    json!({"spec": {
        "template": {"metadata": null, "spec": {"nodeClassRef": null, "requirements": null, "expireAfter": null, "taints": null}},
        "disruption": {"consolidationPolicy": null, "consolidateAfter": null, "budgets": null},
        "limits": {"nvidia.com/gpu": null, "aws.amazon.com/neuron": null, "cpu": null, "memory": null},
    }})
});
static EC2_NODE_CLASS_ORDER: LazyLock<Value> = LazyLock::new(|| {
    json!({
        "amiSelectorTerms": null, "capacityReservationSelectorTerms": null, "role": null, "subnetSelectorTerms": null,
        "securityGroupSelectorTerms": null, "blockDeviceMappings": null, "kubelet": null, "tags": null,
        "metadataOptions": null, "instanceStorePolicy": null,
    })
});
static AUTO_MODE_NODE_CLASS_ORDER: LazyLock<Value> = LazyLock::new(|| {
    json!({
        "capacityReservationSelectorTerms": null, "role": null, "subnetSelectorTerms": null,
        "securityGroupSelectorTerms": null, "ephemeralStorage": null, "tags": null,
    })
});

/// The name of the node class a pool renders (`node_class.name`, or the pool's name).
pub fn node_class_name(pool: &Pool) -> String {
    pool.node_class
        .as_ref()
        .and_then(|nc| nc.name.clone())
        .unwrap_or_else(|| pool.name.clone())
}

/// The node class the pool's NodePool refers to: the one it renders, the one `node_class_ref`
/// names, or (Auto Mode, neither) the built-in `default`.
pub fn node_class_ref_name(pool: &Pool) -> String {
    match (&pool.node_class, &pool.node_class_ref, pool.capacity) {
        (Some(_), _, _) => node_class_name(pool),
        (None, Some(r), _) => r.clone(),
        (None, None, Capacity::AutoMode) => "default".to_owned(),
        (None, None, _) => pool.name.clone(),
    }
}

pub(super) fn node_pool(strategy: &NodeStrategy, pool: &Pool) -> Manifest {
    let name = node_class_ref_name(pool);
    let node_class_ref = match pool.capacity {
        Capacity::AutoMode => json!({
            "group": kinds::AUTO_MODE_NODE_CLASS.group,
            "kind": kinds::AUTO_MODE_NODE_CLASS.kind,
            "name": name,
        }),
        _ => json!({
            "group": kinds::EC2_NODE_CLASS.group,
            "kind": kinds::EC2_NODE_CLASS.kind,
            "name": name,
        }),
    };
    // The provider's instance-type, capacity-type, zone (and Auto Mode Neuron family)
    // requirements, then the pool's own.
    let requirements = selection::node_pool_requirements(pool);

    let mut template_spec = Map::new();
    template_spec.insert("nodeClassRef".into(), node_class_ref);
    template_spec.insert("requirements".into(), Value::Array(requirements));
    let mut template = Map::new();
    let labels = effective_labels(strategy, pool);
    if !labels.is_empty() {
        template.insert("metadata".into(), json!({"labels": string_map(&labels)}));
    }
    template.insert("spec".into(), Value::Object(template_spec));
    let mut body = json!({"spec": {"template": Value::Object(template)}});
    // The declared inputs (node_strategy::inputs) that render on the NodePool.
    inputs::render_all(inputs::POOL, pool, Object::NodePool, &mut body);
    if let Some(limit) = pool.gpu_limit {
        let resource = pool.vendor().device_resource();
        inputs::set_path(&mut body, &["spec", "limits", resource], limit.into());
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
        inputs::set_path(&mut body, &["spec", "template", "spec", "taints"], Value::Array(taints));
    }
    inputs::order_like(&mut body, &NODE_POOL_ORDER);
    let spec = match body["spec"].take() {
        Value::Object(spec) => spec,
        _ => Map::new(),
    };
    let mut meta = metadata(strategy, &pool.name);
    // No position among the pools: pools are keyed by name, and one pool's objects must not change
    // when another is added (earlier releases wrote an `index` here; read back ignores it).
    let mut annotations = Map::new();
    annotations.insert(
        kinds::annotations::POOL.into(),
        json!({"dra": pool.dra}).to_string().into(),
    );
    if let Some(op) = &strategy.gpu_operator {
        let op = json!({"mig_strategy": op.mig_strategy, "dcgm_exporter": op.dcgm_exporter, "service_monitor": op.service_monitor});
        annotations.insert(kinds::annotations::GPU_OPERATOR.into(), op.to_string().into());
    }
    if let Some(dp) = &strategy.device_plugin {
        let dp = json!({"mig_strategy": dp.mig_strategy});
        annotations.insert(kinds::annotations::DEVICE_PLUGIN.into(), dp.to_string().into());
    }
    meta["annotations"] = Value::Object(annotations);
    Manifest {
        kind: kinds::NODE_POOL,
        name: pool.name.clone(),
        namespace: None,
        body: object(kinds::NODE_POOL, meta, Value::Object(spec)),
    }
}

/// Role and subnet / security-group selection: the same on Karpenter's
/// EC2NodeClass and Auto Mode's NodeClass.
/// Subnet and security-group selection: the same on Karpenter's EC2NodeClass and Auto Mode's
/// NodeClass (the discovery tag unless the pool selects its own).
fn node_class_placement(spec: &mut Map<String, Value>, nc: &NodeClass, cluster: &str) {
    spec.insert(
        "subnetSelectorTerms".into(),
        selection::selector_terms(
            &nc.subnet_selector_tags,
            &nc.subnet_selector_ids,
            (DISCOVERY_TAG, cluster),
        ),
    );
    spec.insert(
        "securityGroupSelectorTerms".into(),
        selection::selector_terms(
            &nc.security_group_selector_tags,
            &nc.security_group_selector_ids,
            (DISCOVERY_TAG, cluster),
        ),
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
    // The pool's own mappings, beside (or instead of) the root volume's.
    if !nc.block_device_mappings.is_empty() {
        let provider = match spec.remove("blockDeviceMappings") {
            Some(Value::Array(a)) => a,
            _ => Vec::new(),
        };
        spec.insert(
            "blockDeviceMappings".into(),
            Value::Array(selection::with_user_mappings(&nc, provider)),
        );
    }
    // Role, tags, reservations, kubelet, IMDS and the instance store, as declared.
    let mut spec = Value::Object(spec);
    inputs::render_all(inputs::NODE_CLASS, &nc, Object::Ec2NodeClass, &mut spec);
    if nc.network_interfaces.is_empty()
        && let Some(layout) = efa_interfaces(pool)
    {
        inputs::set_path(&mut spec, &["networkInterfaces"], layout);
    }
    inputs::order_like(&mut spec, &EC2_NODE_CLASS_ORDER);
    let name = node_class_name(pool);
    Manifest {
        kind: kinds::EC2_NODE_CLASS,
        body: object(kinds::EC2_NODE_CLASS, metadata(strategy, &name), spec),
        name,
        namespace: None,
    }
}

/// The explicit `networkInterfaces` an `efa` Karpenter pool gets on types whose network card 0 is
/// ENA-only (P6-B300, P6e-GB200), or `None` where Karpenter's own layout works. Without
/// `networkInterfaces`, Karpenter gives a node launched for `vpc.amazonaws.com/efa` pods one `efa`
/// interface per EFA the type has, the first on card 0 (aws/karpenter-provider-aws v1.14.1
/// pkg/providers/launchtemplate/launchtemplate.go `generateNetworkInterfaces`: `NetworkCardIndex: i`,
/// `InterfaceType: efa`), which those types refuse ("the primary network card supports only an ENA
/// network interface", EC2 user guide, efa-acc-inst-types). So the provider writes the layout the
/// EC2 guide gives: the primary ENA `interface`, an `efa-only` interface at device 0 of each card
/// that takes EFA. Karpenter then counts `vpc.amazonaws.com/efa` as those `efa-only` entries
/// (`pkg/providers/instancetype/types.go`). The rules refuse pools whose types need different
/// layouts (EKSGPU179).
pub fn efa_interfaces(pool: &Pool) -> Option<Value> {
    if !pool.efa || pool.capacity != Capacity::Karpenter {
        return None;
    }
    let types = crate::model::matching::matched_instance_types(pool);
    let cards = types
        .iter()
        .filter_map(|t| crate::catalog::network_cards(t))
        .find(|n| n.card0_ena_only())?;
    let mut out = vec![json!({"networkCardIndex": 0, "deviceIndex": 0, "interfaceType": "interface"})];
    out.extend(
        cards
            .efa_cards()
            .unwrap_or_default()
            .into_iter()
            .map(|c| json!({"networkCardIndex": c, "deviceIndex": 0, "interfaceType": "efa-only"})),
    );
    Some(Value::Array(out))
}

/// Bottlerocket's OS volume beside a `root_volume` data volume: Karpenter's default size.
pub(crate) fn bottlerocket_os_volume(encrypted: Option<bool>) -> Value {
    json!({"deviceName": "/dev/xvda", "ebs": {"volumeSize": "4Gi", "volumeType": "gp3", "encrypted": encrypted.unwrap_or(true)}})
}

/// Where the pool's `root_volume` goes. AL2023 has one volume, `/dev/xvda`. Bottlerocket
/// boots from a small OS volume (`/dev/xvda`, 4Gi) and keeps kubelet, images and containers on
/// a data volume (`/dev/xvdb`): the user's size (inference images are 10–30 GB) belongs there,
/// and the OS volume keeps Karpenter's default (karpenter-provider-aws v1.14.1
/// pkg/providers/amifamily/bottlerocket.go, DefaultBlockDeviceMappings and EphemeralBlockDevice).
fn block_device_mappings(pool: &Pool, data: Map<String, Value>, encrypted: Option<bool>) -> Value {
    if pool.bottlerocket() {
        json!([
            bottlerocket_os_volume(encrypted),
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
    let mut spec = Value::Object(spec);
    inputs::render_all(inputs::NODE_CLASS, &nc, Object::AutoModeNodeClass, &mut spec);
    inputs::order_like(&mut spec, &AUTO_MODE_NODE_CLASS_ORDER);
    let name = node_class_name(pool);
    Manifest {
        kind: kinds::AUTO_MODE_NODE_CLASS,
        body: object(kinds::AUTO_MODE_NODE_CLASS, metadata(strategy, &name), spec),
        name,
        namespace: None,
    }
}

fn object(kind: kinds::Kind, metadata: Value, spec: Value) -> Value {
    json!({"apiVersion": kind.api_version(), "kind": kind.kind, "metadata": metadata, "spec": spec})
}
