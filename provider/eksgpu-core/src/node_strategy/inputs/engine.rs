//! What a declaration does: schema, configuration in and out, render, read back, and the
//! misplaced-field rule. One implementation per declaration kind ([`Attr`], [`One`], [`List`]).

use serde_json::Map;

use super::value::is_empty;
use super::{Attr, Check, Json, Kinds, List, Lit, One, ReadBack, Required, Ty};
use crate::model::Capacity;
use crate::node_strategy::outputs::Output;
use crate::rules::{Code, Step, Violation};

/// The objects a pool renders to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Object {
    /// `karpenter.sh/v1` NodePool (Karpenter and Auto Mode).
    NodePool,
    /// `karpenter.k8s.aws/v1` EC2NodeClass.
    Ec2NodeClass,
    /// `eks.amazonaws.com/v1` NodeClass.
    AutoModeNodeClass,
    /// The EKS `CreateNodegroup` request body.
    NodeGroup,
}

/// A place on an object: a path of keys under the enclosing block's own place.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    pub object: Object,
    pub path: &'static [&'static str],
}

pub const fn at(object: Object, path: &'static [&'static str]) -> Target {
    Target { object, path }
}

/// An input that configuration or the declarations got wrong, at its path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    pub path: Vec<Step>,
    pub message: String,
}

impl InputError {
    fn at(name: &'static str, message: String) -> Self {
        InputError {
            path: vec![Step::Attr(name)],
            message,
        }
    }
    fn within(mut self, outer: &[Step]) -> Self {
        let mut path = outer.to_vec();
        path.append(&mut self.path);
        self.path = path;
        self
    }
}

/// The schema of one declaration, free of Terraform's types (the provider builds those).
#[derive(Debug, Clone)]
pub enum Node {
    Attr(NodeSchema),
    /// A nested attribute: a list of objects, or (`list: false`) one object.
    Nested {
        name: &'static str,
        doc: &'static str,
        list: bool,
        /// `Some(1)`: it must be written (a required single object).
        min_items: Option<i64>,
        max_items: Option<i64>,
        children: Vec<Node>,
    },
}

#[derive(Debug, Clone)]
pub struct NodeSchema {
    pub name: &'static str,
    pub doc: &'static str,
    pub ty: Ty,
    pub required: bool,
    pub default: Option<Lit>,
    pub checks: &'static [Check],
}

