//! The planning engine: from Terraform's proposed new state to the planned
//! state, driven by what the schema declares.

use std::collections::BTreeMap;

use eksgpu_tfplugin::diag::Step;
use eksgpu_tfplugin::schema::{Attribute, Block, Mode, Nesting, ObjectNesting};
use eksgpu_tfplugin::{AttributePath, Value};

use crate::nested::{self, NULL, UNKNOWN};
use crate::path;

/// A plan being made: what the resource's `modify_plan` sees and changes.
#[derive(Debug)]
pub struct Plan<'a> {
    /// `Null` when the object is being created.
    pub prior: &'a Value,
    pub config: &'a Value,
    /// Proposed new state with defaults planned, and computed values unknown
    /// when something changed. The resource fills what it can compute.
    pub planned: Value,
    pub requires_replace: Vec<AttributePath>,
}

impl Plan<'_> {
    pub fn is_create(&self) -> bool {
        self.prior.is_null()
    }
}

/// Plans `proposed` for `block`: declared defaults where the configuration is
/// silent, computed values unknown when the object changes (unless declared
/// `use_state_for_unknown`), unknown nested blocks left unknown, and the
/// attributes whose change forces replacement.
pub fn plan<'a>(block: &Block, prior: &'a Value, config: &'a Value, proposed: Value) -> Plan<'a> {
    let mut planned = proposed;
    defaults(block, &mut planned, config);
    let changed = prior.is_null() || !same_inputs(block, prior, &planned);
    if changed {
        unknown_computed(block, &mut planned, prior);
    } else {
        // Terraform proposes the prior value of a computed attribute; inside nested attributes
        // not every supported release does, and an unchanged object plans no change.
        keep_computed(block, &mut planned, prior);
    }
    let requires_replace = if prior.is_null() {
        Vec::new()
    } else {
        let mut out = Vec::new();
        replacements(block, prior, &planned, &AttributePath::root(), &mut out);
        out
    };
    Plan {
        prior,
        config,
        planned,
        requires_replace,
    }
}

/// Plans each default where `config` has no value. The configuration and the
/// proposed state line up element by element (Terraform builds one from the other).
fn defaults(block: &Block, planned: &mut Value, config: &Value) {
    let Value::Object(m) = planned else {
        return;
    };
    for a in &block.attributes {
        if let Some(d) = &a.default
            && config.get(&a.name).is_null()
            && !config.is_unknown()
        {
            m.insert(a.name.clone(), d.clone());
        }
        if let (Some(n), Some(p)) = (&a.nested, m.get_mut(&a.name)) {
            let c = config.get(&a.name);
            for (place, item) in nested::objects_mut(n.nesting, p) {
                // An object the configuration does not show (it cannot be paired) stays as proposed.
                defaults(&n.object, item, nested::counterpart(&place, c, &UNKNOWN));
            }
        }
    }
    for b in &block.blocks {
        let Some(p) = m.get_mut(&b.name) else {
            continue;
        };
        let c = config.get(&b.name);
        match (b.nesting, p) {
            (Nesting::Single, p) => defaults(&b.block, p, c),
            (Nesting::List | Nesting::Set, Value::List(items) | Value::Set(items)) => {
                for (i, item) in items.iter_mut().enumerate() {
                    let ci = c.elements().get(i).unwrap_or(&Value::Unknown);
                    defaults(&b.block, item, ci);
                }
            }
            // Unknown (a dynamic block over unknown values) or null: stays as it is.
            _ => {}
        }
    }
}

/// The value without its computed-only attributes: what the user's configuration decides.
pub fn strip_computed(block: &Block, v: &Value) -> Value {
    let Value::Object(m) = v else {
        return v.clone();
    };
    let mut out = m.clone();
    for a in &block.attributes {
        if a.mode == Mode::Computed {
            out.remove(&a.name);
        } else if let (Some(n), Some(x)) = (&a.nested, out.get_mut(&a.name)) {
            for (_, item) in nested::objects_mut(n.nesting, x) {
                *item = strip_computed(&n.object, item);
            }
        }
    }
    for b in &block.blocks {
        if let Some(x) = out.get_mut(&b.name) {
            let stripped = match &*x {
                Value::List(l) => Value::List(l.iter().map(|e| strip_computed(&b.block, e)).collect()),
                Value::Set(l) => Value::Set(l.iter().map(|e| strip_computed(&b.block, e)).collect()),
                other => strip_computed(&b.block, other),
            };
            *x = stripped;
        }
    }
    Value::Object(out)
}

