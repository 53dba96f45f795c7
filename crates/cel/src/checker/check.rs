//! The checking walk: types every node, resolves names and overloads, and
//! reports cel-go's errors. It rewrites the tree as cel-go does: identifiers and
//! selections that name a declaration become fully qualified identifiers,
//! namespaced calls (`base64.encode(x)`) become global calls, and message
//! constructions get their fully qualified type name.

use std::borrow::Cow;

use crate::diagnostics::Issues;
use std::sync::Arc;

use crate::env::Env;
use crate::env::{Candidate, DeclaredFunction, OverloadIds};
use crate::syntax::{
    Ast, Comprehension, Expr, ExprId, ExprKind, Literal, Name, Source, SourceInfo,
};
use crate::types::Type;
use crate::value::Value;

use super::format::{CheckedType, declared_type_name, format_call_signature};
use super::names::{
    IdentDecl, Types, builtin_type_ident, qualified_name, resolve_candidates, same_text,
    well_known_message_name, write_qualified_name,
};
use super::unify::{
    Mapping, has_type_param, instantiate_with, is_dyn, is_dyn_or_error, kinds_differ, most_general,
};
use super::{CheckedAst, NodeRefs, NodeTypes, Reference};

/// Checks `ast` in `env`.
pub(crate) fn check(env: &Env, ast: &Ast) -> Result<CheckedAst, Issues> {
    check_owned(env, ast.clone())
}

/// Checks `ast` in `env`, reusing the tree (no copy).
pub(crate) fn check_owned(env: &Env, mut ast: Ast) -> Result<CheckedAst, Issues> {
    let nodes = usize::try_from(ast.next_id)
        .unwrap_or(0)
        .max(ast.source_info.offsets.len());
    let mut checker = Checker::new(env, &ast.source, &ast.source_info, nodes);
    checker.check(&mut ast.expr);
    let (types, references, issues) = checker.finish();
    if let Some(issues) = issues {
        return Err(issues);
    }
    // cel-go's `Env.Check`: once the expression type-checks, the environment's AST validators
    // run in the order added, all reporting into one set of issues (displayed by position).
    // The homogeneous aggregate literal validator comes first: Kubernetes sets
    // `HomogeneousAggregateLiterals` with its first environment options, and `ASTValidators`
    // skips a validator already configured by name.
    let options = env.options();
    let validators = env.ast_validators();
    if !options.homogeneous_aggregate_literals && validators.is_empty() {
        return Ok(CheckedAst {
            ast,
            types,
            references,
        });
    }
    let checked = CheckedAst {
        ast,
        types,
        references,
    };
    {
        let mut issues = Issues::new(checked.ast.source.clone());
        if options.homogeneous_aggregate_literals {
            super::homogeneous::validate(
                &checked.ast.expr,
                &checked.types,
                &options.homogeneous_literal_exempt_functions,
                &checked.ast.source_info,
                &mut issues,
            );
        }
        for v in validators {
            v.validate(env, &checked, &mut issues);
        }
        if !issues.is_empty() {
            return Err(issues);
        }
    }
    Ok(checked)
}

/// Deepest expression nesting the walk accepts: three times the parser's limit,
/// and within a 2 MiB stack in debug builds.
const MAX_DEPTH: usize = 750;

/// The free type variable `_var<n>`; the first names are built once per process.
fn type_var(n: usize) -> Type {
    static NAMES: std::sync::OnceLock<Vec<Type>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| (0..256).map(|i| Type::param(&format!("_var{i}"))).collect());
    match names.get(n) {
        Some(t) => t.clone(),
        None => Type::param(&format!("_var{n}")),
    }
}

/// State of one check.
pub(crate) struct Checker<'a> {
    env: &'a Env,
    /// The expression's text, which the issues are about.
    source: &'a Arc<Source>,
    container: &'a str,
    types_provider: Types<'a>,
    source_info: &'a SourceInfo,
    optional_syntax: bool,
    pub(crate) mapping: Mapping,
    /// Node types, by id.
    pub(crate) types: NodeTypes,
    pub(crate) references: NodeRefs,
    /// Comprehension variables in scope, innermost last.
    locals: Vec<(Name, Type)>,
    fresh_vars: usize,
    /// A buffer for the dotted names selections are looked up by.
    name_buf: String,
    /// The last name resolved outside comprehension scopes, and what it
    /// resolved to (an entry of the environment's `IdentMemo`): expressions
    /// name the same variable again and again (`self.a < self.b`).
    last_global: Option<&'a (Name, IdentDecl)>,
    /// The position of the reference recorded for `last_global`'s
    /// resolution, which the nodes naming it again share, and whether the
    /// resolution renames the identifier (its name is not the one spelled).
    last_global_ref: Option<(u32, bool)>,
    /// The position of the last call reference recorded, which a call
    /// resolved to the same overload ids (the same shared slice) shares.
    last_call_ref: Option<u32>,
    /// The issues reported, once there is one.
    pub(crate) issues: Option<Issues>,
    depth: usize,
}

