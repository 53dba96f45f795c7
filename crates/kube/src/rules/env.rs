//! The Kubernetes CEL environment by version (`k8s.io/apiserver/pkg/cel/environment`,
//! reference §9 and §10.10).
//!
//! Kubernetes builds one base environment per *compatibility version*: every library and option
//! carries the version that introduced it (and possibly the one that removed it). Two views of
//! that set matter for CRD rules:
//!
//! * [`EnvKind::NewExpressions`]: what a rule may use when it is first written (CRD create, or a
//!   rule string not present in the old CRD on update). The compatibility version is the server's
//!   minimum compatibility version, one minor below the binary (`1.37` → `1.36`), so a rule
//!   written for a new server still compiles after a rollback.
//! * [`EnvKind::StoredExpressions`]: what an already stored rule may use (runtime validation,
//!   unchanged rule strings on update): every option the binary has that is not removed.
//!
//! | introduced | removed | option |
//! |---|---|---|
//! | 1.0 | — | homogeneous aggregate literals, UTC default time zone, Kubernetes URLs and regex |
//! | 1.0 | 1.37 | Kubernetes lists v0 |
//! | 1.27 | — | authz (unusable in CRD rules: no `authorizer` variable) |
//! | 1.28 | — | cross-type numeric comparisons, optional types, quantity |
//! | 1.29 | — | strings v2, sets, literal validators |
//! | 1.30 | — | IP, CIDR |
//! | 1.31 | — | format, authz selectors, keyword field names |
//! | 1.32 | — | two-variable comprehensions |
//! | 1.33 | — | semver v1 |
//! | 1.34 | — | cel-go lists v3 |
//! | 1.37 | — | Kubernetes lists v1 (`includes`) |
//!
//! Program options are the same for every version: constant folding (`OptOptimize`), runtime
//! presence tests cost 0, Kubernetes' runtime call costs (`library/cost.go`), cel-go's per-overload
//! costs of ext.Lists and ext.Sets. cel-go itself changed between the Kubernetes releases this
//! module covers ([`KubeVersion::cel_go`]: 0.16 in 1.28 up to 0.29.2 in 1.37): the engine
//! reproduces the vendored release's declarations, results and texts (`EnvOptions::cel_go`);
//! here, backquoted identifiers parse from 1.37 on, and the runtime cost of
//! `startsWith`/`endsWith` follows the argument instead of the receiver.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use cel::library::ext::{self, Optionals, Sets, Strings};
use cel::library::{GoDurationMilliseconds, Std};
use cel::syntax::macros;
use cel::{Env, EnvBuilder, Library, Value};

use super::literals;
use crate::library::{authz, cidr, cost, format, ip, lists, quantity, regex, semver, urls};
use crate::version::KubeVersion;

/// `PerCallLimit`: the runtime cost limit of one rule or messageExpression evaluation.
pub const PER_CALL_LIMIT: u64 = 1_000_000;
/// `RuntimeCELCostBudget`: the runtime cost budget of one object's validation.
pub const RUNTIME_CEL_COST_BUDGET: i64 = 10_000_000;
/// `StaticEstimatedCostLimit`: the estimated cost limit of one rule (× cardinality).
pub const STATIC_ESTIMATED_COST_LIMIT: u64 = 10_000_000;
/// `StaticEstimatedCRDCostLimit`: the estimated cost limit of all rules of one CRD version.
pub const STATIC_ESTIMATED_CRD_COST_LIMIT: u64 = 100_000_000;
/// `MaxEvaluatedMessageExpressionSizeBytes`.
pub const MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES: usize = 5120;

/// Which view of the versioned option set an expression is compiled with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EnvKind {
    /// New rules: options introduced at or before the compatibility version (binary − 1 minor).
    NewExpressions,
    /// Stored rules (and runtime): every option of the binary that is not removed.
    StoredExpressions,
}

/// A library added on top of the base set, visible from `introduced_minor` on (always visible to
/// stored expressions, as Kubernetes computes those at the maximal compatibility version).
#[derive(Clone)]
pub struct ExtraLibrary {
    /// The Kubernetes minor version that introduced it.
    pub introduced_minor: u32,
    /// The library.
    pub library: Arc<dyn Library + Send + Sync>,
}

/// A Kubernetes CEL environment: a release and a view.
#[derive(Clone)]
pub struct EnvSpec {
    /// The Kubernetes release.
    pub version: KubeVersion,
    /// Which view (new or stored expressions).
    pub kind: EnvKind,
    /// Libraries beyond Kubernetes' own (tests register one at 1.999 to tell the views apart).
    pub extra: Vec<ExtraLibrary>,
}

