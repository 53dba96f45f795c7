//! Evaluation errors.
//!
//! CEL errors are values in the language (they propagate through strict calls
//! and are absorbed by `&&`, `||` and `?:`); in Rust they travel as the `Err`
//! side of [`EvalResult`].

use std::fmt;

use crate::syntax::ExprId;

/// The category of an evaluation error. Callers match on it (for example
/// Kubernetes treats [`ErrorKind::CostLimitExceeded`] differently from a rule
/// that merely failed); the message is what users read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Any error of the language: no such key, division by zero, overflow, ...
    Eval,
    /// No overload of a function accepts the runtime arguments.
    NoSuchOverload,
    /// The runtime cost limit was passed.
    CostLimitExceeded,
    /// Evaluation was cancelled by a deadline or a flag.
    Cancelled,
    /// A resource limit (size of a value being built, iteration count) was passed.
    LimitExceeded,
}

/// An evaluation error: what went wrong and, when known, at which node.
#[derive(Clone, PartialEq, Eq)]
pub struct EvalError(Box<Inner>);

#[derive(Clone, PartialEq, Eq)]
struct Inner {
    kind: ErrorKind,
    message: String,
    expr_id: ExprId,
}

/// The result of evaluating anything.
pub type EvalResult<T = crate::Value> = Result<T, EvalError>;

impl EvalError {
    /// An error of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        EvalError(Box::new(Inner {
            kind,
            message: message.into(),
            expr_id: 0,
        }))
    }

    /// A plain language error with cel-go's message text.
    pub fn msg(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Eval, message)
    }

    /// `no such overload` (cel-go's text; callers may add detail).
    pub fn no_such_overload() -> Self {
        Self::new(ErrorKind::NoSuchOverload, "no such overload")
    }

    /// What kind of error this is.
    pub fn kind(&self) -> ErrorKind {
        self.0.kind
    }

    /// The error's text, as cel-go words it.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// The node the error arose at (0 when unknown).
    pub fn expr_id(&self) -> ExprId {
        self.0.expr_id
    }

    /// Records the node, unless one is recorded already.
    pub fn at(mut self, id: ExprId) -> Self {
        if self.0.expr_id == 0 {
            self.0.expr_id = id;
        }
        self
    }
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl fmt::Debug for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EvalError({:?}, {:?})", self.0.kind, self.0.message)
    }
}

impl std::error::Error for EvalError {}
