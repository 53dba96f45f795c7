//! What a built environment declares: its options, functions, variables, type
//! provider, cost functions and AST validators, shared by the checker, the cost
//! estimator and the planner. The compile pipeline over them is in `env/mod.rs`.

use std::sync::{Arc, OnceLock};

use super::call_shapes::DeclaredFunction;
use super::once_slots::OnceSlots;
use super::options::EnvOptions;
use crate::checker::names::{IdentDecl, same_text};
use crate::checker::{CheckedAst, TypeProvider};
use crate::cost::hooks::OverloadEstimateFn;
use crate::diagnostics::Issues;
use crate::functions::{Function, OverloadCostFn, RuntimeCostHook};
use crate::name_hash::{NameMap, NameSet};
use crate::syntax::Name;
use crate::types::Type;

/// A check run on every successfully type-checked expression of an environment,
/// reporting problems as compile errors: cel-go's `cel.ASTValidator`
/// (`cel/validator.go`), installed with
/// [`EnvBuilder::add_ast_validator`](crate::EnvBuilder::add_ast_validator)
/// (cel-go's `cel.ASTValidators`). Kubernetes' duration, timestamp and regex
/// literal checks are validators.
pub trait AstValidator: Send + Sync {
    /// The validator's name (cel-go's `Name`), for diagnostics.
    fn name(&self) -> &str;

    /// Reports the problems of `checked` into `issues` (cel-go's `Validate`);
    /// any issue fails the check.
    fn validate(&self, env: &Env, checked: &CheckedAst, issues: &mut Issues);
}

/// A compile environment. Cheap to clone; `Send + Sync`.
#[derive(Clone)]
pub struct Env {
    pub(super) inner: Arc<EnvInner>,
}

pub(crate) struct EnvInner {
    /// What environments derived with [`Env::with_declarations`] share.
    pub(crate) shared: Arc<SharedDecls>,
    pub(crate) variables: NameMap<String, Type>,
    pub(crate) type_provider: Option<Arc<dyn TypeProvider>>,
    /// The first segments of the dotted names (`a` of `a.b`) declared as
    /// variables or type identifiers, and `google` (the built-in
    /// `google.protobuf.*` types); `None` when a type provider may declare
    /// any name. The checker looks a dotted name up only when its first
    /// segment is here: most dotted names are field selections (`self.spec`).
    pub(crate) dotted_roots: Option<RootSet>,
    /// The global names the checker resolved in this environment.
    pub(crate) idents: IdentMemo,
}

/// How many names an [`IdentMemo`] holds.
const IDENT_MEMO_SLOTS: usize = 8;

/// The names the checker resolved in an environment outside comprehension
/// scopes (`self`), each with what it resolved to (cel-go's
/// `Env.LookupIdent`): a pure function of the name and of the environment's
/// declarations, container and type provider, which do not change. Bounded
/// ([`IDENT_MEMO_SLOTS`] names, allocated on the first); entries are written
/// once and read without locking, so checks on many threads share it.
#[derive(Default)]
pub(crate) struct IdentMemo {
    entries: OnceSlots<IdentEntry, IDENT_MEMO_SLOTS>,
}

/// A name and what it resolves to.
pub(crate) type IdentEntry = (Name, IdentDecl);

impl IdentMemo {
    /// The resolution recorded for `name`.
    #[inline]
    pub(crate) fn find(&self, name: &str) -> Option<&IdentEntry> {
        self.entries.find(|e| same_text(&e.0, name))
    }

    /// Records that `name` resolves to `decl`; the entry, unless every slot
    /// is taken.
    pub(crate) fn insert(&self, name: &str, decl: IdentDecl) -> Option<&IdentEntry> {
        self.entries
            .insert((Name::from(name), decl), |e| same_text(&e.0, name))
    }
}

/// How many names a [`FunctionMemo`] holds at most (a power of two).
const FUNCTION_MEMO_SLOTS: usize = 64;

/// The functions the checker resolved (cel-go's `Env.LookupFunction`) by the
/// name a call spells (`_<=_`, `size`): a pure function of the name, the
/// container and the declared functions, which the environments derived
/// from one another share and which do not change. Each name has one slot,
/// picked by a hash of its length and first and last two bytes, and keeps
/// it once written ([`OnceSlots::insert_at`]): a name whose slot another took is
/// resolved by hashing, as without the memo. Entries are read without
/// locking, so checks on many threads share it.
#[derive(Default)]
pub(crate) struct FunctionMemo {
    entries: OnceSlots<(Name, Arc<DeclaredFunction>), FUNCTION_MEMO_SLOTS>,
}

