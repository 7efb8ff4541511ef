//! Network interfaces against the instance types' network cards (`catalog::network_cards`, the
//! table's sources cited per row): explicit lists (a Karpenter node class's `network_interfaces`,
//! a node group's) and the EFA layouts the provider renders (a node group's launch template, a
//! Karpenter pool's on ENA-only-card-0 types). EKSGPU177 checks what the table states; EKSGPU178
//! says what it cannot check (never a guessed limit); EKSGPU179 refuses Karpenter pools one
//! rendered layout cannot serve.

use super::instance_types::Selected;
use crate::catalog::{self, NetworkCards};
use crate::eks::launch_template;
use crate::model::{Capacity, NetworkInterface, Pool};
use crate::rules::{At, Code, Step, Violation};

/// The interfaces a pool's nodes get and where they were written: `(list, path of the list or
/// of what renders it, explicit)`; `None` when the pool sets none.
fn interfaces(pool: &Pool, at: &At<'_>) -> Option<(Vec<NetworkInterface>, Vec<Step>, bool)> {
    let to_model = |v: &serde_json::Value| -> Vec<NetworkInterface> {
        v.as_array()
            .into_iter()
            .flatten()
            .map(|n| NetworkInterface {
                network_card_index: n["networkCardIndex"].as_i64().unwrap_or_default(),
                device_index: n["deviceIndex"].as_i64().unwrap_or_default(),
                interface_type: n["interfaceType"].as_str().unwrap_or_default().to_owned(),
                ..NetworkInterface::default()
            })
            .collect()
    };
    match pool.capacity {
        Capacity::Karpenter => {
            let nc = pool.node_class.as_ref()?;
            if !nc.network_interfaces.is_empty() {
                let path = at(&[Step::Attr("node_class"), Step::Attr("network_interfaces")]);
                return Some((nc.network_interfaces.clone(), path, true));
            }
            let rendered = crate::render::efa_interfaces(pool)?;
            Some((to_model(&rendered), at(&[Step::Attr("efa")]), false))
        }
        Capacity::ManagedNodeGroup => {
            let m = pool.managed_node_group.as_ref()?;
            let explicit = !m.network_interfaces.is_empty();
            let list: Vec<NetworkInterface> = launch_template::template_interfaces(pool)
                .into_iter()
                .map(|n| NetworkInterface::from(&n))
                .collect();
            if list.is_empty() {
                return None;
            }
            let path = if explicit {
                at(&[Step::Attr("managed_node_group"), Step::Attr("network_interfaces")])
            } else {
                at(&[Step::Attr("efa")])
            };
            Some((list, path, explicit))
        }
        Capacity::AutoMode | Capacity::Hybrid => None,
    }
}

/// EKSGPU177 and EKSGPU178 for one pool, on every type it may launch.
pub(super) fn check(pool: &Pool, types: &[Selected], at: &At<'_>, out: &mut Vec<Violation>) {
    let Some((list, path, explicit)) = interfaces(pool, at) else {
        return;
    };
    let entry = |j: usize| {
        let mut p = path.clone();
        if explicit {
            p.push(Step::Index(j));
        }
        p
    };
    // Karpenter drops a type the interfaces do not fit from the types it launches
    // (pkg/providers/instancetype/compatibility/compatibility.go): requirements that select many
    // types are refused only when none fits; a listed type that does not fit is.
    let by_requirements = pool.capacity == Capacity::Karpenter && pool.instance_types.is_empty();
    let types: Vec<&Selected> = if by_requirements {
        let fits = |s: &&Selected| catalog::network_cards(s.t.name).is_none_or(|n| problems(n, &list).is_empty());
        if types.iter().any(|s| fits(&s)) {
            types.iter().filter(fits).collect()
        } else {
            types.iter().take(1).collect()
        }
    } else {
        types.iter().collect()
    };
    let mut unverified = Vec::new();
    for s in types {
        let Some(n) = catalog::network_cards(s.t.name) else {
            unverified.push(format!("{} (not in the table)", s.t.name));
            continue;
        };
        if !n.verified() {
            unverified.push(format!("{} ({} unverified)", s.t.name, n.unverified.join(", ")));
        }
        for (j, problem) in problems(n, &list) {
            let what = if explicit {
                "The pool's network interfaces"
            } else {
                "The EFA layout the provider renders"
            };
            out.push(Violation::new(
                Code::EKSGPU177,
                j.map_or_else(|| path.clone(), entry),
                format!("{what} on {}: {problem}.", s.t.name),
            ));
        }
    }
    if !unverified.is_empty() {
        out.push(Violation::new(
            Code::EKSGPU178,
            path,
            format!(
                "Pool {:?}'s network interfaces are not checked against {}.",
                pool.name,
                unverified.join("; ")
            ),
        ));
    }
}

