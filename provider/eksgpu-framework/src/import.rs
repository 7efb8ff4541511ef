//! Import IDs: split on `/` and checked against the formats a resource
//! declares, with an error that shows them.

use eksgpu_tfplugin::Diagnostic;

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

#[cfg(test)]
mod tests {
    use super::*;

    const ID: ImportId = ImportId {
        formats: &[&["cluster", "name"], &["cluster", "namespace", "name"]],
        example: "gpu-prod/small",
    };

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
