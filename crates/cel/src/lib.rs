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

pub mod activation;
pub mod cel_go;
pub mod checker;
pub mod cost;
pub mod diagnostics;
pub mod env;
pub mod error;
pub mod eval;
pub mod functions;
pub mod go;
pub mod library;
mod name_hash;
pub mod policy;
pub mod program;
#[cfg(feature = "proto")]
pub mod proto;
pub mod syntax;
pub mod types;
pub mod value;

pub use activation::Activation;
pub use cel_go::CelGoVersion;
pub use diagnostics::{Issue, Issues};
pub use env::{Env, EnvBuilder, EnvOptions, Library};
pub use error::{ErrorKind, EvalError, EvalResult};
pub use functions::{FnImpl, Function, Overload};
pub use program::{EvalOptions, Evaluation, Program};
pub use types::Type;
pub use value::Value;
