//! Paths into values: reading and writing a value at a list of steps.

use eksgpu_tfplugin::diag::Step;
use eksgpu_tfplugin::schema::Block;
use eksgpu_tfplugin::{AttributePath, Diagnostic, Diagnostics, Value};

static NULL: Value = Value::Null;

/// The value at `steps`; `Null` where the path leads nowhere (and `Unknown`
/// below an unknown value: nothing under it is known).
pub fn get<'v>(v: &'v Value, steps: &[Step]) -> &'v Value {
    steps
        .iter()
        .try_fold(v, |v, s| match (s, v) {
            (_, Value::Unknown) => Err(v),
            (Step::Attribute(a), Value::Object(m)) | (Step::Key(a), Value::Map(m)) => Ok(m.get(a).unwrap_or(&NULL)),
            (Step::Index(i), Value::List(l) | Value::Tuple(l)) => {
                Ok(usize::try_from(*i).ok().and_then(|i| l.get(i)).unwrap_or(&NULL))
            }
            _ => Ok(&NULL),
        })
        .unwrap_or_else(|unknown| unknown)
}

/// The value at `steps`, to change it; `None` where the path leads nowhere.
pub fn get_mut<'v>(v: &'v mut Value, steps: &[Step]) -> Option<&'v mut Value> {
    steps.iter().try_fold(v, |v, s| match (s, v) {
        (Step::Attribute(a), Value::Object(m)) | (Step::Key(a), Value::Map(m)) => m.get_mut(a),
        (Step::Index(i), Value::List(l) | Value::Tuple(l)) => usize::try_from(*i).ok().and_then(|i| l.get_mut(i)),
        _ => None,
    })
}

/// Sets attribute `name` of an object value (nothing for other values).
pub fn set(v: &mut Value, name: &str, x: Value) {
    if let Value::Object(m) = v {
        m.insert(name.to_owned(), x);
    }
}

/// `base` followed by `steps`.
pub fn join(base: &AttributePath, steps: &[Step]) -> AttributePath {
    let mut all = base.steps().to_vec();
    all.extend_from_slice(steps);
    AttributePath::from_steps(all)
}

/// The block of a block-of-at-most-one (a list of zero or one): the element,
/// `Null` when absent, `Unknown` while the list is.
pub fn one(v: &Value) -> &Value {
    match v {
        Value::List(l) => l.first().unwrap_or(&NULL),
        other => other,
    }
}

/// `steps` with `[0]` after every block-of-at-most-one that a step names
/// without an index: the domain speaks of `node_class.role`, Terraform's
/// configuration has `node_class[0].role`.
pub fn through_blocks(block: &Block, steps: &[Step]) -> Vec<Step> {
    let mut out = Vec::with_capacity(steps.len() + 2);
    let mut here = Some(block);
    let mut i = 0;
    while i < steps.len() {
        let step = &steps[i];
        out.push(step.clone());
        i += 1;
        let Step::Attribute(name) = step else {
            continue;
        };
        let Some(b) = here.and_then(|h| h.find_block(name)) else {
            // Into a nested attribute's objects (no `[0]`: an object of one is written as one),
            // past the key or index that picks one.
            here = here
                .and_then(|h| h.find_attribute(name))
                .and_then(|a| a.nested.as_ref())
                .map(|n| &n.object);
            if here.is_some()
                && let Some(s @ (Step::Index(_) | Step::Key(_))) = steps.get(i)
            {
                out.push(s.clone());
                i += 1;
            }
            continue;
        };
        here = Some(&b.block);
        if b.is_one() && !matches!(steps.get(i), Some(Step::Index(_))) {
            out.push(Step::Index(0));
        } else if let Some(Step::Index(_)) = steps.get(i) {
            out.push(steps[i].clone());
            i += 1;
        }
    }
    out
}

/// Diagnostics with their paths written as Terraform's configuration has them. A path that goes
/// inside a nested attribute is also written at the head of the detail, unless it is there
/// already: Terraform finds the configuration a path leads to through blocks only
/// (hashicorp/terraform v1.11.4 – v1.14.9 `internal/tfdiags/contextual.go`,
/// `traversePathSteps`), so it quotes the resource's first line for such a path, and the detail
/// is where users read which pool and attribute it is.
pub fn diagnostics_through_blocks(block: &Block, diags: Diagnostics) -> Diagnostics {
    let mut out = Diagnostics::new();
    for d in diags.into_vec() {
        out.push(match d.path {
            Some(p) => {
                let path = AttributePath::from_steps(through_blocks(block, p.steps()));
                let detail = if inside_nested_attribute(block, path.steps()) {
                    let at = path.to_string();
                    if d.detail.starts_with(&at) {
                        d.detail
                    } else {
                        format!("{at}: {}", d.detail)
                    }
                } else {
                    d.detail
                };
                Diagnostic {
                    path: Some(path),
                    detail,
                    ..d
                }
            }
            None => d,
        });
    }
    out
}

/// Whether `steps` lead below a nested attribute of `block` (through its blocks).
fn inside_nested_attribute(block: &Block, steps: &[Step]) -> bool {
    let mut here = block;
    let mut rest = steps;
    while let Some((step, tail)) = rest.split_first() {
        let Step::Attribute(name) = step else {
            rest = tail;
            continue;
        };
        if let Some(b) = here.find_block(name) {
            here = &b.block;
            rest = tail;
            continue;
        }
        return here.find_attribute(name).is_some_and(|a| a.nested.is_some()) && !tail.is_empty();
    }
    false
}

