//! Checker tests on hand-built trees and small hand-declared environments.

use std::sync::Arc;

use crate::env::{Env, EnvBuilder};
use crate::functions::{Function, Overload};
use crate::syntax::{
    Ast, Call, Comprehension, Expr, ExprKind, List, Literal, MapEntry, Select, Source, SourceInfo,
    Struct, StructField,
};
use crate::types::Type;

use super::check::{check, check_owned};
use super::{CheckedAst, TypeProvider};

/// Builds trees with dense ids; every node gets offset `at` (set per node).
struct B {
    next: i64,
    info: SourceInfo,
}

impl B {
    fn new() -> Self {
        B {
            next: 1,
            info: SourceInfo::default(),
        }
    }
    fn node(&mut self, at: i32, kind: ExprKind) -> Expr {
        let id = self.next;
        self.next += 1;
        self.info.set_offset(id, at);
        Expr::new(id, kind)
    }
    fn int(&mut self, at: i32, v: i64) -> Expr {
        self.node(at, ExprKind::Literal(Literal::Int(v)))
    }
    fn str(&mut self, at: i32, v: &str) -> Expr {
        self.node(at, ExprKind::Literal(Literal::String(v.into())))
    }
    fn ident(&mut self, at: i32, n: &str) -> Expr {
        self.node(at, ExprKind::Ident(n.into()))
    }
    fn call(&mut self, at: i32, f: &str, args: Vec<Expr>) -> Expr {
        self.node(
            at,
            ExprKind::Call(Box::new(Call {
                target: None,
                function: f.into(),
                args: args.into(),
            })),
        )
    }
    fn member(&mut self, at: i32, target: Expr, f: &str, args: Vec<Expr>) -> Expr {
        self.node(
            at,
            ExprKind::Call(Box::new(Call {
                target: Some(target),
                function: f.into(),
                args: args.into(),
            })),
        )
    }
    fn select(&mut self, at: i32, operand: Expr, field: &str) -> Expr {
        self.node(
            at,
            ExprKind::Select(Box::new(Select {
                operand,
                field: field.into(),
                test_only: false,
                optional: false,
            })),
        )
    }
    fn list(&mut self, at: i32, elements: Vec<Expr>) -> Expr {
        self.node(
            at,
            ExprKind::List(Box::new(List {
                elements,
                optional_indices: Vec::new(),
            })),
        )
    }
    fn finish(self, text: &str, expr: Expr) -> Ast {
        Ast {
            expr,
            source_info: self.info,
            source: Arc::new(Source::new(text)),
            next_id: self.next,
        }
    }
}

fn a() -> Type {
    Type::param("A")
}

/// A small slice of the standard library's declarations.
fn mini_std(b: &mut EnvBuilder) {
    let add = Function::new("_+_")
        .overload(Overload::global(
            "add_int64",
            vec![Type::Int, Type::Int],
            Type::Int,
            None,
        ))
        .overload(Overload::global(
            "add_string",
            vec![Type::String, Type::String],
            Type::String,
            None,
        ))
        .overload(Overload::global(
            "add_list",
            vec![Type::list(a()), Type::list(a())],
            Type::list(a()),
            None,
        ));
    b.add_function(add);
    b.add_function(Function::new("_==_").overload(Overload::global(
        "equals",
        vec![a(), a()],
        Type::Bool,
        None,
    )));
    b.add_function(Function::new("_&&_").overload(Overload::global(
        "logical_and",
        vec![Type::Bool, Type::Bool],
        Type::Bool,
        None,
    )));
    b.add_function(
        Function::new("_<_")
            .overload(Overload::global(
                "less_int64",
                vec![Type::Int, Type::Int],
                Type::Bool,
                None,
            ))
            .overload(Overload::global(
                "less_double",
                vec![Type::Double, Type::Double],
                Type::Bool,
                None,
            ))
            .overload(Overload::global(
                "less_int64_double",
                vec![Type::Int, Type::Double],
                Type::Bool,
                None,
            )),
    );
    b.add_function(
        Function::new("size")
            .overload(Overload::global(
                "size_list",
                vec![Type::list(a())],
                Type::Int,
                None,
            ))
            .overload(Overload::member(
                "list_size",
                vec![Type::list(a())],
                Type::Int,
                None,
            )),
    );
    b.add_function(
        Function::new("_[_]")
            .overload(Overload::global(
                "index_list",
                vec![Type::list(a()), Type::Int],
                a(),
                None,
            ))
            .overload(Overload::global(
                "index_map",
                vec![
                    Type::map(Type::param("K"), Type::param("V")),
                    Type::param("K"),
                ],
                Type::param("V"),
                None,
            )),
    );
    b.add_function(Function::new("_?_:_").overload(Overload::global(
        "conditional",
        vec![Type::Bool, a(), a()],
        a(),
        None,
    )));
}

