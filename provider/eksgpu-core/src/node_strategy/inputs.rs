//! Every input of a pool, declared once: its HCL attribute (type, description, default,
//! checks), how it reads into the typed model and back out, where it renders on the objects a
//! pool stands for (NodePool, EC2NodeClass, Auto Mode NodeClass, `CreateNodegroup`), how it
//! reads back from them for drift, and which capacity kinds accept it (the misplaced-field rule).
//!
//! A direct mapping is a declaration and nothing else: [`Attr`] for an attribute, [`One`] and
//! [`List`] for nested attributes. A mapping that is not a projection (labels and taints the provider adds
//! to, instance types as requirements, Bottlerocket's two volumes) marks the input
//! [`ReadBack::Custom`] and is rendered and read back next to its renderer.
//!
//! Read back starts from a blank model, not from the prior one: an input that renders but does
//! not read back comes back empty, and the round-trip property test (`inputs/tests.rs`) fails.

mod engine;
mod node_class;
mod node_group;
mod pool;
pub mod value;

#[cfg(test)]
pub(crate) mod tests;

pub use engine::{
    Decl, InputError, Node, NodeSchema, Object, Target, check_on_kinds, misplaced, order_like, read_back_all,
    read_config, render_all, set_path, write_config,
};
pub use node_class::{BLOCK_DEVICE_MAPPING_FIELDS, NODE_CLASS, SELECTOR_TERM_FIELDS};
pub use node_group::{HYBRID, MANAGED_NODE_GROUP, check_update};
pub use pool::{NODE_OVERLAY_FIELDS, POOL};

use crate::model::Capacity;
use crate::node_strategy::outputs::Output;
use crate::rules::Code;
use crate::validate::Validation;

/// The JSON the engine reads and writes: configuration (as the provider hands it over), the
/// rendered objects and the live ones.
pub type Json = serde_json::Value;

/// A single-value check of `eksgpu_core::validate`.
pub type CheckFn = fn(&str) -> Validation;

/// The HCL type of an attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    String,
    /// A whole number (every number input of a pool is one).
    Number,
    Bool,
    StringList,
    StringMap,
}

/// A check declared on an attribute, run by the framework at its own path.
#[derive(Debug, Clone, Copy)]
pub enum Check {
    /// The string value.
    Str(&'static str, CheckFn),
    /// The string value, under a rule code: the diagnostic is `<code>: Invalid value`, for a value
    /// a rule of the catalogue refuses (e.g. EKSGPU156, a self-managed node group as `capacity`).
    Coded(Code, &'static str, CheckFn),
    /// Every element of a list, or every value of a map.
    Each(&'static str, CheckFn),
    /// Every key of a map.
    Keys(&'static str, CheckFn),
    /// A whole number in `min..=max`, naming the upstream field.
    Int(i64, i64, &'static str),
    /// An int32 field in `min..=max`.
    Int32(i32, i32, &'static str),
    OneOf(&'static [&'static str]),
    /// Every element one of these.
    EachOneOf(&'static [&'static str]),
    /// No element twice.
    Distinct,
    /// Selector tags: no empty key or value (Karpenter's selector terms refuse both: EC2NodeClass
    /// CRD CEL rules on `subnetSelectorTerms` / `securityGroupSelectorTerms`, v1.14.1).
    SelectorTags,
}

/// A check the attribute's value must pass on some capacity kinds only (their API is stricter,
/// e.g. EKS takes label keys of at most 63 characters): a rule `code` at plan, at the value's path.
#[derive(Debug, Clone, Copy)]
pub struct KindCheck {
    pub kinds: &'static [Capacity],
    pub code: Code,
    pub check: Check,
}

/// A literal: an attribute's default, or what renders when it is unset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lit {
    Bool(bool),
    Str(&'static str),
    Int(i64),
    EmptyMap,
}

impl Lit {
    pub fn json(self) -> Json {
        match self {
            Lit::Bool(b) => b.into(),
            Lit::Str(s) => s.into(),
            Lit::Int(i) => i.into(),
            Lit::EmptyMap => Json::Object(Default::default()),
        }
    }
}

/// Which capacity kinds take an input; set on another kind, the rule `code` refuses it at its path.
#[derive(Debug, Clone, Copy)]
pub enum Kinds {
    All,
    Only(&'static [Capacity], Code),
}

pub const IN_CLUSTER: &[Capacity] = &[Capacity::AutoMode, Capacity::Karpenter];
pub const KARPENTER: &[Capacity] = &[Capacity::Karpenter];
pub const NODE_GROUP: &[Capacity] = &[Capacity::ManagedNodeGroup];
pub const HYBRID_ONLY: &[Capacity] = &[Capacity::Hybrid];
pub const AWS_API: &[Capacity] = &[Capacity::ManagedNodeGroup, Capacity::Hybrid];

/// How an input comes back from the live objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadBack {
    /// From its render targets (the default): a projection, read back by the engine.
    Live,
    /// Rendered on no object (an input only rules read, e.g. `efa`): the prior value stands.
    KeepPrior,
    /// Rendered and read back by hand next to its renderer (not a projection).
    Custom,
}

/// Typed access to one field of a model, through JSON.
pub struct Lens<M> {
    pub get: fn(&M) -> Json,
    pub set: fn(&mut M, &Json) -> Result<(), String>,
}

/// A lens on a field whose type implements [`value::FieldValue`].
#[macro_export]
#[doc(hidden)]
macro_rules! lens {
    ($m:ty, $($f:ident).+) => {
        $crate::node_strategy::inputs::Lens::<$m> {
            get: |m| $crate::node_strategy::inputs::value::FieldValue::to_json(&m.$($f).+),
            set: |m, v| {
                m.$($f).+ = $crate::node_strategy::inputs::value::FieldValue::from_json(v)?;
                Ok(())
            },
        }
    };
}
pub use lens;

/// An attribute.
pub struct Attr<M: 'static> {
    pub name: &'static str,
    pub doc: &'static str,
    pub ty: Ty,
    pub required: bool,
    pub default: Option<Lit>,
    pub checks: &'static [Check],
    /// Checks only some capacity kinds need (rules at plan, not schema validators).
    pub on_kinds: &'static [KindCheck],
    pub kinds: Kinds,
    /// Where it renders: object and path (relative to the enclosing block's target).
    pub renders: &'static [Target],
    /// What renders when it is unset (inside a block that is set); it reads back as unset.
    pub unset: Option<Lit>,
    /// What the server reports when the input was not sent (EKS's 20 GiB disk): not rendered,
    /// and it reads back as unset.
    pub server_default: Option<Lit>,
    pub read_back: ReadBack,
    /// The computed outputs whose value this input can change (`outputs.rs`): an output is
    /// known at plan as soon as every input feeding it is.
    pub feeds: &'static [Output],
    pub lens: Lens<M>,
}

/// A single nested attribute (an object or null), a `S` inside `M`.
pub struct One<M: 'static, S: 'static> {
    pub name: &'static str,
    pub doc: &'static str,
    pub kinds: Kinds,
    /// Where the block renders: its children render under this path of each object.
    pub renders: &'static [Target],
    pub read_back: ReadBack,
    pub children: &'static [&'static dyn Decl<S>],
    pub get: fn(&M) -> Option<&S>,
    /// Sets the block; `None` when it is absent (a required block refuses that).
    pub put: fn(&mut M, Option<S>) -> Result<(), String>,
}

/// A single nested attribute Terraform must see written: `Required(&ONE)` declares `ONE` as
/// required, so the schema, the docs and the CLI's own "attribute is required" error say so.
pub struct Required<D: 'static>(pub &'static D);

/// A list nested attribute (a list of objects, null when empty), `Vec<S>` inside `M`.
pub struct List<M: 'static, S: 'static> {
    pub name: &'static str,
    pub doc: &'static str,
    pub kinds: Kinds,
    pub min_items: Option<i64>,
    pub max_items: Option<i64>,
    /// Where the list renders, as an array of objects.
    pub renders: &'static [Target],
    pub read_back: ReadBack,
    pub children: &'static [&'static dyn Decl<S>],
    pub get: fn(&M) -> &[S],
    pub put: fn(&mut M, Vec<S>),
}