/// One declared input of a model `M`.
pub trait Decl<M>: Sync {
    fn name(&self) -> &'static str;
    fn schema(&self) -> Node;
    /// Reads the input from its enclosing configuration object into `m`.
    fn read(&self, cfg: &Map<String, Json>, m: &mut M) -> Result<(), InputError>;
    /// Writes the input into its enclosing configuration object.
    fn write(&self, m: &M, out: &mut Map<String, Json>);
    fn is_set(&self, m: &M) -> bool;
    /// Renders the input into `base`, the enclosing block's place on `object`.
    fn render(&self, m: &M, object: Object, base: &mut Json);
    /// Reads the input back from `live`, the enclosing block's place on `object`.
    fn read_back(&self, object: Object, live: &Json, prior: Option<&M>, m: &mut M);
    /// Refuses the input on a capacity kind that does not take it (and looks inside blocks).
    fn misplaced(&self, capacity: Capacity, m: &M, path: &[Step], out: &mut Vec<Violation>);
    /// Runs the checks only `capacity` needs (`Attr::on_kinds`), and looks inside blocks.
    fn check_on_kind(&self, _capacity: Capacity, _m: &M, _path: &[Step], _out: &mut Vec<Violation>) {}
    /// Every declared attribute below here with the outputs it feeds, as `(path, outputs)`.
    fn feeds(&self, prefix: &str, out: &mut Vec<(String, &'static [Output])>);
    /// Every declared attribute below here, as `(path, declaration)`: for docs and tests.
    fn walk(&self, prefix: &str, out: &mut Vec<(String, Kinds, &'static [Target], ReadBack)>);
}

fn target(renders: &'static [super::Target], object: Object) -> Option<&'static [&'static str]> {
    renders.iter().find(|t| t.object == object).map(|t| t.path)
}

/// The value at `path` under `v`, or null.
pub fn get_path<'a>(v: &'a Json, path: &[&str]) -> &'a Json {
    path.iter().fold(v, |v, k| v.get(k).unwrap_or(&Json::Null))
}

/// Sets `path` under `v` to `value`, creating objects on the way (appended in order).
pub fn set_path(v: &mut Json, path: &[&str], value: Json) {
    let Some((last, head)) = path.split_last() else {
        *v = value;
        return;
    };
    let mut cur = v;
    for k in head {
        if !cur.is_object() {
            *cur = Json::Object(Map::new());
        }
        let Json::Object(m) = cur else { return };
        cur = m.entry((*k).to_owned()).or_insert_with(|| Json::Object(Map::new()));
    }
    if !cur.is_object() {
        *cur = Json::Object(Map::new());
    }
    if let Json::Object(m) = cur {
        m.insert((*last).to_owned(), value);
    }
}

fn misplaced_here(
    kinds: Kinds,
    capacity: Capacity,
    name: &'static str,
    path: &[Step],
    out: &mut Vec<Violation>,
) -> bool {
    match kinds {
        Kinds::Only(ok, code) if !ok.contains(&capacity) => {
            let mut p = path.to_vec();
            p.push(Step::Attr(name));
            // EKSGPU115 is about the capacity kind as a whole; the node-class codes (006, 103, 124)
            // are about one setting of it, and say which kind the pool is.
            let detail = if code == Code::EKSGPU115 {
                format!("`{name}` does not apply to a {} pool.", capacity.as_str())
            } else {
                format!("This pool has capacity = {:?}.", capacity.as_str())
            };
            out.push(Violation::new(code, p, detail));
            true
        }
        _ => false,
    }
}

impl<M> Decl<M> for Attr<M> {
    fn name(&self) -> &'static str {
        self.name
    }
    fn schema(&self) -> Node {
        Node::Attr(NodeSchema {
            name: self.name,
            doc: self.doc,
            ty: self.ty,
            required: self.required,
            default: self.default,
            checks: self.checks,
        })
    }
    fn read(&self, cfg: &Map<String, Json>, m: &mut M) -> Result<(), InputError> {
        let v = cfg.get(self.name).ok_or_else(|| {
            InputError::at(
                self.name,
                format!("attribute `{}` is not in the configuration", self.name),
            )
        })?;
        let v = match (v, self.default) {
            (Json::Null, Some(d)) => d.json(),
            _ => v.clone(),
        };
        (self.lens.set)(m, &v).map_err(|e| InputError::at(self.name, e))
    }
    fn write(&self, m: &M, out: &mut Map<String, Json>) {
        let v = (self.lens.get)(m);
        // Optional collections without a default are null when empty: `x = []` and no `x` plan alike.
        let v = if !self.required && self.default.is_none() && is_empty(&v) {
            Json::Null
        } else {
            v
        };
        out.insert(self.name.to_owned(), v);
    }
    fn is_set(&self, m: &M) -> bool {
        !is_empty(&(self.lens.get)(m))
    }
    fn render(&self, m: &M, object: Object, base: &mut Json) {
        let Some(path) = target(self.renders, object) else {
            return;
        };
        let v = (self.lens.get)(m);
        let v = match (is_empty(&v), self.unset) {
            (false, _) => v,
            (true, Some(l)) => l.json(),
            (true, None) => return,
        };
        set_path(base, path, v);
    }
    fn read_back(&self, object: Object, live: &Json, prior: Option<&M>, m: &mut M) {
        // Where the input renders on this object it reads back from it; elsewhere only an input
        // no object carries keeps its prior value, and hand code reads the custom ones.
        let v = match (target(self.renders, object), self.read_back) {
            (None, ReadBack::KeepPrior) => prior.map_or(Json::Null, |p| (self.lens.get)(p)),
            (None, _) => return,
            (Some(path), _) => {
                let v = get_path(live, path).clone();
                let prior_unset = prior.is_none_or(|p| is_empty(&(self.lens.get)(p)));
                // What renders for "unset", or what the server reports for it, reads back as
                // unset, unless the prior set it.
                let default = self.unset.or(self.server_default).map(Lit::json);
                if prior_unset && default.is_some_and(|d| d == v) {
                    Json::Null
                } else {
                    v
                }
            }
        };
        // A live value the model cannot hold (another manager wrote it) reads as unset, which
        // plans the configured value back.
        if (self.lens.set)(m, &v).is_err() {
            let _ = (self.lens.set)(m, &Json::Null);
        }
    }
    fn misplaced(&self, capacity: Capacity, m: &M, path: &[Step], out: &mut Vec<Violation>) {
        if self.is_set(m) {
            misplaced_here(self.kinds, capacity, self.name, path, out);
        }
    }
    fn check_on_kind(&self, capacity: Capacity, m: &M, path: &[Step], out: &mut Vec<Violation>) {
        let v = (self.lens.get)(m);
        for kc in self.on_kinds.iter().filter(|kc| kc.kinds.contains(&capacity)) {
            let mut at = path.to_vec();
            at.push(Step::Attr(self.name));
            for (step, problem) in run(&kc.check, &v) {
                let mut p = at.clone();
                p.extend(step);
                out.push(Violation::new(
                    kc.code,
                    p,
                    format!("{problem} (on a {} pool)", capacity.as_str()),
                ));
            }
        }
    }
    fn feeds(&self, prefix: &str, out: &mut Vec<(String, &'static [Output])>) {
        out.push((format!("{prefix}{}", self.name), self.feeds));
    }
    fn walk(&self, prefix: &str, out: &mut Vec<(String, Kinds, &'static [Target], ReadBack)>) {
        out.push((
            format!("{prefix}{}", self.name),
            self.kinds,
            self.renders,
            self.read_back,
        ));
    }
}

/// The problems `check` finds in `v`, each with the step below the attribute it is at.
fn run(check: &Check, v: &Json) -> Vec<(Option<Step>, String)> {
    let one = |f: super::CheckFn, s: &str, step: Option<Step>| f(s).err().map(|e| (step, e.to_string()));
    match (check, v) {
        (Check::Str(_, f) | Check::Coded(_, _, f), Json::String(s)) => one(*f, s, None).into_iter().collect(),
        (Check::Keys(_, f), Json::Object(m)) => m
            .keys()
            .filter_map(|k| one(*f, k, Some(Step::Key(k.clone()))))
            .collect(),
        (Check::Each(_, f), Json::Object(m)) => m
            .iter()
            .filter_map(|(k, x)| one(*f, x.as_str().unwrap_or_default(), Some(Step::Key(k.clone()))))
            .collect(),
        (Check::Each(_, f), Json::Array(a)) => a
            .iter()
            .enumerate()
            .filter_map(|(i, x)| one(*f, x.as_str().unwrap_or_default(), Some(Step::Index(i))))
            .collect(),
        _ => Vec::new(),
    }
}

/// The objects of a list nested attribute (null: none).
fn list_cfg<'a>(cfg: &'a Map<String, Json>, name: &'static str) -> Result<Vec<&'a Map<String, Json>>, InputError> {
    match cfg.get(name) {
        None => Err(InputError::at(
            name,
            format!("attribute `{name}` is not in the configuration"),
        )),
        Some(Json::Null) => Ok(Vec::new()),
        Some(Json::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_object().ok_or_else(|| InputError {
                    path: vec![Step::Attr(name), Step::Index(i)],
                    message: "expected an object".into(),
                })
            })
            .collect(),
        Some(_) => Err(InputError::at(name, "expected a list of objects".into())),
    }
}

/// The object of a single nested attribute, `None` when null.
fn one_cfg<'a>(cfg: &'a Map<String, Json>, name: &'static str) -> Result<Option<&'a Map<String, Json>>, InputError> {
    match cfg.get(name) {
        None => Err(InputError::at(
            name,
            format!("attribute `{name}` is not in the configuration"),
        )),
        Some(Json::Null) => Ok(None),
        Some(Json::Object(m)) => Ok(Some(m)),
        Some(_) => Err(InputError::at(name, "expected an object".into())),
    }
}

fn read_children<S: Default>(
    children: &[&dyn Decl<S>],
    cfg: &Map<String, Json>,
    outer: &[Step],
) -> Result<S, InputError> {
    let mut s = S::default();
    for c in children {
        c.read(cfg, &mut s).map_err(|e| e.within(outer))?;
    }
    Ok(s)
}

fn write_children<S>(children: &[&dyn Decl<S>], s: &S) -> Json {
    let mut out = Map::new();
    for c in children {
        c.write(s, &mut out);
    }
    Json::Object(out)
}

fn walk_children<S>(
    children: &[&dyn Decl<S>],
    prefix: String,
    out: &mut Vec<(String, Kinds, &'static [Target], ReadBack)>,
) {
    for c in children {
        c.walk(&prefix, out);
    }
}

impl<M, S: Default + Sync> Decl<M> for One<M, S> {
    fn name(&self) -> &'static str {
        self.name
    }
    fn schema(&self) -> Node {
        Node::Nested {
            name: self.name,
            doc: self.doc,
            list: false,
            min_items: None,
            max_items: Some(1),
            children: self.children.iter().map(|c| c.schema()).collect(),
        }
    }
    fn read(&self, cfg: &Map<String, Json>, m: &mut M) -> Result<(), InputError> {
        let s = match one_cfg(cfg, self.name)? {
            Some(b) => Some(read_children(self.children, b, &[Step::Attr(self.name)])?),
            None => None,
        };
        (self.put)(m, s).map_err(|e| InputError::at(self.name, e))
    }
    fn write(&self, m: &M, out: &mut Map<String, Json>) {
        let v = (self.get)(m).map_or(Json::Null, |s| write_children(self.children, s));
        out.insert(self.name.to_owned(), v);
    }
    fn is_set(&self, m: &M) -> bool {
        (self.get)(m).is_some()
    }
    fn render(&self, m: &M, object: Object, base: &mut Json) {
        let (Some(s), Some(path)) = ((self.get)(m), target(self.renders, object)) else {
            return;
        };
        let mut here = get_path(base, path).clone();
        if !here.is_object() {
            here = Json::Object(Map::new());
        }
        for c in self.children {
            c.render(s, object, &mut here);
        }
        set_path(base, path, here);
    }
    fn read_back(&self, object: Object, live: &Json, prior: Option<&M>, m: &mut M) {
        // Blocks no object carries would keep their prior value; none is declared so.
        let Some(path) = target(self.renders, object) else {
            return;
        };
        let v = get_path(live, path);
        let s = v.is_object().then(|| {
            let prior_s = prior.and_then(|p| (self.get)(p));
            let mut s = S::default();
            for c in self.children {
                c.read_back(object, v, prior_s, &mut s);
            }
            s
        });
        let _ = (self.put)(m, s);
    }
    fn misplaced(&self, capacity: Capacity, m: &M, path: &[Step], out: &mut Vec<Violation>) {
        let Some(s) = (self.get)(m) else { return };
        if misplaced_here(self.kinds, capacity, self.name, path, out) {
            return;
        }
        let mut inner = path.to_vec();
        inner.push(Step::Attr(self.name));
        for c in self.children {
            c.misplaced(capacity, s, &inner, out);
        }
    }
    fn check_on_kind(&self, capacity: Capacity, m: &M, path: &[Step], out: &mut Vec<Violation>) {
        let Some(s) = (self.get)(m) else { return };
        let mut inner = path.to_vec();
        inner.push(Step::Attr(self.name));
        for c in self.children {
            c.check_on_kind(capacity, s, &inner, out);
        }
    }
    // A block feeds what its attributes feed: an unknown block (a `dynamic` one) holds them all.
    fn feeds(&self, prefix: &str, out: &mut Vec<(String, &'static [Output])>) {
        for c in self.children {
            c.feeds(&format!("{prefix}{}.", self.name), out);
        }
    }
    fn walk(&self, prefix: &str, out: &mut Vec<(String, Kinds, &'static [Target], ReadBack)>) {
        out.push((
            format!("{prefix}{}", self.name),
            self.kinds,
            self.renders,
            self.read_back,
        ));
        walk_children(self.children, format!("{prefix}{}.", self.name), out);
    }
}

/// Everything as the wrapped block does it; only the schema says `min_items = 1`.
impl<M, D: Decl<M>> Decl<M> for Required<D> {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn schema(&self) -> Node {
        match self.0.schema() {
            Node::Nested {
                name,
                doc,
                list,
                max_items,
                children,
                ..
            } => Node::Nested {
                name,
                doc,
                list,
                min_items: Some(1),
                max_items,
                children,
            },
            attr @ Node::Attr(_) => attr,
        }
    }
    fn read(&self, cfg: &Map<String, Json>, m: &mut M) -> Result<(), InputError> {
        self.0.read(cfg, m)
    }
    fn write(&self, m: &M, out: &mut Map<String, Json>) {
        self.0.write(m, out)
    }
    fn is_set(&self, m: &M) -> bool {
        self.0.is_set(m)
    }
    fn render(&self, m: &M, object: Object, base: &mut Json) {
        self.0.render(m, object, base)
    }
    fn read_back(&self, object: Object, live: &Json, prior: Option<&M>, m: &mut M) {
        self.0.read_back(object, live, prior, m)
    }
    fn misplaced(&self, capacity: Capacity, m: &M, path: &[Step], out: &mut Vec<Violation>) {
        self.0.misplaced(capacity, m, path, out)
    }
    fn check_on_kind(&self, capacity: Capacity, m: &M, path: &[Step], out: &mut Vec<Violation>) {
        self.0.check_on_kind(capacity, m, path, out)
    }
    fn feeds(&self, prefix: &str, out: &mut Vec<(String, &'static [Output])>) {
        self.0.feeds(prefix, out)
    }
    fn walk(&self, prefix: &str, out: &mut Vec<(String, Kinds, &'static [Target], ReadBack)>) {
        self.0.walk(prefix, out)
    }
}

impl<M, S: Default + Sync> Decl<M> for List<M, S> {
    fn name(&self) -> &'static str {
        self.name
    }
    fn schema(&self) -> Node {
        Node::Nested {
            name: self.name,
            doc: self.doc,
            list: true,
            min_items: self.min_items,
            max_items: self.max_items,
            children: self.children.iter().map(|c| c.schema()).collect(),
        }
    }
    fn read(&self, cfg: &Map<String, Json>, m: &mut M) -> Result<(), InputError> {
        let items = list_cfg(cfg, self.name)?;
        let list = items
            .iter()
            .enumerate()
            .map(|(i, b)| read_children(self.children, b, &[Step::Attr(self.name), Step::Index(i)]))
            .collect::<Result<Vec<S>, _>>()?;
        (self.put)(m, list);
        Ok(())
    }
    fn write(&self, m: &M, out: &mut Map<String, Json>) {
        let items: Vec<Json> = (self.get)(m).iter().map(|s| write_children(self.children, s)).collect();
        // No objects is null: `taints = []` and no `taints` plan alike.
        let v = if items.is_empty() {
            Json::Null
        } else {
            Json::Array(items)
        };
        out.insert(self.name.to_owned(), v);
    }
    fn is_set(&self, m: &M) -> bool {
        !(self.get)(m).is_empty()
    }
    fn render(&self, m: &M, object: Object, base: &mut Json) {
        let items = (self.get)(m);
        let Some(path) = target(self.renders, object).filter(|_| !items.is_empty()) else {
            return;
        };
        let rendered = items
            .iter()
            .map(|s| {
                let mut here = Json::Object(Map::new());
                for c in self.children {
                    c.render(s, object, &mut here);
                }
                here
            })
            .collect();
        set_path(base, path, Json::Array(rendered));
    }
    fn read_back(&self, object: Object, live: &Json, prior: Option<&M>, m: &mut M) {
        let Some(path) = target(self.renders, object) else {
            return;
        };
        let prior_items = prior.map(|p| (self.get)(p)).unwrap_or_default();
        let list = get_path(live, path)
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, item)| {
                let mut s = S::default();
                for c in self.children {
                    c.read_back(object, item, prior_items.get(i), &mut s);
                }
                s
            })
            .collect();
        (self.put)(m, list);
    }
    fn misplaced(&self, capacity: Capacity, m: &M, path: &[Step], out: &mut Vec<Violation>) {
        if self.is_set(m) {
            misplaced_here(self.kinds, capacity, self.name, path, out);
        }
    }
    fn check_on_kind(&self, capacity: Capacity, m: &M, path: &[Step], out: &mut Vec<Violation>) {
        for (i, s) in (self.get)(m).iter().enumerate() {
            let mut inner = path.to_vec();
            inner.extend([Step::Attr(self.name), Step::Index(i)]);
            for c in self.children {
                c.check_on_kind(capacity, s, &inner, out);
            }
        }
    }
    // A block feeds what its attributes feed: an unknown block (a `dynamic` one) holds them all.
    fn feeds(&self, prefix: &str, out: &mut Vec<(String, &'static [Output])>) {
        for c in self.children {
            c.feeds(&format!("{prefix}{}.", self.name), out);
        }
    }
    fn walk(&self, prefix: &str, out: &mut Vec<(String, Kinds, &'static [Target], ReadBack)>) {
        out.push((
            format!("{prefix}{}", self.name),
            self.kinds,
            self.renders,
            self.read_back,
        ));
        walk_children(self.children, format!("{prefix}{}.", self.name), out);
    }
}

/// Reads a model from its configuration object (every declared key must be there).
pub fn read_config<M: Default>(decls: &[&dyn Decl<M>], cfg: &Json) -> Result<M, InputError> {
    let Json::Object(cfg) = cfg else {
        return Err(InputError {
            path: Vec::new(),
            message: "expected an object".into(),
        });
    };
    read_children(decls, cfg, &[])
}

/// Writes a model as its configuration object.
pub fn write_config<M>(decls: &[&dyn Decl<M>], m: &M) -> Json {
    write_children(decls, m)
}

/// Renders every declared input of `m` into `base` (an object's body, or a block's place in it).
pub fn render_all<M>(decls: &[&dyn Decl<M>], m: &M, object: Object, base: &mut Json) {
    for d in decls {
        d.render(m, object, base);
    }
}

/// Reads every declared input back from `live` into `m`.
pub fn read_back_all<M>(decls: &[&dyn Decl<M>], object: Object, live: &Json, prior: Option<&M>, m: &mut M) {
    for d in decls {
        d.read_back(object, live, prior, m);
    }
}

/// Declared inputs set on a capacity kind that does not take them.
pub fn misplaced<M>(decls: &[&dyn Decl<M>], capacity: Capacity, m: &M, path: &[Step], out: &mut Vec<Violation>) {
    for d in decls {
        d.misplaced(capacity, m, path, out);
    }
}

/// The checks only the pool's capacity kind needs, over every declared input.
pub fn check_on_kinds<M>(decls: &[&dyn Decl<M>], capacity: Capacity, m: &M, path: &[Step], out: &mut Vec<Violation>) {
    for d in decls {
        d.check_on_kind(capacity, m, path, out);
    }
}

/// Reorders the keys of `v` (recursively) as `order` lists them; keys it does not list keep
/// their order after those it does. Objects rendered before inputs were declared had a fixed
/// key order, and `manifests_yaml` must not change for states written then.
pub fn order_like(v: &mut Json, order: &Json) {
    let (Json::Object(m), Json::Object(o)) = (v, order) else {
        return;
    };
    let mut sorted = Map::new();
    for (k, sub) in o {
        if let Some(mut val) = m.shift_remove(k) {
            order_like(&mut val, sub);
            sorted.insert(k.clone(), val);
        }
    }
    sorted.append(m);
    *m = sorted;
}