fn env_with(f: impl FnOnce(&mut EnvBuilder)) -> Env {
    let mut b = Env::builder();
    mini_std(&mut b);
    f(&mut b);
    b.build()
}

fn ok(env: &Env, ast: &Ast) -> CheckedAst {
    match check(env, ast) {
        Ok(c) => c,
        Err(e) => panic!("unexpected errors:\n{e}"),
    }
}

fn err(env: &Env, ast: &Ast) -> String {
    match check(env, ast) {
        Ok(c) => panic!("expected an error, got type {:?}", c.result_type()),
        Err(e) => e.to_string(),
    }
}

fn ids(c: &CheckedAst, id: i64) -> Vec<String> {
    c.references
        .get(&id)
        .map(|r| r.overload_ids.iter().map(|s| s.to_string()).collect())
        .unwrap_or_default()
}

#[test]
fn literals_and_arithmetic() {
    let env = env_with(|_| {});
    let mut b = B::new();
    let (l, r) = (b.int(0, 1), b.int(4, 2));
    let e = b.call(2, "_+_", vec![l, r]);
    let ast = b.finish("1 + 2", e);
    let c = ok(&env, &ast);
    assert_eq!(c.result_type(), &Type::Int);
    assert_eq!(ids(&c, 3), ["add_int64"]);
}

#[test]
fn no_matching_overload_message() {
    let env = env_with(|_| {});
    let mut b = B::new();
    let (l, r) = (b.int(0, 1), b.str(4, "a"));
    let e = b.call(2, "_+_", vec![l, r]);
    let ast = b.finish("1 + 'a'", e);
    assert_eq!(
        err(&env, &ast),
        "ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, string)'\n | 1 + 'a'\n | ..^"
    );
}

#[test]
fn undeclared_reference() {
    let env = env_with(|_| {});
    let mut b = B::new();
    let (l, r) = (b.int(0, 1), b.ident(4, "x"));
    let e = b.call(2, "_+_", vec![l, r]);
    let ast = b.finish("1 + x", e);
    assert_eq!(
        err(&env, &ast),
        "ERROR: <input>:1:5: undeclared reference to 'x' (in container '')\n | 1 + x\n | ....^"
    );
}

#[test]
fn empty_list_takes_its_type_from_unification() {
    // [] + [1]
    let env = env_with(|_| {});
    let mut b = B::new();
    let empty = b.list(0, vec![]);
    let one = b.int(6, 1);
    let l1 = b.list(5, vec![one]);
    let e = b.call(3, "_+_", vec![empty, l1]);
    let ast = b.finish("[] + [1]", e);
    let c = ok(&env, &ast);
    assert_eq!(c.result_type(), &Type::list(Type::Int));
    assert_eq!(c.types[&1], Type::list(Type::Int));
    // A lone [] is list(dyn).
    let mut b = B::new();
    let e = b.list(0, vec![]);
    let c = ok(&env, &b.finish("[]", e));
    assert_eq!(c.result_type(), &Type::list(Type::Dyn));
}

#[test]
fn mixed_list_is_dyn_or_an_error_when_homogeneous() {
    let build = || {
        let mut b = B::new();
        let (x, y) = (b.int(1, 1), b.str(4, "A"));
        let e = b.list(0, vec![x, y]);
        b.finish("[1, \"A\"]", e)
    };
    let env = env_with(|_| {});
    assert_eq!(ok(&env, &build()).result_type(), &Type::list(Type::Dyn));
    let env = env_with(|b| b.options_mut().homogeneous_aggregate_literals = true);
    assert_eq!(
        err(&env, &build()),
        "ERROR: <input>:1:5: expected type 'int' but found 'string'\n | [1, \"A\"]\n | ....^"
    );
}

