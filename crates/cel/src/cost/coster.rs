//! The walk over a checked expression (cel-go's `checker.coster`): the cost of
//! every node, the sizes of the values nodes produce, the sizes of list and
//! map entries, and the field paths the host's size estimator is asked about.

use std::collections::HashMap;
use std::sync::Arc;

use super::builtins;
use super::estimate::{CostEstimate, SizeEstimate};
use super::hooks::{AstNode, CallEstimate, Hooks};
use super::path::GoPath;
use super::{EstimateError, EstimateOptions, MAX_NESTING_DEPTH};
use crate::checker::CheckedAst;
use crate::env::Env;
use crate::syntax::{Call, Comprehension, Expr, ExprId, ExprKind, Literal};
use crate::types::Type;

/// cel-go's accumulator names (`@result`, and `__result__` of older macros):
/// paths rooted at them are not shown to call estimators.
const ACCUMULATOR_NAMES: [&str; 2] = ["@result", "__result__"];

static DYN: Type = Type::Dyn;

/// cel-go's `selectAndIdentCost`.
const SELECT_AND_IDENT_COST: CostEstimate = CostEstimate::fixed(1);
/// cel-go's `common.ListCreateBaseCost`, `MapCreateBaseCost`, `StructCreateBaseCost`.
const LIST_CREATE_COST: CostEstimate = CostEstimate::fixed(10);
const MAP_CREATE_COST: CostEstimate = CostEstimate::fixed(30);
const STRUCT_CREATE_COST: CostEstimate = CostEstimate::fixed(40);

/// The sizes of a container's keys (list: indices) and values.
#[derive(Clone, Copy, Debug)]
pub(super) struct EntrySize {
    /// The container is a list (else a map).
    pub(super) list: bool,
    pub(super) key: SizeEstimate,
    pub(super) val: SizeEstimate,
}

impl EntrySize {
    /// Both ranges widened; `None` unless both sides are known. The container
    /// kind is the first one's.
    pub(super) fn union(a: Option<EntrySize>, b: Option<EntrySize>) -> Option<EntrySize> {
        let (a, b) = (a?, b?);
        Some(EntrySize {
            list: a.list,
            key: a.key.union(b.key),
            val: a.val.union(b.val),
        })
    }
}

/// A variable bound by a comprehension (iteration variables, accumulator, or
/// the variable of a bind-shaped comprehension).
struct LocalVar {
    path: GoPath,
    size: Option<SizeEstimate>,
    entry_size: Option<EntrySize>,
}

/// What cel-go's `newAstNode` captures of a receiver or argument: its path
/// (a slice header, read when the hooks are called) and its computed size.
struct NodeInfo {
    path: GoPath,
    size: Option<SizeEstimate>,
}

pub(super) struct Coster<'a> {
    checked: &'a CheckedAst,
    env: &'a Env,
    options: &'a EstimateOptions,
    hooks: Hooks<'a>,
    expr_paths: HashMap<ExprId, GoPath>,
    local_vars: HashMap<&'a str, Vec<LocalVar>>,
    computed_sizes: HashMap<ExprId, SizeEstimate>,
    computed_entry_sizes: HashMap<ExprId, EntrySize>,
    depth: usize,
}

impl<'a> Coster<'a> {
    pub(super) fn new(
        checked: &'a CheckedAst,
        env: &'a Env,
        options: &'a EstimateOptions,
        hooks: Hooks<'a>,
    ) -> Self {
        Coster {
            checked,
            env,
            options,
            hooks,
            expr_paths: HashMap::new(),
            local_vars: HashMap::new(),
            computed_sizes: HashMap::new(),
            computed_entry_sizes: HashMap::new(),
            depth: 0,
        }
    }

    pub(super) fn options(&self) -> &EstimateOptions {
        self.options
    }

    /// The cost of `e` and everything below it.
    pub(super) fn cost(&mut self, e: &'a Expr) -> Result<CostEstimate, EstimateError> {
        self.depth += 1;
        if self.depth > MAX_NESTING_DEPTH {
            return Err(EstimateError::NestingTooDeep {
                expr_id: e.id,
                limit: MAX_NESTING_DEPTH,
            });
        }
        let cost = match &e.kind {
            ExprKind::Literal(_) => CostEstimate::fixed(0),
            ExprKind::Ident(name) => self.cost_ident(e, name),
            ExprKind::Select(_) => self.cost_select(e)?,
            ExprKind::Call(call) => self.cost_call(e, call)?,
            ExprKind::List(_) => self.cost_list(e)?,
            ExprKind::Map(_) => self.cost_map(e)?,
            ExprKind::Struct(s) => {
                let mut sum = CostEstimate::default();
                for field in &s.fields {
                    sum = sum.saturating_add(self.cost(&field.value)?);
                }
                sum.saturating_add(STRUCT_CREATE_COST)
            }
            ExprKind::Comprehension(c) => {
                if is_bind(c) {
                    self.cost_bind(e, c)?
                } else {
                    self.cost_comprehension(e, c)?
                }
            }
        };
        self.depth -= 1;
        Ok(cost)
    }

