//! The planner: AST (checked or not) → evaluation nodes.
//!
//! Names are resolved once: comprehension variables and `cel.block` indexes to
//! slots, type names to constants, everything else to activation variables
//! (with the container's candidate names, longest first, as cel-go does).
//! Calls are bound to overloads: with a checked AST to the ids of its
//! reference, otherwise to every overload of the name, chosen at runtime by
//! argument types. Operators of the standard library skip dispatch.

use std::sync::Arc;

use smallvec::SmallVec;

use super::node::*;
use crate::checker::CheckedAst;
use crate::env::Env;
use crate::error::EvalError;
use crate::library::std::{convert, ops, strings};
use crate::syntax::{Comprehension, Expr, ExprId, ExprKind, Literal};
use crate::types::Type;
use crate::value::{Key, KeyRef, List, Map, Value};

/// A planning failure: the node and the message.
pub(crate) type PlanError = (ExprId, String);

pub(super) type PResult<T = Node> = Result<T, PlanError>;

/// What a local name refers to.
#[derive(Clone, Copy)]
enum Local {
    Slot(usize),
    Block(usize),
}

pub(crate) struct Planner<'a> {
    pub(super) env: &'a Env,
    pub(super) checked: Option<&'a CheckedAst>,
    /// The names in scope (comprehension variables, `cel.block` indexes),
    /// innermost last; held in place up to two nested comprehensions.
    scopes: SmallVec<[(crate::syntax::Name, Local); 4]>,
    pub(crate) n_slots: usize,
    pub(crate) block_exprs: Vec<Option<Node>>,
    optimize: bool,
    /// Distinct activation variable names, in order of first use (their
    /// index is their entry in the evaluation's resolution cache).
    var_names: SmallVec<[crate::syntax::Name; VAR_CACHE]>,
    /// Bit `i` set: `var_names[i]` is a declared variable (checked once per
    /// name, not per use).
    declared_vars: u64,
    /// The field selections about to qualify the identifier planned next
    /// (`self.a.b`: 2), so that its attribute's qualifiers are allocated
    /// once, at their number; 0 when unknown.
    quals_hint: usize,
}

/// The functions whose overloads all come from the standard library, computed
/// once per environment ([`Env::std_only_functions`]): the interpreter may call
/// their standard implementation directly.
pub(crate) struct StdOnly {
    names: crate::name_hash::NameSet<String>,
    /// Bit `i` set: operator `STD_OPS[i]` is one of `names` (planning an
    /// operator tests a bit, it hashes no name).
    ops: u32,
    /// Bit `i` set: an overload of `STD_OPS[i]` has a cost function
    /// ([`Env::overload_cost`]); clear, a call's cost needs no lookup of its
    /// overload id.
    costed: u32,
}

/// The operators and functions [`StdOnly::ops`] has a bit for, by bit.
const STD_OPS: [&str; 15] = [
    "_+_", "_-_", "_*_", "_/_", "_%_", "_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_", "@in", "!_",
    "-_", "matches",
];

/// [`STD_OPS`]' bit of `_+_`.
const ADD: u32 = 0;
/// [`STD_OPS`]' bit of `matches`.
const MATCHES: u32 = 14;

/// A standard binary operator's implementation.
type BinaryFn = fn(&Value, &Value) -> crate::error::EvalResult;
/// A standard unary operator's implementation.
type UnaryFn = fn(&Value) -> crate::error::EvalResult;

/// Standard operators the interpreter calls directly, with their std overload ids.
#[cfg(test)]
pub(super) fn builtin_binary(name: &str) -> Option<BinaryFn> {
    binary_op(name).map(|(f, _)| f)
}

/// [`builtin_binary`], with the operator's bit in [`STD_OPS`].
fn binary_op(name: &str) -> Option<(BinaryFn, u32)> {
    Some(match name {
        "_+_" => (ops::add, ADD),
        "_-_" => (ops::sub, 1),
        "_*_" => (ops::mul, 2),
        "_/_" => (ops::div, 3),
        "_%_" => (ops::rem, 4),
        "_==_" => (ops::eq, 5),
        "_!=_" => (ops::ne, 6),
        "_<_" => (ops::lt, 7),
        "_<=_" => (ops::le, 8),
        "_>_" => (ops::gt, 9),
        "_>=_" => (ops::ge, 10),
        "@in" => (ops::in_, 11),
        _ => return None,
    })
}

/// Standard unary operators the interpreter calls directly, with their bit in
/// [`STD_OPS`].
fn unary_op(name: &str) -> Option<(UnaryFn, u32)> {
    Some(match name {
        "!_" => (ops::not, 12),
        "-_" => (ops::neg, 13),
        _ => return None,
    })
}

/// Conversions folded at plan time when their argument is constant (`OptOptimize`).
fn foldable_conversion(name: &str) -> Option<fn(&Value) -> crate::error::EvalResult> {
    Some(match name {
        "int" => convert::to_int,
        "uint" => convert::to_uint,
        "double" => convert::to_double,
        "string" => convert::to_string,
        "bytes" => convert::to_bytes,
        "bool" => convert::to_bool,
        "timestamp" => convert::to_timestamp,
        "duration" => convert::to_duration,
        "dyn" => |v| Ok(v.clone()),
        "type" => |v| Ok(Value::type_value(v.runtime_type())),
        _ => return None,
    })
}

