//! Null versus empty: Terraform tells `labels = {}` from no `labels`, APIs do
//! not. What the provider reads back keeps the spelling the state had, so a
//! refresh that found nothing new shows no change.

use eksgpu_tfplugin::Value;

fn empty(v: &Value) -> bool {
    match v {
        Value::List(l) | Value::Set(l) | Value::Tuple(l) => l.is_empty(),
        Value::Map(m) => m.is_empty(),
        _ => false,
    }
}

/// `read` with `null` and empty collections spelled as in `prior`, recursively
/// through objects, maps and lists of objects.
pub fn like_prior(prior: &Value, read: Value) -> Value {
    match (prior, read) {
        (p, r) if p.is_null() && empty(&r) => Value::Null,
        (p, r) if empty(p) && r.is_null() => p.clone(),
        (Value::Object(p), Value::Object(mut r)) => {
            for (k, v) in r.iter_mut() {
                if let Some(pv) = p.get(k) {
                    *v = like_prior(pv, std::mem::replace(v, Value::Null));
                }
            }
            Value::Object(r)
        }
        (Value::Map(p), Value::Map(mut r)) => {
            for (k, v) in r.iter_mut() {
                if let Some(pv) = p.get(k) {
                    *v = like_prior(pv, std::mem::replace(v, Value::Null));
                }
            }
            Value::Map(r)
        }
        (Value::List(p), Value::List(r)) => Value::List(
            r.into_iter()
                .enumerate()
                .map(|(i, x)| match p.get(i) {
                    Some(pv) => like_prior(pv, x),
                    None => x,
                })
                .collect(),
        ),
        (_, r) => r,
    }
}

/// `prior` with the attributes of `after` that differ from `before` (both
/// written from models): a read-back rewrites only what really changed, so
/// the user's spelling of everything else survives.
pub fn changed_only(prior: &Value, before: &Value, after: Value) -> Value {
    let (Value::Object(p), Value::Object(a)) = (prior, after.clone()) else {
        return after;
    };
    let mut out = p.clone();
    for (k, v) in a {
        if before.get(&k) != &v {
            out.insert(k, v);
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_prior_spelling_of_empty() {
        let prior = Value::object([("a", Value::Null), ("b", Value::Map(Default::default()))]);
        let read = Value::object([("a", Value::Map(Default::default())), ("b", Value::Null)]);
        assert_eq!(like_prior(&prior, read), prior);
        // Real content is never hidden.
        let read = Value::object([
            ("a", Value::Map([("k".to_owned(), Value::from("v"))].into())),
            ("b", Value::Null),
        ]);
        assert_eq!(like_prior(&prior, read.clone()).get("a"), read.get("a"));
    }

    #[test]
    fn changed_only_rewrites_what_changed() {
        let prior = Value::object([("a", "user spelling".into()), ("b", Value::from(1))]);
        let before = Value::object([("a", "x".into()), ("b", Value::from(1))]);
        let after = Value::object([("a", "x".into()), ("b", Value::from(2))]);
        let out = changed_only(&prior, &before, after);
        assert_eq!(out.get("a"), &Value::from("user spelling"));
        assert_eq!(out.get("b"), &Value::from(2));
    }
}
