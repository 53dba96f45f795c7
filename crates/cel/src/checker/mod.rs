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
/// The table holds a code per node, the position of its type in a vector
/// that starts with the types without parts (`int`, `dyn`, ...: most nodes'
/// types), kept from one check to the next, and goes on with the other
/// types recorded, so that emptying the table drops nothing per node.
#[derive(Clone, Default)]
pub struct NodeTypes {
    /// By node id: 0 for none, else 1 + the position of its type in `table`.
    dense: Vec<u32>,
    /// The leaf types (`LEAVES`, in order; none in a table that has never
    /// recorded a type), then the composite types of the nodes in `dense`.
    table: Vec<Type>,
    sparse: NodeMap<Type>,
}

/// The types without parts ([`unify::is_leaf`]), in the order of their
/// codes ([`leaf_code`]).
const LEAVES: [Type; 13] = [
    Type::Dyn,
    Type::Null,
    Type::Bool,
    Type::Int,
    Type::Uint,
    Type::Double,
    Type::String,
    Type::Bytes,
    Type::Any,
    Type::Timestamp,
    Type::Duration,
    Type::Type(None),
    Type::Error,
];

/// The code of leaf type `t` in [`NodeTypes`]' table (1 + its position in
/// [`LEAVES`]); `None` for a type with parts.
#[inline(always)]
fn leaf_code(t: &Type) -> Option<u32> {
    Some(match t {
        Type::Dyn => 1,
        Type::Null => 2,
        Type::Bool => 3,
        Type::Int => 4,
        Type::Uint => 5,
        Type::Double => 6,
        Type::String => 7,
        Type::Bytes => 8,
        Type::Any => 9,
        Type::Timestamp => 10,
        Type::Duration => 11,
        Type::Type(None) => 12,
        Type::Error => 13,
        _ => return None,
    })
}

/// Ids up to this bound (or twice the table's size) are stored in the table.
const DENSE_IDS: usize = 1 << 16;

/// `v` as `n` zeros, reusing its elements: those it holds are zeroed in
/// place (a `memset`), the others added.
fn zeros(mut v: Vec<u32>, n: usize) -> Vec<u32> {
    v.truncate(n);
    v.fill(0);
    v.resize(n, 0);
    v
}

/// A table of codes or positions kept for the thread's next check, its
/// elements left as they are ([`zeros`] makes them zeros again), or freed
/// when it is large.
fn kept(v: Vec<u32>) -> Vec<u32> {
    if v.capacity() > crate::spare::SPARE_MAX {
        return Vec::new();
    }
    v
}

impl NodeTypes {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// The table of an expression of `nodes` nodes, none typed, in the
    /// vectors of a previous one (`table` holding at most the leaf types).
    pub(crate) fn with_nodes_in(nodes: usize, dense: Vec<u32>, table: Vec<Type>) -> Self {
        let mut types = NodeTypes {
            dense: zeros(dense, nodes),
            table,
            sparse: NodeMap::default(),
        };
        types.keep_leaves();
        types
    }

    /// Empties `table` down to the leaf types, adding them if missing.
    #[inline(always)]
    fn keep_leaves(&mut self) {
        // A kept table holds the leaf types alone.
        if self.table.len() != LEAVES.len() {
            self.reset_leaves();
        }
    }

    /// [`NodeTypes::keep_leaves`] of a table that holds more or less.
    #[inline(never)]
    fn reset_leaves(&mut self) {
        if self.table.len() >= LEAVES.len() {
            self.table.truncate(LEAVES.len());
        } else {
            self.table.clear();
            self.table.extend_from_slice(&LEAVES);
        }
    }

    /// The vectors of the table, for the thread's next check: the codes
    /// emptied, the types down to the leaf types (vectors too large to keep
    /// are freed).
    pub(crate) fn into_spare(self) -> (Vec<u32>, Vec<Type>) {
        let mut table = self.table;
        if table.capacity() > crate::spare::SPARE_MAX {
            table = Vec::new();
        }
        table.truncate(LEAVES.len());
        (kept(self.dense), table)
    }

    /// The type coded `code`.
    #[inline(always)]
    fn decode(&self, code: u32) -> Option<&Type> {
        // Code 0 (no type) wraps to a position past the end.
        self.table.get((code as usize).wrapping_sub(1))
    }

    /// How many ids the table covers (`0..dense_len()`).
    #[inline(always)]
    pub(crate) fn dense_len(&self) -> usize {
        self.dense.len()
    }

    /// The type of node `i`, an id the table covers (`None` beyond).
    #[inline(always)]
    pub(crate) fn dense_get(&self, i: usize) -> Option<&Type> {
        self.decode(*self.dense.get(i)?)
    }