/// Whether `a` and `b` agree on everything but computed-only attributes:
/// `strip_computed(a) == strip_computed(b)`, without copying either (a
/// state's rendered outputs are most of its size).
pub(crate) fn same_inputs(block: &Block, a: &Value, b: &Value) -> bool {
    let (Value::Object(x), Value::Object(y)) = (a, b) else {
        return a == b;
    };
    let computed = |k: &str| {
        block
            .attributes
            .iter()
            .any(|at| at.mode == Mode::Computed && at.name == k)
    };
    let inputs = |m: &BTreeMap<String, Value>| m.keys().filter(|k| !computed(k)).count();
    if inputs(x) != inputs(y) {
        return false;
    }
    x.iter().filter(|(k, _)| !computed(k)).all(|(k, xv)| {
        let Some(yv) = y.get(k) else {
            return false;
        };
        if let Some(n) = block.find_attribute(k).and_then(|a| a.nested.as_ref()) {
            return same_nested(n.nesting, &n.object, xv, yv);
        }
        match block.find_block(k) {
            Some(nb) => match (xv, yv) {
                (Value::List(p), Value::List(q)) | (Value::Set(p), Value::Set(q)) => {
                    p.len() == q.len() && p.iter().zip(q).all(|(e, f)| same_inputs(&nb.block, e, f))
                }
                (Value::List(_) | Value::Set(_), _) | (_, Value::List(_) | Value::Set(_)) => false,
                _ => same_inputs(&nb.block, xv, yv),
            },
            None => xv == yv,
        }
    })
}

/// [`same_inputs`] for the values of a nested attribute: the same objects at the same places.
fn same_nested(nesting: ObjectNesting, object: &Block, x: &Value, y: &Value) -> bool {
    match (nesting, x, y) {
        (ObjectNesting::Map, Value::Map(p), Value::Map(q)) => {
            p.len() == q.len()
                && p.iter()
                    .all(|(k, e)| q.get(k).is_some_and(|f| same_inputs(object, e, f)))
        }
        (ObjectNesting::List | ObjectNesting::Set, Value::List(p), Value::List(q))
        | (ObjectNesting::Set, Value::Set(p), Value::Set(q)) => {
            p.len() == q.len() && p.iter().zip(q).all(|(e, f)| same_inputs(object, e, f))
        }
        (ObjectNesting::Single, _, _) => same_inputs(object, x, y),
        _ => x == y,
    }
}

/// Copies the prior value of every computed attribute, nested ones included (paired by place).
fn keep_computed(block: &Block, planned: &mut Value, prior: &Value) {
    let Value::Object(m) = planned else {
        return;
    };
    for a in &block.attributes {
        if a.mode == Mode::Computed {
            m.insert(a.name.clone(), prior.get(&a.name).clone());
        } else if let (Some(n), Some(p)) = (&a.nested, m.get_mut(&a.name)) {
            let before = prior.get(&a.name);
            for (place, item) in nested::objects_mut(n.nesting, p) {
                keep_computed(&n.object, item, nested::counterpart(&place, before, &NULL));
            }
        }
    }
    for b in &block.blocks {
        let (Some(p), before) = (m.get_mut(&b.name), prior.get(&b.name)) else {
            continue;
        };
        match (b.nesting, p) {
            (Nesting::Single, p) => keep_computed(&b.block, p, before),
            (Nesting::List, Value::List(items)) => {
                for (i, item) in items.iter_mut().enumerate() {
                    keep_computed(&b.block, item, before.elements().get(i).unwrap_or(&NULL));
                }
            }
            _ => {}
        }
    }
}

