//! Schemas: the shape of provider, resource and data source configuration,
//! built in code (the single source of truth) and sent to Terraform.

use std::fmt;
use std::sync::Arc;

use crate::diag::Step;
use crate::types::Type;
use crate::value::Value;

/// A versioned schema of a resource, data source or the provider itself.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    pub version: i64,
    pub block: Block,
}

impl Schema {
    pub fn new(block: Block) -> Self {
        Self { version: 0, block }
    }

    /// The cty type of values of this schema (state, config, plan).
    pub fn value_type(&self) -> Type {
        self.block.implied_type()
    }
}

/// How an attribute is set: by the user, by the provider, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Required,
    Optional,
    Computed,
    /// Set by the user, else computed by the provider.
    OptionalComputed,
}

/// One thing wrong with a value: where inside it (relative to the attribute)
/// and what, in words that say what to write instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub at: Vec<Step>,
    pub message: String,
}

impl Problem {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            at: Vec::new(),
            message: message.into(),
        }
    }

    #[must_use]
    pub fn within(mut self, step: Step) -> Self {
        self.at.insert(0, step);
        self
    }
}

type Check = dyn Fn(&Value) -> Vec<Problem> + Send + Sync;

/// A check of one attribute's value, declared on the schema. The framework
/// runs it on every known, non-null value at the attribute's path, also when
/// other values of the configuration are still unknown.
#[derive(Clone)]
pub struct Validator {
    /// Markdown, for the docs: the accepted form and its source.
    pub description: String,
    /// The rule code its findings carry, where the rule catalogue has one.
    pub code: Option<&'static str>,
    check: Arc<Check>,
}

impl Validator {
    pub fn new(description: impl Into<String>, check: impl Fn(&Value) -> Vec<Problem> + Send + Sync + 'static) -> Self {
        Self {
            description: description.into(),
            code: None,
            check: Arc::new(check),
        }
    }

    /// Findings carry rule `code` (e.g. `EKSGPU108`).
    #[must_use]
    pub fn code(mut self, code: &'static str) -> Self {
        self.code = Some(code);
        self
    }

    /// Problems with `value` (known and not null).
    pub fn check(&self, value: &Value) -> Vec<Problem> {
        (self.check)(value)
    }
}

impl fmt::Debug for Validator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Validator").field(&self.description).finish()
    }
}

impl PartialEq for Validator {
    fn eq(&self, other: &Self) -> bool {
        self.description == other.description
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Attribute {
    pub name: String,
    pub ty: Type,
    pub mode: Mode,
    pub description: String,
    pub sensitive: bool,
    pub deprecated: bool,
    /// Changing it replaces the object; the framework lists it in `requires_replace`.
    pub forces_replacement: bool,
    /// Planned when the configuration is silent (the attribute is optional and computed).
    pub default: Option<Value>,
    /// For computed values: keep the prior state's value instead of planning
    /// "known after apply" when something else changes.
    pub use_state_for_unknown: bool,
    pub validators: Vec<Validator>,
    /// A nested attribute: its objects' attributes, each with its own mode ([`NestedType`]);
    /// `ty` is then the type they imply.
    pub nested: Option<NestedType>,
}

impl Attribute {
    fn new(name: &str, ty: Type, mode: Mode, description: &str) -> Self {
        Self {
            name: name.to_owned(),
            ty,
            mode,
            description: description.to_owned(),
            sensitive: false,
            deprecated: false,
            forces_replacement: false,
            default: None,
            use_state_for_unknown: false,
            validators: Vec::new(),
            nested: None,
        }
    }

    /// A nested attribute (protocol 6 `Schema.Attribute.nested_type`): an object, or a list,
    /// set or map of objects, whose attributes are `nested.object`'s.
    pub fn nested(name: &str, mode: Mode, nested: NestedType, description: &str) -> Self {
        let mut a = Self::new(name, nested.implied_type(), mode, description);
        a.nested = Some(nested);
        a
    }

    pub fn required(name: &str, ty: Type, description: &str) -> Self {
        Self::new(name, ty, Mode::Required, description)
    }

    pub fn optional(name: &str, ty: Type, description: &str) -> Self {
        Self::new(name, ty, Mode::Optional, description)
    }

    pub fn computed(name: &str, ty: Type, description: &str) -> Self {
        Self::new(name, ty, Mode::Computed, description)
    }

    pub fn optional_computed(name: &str, ty: Type, description: &str) -> Self {
        Self::new(name, ty, Mode::OptionalComputed, description)
    }

    #[must_use]
    pub fn sensitive(mut self) -> Self {
        self.sensitive = true;
        self
    }

    #[must_use]
    pub fn forces_replacement(mut self) -> Self {
        self.forces_replacement = true;
        self
    }

    /// The value planned when the configuration leaves the attribute out. An
    /// attribute with a default is optional and computed, so state always
    /// holds a concrete value (and import matches a configuration that omits it).
    #[must_use]
    pub fn default(mut self, value: impl Into<Value>) -> Self {
        self.default = Some(value.into());
        self.mode = Mode::OptionalComputed;
        self
    }

    #[must_use]
    pub fn use_state_for_unknown(mut self) -> Self {
        self.use_state_for_unknown = true;
        self
    }

    #[must_use]
    pub fn validate(mut self, v: Validator) -> Self {
        self.validators.push(v);
        self
    }
}

/// How the objects of a nested attribute are held (protocol 6 `Schema.Object.NestingMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectNesting {
    /// One object.
    Single,
    List,
    Set,
    /// Objects keyed by a string the configuration chooses.
    Map,
}

/// The objects of a nested attribute. Their attributes are held as a [`Block`] without nested
/// blocks (a nested attribute cannot hold blocks), so that everything that walks blocks walks
/// them too.
#[derive(Debug, Clone, PartialEq)]
pub struct NestedType {
    pub nesting: ObjectNesting,
    pub object: Block,
}

impl NestedType {
    pub fn new(nesting: ObjectNesting, object: Block) -> Self {
        Self { nesting, object }
    }

