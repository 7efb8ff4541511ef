//! Import IDs: split on `/` and checked against the formats a resource
//! declares, with an error that shows them.

use eksgpu_tfplugin::schema::Block;
use eksgpu_tfplugin::{Diagnostic, Value};

/// The accepted forms of a resource's import ID, each a list of part names.
#[derive(Debug, Clone, Copy)]
pub struct ImportId {
    pub formats: &'static [&'static [&'static str]],
    pub example: &'static str,
}

impl ImportId {
    /// The parts of `id` as `(format index, parts)`, or a diagnostic naming the formats.
    pub fn parse<'i>(&self, id: &'i str) -> Result<(usize, Vec<&'i str>), Diagnostic> {
        let parts: Vec<&str> = id.split('/').collect();
        self.formats
            .iter()
            .position(|f| f.len() == parts.len())
            .filter(|_| parts.iter().all(|p| !p.is_empty() && p.trim() == *p))
            .map(|i| (i, parts))
            .ok_or_else(|| {
                let forms: Vec<String> = self.formats.iter().map(|f| format!("<{}>", f.join(">/<"))).collect();
                Diagnostic::error(
                    "Invalid import ID",
                    format!(
                        "{id:?} is not {}: non-empty parts separated by `/`, e.g. {:?}.",
                        forms.join(" or "),
                        self.example
                    ),
                )
            })
    }
}

impl ImportId {
    /// Each part checked by the validators of the attribute it names (an import ID names
    /// attributes: `cluster_name`, `name`): an ID that could name nothing is refused before any
    /// request, saying which part and why, instead of surfacing as the cloud API's error.
    pub fn check_parts(&self, format: usize, parts: &[&str], block: &Block) -> Vec<Diagnostic> {
        let Some(names) = self.formats.get(format) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (name, part) in names.iter().zip(parts) {
            let Some(attr) = block.attributes.iter().find(|a| a.name == *name) else {
                continue;
            };
            for problem in attr.validators.iter().flat_map(|v| v.check(&Value::from(*part))) {
                out.push(Diagnostic::error(
                    "Invalid import ID",
                    format!(
                        "The `{name}` part of the ID, {part:?}, is not a value `{name}` takes: {} The ID is \
                         <{}>, e.g. {:?}.",
                        problem.message,
                        names.join(">/<"),
                        self.example
                    ),
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: ImportId = ImportId {
        formats: &[&["cluster", "name"], &["cluster", "namespace", "name"]],
        example: "gpu-prod/small",
    };

    #[test]
    fn parts_are_checked_by_the_attributes_they_name() {
        use eksgpu_tfplugin::Type;
        use eksgpu_tfplugin::schema::Attribute;
        let block = Block::new("b").attribute(Attribute::required("cluster", Type::String, "c").validate(
            crate::validators::string("short", |s| {
                if s.len() <= 3 {
                    Ok(())
                } else {
                    Err("at most 3 characters.".into())
                }
            }),
        ));
        assert!(ID.check_parts(0, &["abc", "n"], &block).is_empty());
        let d = ID.check_parts(0, &["../../x", "n"], &block);
        assert_eq!(d.len(), 1);
        assert!(
            d[0].detail.contains("`cluster` part of the ID, \"../../x\""),
            "{}",
            d[0].detail
        );
        assert!(d[0].detail.contains("at most 3 characters."), "{}", d[0].detail);
    }

    #[test]
    fn parses_each_declared_format() {
        assert_eq!(ID.parse("c/n").unwrap(), (0, vec!["c", "n"]));
        assert_eq!(ID.parse("c/ns/n").unwrap(), (1, vec!["c", "ns", "n"]));
    }

    #[test]
    fn rejects_empty_parts_and_other_shapes_naming_the_formats() {
        for bad in ["", "c", "c/", "/n", "c//n", "a/b/c/d", " c/n"] {
            let d = ID.parse(bad).unwrap_err();
            assert!(
                d.detail.contains("<cluster>/<name> or <cluster>/<namespace>/<name>"),
                "{bad}: {}",
                d.detail
            );
        }
    }
}