/// A hash of a name's length and first and last two bytes (`_<=_` and
/// `_>=_` differ in the second).
#[inline]
fn short_hash(name: &str) -> u64 {
    let b = name.as_bytes();
    let n = b.len();
    let byte = |i: usize| u64::from(b.get(i).copied().unwrap_or(0));
    let x = byte(0)
        | byte(1) << 8
        | byte(n.wrapping_sub(2)) << 16
        | byte(n.wrapping_sub(1)) << 24
        | (n as u64) << 32;
    x.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

impl FunctionMemo {
    /// The slot of `name`.
    #[inline]
    fn slot(name: &str) -> usize {
        (short_hash(name) >> 58) as usize
    }

    /// The function recorded for `name`.
    #[inline]
    pub(crate) fn find(&self, name: &str) -> Option<&DeclaredFunction> {
        let (n, f) = self.entries.get_at(Self::slot(name))?;
        same_text(n, name).then_some(&**f)
    }

    /// Records that `name` resolves to `f`, if its slot is free.
    pub(crate) fn insert(&self, name: &str, f: &Arc<DeclaredFunction>) {
        self.entries
            .insert_at(Self::slot(name), (Name::from(name), f.clone()));
    }
}

/// The first segments of dotted names (`a` of `a.b`), with a 64-bit filter
/// of their hashes ([`short_hash`]) that settles most names absent without
/// looking them up: the checker asks about the root of every selection
/// chain and member call (`self` of `self.spec`), which is rarely one.
#[derive(Default)]
pub(crate) struct RootSet {
    names: NameSet<String>,
    filter: u64,
}

impl RootSet {
    /// The filter's bit of `name`.
    #[inline]
    fn bit(name: &str) -> u64 {
        1 << (short_hash(name) >> 58)
    }

    /// Whether `name` is one of the roots.
    #[inline]
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.filter & Self::bit(name) != 0 && self.names.contains(name)
    }
}

impl FromIterator<String> for RootSet {
    fn from_iter<I: IntoIterator<Item = String>>(iter: I) -> Self {
        let mut roots = RootSet::default();
        for name in iter {
            roots.filter |= Self::bit(&name);
            roots.names.insert(name);
        }
        roots
    }
}

/// The library part of an environment: options, functions and cost settings.
pub(crate) struct SharedDecls {
    pub(crate) options: EnvOptions,
    /// The filter of `options.parser.macros`' names.
    pub(crate) macro_names: crate::syntax::MacroNames,
    pub(crate) functions: NameMap<String, Arc<DeclaredFunction>>,
    /// The functions the checker resolved by the names calls spell.
    pub(crate) function_memo: FunctionMemo,
    /// The first segments of the dotted function names (`strings` of
    /// `strings.quote`): the checker tries a member call `a.b.f(x)` as the
    /// namespaced function `a.b.f` only when its root `a` is here.
    pub(crate) function_roots: RootSet,
    pub(crate) overload_costs: NameMap<String, OverloadCostFn>,
    pub(crate) cost_hook: Option<RuntimeCostHook>,
    pub(crate) overload_estimators: NameMap<String, OverloadEstimateFn>,
    pub(crate) type_identifiers: NameMap<String, Type>,
    pub(crate) ast_validators: Vec<Arc<dyn AstValidator>>,
    /// Names of the functions whose overloads all come from the standard
    /// library (computed on first use, see `Env::std_only_functions`).
    pub(crate) std_only: OnceLock<crate::eval::StdOnly>,
}

impl EnvInner {
    /// [`EnvInner::dotted_roots`] of `variables` and `shared`'s type identifiers.
    pub(crate) fn dotted_roots(
        variables: &NameMap<String, Type>,
        shared: &SharedDecls,
        type_provider: Option<&Arc<dyn TypeProvider>>,
    ) -> Option<RootSet> {
        if type_provider.is_some() {
            return None;
        }
        let names = variables.keys().chain(shared.type_identifiers.keys());
        // `google` for the built-in `google.protobuf.*` types.
        Some(
            names
                .filter_map(|n| Some(n.split_once('.')?.0.to_string()))
                .chain(["google".to_string()])
                .collect(),
        )
    }
}

impl Env {
    /// The options the environment was built with.
    pub fn options(&self) -> &EnvOptions {
        &self.inner.shared.options
    }