impl<'a> Checker<'a> {
    pub(crate) fn new(
        env: &'a Env,
        source: &'a Arc<Source>,
        source_info: &'a SourceInfo,
        nodes: usize,
    ) -> Self {
        let options = env.options();
        let (types, references) = super::SpareTables::tables(nodes);
        Checker {
            env,
            source,
            container: &options.container,
            types_provider: Types {
                provider: env.type_provider(),
            },
            source_info,
            optional_syntax: options.parser.enable_optional_syntax,
            mapping: Mapping::default(),
            types,
            references,
            locals: Vec::new(),
            fresh_vars: 0,
            name_buf: String::new(),
            last_global: None,
            last_global_ref: None,
            last_call_ref: None,
            issues: None,
            depth: 0,
        }
    }

    // ----- bookkeeping -------------------------------------------------------

    #[inline(always)]
    fn set_type(&mut self, id: ExprId, t: Type) {
        let Ok(i) = usize::try_from(id) else { return };
        if i >= self.types.dense_len() && !self.grow_types(i) {
            return;
        }
        self.types.dense_set(i, t);
    }

    /// Makes room in `types` for node `i` (an id beyond the node count,
    /// which only hand-built trees have); false for an id too far beyond.
    #[inline(never)]
    fn grow_types(&mut self, i: usize) -> bool {
        if i > self.types.dense_len().saturating_mul(2).max(1 << 16) {
            return false;
        }
        self.types.grow_dense(i);
        true
    }

    /// The type recorded for node `id`, borrowed.
    /// [`Checker::set_type`] of a type borrowed: a leaf type is recorded
    /// by its code, without a copy.
    #[inline(always)]
    fn set_type_of(&mut self, id: ExprId, t: &Type) {
        let Ok(i) = usize::try_from(id) else { return };
        if i >= self.types.dense_len() && !self.grow_types(i) {
            return;
        }
        self.types.dense_set_ref(i, t);
    }

    fn type_ref(&self, id: ExprId) -> Option<&Type> {
        self.types.dense_get(usize::try_from(id).ok()?)
    }

    fn get_type(&self, id: ExprId) -> Type {
        self.type_ref(id).cloned().unwrap_or(Type::Error)
    }

    fn set_ident_ref(&mut self, id: ExprId, name: Name, value: Option<Value>) {
        self.references.insert(id, Reference::named(name, value));
    }

    /// Records that call `id` may use `overload_ids`: the previous call's
    /// reference, when it has the same ids (`_<=_` twice in `a <= b && b <=
    /// c`), else a new one.
    #[inline]
    fn set_call_ref(&mut self, id: ExprId, overload_ids: &OverloadIds) {
        if let Some(at) = self.last_call_ref
            && self
                .references
                .at(at)
                .is_some_and(|r| Arc::ptr_eq(&r.overload_ids, overload_ids))
        {
            self.references.insert_shared(id, at);
            return;
        }
        let at = self.references.push(Reference {
            name: Name::const_new(""),
            overload_ids: overload_ids.clone(),
            value: None,
        });
        self.references.insert_shared(id, at);
        self.last_call_ref = Some(at);
    }

    /// Records identifier `id`, spelled `name`, as resolved to the global
    /// declaration of `entry` (an entry of the environment's `IdentMemo`),
    /// which becomes `last_global`.
    fn record_global(&mut self, id: ExprId, name: &mut Name, entry: &'a (Name, IdentDecl)) {
        if !self
            .last_global
            .is_some_and(|last| std::ptr::eq(last, entry))
        {
            self.last_global = Some(entry);
            self.last_global_ref = None;
        }
        let decl = &entry.1;
        // `name` is spelled as the entry's name: whether the resolution
        // renames it is the entry's.
        let (at, renames) = match self.last_global_ref {
            Some(recorded) => recorded,
            None => {
                let at = self
                    .references
                    .push(Reference::named(decl.name.clone(), decl.value.clone()));
                let recorded = (at, !same_text(name, &decl.name));
                self.last_global_ref = Some(recorded);
                recorded
            }
        };
        if renames {
            *name = decl.name.clone();
        }
        self.set_type_of(id, &decl.ty);
        self.references.insert_shared(id, at);
    }

    fn error(&mut self, id: ExprId, message: String) {
        let offset = self.source_info.offset(id);
        let source = self.source;
        self.issues
            .get_or_insert_with(|| Issues::new(source.clone()))
            .push(offset, id, message);
    }

    fn type_mismatch(&mut self, id: ExprId, expected: &Type, actual: &Type) {
        let msg = format!(
            "expected type '{}' but found '{}'",
            CheckedType(expected),
            CheckedType(actual)
        );
        self.error(id, msg);
    }

    fn undeclared(&mut self, id: ExprId, name: &str) {
        let msg = format!(
            "undeclared reference to '{name}' (in container '{}')",
            self.container
        );
        self.error(id, msg);
    }

    fn new_type_var(&mut self) -> Type {
        let n = self.fresh_vars;
        self.fresh_vars += 1;
        type_var(n)
    }