/// What `n` refuses in `list`, each with the entry it is about (`None`: the list as a whole).
fn problems(n: &NetworkCards, list: &[NetworkInterface]) -> Vec<(Option<usize>, String)> {
    let mut out = Vec::new();
    for (j, ni) in list.iter().enumerate() {
        if let Some(cards) = n.network_cards
            && ni.network_card_index >= i64::from(cards)
        {
            out.push((
                Some(j),
                format!("network card {} is beyond its {cards} cards", ni.network_card_index),
            ));
        }
        if let Some(per_card) = n.max_interfaces_per_card
            && ni.device_index >= i64::from(per_card)
        {
            out.push((
                Some(j),
                format!(
                    "device index {} is beyond the {per_card} interfaces a card takes",
                    ni.device_index
                ),
            ));
        }
        if ni.is_efa() && !n.efa_supported {
            out.push((Some(j), "it has no EFA".to_owned()));
        } else if ni.is_efa() && !n.card_takes_efa(ni.network_card_index) {
            out.push((
                Some(j),
                format!(
                    "network card {} carries no EFA (its card 0 supports only an ENA interface)",
                    ni.network_card_index
                ),
            ));
        }
        if list[..j]
            .iter()
            .any(|o| o.network_card_index == ni.network_card_index && o.is_efa() && ni.is_efa())
        {
            out.push((
                Some(j),
                format!("a second EFA on network card {} (one per card)", ni.network_card_index),
            ));
        }
    }
    match list
        .iter()
        .position(|n| n.network_card_index == 0 && n.device_index == 0)
    {
        None => out.push((None, "there is no primary interface (card 0, device 0)".to_owned())),
        Some(j) if list[j].interface_type == "efa-only" => out.push((
            Some(j),
            "the primary interface (card 0, device 0) is `efa-only`, which has no ENA".to_owned(),
        )),
        Some(_) => {}
    }
    if let Some(total) = n.max_network_interfaces
        && list.len() > total as usize
    {
        out.push((None, format!("{} interfaces, more than its {total}", list.len())));
    }
    let efa = list.iter().filter(|n| n.is_efa()).count();
    if let Some(most) = n.max_efa_interfaces
        && efa > most as usize
    {
        out.push((None, format!("{efa} EFA interfaces, more than its {most}")));
    }
    out
}

/// EKSGPU179: a Karpenter `efa` pool without its own interfaces gets the ENA-only-card-0 layout
/// when one of its types needs it (`render::efa_interfaces`); every other type must take the same.
pub(super) fn one_karpenter_layout(pool: &Pool, types: &[Selected], at: &At<'_>, out: &mut Vec<Violation>) {
    let explicit = pool
        .node_class
        .as_ref()
        .is_some_and(|nc| !nc.network_interfaces.is_empty());
    if !pool.efa || pool.capacity != Capacity::Karpenter || explicit {
        return;
    }
    let rows: Vec<(&str, Option<&NetworkCards>)> = types
        .iter()
        .map(|s| (s.t.name, catalog::network_cards(s.t.name)))
        .collect();
    let Some((_, Some(first))) = rows.iter().find(|(_, n)| n.is_some_and(NetworkCards::card0_ena_only)) else {
        return;
    };
    let others: Vec<&str> = rows
        .iter()
        .filter(|(_, n)| n.is_none_or(|n| !n.card0_ena_only() || n.efa_cards() != first.efa_cards()))
        .map(|(t, _)| *t)
        .collect();
    if !others.is_empty() {
        out.push(Violation::new(
            Code::EKSGPU179,
            at(&[Step::Attr("efa")]),
            format!(
                "Pool {:?} needs the network interfaces of {} (card 0 ENA-only), which {} do not take alike.",
                pool.name,
                first.instance_type,
                others.join(", ")
            ),
        ));
    }
}