    /// The attribute's value type: the object type, or a list, set or map of it.
    pub fn implied_type(&self) -> Type {
        let object = self.object.implied_type();
        match self.nesting {
            ObjectNesting::Single => object,
            ObjectNesting::List => Type::list(object),
            ObjectNesting::Set => Type::set(object),
            ObjectNesting::Map => Type::map(object),
        }
    }
}

/// How many blocks of a type may appear.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nesting {
    Single,
    List,
    Set,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NestedBlock {
    pub name: String,
    pub nesting: Nesting,
    pub block: Block,
    pub min_items: i64,
    pub max_items: i64,
    /// Adding, removing or changing the block replaces the object.
    pub forces_replacement: bool,
}

impl NestedBlock {
    pub fn single(name: &str, block: Block) -> Self {
        Self {
            name: name.to_owned(),
            nesting: Nesting::Single,
            block,
            min_items: 0,
            max_items: 0,
            forces_replacement: false,
        }
    }

    /// At most one block, as a list: Terraform keeps a `dynamic` block over
    /// unknown values unknown as a whole list, where a single block would be
    /// planned present and then fail as "was present, but now absent" when the
    /// `for_each` turns out empty. HCL syntax is the same as a single block.
    pub fn optional_one(name: &str, block: Block) -> Self {
        Self::list(name, block).max_items(1)
    }

    /// Exactly one block, as a list (see [`NestedBlock::optional_one`]).
    pub fn required_one(name: &str, block: Block) -> Self {
        Self::list(name, block).min_items(1).max_items(1)
    }

    /// Whether this is a block of at most one, written as a list.
    pub fn is_one(&self) -> bool {
        self.nesting == Nesting::List && self.max_items == 1
    }

    pub fn list(name: &str, block: Block) -> Self {
        Self {
            name: name.to_owned(),
            nesting: Nesting::List,
            block,
            min_items: 0,
            max_items: 0,
            forces_replacement: false,
        }
    }

    #[must_use]
    pub fn forces_replacement(mut self) -> Self {
        self.forces_replacement = true;
        self
    }

    #[must_use]
    pub fn min_items(mut self, n: i64) -> Self {
        self.min_items = n;
        self
    }

