//! Defaults of Optional+Computed attributes, planned from the configuration.
//!
//! When the configuration is silent, Terraform proposes the *prior* value of
//! such an attribute — which after a refresh may be drift. Planning the default
//! instead (the terraform-plugin-framework `Default` behaviour) makes apply
//! restore it, and keeps a concrete value in state for imports to match.

use eksgpu_tfplugin::Value;

/// One step into a value: an attribute or a list index.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Seg<'a> {
    Attr(&'a str),
    Index(usize),
}

fn at<'v>(v: &'v Value, path: &[Seg<'_>]) -> &'v Value {
    static NULL: Value = Value::Null;
    path.iter().fold(v, |v, s| match s {
        Seg::Attr(a) => v.get(a),
        Seg::Index(i) => v.elements().get(*i).unwrap_or(&NULL),
    })
}

fn at_mut<'v>(v: &'v mut Value, path: &[Seg<'_>]) -> Option<&'v mut Value> {
    path.iter().try_fold(v, |v, s| match (s, v) {
        (Seg::Attr(a), Value::Object(m)) => m.get_mut(*a),
        (Seg::Index(i), Value::List(l)) => l.get_mut(*i),
        _ => None,
    })
}

/// Sets `planned` at `parent.attr` to `default` when the configuration has no
/// value there (and the parent block exists in the plan).
pub(crate) fn plan_default(planned: &mut Value, config: &Value, parent: &[Seg<'_>], attr: &str, default: Value) {
    let mut path = parent.to_vec();
    path.push(Seg::Attr(attr));
    if !at(config, &path).is_null() {
        return;
    }
    if let Some(Value::Object(m)) = at_mut(planned, parent) {
        m.insert(attr.to_owned(), default);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_wins_over_a_drifted_prior_value() {
        let config = Value::object([("pool", Value::List(vec![Value::object([("gpu_taint", Value::Null)])]))]);
        // Terraform proposed the refreshed (drifted) value.
        let mut planned = Value::object([("pool", Value::List(vec![Value::object([("gpu_taint", false.into())])]))]);
        plan_default(
            &mut planned,
            &config,
            &[Seg::Attr("pool"), Seg::Index(0)],
            "gpu_taint",
            true.into(),
        );
        assert_eq!(planned.get("pool").elements()[0].get("gpu_taint"), &Value::Bool(true));
        // A configured value is kept.
        let config = Value::object([("x", false.into())]);
        let mut planned = Value::object([("x", false.into())]);
        plan_default(&mut planned, &config, &[], "x", true.into());
        assert_eq!(planned.get("x"), &Value::Bool(false));
        // No block, nothing to default.
        let mut planned = Value::object([("b", Value::Null)]);
        plan_default(&mut planned, &Value::Null, &[Seg::Attr("b")], "x", true.into());
        assert_eq!(planned.get("b"), &Value::Null);
    }
}
