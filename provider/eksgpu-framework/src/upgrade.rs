//! Stored state reshaped for today's schema before it is decoded.
//!
//! - A block that became a block-of-at-most-one (a list): the stored object is wrapped in a list,
//!   an absent block becomes an empty list. Applied to every stored state; lists are left as they
//!   are, so it is idempotent.
//! - Blocks that became nested attributes: a list of blocks identified by one of their attributes
//!   becomes a map keyed by it ([`list_to_map`]), and inside each object blocks of at most one
//!   become objects and block lists the list attributes of their new names ([`blocks_to_nested`]).

use eksgpu_tfplugin::schema::{Block, Nesting, ObjectNesting};
use serde_json::Value as Json;

/// Reshapes the JSON state of `block` in place.
pub fn blocks_as_lists(block: &Block, json: &mut serde_json::Value) {
    let serde_json::Value::Object(m) = json else {
        return;
    };
    for b in &block.blocks {
        let Some(v) = m.get_mut(&b.name) else {
            continue;
        };
        if b.is_one() {
            match v {
                serde_json::Value::Null => *v = serde_json::Value::Array(Vec::new()),
                serde_json::Value::Object(_) => *v = serde_json::Value::Array(vec![v.take()]),
                _ => {}
            }
        }
        match (b.nesting, v) {
            (Nesting::List | Nesting::Set, serde_json::Value::Array(items)) => {
                for item in items {
                    blocks_as_lists(&b.block, item);
                }
            }
            (_, v) => blocks_as_lists(&b.block, v),
        }
    }
}

/// `old`, a stored list of objects, becomes `new`, a map of them keyed by their `key` attribute
/// (taken out of each). Elements without a string `key` are dropped (no state could hold them:
/// the key was required). Nothing happens when `new` is already there.
pub fn list_to_map(json: &mut Json, old: &str, new: &str, key: &str) {
    let Json::Object(m) = json else {
        return;
    };
    if m.contains_key(new) {
        return;
    }
    let items = match m.remove(old) {
        Some(Json::Array(items)) => items,
        _ => Vec::new(),
    };
    let entries = items
        .into_iter()
        .filter_map(|mut item| {
            let name = item.as_object_mut()?.remove(key)?;
            Some((name.as_str()?.to_owned(), item))
        })
        .collect();
    m.insert(new.to_owned(), Json::Object(entries));
}

/// The stored object of `object` (a nested attribute's object) as its nested attributes hold it:
/// a block of at most one (`[x]`, `[]`, or an object from before blocks-of-one) becomes `x` or
/// null; a block list stored under its old name (`renamed`: old → new) moves to the new one; no
/// blocks (`[]`) becomes null, as an absent list attribute is. Recursively; idempotent.
pub fn blocks_to_nested(object: &Block, json: &mut Json, renamed: &[(&str, &str)]) {
    let Json::Object(m) = json else {
        return;
    };
    for a in &object.attributes {
        let Some(n) = &a.nested else { continue };
        if !m.contains_key(&a.name)
            && let Some((old, _)) = renamed.iter().find(|(_, new)| *new == a.name)
            && let Some(v) = m.remove(*old)
        {
            m.insert(a.name.clone(), v);
        }
        let Some(v) = m.get_mut(&a.name) else { continue };
        match n.nesting {
            ObjectNesting::Single => {
                if let Json::Array(items) = v {
                    let first = items.drain(..).next().unwrap_or(Json::Null);
                    *v = first;
                }
                blocks_to_nested(&n.object, v, renamed);
            }
            ObjectNesting::List | ObjectNesting::Set => {
                if matches!(v, Json::Array(items) if items.is_empty()) {
                    *v = Json::Null;
                }
                for item in v.as_array_mut().into_iter().flatten() {
                    blocks_to_nested(&n.object, item, renamed);
                }
            }
            ObjectNesting::Map => {
                for item in v.as_object_mut().into_iter().flat_map(|m| m.values_mut()) {
                    blocks_to_nested(&n.object, item, renamed);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use eksgpu_tfplugin::Type;
    use eksgpu_tfplugin::schema::{Attribute, NestedBlock};

    use super::*;

    #[test]
    fn single_blocks_become_lists_at_every_depth() {
        let block = Block::new("r")
            .block(NestedBlock::optional_one("op", Block::new("o")))
            .block(NestedBlock::list(
                "pool",
                Block::new("p").block(NestedBlock::optional_one(
                    "nc",
                    Block::new("n").attribute(Attribute::optional("role", Type::String, "r")),
                )),
            ));
        let mut old = serde_json::json!({"op": null, "pool": [{"nc": {"role": "x"}}, {"nc": null}]});
        blocks_as_lists(&block, &mut old);
        let want = serde_json::json!({"op": [], "pool": [{"nc": [{"role": "x"}]}, {"nc": []}]});
        assert_eq!(old, want);
        blocks_as_lists(&block, &mut old);
        assert_eq!(old, want, "idempotent");
    }

    #[test]
    fn a_list_of_blocks_becomes_a_map_of_nested_objects() {
        use eksgpu_tfplugin::schema::{Mode, NestedType};
        let nested = |name: &str, nesting, object| {
            Attribute::nested(name, Mode::Optional, NestedType::new(nesting, object), "d")
        };
        let class = Block::new("n")
            .attribute(Attribute::optional("role", Type::String, "r"))
            .attribute(nested("root_volume", ObjectNesting::Single, Block::new("v")));
        let pool = Block::new("p")
            .attribute(nested("node_class", ObjectNesting::Single, class))
            .attribute(nested("taints", ObjectNesting::List, Block::new("t")))
            .attribute(nested("budgets", ObjectNesting::List, Block::new("b")));
        let mut old = serde_json::json!({"pool": [
            {"name": "b", "node_class": [{"role": "x", "root_volume": []}], "taint": [{"key": "k"}], "budget": []},
            {"name": "a", "node_class": {"role": "y", "root_volume": {"size": "1"}}, "taint": []},
            {"capacity": "karpenter"}
        ]});
        list_to_map(&mut old, "pool", "pools", "name");
        let renamed = [("taint", "taints"), ("budget", "budgets")];
        for entry in old["pools"].as_object_mut().unwrap().values_mut() {
            blocks_to_nested(&pool, entry, &renamed);
        }
        let want = serde_json::json!({"pools": {
            "a": {"node_class": {"role": "y", "root_volume": {"size": "1"}}, "taints": null},
            "b": {"node_class": {"role": "x", "root_volume": null}, "taints": [{"key": "k"}], "budgets": null}
        }});
        assert_eq!(old, want);
        let again = old.clone();
        list_to_map(&mut old, "pool", "pools", "name");
        for entry in old["pools"].as_object_mut().unwrap().values_mut() {
            blocks_to_nested(&pool, entry, &renamed);
        }
        assert_eq!(old, again, "idempotent");
    }
}