#[test]
fn dyn_arguments_keep_every_candidate() {
    let env = env_with(|b| b.add_variable("d", Type::Dyn));
    let mut b = B::new();
    let (l, r) = (b.ident(0, "d"), b.int(4, 1));
    let e = b.call(2, "_<_", vec![l, r]);
    let ast = b.finish("d < 1", e);
    let c = ok(&env, &ast);
    assert_eq!(ids(&c, 3), ["less_int64"]);
    let env = env_with(|b| {
        b.add_variable("d", Type::Dyn);
        b.options_mut().cross_type_numeric_comparisons = true;
    });
    let mut b = B::new();
    let (l, r) = (
        b.ident(0, "d"),
        b.node(4, ExprKind::Literal(Literal::Double(1.5))),
    );
    let e = b.call(2, "_<_", vec![l, r]);
    let c = ok(&env, &b.finish("d < 1.5", e));
    assert_eq!(ids(&c, 3), ["less_double", "less_int64_double"]);
    assert_eq!(c.result_type(), &Type::Bool);
}

#[test]
fn dyn_index_matches_list_and_map() {
    let env = env_with(|b| b.add_variable("d", Type::Dyn));
    let mut b = B::new();
    let (l, r) = (b.ident(0, "d"), b.int(2, 0));
    let e = b.call(1, "_[_]", vec![l, r]);
    let c = ok(&env, &b.finish("d[0]", e));
    assert_eq!(ids(&c, 3), ["index_list", "index_map"]);
    assert_eq!(c.result_type(), &Type::Dyn);
}

#[test]
fn qualified_identifiers_and_containers() {
    // a.b.c with `a.b` declared: the selection `a.b` becomes the identifier `a.b`.
    let env = env_with(|b| b.add_variable("a.b", Type::map(Type::String, Type::Int)));
    let mut b = B::new();
    let i = b.ident(0, "a");
    let ab = b.select(1, i, "b");
    let e = b.select(3, ab, "c");
    let c = ok(&env, &b.finish("a.b.c", e));
    assert_eq!(c.result_type(), &Type::Int);
    let ExprKind::Select(sel) = &c.ast.expr.kind else {
        panic!("select expected")
    };
    assert_eq!(sel.operand.kind, ExprKind::Ident("a.b".into()));
    assert_eq!(c.references[&sel.operand.id].name, "a.b");

    // In container `pkg`, `x` resolves to `pkg.x`.
    let env = env_with(|b| {
        b.add_variable("pkg.x", Type::Int);
        b.options_mut().container = "pkg".into();
    });
    let mut b = B::new();
    let e = b.ident(0, "x");
    let c = ok(&env, &b.finish("x", e));
    assert_eq!(c.ast.expr.kind, ExprKind::Ident("pkg.x".into()));
    let mut b = B::new();
    let e = b.ident(0, "y");
    assert!(
        err(&env, &b.finish("y", e)).contains("undeclared reference to 'y' (in container 'pkg')")
    );
}

#[test]
fn type_identifiers() {
    let env = env_with(|_| {});
    let mut b = B::new();
    let e = b.ident(0, "int");
    let c = ok(&env, &b.finish("int", e));
    assert_eq!(c.result_type(), &Type::type_of(Type::Int));
    let mut b = B::new();
    let e = b.ident(0, "list");
    let c = ok(&env, &b.finish("list", e));
    assert_eq!(c.result_type(), &Type::type_of(Type::list(Type::Dyn)));
}

#[test]
fn field_selection_errors() {
    let env = env_with(|b| b.add_variable("i", Type::Int));
    let mut b = B::new();
    let i = b.ident(0, "i");
    let e = b.select(1, i, "f");
    assert_eq!(
        err(&env, &b.finish("i.f", e)),
        "ERROR: <input>:1:2: type 'int' does not support field selection\n | i.f\n | .^"
    );
    // [].length names the free variable.
    let mut b = B::new();
    let l = b.list(0, vec![]);
    let e = b.select(2, l, "length");
    assert!(
        err(&env, &b.finish("[].length", e))
            .contains("type 'list(_var0)' does not support field selection")
    );
}

#[test]
fn member_and_global_styles() {
    let env = env_with(|b| b.add_variable("l", Type::list(Type::String)));
    let mut b = B::new();
    let l = b.ident(0, "l");
    let e = b.member(1, l, "size", vec![]);
    let c = ok(&env, &b.finish("l.size()", e));
    assert_eq!(ids(&c, 2), ["list_size"]);
    let mut b = B::new();
    let one = b.int(0, 1);
    let e = b.member(1, one, "size", vec![]);
    assert!(
        err(&env, &b.finish("1.size()", e))
            .contains("found no matching overload for 'size' applied to 'int.()'")
    );
}

