//! State of earlier schema versions, reshaped for today's (the steps before version 5 are in
//! `NodeStrategyResource::upgrade`).

use eksgpu_framework::upgrade::{blocks_to_nested, list_to_map};
use eksgpu_framework::{path, plan::each_entry};
use eksgpu_tfplugin::Value;

use super::schema;

/// The block lists of a pool that became list attributes, by their old and new names.
const RENAMED: &[(&str, &str)] = &[
    ("taint", "taints"),
    ("requirement", "requirements"),
    ("budget", "budgets"),
    ("capacity_reservation", "capacity_reservations"),
    ("block_device_mapping", "block_device_mappings"),
    ("network_interface", "network_interfaces"),
];

/// Version 4 and earlier to 5: the `pool` block list becomes the `pools` map keyed by each
/// pool's `name`, and inside each pool blocks become nested attributes.
pub(super) fn pools_by_name(json: &mut serde_json::Value) {
    list_to_map(json, "pool", "pools", "name");
    let Some(object) = schema::cached()
        .block
        .find_attribute("pools")
        .and_then(|a| a.nested.as_ref())
        .map(|n| &n.object)
    else {
        return;
    };
    for entry in json
        .get_mut("pools")
        .and_then(serde_json::Value::as_object_mut)
        .into_iter()
        .flat_map(|m| m.values_mut())
    {
        blocks_to_nested(object, entry, RENAMED);
    }
}

/// Each pool's `manifests_yaml` without the pool's position, which renderers before version 5
/// wrote into a NodePool's pool annotation (`{"index":N,"dra":…}`) and a node group's or access
/// entry's tags (`eksgpu.terraform.io/pool-index`): what a plan of the unchanged configuration
/// renders now, so the first plan after the upgrade shows no change. Edited as text: rendering
/// again would need the provider's settings (`default_tags`, feature gates), which an upgrade
/// does not have.
pub(super) fn manifests_rendered_again(mut state: Value) -> Value {
    each_entry(&mut state, "pools", |_, v| {
        if let Value::String(yaml) = v.get("manifests_yaml") {
            let fixed = without_position(yaml);
            path::set(v, "manifests_yaml", fixed.into());
        }
    });
    state
}

fn without_position(yaml: &str) -> String {
    let mut out = String::with_capacity(yaml.len());
    let mut lines = yaml.split_inclusive('\n');
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if t.starts_with("eksgpu.terraform.io/pool-index:") {
            continue;
        }
        // A launch template's tag, `- Key: …` then `Value: …`.
        if t.trim_end() == "- Key: eksgpu.terraform.io/pool-index" {
            lines.next();
            continue;
        }
        match line.find("\\\"index\\\":") {
            Some(at) if line.trim_start().starts_with("eksgpu.terraform.io/pool:") => {
                let rest = &line[at..];
                // `\"index\":` then digits and a comma.
                let skip = rest
                    .char_indices()
                    .find(|(i, c)| *i > 10 && *c == ',')
                    .map_or(0, |(i, _)| i + 1);
                out.push_str(&line[..at]);
                out.push_str(&rest[skip..]);
            }
            _ => out.push_str(line),
        }
    }
    out
}

/// Version 5 and earlier to 6: the `device_plugin` block did not exist. A state decoded with
/// today's type reads it as null: it becomes the empty block list a configuration without it
/// plans, and `device_plugin_values_yaml` null, as a plan computes it without the block.
pub(super) fn without_device_plugin(mut state: Value) -> Value {
    if state.get("device_plugin").is_null() {
        path::set(&mut state, "device_plugin", Value::List(Vec::new()));
    }
    path::set(&mut state, "device_plugin_values_yaml", Value::Null);
    state
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_position_leaves_annotations_and_tags() {
        let old = "  annotations:\n    eksgpu.terraform.io/pool: \"{\\\"index\\\":12,\\\"dra\\\":false}\"\n  tags:\n    eksgpu.terraform.io/pool: gpu\n    eksgpu.terraform.io/pool-index: '3'\n    team: a\n- Key: eksgpu.terraform.io/pool-index\n  Value: '3'\n- Key: team\n  Value: a\n";
        let new = "  annotations:\n    eksgpu.terraform.io/pool: \"{\\\"dra\\\":false}\"\n  tags:\n    eksgpu.terraform.io/pool: gpu\n    team: a\n- Key: team\n  Value: a\n";
        assert_eq!(super::without_position(old), new);
        assert_eq!(super::without_position(new), new, "idempotent");
    }

    #[test]
    fn a_version_5_state_has_no_device_plugin() {
        use eksgpu_tfplugin::Value;
        let state = Value::object([
            ("device_plugin", Value::Null),
            ("device_plugin_values_yaml", Value::Null),
        ]);
        let up = super::without_device_plugin(state);
        assert_eq!(up.get("device_plugin"), &Value::List(Vec::new()));
        assert!(up.get("device_plugin_values_yaml").is_null());
    }
}
