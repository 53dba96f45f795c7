//! A complete Common Expression Language (CEL) engine, reproducing cel-go.
//!
//! The public API follows cel-go's `cel` package:
//!
//! * [`Env`] (built by [`EnvBuilder`] from [`Library`]s, variables, options and
//!   [`AstValidator`]s): parse, check and compile expressions;
//! * [`Program`]: a compiled expression, evaluated against an [`Activation`]
//!   with [`EvalOptions`] (cost limits, cancellation, deadline);
//! * [`Issues`] (compile errors, cel-go's texts) and [`EvalError`] (runtime);
//! * [`Type`] and [`Value`], with the host hooks [`checker::TypeProvider`],
//!   [`value::MapProvider`], [`value::ListProvider`] and [`value::Opaque`];
//! * [`syntax`]: the parsed tree ([`syntax::Ast`]) and its read-only
//!   navigation ([`syntax::Expr::preorder`]), macros;
//! * [`checker`]: the checked tree ([`checker::CheckedAst`]);
//! * [`cost`]: cel-go's static cost estimate and its host hooks;
//! * [`library`]: the standard library and cel-go's extensions;
//! * [`go`]: Go behaviour CEL inherits: regular expressions, `net/netip`,
//!   number and string formatting;
//! * [`policy`]: environments for client-written expressions;
//! * `proto` (feature `proto`): protobuf messages as CEL values.
//!
//! ```
//! let env = cel::Env::builder().library(cel::library::Std).build();
//! let program = env.compile("1 + 2 == 3").unwrap();
//! assert!(matches!(program.eval(&()), Ok(cel::Value::Bool(true))));
//! ```
//!
//! This crate knows nothing of Kubernetes: hosts add their types through
//! [`checker::TypeProvider`], their values through [`value::MapProvider`] and
//! [`value::ListProvider`], their functions through [`Library`] and their
//! compile-time checks through [`AstValidator`].

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
mod spare;
pub mod syntax;
mod types;
pub mod value;

pub use activation::Activation;
pub use cel_go::CelGoVersion;
pub use diagnostics::{Issue, Issues};
pub use env::{AstValidator, Env, EnvBuilder, EnvOptions, Library};
pub use error::{ErrorKind, EvalError, EvalResult};
pub use eval::{EvalOptions, Evaluation};
pub use functions::{
    CallCostFn, ClosureFn, FnImpl, Function, Overload, OverloadCostFn, RuntimeCostHook,
};
pub use program::Program;
pub use types::Type;
pub use value::Value;