#[test]
fn namespaced_function_call() {
    let env = env_with(|b| {
        b.add_function(Function::new("base64.encode").overload(Overload::global(
            "base64_encode_string",
            vec![Type::String],
            Type::String,
            None,
        )))
    });
    let mut b = B::new();
    let ns = b.ident(0, "base64");
    let s = b.str(14, "hello");
    let e = b.member(13, ns, "encode", vec![s]);
    let c = ok(&env, &b.finish("base64.encode('hello')", e));
    let call = c.ast.expr.as_call().expect("call");
    assert!(call.target.is_none());
    assert_eq!(call.function, "base64.encode");
    assert_eq!(c.result_type(), &Type::String);
}

/// `[1, 2].map(x, x + 1)` as the parser expands it.
fn map_comprehension(b: &mut B) -> Expr {
    let (one, two) = (b.int(1, 1), b.int(4, 2));
    let range = b.list(0, vec![one, two]);
    let init = b.list(7, vec![]);
    let cond = b.node(7, ExprKind::Literal(Literal::Bool(true)));
    let acc = b.ident(7, "@result");
    let x = b.ident(15, "x");
    let one = b.int(19, 1);
    let sum = b.call(17, "_+_", vec![x, one]);
    let wrapped = b.list(7, vec![sum]);
    let step = b.call(7, "_+_", vec![acc, wrapped]);
    let result = b.ident(7, "@result");
    b.node(
        7,
        ExprKind::Comprehension(Box::new(Comprehension {
            iter_var: "x".into(),
            iter_var2: None,
            iter_range: range,
            accu_var: "@result".into(),
            accu_init: init,
            loop_condition: cond,
            loop_step: step,
            result,
        })),
    )
}

#[test]
fn comprehension_types_flow_through_the_accumulator() {
    let env = env_with(|_| {});
    let mut b = B::new();
    let e = map_comprehension(&mut b);
    let c = ok(&env, &b.finish("[1, 2].map(x, x + 1)", e));
    assert_eq!(c.result_type(), &Type::list(Type::Int));
    // The accumulator's initial [] was inferred too.
    assert_eq!(c.types[&4], Type::list(Type::Int));
}

#[test]
fn comprehension_over_a_non_range() {
    let env = env_with(|b| b.add_variable("z", Type::Bool));
    let mut b = B::new();
    let range = b.ident(0, "z");
    let init = b.node(0, ExprKind::Literal(Literal::Bool(true)));
    let cond = b.node(0, ExprKind::Literal(Literal::Bool(true)));
    let step = b.node(0, ExprKind::Literal(Literal::Bool(true)));
    let result = b.ident(0, "@result");
    let e = b.node(
        0,
        ExprKind::Comprehension(Box::new(Comprehension {
            iter_var: "v".into(),
            iter_var2: None,
            iter_range: range,
            accu_var: "@result".into(),
            accu_init: init,
            loop_condition: cond,
            loop_step: step,
            result,
        })),
    );
    assert!(err(&env, &b.finish("z.all(v, true)", e)).contains(
        "expression of type 'bool' cannot be range of a comprehension (must be list, map, or dynamic)"
    ));
}

#[test]
fn logical_operators_report_non_bool_arguments() {
    let env = env_with(|_| {});
    let mut b = B::new();
    let (l, r) = (
        b.node(0, ExprKind::Literal(Literal::Bool(true))),
        b.int(8, 0),
    );
    let e = b.call(5, "_&&_", vec![l, r]);
    assert_eq!(
        err(&env, &b.finish("true && 0", e)),
        "ERROR: <input>:1:9: expected type 'bool' but found 'int'\n | true && 0\n | ........^"
    );
}

#[test]
fn map_literals_and_selection() {
    let env = env_with(|_| {});
    let mut b = B::new();
    let (k, v) = (b.str(1, "a"), b.int(5, 1));
    let id = b.next;
    b.next += 1;
    let m = b.node(
        0,
        ExprKind::Map(vec![MapEntry {
            id,
            key: k,
            value: v,
            optional: false,
        }]),
    );
    let e = b.select(8, m, "a");
    let c = ok(&env, &b.finish("{'a': 1}.a", e));
    assert_eq!(c.result_type(), &Type::Int);
}