    // Each node kind has its own function, kept out of `cost` so that the
    // frames on the stack during recursion stay small.

    #[inline(never)]
    fn cost_select(&mut self, e: &'a Expr) -> Result<CostEstimate, EstimateError> {
        let ExprKind::Select(sel) = &e.kind else {
            return Ok(CostEstimate::default());
        };
        if sel.test_only {
            let presence = CostEstimate::fixed(self.options.presence_test_cost);
            Ok(presence.saturating_add(self.cost(&sel.operand)?))
        } else {
            let mut sum = self.cost(&sel.operand)?;
            if select_has_cost(self.ty(&sel.operand)) {
                sum = sum.saturating_add(SELECT_AND_IDENT_COST);
            }
            let path = self.get_path(&sel.operand).append(&sel.field);
            self.expr_paths.insert(e.id, path);
            Ok(sum)
        }
    }

    #[inline(never)]
    fn cost_list(&mut self, e: &'a Expr) -> Result<CostEstimate, EstimateError> {
        let ExprKind::List(list) = &e.kind else {
            return Ok(CostEstimate::default());
        };
        let mut sum = CostEstimate::default();
        let mut item = SizeEstimate::new(u64::MAX, 0);
        if list.elements.is_empty() {
            item.min = 0;
        }
        for el in &list.elements {
            sum = sum.saturating_add(self.cost(el)?);
            item = item.union(self.size_or_unknown(el));
        }
        self.set_entry_size(
            e,
            Some(EntrySize {
                list: true,
                key: SizeEstimate::fixed(1),
                val: item,
            }),
        );
        Ok(sum.saturating_add(LIST_CREATE_COST))
    }

    #[inline(never)]
    fn cost_map(&mut self, e: &'a Expr) -> Result<CostEstimate, EstimateError> {
        let ExprKind::Map(entries) = &e.kind else {
            return Ok(CostEstimate::default());
        };
        let mut sum = CostEstimate::default();
        let mut key = SizeEstimate::new(u64::MAX, 0);
        let mut val = SizeEstimate::new(u64::MAX, 0);
        if entries.is_empty() {
            key.min = 0;
            val.min = 0;
        }
        for entry in entries {
            sum = sum.saturating_add(self.cost(&entry.key)?);
            sum = sum.saturating_add(self.cost(&entry.value)?);
            key = key.union(self.size_or_unknown(&entry.key));
            val = val.union(self.size_or_unknown(&entry.value));
        }
        self.set_entry_size(
            e,
            Some(EntrySize {
                list: false,
                key,
                val,
            }),
        );
        Ok(sum.saturating_add(MAP_CREATE_COST))
    }

    fn cost_ident(&mut self, e: &'a Expr, name: &str) -> CostEstimate {
        let path = match self.peek(name) {
            Some(v) => v.path.clone(),
            None => GoPath::single(name),
        };
        self.expr_paths.insert(e.id, path);
        SELECT_AND_IDENT_COST
    }

    #[inline(never)]
    fn cost_call(&mut self, e: &'a Expr, call: &'a Call) -> Result<CostEstimate, EstimateError> {
        // `dyn(x)` only disables type checking: 1 plus the argument, sizes kept.
        if call.function == "dyn"
            && let Some(arg) = call.args.first()
        {
            let arg_cost = self.cost(arg)?;
            self.copy_size_estimates(e, arg);
            return Ok(CostEstimate::fixed(1).saturating_add(arg_cost));
        }

        let mut arg_costs = Vec::with_capacity(call.args.len());
        let mut arg_infos = Vec::with_capacity(call.args.len());
        for arg in &call.args {
            arg_costs.push(self.cost(arg)?);
            arg_infos.push(self.node_info(arg));
        }
        let checked = self.checked;
        let overload_ids = match checked.references.get(&e.id) {
            Some(r) if !r.overload_ids.is_empty() => &r.overload_ids,
            _ => return Ok(CostEstimate::default()),
        };
        let mut sum = CostEstimate::default();
        let mut target_info = None;
        if let Some(target) = &call.target {
            sum = sum.saturating_add(self.cost(target)?);
            target_info = Some(self.node_info(target));
        }

        self.finish_call(
            e,
            call,
            overload_ids,
            sum,
            &arg_costs,
            &arg_infos,
            target_info,
        )
    }

