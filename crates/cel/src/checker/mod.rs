//! The type checker: resolves names against declarations and a type provider,
//! infers a type for every node and picks the overloads each call may use,
//! reproducing cel-go's checker (its inference, its overload sets and its
//! error messages).
//!
//! * [`names`]: container-relative name resolution, built-in type names,
//!   well-known protobuf types;
//! * [`unify`]: assignability, type parameter substitution;
//! * [`check`](mod@check): the walk over the expression;
//! * [`format`]: types printed as cel-go prints them;
//! * [`homogeneous`]: the homogeneous aggregate literal validator run after
//!   a successful check.

use std::collections::HashMap;

use crate::diagnostics::Issues;
use crate::env::Env;
use crate::syntax::{Ast, ExprId};
use crate::types::Type;
use crate::value::Value;

mod check;
pub mod format;
mod homogeneous;
pub mod names;
pub mod unify;

/// Object types supplied by the host (Kubernetes schemas, messages).
pub trait TypeProvider: Send + Sync {
    /// The type named `name`, if the provider knows it.
    fn find_type(&self, name: &str) -> Option<Type>;

    /// The type of field `field` of object type `type_name`.
    fn field_type(&self, type_name: &str, field: &str) -> Option<Type>;

    /// The field names of object type `type_name` (for messages and listings).
    fn field_names(&self, _type_name: &str) -> Vec<String> {
        Vec::new()
    }

    /// The value of the enum constant with fully qualified name `name`
    /// (`pkg.Msg.Enum.VALUE`), if the provider has enums.
    fn enum_value(&self, _name: &str) -> Option<i64> {
        None
    }
}

/// What a name or call resolved to.
#[derive(Clone, Debug)]
pub struct Reference {
    /// The fully qualified name of an identifier (variable, type, enum constant).
    pub name: String,
    /// The overload ids a call may use, in declaration order.
    pub overload_ids: Vec<String>,
    /// The value of a constant the name resolved to (enum values, type names).
    pub value: Option<Value>,
}

/// A checked expression: the AST with a type per node and resolved references.
///
/// The AST is the input rewritten as cel-go rewrites it: identifiers and
/// selections naming a declaration hold its fully qualified name (`x.y` with a
/// declared `x.y` becomes the identifier `x.y`), namespaced calls are global
/// calls of the qualified function, message constructions carry the fully
/// qualified type name.
#[derive(Clone, Debug)]
pub struct CheckedAst {
    pub ast: Ast,
    pub types: HashMap<ExprId, Type>,
    pub references: HashMap<ExprId, Reference>,
}

impl CheckedAst {
    /// The type of the whole expression.
    pub fn result_type(&self) -> &Type {
        self.types.get(&self.ast.expr.id).unwrap_or(&Type::Dyn)
    }

    /// The type of node `id`.
    pub fn type_of(&self, id: ExprId) -> Option<&Type> {
        self.types.get(&id)
    }
}

/// Checks `ast` in `env`.
pub fn check(env: &Env, ast: &Ast) -> Result<CheckedAst, Issues> {
    check_owned(env, ast.clone())
}

/// Checks `ast` in `env`, reusing the tree (no copy).
pub fn check_owned(env: &Env, mut ast: Ast) -> Result<CheckedAst, Issues> {
    let nodes = usize::try_from(ast.next_id)
        .unwrap_or(0)
        .max(ast.source_info.offsets.len());
    let issues = Issues::new(ast.source.clone());
    let mut checker = check::Checker::new(env, &ast.source_info, issues, nodes);
    checker.check(&mut ast.expr);
    let types = checker.finish_types();
    let references = std::mem::take(&mut checker.references);
    let issues = std::mem::replace(&mut checker.issues, Issues::new(ast.source.clone()));
    drop(checker);
    if !issues.is_empty() {
        return Err(issues);
    }
    let options = env.options();
    if options.homogeneous_aggregate_literals {
        let mut issues = issues;
        homogeneous::validate(
            &ast.expr,
            &types,
            &options.homogeneous_literal_exempt_functions,
            &ast.source_info,
            &mut issues,
        );
        if !issues.is_empty() {
            return Err(issues);
        }
    }
    Ok(CheckedAst {
        ast,
        types,
        references,
    })
}

#[cfg(test)]
mod tests;