struct Msgs;

impl TypeProvider for Msgs {
    fn find_type(&self, name: &str) -> Option<Type> {
        (name == "pkg.Msg").then(|| Type::object("pkg.Msg"))
    }
    fn field_type(&self, type_name: &str, field: &str) -> Option<Type> {
        match (type_name, field) {
            ("pkg.Msg", "n") => Some(Type::Int),
            ("pkg.Msg", "w") => Some(Type::wrapper(Type::Int)),
            _ => None,
        }
    }
    fn enum_value(&self, name: &str) -> Option<i64> {
        (name == "pkg.Msg.Kind.B").then_some(1)
    }
}

#[test]
fn message_construction_and_fields() {
    let env = env_with(|b| {
        b.options_mut().container = "pkg".into();
    });
    let env = {
        let mut b = Env::builder().type_provider(Arc::new(Msgs));
        mini_std(&mut b);
        b.options_mut().container = env.options().container.clone();
        b.build()
    };
    let mut b = B::new();
    let v = b.node(6, ExprKind::Literal(Literal::Uint(1)));
    let fid = b.next;
    b.next += 1;
    b.info.set_offset(fid, 5);
    let e = b.node(
        3,
        ExprKind::Struct(Box::new(Struct {
            type_name: "Msg".into(),
            fields: vec![StructField {
                id: fid,
                name: "n".into(),
                value: v,
                optional: false,
            }],
        })),
    );
    assert_eq!(
        err(&env, &b.finish("Msg{n: 1u}", e)),
        "ERROR: <input>:1:6: expected type of field 'n' is 'int' but provided type is 'uint'\n | Msg{n: 1u}\n | .....^"
    );
    let mut b = B::new();
    let v = b.int(6, 1);
    let fid = b.next;
    b.next += 1;
    let st = b.node(
        3,
        ExprKind::Struct(Box::new(Struct {
            type_name: "Msg".into(),
            fields: vec![StructField {
                id: fid,
                name: "n".into(),
                value: v,
                optional: false,
            }],
        })),
    );
    let e = b.select(9, st, "n");
    let c = ok(&env, &b.finish("Msg{n: 1}.n", e));
    assert_eq!(c.result_type(), &Type::Int);
    // Enum constants resolve to ints.
    let mut b = B::new();
    let m = b.ident(0, "Msg");
    let k = b.select(3, m, "Kind");
    let e = b.select(8, k, "B");
    let c = ok(&env, &b.finish("Msg.Kind.B", e));
    assert_eq!(c.result_type(), &Type::Int);
    assert_eq!(c.ast.expr.kind, ExprKind::Ident("pkg.Msg.Kind.B".into()));
}

#[test]
fn null_and_wrappers() {
    let env = env_with(|b| {
        b.add_variable("w", Type::wrapper(Type::Int));
        b.add_variable("i", Type::Int);
    });
    let mut b = B::new();
    let (l, r) = (b.ident(0, "w"), b.node(5, ExprKind::Literal(Literal::Null)));
    let e = b.call(2, "_==_", vec![l, r]);
    assert_eq!(
        ok(&env, &b.finish("w == null", e)).result_type(),
        &Type::Bool
    );
    let mut b = B::new();
    let (l, r) = (b.ident(0, "i"), b.node(5, ExprKind::Literal(Literal::Null)));
    let e = b.call(2, "_==_", vec![l, r]);
    assert!(err(&env, &b.finish("i == null", e)).contains("applied to '(int, null)'"));
    let mut b = B::new();
    let (l, r) = (b.ident(0, "w"), b.int(4, 1));
    let e = b.call(2, "_+_", vec![l, r]);
    assert_eq!(ok(&env, &b.finish("w + 1", e)).result_type(), &Type::Int);
}

#[test]
fn optional_selection() {
    let env = env_with(|b| b.add_variable("m", Type::map(Type::String, Type::Int)));
    let mut b = B::new();
    let (m, f) = (b.ident(0, "m"), b.str(3, "k"));
    let e = b.call(1, "_?._", vec![m, f]);
    let c = ok(&env, &b.finish("m.?k", e));
    assert_eq!(c.result_type(), &Type::optional(Type::Int));
    assert_eq!(ids(&c, 3), ["select_optional_field"]);
}

