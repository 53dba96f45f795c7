//! Environments: what expressions may use (libraries, functions, variables,
//! macros, options), and the compile pipeline parse → check → plan.
//!
//! `options.rs` holds [`EnvOptions`], `builder.rs` [`EnvBuilder`] and the
//! [`Library`] trait, `decls.rs` the built [`Env`]'s declarations (what the
//! checker, the estimator and the planner read) and the [`AstValidator`] hook;
//! this file builds environments and compiles expressions with them.

mod builder;
mod call_shapes;
mod decls;
mod once_slots;
mod options;

use std::sync::{Arc, OnceLock};

pub use builder::{EnvBuilder, Library};
pub(crate) use call_shapes::{Candidate, DeclaredFunction, OverloadIds};
pub use decls::{AstValidator, Env};
pub(crate) use decls::{EnvInner, SharedDecls};
pub use options::EnvOptions;

use crate::checker::CheckedAst;
use crate::diagnostics::Issues;
use crate::program::Program;
use crate::syntax::{self, Ast};

impl EnvBuilder {
    /// Builds the environment, adapted to the cel-go release of
    /// [`EnvOptions::cel_go`].
    pub fn build(mut self) -> Env {
        crate::library::adapt::adapt(&mut self);
        let cross_type_numeric = self.options.cross_type_numeric_comparisons;
        let function_roots = self
            .functions
            .keys()
            .filter_map(|n| Some(n.split_once('.')?.0.to_string()))
            .collect();
        let functions = self
            .functions
            .into_iter()
            .map(|(n, f)| (n, Arc::new(DeclaredFunction::new(f, cross_type_numeric))))
            .collect();
        let macro_names = syntax::MacroNames::of(&self.options.parser.macros);
        let shared = Arc::new(SharedDecls {
            macro_names,
            options: self.options,
            functions,
            function_memo: Default::default(),
            function_roots,
            overload_costs: self.overload_costs,
            cost_hook: self.cost_hook,
            overload_estimators: self.overload_estimators,
            type_identifiers: self.type_identifiers,
            ast_validators: self.ast_validators,
            std_only: OnceLock::new(),
        });
        let dotted_roots =
            EnvInner::dotted_roots(&self.variables, &shared, self.type_provider.as_ref());
        Env {
            inner: Arc::new(EnvInner {
                shared,
                variables: self.variables,
                type_provider: self.type_provider,
                dotted_roots,
                idents: Default::default(),
            }),
        }
    }
}

impl Env {
    /// A builder of an empty environment ([`EnvBuilder::new`]).
    pub fn builder() -> EnvBuilder {
        EnvBuilder::new()
    }

    /// Parses (and expands macros).
    pub fn parse(&self, text: &str) -> Result<Ast, Issues> {
        let shared = &self.inner.shared;
        syntax::parse(text, &shared.options.parser, Some(shared.macro_names))
    }

    /// Type-checks a parsed expression, then runs the AST validators (cel-go's
    /// `Env.Check`).
    pub fn check(&self, ast: &Ast) -> Result<CheckedAst, Issues> {
        crate::checker::check::check(self, ast)
    }

    /// [`Env::check`] on an expression given away: the tree is rewritten in
    /// place, not copied.
    pub fn check_owned(&self, ast: Ast) -> Result<CheckedAst, Issues> {
        crate::checker::check::check_owned(self, ast)
    }

    /// Parses, checks (when the `check` option is on) and plans.
    ///
    /// An expression that is one literal (`true`, `'a'`, `42`) compiles
    /// straight to a constant program when no AST validator is installed:
    /// parsing, checking and planning it could only give that constant.
    pub fn compile(&self, text: &str) -> Result<Program, Issues> {
        let shared = &self.inner.shared;
        if shared.ast_validators.is_empty()
            && let Some(lit) = syntax::lone_literal(text, &shared.options.parser)
        {
            return Ok(Program::literal(self, &lit));
        }
        let ast = self.parse(text)?;
        if self.inner.shared.options.check {
            let checked = crate::checker::check::check_owned(self, ast)?;
            let program = self.program_checked(&checked);
            checked.recycle();
            program
        } else {
            self.program(&ast)
        }
    }