    /// This environment with `variables` declared in addition (replacing any of the same name)
    /// and, when given, `type_provider` instead of its own. The functions, macros, options and
    /// cost settings are shared with this environment, not rebuilt: cheap enough for hosts that
    /// compile against many variable typings with one set of libraries (Kubernetes compiles the
    /// rules of each schema node with its own type of `self`).
    pub fn with_declarations<'a>(
        &self,
        variables: impl IntoIterator<Item = (&'a str, Type)>,
        type_provider: Option<Arc<dyn TypeProvider>>,
    ) -> Env {
        let mut own = self.inner.variables.clone();
        own.extend(variables.into_iter().map(|(n, t)| (n.to_string(), t)));
        let type_provider = type_provider.or_else(|| self.inner.type_provider.clone());
        let shared = self.inner.shared.clone();
        let dotted_roots = EnvInner::dotted_roots(&own, &shared, type_provider.as_ref());
        Env {
            inner: Arc::new(EnvInner {
                shared,
                variables: own,
                type_provider,
                dotted_roots,
                idents: IdentMemo::default(),
            }),
        }
    }

    /// The function declared as `name`, with its overloads.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.declared_function(name).map(|d| &d.function)
    }

    /// The function declared as `name`, with its overloads by call shape.
    pub(crate) fn declared_function(&self, name: &str) -> Option<&Arc<DeclaredFunction>> {
        self.inner.shared.functions.get(name)
    }

    /// The functions the checker resolved by the names calls spell.
    pub(crate) fn function_memo(&self) -> &FunctionMemo {
        &self.inner.shared.function_memo
    }

    /// Whether a function whose dotted name starts with segment `root` is
    /// declared.
    pub(crate) fn may_declare_function_under(&self, root: &str) -> bool {
        self.inner.shared.function_roots.contains(root)
    }

    /// Every function declared.
    pub fn functions(&self) -> impl Iterator<Item = &Function> {
        self.inner.shared.functions.values().map(|d| &d.function)
    }

    /// The global names the checker resolved in this environment.
    pub(crate) fn ident_memo(&self) -> &IdentMemo {
        &self.inner.idents
    }

    /// The type of variable `name`, if declared.
    pub fn variable(&self, name: &str) -> Option<&Type> {
        self.inner.variables.get(name)
    }

    /// Every variable declared, with its type.
    pub fn variables(&self) -> impl Iterator<Item = (&str, &Type)> {
        self.inner.variables.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Whether a name (a candidate of name resolution, without leading dot)
    /// may be declared: false for a dotted name whose first segment no
    /// declaration has (see `EnvInner::dotted_roots`).
    pub(crate) fn may_declare(&self, name: &str) -> bool {
        // A byte loop: names are short, shorter than `memchr` pays off for.
        match name.bytes().position(|b| b == b'.') {
            None => true,
            Some(dot) => self.may_declare_under(&name[..dot]),
        }
    }

    /// Whether a dotted name whose first segment is `root` may be declared.
    #[inline]
    pub(crate) fn may_declare_under(&self, root: &str) -> bool {
        self.inner
            .dotted_roots
            .as_ref()
            .is_none_or(|roots| roots.contains(root))
    }

    /// The host's object types, if any.
    pub fn type_provider(&self) -> Option<&dyn TypeProvider> {
        self.inner.type_provider.as_deref()
    }

    /// The type provider, shared (object constructions keep it).
    pub(crate) fn shared_type_provider(&self) -> Option<Arc<dyn TypeProvider>> {
        self.inner.type_provider.clone()
    }

    /// A type name declared with [`EnvBuilder::add_type`](crate::EnvBuilder::add_type).
    pub fn type_identifier(&self, name: &str) -> Option<&Type> {
        self.inner.shared.type_identifiers.get(name)
    }

    /// The runtime cost function attached to overload `id`, if any.
    pub fn overload_cost(&self, id: &str) -> Option<&OverloadCostFn> {
        self.inner.shared.overload_costs.get(id)
    }

    /// The static cost estimator attached to overload `id`, if any.
    pub fn overload_estimator(&self, id: &str) -> Option<&OverloadEstimateFn> {
        self.inner.shared.overload_estimators.get(id)
    }

    /// The names of the functions whose overloads all come from the standard
    /// library, computed on first use by the planner (shared by the
    /// environments derived with [`Env::with_declarations`]).
    pub(crate) fn std_only_functions(&self) -> &OnceLock<crate::eval::StdOnly> {
        &self.inner.shared.std_only
    }

    /// The AST validators, in the order added.
    pub(crate) fn ast_validators(&self) -> &[Arc<dyn AstValidator>] {
        &self.inner.shared.ast_validators
    }

    /// The host's runtime call-cost estimator, if any.
    pub fn cost_hook(&self) -> Option<&RuntimeCostHook> {
        self.inner.shared.cost_hook.as_ref()
    }
}