#[test]
fn type_parameter_variables_become_dyn() {
    let env = env_with(|b| b.add_variable("t", Type::param("T")));
    let mut b = B::new();
    let t = b.ident(0, "t");
    let e = b.select(1, t, "f");
    let c = ok(&env, &b.finish("t.f", e));
    assert_eq!(c.result_type(), &Type::Dyn);
    assert_eq!(c.types[&1], Type::Dyn);
}

/// Times checking E1 of the benchmark protocol (`self` declared `dyn`) with the
/// standard comparison overloads. Run with `--ignored --nocapture` in release.
#[test]
#[ignore]
fn bench_e1() {
    let cmp = |name: &str, prefix: &str| {
        let pairs = [
            ("bool", Type::Bool, Type::Bool),
            ("int64", Type::Int, Type::Int),
            ("int64_double", Type::Int, Type::Double),
            ("int64_uint64", Type::Int, Type::Uint),
            ("uint64", Type::Uint, Type::Uint),
            ("uint64_double", Type::Uint, Type::Double),
            ("uint64_int64", Type::Uint, Type::Int),
            ("double", Type::Double, Type::Double),
            ("double_int64", Type::Double, Type::Int),
            ("double_uint64", Type::Double, Type::Uint),
            ("string", Type::String, Type::String),
            ("bytes", Type::Bytes, Type::Bytes),
            ("timestamp", Type::Timestamp, Type::Timestamp),
            ("duration", Type::Duration, Type::Duration),
        ];
        pairs.into_iter().fold(Function::new(name), |f, (s, x, y)| {
            f.overload(Overload::global(
                &format!("{prefix}_{s}"),
                vec![x, y],
                Type::Bool,
                None,
            ))
        })
    };
    let env = env_with(|b| {
        b.add_function(cmp("_<=_", "less_equals"));
        b.add_variable("self", Type::Dyn);
    });
    let mut b = B::new();
    let s1 = b.ident(0, "self");
    let min = b.select(4, s1, "minReplicas");
    let s2 = b.ident(20, "self");
    let rep = b.select(24, s2, "replicas");
    let le1 = b.call(17, "_<=_", vec![min, rep]);
    let s3 = b.ident(37, "self");
    let rep2 = b.select(41, s3, "replicas");
    let s4 = b.ident(54, "self");
    let max = b.select(58, s4, "maxReplicas");
    let le2 = b.call(51, "_<=_", vec![rep2, max]);
    let e = b.call(34, "_&&_", vec![le1, le2]);
    let ast = b.finish(
        "self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas",
        e,
    );
    let n = 100_000;
    let start = std::time::Instant::now();
    for _ in 0..n {
        let c = check_owned(&env, ast.clone()).expect("checks");
        std::hint::black_box(c);
    }
    println!("E1 check: {:?} per expression", start.elapsed() / n);
}

#[test]
fn deep_nesting_checks_within_a_small_stack() {
    // Test threads have 2 MiB stacks; the checker must fit at its depth limit.
    // (Dropping or cloning such a tree recurses too, so the tree is leaked.)
    let env = env_with(|_| {});
    for (depth, ok_expected) in [(740usize, true), (760, false)] {
        let mut b = B::new();
        let mut e = b.int(0, 1);
        for _ in 0..depth {
            let one = b.int(0, 1);
            e = b.call(0, "_+_", vec![e, one]);
        }
        let ast = b.finish("1", e);
        let result = check_owned(&env, ast);
        assert_eq!(result.is_ok(), ok_expected);
        if let Err(e) = &result {
            assert!(e.to_string().contains("nesting exceeds"));
        }
        std::mem::forget(result);
    }
}

#[test]
fn node_types_dense_and_sparse_ids() {
    let mut t = super::NodeTypes::new();
    assert!(t.is_empty());
    assert_eq!(t.insert(3, Type::Int), None);
    assert_eq!(t.insert(3, Type::String), Some(Type::Int));
    // Far-out and negative ids go to the map, not a huge table.
    t.insert(1 << 40, Type::Bool);
    t.insert(-7, Type::Bytes);
    assert_eq!(t.get(&3), Some(&Type::String));
    assert_eq!(t[&(1 << 40)], Type::Bool);
    assert_eq!(t.get(&-7), Some(&Type::Bytes));
    assert_eq!(t.get(&2), None);
    assert_eq!(t.get(&99), None);
    assert_eq!(t.len(), 3);
    let mut all: Vec<(i64, Type)> = t.iter().map(|(i, t)| (i, t.clone())).collect();
    all.sort_by_key(|(i, _)| *i);
    assert_eq!(
        all,
        [(-7, Type::Bytes), (3, Type::String), (1 << 40, Type::Bool)]
    );
    let collected: super::NodeTypes = all.into_iter().collect();
    assert_eq!(collected.len(), 3);
}