    // ----- declarations ------------------------------------------------------

    /// cel-go's `Env.LookupIdent`: comprehension variables first (they shadow
    /// every container-qualified name; a leading dot reaches past them), then
    /// for each candidate name declared variables, built-in type names, type
    /// names declared by libraries, object types from the provider, enum
    /// constants.
    fn lookup_ident(&mut self, name: &str) -> Option<IdentDecl> {
        let env = self.env;
        let locals = &self.locals;
        let types = self.types_provider;
        let optional_syntax = self.optional_syntax;
        if !name.starts_with('.') {
            // A byte loop: names are short, shorter than `memchr` pays off for.
            let first = name
                .bytes()
                .position(|b| b == b'.')
                .map_or(name, |dot| &name[..dot]);
            if let Some((n, t)) = locals.iter().rev().find(|(n, _)| same_text(n, first)) {
                // `y.z` with a local `y` is a field selection on `y`, never a
                // qualified name.
                return same_text(n, name).then(|| IdentDecl {
                    name: n.clone(),
                    ty: t.clone(),
                    value: None,
                });
            }
        }
        if let Some((n, decl)) = self.last_global
            && same_text(n, name)
        {
            return Some(decl.clone());
        }
        if !memo_enabled() {
            return found_global(self.container, name, env, types, optional_syntax);
        }
        if let Some(entry) = env.ident_memo().find(name) {
            self.last_global = Some(entry);
            self.last_global_ref = None;
            return Some(entry.1.clone());
        }
        let found = found_global(self.container, name, env, types, optional_syntax);
        if let Some(decl) = &found
            && let Some(entry) = env.ident_memo().insert(name, decl.clone())
        {
            self.last_global = Some(entry);
            self.last_global_ref = None;
        }
        found
    }