    /// The part of [`Self::cost_call`] after its operands were walked (kept
    /// apart so that its locals are not on the stack during recursion).
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn finish_call(
        &mut self,
        e: &'a Expr,
        call: &'a Call,
        overload_ids: &'a [Arc<str>],
        sum: CostEstimate,
        arg_costs: &[CostEstimate],
        arg_infos: &[NodeInfo],
        target_info: Option<NodeInfo>,
    ) -> Result<CostEstimate, EstimateError> {
        // The hooks read the paths now, after the whole call was walked, as
        // cel-go's do (see `path`).
        let arg_paths: Vec<Vec<String>> = arg_infos.iter().map(|i| i.path.to_vec()).collect();
        let target_path = target_info.as_ref().map(|i| i.path.to_vec());
        let arg_nodes: Vec<AstNode<'_>> = call
            .args
            .iter()
            .zip(arg_infos)
            .zip(&arg_paths)
            .map(|((arg, info), path)| AstNode {
                path,
                ty: self.ty(arg),
                expr: arg,
                computed_size: info.size,
            })
            .collect();
        let target_node = match (&call.target, &target_info, &target_path) {
            (Some(t), Some(info), Some(path)) => Some(AstNode {
                path,
                ty: self.ty(t),
                expr: t,
                computed_size: info.size,
            }),
            _ => None,
        };

        // A cost range covering every overload the call may use.
        let mut fn_cost = CostEstimate::new(u64::MAX, 0);
        let mut result_size: Option<SizeEstimate> = None;
        for overload_id in overload_ids {
            let est = self.function_cost(
                e,
                call,
                overload_id,
                target_node.as_ref(),
                &arg_nodes,
                arg_costs,
            );
            fn_cost = fn_cost.union(est.cost);
            if let Some(size) = est.result_size {
                result_size = Some(match result_size {
                    Some(prev) => prev.union(size),
                    None => size,
                });
            }
            let index_step = match &**overload_id {
                "index_list" => Some("@items"),
                "index_map" => Some("@values"),
                _ => None,
            };
            if let (Some(step), Some(container)) = (index_step, call.args.first()) {
                result_size = self.compute_entry_size(container).map(|s| s.val);
                let path = self.get_path(container).append(step);
                self.expr_paths.insert(e.id, path);
            }
            if result_size.is_none() {
                result_size = self.compute_size(e);
            }
        }
        self.set_size(e, result_size);
        Ok(sum.saturating_add(fn_cost))
    }

