//! Node classes by name (EKSGPU166), the AMI family beside the alias (EKSGPU167), security-group
//! selector terms (EKSGPU324) and hand-written NodeOverlays (EKSGPU168).

use crate::model::{Capacity, NodeStrategy, Pool};
use crate::render::{self, DEFAULT_AMI_ALIAS};
use crate::rules::{At, Code, Step, Violation};

/// The per-pool checks.
pub(super) fn check_pool(s: &NodeStrategy, pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    node_class_or_ref(pool, at, out);
    ami_family(pool, at, out);
    selector_terms(pool, at, out);
    overlays(s, pool, at, out);
}

/// EKSGPU166: one of `node_class` and `node_class_ref`.
fn node_class_or_ref(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    if pool.node_class.is_some() && pool.node_class_ref.is_some() {
        out.push(Violation::new(
            Code::EKSGPU166,
            at(&[Step::Attr("node_class_ref")]),
            format!(
                "Pool {:?} renders a node class and refers to another ({:?}).",
                pool.name,
                pool.node_class_ref.as_deref().unwrap_or_default()
            ),
        ));
    }
}

/// EKSGPU166 across pools: node class names are unique per kind, and a reference to another pool's
/// node class is to one of the same kind (EC2NodeClass for `karpenter`, NodeClass for `auto_mode`).
pub(super) fn names(s: &NodeStrategy, out: &mut Vec<Violation>) {
    let rendered: Vec<(&Pool, String)> = s
        .pools
        .iter()
        .filter(|p| p.capacity.is_in_cluster() && (p.node_class.is_some() || p.capacity == Capacity::Karpenter))
        .filter(|p| p.node_class_ref.is_none())
        .map(|p| (p, render::node_class_name(p)))
        .collect();
    for (i, (p, name)) in rendered.iter().enumerate() {
        if let Some((other, _)) = rendered[..i]
            .iter()
            .find(|(o, n)| n == name && o.capacity == p.capacity)
        {
            out.push(Violation::new(
                Code::EKSGPU166,
                crate::rules::pool_path(&p.name, &[Step::Attr("node_class"), Step::Attr("name")]),
                format!(
                    "Pools {:?} and {:?} both render node class {name:?}.",
                    other.name, p.name
                ),
            ));
        }
    }
    for p in s.pools.iter().filter(|p| p.node_class.is_none()) {
        let Some(r) = &p.node_class_ref else { continue };
        if let Some((other, _)) = rendered.iter().find(|(o, n)| n == r && o.capacity != p.capacity) {
            out.push(Violation::new(
                Code::EKSGPU166,
                crate::rules::pool_path(&p.name, &[Step::Attr("node_class_ref")]),
                format!(
                    "{r:?} is pool {:?}'s node class, of a {} pool; pool {:?} is {}.",
                    other.name,
                    other.capacity.as_str(),
                    p.name,
                    p.capacity.as_str()
                ),
            ));
        }
    }
}

/// EKSGPU167: `amiFamily` is the alias's family or `Custom` (EC2NodeClass CEL rules).
fn ami_family(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    let Some(nc) = pool
        .node_class
        .as_ref()
        .filter(|_| pool.capacity == Capacity::Karpenter)
    else {
        return;
    };
    let Some(family) = nc.ami_family.as_deref() else { return };
    let alias = nc.ami_alias.as_deref().unwrap_or(DEFAULT_AMI_ALIAS);
    let alias_family = alias.split('@').next().unwrap_or_default();
    if family != "Custom" && !family.eq_ignore_ascii_case(alias_family) {
        out.push(Violation::new(
            Code::EKSGPU167,
            at(&[Step::Attr("node_class"), Step::Attr("ami_family")]),
            format!("amiFamily {family:?} beside the alias {alias:?}."),
        ));
    }
}

/// EKSGPU324: terms alone, each with something to select by, `id` and `name` alone in a term.
fn selector_terms(pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    let Some(nc) = &pool.node_class else { return };
    if nc.security_group_selector_terms.is_empty() {
        return;
    }
    let path = |rest: &[Step]| {
        let mut p = vec![Step::Attr("node_class"), Step::Attr("security_group_selector_terms")];
        p.extend_from_slice(rest);
        at(&p)
    };
    if !nc.security_group_selector_tags.is_empty() || !nc.security_group_selector_ids.is_empty() {
        out.push(Violation::new(
            Code::EKSGPU324,
            path(&[]),
            "Set `security_group_selector_terms` alone, without `security_group_selector_tags` or `_ids`.".into(),
        ));
    }
    for (j, t) in nc.security_group_selector_terms.iter().enumerate() {
        let fields = usize::from(!t.tags.is_empty()) + usize::from(t.id.is_some()) + usize::from(t.name.is_some());
        let problem = match fields {
            0 => Some("term {j} selects by nothing (tags, id or name)"),
            1 => None,
            _ if t.id.is_some() || t.name.is_some() => Some("term {j} sets `id` or `name` with another field"),
            _ => None,
        };
        if let Some(p) = problem {
            out.push(Violation::new(
                Code::EKSGPU324,
                path(&[Step::Index(j)]),
                format!("{}.", p.replace("{j}", &j.to_string())),
            ));
        }
    }
}

/// EKSGPU168: hand-written overlays need the gate, one price field, and names no other overlay of
/// the strategy has (hand-written or derived, `render::overlay_name`).
fn overlays(s: &NodeStrategy, pool: &Pool, at: &At<'_>, out: &mut Vec<Violation>) {
    if pool.node_overlays.is_empty() || pool.capacity != Capacity::Karpenter {
        return;
    }
    let path = |j: usize| at(&[Step::Attr("node_overlays"), Step::Index(j)]);
    if !s.karpenter_gates.node_overlay {
        out.push(Violation::new(
            Code::EKSGPU168,
            at(&[Step::Attr("node_overlays")]),
            format!(
                "Pool {:?} writes NodeOverlays, and `karpenter_feature_gates` does not list `nodeOverlay`.",
                pool.name
            ),
        ));
    }
    for (j, o) in pool.node_overlays.iter().enumerate() {
        if o.price.is_some() && o.price_adjustment.is_some() {
            out.push(Violation::new(
                Code::EKSGPU168,
                path(j),
                format!("NodeOverlay {:?} sets both `price` and `price_adjustment`.", o.name),
            ));
        }
        for (k, r) in o.requirements.iter().enumerate() {
            let key_ok =
                r.key == "karpenter.sh/nodepool" || crate::validate::karpenter_node_label_key(&r.key, (1, 14)).is_ok();
            if !key_ok {
                out.push(Violation::new(
                    Code::EKSGPU168,
                    at(&[
                        Step::Attr("node_overlays"),
                        Step::Index(j),
                        Step::Attr("requirements"),
                        Step::Index(k),
                    ]),
                    format!(
                        "NodeOverlay {:?}: the CRD refuses a requirement on {:?}.",
                        o.name, r.key
                    ),
                ));
            }
        }
        let clash = s.pools.iter().any(|p| {
            let derived = render::pool_manifests(s, p)
                .into_iter()
                .filter(|m| m.kind == crate::kinds::NODE_OVERLAY)
                .filter(|m| !p.node_overlays.iter().any(|w| w.name == m.name))
                .any(|m| m.name == o.name);
            let written = p
                .node_overlays
                .iter()
                .enumerate()
                .any(|(i, w)| w.name == o.name && (p.name != pool.name || i < j));
            derived || written
        });
        if clash {
            out.push(Violation::new(
                Code::EKSGPU168,
                path(j),
                format!("Another NodeOverlay of the strategy is named {:?}.", o.name),
            ));
        }
    }
}