    #[must_use]
    pub fn max_items(mut self, n: i64) -> Self {
        self.max_items = n;
        self
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Block {
    pub attributes: Vec<Attribute>,
    pub blocks: Vec<NestedBlock>,
    /// Markdown.
    pub description: String,
    pub deprecated: bool,
}

impl Block {
    pub fn new(description: &str) -> Self {
        Self {
            description: description.to_owned(),
            ..Self::default()
        }
    }

    #[must_use]
    pub fn attribute(mut self, a: Attribute) -> Self {
        self.attributes.push(a);
        self
    }

    #[must_use]
    pub fn block(mut self, b: NestedBlock) -> Self {
        self.blocks.push(b);
        self
    }

    pub fn implied_type(&self) -> Type {
        let attrs = self.attributes.iter().map(|a| (a.name.clone(), a.ty.clone()));
        let blocks = self.blocks.iter().map(|b| {
            let inner = b.block.implied_type();
            let ty = match b.nesting {
                Nesting::Single => inner,
                Nesting::List => Type::list(inner),
                Nesting::Set => Type::set(inner),
            };
            (b.name.clone(), ty)
        });
        Type::Object(attrs.chain(blocks).collect())
    }

    pub fn find_attribute(&self, name: &str) -> Option<&Attribute> {
        self.attributes.iter().find(|a| a.name == name)
    }

    pub fn find_block(&self, name: &str) -> Option<&NestedBlock> {
        self.blocks.iter().find(|b| b.name == name)
    }
}

/// The rules current Terraform's `configschema.InternalValidate` applies when it
/// loads a provider; Terraform 1.0.3 does not check them, so we do (hashicorp/terraform internal/configs/configschema/internal_validate.go).
pub fn internal_validate(block: &Block, path: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let valid_name = |n: &str| {
        !n.is_empty()
            && n.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    };
    let mut seen = std::collections::BTreeSet::new();
    for a in &block.attributes {
        let at = format!("{path}{}", a.name);
        if !valid_name(&a.name) {
            problems.push(format!("{at}: name must match ^[a-z0-9_]+$"));
        }
        if !seen.insert(a.name.as_str()) {
            problems.push(format!("{at}: duplicate name"));
        }
        if a.description.is_empty() {
            problems.push(format!("{at}: missing description (docs are generated from it)"));
        }
        if let Some(n) = &a.nested {
            if !n.object.blocks.is_empty() {
                problems.push(format!("{at}: a nested attribute cannot hold blocks"));
            }
            if a.ty != n.implied_type() {
                problems.push(format!("{at}: type differs from the nested type's"));
            }
            problems.extend(internal_validate(&n.object, &format!("{at}.")));
        }
    }
    for b in &block.blocks {
        let at = format!("{path}{}", b.name);
        if !valid_name(&b.name) {
            problems.push(format!("{at}: name must match ^[a-z0-9_]+$"));
        }
        if !seen.insert(b.name.as_str()) {
            problems.push(format!("{at}: name used by an attribute and a block"));
        }
        if b.nesting == Nesting::Single && (b.min_items != b.max_items || b.min_items > 1) {
            problems.push(format!(
                "{at}: MinItems and MaxItems must match (0 or 1) in NestingSingle mode"
            ));
        }
        if b.max_items != 0 && b.min_items > b.max_items {
            problems.push(format!("{at}: min_items exceeds max_items"));
        }
        problems.extend(internal_validate(&b.block, &format!("{at}.")));
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn implied_type_includes_blocks() {
        let block = Block::new("x")
            .attribute(Attribute::required("name", Type::String, "n"))
            .block(NestedBlock::list(
                "pool",
                Block::new("p").attribute(Attribute::optional("id", Type::Number, "i")),
            ))
            .block(NestedBlock::single("one", Block::new("o")));
        assert_eq!(
            block.implied_type(),
            Type::object([
                ("name", Type::String),
                ("pool", Type::list(Type::object([("id", Type::Number)]))),
                ("one", Type::object([])),
            ])
        );
    }

    #[test]
    fn nested_attributes_imply_their_collection_of_objects() {
        let object = Block::new("p").attribute(Attribute::optional("id", Type::Number, "i"));
        let ty = |n| Attribute::nested("pools", Mode::Required, NestedType::new(n, object.clone()), "d").ty;
        let obj = Type::object([("id", Type::Number)]);
        assert_eq!(ty(ObjectNesting::Map), Type::map(obj.clone()));
        assert_eq!(ty(ObjectNesting::List), Type::list(obj.clone()));
        assert_eq!(ty(ObjectNesting::Single), obj);
        let mut bad = Attribute::nested("p", Mode::Optional, NestedType::new(ObjectNesting::Map, object), "d");
        if let Some(n) = bad.nested.as_mut() {
            n.object = n.object.clone().block(NestedBlock::list("b", Block::new("b")));
        }
        let problems = internal_validate(&Block::new("r").attribute(bad), "");
        assert_eq!(problems.len(), 2, "{problems:?}");
    }

    #[test]
    fn internal_validate_catches_what_terraform_rejects() {
        let bad = Block::new("x")
            .attribute(Attribute::required("Bad-Name", Type::String, "d"))
            .attribute(Attribute::optional("dup", Type::String, "d"))
            .block(NestedBlock::single("dup", Block::new("b")).max_items(2));
        let problems = internal_validate(&bad, "");
        assert_eq!(problems.len(), 3, "{problems:?}");
    }
}
