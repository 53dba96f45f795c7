//! [`PolicyEnv`]: a configured environment, and the static checks every
//! expression passes before it is accepted ([`PolicyEnv::compile`]).

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use super::builder::{Declaration, PolicyEnvBuilder};
use super::evaluate::Policy;
use super::repetition::{self, RepetitionExceeded};
use crate::cost::{
    self, AstNode, CostEstimate, EstimateError, EstimateOptions, Hooks, NoEstimates, SizeEstimate,
    SizeEstimator,
};
use crate::diagnostics::Issues;
use crate::env::Env;
use crate::syntax::Location;
use crate::types::Type;

/// The limits of an environment (validated by the builder).
#[derive(Clone, Debug)]
pub(crate) struct Limits {
    pub(crate) max_length: usize,
    pub(crate) result_type: Type,
    pub(crate) max_cost: u64,
    pub(crate) max_nesting_depth: usize,
    pub(crate) max_repetitions: usize,
    pub(crate) deadline: Duration,
}

/// A policy environment: what client expressions may use and the limits they
/// must meet. Cheap to clone; `Send + Sync`.
#[derive(Clone)]
pub struct PolicyEnv {
    inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) env: Env,
    pub(crate) limits: Limits,
    /// The declared variables by CEL name.
    pub(crate) variables: HashMap<String, Declaration>,
}

/// Why an expression is rejected. Every check runs on the verbatim text.
#[derive(Clone, Debug)]
pub enum ExpressionError {
    /// Longer than the environment's maximum length (code points).
    TooLong {
        /// The expression's length in code points.
        length: usize,
        /// The largest length allowed.
        limit: usize,
    },
    /// A syntax error, including nesting deeper than the environment allows
    /// (the parser's `expression recursion limit exceeded: N` and `max
    /// recursion depth exceeded`).
    Syntax(Issues),
    /// A rule repeated more often than the environment allows.
    TooManyRepetitions {
        /// Which rule was repeated too often, and the limit.
        exceeded: RepetitionExceeded,
        /// Where, when the node has a position.
        location: Option<Location>,
    },
    /// A type error (undeclared names, no matching overload, ...).
    Check(Issues),
    /// The expression's type is not the expected result type.
    ResultType {
        /// The result type the environment requires.
        expected: Type,
        /// The expression's checked type.
        actual: Type,
    },
    /// The estimated cost (its upper bound) is above the environment's limit.
    TooCostly {
        /// cel-go's estimated cost of the expression.
        estimate: CostEstimate,
        /// The largest cost allowed.
        limit: u64,
    },
    /// The cost could not be estimated.
    CostEstimate(EstimateError),
    /// The expression cannot be planned (e.g. an invalid constant regular
    /// expression).
    Plan(Issues),
}