    /// Plans an unchecked expression: functions are dispatched on runtime types.
    pub fn program(&self, ast: &Ast) -> Result<Program, Issues> {
        Program::plan(self, ast, None)
    }

    /// Plans a checked expression, using its types and resolved references.
    pub fn program_checked(&self, checked: &CheckedAst) -> Result<Program, Issues> {
        Program::plan(self, &checked.ast, Some(checked))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::Value;
    use crate::library::Std;
    use crate::types::Type;

    #[test]
    fn a_lone_literal_compiles_as_the_whole_pipeline_would() {
        let env = EnvBuilder::new().library(Std).build();
        let texts = [
            "true",
            " false ",
            "null",
            "42",
            "0x1F",
            "7u",
            "1.5e3",
            ".5",
            "'a\\n'",
            "r'\\d'",
            "\"x\"",
            "b'\\xff'",
            "// note\ntrue",
            "99999999999999999999",
            "18446744073709551616u",
            "'\\q'",
            "1e999",
            "-1",
            "tru",
            "true true",
            "'unterminated",
            "",
        ];
        let vars = HashMap::<String, Value>::new();
        for text in texts {
            let piecewise = env
                .parse(text)
                .and_then(|ast| env.check(&ast))
                .and_then(|checked| env.program_checked(&checked));
            match (env.compile(text), piecewise) {
                (Ok(fast), Ok(slow)) => assert_eq!(
                    format!("{:?}", fast.eval(&vars)),
                    format!("{:?}", slow.eval(&vars)),
                    "{text:?}"
                ),
                (Err(fast), Err(slow)) => {
                    assert_eq!(fast.to_string(), slow.to_string(), "{text:?}")
                }
                (fast, slow) => panic!(
                    "{text:?}: compile {:?} but parse, check and plan {:?}",
                    fast.is_ok(),
                    slow.is_ok()
                ),
            }
        }
    }

    #[test]
    fn a_compile_leaves_no_trace_in_the_next_check() {
        let env = EnvBuilder::new()
            .library(Std)
            .variable("a", Type::Int)
            .build();
        let summary = |checked: &CheckedAst| {
            let mut types: Vec<String> = checked
                .types
                .iter()
                .map(|(id, t)| format!("{id}:{t}"))
                .collect();
            types.sort();
            (types, checked.references.len())
        };
        let small = "a + 1 == 2";
        let env_copy = env.clone();
        let fresh = std::thread::spawn(move || {
            let env = env_copy;
            summary(
                &env.check(&env.parse(small).expect("parses"))
                    .expect("checks"),
            )
        })
        .join()
        .expect("checks on a fresh thread");
        // A larger expression's tables are reused by the smaller one's check.
        let large = "[a, a + 1, a * 2].all(x, x > 0 && x < 100) && string(a).size() > 0";
        assert!(env.compile(large).is_ok());
        let after = summary(
            &env.check(&env.parse(small).expect("parses"))
                .expect("checks"),
        );
        assert_eq!(after, fresh);
    }

    #[test]
    fn derived_environments_add_variables_and_share_functions() {
        let base = EnvBuilder::new()
            .library(Std)
            .variable("a", Type::Int)
            .build();
        let derived = base.with_declarations([("b", Type::String)], None);
        // The base is unchanged; the derived one has both variables and the same functions.
        assert!(base.compile("b == 'x'").is_err());
        assert!(derived.variable("a").is_some());
        assert!(Arc::ptr_eq(&base.inner.shared, &derived.inner.shared));
        let program = derived
            .compile("a + 1 == 2 && b.size() == 1")
            .expect("compiles");
        let vars = HashMap::from([
            ("a".to_string(), Value::Int(1)),
            ("b".to_string(), Value::String("x".into())),
        ]);
        assert!(matches!(program.eval(&vars), Ok(Value::Bool(true))));
        // A redeclared variable takes its new type.
        let retyped = derived.with_declarations([("a", Type::String)], None);
        assert!(retyped.compile("a + 1").is_err());
        assert!(retyped.compile("a + 'x' == b").is_ok());
    }
}
