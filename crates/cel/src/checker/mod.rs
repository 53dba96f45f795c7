//! The type checker: resolves names against declarations and a type provider,
//! infers a type for every node and picks the overloads each call may use,
//! reproducing cel-go's checker (its inference, its overload sets and its
//! error messages).
//!
//! * `names`: container-relative name resolution, built-in type names,
//!   well-known protobuf types;
//! * `unify`: assignability, type parameter substitution;
//! * `check`: the walk over the expression;
//! * `format` ([`format_type`]): types printed as cel-go prints them;
//! * `homogeneous`: the homogeneous aggregate literal validator run after
//!   a successful check.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use crate::syntax::{Ast, ExprId};
use crate::types::Type;
use crate::value::Value;

pub(crate) mod check;
pub(crate) mod format;
mod homogeneous;
pub(crate) mod names;
pub(crate) mod unify;

pub use format::format_type;

/// Object types supplied by the host (Kubernetes schemas, messages).
pub trait TypeProvider: Send + Sync {
    /// The type named `name`, if the provider knows it.
    fn find_type(&self, name: &str) -> Option<Type>;

    /// The type of field `field` of object type `type_name`.
    fn field_type(&self, type_name: &str, field: &str) -> Option<Type>;

    /// The field names of object type `type_name` (for messages and listings).
    fn field_names(&self, _type_name: &str) -> Vec<String> {
        Vec::new()
    }

    /// The value of the enum constant with fully qualified name `name`
    /// (`pkg.Msg.Enum.VALUE`), if the provider has enums.
    fn enum_value(&self, _name: &str) -> Option<i64> {
        None
    }

    /// The type and value of the enum constant `name`: an `int` (legacy
    /// enums, from [`TypeProvider::enum_value`]) unless the provider gives
    /// its enums types of their own.
    fn enum_constant(&self, name: &str) -> Option<(Type, Value)> {
        self.enum_value(name).map(|v| (Type::Int, Value::Int(v)))
    }

    /// A value of object type `type_name` built from `fields` (name, value),
    /// as `T{f: v}` constructs it; `None` when the provider cannot build
    /// values of that type (the planner then reports an unknown type).
    fn new_object(
        &self,
        _type_name: &str,
        _fields: &[(&str, Value)],
    ) -> Option<crate::error::EvalResult> {
        None
    }
}

/// What a name or call resolved to.
#[derive(Clone, Debug)]
pub struct Reference {
    /// The fully qualified name of an identifier (variable, type, enum constant).
    pub name: crate::syntax::Name,
    /// The overload ids a call may use, in declaration order (shared with
    /// the environment's declarations when the call resolved as the
    /// environment precomputed: one overload, or all-`dyn` arguments).
    pub overload_ids: Arc<[Arc<str>]>,
    /// The value of a constant the name resolved to (enum values, type names).
    pub value: Option<Value>,
}

impl Reference {
    /// The reference of a name (variable, type, enum constant): no overloads.
    pub fn named(name: crate::syntax::Name, value: Option<Value>) -> Self {
        static NONE: std::sync::OnceLock<Arc<[Arc<str>]>> = std::sync::OnceLock::new();
        Reference {
            name,
            overload_ids: NONE.get_or_init(|| Arc::new([])).clone(),
            value,
        }
    }
}

/// Hashes node ids (small integers, not attacker-chosen in bulk) with one
/// multiplication instead of SipHash.
#[derive(Clone, Copy, Debug, Default)]
pub struct NodeIdHasher(u64);