#[test]
fn node_types_keep_composite_types_beside_leaf_codes() {
    let mut t = super::NodeTypes::new();
    let list = Type::list(Type::Int);
    let map = Type::map(Type::String, Type::param("A"));
    assert_eq!(t.insert(4, list.clone()), None);
    assert_eq!(t.insert(2, Type::Error), None);
    // A composite type replaces another in its place, a leaf replaces it by code.
    assert_eq!(t.insert(4, map.clone()), Some(list.clone()));
    assert_eq!(t.insert(5, list.clone()), None);
    assert_eq!(t.insert(4, Type::Dyn), Some(map));
    assert_eq!(t.insert(2, list.clone()), Some(Type::Error));
    let all: Vec<(i64, Type)> = t.iter().map(|(i, t)| (i, t.clone())).collect();
    assert_eq!(all, [(2, list.clone()), (4, Type::Dyn), (5, list)], "{t:?}");
    assert_eq!(t.len(), 3);
}

#[test]
fn node_refs_replace_and_find_dense_sparse_and_negative_ids() {
    use super::{NodeRefs, Reference};
    let named = |name: &str| Reference::named(name.into(), None);
    let mut refs = NodeRefs::with_nodes(4);
    assert!(refs.is_empty() && refs.get(&1).is_none());
    refs.insert(3, named("a"));
    refs.insert(1, named("b"));
    refs.insert(3, named("c"));
    // Past the node count and negative: hand-built trees.
    refs.insert(70_000, named("d"));
    refs.insert(-2, named("e"));
    assert_eq!(refs.len(), 4);
    let names = |r: &NodeRefs, ids: &[i64]| -> Vec<Option<String>> {
        ids.iter()
            .map(|id| r.get(id).map(|r| r.name.to_string()))
            .collect()
    };
    let ids = [1, 2, 3, 70_000, -2, 5];
    let expected = vec![
        Some("b".to_string()),
        None,
        Some("c".to_string()),
        Some("d".to_string()),
        Some("e".to_string()),
        None,
    ];
    assert_eq!(names(&refs, &ids), expected);
    // Collected from pairs, a later pair of an id replaces an earlier one.
    let collected: NodeRefs = [(3, named("a")), (1, named("b")), (3, named("c"))]
        .into_iter()
        .chain([(70_000, named("d")), (-2, named("e"))])
        .collect();
    assert_eq!(names(&collected, &ids), expected);
    assert_eq!(collected.values().count(), 4);
}

#[test]
fn node_refs_share_references() {
    use super::{NodeRefs, Reference};
    let mut refs = NodeRefs::with_nodes(6);
    let a = refs.push(Reference::named("a".into(), None));
    refs.insert_shared(1, a);
    refs.insert_shared(3, a);
    refs.insert(2, Reference::named("b".into(), None));
    // Replacing a shared reference leaves the other node's as it was.
    refs.insert(3, Reference::named("c".into(), None));
    let names: Vec<(i64, String)> = refs
        .iter()
        .map(|(id, r)| (id, r.name.to_string()))
        .collect();
    assert_eq!(
        names,
        [
            (1, "a".to_string()),
            (3, "c".to_string()),
            (2, "b".to_string())
        ]
    );
    assert_eq!(refs.len(), 3);
    assert_eq!(refs.values().count(), 3);
    assert_eq!(refs[&1].name, "a");
}

