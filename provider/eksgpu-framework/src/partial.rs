//! Rules on partly known configurations. A rule runs on what is known: unknown
//! inputs read as absent, and a finding that points at (or into, or around) an
//! unknown value is dropped — it may not hold once the value is known. Such
//! rules run again on the known plan at apply, so they are deferred, not skipped.

use eksgpu_tfplugin::diag::Step;
use eksgpu_tfplugin::schema::Block;
use eksgpu_tfplugin::{Diagnostic, Value};

use crate::path;
use crate::plan::strip_computed;

/// The user's inputs of a planned value, unknowns read as null.
#[derive(Debug, Clone)]
pub struct Partial {
    pub value: Value,
    unknown: Vec<Vec<Step>>,
}

impl Partial {
    /// The inputs of `planned` (computed-only attributes left out) with every unknown as null.
    pub fn of_inputs(block: &Block, planned: &Value) -> Partial {
        let inputs = strip_computed(block, planned);
        let unknown = path::unknowns(&inputs);
        Partial {
            value: nulled(inputs),
            unknown,
        }
    }

    /// No input is unknown.
    pub fn is_complete(&self) -> bool {
        self.unknown.is_empty()
    }

    /// Whether a finding at `at` may depend on an unknown input: it points at
    /// one, inside one, or at something that contains one.
    pub fn touches_unknown(&self, at: &[Step]) -> bool {
        self.unknown.iter().any(|u| u.starts_with(at) || at.starts_with(u))
    }

    /// The unknown inputs at or below `at`, as paths relative to it; an unknown value holding
    /// `at` (a whole block list from a `dynamic` block) is the empty path.
    pub fn unknowns_below<'a>(&'a self, at: &'a [Step]) -> impl Iterator<Item = &'a [Step]> + 'a {
        self.unknown.iter().filter_map(move |u| {
            if u.starts_with(at) {
                Some(&u[at.len()..])
            } else if at.starts_with(u) {
                Some(&[][..])
            } else {
                None
            }
        })
    }

    /// Whether a rule's finding may be reported now: every input is known, or
    /// its path (written through `block`'s blocks of one) touches no unknown one.
    pub fn reports(&self, block: &Block, d: &Diagnostic) -> bool {
        let steps = path::through_blocks(block, d.path.as_ref().map_or(&[][..], |p| p.steps()));
        self.is_complete() || !self.touches_unknown(&steps)
    }
}

fn nulled(v: Value) -> Value {
    match v {
        Value::Unknown => Value::Null,
        Value::Object(m) => Value::Object(m.into_iter().map(|(k, x)| (k, nulled(x))).collect()),
        Value::Map(m) => Value::Map(
            m.into_iter()
                .filter(|(_, x)| !x.is_unknown())
                .map(|(k, x)| (k, nulled(x)))
                .collect(),
        ),
        Value::List(l) => Value::List(l.into_iter().filter(|x| !x.is_unknown()).map(nulled).collect()),
        Value::Set(l) => Value::Set(l.into_iter().filter(|x| !x.is_unknown()).map(nulled).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use eksgpu_tfplugin::Type;
    use eksgpu_tfplugin::schema::{Attribute, NestedBlock};

    use super::*;

    #[test]
    fn findings_near_unknown_inputs_are_held_back() {
        let block = Block::new("r")
            .attribute(Attribute::computed("out", Type::String, "o"))
            .block(NestedBlock::list(
                "pool",
                Block::new("p")
                    .attribute(Attribute::optional("name", Type::String, "n"))
                    .attribute(Attribute::optional("role", Type::String, "r")),
            ));
        let planned = Value::object([
            ("out", Value::Unknown),
            (
                "pool",
                Value::List(vec![
                    Value::object([("name", "a".into()), ("role", Value::Unknown)]),
                    Value::object([("name", "a".into()), ("role", "r".into())]),
                ]),
            ),
        ]);
        let p = Partial::of_inputs(&block, &planned);
        assert!(!p.is_complete(), "pool[0].role");
        let at = |s: &[Step]| p.touches_unknown(s);
        let pool = |i| vec![Step::Attribute("pool".into()), Step::Index(i)];
        assert!(at(&pool(0)), "pool[0] contains the unknown role");
        assert!(!at(&pool(1)));
        let mut name1 = pool(1);
        name1.push(Step::Attribute("name".into()));
        assert!(!at(&name1), "a duplicate name at pool[1].name is reported");
        let role = [Step::Attribute("role".into())];
        assert_eq!(p.unknowns_below(&pool(0)).collect::<Vec<_>>(), vec![&role[..]]);
        assert_eq!(p.unknowns_below(&pool(1)).count(), 0);
        let mut role0 = pool(0);
        role0.extend(role.clone());
        role0.push(Step::Key("k".into()));
        assert_eq!(
            p.unknowns_below(&role0).collect::<Vec<_>>(),
            vec![&[][..]],
            "held by an unknown"
        );
        assert_eq!(p.value.get("pool").elements()[0].get("role"), &Value::Null);
        // Computed outputs being unknown does not hold rules back.
        let known = Value::object([("out", Value::Unknown), ("pool", Value::List(vec![]))]);
        assert!(Partial::of_inputs(&block, &known).is_complete());
    }
}