    /// The cost of one overload of a call, including its arguments but not
    /// its receiver: a library's estimator for the overload, else the host's,
    /// else cel-go's built-in estimate.
    fn function_cost(
        &mut self,
        e: &'a Expr,
        call: &'a Call,
        overload_id: &str,
        target: Option<&AstNode<'_>>,
        args: &[AstNode<'_>],
        arg_costs: &[CostEstimate],
    ) -> CallEstimate {
        let arg_sum = arg_costs
            .iter()
            .fold(CostEstimate::default(), |acc, c| acc.saturating_add(*c));
        if let Some(estimator) = self.env.overload_estimator(overload_id)
            && let Some(est) = estimator(self.hooks.size, target, args)
        {
            return CallEstimate {
                cost: est.cost.saturating_add(arg_sum),
                result_size: est.result_size,
            };
        }
        if let Some(est) =
            self.hooks
                .calls
                .estimate_call_cost(&call.function, overload_id, target, args)
        {
            return CallEstimate {
                cost: est.cost.saturating_add(arg_sum),
                result_size: est.result_size,
            };
        }
        builtins::estimate(self, e, overload_id, target, args, arg_costs, arg_sum)
    }

    #[inline(never)]
    fn cost_comprehension(
        &mut self,
        e: &'a Expr,
        c: &'a Comprehension,
    ) -> Result<CostEstimate, EstimateError> {
        let mut sum = self.cost(&c.iter_range)?;
        sum = sum.saturating_add(self.cost(&c.accu_init)?);
        self.push_local_var(&c.accu_var, &c.accu_init);

        match &c.iter_var2 {
            Some(var2) => {
                self.push_iter_var(&c.iter_var, &c.iter_range, IterRole::Key);
                self.push_iter_var(var2, &c.iter_range, IterRole::Value);
            }
            None => self.push_iter_var(&c.iter_var, &c.iter_range, IterRole::Single),
        }
        let loop_cost = self.cost(&c.loop_condition)?;
        let step_cost = self.cost(&c.loop_step)?;
        self.pop_local_var(&c.iter_var);
        if let Some(var2) = &c.iter_var2 {
            self.pop_local_var(var2);
        }

        sum = sum.saturating_add(self.cost(&c.result)?);
        self.pop_local_var(&c.accu_var);

        let range_count = self.size_or_unknown(&c.iter_range);
        sum = sum.saturating_add(range_count.multiply_by_cost(step_cost.saturating_add(loop_cost)));

        match &c.accu_init.kind {
            ExprKind::Literal(_) => {
                let size = self.compute_size(&c.accu_init);
                self.set_size(e, size);
            }
            ExprKind::List(_) | ExprKind::Map(_) => {
                self.set_size(e, Some(range_count));
                let step_entries = self.compute_entry_size(&c.loop_step);
                self.set_entry_size(e, step_entries);
            }
            _ => {}
        }
        Ok(sum)
    }

    /// `cel.bind`-shaped comprehensions (and ext.Lists' `sortBy`): evaluated
    /// once, the result sized like its result expression.
    #[inline(never)]
    fn cost_bind(
        &mut self,
        e: &'a Expr,
        c: &'a Comprehension,
    ) -> Result<CostEstimate, EstimateError> {
        let mut sum = self.cost(&c.iter_range)?;
        sum = sum.saturating_add(self.cost(&c.accu_init)?);
        self.push_local_var(&c.accu_var, &c.accu_init);
        sum = sum.saturating_add(self.cost(&c.result)?);
        self.pop_local_var(&c.accu_var);
        self.copy_size_estimates(e, &c.result);
        Ok(sum)
    }

    // --- variables --------------------------------------------------------

    fn peek(&self, name: &str) -> Option<&LocalVar> {
        self.local_vars.get(name).and_then(|s| s.last())
    }

    fn push(&mut self, name: &'a str, var: LocalVar) {
        self.local_vars.entry(name).or_default().push(var);
    }

    fn pop_local_var(&mut self, name: &str) {
        if let Some(stack) = self.local_vars.get_mut(name) {
            stack.pop();
        }
    }

    fn push_local_var(&mut self, name: &'a str, e: &'a Expr) {
        let path = self.get_path(e);
        let entry_size = self.compute_entry_size(e);
        let size = self.compute_size(e);
        self.push(
            name,
            LocalVar {
                path,
                size,
                entry_size,
            },
        );
    }

    fn push_iter_var(&mut self, name: &'a str, range: &'a Expr, role: IterRole) {
        let entries = self.compute_entry_size(range);
        let list = match entries {
            Some(s) => s.list,
            None => matches!(self.ty(range), Type::List(_)),
        };
        let (size, step) = match (role, list) {
            (IterRole::Key, true) => (entries.map(|s| s.key), "@indices"),
            (IterRole::Key, false) | (IterRole::Single, false) => (entries.map(|s| s.key), "@keys"),
            (IterRole::Value, true) | (IterRole::Single, true) => {
                (entries.map(|s| s.val), "@items")
            }
            (IterRole::Value, false) => (entries.map(|s| s.val), "@values"),
        };
        let path = self.get_path(range).append(step);
        self.push(
            name,
            LocalVar {
                path,
                size,
                entry_size: None,
            },
        );
    }

    // --- paths, types and sizes -------------------------------------------

    pub(super) fn ty(&self, e: &Expr) -> &'a Type {
        self.checked.types.get(&e.id).unwrap_or(&DYN)
    }

    fn get_path(&self, e: &Expr) -> GoPath {
        if let ExprKind::Ident(name) = &e.kind
            && let Some(v) = self.peek(name)
        {
            return v.path.clone();
        }
        self.expr_paths.get(&e.id).cloned().unwrap_or_default()
    }

    /// cel-go's `newAstNode`: the path (omitted when rooted at an accumulator)
    /// and the computed size.
    fn node_info(&mut self, e: &'a Expr) -> NodeInfo {
        let mut path = self.get_path(e);
        if path.first_is(|s| ACCUMULATOR_NAMES.contains(&s)) {
            path = GoPath::default();
        }
        let size = self.compute_size(e);
        NodeInfo { path, size }
    }

