//! What one evaluation is given (limits, cancellation, cost tracking) and
//! what it returns.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use crate::error::EvalResult;

/// Limits and hooks of one evaluation.
#[derive(Clone, Copy, Default)]
pub struct EvalOptions<'a> {
    /// Track the runtime cost as cel-go does; reported in [`Evaluation::cost`].
    pub track_cost: bool,
    /// Stop with `operation cancelled: actual cost limit exceeded` past this cost
    /// (implies tracking).
    pub cost_limit: Option<u64>,
    /// Stop when this flag becomes true (checked at least every 100 iterations).
    pub cancel: Option<&'a AtomicBool>,
    /// Stop at this instant (checked at least every 100 iterations).
    pub deadline: Option<Instant>,
}

/// The outcome of [`crate::Program::eval_with`].
#[derive(Clone, Debug)]
pub struct Evaluation {
    /// The value, or the error evaluation stopped with.
    pub value: EvalResult,
    /// The runtime cost, when tracked.
    pub cost: Option<u64>,
}
