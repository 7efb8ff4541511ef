//! Provider functions on the framework: arguments read as typed values with
//! the argument's position in the error, and numeric results that are never
//! NaN or infinite (Terraform cannot store them in a saved plan).

use eksgpu_tfplugin::{FunctionError, Number, Value};

use crate::model::FromValue;

/// Argument `i` as a `T`, or an error blaming that argument.
pub fn arg<T: FromValue>(args: &[Value], i: usize, name: &str) -> Result<T, FunctionError> {
    let v = args.get(i).unwrap_or(&Value::Null);
    T::from_value(v).map_err(|e| FunctionError {
        text: format!("{name}: {e}."),
        argument: Some(i),
    })
}

/// A numeric result; an error blaming argument `blame` when it is not finite.
pub fn finite(x: f64, blame: usize, what: &str) -> Result<Value, FunctionError> {
    if x.is_finite() {
        Ok(Value::Number(Number::from_f64(x)))
    } else {
        Err(FunctionError {
            text: format!("{what} is too large to compute; give a smaller value."),
            argument: Some(blame),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_typed_and_results_finite() {
        let args = [Value::from("x"), Value::Number(Number::Float(1.5))];
        assert_eq!(arg::<String>(&args, 0, "name").unwrap(), "x");
        let e = arg::<i64>(&args, 1, "count").unwrap_err();
        assert_eq!(e.argument, Some(1));
        assert!(e.text.contains("1.5 is not a whole number"), "{}", e.text);
        assert!(finite(f64::INFINITY, 0, "the memory").is_err());
        assert!(finite(f64::NAN, 0, "the memory").is_err());
        assert_eq!(finite(2.0, 0, "x").unwrap(), Value::from(2));
    }
}
