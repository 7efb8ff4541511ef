//! cty types: the type system Terraform uses on the wire, and their JSON form.

use std::collections::BTreeMap;

/// A cty type. Dynamic (`"dynamic"`) is deliberately absent: this provider's
/// schemas never declare it, so the codec never has to guess a type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Type {
    String,
    Number,
    Bool,
    List(Box<Type>),
    Set(Box<Type>),
    Map(Box<Type>),
    Object(BTreeMap<String, Type>),
    Tuple(Vec<Type>),
}

impl Type {
    pub fn list(element: Type) -> Type {
        Type::List(Box::new(element))
    }

    pub fn set(element: Type) -> Type {
        Type::Set(Box::new(element))
    }

    pub fn map(element: Type) -> Type {
        Type::Map(Box::new(element))
    }

    pub fn object<'a>(attributes: impl IntoIterator<Item = (&'a str, Type)>) -> Type {
        Type::Object(attributes.into_iter().map(|(name, ty)| (name.to_owned(), ty)).collect())
    }

    /// The JSON encoding Terraform expects in `Schema.Attribute.type`
    /// (go-cty `cty/json.go`): `"string"`, `["list","string"]`, `["object",{…}]`.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::{Value as J, json};
        match self {
            Type::String => J::from("string"),
            Type::Number => J::from("number"),
            Type::Bool => J::from("bool"),
            Type::List(e) => json!(["list", e.to_json()]),
            Type::Set(e) => json!(["set", e.to_json()]),
            Type::Map(e) => json!(["map", e.to_json()]),
            Type::Object(attrs) => {
                let attrs: serde_json::Map<String, J> = attrs.iter().map(|(k, t)| (k.clone(), t.to_json())).collect();
                json!(["object", attrs])
            }
            Type::Tuple(elems) => {
                json!(["tuple", elems.iter().map(Type::to_json).collect::<Vec<_>>()])
            }
        }
    }

    /// A short human name for diagnostics ("list of string").
    pub fn friendly_name(&self) -> String {
        match self {
            Type::String => "string".into(),
            Type::Number => "number".into(),
            Type::Bool => "bool".into(),
            Type::List(e) => format!("list of {}", e.friendly_name()),
            Type::Set(e) => format!("set of {}", e.friendly_name()),
            Type::Map(e) => format!("map of {}", e.friendly_name()),
            Type::Object(_) => "object".into(),
            Type::Tuple(_) => "tuple".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_form_matches_go_cty() {
        let ty = Type::object([
            ("name", Type::String),
            ("tags", Type::map(Type::String)),
            ("zones", Type::list(Type::String)),
            ("ids", Type::set(Type::Number)),
            ("pair", Type::Tuple(vec![Type::Bool, Type::Number])),
        ]);
        assert_eq!(
            ty.to_json().to_string(),
            r#"["object",{"ids":["set","number"],"name":"string","pair":["tuple",["bool","number"]],"tags":["map","string"],"zones":["list","string"]}]"#
        );
    }

    #[test]
    fn friendly_names() {
        assert_eq!(
            Type::list(Type::map(Type::String)).friendly_name(),
            "list of map of string"
        );
    }
}