impl fmt::Display for ExpressionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExpressionError::TooLong { length, limit } => write!(
                f,
                "expression is {length} characters long, more than the limit of {limit}"
            ),
            ExpressionError::Syntax(issues)
            | ExpressionError::Check(issues)
            | ExpressionError::Plan(issues) => write!(f, "{issues}"),
            ExpressionError::TooManyRepetitions { exceeded, location } => {
                write!(
                    f,
                    "expression has {} {}, more than the limit of {}",
                    exceeded.count, exceeded.rule, exceeded.limit
                )?;
                if let Some(l) = location {
                    write!(f, " (at line {}, column {})", l.line, l.column + 1)?;
                }
                Ok(())
            }
            ExpressionError::ResultType { expected, actual } => write!(
                f,
                "expression must evaluate to {expected}, but its type is {actual}"
            ),
            ExpressionError::TooCostly { estimate, limit } => write!(
                f,
                "estimated cost of the expression is up to {}, more than the limit of {limit}",
                estimate.max
            ),
            ExpressionError::CostEstimate(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ExpressionError {}

impl PolicyEnv {
    /// A builder with the defaults of [`PolicyEnvBuilder::new`].
    pub fn builder() -> PolicyEnvBuilder {
        PolicyEnvBuilder::new()
    }

    pub(crate) fn new(env: Env, limits: Limits, variables: HashMap<String, Declaration>) -> Self {
        PolicyEnv {
            inner: Arc::new(Inner {
                env,
                limits,
                variables,
            }),
        }
    }

    pub(crate) fn inner(&self) -> &Inner {
        &self.inner
    }

    /// The underlying CEL environment.
    pub fn env(&self) -> &Env {
        &self.inner.env
    }

    /// The maximum expression length, in code points.
    pub fn max_expression_length(&self) -> usize {
        self.inner.limits.max_length
    }

    /// The expected result type.
    pub fn result_type(&self) -> &Type {
        &self.inner.limits.result_type
    }

    /// The cost limit.
    pub fn max_cost(&self) -> u64 {
        self.inner.limits.max_cost
    }

    /// The evaluation deadline.
    pub fn deadline(&self) -> Duration {
        self.inner.limits.deadline
    }

    /// The declared variables: CEL name, the name the host binds it under
    /// (the property name for properties), type.
    pub fn variables(&self) -> impl Iterator<Item = (&str, &str, &Type)> {
        self.inner
            .variables
            .iter()
            .map(|(name, d)| (name.as_str(), d.binding.as_str(), &d.ty))
    }

    /// The estimated cost range of an accepted expression's checked form
    /// (cel-go's cost model, with the variables' maximum sizes).
    fn estimate(
        &self,
        checked: &crate::checker::CheckedAst,
    ) -> Result<CostEstimate, EstimateError> {
        let sizes = DeclaredSizes {
            variables: &self.inner.variables,
        };
        let hooks = Hooks {
            size: &sizes,
            calls: &NoEstimates,
        };
        cost::estimate(checked, &self.inner.env, &EstimateOptions::default(), hooks)
    }

    /// Checks `text` exactly as given and compiles it. The checks, in order:
    /// length, syntax and nesting (parser), repetitions, types, result type,
    /// estimated cost.
    /// An expression that passes is accepted as is: the [`Policy`] keeps the
    /// verbatim text (*Validation*: "Client-specified expressions that pass
    /// these checks MUST be accepted and used verbatim").
    ///
    /// The result type is checked on the type the checker infers; an
    /// expression of type `dyn` passes and its value is checked at
    /// evaluation.
    pub fn compile(&self, text: &str) -> Result<Policy, ExpressionError> {
        let limits = &self.inner.limits;
        let length = text.chars().count();
        if length > limits.max_length {
            return Err(ExpressionError::TooLong {
                length,
                limit: limits.max_length,
            });
        }
        let env = &self.inner.env;
        let ast = env.parse(text).map_err(ExpressionError::Syntax)?;
        if let Err(exceeded) = repetition::check_repetitions(&ast, limits.max_repetitions) {
            let location = ast
                .source_info
                .offset(exceeded.expr_id)
                .map(|o| ast.source.location(o));
            return Err(ExpressionError::TooManyRepetitions { exceeded, location });
        }
        let checked = env.check(&ast).map_err(ExpressionError::Check)?;
        let actual = checked.result_type();
        if !compatible(actual, &limits.result_type) {
            return Err(ExpressionError::ResultType {
                expected: limits.result_type.clone(),
                actual: actual.clone(),
            });
        }
        let estimate = self
            .estimate(&checked)
            .map_err(ExpressionError::CostEstimate)?;
        if estimate.max > limits.max_cost {
            return Err(ExpressionError::TooCostly {
                estimate,
                limit: limits.max_cost,
            });
        }
        let program = env
            .program_checked(&checked)
            .map_err(ExpressionError::Plan)?;
        Ok(Policy::new(self.clone(), text, program))
    }
}

/// Can a value of type `actual` be of type `expected`? `dyn` (and type
/// parameters, `Any`) on either side matches anything; lists and maps match
/// element-wise.
pub(crate) fn compatible(actual: &Type, expected: &Type) -> bool {
    match (actual, expected) {
        (Type::Dyn | Type::Any | Type::TypeParam(_), _)
        | (_, Type::Dyn | Type::Any | Type::TypeParam(_)) => true,
        (Type::List(a), Type::List(e)) => compatible(a, e),
        (Type::Map(ak, av), Type::Map(ek, ev)) => compatible(ak, ek) && compatible(av, ev),
        (Type::Type(_), Type::Type(None)) | (Type::Type(None), Type::Type(_)) => true,
        (Type::Type(Some(a)), Type::Type(Some(e))) => compatible(a, e),
        (Type::Wrapper(a), Type::Wrapper(e)) => compatible(a, e),
        (Type::Null, Type::Wrapper(_)) => true,
        (a, Type::Wrapper(e)) => compatible(a, e),
        (Type::Opaque(an, ap), Type::Opaque(en, ep)) => {
            an == en
                && ap.len() == ep.len()
                && ap.iter().zip(ep.iter()).all(|(a, e)| compatible(a, e))
        }
        (a, e) => a == e,
    }
}

/// The declared maximum sizes, answered for the variables themselves (paths
/// of one segment: the checker names a dotted variable by its full name).
struct DeclaredSizes<'a> {
    variables: &'a HashMap<String, Declaration>,
}

impl SizeEstimator for DeclaredSizes<'_> {
    fn estimate_size(&self, node: &AstNode<'_>) -> Option<SizeEstimate> {
        match node.path() {
            [name] => self
                .variables
                .get(name)?
                .max_size
                .map(|n| SizeEstimate::new(0, n)),
            _ => None,
        }
    }
}
