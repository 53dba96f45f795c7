//! Evaluation nodes: what the planner builds and the interpreter walks.
//!
//! The tree mirrors cel-go's interpretables closely enough to reproduce its
//! runtime cost: variable accesses with their chains of field selections and
//! constant indexes are one [`Attr`] (cel-go's attribute with qualifiers), and
//! `c ? t : f` is a [`CondAttr`] (cel-go's conditional attribute).

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::{EvalError, EvalResult};
use crate::functions::FnImpl;
use smallvec::SmallVec;

use crate::syntax::{ExprId, Name};
use crate::types::Type;
use crate::value::{Key, Map, Value};

/// One evaluation node.
pub(crate) enum Node {
    /// A constant (literal, folded expression, type name). Cost 0.
    Const(Value),
    /// A comprehension variable or accumulator read as is (an attribute
    /// without qualifiers; cost 1, 0 as a branch of `?:`).
    Local(usize),
    /// A variable (or relative operand) with qualifiers.
    Attr(Box<Attr>),
    /// `c ? t : f`.
    CondAttr(Box<CondAttr>),
    /// `has(operand.field)`.
    Has(Box<Has>),
    /// `a && b`.
    And(Box<[Node; 2]>),
    /// `a || b`.
    Or(Box<[Node; 2]>),
    /// `@not_strictly_false(x)`: true unless `x` is false.
    NotStrictlyFalse(Box<(Node, CallMeta)>),
    /// A standard unary operator, called without dispatch.
    Op1(Box<Op1>),
    /// A standard binary operator, called without dispatch.
    Op2(Box<Op2>),
    /// A function call dispatched over overloads.
    Call(Box<Call>),
    /// `matches` with a constant pattern compiled at plan time.
    Matches(Box<Matches>),
    /// A list literal.
    List(Box<ListNode>),
    /// A map literal.
    Map(Box<MapNode>),
    /// A message construction (`object.rs`).
    Object(Box<super::object::ObjectNode>),
    /// A comprehension (every macro).
    Compr(Box<Compr>),
    /// `x in [constant primitives]` as a set lookup.
    InSet(Box<InSet>),
    /// `acc + [e]` in a comprehension step, appending in place.
    AccuAppend(Box<AccuAppend>),
    /// `cel.block([...], result)`.
    Block(Box<BlockNode>),
    /// `a.or(b)` / `a.orValue(b)` on optionals: `b` is evaluated only when
    /// `a` is empty, and the node has no cost of its own (cel-go plans these
    /// as dedicated interpretables, not calls).
    OptOr(Box<OptOr>),
    /// `a + b + ...` where every `+` is `add_string`, built in one buffer.
    Concat(Box<Concat>),
    /// An error known at plan time that must surface at evaluation.
    Error(EvalError),
}

/// A chain of string concatenations (see `concat.rs`).
pub(crate) struct Concat {
    /// The leftmost operand.
    pub first: Node,
    /// Each further operand, left to right, with the `+` that adds it.
    pub rest: Vec<ConcatPart>,
}

pub(crate) struct ConcatPart {
    pub operand: Node,
    /// The `_+_` call (no cost function or hook).
    pub add: CallMeta,
    /// The operand is a standard `string(x)` call that may take an int: its
    /// digits can be written straight into the buffer.
    pub int_to_string: bool,
}

/// `lhs.or(rhs)` (`value: false`) or `lhs.orValue(rhs)` (`value: true`).
pub(crate) struct OptOr {
    pub id: ExprId,
    pub lhs: Node,
    pub rhs: Node,
    pub value: bool,
    /// A left side that is not an optional is the result, as in cel-go
    /// before v0.28 (b62dcafe); from then on it is `no such overload`.
    pub non_optional_passes: bool,
}

/// What a call is, for cost tracking.
pub(crate) struct CallMeta {
    pub id: ExprId,
    /// The built-in rule for the overload id.
    pub rule: super::cost::CostRule,
    /// A cost function attached to the overload, or the host's hook as
    /// resolved for this call: the arguments are needed. `None`: the
    /// built-in rule prices every call.
    pub custom: Option<super::cost::CustomCost>,
}

