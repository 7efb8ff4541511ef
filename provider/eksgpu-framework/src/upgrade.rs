//! State written before a block became a block-of-at-most-one (a list): the
//! stored object is wrapped in a list, an absent block becomes an empty list.
//! Applied to every stored state; lists are left as they are, so it is idempotent.

use eksgpu_tfplugin::schema::{Block, Nesting};

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
}
