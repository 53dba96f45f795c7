//! A complete Common Expression Language (CEL) engine.
//!
//! The pipeline, as in cel-go, has one module per stage:
//!
//! * [`syntax`]: lexer, parser, macro expansion, the AST with ids and positions;
//! * [`checker`]: declarations, type inference, overload resolution;
//! * [`cost`]: the static cost estimate of a checked expression;
//! * [`eval`]: the planner and the interpreter;
//! * [`library`]: the standard library and the extensions.
//!
//! ```ignore
//! let env = cel::Env::builder().library(cel::library::Std).build();
//! let program = env.compile("1 + 2 == 3").unwrap();
//! assert!(matches!(program.eval(&()), Ok(cel::Value::Bool(true))));
//! ```
//!
//! This crate knows nothing of Kubernetes: hosts add their types through
//! [`checker::TypeProvider`], their values through [`value::MapProvider`] and
//! [`value::ListProvider`], and their functions through [`Library`].

#![deny(missing_docs)]

mod activation;
mod cel_go;
pub mod checker;
pub mod cost;
mod diagnostics;
mod env;
mod error;
mod eval;
mod functions;
pub mod go;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod internals;
pub mod library;
mod name_hash;
pub mod policy;
mod program;
#[cfg(feature = "proto")]
pub mod proto;
pub mod syntax;
mod types;
pub mod value;

pub use activation::Activation;
pub use cel_go::CelGoVersion;
pub use diagnostics::{Issue, Issues};
pub use env::{AstValidator, Env, EnvBuilder, EnvOptions, Library};
pub use error::{ErrorKind, EvalError, EvalResult};
pub use eval::{EvalOptions, Evaluation};
pub use functions::{ClosureFn, FnImpl, Function, Overload, OverloadCostFn, RuntimeCostHook};
pub use program::Program;
pub use types::Type;
pub use value::Value;