/// Where an attribute's value comes from.
pub(crate) enum Base {
    /// Activation variables, tried in order (one for a checked expression:
    /// held in place).
    Vars(SmallVec<[VarRef; 1]>),
    /// A comprehension variable or accumulator.
    Slot(usize),
    /// A `cel.block` slot (evaluated lazily, once per block evaluation).
    BlockSlot(usize),
    /// Any other expression (cel-go's relative attribute).
    Rel(Node),
}

/// A candidate activation variable of an attribute.
pub(crate) struct VarRef {
    /// The name, inline up to 24 bytes (planning allocates nothing for it).
    pub name: Name,
    /// How many leading qualifiers of the attribute are part of the name.
    pub skip: usize,
    /// The variable's entry in the evaluation's resolution cache (one per
    /// distinct name; names past the cache's size are not cached).
    pub cache: usize,
}

/// How many distinct variable names one evaluation remembers the resolution
/// of (an expression naming `self` three times asks the activation once).
pub(crate) const VAR_CACHE: usize = 4;

/// cel-go's attribute: a base and qualifiers (up to [`INLINE_QUALS`] held in
/// place, so that planning `self.spec.x` allocates only the attribute).
pub(crate) struct Attr {
    pub id: ExprId,
    pub base: Base,
    pub quals: Quals,
}

/// Qualifiers an attribute holds without allocating.
pub(crate) const INLINE_QUALS: usize = 2;

/// An attribute's qualifiers.
pub(crate) type Quals = SmallVec<[Qual; INLINE_QUALS]>;

/// One qualifier: `.field`, `[constant]` or `[expr]`, possibly optional.
pub(crate) struct Qual {
    pub id: ExprId,
    pub kind: QualKind,
    /// `.?field` / `[?key]`.
    pub optional: bool,
}

pub(crate) enum QualKind {
    Field(FieldName),
    Const(Value),
    Dyn(Node),
}

/// A selected field's name, with the entry index it was last found at: maps
/// of one shape (the objects one expression reads) hold a field at the same
/// index, so a lookup first compares that entry's key (an inline cache; a
/// miss searches the map as usual and moves the hint). The name is the tree's
/// [`Name`], inline up to 24 bytes: planning a selection allocates nothing.
pub(crate) struct FieldName {
    name: Name,
    hint: AtomicUsize,
}

impl FieldName {
    /// `m.name` borrowed from a plain map (`None`: absent, or a host's map).
    #[inline(always)]
    pub(crate) fn select_ref<'m>(&self, m: &'m Map) -> Option<&'m Value> {
        let at = self.hint.load(Ordering::Relaxed);
        let (found, v) = m.field_ref_at(&self.name, at)?;
        if found != at {
            self.hint.store(found, Ordering::Relaxed);
        }
        Some(v)
    }

    /// `m.name` (`None`: absent), as [`Map::field`]; a host's map gets the
    /// hint too ([`crate::value::MapProvider::field_hinted`]).
    #[inline]
    pub(crate) fn select(&self, m: &Map) -> Option<Value> {
        match m {
            Map::Values(_) => self.select_ref(m).cloned(),
            Map::Provided(p) => {
                let at = self.hint.load(Ordering::Relaxed);
                let (v, found) = p.field_hinted(&self.name, at)?;
                if found != at {
                    self.hint.store(found, Ordering::Relaxed);
                }
                Some(v)
            }
        }
    }

    /// Whether `m.name` is set (`has(m.name)`), with a host's read error
    /// ([`Map::try_field`]); a host's map gets the hint
    /// ([`crate::value::MapProvider::try_field_hinted`]).
    #[inline]
    pub(crate) fn is_set(&self, m: &Map) -> EvalResult<bool> {
        match m {
            Map::Values(_) => Ok(self.select_ref(m).is_some()),
            Map::Provided(p) => {
                let at = self.hint.load(Ordering::Relaxed);
                let (v, found) = p.try_field_hinted(&self.name, at)?;
                if found != at {
                    self.hint.store(found, Ordering::Relaxed);
                }
                Ok(v.is_some())
            }
        }
    }
}

impl From<&str> for FieldName {
    fn from(name: &str) -> Self {
        FieldName {
            name: Name::from(name),
            hint: AtomicUsize::new(0),
        }
    }
}