/// The type named `name` among the standard type identifiers.
fn std_type(name: &str) -> Option<Type> {
    crate::library::std::type_identifiers()
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| t)
}

impl<'a> Planner<'a> {
    pub(crate) fn new(env: &'a Env, checked: Option<&'a CheckedAst>) -> Self {
        Planner {
            env,
            checked,
            scopes: SmallVec::new(),
            n_slots: 0,
            block_exprs: Vec::new(),
            optimize: env.options().optimize,
            var_names: SmallVec::new(),
            declared_vars: 0,
            quals_hint: 0,
        }
    }

    fn local(&self, name: &str) -> Option<Local> {
        self.scopes
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, l)| *l)
    }

    /// A reference to activation variable `name`, numbered for the cache.
    fn var_ref(&mut self, name: &str, skip: usize) -> VarRef {
        let seen = self.var_names.iter().position(|n| **n == *name);
        self.var_ref_at(seen, name, skip)
    }

    /// [`Self::var_ref`] of a name found at `seen` in `var_names` (`None`:
    /// not there yet).
    fn var_ref_at(&mut self, seen: Option<usize>, name: &str, skip: usize) -> VarRef {
        let cache = match seen {
            Some(i) => i,
            None => {
                self.var_names.push(name.into());
                self.var_names.len() - 1
            }
        };
        VarRef {
            name: self.var_names[cache].clone(),
            skip,
            cache,
        }
    }

    fn new_slot(&mut self) -> usize {
        self.n_slots += 1;
        self.n_slots - 1
    }

    pub(crate) fn plan(&mut self, e: &Expr) -> PResult {
        match &e.kind {
            ExprKind::Literal(l) => Ok(Node::Const(literal(l))),
            ExprKind::Ident(name) => self.plan_ident(e.id, name),
            ExprKind::Select(s) => {
                if s.test_only {
                    let operand = self.plan(&s.operand)?;
                    return Ok(Node::Has(Box::new(Has {
                        id: e.id,
                        operand,
                        field: (&s.field).into(),
                    })));
                }
                if let Some(n) = self.plan_checked_chain(e) {
                    return Ok(n);
                }
                if let Some(n) = self.plan_qualified_name(e)? {
                    return Ok(n);
                }
                if self.quals_hint == 0 {
                    self.quals_hint = selections_above_ident(e);
                }
                let operand = self.plan(&s.operand)?;
                // Taken by the chain's identifier, unless the chain resolved
                // otherwise (a qualified name, unchecked candidates).
                self.quals_hint = 0;
                let q = Qual {
                    id: e.id,
                    kind: QualKind::Field((&s.field).into()),
                    optional: s.optional,
                };
                Ok(add_qualifier(operand, q))
            }
            ExprKind::Call(c) => self.plan_call(e, c),
            ExprKind::List(l) => self.plan_list(e.id, &l.elements, &l.optional_indices),
            ExprKind::Map(entries) => {
                let mut out = Vec::with_capacity(entries.len());
                for en in entries {
                    out.push((self.plan(&en.key)?, self.plan(&en.value)?, en.optional));
                }
                if self.optimize
                    && out
                        .iter()
                        .all(|(k, v, o)| !o && k.as_const().is_some() && v.as_const().is_some())
                {
                    let mut m = indexmap::IndexMap::with_capacity(out.len());
                    for (k, v, _) in &out {
                        let (k, v) = (
                            k.as_const().cloned().unwrap_or(Value::Null),
                            v.as_const().cloned().unwrap_or(Value::Null),
                        );
                        // An invalid constant map is an error value at runtime, as in cel-go.
                        let key = match map_key(&k) {
                            Ok(key) => key,
                            Err(err) => return Ok(Node::Error(err.at(e.id))),
                        };
                        if m.insert(key, v).is_some() {
                            return Ok(Node::Error(
                                EvalError::msg("Failed with repeated key").at(e.id),
                            ));
                        }
                    }
                    return Ok(Node::Const(Value::Map(Map::new(m))));
                }
                Ok(Node::Map(Box::new(MapNode {
                    id: e.id,
                    entries: out,
                })))
            }
            ExprKind::Struct(s) => self.plan_struct(e.id, s),
            ExprKind::Comprehension(c) => self.plan_comprehension(e.id, c),
        }
    }

    fn plan_list(&mut self, id: ExprId, elements: &[Expr], optional_indices: &[usize]) -> PResult {
        let mut elems = Vec::with_capacity(elements.len());
        for el in elements {
            elems.push(self.plan(el)?);
        }
        let optional: Vec<bool> = (0..elems.len())
            .map(|i| optional_indices.contains(&i))
            .collect();
        if self.optimize
            && optional.iter().all(|o| !o)
            && elems.iter().all(|n| n.as_const().is_some())
        {
            let vals = elems.iter().filter_map(|n| n.as_const().cloned()).collect();
            return Ok(Node::Const(Value::List(List::new(vals))));
        }
        Ok(Node::List(Box::new(ListNode {
            id,
            elems,
            optional,
        })))
    }

    fn reference_name(&self, id: ExprId) -> Option<&'a crate::checker::Reference> {
        self.checked?
            .references
            .get(&id)
            .filter(|r| r.overload_ids.is_empty())
    }

    /// A checked chain of field selections over an identifier, `self.spec.x`,
    /// where the checker resolved the identifier and none of the selections
    /// (no prefix of the chain is a qualified name): the identifier's node
    /// qualified by each selection, planned in one walk down the chain and one
    /// up, as [`Self::plan`] plans it selection by selection. `None` for any
    /// other selection.
    fn plan_checked_chain(&mut self, e: &Expr) -> Option<Node> {
        self.checked?;
        let mut chain: SmallVec<[(ExprId, &crate::syntax::Select); 4]> = SmallVec::new();
        let mut at = e;
        while let ExprKind::Select(s) = &at.kind {
            if s.test_only || self.reference_name(at.id).is_some() {
                return None;
            }
            chain.push((at.id, s));
            at = &s.operand;
        }
        let ExprKind::Ident(name) = &at.kind else {
            return None;
        };
        let r = self.reference_name(at.id)?;
        // What `plan_ident` does with the hint the chain's top sets.
        let hint = std::mem::take(&mut self.quals_hint);
        let mut node = match self.local(name) {
            Some(l) => local_attr(at.id, l),
            None => self.resolved_name(at.id, r, if hint == 0 { chain.len() } else { hint }),
        };
        for (id, s) in chain.into_iter().rev() {
            let q = Qual {
                id,
                kind: QualKind::Field((&s.field).into()),
                optional: s.optional,
            };
            node = match node {
                Node::Attr(mut a) => {
                    a.quals.push(q);
                    Node::Attr(a)
                }
                other => add_qualifier(other, q),
            };
        }
        Some(node)
    }

    fn plan_ident(&mut self, id: ExprId, name: &str) -> PResult {
        let quals = std::mem::take(&mut self.quals_hint);
        if let Some(l) = self.local(name) {
            return Ok(local_attr(id, l));
        }
        if let Some(r) = self.reference_name(id) {
            return Ok(self.resolved_name(id, r, quals));
        }
        Ok(self.resolve_names(id, &[name]))
    }

    /// True when `target.or(x)` / `target.orValue(x)` is the optional
    /// library's: the checker chose its overload, or (unchecked) the optional
    /// overload is the only one declared.
    fn is_optional_or(&self, id: ExprId, name: &str) -> bool {
        let wanted = if name == "or" {
            "optional_or_optional"
        } else {
            "optional_orValue_value"
        };
        if let Some(r) = self.checked.and_then(|c| c.references.get(&id)) {
            return r.overload_ids.len() == 1 && *r.overload_ids[0] == *wanted;
        }
        self.env
            .function(name)
            .is_some_and(|f| f.overloads.len() == 1 && *f.overloads[0].id == *wanted)
    }

    /// A name the checker resolved: a constant, a type, or a variable (an
    /// attribute with room for `quals` qualifiers).
    fn resolved_name(&mut self, id: ExprId, r: &crate::checker::Reference, quals: usize) -> Node {
        if let Some(v) = &r.value {
            return Node::Const(v.clone());
        }
        let seen = self.var_names.iter().position(|n| *n == r.name);
        let var = if let Some(cache) = seen
            && cache < 64
            && self.declared_vars & (1 << cache) != 0
        {
            // A declared variable named before: its cache entry, no lookup.
            VarRef {
                name: r.name.clone(),
                skip: 0,
                cache,
            }
        } else if self.env.variable(&r.name).is_some() {
            let var = self.var_ref_at(seen, &r.name, 0);
            if var.cache < 64 {
                self.declared_vars |= 1 << var.cache;
            }
            var
        } else if let Some(t) = self.type_ident(&r.name) {
            return Node::Const(Value::type_value(t));
        } else {
            self.var_ref_at(seen, &r.name, 0)
        };
        Node::Attr(Box::new(Attr {
            id,
            base: Base::Vars(smallvec::smallvec![var]),
            quals: Quals::with_capacity(quals),
        }))
    }

    fn type_ident(&self, name: &str) -> Option<Type> {
        if let Some(t) = std_type(name) {
            return Some(t);
        }
        if let Some(t) = self.env.type_identifier(name) {
            return Some(t.clone());
        }
        if name == crate::types::OPTIONAL_TYPE_NAME && self.env.function("optional.of").is_some() {
            return Some(Type::optional(Type::Dyn));
        }
        self.env.type_provider().and_then(|p| p.find_type(name))
    }

    /// The candidate names of a (possibly dotted) name in the container,
    /// most qualified first: `a.b` in `x.y` → `x.y.a.b`, `x.a.b`, `a.b`.
    fn container_candidates(&self, name: &str) -> Vec<String> {
        if let Some(abs) = name.strip_prefix('.') {
            return vec![abs.to_string()];
        }
        let container = &self.env.options().container;
        let mut out = Vec::new();
        let mut prefix: &str = container;
        while !prefix.is_empty() {
            out.push(format!("{prefix}.{name}"));
            prefix = match prefix.rfind('.') {
                Some(i) => &prefix[..i],
                None => "",
            };
        }
        out.push(name.to_string());
        out
    }

    /// An unchecked dotted name `segs[0].segs[1]...`: a type constant if the
    /// whole name is a type, else an attribute trying every split into a
    /// variable name and field qualifiers, longest name first.
    fn resolve_names(&mut self, id: ExprId, segs: &[&str]) -> Node {
        let full = segs.join(".");
        for cand in self.container_candidates(&full) {
            if self.env.variable(&cand).is_none()
                && let Some(t) = self.type_ident(&cand)
            {
                return Node::Const(Value::type_value(t));
            }
        }
        let mut names = SmallVec::new();
        for k in (1..=segs.len()).rev() {
            let name = segs[..k].join(".");
            for cand in self.container_candidates(&name) {
                names.push(self.var_ref(&cand, k - 1));
            }
        }
        let quals = segs[1..]
            .iter()
            .map(|s| Qual {
                id,
                kind: QualKind::Field((*s).into()),
                optional: false,
            })
            .collect();
        Node::Attr(Box::new(Attr {
            id,
            base: Base::Vars(names),
            quals,
        }))
    }

    /// `a.b.c` where the root is not a local: resolved by the checker's
    /// reference, or as a dotted name when unchecked. `None` otherwise.
    fn plan_qualified_name(&mut self, e: &Expr) -> PResult<Option<Node>> {
        if let Some(r) = self.reference_name(e.id) {
            return Ok(Some(self.resolved_name(e.id, r, 0)));
        }
        // With a checked AST, a chain whose root identifier has a reference is
        // a field selection on that variable.
        if self.checked.is_some() && self.reference_name(chain_root(e).id).is_some() {
            return Ok(None);
        }
        let Some(segs) = ident_chain(e) else {
            return Ok(None);
        };
        if self.local(segs[0]).is_some() {
            return Ok(None);
        }
        let mut node = self.resolve_names(e.id, &segs);
        // Give each qualifier the id of its select node.
        if let Node::Attr(a) = &mut node {
            let mut ids = Vec::new();
            let mut cur = e;
            while let ExprKind::Select(s) = &cur.kind {
                ids.push(cur.id);
                cur = &s.operand;
            }
            ids.reverse();
            for (q, id) in a.quals.iter_mut().zip(ids) {
                q.id = id;
            }
            a.id = cur.id;
        }
        Ok(Some(node))
    }

    fn meta(&self, id: ExprId, function: &str) -> CallMeta {
        let overload_id: &str = match self.checked.and_then(|c| c.references.get(&id)) {
            Some(r) if r.overload_ids.len() == 1 => &r.overload_ids[0],
            _ => "",
        };
        CallMeta {
            id,
            rule: super::cost::CostRule::of(overload_id),
            custom: super::cost::CustomCost::resolve(self.env, function, overload_id),
        }
    }

    /// [`Self::meta`] of a call to `STD_OPS[bit]`: no cost function to look
    /// up when none of the operator's overloads has one and there is no
    /// host hook.
    fn meta_op(&self, id: ExprId, bit: u32) -> CallMeta {
        let overload_id: &str = match self.checked.and_then(|c| c.references.get(&id)) {
            Some(r) if r.overload_ids.len() == 1 => &r.overload_ids[0],
            _ => "",
        };
        let custom = if self.std_only().costed & (1 << bit) == 0 && self.env.cost_hook().is_none() {
            None
        } else {
            super::cost::CustomCost::resolve(self.env, STD_OPS[bit as usize], overload_id)
        };
        CallMeta {
            id,
            rule: super::cost::CostRule::of(overload_id),
            custom,
        }
    }

    /// True when the environment's `name` exists and every one of its overloads
    /// has a standard-library overload id, so that the interpreter may call the
    /// standard implementation directly. The set of such names is computed once
    /// per environment (and shared by those derived with
    /// [`Env::with_declarations`]).
    fn only_std(&self, name: &str) -> bool {
        self.std_only().names.contains(name)
    }

    /// [`Self::only_std`] of `STD_OPS[bit]`.
    fn only_std_op(&self, bit: u32) -> bool {
        self.std_only().ops & (1 << bit) != 0
    }

    fn std_only(&self) -> &'a StdOnly {
        self.env.std_only_functions().get_or_init(|| {
            let std = crate::library::std::overload_ids_by_function();
            let names: crate::name_hash::NameSet<String> = self
                .env
                .functions()
                .filter(|f| {
                    std.get(f.name.as_str())
                        .is_some_and(|ids| f.overloads.iter().all(|o| ids.contains(&*o.id)))
                })
                .map(|f| f.name.clone())
                .collect();
            let bits = |test: &dyn Fn(&str) -> bool| {
                (0..)
                    .zip(STD_OPS)
                    .filter(|(_, op)| test(op))
                    .fold(0, |bits, (bit, _)| bits | 1 << bit)
            };
            let ops = bits(&|op| names.contains(op));
            let costed = bits(&|op| {
                self.env.function(op).is_some_and(|f| {
                    f.overloads
                        .iter()
                        .any(|o| self.env.overload_cost(&o.id).is_some())
                })
            });
            StdOnly { names, ops, costed }
        })
    }

    fn plan_call(&mut self, e: &Expr, c: &crate::syntax::Call) -> PResult {
        let name = c.function.as_str();
        let id = e.id;
        if c.target.is_none() {
            match (name, c.args.as_slice()) {
                ("_&&_", [a, b]) => return Ok(Node::And(Box::new([self.plan(a)?, self.plan(b)?]))),
                ("_||_", [a, b]) => return Ok(Node::Or(Box::new([self.plan(a)?, self.plan(b)?]))),
                ("_?_:_", [cnd, t, f]) => {
                    let cond = self.plan(cnd)?;
                    let truthy = self.plan(t)?;
                    let falsy = self.plan(f)?;
                    return Ok(Node::CondAttr(Box::new(CondAttr {
                        id,
                        cond,
                        truthy,
                        falsy,
                    })));
                }
                ("@not_strictly_false", [a]) => {
                    let arg = self.plan(a)?;
                    return Ok(Node::NotStrictlyFalse(Box::new((arg, self.meta(id, name)))));
                }
                ("_?._", [op, field]) => {
                    let Some(Literal::String(f)) = field.as_literal() else {
                        return Err((
                            field.id,
                            "optional field selection requires a string literal".into(),
                        ));
                    };
                    let operand = self.plan(op)?;
                    let q = Qual {
                        id,
                        kind: QualKind::Field(f.as_ref().into()),
                        optional: true,
                    };
                    return Ok(add_qualifier(operand, q));
                }
                ("_[?_]", [op, key]) => {
                    let operand = self.plan(op)?;
                    let k = self.plan(key)?;
                    return Ok(add_qualifier(
                        operand,
                        Qual {
                            id,
                            kind: qual_kind(k),
                            optional: true,
                        },
                    ));
                }
                // Indexing is always a qualifier (cel-go plans it as an
                // attribute, whatever overloads are declared).
                ("_[_]", [op, key]) => {
                    let operand = self.plan(op)?;
                    let k = self.plan(key)?;
                    return Ok(add_qualifier(
                        operand,
                        Qual {
                            id,
                            kind: qual_kind(k),
                            optional: false,
                        },
                    ));
                }
                ("cel.block", [list, result]) => return self.plan_block(list, result),
                _ => {}
            }
        }
        if let (Some(t), [arg]) = (&c.target, c.args.as_slice())
            && (name == "or" || name == "orValue")
            && self.is_optional_or(id, name)
        {
            return Ok(Node::OptOr(Box::new(OptOr {
                id,
                lhs: self.plan(t)?,
                rhs: self.plan(arg)?,
                value: name == "orValue",
                non_optional_passes: self.env.options().cel_go < crate::CelGoVersion::V0_29,
            })));
        }
        // `ns.f(args)` parsed as a member call on an identifier chain that is
        // really the qualified name of a global function.
        if let Some(t) = &c.target
            && let Some(segs) = ident_chain(t)
            && self.local(segs[0]).is_none()
        {
            // The root's declaration is asked first: it needs no joined name.
            let is_var = self.env.variable(segs[0]).is_some() || {
                let chain = segs.join(".");
                self.env.variable(&chain).is_some()
            };
            if !is_var {
                let qualified = format!("{}.{}", segs.join("."), name);
                if self.env.function(&qualified).is_some() {
                    if qualified == "cel.block"
                        && let [list, result] = c.args.as_slice()
                    {
                        return self.plan_block(list, result);
                    }
                    return self.plan_generic(id, &qualified, None, &c.args, false);
                }
            }
        }
        if c.target.is_none() {
            if name == "_+_"
                && let [a, b] = c.args.as_slice()
                && let Some(node) = self.plan_concat(id, a, b)?
            {
                return Ok(node);
            }
            if let [a, b] = c.args.as_slice()
                && let Some((f, bit)) = binary_op(name)
                && self.only_std_op(bit)
            {
                let (x, y) = (self.plan(a)?, self.plan(b)?);
                if name == "@in"
                    && self.optimize
                    && let Some(set) = y.as_const().and_then(constant_set)
                {
                    return Ok(Node::InSet(Box::new(InSet { elem: x, set })));
                }
                let const_size = y.as_const().map_or(1, super::cost::actual_size);
                return Ok(Node::Op2(Box::new(Op2 {
                    meta: self.meta_op(id, bit),
                    f,
                    int: super::int_op::IntOp::of(name),
                    args: [x, y],
                    const_size,
                })));
            }
            if let [a] = c.args.as_slice()
                && let Some((f, bit)) = unary_op(name)
                && self.only_std_op(bit)
            {
                let arg = self.plan(a)?;
                return Ok(Node::Op1(Box::new(Op1 {
                    meta: self.meta_op(id, bit),
                    f,
                    not: name == "!_",
                    arg,
                })));
            }
            if let [a] = c.args.as_slice()
                && self.optimize
                && let Some(conv) = foldable_conversion(name)
                && self.only_std(name)
            {
                let arg = self.plan(a)?;
                if let Some(v) = arg.as_const() {
                    return conv(v)
                        .map(Node::Const)
                        .map_err(|err| (id, err.message().to_string()));
                }
                return self.finish_generic(id, name, vec![arg], false);
            }
        }
        if name == "matches" && self.only_std_op(MATCHES) {
            let (target, pattern) = match (&c.target, c.args.as_slice()) {
                (Some(t), [p]) => (t, p),
                (None, [t, p]) => (t, p),
                _ => {
                    return self.plan_generic(
                        id,
                        name,
                        c.target.as_ref(),
                        &c.args,
                        c.target.is_some(),
                    );
                }
            };
            if let Some(Literal::String(p)) = pattern.as_literal() {
                let regex = strings::cached_regex(p);
                if self.optimize
                    && let Err(err) = &regex
                {
                    return Err((pattern.id, err.message().to_string()));
                }
                let target = self.plan(target)?;
                return Ok(Node::Matches(Box::new(Matches {
                    meta: self.meta_op(id, MATCHES),
                    target,
                    pattern: Value::String(p.clone()),
                    pattern_size: p.chars().count() as u64,
                    regex,
                })));
            }
        }
        self.plan_generic(id, name, c.target.as_ref(), &c.args, c.target.is_some())
    }

    fn plan_generic(
        &mut self,
        id: ExprId,
        name: &str,
        target: Option<&Expr>,
        args: &[Expr],
        member: bool,
    ) -> PResult {
        let mut nodes = Vec::with_capacity(args.len() + 1);
        if let Some(t) = target {
            nodes.push(self.plan(t)?);
        }
        for a in args {
            nodes.push(self.plan(a)?);
        }
        self.finish_generic(id, name, nodes, member)
    }

    fn finish_generic(&mut self, id: ExprId, name: &str, args: Vec<Node>, member: bool) -> PResult {
        let meta = self.meta(id, name);
        let Some(f) = self.env.function(name) else {
            return Ok(Node::Error(
                EvalError::msg(format!("no such overload: {name}")).at(id),
            ));
        };
        let ids: Option<&[Arc<str>]> = self
            .checked
            .and_then(|c| c.references.get(&id))
            .map(|r| &*r.overload_ids)
            .filter(|ids| !ids.is_empty());
        // At most one per overload the reference names (or per overload).
        let mut candidates: Vec<Candidate> =
            Vec::with_capacity(ids.map_or(f.overloads.len(), <[_]>::len));
        let mut unguarded = false;
        for o in f
            .overloads
            .iter()
            .filter(|o| o.params.len() == args.len() && o.member == member)
            .filter(|o| ids.is_none_or(|ids| has_id(ids, &o.id)))
        {
            let Some(imp) = o.imp.clone() else { continue };
            unguarded = o.disable_type_guards;
            candidates.push(Candidate {
                accepts_all: o.params.iter().all(Type::is_dyn_like),
                params: o.params.clone(),
                imp,
            });
        }
        // cel-go skips the runtime type guards of an overload declared without
        // them when the call is bound to it alone.
        if let [only] = candidates.as_mut_slice()
            && unguarded
        {
            only.accepts_all = true;
        }
        Ok(Node::Call(Box::new(Call {
            meta,
            args,
            candidates,
        })))
    }

    fn plan_comprehension(&mut self, id: ExprId, c: &Comprehension) -> PResult {
        let range = self.plan(&c.iter_range)?;
        let accu_init = self.plan(&c.accu_init)?;
        let depth = self.scopes.len();
        let accu_slot = self.new_slot();
        self.scopes
            .push((c.accu_var.clone(), Local::Slot(accu_slot)));
        let iter_slot = self.new_slot();
        self.scopes
            .push((c.iter_var.clone(), Local::Slot(iter_slot)));
        let iter_slot2 = match &c.iter_var2 {
            Some(v) => {
                let s = self.new_slot();
                self.scopes.push((v.clone(), Local::Slot(s)));
                Some(s)
            }
            None => None,
        };
        let cond = self.plan(&c.loop_condition)?;
        let step = self.plan_step(&c.loop_step, &c.accu_var, accu_slot)?;
        // The result sees the accumulator but not the iteration variables.
        self.scopes.truncate(depth);
        self.scopes
            .push((c.accu_var.clone(), Local::Slot(accu_slot)));
        let result = self.plan(&c.result)?;
        self.scopes.truncate(depth);
        let shape = if append_shape(&accu_init, &cond, &step, &result, accu_slot) {
            FoldShape::Append
        } else {
            fold_shape(&accu_init, &cond, &step, &result, accu_slot)
        };
        Ok(Node::Compr(Box::new(Compr {
            id,
            shape,
            range,
            iter_slot,
            iter_slot2,
            accu_slot,
            accu_init,
            cond,
            step,
            result,
        })))
    }

    /// A loop step; `acc + [e]` (alone or as a branch of `?:`) becomes an
    /// in-place append.
    fn plan_step(&mut self, step: &Expr, accu: &str, slot: usize) -> PResult {
        if let ExprKind::Call(c) = &step.kind
            && c.target.is_none()
        {
            if c.function == "_+_"
                && let [lhs, rhs] = c.args.as_slice()
                && lhs.as_ident() == Some(accu)
                && let ExprKind::List(l) = &rhs.kind
                && l.elements.len() == 1
                && l.optional_indices.is_empty()
                && self.only_std_op(ADD)
                && self.checked_overload_is(step.id, "add_list")
            {
                let elem = self.plan(&l.elements[0])?;
                let list_cost = if self.optimize && elem.as_const().is_some() {
                    0
                } else {
                    10
                };
                return Ok(Node::AccuAppend(Box::new(AccuAppend {
                    slot,
                    elem,
                    list_cost,
                    add: self.meta_op(step.id, ADD),
                })));
            }
            if c.function == "_?_:_"
                && let [cnd, t, f] = c.args.as_slice()
            {
                let cond = self.plan(cnd)?;
                let truthy = self.plan_step(t, accu, slot)?;
                let falsy = self.plan_step(f, accu, slot)?;
                return Ok(Node::CondAttr(Box::new(CondAttr {
                    id: step.id,
                    cond,
                    truthy,
                    falsy,
                })));
            }
        }
        self.plan(step)
    }

    /// `a + b` checked as `add_string` only (with no cost function or hook):
    /// a [`Concat`], extending one planned for `a`.
    fn plan_concat(&mut self, id: ExprId, a: &Expr, b: &Expr) -> PResult<Option<Node>> {
        let string_add = matches!(
            self.checked.and_then(|c| c.references.get(&id)),
            Some(r) if r.overload_ids.len() == 1 && &*r.overload_ids[0] == "add_string"
        );
        if !string_add || !self.only_std_op(ADD) {
            return Ok(None);
        }
        let add = self.meta_op(id, ADD);
        if add.custom.is_some() {
            return Ok(None);
        }
        let left = self.plan(a)?;
        let operand = self.plan(b)?;
        // A global call `string(x)` plans to a `Node::Call` of `string` when
        // nothing folds or specialises it.
        let calls_string =
            matches!(&b.kind, ExprKind::Call(c) if c.target.is_none() && c.function == "string");
        let int_to_string = matches!(&operand, Node::Call(call)
            if calls_string
                && call.args.len() == 1
                && call.meta.custom.is_none()
                && self.int_dispatches_to_std_string(b.id));
        let part = ConcatPart {
            operand,
            add,
            int_to_string,
        };
        Ok(Some(match left {
            Node::Concat(mut chain) => {
                chain.rest.push(part);
                Node::Concat(chain)
            }
            first => {
                // Room for the chains of up to 5 operands that are common.
                let mut rest = Vec::with_capacity(4);
                rest.push(part);
                Node::Concat(Box::new(Concat { first, rest }))
            }
        }))
    }

    /// Whether `string(x)` (call `call`) with an int `x` runs the standard
    /// `int64_to_string`: the first overload the call may dispatch to that
    /// takes an int is that one.
    fn int_dispatches_to_std_string(&self, call: ExprId) -> bool {
        let ids = self
            .checked
            .and_then(|c| c.references.get(&call))
            .map(|r| &r.overload_ids)
            .filter(|ids| !ids.is_empty());
        self.env.function("string").is_some_and(|f| {
            f.overloads
                .iter()
                .filter(|o| o.params.len() == 1 && !o.member && o.imp.is_some())
                .filter(|o| ids.is_none_or(|ids| has_id(ids, &o.id)))
                .find(|o| super::interp::value_fits(&Value::Int(0), &o.params[0]))
                .is_some_and(|o| &*o.id == "int64_to_string")
        })
    }

    /// With a checked AST, whether the call's reference allows overload `id`.
    fn checked_overload_is(&self, call: ExprId, id: &str) -> bool {
        match self.checked.and_then(|c| c.references.get(&call)) {
            Some(r) if !r.overload_ids.is_empty() => r.overload_ids.iter().all(|o| **o == *id),
            _ => true,
        }
    }

    fn plan_block(&mut self, list: &Expr, result: &Expr) -> PResult {
        let ExprKind::List(l) = &list.kind else {
            return Err((
                list.id,
                "cel.block requires a list literal of bindings".into(),
            ));
        };
        let depth = self.scopes.len();
        let start = self.block_exprs.len();
        for (i, el) in l.elements.iter().enumerate() {
            let n = self.plan(el)?;
            self.block_exprs.push(Some(n));
            self.scopes.push((
                crate::library::std::block::index_ident(i).into(),
                Local::Block(start + i),
            ));
        }
        let result = self.plan(result)?;
        self.scopes.truncate(depth);
        Ok(Node::Block(Box::new(BlockNode {
            slots: start..self.block_exprs.len(),
            result,
        })))
    }
}