impl Hasher for NodeIdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_i64(&mut self, n: i64) {
        self.0 = (self.0 ^ n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A map keyed by node id.
pub type NodeMap<V> = HashMap<ExprId, V, BuildHasherDefault<NodeIdHasher>>;

/// The type of each node of a checked expression, by node id: a table
/// indexed by id for the dense ids the parser allocates, a map for others.
#[derive(Clone, Debug, Default)]
pub struct NodeTypes {
    dense: Vec<Option<Type>>,
    sparse: NodeMap<Type>,
}

/// Ids up to this bound (or twice the table's size) are stored in the table.
const DENSE_IDS: usize = 1 << 16;

impl NodeTypes {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// The types of nodes `0..types.len()`.
    pub(crate) fn from_dense(dense: Vec<Option<Type>>) -> Self {
        NodeTypes {
            dense,
            sparse: NodeMap::default(),
        }
    }

    /// The type of node `id`.
    pub fn get(&self, id: &ExprId) -> Option<&Type> {
        match usize::try_from(*id) {
            Ok(i) if i < self.dense.len() => self.dense[i].as_ref(),
            _ => self.sparse.get(id),
        }
    }

    /// Records the type of node `id`, returning the previous one.
    pub fn insert(&mut self, id: ExprId, t: Type) -> Option<Type> {
        match usize::try_from(id) {
            Ok(i) if i < self.dense.len() => self.dense[i].replace(t),
            Ok(i) if i < DENSE_IDS.max(self.dense.len() * 2) => {
                self.dense.resize(i + 1, None);
                self.dense[i].replace(t)
            }
            _ => self.sparse.insert(id, t),
        }
    }

    /// How many nodes have a type.
    pub fn len(&self) -> usize {
        self.dense.iter().filter(|t| t.is_some()).count() + self.sparse.len()
    }

    /// Whether no node has a type (the expression was not checked).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every (node id, type), table entries by id first.
    pub fn iter(&self) -> impl Iterator<Item = (ExprId, &Type)> {
        self.dense
            .iter()
            .enumerate()
            .filter_map(|(i, t)| Some((i as ExprId, t.as_ref()?)))
            .chain(self.sparse.iter().map(|(id, t)| (*id, t)))
    }
}

impl std::ops::Index<&ExprId> for NodeTypes {
    type Output = Type;

    /// The type of node `id`; panics when it has none (as `HashMap` does).
    fn index(&self, id: &ExprId) -> &Type {
        match self.get(id) {
            Some(t) => t,
            None => panic!("no type for node {id}"),
        }
    }
}

impl FromIterator<(ExprId, Type)> for NodeTypes {
    fn from_iter<I: IntoIterator<Item = (ExprId, Type)>>(iter: I) -> Self {
        let mut out = NodeTypes::new();
        for (id, t) in iter {
            out.insert(id, t);
        }
        out
    }
}

/// What the resolved nodes of a checked expression refer to, by node id: the
/// references in the order resolved, and a table from node id to position
/// for the ids the parser allocates (below the expression's node count, or
/// below 65,536 for a table built without one); other ids, which only
/// hand-built trees have, are found by a scan. An expression has references
/// on a few of its nodes: two small vectors, none when nothing resolved,
/// where a hash table costs a table sized for every node.
#[derive(Clone, Debug, Default)]
pub struct NodeRefs {
    /// (node id, reference), ids unique.
    entries: Vec<(ExprId, Reference)>,
    /// By node id: 1 + the position of its entry, 0 for none.
    index: Vec<u32>,
    /// The expression's node count; 0 when unknown.
    nodes: usize,
}

impl NodeRefs {
    /// No references.
    pub fn new() -> Self {
        Self::default()
    }

    /// A table for an expression whose ids are below `nodes`.
    #[cfg(test)]
    pub(crate) fn with_nodes(nodes: usize) -> Self {
        Self::with_nodes_in(nodes, Vec::new(), Vec::new())
    }

    /// A table for an expression whose ids are below `nodes`, in the
    /// (emptied) vectors of a previous one.
    fn with_nodes_in(
        nodes: usize,
        mut entries: Vec<(ExprId, Reference)>,
        mut index: Vec<u32>,
    ) -> Self {
        entries.clear();
        index.clear();
        NodeRefs {
            entries,
            index,
            nodes,
        }
    }

    /// Ids below this bound are in `index`.
    fn dense_ids(&self) -> usize {
        if self.nodes == 0 {
            DENSE_IDS
        } else {
            self.nodes
        }
    }

    fn position(&self, id: ExprId) -> Option<usize> {
        match usize::try_from(id) {
            Ok(i) if i < self.dense_ids() => (*self.index.get(i)? as usize).checked_sub(1),
            _ => self.entries.iter().position(|e| e.0 == id),
        }
    }

    /// Records the reference of node `id`, replacing the previous one.
    #[inline(always)]
    pub fn insert(&mut self, id: ExprId, r: Reference) {
        // An id the table already covers (every one after the first of a
        // check): `index` is never longer than `dense_ids()`.
        if let Ok(i) = usize::try_from(id)
            && let Some(slot) = self.index.get_mut(i)
        {
            match (*slot as usize).checked_sub(1) {
                Some(at) => self.entries[at].1 = r,
                None => {
                    *slot = u32::try_from(self.entries.len() + 1).unwrap_or(0);
                    self.entries.push((id, r));
                }
            }
            return;
        }
        self.insert_uncovered(id, r);
    }

    /// [`NodeRefs::insert`] of an id beyond the table: sizes it, or records
    /// an id the table does not cover.
    #[inline(never)]
    fn insert_uncovered(&mut self, id: ExprId, r: Reference) {
        if let Some(at) = self.position(id) {
            self.entries[at].1 = r;
            return;
        }
        if let Ok(i) = usize::try_from(id)
            && i < self.dense_ids()
        {
            if self.index.len() <= i {
                // With a known node count, sized once on the first reference.
                let len = if self.nodes == 0 {
                    (i + 1).max(self.index.len() * 2).min(DENSE_IDS)
                } else {
                    self.nodes
                };
                self.index.resize(len, 0);
            }
            // Positions fit: an expression has far fewer than `u32::MAX` nodes.
            self.index[i] = u32::try_from(self.entries.len() + 1).unwrap_or(0);
        }
        if self.entries.is_empty() {
            // About every other node (identifiers and calls) has a reference.
            self.entries.reserve(self.nodes / 2 + 1);
        }
        self.entries.push((id, r));
    }

    /// The reference of node `id`.
    pub fn get(&self, id: &ExprId) -> Option<&Reference> {
        Some(&self.entries[self.position(*id)?].1)
    }

    /// How many nodes have a reference.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no node has a reference.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every (node id, reference), in the order recorded.
    pub fn iter(&self) -> impl Iterator<Item = (ExprId, &Reference)> {
        self.entries.iter().map(|(id, r)| (*id, r))
    }

    /// Every reference, in the order recorded.
    pub fn values(&self) -> impl Iterator<Item = &Reference> {
        self.entries.iter().map(|(_, r)| r)
    }
}

impl std::ops::Index<&ExprId> for NodeRefs {
    type Output = Reference;

    /// The reference of node `id`; panics when it has none (as `HashMap` does).
    fn index(&self, id: &ExprId) -> &Reference {
        match self.get(id) {
            Some(r) => r,
            None => panic!("no reference for node {id}"),
        }
    }
}

impl FromIterator<(ExprId, Reference)> for NodeRefs {
    fn from_iter<I: IntoIterator<Item = (ExprId, Reference)>>(iter: I) -> Self {
        let mut out = NodeRefs::new();
        for (id, r) in iter {
            out.insert(id, r);
        }
        out
    }
}

/// A checked expression: the AST with a type per node and resolved references.
///
/// The AST is the input rewritten as cel-go rewrites it: identifiers and
/// selections naming a declaration hold its fully qualified name (`x.y` with a
/// declared `x.y` becomes the identifier `x.y`), namespaced calls are global
/// calls of the qualified function, message constructions carry the fully
/// qualified type name.
#[derive(Clone, Debug)]
pub struct CheckedAst {
    /// The checked expression, rewritten as cel-go rewrites it.
    pub ast: Ast,
    /// The type of every node, by id.
    pub types: NodeTypes,
    /// What each resolved identifier, selection and call refers to, by node id.
    pub references: NodeRefs,
}

/// The tables of a finished check, kept per thread for the next check so
/// that it reuses their allocations ([`CheckedAst::recycle`]).
#[derive(Default)]
pub(crate) struct SpareTables {
    types: Vec<Option<Type>>,
    entries: Vec<(ExprId, Reference)>,
    index: Vec<u32>,
}

thread_local! {
    static SPARE: std::cell::Cell<SpareTables> = const {
        std::cell::Cell::new(SpareTables {
            types: Vec::new(),
            entries: Vec::new(),
            index: Vec::new(),
        })
    };
}

impl SpareTables {
    /// The thread's kept tables (empty vectors when there are none).
    pub(crate) fn take() -> Self {
        SPARE.take()
    }

    /// The type table of an expression of `nodes` nodes: `None` each.
    pub(crate) fn types(&mut self, nodes: usize) -> Vec<Option<Type>> {
        let mut types = std::mem::take(&mut self.types);
        types.clear();
        types.resize(nodes, None);
        types
    }

    /// The reference table of an expression of `nodes` nodes.
    pub(crate) fn references(&mut self, nodes: usize) -> NodeRefs {
        let entries = std::mem::take(&mut self.entries);
        let index = std::mem::take(&mut self.index);
        NodeRefs::with_nodes_in(nodes, entries, index)
    }
}

impl CheckedAst {
    /// Drops the check, keeping its tables' allocations for the thread's
    /// next check.
    pub(crate) fn recycle(self) {
        let CheckedAst {
            ast,
            types,
            references,
        } = self;
        drop(ast);
        SPARE.set(SpareTables {
            types: crate::spare::emptied(types.dense),
            entries: crate::spare::emptied(references.entries),
            index: crate::spare::emptied(references.index),
        });
    }

    /// The type of the whole expression.
    pub fn result_type(&self) -> &Type {
        self.types.get(&self.ast.expr.id).unwrap_or(&Type::Dyn)
    }

    /// The type of node `id`.
    pub fn type_of(&self, id: ExprId) -> Option<&Type> {
        self.types.get(&id)
    }
}

#[cfg(test)]
mod tests;