impl fmt::Debug for EnvSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EnvSpec")
            .field("version", &self.version)
            .field("kind", &self.kind)
            .field("extra", &self.extra.len())
            .finish()
    }
}

impl EnvSpec {
    /// The environment of `version`'s `kind` view, with Kubernetes' libraries only.
    pub fn new(version: KubeVersion, kind: EnvKind) -> EnvSpec {
        EnvSpec {
            version,
            kind,
            extra: Vec::new(),
        }
    }

    /// Whether an option introduced at `1.introduced` (and removed at `1.removed`, if ever) is in
    /// this environment.
    pub fn has(&self, introduced: u32, removed: Option<u32>) -> bool {
        let binary = self.version.minor();
        if introduced > binary {
            // Not in this release's code at all.
            return false;
        }
        match self.kind {
            EnvKind::NewExpressions => {
                let compat = binary - 1;
                introduced <= compat && removed.is_none_or(|r| compat < r)
            }
            EnvKind::StoredExpressions => removed.is_none_or(|r| r > binary),
        }
    }

    /// Whether expressions of this view run cel-go's duration, timestamp and regex literal
    /// validators (`cel.ASTValidators`, introduced 1.29; cel-go has them from v0.17).
    pub fn has_literal_validators(&self) -> bool {
        self.has(29, None)
    }

    /// The base environment of this view (no variables), built once per process for each
    /// release and view of Kubernetes' own libraries and shared (environments with
    /// [`EnvSpec::extra`] libraries are built on each call). Derive an environment with
    /// variables from it with [`Env::with_declarations`].
    pub fn env(&self) -> Env {
        if !self.extra.is_empty() {
            return self.builder().build();
        }
        static BASE: OnceLock<Mutex<HashMap<(KubeVersion, EnvKind), Env>>> = OnceLock::new();
        let mut cache = BASE
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        cache
            .entry((self.version, self.kind))
            .or_insert_with(|| self.builder().build())
            .clone()
    }

    /// The base environment with the libraries and options of this view (no variables).
    pub fn builder(&self) -> EnvBuilder {
        // cel-go's total-milliseconds duration.getMilliseconds().
        let mut b = EnvBuilder::new()
            .library(Std)
            .library(GoDurationMilliseconds);
        let cel_go_0_29 = self.version.has_cel_go_0_29();
        {
            let o = b.options_mut();
            o.homogeneous_aggregate_literals = true;
            o.optimize = true;
            o.presence_test_cost = 0;
            o.parser.enable_ident_escape_syntax = cel_go_0_29;
            o.cel_go = self.version.cel_go();
        }
        b = b.library(urls::Urls).library(regex::RegexLib);
        if self.has(0, Some(37)) {
            b = b.library(lists::Lists { version: 0 });
        }
        if self.has(37, None) {
            b = b.library(lists::Lists { version: 1 });
        }
        if self.has(27, None) {
            b = b.library(authz::Authz);
        }
        if self.has(28, None) {
            b.options_mut().cross_type_numeric_comparisons = true;
            b = b
                .library(Optionals::default())
                .library(quantity::QuantityLib);
        }
        if self.has(29, None) {
            b = b.library(Strings::version(2)).library(Sets);
        } else if self.has(0, Some(29)) {
            b = b.library(Strings::version(0));
        }
        if self.has(30, None) {
            b = b.library(ip::Ip).library(cidr::Cidr);
        }
        if self.has(31, None) {
            b = b.library(format::FormatLib).library(authz::AuthzSelectors);
        }
        if self.has(32, None) {
            b = b.library(ext::TwoVarComprehensions);
        }
        if self.has(33, None) {
            b = b.library(semver::SemverLib { version: 1 });
        }
        if self.has(34, None) {
            b = b.library(ext::Lists::version(3));
            for m in macros::lists() {
                b.add_macro(m);
            }
        }
        if self.has_literal_validators() {
            b.add_ast_validator(Arc::new(literals::LiteralValidators));
        }
        for x in &self.extra {
            let visible = match self.kind {
                EnvKind::StoredExpressions => true,
                EnvKind::NewExpressions => x.introduced_minor < self.version.minor(),
            };
            if visible {
                x.library.install(&mut b);
            }
        }
        b.runtime_cost_hook(runtime_cost_hook(cel_go_0_29))
    }
}