    /// Records the type of node `i`, an id below [`NodeTypes::dense_len`]
    /// of a table made by [`NodeTypes::with_nodes_in`]: a leaf type as its
    /// code, another at the end of `table` (in the place of the node's
    /// previous one, if it had one).
    #[inline(always)]
    pub(crate) fn dense_set(&mut self, i: usize, t: Type) {
        match leaf_code(&t) {
            Some(code) => {
                self.dense[i] = code;
                // A leaf type owns nothing: there is nothing to drop.
                std::mem::forget(t);
            }
            None => self.set_composite(i, t),
        }
    }

    /// [`NodeTypes::dense_set`] of a type borrowed: a leaf type is recorded
    /// by its code, another copied.
    #[inline(always)]
    pub(crate) fn dense_set_ref(&mut self, i: usize, t: &Type) {
        match leaf_code(t) {
            Some(code) => self.dense[i] = code,
            None => self.set_composite(i, t.clone()),
        }
    }

    /// [`NodeTypes::dense_set`] of a type with parts.
    #[inline(always)]
    fn set_composite(&mut self, i: usize, t: Type) {
        let at = (self.dense[i] as usize).wrapping_sub(1);
        if at >= LEAVES.len()
            && let Some(slot) = self.table.get_mut(at)
        {
            *slot = t;
            return;
        }
        self.table.push(t);
        // Codes fit: an expression has far fewer than `u32::MAX` nodes.
        self.dense[i] = u32::try_from(self.table.len()).unwrap_or(0);
    }

    /// Makes the table cover node `i`.
    pub(crate) fn grow_dense(&mut self, i: usize) {
        self.dense.resize(i + 1, 0);
    }

    /// The recorded types with parts (every type that may mention a type
    /// parameter), to be rewritten in place.
    pub(crate) fn composite_mut(&mut self) -> &mut [Type] {
        self.table.get_mut(LEAVES.len()..).unwrap_or_default()
    }

    /// The type of node `id`.
    pub fn get(&self, id: &ExprId) -> Option<&Type> {
        match usize::try_from(*id) {
            Ok(i) if i < self.dense.len() => self.decode(self.dense[i]),
            _ => self.sparse.get(id),
        }
    }

    /// Records the type of node `id`, returning the previous one.
    pub fn insert(&mut self, id: ExprId, t: Type) -> Option<Type> {
        match usize::try_from(id) {
            Ok(i) if i < DENSE_IDS.max(self.dense.len() * 2) => {
                if i >= self.dense.len() {
                    self.grow_dense(i);
                }
                if self.table.len() < LEAVES.len() {
                    self.keep_leaves();
                }
                let previous = self.decode(self.dense[i]).cloned();
                self.dense_set(i, t);
                previous
            }
            _ => self.sparse.insert(id, t),
        }
    }

    /// How many nodes have a type.
    pub fn len(&self) -> usize {
        self.dense.iter().filter(|&&c| c != 0).count() + self.sparse.len()
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
            .filter_map(|(i, &c)| Some((i as ExprId, self.decode(c)?)))
            .chain(self.sparse.iter().map(|(id, t)| (*id, t)))
    }
}

impl std::fmt::Debug for NodeTypes {
    /// The types by node id, as a map.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
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
/// nodes in the order resolved with the position of their reference, the
/// references (nodes that resolved alike, `self` of `self.a < self.b`, may
/// share one), and a table from node id to position for the ids the parser
/// allocates (below the expression's node count, or below 65,536 for a table
/// built without one); other ids, which only hand-built trees have, are found
/// by a scan. An expression has references on a few of its nodes: small
/// vectors, none when nothing resolved, where a hash table costs a table
/// sized for every node.
#[derive(Clone, Default)]
pub struct NodeRefs {
    /// (node id, position of its reference in `refs`), ids unique.
    entries: Vec<(ExprId, u32)>,
    /// The references the entries point to.
    refs: Vec<Reference>,
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
        Self::with_nodes_in(nodes, Vec::new(), Vec::new(), Vec::new())
    }