    /// cel-go's `Env.LookupFunction`, through the environment's
    /// `FunctionMemo`.
    fn lookup_function(&self, name: &str) -> Option<&'a DeclaredFunction> {
        let env = self.env;
        if !memo_enabled() {
            return resolve_candidates(self.container, name, |cand| env.declared_function(cand))
                .map(|f| &**f);
        }
        let memo = env.function_memo();
        if let Some(f) = memo.find(name) {
            return Some(f);
        }
        let f = resolve_candidates(self.container, name, |cand| env.declared_function(cand))?;
        memo.insert(name, f);
        Some(f)
    }

    // ----- the walk ----------------------------------------------------------

    pub(crate) fn check(&mut self, e: &mut Expr) {
        if self.depth >= MAX_DEPTH {
            self.error(
                e.id,
                "expression nesting exceeds the checker's limit".to_string(),
            );
            self.set_type(e.id, Type::Error);
            return;
        }
        self.depth += 1;
        match &e.kind {
            ExprKind::Literal(lit) => {
                let t = match lit {
                    Literal::Null => Type::Null,
                    Literal::Bool(_) => Type::Bool,
                    Literal::Int(_) => Type::Int,
                    Literal::Uint(_) => Type::Uint,
                    Literal::Double(_) => Type::Double,
                    Literal::String(_) => Type::String,
                    Literal::Bytes(_) => Type::Bytes,
                };
                self.set_type(e.id, t);
            }
            ExprKind::Ident(_) => self.check_ident(e),
            ExprKind::Select(_) => self.check_select(e),
            ExprKind::Call(_) => self.check_call(e),
            ExprKind::List(_) => self.check_list(e),
            ExprKind::Map(_) => self.check_map(e),
            ExprKind::Struct(_) => self.check_struct(e),
            ExprKind::Comprehension(_) => self.check_comprehension(e),
        }
        self.depth -= 1;
    }

    fn check_ident(&mut self, e: &mut Expr) {
        let ExprKind::Ident(name) = &mut e.kind else {
            return;
        };
        // A comprehension variable (`x` of `l.exists(x, x > 0)`): the
        // innermost of its name shadows every other declaration (as in
        // `lookup_ident`, for a name without a dot).
        if !self.locals.is_empty()
            && !name.starts_with('.')
            && let Some((n, t)) = self.locals.iter().rev().find(|(n, _)| same_text(n, name))
            && !name.as_bytes().contains(&b'.')
        {
            let (n, t) = (n.clone(), t.clone());
            self.set_type(e.id, t);
            self.set_ident_ref(e.id, n, None);
            return;
        }
        // A global name resolved before (`self` of `self.a < self.b`), the
        // last one or one of the environment's `IdentMemo`, with no
        // comprehension variable in scope to shadow it: recorded from the
        // cached resolution in place.
        if self.locals.is_empty() {
            let entry = match self.last_global {
                Some(last) if same_text(&last.0, name) => Some(last),
                _ if memo_enabled() => self.env.ident_memo().find(name),
                _ => None,
            };
            if let Some(entry) = entry {
                self.record_global(e.id, name, entry);
                return;
            }
        }
        match self.lookup_ident(name) {
            Some(decl) => {
                // An absolute name that a comprehension variable would shadow
                // keeps its leading dot, so that the planner looks past the
                // local (`['x'].exists(y, .y == 'y')`).
                let shadowed =
                    name.starts_with('.') && self.locals.iter().any(|(n, _)| **n == *decl.name);
                if shadowed {
                    *name = compact_str::format_compact!(".{}", decl.name);
                } else if !same_text(name, &decl.name) {
                    *name = decl.name.clone();
                }
                self.set_type(e.id, decl.ty);
                self.set_ident_ref(e.id, decl.name, decl.value);
            }
            None => {
                let name = name.clone();
                self.set_type(e.id, Type::Error);
                self.undeclared(e.id, &name);
            }
        }
    }

    fn check_select(&mut self, e: &mut Expr) {
        let id = e.id;
        let ExprKind::Select(sel) = &mut e.kind else {
            return;
        };
        // Most selections are field selections whose dotted name no
        // declaration could have (`self.spec`: nothing is declared under
        // `self.`); the others build their candidate name in a buffer kept
        // across selections.
        let may_name = !sel.test_only
            && !sel.optional
            && (!self.container.is_empty()
                || chain_root(&sel.operand).is_some_and(|r| self.env.may_declare_under(r)));
        if may_name {
            let mut qname = std::mem::take(&mut self.name_buf);
            let found = if write_qualified_name_of_select(sel, &mut qname) {
                self.lookup_ident(&qname)
            } else {
                None
            };
            self.name_buf = qname;
            if let Some(decl) = found {
                self.set_type(id, decl.ty);
                self.set_ident_ref(id, decl.name.clone(), decl.value);
                e.kind = ExprKind::Ident(decl.name);
                return;
            }
        }
        let optional = sel.optional;
        let test_only = sel.test_only;
        let mut result = self.check_select_field(id, &mut sel.operand, &sel.field, optional);
        if test_only {
            result = Type::Bool;
        }
        if optional {
            self.set_call_ref(id, &select_optional_field());
        }
        let t = match result {
            Type::Dyn | Type::Bool => result,
            other => self.mapping.substitute(&other, false),
        };
        self.set_type(id, t);
    }

    /// The type of `operand.field` (cel-go's `checkSelectField`).
    #[inline(always)]
    fn check_select_field(
        &mut self,
        id: ExprId,
        operand: &mut Expr,
        field: &str,
        optional: bool,
    ) -> Type {
        self.check(operand);
        // `dyn.field` is `dyn` (a selection on an untyped variable, the
        // common case): nothing to substitute, unwrap or look up.
        if !optional && matches!(self.type_ref(operand.id), Some(Type::Dyn)) {
            return Type::Dyn;
        }
        let operand_type = self.mapping.substitute(&self.get_type(operand.id), false);
        let (target, was_optional) = match operand_type.optional_inner() {
            Some(inner) => (inner.clone(), true),
            None => (operand_type, false),
        };
        let result = match &target {
            Type::Map(_, v) => (**v).clone(),
            Type::Object(name) => self
                .lookup_field_type(id, name, field)
                .unwrap_or(Type::Error),
            Type::TypeParam(_) => {
                self.mapping.is_assignable(&Type::Dyn, &target);
                Type::Dyn
            }
            other => {
                if !is_dyn_or_error(other) {
                    let msg = format!(
                        "type '{}' does not support field selection",
                        CheckedType(other)
                    );
                    self.error(id, msg);
                }
                Type::Dyn
            }
        };
        if was_optional || optional {
            Type::optional(result)
        } else {
            result
        }
    }

    fn lookup_field_type(&mut self, id: ExprId, type_name: &str, field: &str) -> Option<Type> {
        if self.types_provider.find_type(type_name).is_none() {
            self.error(id, format!("unexpected failed resolution of '{type_name}'"));
            return None;
        }
        let t = self.types_provider.field_type(type_name, field);
        if t.is_none() {
            self.error(id, format!("undefined field '{field}'"));
        }
        t
    }

    fn check_call(&mut self, e: &mut Expr) {
        let id = e.id;
        let ExprKind::Call(call) = &mut e.kind else {
            return;
        };
        if call.function.as_str() == "_?._" {
            self.check_optional_select(e);
            return;
        }
        for arg in call.args.iter_mut() {
            self.check(arg);
        }
        if call.target.is_none() {
            match self.lookup_function(&call.function) {
                Some(f) => {
                    if !same_text(&call.function, &f.function.name) {
                        call.function = f.function.name.as_str().into();
                    }
                    self.resolve_overload(id, f, None, &call.args);
                }
                None => {
                    let name = call.function.clone();
                    self.set_type(id, Type::Error);
                    self.undeclared(id, &name);
                }
            }
            return;
        }
        // `a.b.f(x)` may be the namespaced function `a.b.f` (when a function
        // is declared under `a`, or a container qualifies names).
        let may_be_namespaced =
            call.target.as_ref().and_then(chain_root).is_some_and(|r| {
                !self.container.is_empty() || self.env.may_declare_function_under(r)
            });
        if may_be_namespaced && let Some(prefix) = call.target.as_ref().and_then(qualified_name) {
            let qualified = format!("{prefix}.{}", call.function);
            if let Some(f) = self.lookup_function(&qualified) {
                call.function = f.function.name.as_str().into();
                call.target = None;
                self.resolve_overload(id, f, None, &call.args);
                return;
            }
        }
        let Some(target) = call.target.as_mut() else {
            return;
        };
        self.check(target);
        let target_id = target.id;
        match self.lookup_function(&call.function) {
            Some(f) => {
                self.resolve_overload(id, f, Some(target_id), &call.args);
            }
            None => {
                let name = call.function.clone();
                self.set_type(id, Type::Error);
                self.undeclared(id, &name);
            }
        }
    }

    /// `_?._(operand, "field")`, the optional selection `operand.?field`.
    fn check_optional_select(&mut self, e: &mut Expr) {
        let id = e.id;
        let ExprKind::Call(call) = &mut e.kind else {
            return;
        };
        if call.args.len() != 2 || call.target.is_some() {
            let member = if call.target.is_some() {
                " member call with"
            } else {
                ""
            };
            let msg = format!(
                "unsupported optional field selection: incorrect signature.{member} argument count: {}",
                call.args.len()
            );
            self.error(id, msg);
            self.set_type(id, Type::Error);
            return;
        }
        let [operand, field] = call.args.as_mut_slice() else {
            return;
        };
        let field_name = match &field.kind {
            ExprKind::Literal(Literal::String(s)) => s.clone(),
            _ => {
                let msg = "unsupported optional field selection".to_string();
                self.error(field.id, msg);
                self.set_type(id, Type::Error);
                return;
            }
        };
        let result = self.check_select_field(id, operand, &field_name, true);
        let t = self.mapping.substitute(&result, false);
        self.set_type(id, t);
        self.set_call_ref(id, &select_optional_field());
    }

    /// Picks the overloads of `f` the arguments may match (cel-go keeps every
    /// candidate), records them and the call's type, or reports the mismatch.
    fn resolve_overload(
        &mut self,
        call_id: ExprId,
        declared: &DeclaredFunction,
        target: Option<ExprId>,
        args: &[Expr],
    ) {
        let f = &declared.function;
        let is_member = target.is_some();
        let ids = target.into_iter().chain(args.iter().map(|a| a.id));
        if let Some(o) = declared.logical_first(is_member) {
            self.resolve_logical(call_id, o, args, ids);
            return;
        }
        let (candidates, fresh_after, dyn_resolution, memo) =
            declared.shape(is_member, usize::from(is_member) + args.len());
        // Arguments of type dyn (or error; a node without a type reads as
        // error) are assignable to every parameter that is not itself a type
        // parameter, binding nothing (`Mapping::assignable`): the resolution
        // the environment precomputed, decided on the recorded types without
        // copying them.
        if let Some(r) = dyn_resolution
            && ids
                .clone()
                .all(|id| self.type_ref(id).is_none_or(super::unify::is_dyn_or_error))
        {
            self.fresh_vars += r.fresh;
            self.set_type_of(call_id, &r.result);
            self.set_call_ref(call_id, &r.overload_ids);
            return;
        }
        // Arguments of concrete types (no type parameter) resolve as they did
        // the last time the environment saw the same types (`ResolutionMemo`,
        // which holds concrete types only: a match is concrete). A node
        // without a type reads as error, as below.
        let memo = memo.filter(|_| memo_enabled());
        if let Some(memo) = memo
            && let Some((t, overload_ids)) = memo.find(
                ids.clone()
                    .map(|id| self.type_ref(id).unwrap_or(&Type::Error)),
            )
        {
            self.fresh_vars += memo.fresh();
            self.set_type_of(call_id, t);
            self.set_call_ref(call_id, overload_ids);
            return;
        }
        // Whether the resolution below may be recorded.
        let memo = memo.filter(|_| {
            ids.clone()
                .all(|id| self.type_ref(id).is_some_and(|t| !has_type_param(t)))
        });
        let (mut small, mut big) = ([Type::Dyn, Type::Dyn, Type::Dyn], Vec::new());
        let arg_types = small_types(ids.map(|id| self.get_type(id)), &mut small, &mut big);
        let all_dyn = arg_types.iter().all(super::unify::is_dyn_or_error);
        let mut result: Option<Type> = None;
        // The one candidate matched so far; the ids once a second one matches.
        let mut single: Option<&Candidate> = None;
        let mut ids: Vec<Arc<str>> = Vec::new();
        let dyn_fits =
            |params: &[Type]| all_dyn && !params.iter().any(|p| matches!(p, Type::TypeParam(_)));
        for c in candidates {
            // The overloads of another argument count skipped before this one
            // drew fresh variables (see `DeclaredFunction`).
            self.fresh_vars += c.fresh_before;
            let o = &f.overloads[c.overload];
            if !all_dyn
                && arg_types
                    .iter()
                    .zip(&o.params)
                    .any(|(a, p)| kinds_differ(a, p))
            {
                // Cannot match (an argument of another kind: assignability
                // would fail without binding anything); cel-go still draws
                // fresh variables for it, which the numbering of later ones
                // (seen in messages) reflects.
                self.fresh_vars += o.type_params.len();
                continue;
            }
            let matched_result = if o.type_params.is_empty() {
                if dyn_fits(&o.params) || self.mapping.is_assignable_list(arg_types, &o.params) {
                    Some(self.mapping.substitute(&o.result, false))
                } else {
                    None
                }
            } else {
                let base = self.fresh_vars;
                self.fresh_vars += o.type_params.len();
                let fresh = |name: &str| {
                    o.type_params
                        .iter()
                        .position(|p| p == name)
                        .map(|i| type_var(base + i))
                };
                let (mut small, mut big) = ([Type::Dyn, Type::Dyn, Type::Dyn], Vec::new());
                let params = small_types(
                    o.params.iter().map(|p| instantiate_with(p, &fresh)),
                    &mut small,
                    &mut big,
                );
                if self.mapping.is_assignable_list(arg_types, params) {
                    let r = instantiate_with(&o.result, &fresh);
                    Some(self.mapping.substitute(&r, false))
                } else {
                    None
                }
            };
            if let Some(r) = matched_result {
                if single.is_none() && ids.is_empty() {
                    single = Some(c);
                } else {
                    if let Some(first) = single.take() {
                        ids.push(f.overloads[first.overload].id.clone());
                    }
                    ids.push(o.id.clone());
                }
                result = Some(match result {
                    None => r,
                    Some(prev) => {
                        if !is_dyn(&prev) && !super::unify::exact_eq(&r, &prev) {
                            Type::Dyn
                        } else {
                            prev
                        }
                    }
                });
            }
        }
        self.fresh_vars += fresh_after;
        match result {
            Some(t) => {
                let ids = match single {
                    Some(c) => c.overload_ids.clone(),
                    None => ids.into(),
                };
                if let Some(memo) = memo
                    && !has_type_param(&t)
                {
                    memo.insert(arg_types, &t, &ids);
                }
                self.set_type(call_id, t);
                self.set_call_ref(call_id, &ids);
            }
            None => {
                let shown: Vec<Type> = arg_types
                    .iter()
                    .map(|t| self.mapping.substitute(t, true))
                    .collect();
                let msg = format!(
                    "found no matching overload for '{}' applied to '{}'",
                    f.name,
                    format_call_signature(&shown, is_member)
                );
                self.error(call_id, msg);
                self.set_type(call_id, Type::Error);
            }
        }
    }

    /// `_&&_` / `_||_`: every argument must be a bool; cel-go reports each one
    /// that is not, rather than a missing overload.
    /// `types` are the ids of the nodes whose types are tested, paired with
    /// `args` in order (the receiver's first, for a member-style call).
    fn resolve_logical(
        &mut self,
        call_id: ExprId,
        o: &Candidate,
        args: &[Expr],
        types: impl Iterator<Item = ExprId>,
    ) {
        let mut failed = false;
        for (a, id) in args.iter().zip(types) {
            // The recorded type, borrowed (a node without one reads as error).
            let recorded = usize::try_from(id)
                .ok()
                .and_then(|i| self.types.dense_get(i));
            let assignable = self
                .mapping
                .is_assignable(recorded.unwrap_or(&Type::Error), &Type::Bool);
            if !assignable {
                let t = self.get_type(id);
                self.type_mismatch(a.id, &Type::Bool, &t);
                failed = true;
            }
        }
        if failed {
            self.set_type(call_id, Type::Error);
            return;
        }
        self.set_type(call_id, Type::Bool);
        self.set_call_ref(call_id, &o.overload_ids);
    }

    /// Joins the element types of an aggregate literal: the most general of
    /// two assignable types, else `dyn` (mixed literals are rejected after the
    /// check by the homogeneous literal validator when it is enabled).
    fn join_types(&mut self, previous: Option<Type>, current: Type) -> Type {
        let Some(previous) = previous else {
            return current;
        };
        if self.mapping.is_assignable(&previous, &current) {
            return most_general(&previous, &current).clone();
        }
        Type::Dyn
    }

    /// The type of an optional entry's value (`?e`): `optional_type(T)` gives `T`.
    fn unwrap_optional_entry(&mut self, id: ExprId, t: Type) -> Type {
        match t.optional_inner() {
            Some(inner) => inner.clone(),
            None => {
                if !is_dyn(&t) {
                    self.type_mismatch(id, &Type::optional(t.clone()), &t);
                }
                t
            }
        }
    }

    fn check_list(&mut self, e: &mut Expr) {
        let id = e.id;
        let ExprKind::List(list) = &mut e.kind else {
            return;
        };
        let mut elem: Option<Type> = None;
        for (i, el) in list.elements.iter_mut().enumerate() {
            self.check(el);
            let mut t = self.get_type(el.id);
            if list.optional_indices.contains(&i) {
                t = self.unwrap_optional_entry(el.id, t);
            }
            elem = Some(self.join_types(elem, t));
        }
        let elem = match elem {
            Some(t) => t,
            None => self.new_type_var(),
        };
        self.set_type(id, Type::list(elem));
    }

    fn check_map(&mut self, e: &mut Expr) {
        let id = e.id;
        let ExprKind::Map(entries) = &mut e.kind else {
            return;
        };
        let mut key_type: Option<Type> = None;
        let mut value_type: Option<Type> = None;
        for entry in entries.iter_mut() {
            self.check(&mut entry.key);
            let kt = self.get_type(entry.key.id);
            key_type = Some(self.join_types(key_type, kt));
            self.check(&mut entry.value);
            let mut vt = self.get_type(entry.value.id);
            if entry.optional {
                vt = self.unwrap_optional_entry(entry.value.id, vt);
            }
            value_type = Some(self.join_types(value_type, vt));
        }
        let (k, v) = match (key_type, value_type) {
            (Some(k), Some(v)) => (k, v),
            _ => (self.new_type_var(), self.new_type_var()),
        };
        self.set_type(id, Type::map(k, v));
    }

    fn check_struct(&mut self, e: &mut Expr) {
        let id = e.id;
        let ExprKind::Struct(st) = &mut e.kind else {
            return;
        };
        let Some(decl) = self.lookup_ident(&st.type_name) else {
            let name = st.type_name.clone();
            self.undeclared(id, &name);
            self.set_type(id, Type::Error);
            // cel-go stops here: the field values are left unchecked.
            return;
        };
        let resolved = decl.name;
        if st.type_name != resolved {
            st.type_name = resolved.clone();
        }
        self.set_ident_ref(id, resolved.clone(), None);
        let mut type_name: Cow<'_, str> = Cow::Owned(resolved.into_string());
        let mut result = Type::Error;
        match &decl.ty {
            Type::Error => {}
            Type::Type(Some(t)) => {
                result = (**t).clone();
                if let Some(wkt) = well_known_message_name(t) {
                    type_name = Cow::Borrowed(wkt);
                } else if let Type::Object(n) = &**t {
                    type_name = Cow::Owned(n.to_string());
                } else {
                    let msg = format!("'{}' is not a message type", declared_type_name(t));
                    self.error(id, msg);
                    result = Type::Error;
                }
            }
            other => {
                let msg = format!("'{}' is not a type", declared_type_name(other));
                self.error(id, msg);
            }
        }
        self.set_type(id, result);
        for field in st.fields.iter_mut() {
            self.check(&mut field.value);
            let field_type = self
                .lookup_field_type(field.id, &type_name, &field.name)
                .unwrap_or(Type::Error);
            let mut vt = self.get_type(field.value.id);
            if field.optional {
                vt = self.unwrap_optional_entry(field.value.id, vt);
            }
            if !self.mapping.is_assignable(&field_type, &vt) {
                let msg = format!(
                    "expected type of field '{}' is '{}' but provided type is '{}'",
                    field.name,
                    CheckedType(&field_type),
                    CheckedType(&vt)
                );
                self.error(field.id, msg);
            }
        }
    }

    fn check_comprehension(&mut self, e: &mut Expr) {
        let id = e.id;
        let ExprKind::Comprehension(comp) = &mut e.kind else {
            return;
        };
        let comp: &mut Comprehension = comp;
        self.check(&mut comp.iter_range);
        self.check(&mut comp.accu_init);
        let range_type = self
            .mapping
            .substitute(&self.get_type(comp.iter_range.id), false);
        let accu_type = self.get_type(comp.accu_init.id);
        let two_vars = comp.iter_var2.is_some();
        let (var1, var2) = match &range_type {
            Type::List(elem) => {
                if two_vars {
                    (Type::Int, (**elem).clone())
                } else {
                    ((**elem).clone(), Type::Error)
                }
            }
            Type::Map(k, v) => ((**k).clone(), (**v).clone()),
            Type::Dyn | Type::Any | Type::Error | Type::TypeParam(_) => {
                self.mapping.is_assignable(&Type::Dyn, &range_type);
                (Type::Dyn, Type::Dyn)
            }
            other => {
                let msg = format!(
                    "expression of type '{}' cannot be range of a comprehension (must be list, map, or dynamic)",
                    CheckedType(other)
                );
                self.error(comp.iter_range.id, msg);
                (Type::Error, Type::Error)
            }
        };
        // The variables' names move into the scope while their subtrees are
        // checked (no copy), and back into the node after.
        self.locals
            .push((std::mem::take(&mut comp.accu_var), accu_type.clone()));
        self.locals.push((std::mem::take(&mut comp.iter_var), var1));
        if let Some(v2) = comp.iter_var2.as_mut() {
            self.locals.push((std::mem::take(v2), var2));
        }
        self.check(&mut comp.loop_condition);
        self.assert_type(comp.loop_condition.id, &Type::Bool);
        self.check(&mut comp.loop_step);
        self.assert_type(comp.loop_step.id, &accu_type);
        // The result sees the accumulator only.
        if let Some(v2) = comp.iter_var2.as_mut() {
            *v2 = self.pop_local();
        }
        comp.iter_var = self.pop_local();
        self.check(&mut comp.result);
        comp.accu_var = self.pop_local();
        let t = self
            .mapping
            .substitute(&self.get_type(comp.result.id), false);
        self.set_type(id, t);
    }

    /// Ends the scope of the innermost comprehension variable, giving back
    /// its name.
    fn pop_local(&mut self) -> Name {
        self.locals.pop().map(|(n, _)| n).unwrap_or_default()
    }

    fn assert_type(&mut self, id: ExprId, expected: &Type) {
        let actual = self.get_type(id);
        if !self.mapping.is_assignable(expected, &actual) {
            self.type_mismatch(id, expected, &actual);
        }
    }

    /// The final pass: every node's type with its parameters substituted, and
    /// unbound ones replaced by `dyn`; the types, references and issues.
    #[inline(always)]
    pub(crate) fn finish(self) -> (NodeTypes, NodeRefs, Option<Issues>) {
        let Checker {
            mut types,
            references,
            issues,
            mapping,
            ..
        } = self;
        // Only a type with parts may mention a parameter.
        for t in types.composite_mut() {
            if has_type_param(t) {
                *t = mapping.substitute(t, true);
            }
        }
        (types, references, issues)
    }
}