/// The runtime call costs of a Kubernetes program, in cel-go's order: the per-overload trackers
/// of ext.Lists v3 and ext.Sets, then Kubernetes' `CostEstimator.CallCost`, then (in the engine)
/// cel-go's defaults — except `startsWith`/`endsWith`, whose default changed in cel-go 0.29 and is
/// settled here for the release modelled. Each call site gets the pieces that apply to its
/// function and overload, chosen when the program is planned; a site none applies to is left to
/// the engine's built-in rules.
fn runtime_cost_hook(cel_go_0_29: bool) -> cel::RuntimeCostHook {
    Arc::new(move |function: &str, overload_id: &str| {
        let lists = ext::cost::ListsRuntimeCost::of(overload_id);
        let sets = ext::cost::SetsRuntimeCost::of(overload_id);
        let kube = cost::RuntimeCost::of(function, overload_id);
        let prefix = matches!(overload_id, "starts_with_string" | "ends_with_string");
        if lists.is_none() && sets.is_none() && kube.is_none() && !prefix {
            return None;
        }
        // cel-go ≤ 0.28 charges a prefix test by the receiver's length, 0.29 by the argument's.
        let prefix_sized = usize::from(cel_go_0_29);
        let site: cel::CallCostFn = Arc::new(move |args: &[&Value], result: Option<&Value>| {
            let result_or_null = result.unwrap_or(&Value::Null);
            if let Some(c) = lists.and_then(|l| l.cost(args, result_or_null)) {
                return Some(c);
            }
            if let Some(s) = sets {
                return Some(s.cost(args));
            }
            if let Some(c) = kube.and_then(|k| k.cost(args, result_or_null)) {
                return Some(c);
            }
            if prefix {
                let n = args.get(prefix_sized).map_or(1, |v| match v {
                    // ASCII text: its length is its size in code points.
                    Value::String(s) if s.is_ascii() => s.len() as u64,
                    v => cost::actual_size(v),
                });
                return Some(cost::mul_factor(n, cost::STRING_TRAVERSAL_COST_FACTOR));
            }
            None
        });
        Some(site)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(minor: u32, kind: EnvKind) -> EnvSpec {
        EnvSpec::new(KubeVersion::new(minor).expect("modelled"), kind)
    }

    #[test]
    fn new_expressions_lag_one_minor() {
        let new37 = spec(37, EnvKind::NewExpressions);
        let stored37 = spec(37, EnvKind::StoredExpressions);
        // Kubernetes lists v1 (`includes`): stored only in 1.37.
        assert!(!new37.has(37, None));
        assert!(stored37.has(37, None));
        // Lists v0 removed in 1.37: still in 1.37's new-expression view (compat 1.36).
        assert!(new37.has(0, Some(37)));
        assert!(!stored37.has(0, Some(37)));
        // ext.Lists v3 (1.34): not in 1.34's new view, in its stored view; absent from 1.33.
        assert!(!spec(34, EnvKind::NewExpressions).has(34, None));
        assert!(spec(34, EnvKind::StoredExpressions).has(34, None));
        assert!(!spec(33, EnvKind::StoredExpressions).has(34, None));
    }

    #[test]
    fn base_environments_are_built_once_per_view() {
        let a = spec(36, EnvKind::StoredExpressions).env();
        let b = spec(36, EnvKind::StoredExpressions).env();
        let c = spec(36, EnvKind::NewExpressions).env();
        let same = |x: &Env, y: &Env| match (x.function("_+_"), y.function("_+_")) {
            (Some(f), Some(g)) => std::ptr::eq(f, g),
            _ => false,
        };
        assert!(same(&a, &b));
        assert!(!same(&a, &c));
        assert!(a.function("semver").is_some());
    }

    #[test]
    fn environments_compile_what_their_version_offers() {
        let compiles = |s: &EnvSpec, e: &str| s.builder().build().parse(e).is_ok();
        // sortBy is a macro of ext.Lists v3 (1.34+): the parser only expands it where present,
        // but it parses either way; two-variable macros likewise. Check the functions instead.
        let has_fn = |s: &EnvSpec, f: &str| s.builder().build().function(f).is_some();
        assert!(has_fn(&spec(37, EnvKind::StoredExpressions), "includes"));
        assert!(!has_fn(&spec(37, EnvKind::NewExpressions), "includes"));
        assert!(has_fn(&spec(35, EnvKind::NewExpressions), "distinct"));
        assert!(!has_fn(&spec(34, EnvKind::NewExpressions), "distinct"));
        assert!(has_fn(&spec(33, EnvKind::NewExpressions), "isSorted"));
        assert!(!has_fn(&spec(33, EnvKind::NewExpressions), "semver"));
        assert!(has_fn(&spec(33, EnvKind::StoredExpressions), "semver"));
        assert!(compiles(
            &spec(37, EnvKind::NewExpressions),
            "self.`a-b` == 1"
        ));
        assert!(!compiles(
            &spec(36, EnvKind::NewExpressions),
            "self.`a-b` == 1"
        ));
    }
}