    /// A table for an expression whose ids are below `nodes`, in the
    /// (emptied) vectors of a previous one.
    fn with_nodes_in(
        nodes: usize,
        mut entries: Vec<(ExprId, u32)>,
        mut refs: Vec<Reference>,
        index: Vec<u32>,
    ) -> Self {
        entries.clear();
        refs.clear();
        // About every other node (identifiers and calls) has a reference.
        entries.reserve(nodes / 2 + 1);
        NodeRefs {
            entries,
            refs,
            // Sized once: every id the parser allocates is covered.
            index: zeros(index, nodes),
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
        if let Ok(i) = usize::try_from(id) {
            // `index` is never longer than `dense_ids()`.
            if let Some(&slot) = self.index.get(i) {
                return (slot as usize).checked_sub(1);
            }
            if i < self.dense_ids() {
                return None;
            }
        }
        self.entries.iter().position(|e| e.0 == id)
    }

    /// Records the reference of node `id`, replacing the previous one.
    #[inline(always)]
    pub fn insert(&mut self, id: ExprId, r: Reference) {
        let at = self.push(r);
        self.insert_shared(id, at);
    }

    /// Keeps reference `r` for nodes to share ([`NodeRefs::insert_shared`]);
    /// its position.
    #[inline(always)]
    pub(crate) fn push(&mut self, r: Reference) -> u32 {
        // Positions fit: an expression has far fewer than `u32::MAX` nodes.
        let at = u32::try_from(self.refs.len()).unwrap_or(u32::MAX);
        self.refs.push(r);
        at
    }

    /// The reference kept at position `at` ([`NodeRefs::push`]).
    #[inline(always)]
    pub(crate) fn at(&self, at: u32) -> Option<&Reference> {
        self.refs.get(at as usize)
    }

    /// Records that node `id` refers to the reference kept at position `at`
    /// ([`NodeRefs::push`]), replacing its previous one.
    #[inline(always)]
    pub(crate) fn insert_shared(&mut self, id: ExprId, at: u32) {
        // An id the table already covers (every one after the first of a
        // check): `index` is never longer than `dense_ids()`.
        if let Ok(i) = usize::try_from(id)
            && let Some(slot) = self.index.get_mut(i)
        {
            match (*slot as usize).checked_sub(1) {
                Some(e) => self.entries[e].1 = at,
                None => {
                    *slot = u32::try_from(self.entries.len() + 1).unwrap_or(0);
                    self.entries.push((id, at));
                }
            }
            return;
        }
        self.insert_uncovered(id, at);
    }

    /// [`NodeRefs::insert_shared`] of an id beyond the table: sizes it, or
    /// records an id the table does not cover.
    #[inline(never)]
    fn insert_uncovered(&mut self, id: ExprId, at: u32) {
        if let Some(e) = self.position(id) {
            self.entries[e].1 = at;
            return;
        }
        if let Ok(i) = usize::try_from(id)
            && i < self.dense_ids()
        {
            // A table built without a node count grows (one built with one
            // covers its ids from the start).
            if self.index.len() <= i {
                let len = (i + 1).max(self.index.len() * 2).min(DENSE_IDS);
                self.index.resize(len, 0);
            }
            // Positions fit: an expression has far fewer than `u32::MAX` nodes.
            self.index[i] = u32::try_from(self.entries.len() + 1).unwrap_or(0);
        }
        self.entries.push((id, at));
    }

    /// The reference of node `id`.
    pub fn get(&self, id: &ExprId) -> Option<&Reference> {
        self.at(self.entries[self.position(*id)?].1)
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
        self.entries
            .iter()
            .filter_map(|&(id, at)| Some((id, self.at(at)?)))
    }

    /// Every node's reference, in the order recorded.
    pub fn values(&self) -> impl Iterator<Item = &Reference> {
        self.iter().map(|(_, r)| r)
    }
}

impl std::fmt::Debug for NodeRefs {
    /// The references by node id, as a map in the order recorded.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
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
    types: Vec<u32>,
    table: Vec<Type>,
    entries: Vec<(ExprId, u32)>,
    refs: Vec<Reference>,
    index: Vec<u32>,
}

thread_local! {
    static SPARE: std::cell::Cell<SpareTables> = const {
        std::cell::Cell::new(SpareTables {
            types: Vec::new(),
            table: Vec::new(),
            entries: Vec::new(),
            refs: Vec::new(),
            index: Vec::new(),
        })
    };
}

impl SpareTables {
    /// The type and reference tables of an expression of `nodes` nodes, in
    /// the thread's kept vectors (new ones when there are none).
    pub(crate) fn tables(nodes: usize) -> (NodeTypes, NodeRefs) {
        let SpareTables {
            types,
            table,
            entries,
            refs,
            index,
        } = SPARE.take();
        (
            NodeTypes::with_nodes_in(nodes, types, table),
            NodeRefs::with_nodes_in(nodes, entries, refs, index),
        )
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
        let (types, table) = types.into_spare();
        SPARE.set(SpareTables {
            types,
            table,
            entries: crate::spare::emptied(references.entries),
            refs: crate::spare::emptied(references.refs),
            index: kept(references.index),
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