#[cfg(test)]
thread_local! {
    /// Whether name and overload resolution use the environment's memos
    /// (tests compare checks with and without them).
    pub(crate) static MEMO_ENABLED: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Whether name and overload resolution use the environment's memos
/// (`IdentMemo`, `ResolutionMemo`).
#[inline]
fn memo_enabled() -> bool {
    #[cfg(test)]
    {
        MEMO_ENABLED.get()
    }
    #[cfg(not(test))]
    {
        true
    }
}

/// cel-go's `Env.LookupIdent` past the comprehension variables: for each
/// candidate name of `name` in `container`, declared variables, built-in type
/// names, type names declared by libraries, object types from the provider,
/// enum constants.
fn found_global(
    container: &str,
    name: &str,
    env: &Env,
    types: Types<'_>,
    optional_syntax: bool,
) -> Option<IdentDecl> {
    resolve_candidates(container, name, |cand| {
        if !env.may_declare(cand) {
            return None;
        }
        if let Some(t) = env.variable(cand) {
            return Some(IdentDecl {
                name: cand.into(),
                ty: t.clone(),
                value: None,
            });
        }
        if let Some(t) = builtin_type_ident(cand, optional_syntax) {
            return Some(IdentDecl::type_ident(cand, t));
        }
        if let Some(t) = env.type_identifier(cand) {
            return Some(IdentDecl::type_ident(cand, t.clone()));
        }
        if let Some(t) = types.find_type(cand) {
            return Some(IdentDecl::type_ident(cand, t));
        }
        types.enum_constant(cand).map(|(ty, v)| IdentDecl {
            name: cand.into(),
            ty,
            value: Some(v),
        })
    })
}

/// The types `types` yields, in `small` when there are at most three (argument
/// and parameter lists are short: no allocation), else in `big`.
fn small_types<'s>(
    types: impl Iterator<Item = Type>,
    small: &'s mut [Type; 3],
    big: &'s mut Vec<Type>,
) -> &'s [Type] {
    let mut n = 0;
    for t in types {
        if n < small.len() && big.is_empty() {
            small[n] = t;
        } else {
            if big.is_empty() {
                big.extend(small.iter_mut().map(|t| std::mem::replace(t, Type::Dyn)));
            }
            big.push(t);
        }
        n += 1;
    }
    if big.is_empty() { &small[..n] } else { big }
}

/// The overload ids of an optional field selection.
fn select_optional_field() -> OverloadIds {
    Arc::new(["select_optional_field".into()])
}

/// The identifier (without leading dot) at the root of a chain of
/// selections, `a` of `a.b.c`; `None` when the chain has another root or a
/// presence test or optional selection.
#[inline(always)]
fn chain_root(mut e: &Expr) -> Option<&str> {
    loop {
        match &e.kind {
            ExprKind::Ident(n) => {
                let n = n.as_str();
                return Some(match n.as_bytes().first() {
                    Some(b'.') => &n[1..],
                    _ => n,
                });
            }
            ExprKind::Select(sel) if !sel.test_only && !sel.optional => e = &sel.operand,
            _ => return None,
        }
    }
}

/// Writes the dotted name `sel` spells into `out` (cleared first); false when
/// its operand is not an identifier chain.
fn write_qualified_name_of_select(sel: &crate::syntax::Select, out: &mut String) -> bool {
    out.clear();
    if !write_qualified_name(&sel.operand, out) {
        return false;
    }
    out.push('.');
    out.push_str(&sel.field);
    true
}
