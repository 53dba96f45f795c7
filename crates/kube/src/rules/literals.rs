//! The literal validators of Kubernetes' environment (introduced 1.29): cel-go's
//! `ValidateDurationLiterals`, `ValidateTimestampLiterals` and `ValidateRegexLiterals`, run on a
//! checked expression.
//!
//! For every call of `duration`, `timestamp` or `matches` (matched by function name, whatever the
//! overload) whose first parenthesised argument is a literal, the call is tried on that literal
//! (for `matches`, the literal is compiled as a regular expression); a failure is a compile error
//! `invalid <function> argument` at the literal.

use cel::checker::CheckedAst;
use cel::syntax::{ExprKind, Literal};
use cel::{AstValidator, Env, Issues, Type, Value};

/// The functions checked and how.
const VALIDATED: [&str; 3] = ["duration", "timestamp", "matches"];

/// cel-go's duration, timestamp and regex literal validators as one AST validator, which
/// [`super::env::EnvSpec::builder`] installs in the environments that have them.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct LiteralValidators;

impl AstValidator for LiteralValidators {
    fn name(&self) -> &str {
        "cel.validator.literals"
    }

    fn validate(&self, env: &Env, checked: &CheckedAst, issues: &mut Issues) {
        let ast = &checked.ast;
        for e in ast.expr.preorder() {
            let ExprKind::Call(c) = &e.kind else {
                continue;
            };
            if VALIDATED.contains(&c.function.as_str())
                && let Some(arg) = c.args.first()
                && let ExprKind::Literal(lit) = &arg.kind
                && !literal_is_valid(env, &c.function, lit)
            {
                issues.push(
                    ast.source_info.offset(arg.id),
                    arg.id,
                    format!("invalid {} argument", c.function),
                );
            }
        }
    }
}

fn literal_value(lit: &Literal) -> Value {
    match lit {
        Literal::Null => Value::Null,
        Literal::Bool(b) => Value::Bool(*b),
        Literal::Int(i) => Value::Int(*i),
        Literal::Uint(u) => Value::Uint(*u),
        Literal::Double(d) => Value::Double(*d),
        Literal::String(s) => Value::String(s.clone()),
        Literal::Bytes(b) => Value::Bytes(b.clone()),
    }
}

fn literal_is_valid(env: &Env, function: &str, lit: &Literal) -> bool {
    if function == "matches" {
        // cel-go compiles the literal as a pattern (for the global form that is the subject
        // string: a quirk reproduced as is); non-strings do not type-check anyway.
        return match lit {
            Literal::String(p) => cel::go::regexp::Regex::cached(p).is_ok(),
            _ => true,
        };
    }
    // `duration(lit)` / `timestamp(lit)` evaluated as cel-go's `evalCall` does.
    let v = literal_value(lit);
    let ty = v.runtime_type();
    let Some(f) = env.function(function) else {
        return true;
    };
    let overload = f.overloads.iter().find(|o| {
        !o.member && o.params.len() == 1 && (o.params[0] == ty || o.params[0] == Type::Dyn)
    });
    match overload.and_then(|o| o.imp.as_ref()) {
        Some(imp) => imp.call(std::slice::from_ref(&v)).is_ok(),
        None => true,
    }
}