/// Whether overload `id` is one of `ids` (a checked call's reference). The
/// reference shares the declarations' ids, so they are compared by address
/// first and by text only when that finds none.
fn has_id(ids: &[Arc<str>], id: &Arc<str>) -> bool {
    ids.iter().any(|i| Arc::ptr_eq(i, id)) || ids.contains(id)
}

/// The node for a local name.
fn local_attr(id: ExprId, l: Local) -> Node {
    let base = match l {
        Local::Slot(s) => return Node::Local(s),
        Local::Block(b) => Base::BlockSlot(b),
    };
    Node::Attr(Box::new(Attr {
        id,
        base,
        quals: Quals::new(),
    }))
}

/// Recognises the `exists` and `all` expansions (see [`FoldShape`]).
fn fold_shape(init: &Node, cond: &Node, step: &Node, result: &Node, acc: usize) -> FoldShape {
    let is_acc = |n: &Node| matches!(n, Node::Local(s) if *s == acc);
    if !is_acc(result) {
        return FoldShape::General;
    }
    let Node::NotStrictlyFalse(nsf) = cond else {
        return FoldShape::General;
    };
    match (init.as_const(), &nsf.0, step) {
        (Some(Value::Bool(false)), Node::Op1(not), Node::Or(ab))
            if is_acc(&not.arg) && not.not && is_acc(&ab[0]) =>
        {
            FoldShape::Exists
        }
        (Some(Value::Bool(true)), c, Node::And(ab)) if is_acc(c) && is_acc(&ab[0]) => {
            FoldShape::All
        }
        _ => FoldShape::General,
    }
}