/// Marks computed-only attributes unknown ("known after apply"), keeping the
/// prior value of those declared `use_state_for_unknown`.
fn unknown_computed(block: &Block, planned: &mut Value, prior: &Value) {
    let Value::Object(m) = planned else {
        return;
    };
    for a in &block.attributes {
        if let (Some(n), Some(p), false) = (&a.nested, m.get_mut(&a.name), a.mode == Mode::Computed) {
            let before = prior.get(&a.name);
            for (place, item) in nested::objects_mut(n.nesting, p) {
                unknown_computed(&n.object, item, nested::counterpart(&place, before, &NULL));
            }
        }
        if a.mode != Mode::Computed {
            continue;
        }
        let keep = a.use_state_for_unknown && !prior.get(&a.name).is_null();
        m.insert(
            a.name.clone(),
            if keep {
                prior.get(&a.name).clone()
            } else {
                Value::Unknown
            },
        );
    }
    for b in &block.blocks {
        let Some(p) = m.get_mut(&b.name) else {
            continue;
        };
        let before = prior.get(&b.name);
        match (b.nesting, p) {
            (Nesting::Single, p) => unknown_computed(&b.block, p, before),
            (Nesting::List | Nesting::Set, Value::List(items) | Value::Set(items)) => {
                for (i, item) in items.iter_mut().enumerate() {
                    unknown_computed(&b.block, item, before.elements().get(i).unwrap_or(&Value::Null));
                }
            }
            _ => {}
        }
    }
}

/// Paths of attributes and blocks declared `forces_replacement` whose value changes.
fn replacements(block: &Block, prior: &Value, planned: &Value, at: &AttributePath, out: &mut Vec<AttributePath>) {
    for a in &block.attributes {
        if a.forces_replacement && prior.get(&a.name) != planned.get(&a.name) {
            out.push(at.clone().attribute(&a.name));
        } else if let Some(n) = &a.nested {
            nested_replacements(a, n.nesting, &n.object, prior, planned, at, out);
        }
    }
    for b in &block.blocks {
        let (p, q) = (prior.get(&b.name), planned.get(&b.name));
        let here = at.clone().attribute(&b.name);
        if b.forces_replacement {
            if p != q {
                out.push(here);
            }
            continue;
        }
        match b.nesting {
            Nesting::Single => replacements(&b.block, p, q, &here, out),
            Nesting::List => {
                for (i, (x, y)) in p.elements().iter().zip(q.elements()).enumerate() {
                    replacements(&b.block, x, y, &here.clone().index(i), out);
                }
            }
            Nesting::Set => {}
        }
    }
}

/// [`replacements`] inside the objects of a nested attribute present before and after.
fn nested_replacements(
    a: &Attribute,
    nesting: ObjectNesting,
    object: &Block,
    prior: &Value,
    planned: &Value,
    at: &AttributePath,
    out: &mut Vec<AttributePath>,
) {
    let here = at.clone().attribute(&a.name);
    let before = prior.get(&a.name);
    for (place, after) in nested::objects(nesting, planned.get(&a.name)) {
        let was = nested::counterpart(&place, before, &NULL);
        if !was.is_null() && place != nested::Place::Element {
            replacements(object, was, after, &place.under(&here), out);
        }
    }
}

/// Calls `f` with the key and value of every object of the map nested attribute `map`
/// (e.g. each pool, to fill its computed outputs), leaving an unknown map unknown.
pub fn each_entry(planned: &mut Value, map: &str, mut f: impl FnMut(&str, &mut Value)) {
    if let Some(Value::Map(items)) = path::get_mut(planned, &[Step::Attribute(map.to_owned())]) {
        for (k, item) in items.iter_mut() {
            f(k, item);
        }
    }
}

/// Sets `name` of every element of the block list `list` (e.g. a pool's
/// computed outputs), leaving an unknown list unknown.
pub fn each_element(planned: &mut Value, list: &str, mut f: impl FnMut(usize, &mut Value)) {
    if let Some(Value::List(items)) = path::get_mut(planned, &[Step::Attribute(list.to_owned())]) {
        for (i, item) in items.iter_mut().enumerate() {
            f(i, item);
        }
    }
}

#[cfg(test)]
mod tests;
