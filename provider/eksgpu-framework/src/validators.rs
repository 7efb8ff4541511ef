//! Validators to declare on attributes. Each says what it accepts (its
//! description goes into the docs) and reports problems at the exact element.

use eksgpu_tfplugin::diag::Step;
use eksgpu_tfplugin::{Problem, Validator, Value};

use crate::model::whole;

/// A whole number in `min..=max`; `field` names the real field and its type
/// (e.g. "NodePool `limits` (int64)"), so the message says why the bound is there.
pub fn integer(min: i64, max: i64, field: &str) -> Validator {
    let field = field.to_owned();
    Validator::new(
        format!("A whole number from {min} to {max} ({field})."),
        move |v| match whole(v, i128::from(min), i128::from(max)) {
            Ok(_) => Vec::new(),
            Err(e) => vec![Problem::new(format!(
                "{e}: write a whole number from {min} to {max} ({field})."
            ))],
        },
    )
}

/// [`integer`] bounded by an int32 field of the API.
pub fn int32(min: i32, max: i32, field: &str) -> Validator {
    integer(i64::from(min), i64::from(max), &format!("{field}, int32"))
}

/// A finite number in `min..=max`.
pub fn number(min: f64, max: f64, field: &str) -> Validator {
    let field = field.to_owned();
    Validator::new(format!("A number from {min} to {max} ({field})."), move |v| {
        let f = v.as_number().map(eksgpu_tfplugin::Number::as_f64);
        match f {
            Some(f) if f.is_finite() && (min..=max).contains(&f) => Vec::new(),
            _ => vec![Problem::new(format!(
                "{} is not a number from {min} to {max} ({field}).",
                v.as_number().map_or_else(String::new, ToString::to_string)
            ))],
        }
    })
}

/// One of `allowed`, spelled exactly.
pub fn one_of(allowed: &'static [&'static str]) -> Validator {
    let list = allowed.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", ");
    Validator::new(format!("One of {list}."), move |v| match v.as_str() {
        Some(s) if allowed.contains(&s) => Vec::new(),
        Some(s) => vec![Problem::new(format!("{s:?} is not accepted: use one of {list}."))],
        None => Vec::new(),
    })
}

/// A string accepted by `check`, which returns what is wrong and what to write.
pub fn string(description: &str, check: impl Fn(&str) -> Result<(), String> + Send + Sync + 'static) -> Validator {
    Validator::new(description, move |v| match v.as_str() {
        Some(s) => check(s).err().map(Problem::new).into_iter().collect(),
        None => Vec::new(),
    })
}

/// `inner` on every known element of a list or set, or value of a map,
/// reported at the element.
pub fn each(inner: Validator) -> Validator {
    let description = format!("Each element: {}", inner.description);
    Validator::new(description, move |v| {
        let mut out = Vec::new();
        match v {
            Value::List(l) | Value::Tuple(l) => {
                for (i, x) in l.iter().enumerate() {
                    if x.is_wholly_known() && !x.is_null() {
                        let step = Step::Index(i64::try_from(i).unwrap_or(i64::MAX));
                        out.extend(inner.check(x).into_iter().map(|p| p.within(step.clone())));
                    }
                }
            }
            Value::Set(l) => {
                for x in l.iter().filter(|x| x.is_wholly_known() && !x.is_null()) {
                    out.extend(inner.check(x));
                }
            }
            Value::Map(m) => {
                for (k, x) in m {
                    if x.is_wholly_known() && !x.is_null() {
                        out.extend(inner.check(x).into_iter().map(|p| p.within(Step::Key(k.clone()))));
                    }
                }
            }
            _ => {}
        }
        out
    })
}

/// `check` on every key of a map, reported at the key.
pub fn keys(description: &str, check: impl Fn(&str) -> Result<(), String> + Send + Sync + 'static) -> Validator {
    Validator::new(description, move |v| match v {
        Value::Map(m) => m
            .keys()
            .filter_map(|k| check(k).err().map(|e| Problem::new(e).within(Step::Key(k.clone()))))
            .collect(),
        _ => Vec::new(),
    })
}

/// No element twice (reported at the later one).
pub fn distinct() -> Validator {
    Validator::new("No element twice.", |v| {
        let known: Vec<&Value> = v.elements().iter().filter(|x| x.is_wholly_known()).collect();
        let mut out = Vec::new();
        for (i, x) in v.elements().iter().enumerate() {
            if x.is_wholly_known() && known.iter().filter(|y| **y == x).count() > 1 && v.elements()[..i].contains(x) {
                out.push(
                    Problem::new(format!(
                        "{} appears more than once.",
                        x.as_str().unwrap_or("this value")
                    ))
                    .within(Step::Index(i64::try_from(i).unwrap_or(i64::MAX))),
                );
            }
        }
        out
    })
}

/// Between `min` and `max` elements (or entries); `what` names the upstream limit. Terraform
/// enforces no size on nested attributes (their `min_items` and `max_items` are deprecated in
/// the protocol), so they are validated here.
pub fn size(min: usize, max: usize, what: &str) -> Validator {
    let what = what.to_owned();
    let description = if max == usize::MAX {
        format!("At least {min} elements ({what}).")
    } else if min > 0 {
        format!("{min} to {max} elements ({what}).")
    } else {
        format!("At most {max} elements ({what}).")
    };
    Validator::new(description, move |v| {
        let n = match v {
            Value::List(l) | Value::Set(l) | Value::Tuple(l) => l.len(),
            Value::Map(m) => m.len(),
            _ => return Vec::new(),
        };
        if n < min {
            vec![Problem::new(format!("{n} given; at least {min} needed ({what})."))]
        } else if n > max {
            vec![Problem::new(format!("{n} given; at most {max} allowed ({what})."))]
        } else {
            Vec::new()
        }
    })
}

#[cfg(test)]
mod tests {
    use eksgpu_tfplugin::Number;

    use super::*;

    #[test]
    fn integer_rejects_fractions_and_range_with_the_field() {
        let v = int32(1, i32::MAX, "NodePool weight");
        assert!(v.check(&Value::from(3)).is_empty());
        let p = v.check(&Value::Number(Number::Float(1.5)));
        assert!(p[0].message.contains("1.5 is not a whole number"), "{p:?}");
        let p = v.check(&Value::Number(Number::Decimal("1e30".into())));
        assert!(p[0].message.contains("int32"), "{p:?}");
        assert!(!v.check(&Value::from(0)).is_empty());
    }

    #[test]
    fn each_reports_at_the_element_and_skips_unknowns() {
        let v = each(one_of(&["a"]));
        let p = v.check(&Value::List(vec![Value::from("a"), Value::Unknown, Value::from("b")]));
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].at, vec![Step::Index(2)]);
    }

    #[test]
    fn distinct_points_at_the_second_occurrence() {
        let p = distinct().check(&Value::List(vec![Value::from("x"), Value::from("y"), Value::from("x")]));
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].at, vec![Step::Index(2)]);
    }

    #[test]
    fn size_counts_list_elements_and_map_entries() {
        let v = size(1, 2, "pools");
        assert!(v.check(&Value::List(vec![Value::Null; 2])).is_empty());
        assert_eq!(v.check(&Value::Map(Default::default())).len(), 1);
        let three = Value::List(vec![Value::from(1); 3]);
        assert!(v.check(&three)[0].message.contains("at most 2"));
    }
}