/// Recognises the `map` and `filter` expansions (see [`FoldShape::Append`]).
fn append_shape(init: &Node, cond: &Node, step: &Node, result: &Node, acc: usize) -> bool {
    let is_acc = |n: &Node| matches!(n, Node::Local(s) if *s == acc);
    let empty_list = match init {
        Node::Const(Value::List(l)) => l.is_empty(),
        Node::List(l) => l.elems.is_empty(),
        _ => false,
    };
    let appends =
        |n: &Node| matches!(n, Node::AccuAppend(a) if a.slot == acc && a.add.custom.is_none());
    let step_ok = match step {
        Node::CondAttr(c) => appends(&c.truthy) && is_acc(&c.falsy),
        other => appends(other),
    };
    empty_list && matches!(cond, Node::Const(Value::Bool(true))) && step_ok && is_acc(result)
}

/// The identifier at the root of a select chain.
/// How many field selections `e` and the selections under it make on an
/// identifier (`self.a.b`: 2); 0 when the chain has another root or a
/// presence test.
fn selections_above_ident(mut e: &Expr) -> usize {
    let mut n = 0;
    loop {
        match &e.kind {
            ExprKind::Select(s) if !s.test_only => {
                n += 1;
                e = &s.operand;
            }
            ExprKind::Ident(_) => return n,
            _ => return 0,
        }
    }
}