/// Paths (relative to `v`) of every unknown value inside it.
pub fn unknowns(v: &Value) -> Vec<Vec<Step>> {
    fn walk(v: &Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
        match v {
            Value::Unknown => out.push(at.clone()),
            Value::Object(m) => {
                for (k, x) in m {
                    at.push(Step::Attribute(k.clone()));
                    walk(x, at, out);
                    at.pop();
                }
            }
            Value::Map(m) => {
                for (k, x) in m {
                    at.push(Step::Key(k.clone()));
                    walk(x, at, out);
                    at.pop();
                }
            }
            Value::List(l) | Value::Tuple(l) => {
                for (i, x) in l.iter().enumerate() {
                    at.push(Step::Index(i64::try_from(i).unwrap_or(i64::MAX)));
                    walk(x, at, out);
                    at.pop();
                }
            }
            // Set elements have no path of their own: an unknown inside makes the set's path unknown.
            Value::Set(l) if !l.iter().all(Value::is_wholly_known) => out.push(at.clone()),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, &mut Vec::new(), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_follows_attributes_indices_and_keys() {
        let v = Value::object([(
            "pool",
            Value::List(vec![Value::object([(
                "labels",
                Value::Map([("team".to_owned(), Value::from("ml"))].into()),
            )])]),
        )]);
        let p = [
            Step::Attribute("pool".into()),
            Step::Index(0),
            Step::Attribute("labels".into()),
            Step::Key("team".into()),
        ];
        assert_eq!(get(&v, &p), &Value::from("ml"));
        assert_eq!(get(&v, &[Step::Attribute("nope".into())]), &Value::Null);
        let u = Value::object([("pool", Value::Unknown)]);
        assert_eq!(get(&u, &p), &Value::Unknown, "below an unknown everything is unknown");
    }

    #[test]
    fn paths_go_through_blocks_of_one() {
        use eksgpu_tfplugin::Type;
        use eksgpu_tfplugin::schema::{Attribute, NestedBlock};
        let block = Block::new("r").block(NestedBlock::list(
            "pool",
            Block::new("p").block(NestedBlock::optional_one(
                "node_class",
                Block::new("n").attribute(Attribute::optional("role", Type::String, "r")),
            )),
        ));
        let a = |s: &str| Step::Attribute(s.into());
        assert_eq!(
            through_blocks(&block, &[a("pool"), Step::Index(2), a("node_class"), a("role")]),
            vec![a("pool"), Step::Index(2), a("node_class"), Step::Index(0), a("role")]
        );
        // Already through: unchanged.
        let done = [a("pool"), Step::Index(2), a("node_class"), Step::Index(0), a("role")];
        assert_eq!(through_blocks(&block, &done), done.to_vec());
        assert_eq!(one(&Value::List(vec![Value::from(1)])), &Value::from(1));
        assert_eq!(one(&Value::List(vec![])), &Value::Null);
        assert_eq!(one(&Value::Unknown), &Value::Unknown);
    }

    #[test]
    fn paths_go_into_nested_attributes_without_indices_of_their_own() {
        use eksgpu_tfplugin::Type;
        use eksgpu_tfplugin::schema::{Attribute, Mode, NestedBlock, NestedType, ObjectNesting};
        let class = Block::new("n")
            .attribute(Attribute::optional("role", Type::String, "r"))
            .attribute(Attribute::nested(
                "root_volume",
                Mode::Optional,
                NestedType::new(
                    ObjectNesting::Single,
                    Block::new("v").attribute(Attribute::optional("size", Type::String, "s")),
                ),
                "v",
            ));
        let pool = Block::new("p").attribute(Attribute::nested(
            "node_class",
            Mode::Optional,
            NestedType::new(ObjectNesting::Single, class),
            "n",
        ));
        let block = Block::new("r")
            .attribute(Attribute::nested(
                "pools",
                Mode::Required,
                NestedType::new(ObjectNesting::Map, pool),
                "p",
            ))
            .block(NestedBlock::optional_one("gpu_operator", Block::new("g")));
        let a = |s: &str| Step::Attribute(s.into());
        let k = Step::Key("gpu".into());
        let steps = [a("pools"), k.clone(), a("node_class"), a("root_volume"), a("size")];
        assert_eq!(through_blocks(&block, &steps), steps.to_vec());
        assert_eq!(
            through_blocks(&block, &[a("gpu_operator"), a("x")]),
            vec![a("gpu_operator"), Step::Index(0), a("x")],
            "blocks of one still gain their [0]"
        );
        // Terraform cannot point inside a nested attribute: the detail names the path.
        let mut d = Diagnostics::new();
        d.push(Diagnostic::error("s", "Pool is wrong.").at(AttributePath::from_steps(steps.to_vec())));
        d.push(Diagnostic::error("s", "Whole map.").at(AttributePath::attr("pools")));
        let out = diagnostics_through_blocks(&block, d).into_vec();
        assert_eq!(
            out[0].detail,
            r#"pools["gpu"].node_class.root_volume.size: Pool is wrong."#
        );
        assert_eq!(out[1].detail, "Whole map.", "Terraform finds the attribute itself");
    }

    #[test]
    fn unknowns_lists_every_unknown_path() {
        let v = Value::object([
            ("a", Value::Unknown),
            ("b", Value::List(vec![Value::from("x"), Value::Unknown])),
        ]);
        assert_eq!(
            unknowns(&v),
            vec![
                vec![Step::Attribute("a".into())],
                vec![Step::Attribute("b".into()), Step::Index(1)]
            ]
        );
    }
}
