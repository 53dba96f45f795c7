//! [`Policy`]: an accepted expression, and its evaluation under the deadline
//! and cost limit of its environment.
//!
//! Source: *Validation*: "any CEL expression that takes longer than 500
//! milliseconds to execute MUST be aborted, and treated as if it evaluated to
//! false. Aborted CEL expressions SHOULD be communicated to the customer":
//! [`Policy::evaluate`] returns the value `false` together with an [`Abort`]
//! saying why and after how long, for the host to log or surface.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::builder::Declaration;
use super::env::{PolicyEnv, compatible};
use crate::activation::Activation;
use crate::error::{ErrorKind, EvalError};
use crate::eval::EvalOptions;
use crate::program::Program;
use crate::value::Value;

/// An accepted expression, ready to evaluate (many times, from many threads).
#[derive(Clone)]
pub struct Policy {
    env: PolicyEnv,
    text: Arc<str>,
    program: Program,
}

/// The outcome of an evaluation that produced a value or was aborted.
#[derive(Clone, Debug)]
pub struct PolicyOutcome {
    /// The value; `false` when the evaluation was aborted, as the guideline
    /// prescribes whatever the environment's result type (hosts with
    /// non-boolean result types look at `aborted` first).
    pub value: Value,
    /// Why and when evaluation was aborted, if it was.
    pub aborted: Option<Abort>,
}

impl PolicyOutcome {
    /// Is the value `true`? (`false` for aborted evaluations.)
    pub fn is_true(&self) -> bool {
        matches!(self.value, Value::Bool(true))
    }
}

/// An evaluation that was stopped (or finished too late) and counts as
/// `false`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Abort {
    /// Time from the start of the evaluation to the abort.
    pub elapsed: Duration,
    /// Why evaluation stopped.
    pub reason: AbortReason,
}

/// Why an evaluation was aborted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AbortReason {
    /// It ran past the environment's deadline (interrupted, or finished
    /// late: either way the guideline's rule applies).
    Deadline {
        /// The time allowed.
        limit: Duration,
    },
    /// Its runtime cost passed the environment's cost limit.
    CostLimit {
        /// The cost allowed.
        limit: u64,
    },
    /// The host's cancel flag was raised.
    Cancelled,
}

impl fmt::Display for Abort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "expression evaluation aborted after {:?}: ",
            self.elapsed
        )?;
        match self.reason {
            AbortReason::Deadline { limit } => write!(f, "deadline of {limit:?} exceeded")?,
            AbortReason::CostLimit { limit } => write!(f, "cost limit of {limit} exceeded")?,
            AbortReason::Cancelled => f.write_str("cancelled")?,
        }
        f.write_str("; treated as false")
    }
}

impl Policy {
    pub(crate) fn new(env: PolicyEnv, text: &str, program: Program) -> Self {
        Policy {
            env,
            text: text.into(),
            program,
        }
    }

    /// The expression exactly as the client wrote it.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The environment it was compiled in.
    pub fn env(&self) -> &PolicyEnv {
        &self.env
    }

    /// Evaluates against the host's variables (looked up by their binding
    /// names: properties by property name, e.g. `namespace` for
    /// `__namespace__`; names the environment does not declare are never
    /// looked up).
    ///
    /// `Ok` with [`PolicyOutcome::aborted`] set when the evaluation was
    /// aborted (deadline, cost limit); `Err` for the expression's own errors
    /// (a missing key, division by zero, a value that is not of the result
    /// type...), which the host handles as its API defines.
    ///
    /// The interpreter checks the deadline at least every 100 comprehension
    /// iterations; an evaluation that finishes past the deadline without
    /// having been interrupted (long work outside comprehensions) is aborted
    /// all the same.
    pub fn evaluate(&self, activation: &dyn Activation) -> Result<PolicyOutcome, EvalError> {
        self.run(activation, None)
    }

    /// As [`Self::evaluate`], also stopping when `cancel` becomes true (reason
    /// [`AbortReason::Cancelled`]).
    pub fn evaluate_cancellable(
        &self,
        activation: &dyn Activation,
        cancel: &AtomicBool,
    ) -> Result<PolicyOutcome, EvalError> {
        self.run(activation, Some(cancel))
    }

    fn run(
        &self,
        activation: &dyn Activation,
        cancel: Option<&AtomicBool>,
    ) -> Result<PolicyOutcome, EvalError> {
        let inner = self.env.inner();
        let limits = &inner.limits;
        let declared = Declared {
            host: activation,
            variables: &inner.variables,
        };
        let start = Instant::now();
        let options = EvalOptions {
            track_cost: false,
            cost_limit: Some(limits.max_cost),
            cancel,
            deadline: Some(start + limits.deadline),
        };
        let evaluation = self.program.eval_with(&declared, &options);
        let elapsed = start.elapsed();
        let abort = |reason| {
            Ok(PolicyOutcome {
                value: Value::Bool(false),
                aborted: Some(Abort { elapsed, reason }),
            })
        };
        let deadline = AbortReason::Deadline {
            limit: limits.deadline,
        };
        match evaluation.value {
            Err(e) => match e.kind() {
                ErrorKind::Cancelled => {
                    if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                        abort(AbortReason::Cancelled)
                    } else {
                        abort(deadline)
                    }
                }
                ErrorKind::CostLimitExceeded => abort(AbortReason::CostLimit {
                    limit: limits.max_cost,
                }),
                _ => Err(e),
            },
            Ok(_) if elapsed > limits.deadline => abort(deadline),
            Ok(value) => {
                let actual = value.runtime_type();
                if !compatible(&actual, &limits.result_type) {
                    return Err(EvalError::msg(format!(
                        "expression must evaluate to {}, but evaluated to a value of type {actual}",
                        limits.result_type
                    )));
                }
                Ok(PolicyOutcome {
                    value,
                    aborted: None,
                })
            }
        }
    }
}

/// The host's activation seen through the environment's declarations: only
/// declared variables resolve, each under its binding name.
struct Declared<'a> {
    host: &'a dyn Activation,
    variables: &'a std::collections::HashMap<String, Declaration>,
}

impl Activation for Declared<'_> {
    fn resolve(&self, name: &str) -> Option<Value> {
        self.host.resolve(&self.variables.get(name)?.binding)
    }

    fn resolve_ref(&self, name: &str) -> Option<&Value> {
        self.host.resolve_ref(&self.variables.get(name)?.binding)
    }
}