fn chain_root(e: &Expr) -> &Expr {
    match &e.kind {
        ExprKind::Select(s) => chain_root(&s.operand),
        _ => e,
    }
}

/// `a.b.c` as `["a", "b", "c"]` when the expression is only identifiers and selects.
fn ident_chain(e: &Expr) -> Option<Vec<&str>> {
    // Walk down to the root once to size the vector, then fill it.
    let mut depth = 1;
    let mut at = e;
    while let ExprKind::Select(s) = &at.kind {
        if s.test_only || s.optional {
            return None;
        }
        depth += 1;
        at = &s.operand;
    }
    let ExprKind::Ident(root) = &at.kind else {
        return None;
    };
    let mut segs = vec![root.as_str(); depth];
    let mut at = e;
    for slot in segs.iter_mut().skip(1).rev() {
        let ExprKind::Select(s) = &at.kind else {
            return None;
        };
        *slot = s.field.as_str();
        at = &s.operand;
    }
    Some(segs)
}

fn qual_kind(key: Node) -> QualKind {
    match key {
        Node::Const(v) => QualKind::Const(v),
        other => QualKind::Dyn(other),
    }
}

/// Adds a qualifier to an attribute (a conditional attribute passes it to both
/// branches), or makes the operand a relative attribute.
pub(crate) fn add_qualifier(operand: Node, q: Qual) -> Node {
    match operand {
        Node::Attr(mut a) => {
            a.quals.push(q);
            Node::Attr(a)
        }
        Node::Local(s) => Node::Attr(Box::new(Attr {
            id: q.id,
            base: Base::Slot(s),
            quals: smallvec::smallvec![q],
        })),
        Node::CondAttr(mut c) => {
            let q2 = clone_qual(&q);
            let truthy = std::mem::replace(&mut c.truthy, Node::Const(Value::Null));
            let falsy = std::mem::replace(&mut c.falsy, Node::Const(Value::Null));
            match q2 {
                Some(q2) => {
                    c.truthy = add_qualifier(truthy, q);
                    c.falsy = add_qualifier(falsy, q2);
                    Node::CondAttr(c)
                }
                None => {
                    // A dynamic qualifier cannot be duplicated: qualify the
                    // conditional's value instead.
                    c.truthy = truthy;
                    c.falsy = falsy;
                    let id = c.id;
                    Node::Attr(Box::new(Attr {
                        id,
                        base: Base::Rel(Node::CondAttr(c)),
                        quals: smallvec::smallvec![q],
                    }))
                }
            }
        }
        other => Node::Attr(Box::new(Attr {
            id: q.id,
            base: Base::Rel(other),
            quals: smallvec::smallvec![q],
        })),
    }
}