impl From<&Name> for FieldName {
    fn from(name: &Name) -> Self {
        FieldName {
            name: name.clone(),
            hint: AtomicUsize::new(0),
        }
    }
}

impl Clone for FieldName {
    fn clone(&self) -> Self {
        FieldName {
            name: self.name.clone(),
            hint: AtomicUsize::new(self.hint.load(Ordering::Relaxed)),
        }
    }
}

impl std::ops::Deref for FieldName {
    type Target = str;
    fn deref(&self) -> &str {
        &self.name
    }
}

pub(crate) struct CondAttr {
    pub id: ExprId,
    pub cond: Node,
    pub truthy: Node,
    pub falsy: Node,
}

pub(crate) struct Has {
    pub id: ExprId,
    pub operand: Node,
    pub field: FieldName,
}

pub(crate) struct Op1 {
    pub meta: CallMeta,
    pub f: fn(&Value) -> crate::error::EvalResult,
    /// The operator is `!_` (else `-_`).
    pub not: bool,
    pub arg: Node,
}

pub(crate) struct Op2 {
    pub meta: CallMeta,
    pub f: fn(&Value, &Value) -> crate::error::EvalResult,
    /// `f` on two `int`s, computed in place (`int_op.rs`).
    pub int: Option<super::int_op::IntOp>,
    pub args: [Node; 2],
    /// The cost-model size of the right operand when it is a constant.
    pub const_size: u64,
}

/// One overload a call may bind to at runtime.
pub(crate) struct Candidate {
    pub params: Vec<Type>,
    pub imp: FnImpl,
    /// True when every parameter accepts any value (no type check needed).
    pub accepts_all: bool,
}

pub(crate) struct Call {
    pub meta: CallMeta,
    /// Arguments, receiver first.
    pub args: Vec<Node>,
    pub candidates: Vec<Candidate>,
}

pub(crate) struct Matches {
    pub meta: CallMeta,
    pub target: Node,
    pub pattern: Value,
    /// The pattern's cost-model size (its length in code points).
    pub pattern_size: u64,
    pub regex: Result<crate::go::regexp::Regex, EvalError>,
}

pub(crate) struct ListNode {
    pub id: ExprId,
    pub elems: Vec<Node>,
    /// Per element: `?e` entries.
    pub optional: Vec<bool>,
}

pub(crate) struct MapNode {
    pub id: ExprId,
    /// (key, value, optional entry).
    pub entries: Vec<(Node, Node, bool)>,
}

/// A recognised fold shape the untracked interpreter runs without
/// evaluating the loop condition and step nodes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum FoldShape {
    /// Any fold.
    General,
    /// `exists`: init `false`, condition `@not_strictly_false(!acc)`, step
    /// `acc || p`, result `acc`.
    Exists,
    /// `all`: init `true`, condition `@not_strictly_false(acc)`, step
    /// `acc && p`, result `acc`.
    All,
    /// `map`, `filter`: init `[]`, condition `true`, step `acc + [e]` or
    /// `p ? acc + [e] : acc` (an [`AccuAppend`] whose `_+_` has no cost
    /// function or hook), result `acc`.
    Append,
}

pub(crate) struct Compr {
    pub id: ExprId,
    pub shape: FoldShape,
    pub range: Node,
    pub iter_slot: usize,
    pub iter_slot2: Option<usize>,
    pub accu_slot: usize,
    pub accu_init: Node,
    pub cond: Node,
    pub step: Node,
    pub result: Node,
}

pub(crate) struct InSet {
    pub elem: Node,
    pub set: indexmap::IndexSet<Key>,
}

pub(crate) struct AccuAppend {
    pub slot: usize,
    pub elem: Node,
    /// Cost of building `[e]`: 10, or 0 when it is a constant literal.
    pub list_cost: u64,
    /// The `_+_` call.
    pub add: CallMeta,
}

pub(crate) struct BlockNode {
    /// The block's slot numbers.
    pub slots: std::ops::Range<usize>,
    pub result: Node,
}

impl Node {
    pub(crate) fn as_const(&self) -> Option<&Value> {
        match self {
            Node::Const(v) => Some(v),
            _ => None,
        }
    }
}