/// A shorthand for the common attribute: optional, no default, no checks, every kind, no render.
pub const fn attr<M>(name: &'static str, ty: Ty, doc: &'static str, lens: Lens<M>) -> Attr<M> {
    Attr {
        name,
        doc,
        ty,
        required: false,
        default: None,
        checks: &[],
        on_kinds: &[],
        kinds: Kinds::All,
        renders: &[],
        unset: None,
        server_default: None,
        read_back: ReadBack::Live,
        feeds: &[],
        lens,
    }
}

/// `const fn` builders, so a declaration reads as what is special about it.
impl<M> Attr<M> {
    pub const fn required(mut self) -> Self {
        self.required = true;
        self
    }
    pub const fn default(mut self, l: Lit) -> Self {
        self.default = Some(l);
        self
    }
    pub const fn checks(mut self, c: &'static [Check]) -> Self {
        self.checks = c;
        self
    }
    pub const fn on_kinds(mut self, c: &'static [KindCheck]) -> Self {
        self.on_kinds = c;
        self
    }
    pub const fn only(mut self, kinds: &'static [Capacity], code: Code) -> Self {
        self.kinds = Kinds::Only(kinds, code);
        self
    }
    pub const fn renders(mut self, t: &'static [Target]) -> Self {
        self.renders = t;
        self
    }
    pub const fn unset(mut self, l: Lit) -> Self {
        self.unset = Some(l);
        self
    }
    pub const fn server_default(mut self, l: Lit) -> Self {
        self.server_default = Some(l);
        self
    }
    pub const fn custom(mut self) -> Self {
        self.read_back = ReadBack::Custom;
        self
    }
    pub const fn keep_prior(mut self) -> Self {
        self.read_back = ReadBack::KeepPrior;
        self
    }
    pub const fn feeds(mut self, outputs: &'static [Output]) -> Self {
        self.feeds = outputs;
        self
    }
}

/// Every declared input that only some capacity kinds take: `(pool.path, kinds, rule code)`, in
/// declaration order. The rules guide lists them (generated), so the misplaced-field rule and its
/// documentation come from the same declarations.
pub fn by_kind() -> Vec<(String, &'static [Capacity], Code)> {
    let mut all = Vec::new();
    for d in POOL {
        d.walk("", &mut all);
    }
    all.into_iter()
        .filter_map(|(path, kinds, ..)| match kinds {
            Kinds::Only(ok, code) => Some((path, ok, code)),
            Kinds::All => None,
        })
        .collect()
}

/// Pool `name` (its key in `pools`) from its configuration object.
pub fn read_pool(name: &str, cfg: &Json) -> Result<crate::model::Pool, InputError> {
    let mut pool: crate::model::Pool = read_config(POOL, cfg)?;
    pool.name = name.to_owned();
    Ok(pool)
}

/// A lens on nothing: a setting of the apply that the model does not hold (`adopt`).
pub const fn setting<M>() -> Lens<M> {
    Lens {
        get: |_| Json::Null,
        set: |_, _| Ok(()),
    }
}