fn clone_qual(q: &Qual) -> Option<Qual> {
    let kind = match &q.kind {
        QualKind::Field(f) => QualKind::Field(f.clone()),
        QualKind::Const(v) => QualKind::Const(v.clone()),
        QualKind::Dyn(_) => return None,
    };
    Some(Qual {
        id: q.id,
        kind,
        optional: q.optional,
    })
}

pub(crate) fn literal(l: &Literal) -> Value {
    match l {
        Literal::Null => Value::Null,
        Literal::Bool(b) => Value::Bool(*b),
        Literal::Int(i) => Value::Int(*i),
        Literal::Uint(u) => Value::Uint(*u),
        Literal::Double(d) => Value::Double(*d),
        Literal::String(s) => Value::String(s.clone()),
        Literal::Bytes(b) => Value::Bytes(b.clone()),
    }
}

/// A map key from a value, with cel-go's error for other types.
pub(crate) fn map_key(v: &Value) -> Result<Key, EvalError> {
    match v {
        Value::Bool(_) | Value::Int(_) | Value::Uint(_) | Value::String(_) => KeyRef::from_value(v)
            .map(|k| k.to_owned_key())
            .ok_or_else(|| EvalError::msg("unsupported key type")),
        _ => Err(EvalError::msg(format!(
            "unsupported key type: {}",
            v.type_name()
        ))),
    }
}

/// The elements of a constant list as a set, when all are bool, int, uint or string.
fn constant_set(v: &Value) -> Option<indexmap::IndexSet<Key>> {
    let Value::List(l) = v else { return None };
    let mut set = indexmap::IndexSet::with_capacity(l.len());
    for e in l.iter() {
        match e {
            Value::Bool(_) | Value::Int(_) | Value::Uint(_) | Value::String(_) => {
                set.insert(KeyRef::from_value(&e)?.to_owned_key());
            }
            _ => return None,
        }
    }
    Some(set)
}
