//! Differential evaluation: the interpreter's specialised paths against its
//! general ones, on any expression.
//!
//! The planner picks dedicated nodes (borrowed operands, fold loops, string
//! concatenation chains) only where no host cost hook could observe them; an
//! environment whose hook gives every call site a cost function that declines
//! every call (returns `None`) therefore
//! evaluates through the general paths with the same costs. [`DiffHarness`]
//! runs an expression in both environments with cost tracking under a limit,
//! and untracked, and reports any difference in value, error or cost.

use std::sync::Arc;

use cel::EnvBuilder;

use super::fuzz_env::{COST_LIMIT, Harness};

/// The same variables in two environments: one as given, one with a cost
/// hook whose cost functions decline every call.
pub struct DiffHarness {
    fast: Harness,
    general: Harness,
}

impl DiffHarness {
    /// `builder` makes the environment's libraries (called twice).
    pub fn new(builder: impl Fn() -> EnvBuilder) -> DiffHarness {
        DiffHarness {
            fast: Harness::new(builder()),
            general: Harness::new(
                builder().runtime_cost_hook(Arc::new(|_, _| Some(Arc::new(|_, _| None)))),
            ),
        }
    }

    /// Evaluates `text` in both environments; `Err` describes a difference.
    pub fn run(&self, text: &str) -> Result<(), String> {
        let Some(fast) = self.fast.evaluate(text, Some(COST_LIMIT)) else {
            return Ok(());
        };
        let general = self.general.evaluate(text, Some(COST_LIMIT));
        if general.as_ref() != Some(&fast) {
            return Err(format!(
                "{text:?}: specialised {fast:?}, general {general:?}"
            ));
        }
        // Within the limit, tracking changes nothing (and the untracked run
        // is bounded by the same work).
        if !fast.0.contains("actual cost limit exceeded") {
            let untracked = self.fast.evaluate(text, None).map(|(v, _)| v);
            if untracked.as_ref() != Some(&fast.0) {
                return Err(format!(
                    "{text:?}: tracked {:?}, untracked {untracked:?}",
                    fast.0
                ));
            }
        }
        Ok(())
    }
}