/// Every expression text under an `expr` key of the JSON files in `dir`.
fn shared_expressions(dir: &std::path::Path, out: &mut Vec<String>) {
    fn walk(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(o) => {
                for (k, v) in o {
                    match v {
                        serde_json::Value::String(s) if k == "expr" => out.push(s.clone()),
                        _ => walk(v, out),
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<_> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
    paths.sort();
    for p in paths {
        if p.extension().is_some_and(|x| x == "json")
            && let Ok(text) = std::fs::read_to_string(&p)
            && let Ok(v) = serde_json::from_str(&text)
        {
            walk(&v, out);
        }
    }
}

/// The complete output of a check: the rewritten tree, every node's type and
/// reference, or the issues.
fn checked_output(env: &Env, text: &str) -> Option<String> {
    let ast = env.parse(text).ok()?;
    Some(match env.check_owned(ast) {
        Ok(c) => format!("{:?}\n{:?}\n{:?}", c.ast, c.types, c.references),
        Err(issues) => format!("{issues}"),
    })
}

/// Overload resolution through the environment's memo (`ResolutionMemo`)
/// records what the full resolution records: a corpus of expressions is
/// checked without the memo, then with it twice (as the memo fills, then
/// full), and the complete outputs are compared.
#[test]
fn resolution_memo_changes_no_checked_output() {
    let mut corpus: Vec<String> = [
        "x == 1 && x == 1 && 1 == x && y == 2u && y == 2u",
        "i == 1 && i == 1 && i + 1 == 2 && i + 1 == 2",
        "[1, 2].exists(v, v == x) && [1, 2].exists(v, v == x)",
        "[].size() == 0 && [].size() == 0 && {}.size() == 0",
        "[x, 1] + [2] == [x, 1, 2] && [x, 1] + [2] == [x, 1, 2]",
        "i + x + i + x + 'a' + x",
        "size(s) + size(s) + size([s]) + size([s])",
        "l[0] + l[0] + m['a'] + m['a'] + l[i] + m[s]",
        "l.map(e, e + 1).filter(e, e % 2 == 0).size() > i && l.all(e, e > 0)",
        "s.startsWith('a') && s.startsWith('a') && x.startsWith('a') && x.startsWith('a')",
        "dyn(i) == i && dyn(i) == i && int(x) == i && string(i) == s",
        "i == 1u && i == 1u",
        "i < 1.0 && i < 1.0 && x < 1.0 && x < 1.0",
        "[1, 'a'] == [x] && [1, 'a'] == [x]",
        "optional.of(i).orValue(1) == 1 && optional.of(i).orValue(1) == 1",
        "m.?a.orValue(1) == 1 && m.?a.orValue(1) == 1 && l[?0].hasValue()",
        "type(i) == int && type(x) == type(i) && type(i) == int",
        "[[1], [x]] == [[1]] && [[1], [x]] == [[1]]",
        "{1: 'a', x: 'b'}[x] == 'a' && {1: 'a', x: 'b'}[x] == 'a'",
        "timestamp(s) < timestamp(s) + duration('1s') && duration(s) == duration(s)",
        "l.exists(e, e == x) || l.exists_one(e, e == i) || l.exists(e, e == x)",
        "math.greatest(i, 2) + math.greatest(i, 2) == math.least([i, 3])",
        "s.split(',').size() + s.split(',').size() == l.size()",
        "null == x && x == null && null == null && m.a == null",
        "b'a' + b'b' == b'ab' && b'a' + b'b' == b'ab'",
        "(i == 1 ? s : 'b') + (i == 1 ? s : 'b')",
        "x.f(1) + x.f(1)",
        "i == 'a' || i == 'a'",
        // Messages that show fresh type variables, numbered after the memoized calls'.
        "x == 1 && x == 1 && [].exists(e, [])",
        "x == 1 && x == 1 && [[]].all(e, e)",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let shared = std::env::var_os("KCEL_SHARED")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
        });
    shared_expressions(&shared.join("cel-spec/json"), &mut corpus);
    shared_expressions(&shared.join("cel-spec/cel-go-extra"), &mut corpus);
    let env = crate::library::full()
        .variable("x", Type::Dyn)
        .variable("y", Type::Dyn)
        .variable("i", Type::Int)
        .variable("s", Type::String)
        .variable("l", Type::list(Type::Int))
        .variable("m", Type::map(Type::String, Type::Int))
        .build();
    let unmemoized: Vec<Option<String>> = {
        super::check::MEMO_ENABLED.set(false);
        let out = corpus.iter().map(|t| checked_output(&env, t)).collect();
        super::check::MEMO_ENABLED.set(true);
        out
    };
    for round in ["filling", "full"] {
        for (text, expected) in corpus.iter().zip(&unmemoized) {
            assert_eq!(
                &checked_output(&env, text),
                expected,
                "{text} ({round} memo)"
            );
        }
    }
}