    pub(super) fn set_size(&mut self, e: &Expr, size: Option<SizeEstimate>) {
        if let Some(size) = size {
            self.computed_sizes.insert(e.id, size);
        }
    }

    pub(super) fn set_entry_size(&mut self, e: &Expr, size: Option<EntrySize>) {
        if let Some(size) = size {
            self.computed_entry_sizes.insert(e.id, size);
        }
    }

    fn copy_size_estimates(&mut self, dst: &Expr, src: &'a Expr) {
        let size = self.compute_size(src);
        self.set_size(dst, size);
        let entries = self.compute_entry_size(src);
        self.set_entry_size(dst, entries);
    }

    /// The size of `e`: computed before, or told by the expression (literals,
    /// literal lists and maps), or answered by the host, or 1 for scalar
    /// types, or the size of the variable `e` names.
    pub(super) fn compute_size(&mut self, e: &'a Expr) -> Option<SizeEstimate> {
        if let Some(size) = self.computed_sizes.get(&e.id) {
            return Some(*size);
        }
        if let Some(size) = expr_size(e) {
            return Some(size);
        }
        let path = self.get_path(e).to_vec();
        let node = AstNode {
            path: &path,
            ty: self.ty(e),
            expr: e,
            computed_size: None,
        };
        if let Some(size) = self.hooks.size.estimate_size(&node) {
            self.computed_sizes.insert(e.id, size);
            return Some(size);
        }
        if is_scalar(self.ty(e)) {
            return Some(SizeEstimate::fixed(1));
        }
        if let ExprKind::Ident(name) = &e.kind
            && let Some(v) = self.peek(name)
        {
            return v.size;
        }
        None
    }

    pub(super) fn compute_entry_size(&self, e: &Expr) -> Option<EntrySize> {
        if let Some(size) = self.computed_entry_sizes.get(&e.id) {
            return Some(*size);
        }
        if let ExprKind::Ident(name) = &e.kind
            && let Some(v) = self.peek(name)
        {
            return v.entry_size;
        }
        None
    }

    fn size_or_unknown(&mut self, e: &'a Expr) -> SizeEstimate {
        self.compute_size(e).unwrap_or(SizeEstimate::UNKNOWN)
    }
}

/// Which comprehension variable is being bound.
#[derive(Clone, Copy)]
enum IterRole {
    /// The only variable: list element or map key.
    Single,
    /// The first of two: list index or map key.
    Key,
    /// The second of two: list element or map value.
    Value,
}

/// A comprehension cel-go treats as a local binding: empty literal range,
/// loop condition `false`, and an accumulator that is not the macros' one.
fn is_bind(c: &Comprehension) -> bool {
    matches!(&c.iter_range.kind, ExprKind::List(l) if l.elements.is_empty())
        && matches!(
            c.loop_condition.kind,
            ExprKind::Literal(Literal::Bool(false))
        )
        && !ACCUMULATOR_NAMES.contains(&c.accu_var.as_str())
}

/// Selecting a field costs 1 on maps, objects and type parameters, 0 on
/// anything else (`dyn` included).
fn select_has_cost(t: &Type) -> bool {
    matches!(t, Type::Map(..) | Type::Object(_) | Type::TypeParam(_))
}

/// cel-go's `isScalar`: types whose values have size 1. Wrappers have their
/// primitive's kind in cel-go.
fn is_scalar(t: &Type) -> bool {
    match t {
        Type::Bool | Type::Double | Type::Duration | Type::Int | Type::Timestamp | Type::Uint => {
            true
        }
        Type::Wrapper(p) => is_scalar(p),
        Type::Opaque(..) => t.optional_inner().is_some_and(is_scalar),
        _ => false,
    }
}

/// Sizes the expression itself tells: string literals (code points), bytes
/// literals (length), other literals 1, list and map literals (entries).
fn expr_size(e: &Expr) -> Option<SizeEstimate> {
    let n = match &e.kind {
        ExprKind::Literal(Literal::String(s)) => s.chars().count() as u64,
        ExprKind::Literal(Literal::Bytes(b)) => b.len() as u64,
        ExprKind::Literal(_) => 1,
        ExprKind::List(l) => l.elements.len() as u64,
        ExprKind::Map(m) => m.len() as u64,
        _ => return None,
    };
    Some(SizeEstimate::fixed(n))
}
