//! cel-go's homogeneous aggregate literal validator
//! (`cel.HomogeneousAggregateLiterals()`, `cel.lib.std.validate.types.homogeneous`).
//!
//! It runs after a successful check, over the final node types: every list
//! literal's elements, and every map literal's keys and values, must have
//! equivalent types (type parameter names aside), or the first disagreeing
//! element is reported as `expected type 'A' but found 'B'` (lists stop at
//! their first mismatch; maps report each disagreeing key and value).
//!
//! Literals that are arguments of an exempt function (cel-go's
//! `HomogeneousAggregateLiteralExemptFunctions`, such as `format` of the
//! strings extension), directly or nested only inside other list and map
//! literals there, are not checked.

use crate::diagnostics::Issues;
use crate::syntax::{Expr, ExprId, ExprKind, SourceInfo};
use crate::types::Type;

use super::format::CheckedType;

/// Reports the list and map literals of `root` whose entries disagree in type.
pub(crate) fn validate(
    root: &Expr,
    types: &super::NodeTypes,
    exempt_functions: &[String],
    source_info: &SourceInfo,
    issues: &mut Issues,
) {
    let type_of = |id: ExprId| types.get(&id).unwrap_or(&Type::Error);
    let mut report = |id: ExprId, expected: &Type, actual: &Type| {
        let msg = format!(
            "expected type '{}' but found '{}'",
            CheckedType(expected),
            CheckedType(actual)
        );
        issues.push(source_info.offset(id), id, msg);
    };
    // Explicit stack: the nodes to visit, each with whether it sits in an
    // exempt position (an argument of an exempt call, or an entry of a
    // literal in such a position).
    let mut stack: Vec<(&Expr, bool)> = vec![(root, false)];
    while let Some((e, exempt)) = stack.pop() {
        match &e.kind {
            ExprKind::Literal(_) | ExprKind::Ident(_) => {}
            ExprKind::Select(s) => stack.push((&s.operand, false)),
            ExprKind::Call(c) => {
                let exempt_args = exempt_functions.iter().any(|f| *f == c.function);
                if let Some(t) = &c.target {
                    stack.push((t, exempt_args));
                }
                stack.extend(c.args.iter().map(|a| (a, exempt_args)));
            }
            ExprKind::List(list) => {
                if !exempt {
                    let mut first: Option<&Type> = None;
                    for (i, el) in list.elements.iter().enumerate() {
                        let mut t = type_of(el.id);
                        if list.optional_indices.contains(&i) {
                            t = t.optional_inner().unwrap_or(t);
                        }
                        match first {
                            None => first = Some(t),
                            Some(f) if !is_equivalent(f, t) => {
                                report(el.id, f, t);
                                break;
                            }
                            Some(_) => {}
                        }
                    }
                }
                stack.extend(list.elements.iter().map(|el| (el, exempt)));
            }
            ExprKind::Map(entries) => {
                if !exempt {
                    let mut first: Option<(&Type, &Type)> = None;
                    for entry in entries {
                        let kt = type_of(entry.key.id);
                        let mut vt = type_of(entry.value.id);
                        if entry.optional {
                            vt = vt.optional_inner().unwrap_or(vt);
                        }
                        let Some((fk, fv)) = first else {
                            first = Some((kt, vt));
                            continue;
                        };
                        if !is_equivalent(fk, kt) {
                            report(entry.key.id, fk, kt);
                        }
                        if !is_equivalent(fv, vt) {
                            report(entry.value.id, fv, vt);
                        }
                    }
                }
                for entry in entries {
                    stack.push((&entry.key, exempt));
                    stack.push((&entry.value, exempt));
                }
            }
            ExprKind::Struct(st) => stack.extend(st.fields.iter().map(|f| (&f.value, false))),
            ExprKind::Comprehension(c) => {
                for part in [
                    &c.iter_range,
                    &c.accu_init,
                    &c.loop_condition,
                    &c.loop_step,
                    &c.result,
                ] {
                    stack.push((part, false));
                }
            }
        }
    }
}

/// cel-go's `Type.IsEquivalentType`: same kind, name and parameters, with
/// type parameters equivalent whatever their names.
fn is_equivalent(a: &Type, b: &Type) -> bool {
    match (a, b) {
        (Type::TypeParam(_), Type::TypeParam(_)) => true,
        (Type::List(x), Type::List(y)) | (Type::Wrapper(x), Type::Wrapper(y)) => {
            is_equivalent(x, y)
        }
        (Type::Map(k1, v1), Type::Map(k2, v2)) => is_equivalent(k1, k2) && is_equivalent(v1, v2),
        (Type::Type(Some(x)), Type::Type(Some(y))) => is_equivalent(x, y),
        (Type::Opaque(n1, p1), Type::Opaque(n2, p2)) => {
            n1 == n2
                && p1.len() == p2.len()
                && p1.iter().zip(p2.iter()).all(|(x, y)| is_equivalent(x, y))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use crate::env::Env;
    use crate::library::ext::Strings;
    use crate::library::std::Std;

    fn compile(expr: &str) -> Result<(), String> {
        let env = Env::builder()
            .library(Std)
            .library(Strings::version(2))
            .options(|o| o.homogeneous_aggregate_literals = true)
            .build();
        let ast = env.parse(expr).map_err(|e| e.to_string())?;
        env.check(&ast).map(|_| ()).map_err(|e| e.to_string())
    }

    #[test]
    fn mixed_literals_are_errors() {
        let e = compile("[1, 'a', 2.0]").unwrap_err();
        assert!(
            e.contains("1:5: expected type 'int' but found 'string'"),
            "{e}"
        );
        assert!(
            !e.contains("double"),
            "lists stop at their first mismatch: {e}"
        );
        let e = compile("{1: 'a', 'b': 2}").unwrap_err();
        assert!(
            e.contains("1:10: expected type 'int' but found 'string'"),
            "{e}"
        );
        assert!(
            e.contains("1:15: expected type 'string' but found 'int'"),
            "{e}"
        );
        // Equivalence, not assignability: dyn and int differ.
        assert!(compile("[1, dyn(2)]").is_err());
        assert!(compile("[[1], [2]] == [[1]]").is_ok());
    }

    #[test]
    fn format_arguments_are_exempt() {
        assert!(compile("'%d %s'.format([1, 'a'])").is_ok());
        assert!(compile("'%s'.format([[1, 'a']])").is_ok());
        // Only literals whose ancestors up to the call are literals.
        assert!(compile("'%s'.format([size([1, 'a'])])").is_err());
        assert!(compile("[1, 'a'].size() == 2").is_err());
    }
}
