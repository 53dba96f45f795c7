//! Policy environments: CEL environments for APIs that accept expressions
//! written by their clients, configured as the API guideline on expressions
//! requires (the *Expressions* guideline: *Validation*, *Minimum support*,
//! *Additional functions*, *Variables*, *Versioning*).
//!
//! ```ignore
//! use cel::policy::{PolicyEnv, StandardVariable};
//! let env = PolicyEnv::builder()
//!     .max_expression_length(500)
//!     .standard_variables(StandardVariable::ALL)
//!     .property("namespace", cel::Type::String) // exposed as `__namespace__`
//!     .max_size("__namespace__", 63)
//!     .build()?;
//! let policy = env.compile("ipInRange(source.ip, '10.0.0.0/8')")?;
//! let outcome = policy.evaluate(&activation)?;
//! if let Some(abort) = &outcome.aborted { log(abort) } // the value is `false`
//! ```
//!
//! What an environment enforces, and where each rule comes from:
//!
//! * **Compile time** ([`PolicyEnv::compile`], all on the verbatim text, as
//!   *Validation* requires: "each client-specified expression MUST be
//!   statically checked verbatim (without any canonicalization)"):
//!   maximum length ([`PolicyEnvBuilder::max_expression_length`]), nesting
//!   depth ([`PolicyEnvBuilder::max_nesting_depth`]), repetitions
//!   ([`PolicyEnvBuilder::max_repetitions`], see [`repetition`]), types and
//!   the expected result type ([`PolicyEnvBuilder::result_type`]; `dyn`
//!   expressions pass and are checked on their value), complexity as cel-go's
//!   estimated cost ([`PolicyEnvBuilder::max_cost`], in the context of the
//!   variables' declared maximum sizes, [`PolicyEnvBuilder::max_size`]).
//! * **Evaluation** ([`Policy::evaluate`]): the deadline
//!   ([`PolicyEnvBuilder::deadline`]) and the cost limit again (for host
//!   values larger than declared), past which the expression counts as
//!   `false` and the abort is reported in [`PolicyOutcome::aborted`]; only
//!   declared variables are looked up in the host's activation.
//! * **Declarations** ([`PolicyEnvBuilder`]): variable names
//!   ([`naming`]), the standardized variables ([`StandardVariable`]),
//!   `ipInRange` ([`ip_in_range`]), the naming rules of additional functions,
//!   and the minimum language subset (CEL's standard library and macros, which
//!   cover every row of the guideline's *Minimum support* table, literals of
//!   every type, and the standard conversions between them; cross-type numeric
//!   comparisons are on, so `d > 8` compiles for a double `d`. As in cel-go,
//!   `8.` is not CEL syntax and the checker rejects `==` between `int` and
//!   `double` expressions, which are equal at runtime).
//! * **Versioning** ([`versions`]): expressions are stored verbatim with the
//!   API version they were written against and evaluated in that version's
//!   environment.

mod builder;
mod env;
mod evaluate;
pub mod ip_in_range;
pub mod naming;
pub mod repetition;
mod variables;
pub mod versions;

use std::time::Duration;

pub use builder::{ConfigError, PolicyEnvBuilder};
pub use env::{ExpressionError, PolicyEnv};
pub use evaluate::{Abort, AbortReason, Policy, PolicyOutcome};
pub use repetition::{RepeatedRule, RepetitionExceeded};
pub use variables::StandardVariable;
pub use versions::{PolicyVersions, StoredExpression, VersionError};

/// The smallest maximum expression length an environment may set. *Validation*:
/// "Maximum length (at least 100 characters, and at most 1000 characters)".
pub const MIN_LENGTH_LIMIT: usize = 100;
/// The largest maximum expression length an environment may set (same source).
pub const MAX_LENGTH_LIMIT: usize = 1000;
/// The smallest nesting limit: the "32 nested expressions" of *Validation*.
pub const MIN_NESTING_DEPTH: usize = 32;
/// The smallest repetition limit: the "32 repetitions of self-recursive or
/// repetitive rules" of *Validation*.
pub const MIN_REPETITIONS: usize = 32;
/// The longest evaluation deadline. *Validation*: "any CEL expression that
/// takes longer than 500 milliseconds to execute MUST be aborted [...] 500
/// milliseconds is the maximum; evaluation MAY be aborted earlier."
pub const MAX_DEADLINE: Duration = Duration::from_millis(500);
/// The default maximum cost of an expression, in CEL cost units (the
/// per-expression limit Kubernetes uses).
pub const DEFAULT_MAX_COST: u64 = 1_000_000;
