//! Interpreter tests over hand-built ASTs (shaped as cel-go's parser and
//! macros build them), including the runtime-cost worked examples of
//! Kubernetes' cost stability tests.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::checker::{CheckedAst, Reference};
use crate::eval::EvalOptions;
use crate::library::std::Std;
use crate::syntax::{self, Ast, Call, Comprehension, Expr, ExprKind, Literal, Select, SourceInfo};
use crate::value::Value;
use crate::{Env, ErrorKind, EvalError};

/// Builds expressions with fresh ids.
#[derive(Default)]
struct B {
    next: i64,
    /// Overload ids per call node, for "checked" plans.
    refs: HashMap<i64, Reference>,
}

impl B {
    fn id(&mut self) -> i64 {
        self.next += 1;
        self.next
    }
    fn lit(&mut self, l: Literal) -> Expr {
        let id = self.id();
        Expr::new(id, ExprKind::Literal(l))
    }
    fn int(&mut self, i: i64) -> Expr {
        self.lit(Literal::Int(i))
    }
    fn str(&mut self, s: &str) -> Expr {
        self.lit(Literal::String(s.into()))
    }
    fn bool(&mut self, b: bool) -> Expr {
        self.lit(Literal::Bool(b))
    }
    fn ident(&mut self, n: &str) -> Expr {
        let id = self.id();
        Expr::new(id, ExprKind::Ident(n.into()))
    }
    fn call(&mut self, f: &str, args: Vec<Expr>) -> Expr {
        let id = self.id();
        Expr::new(
            id,
            ExprKind::Call(Box::new(Call {
                target: None,
                function: f.into(),
                args: args.into(),
            })),
        )
    }
    /// A call whose checked reference names one overload.
    fn ocall(&mut self, f: &str, overload: &str, args: Vec<Expr>) -> Expr {
        let e = self.call(f, args);
        self.bind(e, overload)
    }
    fn bind(&mut self, e: Expr, overload: &str) -> Expr {
        self.refs.insert(
            e.id,
            Reference {
                name: Default::default(),
                overload_ids: Arc::new([overload.into()]),
                value: None,
            },
        );
        e
    }
    fn mcall(&mut self, t: Expr, f: &str, args: Vec<Expr>) -> Expr {
        let id = self.id();
        Expr::new(
            id,
            ExprKind::Call(Box::new(Call {
                target: Some(t),
                function: f.into(),
                args: args.into(),
            })),
        )
    }
    fn sel(&mut self, e: Expr, f: &str) -> Expr {
        let id = self.id();
        Expr::new(
            id,
            ExprKind::Select(Box::new(Select {
                operand: e,
                field: f.into(),
                test_only: false,
                optional: false,
            })),
        )
    }
    fn has(&mut self, e: Expr, f: &str) -> Expr {
        let id = self.id();
        Expr::new(
            id,
            ExprKind::Select(Box::new(Select {
                operand: e,
                field: f.into(),
                test_only: true,
                optional: false,
            })),
        )
    }
    fn list(&mut self, elements: Vec<Expr>) -> Expr {
        let id = self.id();
        Expr::new(
            id,
            ExprKind::List(Box::new(syntax::List {
                elements,
                optional_indices: vec![],
            })),
        )
    }
    #[allow(clippy::too_many_arguments)]
    fn fold(
        &mut self,
        var: &str,
        range: Expr,
        init: Expr,
        cond: Expr,
        step: Expr,
        result: Expr,
    ) -> Expr {
        let id = self.id();
        Expr::new(
            id,
            ExprKind::Comprehension(Box::new(Comprehension {
                iter_var: var.into(),
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
    /// `range.exists(var, pred)`.
    fn exists(&mut self, range: Expr, var: &str, pred: impl FnOnce(&mut B) -> Expr) -> Expr {
        let init = self.bool(false);
        let a = self.ident("@result");
        let not = self.ocall("!_", "logical_not", vec![a]);
        let cond = self.ocall("@not_strictly_false", "not_strictly_false", vec![not]);
        let a2 = self.ident("@result");
        let p = pred(self);
        let step = self.call("_||_", vec![a2, p]);
        let result = self.ident("@result");
        self.fold(var, range, init, cond, step, result)
    }
    /// `range.all(var, pred)`.
    fn all(&mut self, range: Expr, var: &str, pred: impl FnOnce(&mut B) -> Expr) -> Expr {
        let init = self.bool(true);
        let a = self.ident("@result");
        let cond = self.ocall("@not_strictly_false", "not_strictly_false", vec![a]);
        let a2 = self.ident("@result");
        let p = pred(self);
        let step = self.call("_&&_", vec![a2, p]);
        let result = self.ident("@result");
        self.fold(var, range, init, cond, step, result)
    }
    /// `range.filter(var, pred)`.
    fn filter(&mut self, range: Expr, var: &str, pred: impl FnOnce(&mut B) -> Expr) -> Expr {
        let init = self.list(vec![]);
        let cond = self.bool(true);
        let p = pred(self);
        let a = self.ident("@result");
        let x = self.ident(var);
        let l = self.list(vec![x]);
        let add = self.ocall("_+_", "add_list", vec![a, l]);
        let a2 = self.ident("@result");
        let step = self.call("_?_:_", vec![p, add, a2]);
        let result = self.ident("@result");
        self.fold(var, range, init, cond, step, result)
    }
    /// `range.map(var, f)`.
    fn map(&mut self, range: Expr, var: &str, f: impl FnOnce(&mut B) -> Expr) -> Expr {
        let init = self.list(vec![]);
        let cond = self.bool(true);
        let a = self.ident("@result");
        let fx = f(self);
        let l = self.list(vec![fx]);
        let step = self.ocall("_+_", "add_list", vec![a, l]);
        let result = self.ident("@result");
        self.fold(var, range, init, cond, step, result)
    }
    /// `range.exists_one(var, pred)`.
    fn exists_one(&mut self, range: Expr, var: &str, pred: impl FnOnce(&mut B) -> Expr) -> Expr {
        let init = self.int(0);
        let cond = self.bool(true);
        let p = pred(self);
        let a = self.ident("@result");
        let one = self.int(1);
        let add = self.ocall("_+_", "add_int64", vec![a, one]);
        let a2 = self.ident("@result");
        let step = self.call("_?_:_", vec![p, add, a2]);
        let r = self.ident("@result");
        let one2 = self.int(1);
        let result = self.ocall("_==_", "equals", vec![r, one2]);
        self.fold(var, range, init, cond, step, result)
    }

    fn ast(&self, e: Expr) -> Ast {
        Ast {
            expr: e,
            source_info: SourceInfo::default(),
            source: Arc::new(syntax::Source::new("")),
            next_id: self.next + 1,
        }
    }
}

fn env(optimize: bool, presence_cost: u64) -> Env {
    Env::builder()
        .library(Std)
        .options(|o| {
            o.optimize = optimize;
            o.presence_test_cost = presence_cost;
        })
        .build()
}

/// Evaluates with the "checked" references recorded in `b`; returns value and cost.
fn run_with(
    env: &Env,
    b: &B,
    e: Expr,
    act: &HashMap<String, Value>,
) -> (Result<Value, EvalError>, u64) {
    let ast = b.ast(e);
    let checked = CheckedAst {
        ast: ast.clone(),
        types: Default::default(),
        references: b.refs.clone().into_iter().collect(),
    };
    let prog = env.program_checked(&checked).expect("plans");
    let plain = prog.eval(act);
    let tracked = prog.eval_with(
        act,
        &EvalOptions {
            track_cost: true,
            ..Default::default()
        },
    );
    assert_eq!(
        format!("{plain:?}"),
        format!("{:?}", tracked.value),
        "tracking must not change the result"
    );
    (tracked.value, tracked.cost.unwrap_or(0))
}

fn run(b: &B, e: Expr) -> Result<Value, EvalError> {
    run_with(&env(false, 1), b, e, &HashMap::new()).0
}

fn json_act(name: &str, json: &str) -> HashMap<String, Value> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    HashMap::from([(name.to_string(), Value::from_json(&v))])
}

#[test]
fn arithmetic_and_logic() {
    let mut b = B::default();
    let (x, y) = (b.int(1), b.int(2));
    let sum = b.call("_+_", vec![x, y]);
    let three = b.int(3);
    let e = b.call("_==_", vec![sum, three]);
    assert!(matches!(run(&b, e), Ok(Value::Bool(true))));

    // Errors are absorbed by a deciding && / || operand, on either side.
    let mut b = B::default();
    let (x, z) = (b.int(1), b.int(0));
    let div = b.call("_/_", vec![x, z]);
    let f = b.bool(false);
    let e = b.call("_&&_", vec![div, f]);
    assert!(matches!(run(&b, e), Ok(Value::Bool(false))));

    let mut b = B::default();
    let (x, z) = (b.int(1), b.int(0));
    let div = b.call("_/_", vec![x, z]);
    let t = b.bool(true);
    let e = b.call("_&&_", vec![t, div]);
    assert_eq!(run(&b, e).unwrap_err().message(), "division by zero");

    let mut b = B::default();
    let (s1, s2) = (b.str("a"), b.str("b"));
    let e = b.call("_||_", vec![s1, s2]);
    assert_eq!(run(&b, e).unwrap_err().kind(), ErrorKind::NoSuchOverload);
}

#[test]
fn strict_calls_return_the_first_error() {
    let mut b = B::default();
    let (x, z) = (b.int(1), b.int(0));
    let div = b.call("_/_", vec![x, z]);
    let (y, w) = (b.int(1), b.int(0));
    let rem = b.call("_%_", vec![y, w]);
    let e = b.call("_+_", vec![div, rem]);
    assert_eq!(run(&b, e).unwrap_err().message(), "division by zero");
}

#[test]
fn macros_and_in_place_accumulation() {
    let mut b = B::default();
    let items: Vec<Expr> = (0..5).map(|i| b.int(i)).collect();
    let l = b.list(items);
    let m = b.map(l, "x", |b| {
        let x = b.ident("x");
        let two = b.int(2);
        b.call("_*_", vec![x, two])
    });
    let f = b.filter(m, "y", |b| {
        let y = b.ident("y");
        let four = b.int(4);
        b.call("_>=_", vec![y, four])
    });
    assert_eq!(run(&b, f).unwrap().to_string(), "[4, 6, 8]");

    // A large map/filter chain is linear (in-place append).
    let mut b = B::default();
    let l = b.ident("l");
    let m = b.map(l, "x", |b| b.ident("x"));
    let e = b.call("size", vec![m]);
    let act = HashMap::from([(
        "l".to_string(),
        Value::list((0..200_000).map(Value::Int).collect()),
    )]);
    let start = std::time::Instant::now();
    let (v, _) = run_with(&env(true, 0), &b, e, &act);
    assert!(matches!(v, Ok(Value::Int(200_000))));
    assert!(start.elapsed().as_secs() < 10, "map must not be quadratic");
}

#[test]
fn exists_all_exists_one() {
    let mut b = B::default();
    let items: Vec<Expr> = (1..=3).map(|i| b.int(i)).collect();
    let l = b.list(items);
    let e = b.exists_one(l, "n", |b| {
        let n = b.ident("n");
        let two = b.int(2);
        b.call("_>_", vec![n, two])
    });
    assert!(matches!(run(&b, e), Ok(Value::Bool(true))));

    // `all` absorbs an error when a later element decides.
    let mut b = B::default();
    let (z, o) = (b.int(0), b.int(1));
    let l = b.list(vec![z, o]);
    let e = b.all(l, "n", |b| {
        let ten = b.int(10);
        let n = b.ident("n");
        let d = b.call("_/_", vec![ten, n]);
        let one = b.int(1);
        b.call("_<_", vec![d, one])
    });
    assert!(matches!(run(&b, e), Ok(Value::Bool(false))));
}

#[test]
fn variables_fields_and_qualified_names() {
    let act = json_act("self", r#"{"a": {"b": [10, 20]}, "m": {"k": 1}}"#);
    let mut b = B::default();
    let s = b.ident("self");
    let a = b.sel(s, "a");
    let bb = b.sel(a, "b");
    let one = b.int(1);
    let e = b.call("_[_]", vec![bb, one]);
    let (v, cost) = run_with(&env(false, 1), &b, e, &act);
    assert!(matches!(v, Ok(Value::Int(20))));
    assert_eq!(cost, 4, "self.a.b[1]: attribute 1 + three qualifiers");

    // Missing key.
    let mut b = B::default();
    let s = b.ident("self");
    let e = b.sel(s, "zz");
    assert_eq!(
        run_with(&env(false, 1), &b, e, &act)
            .0
            .unwrap_err()
            .message(),
        "no such key: zz"
    );

    // Dotted variable names: `a.b.c` may be the variable `a.b` with field `c`.
    let act = HashMap::from([(
        "a.b".to_string(),
        Value::from_json(&serde_json::json!({"c": 7})),
    )]);
    let mut b = B::default();
    let a = b.ident("a");
    let ab = b.sel(a, "b");
    let e = b.sel(ab, "c");
    assert!(matches!(
        env(false, 1).program(&b.ast(e)).unwrap().eval(&act),
        Ok(Value::Int(7))
    ));

    // Type identifiers.
    let mut b = B::default();
    let one = b.int(1);
    let t = b.call("type", vec![one]);
    let int = b.ident("int");
    let e = b.call("_==_", vec![t, int]);
    assert!(matches!(run(&b, e), Ok(Value::Bool(true))));
}

#[test]
fn has_and_optional_selection() {
    let act = json_act("self", r#"{"a": {"b": 1}}"#);
    let mut b = B::default();
    let s = b.ident("self");
    let a = b.sel(s, "a");
    let e = b.has(a, "b");
    let (v, cost) = run_with(&env(false, 0), &b, e, &act);
    assert!(matches!(v, Ok(Value::Bool(true))));
    assert_eq!(cost, 2, "has(self.a.b) with Kubernetes' presence cost 0");

    let mut b = B::default();
    let s = b.ident("self");
    let f = b.str("zz");
    let e = b.call("_?._", vec![s, f]);
    assert!(matches!(
        run_with(&env(false, 1), &b, e, &act).0,
        Ok(Value::Optional(None))
    ));

    let mut b = B::default();
    let s = b.ident("self");
    let f = b.str("a");
    let o = b.call("_?._", vec![s, f]);
    let e = b.sel(o, "b");
    assert_eq!(
        run_with(&env(false, 1), &b, e, &act).0.unwrap().to_string(),
        "optional.of(1)"
    );
}

#[test]
fn conversions_fold_under_optimize() {
    let mut b = B::default();
    let s = b.str("1h30m");
    let e = b.call("duration", vec![s]);
    let (v, cost) = run_with(&env(true, 1), &b, e, &HashMap::new());
    assert_eq!(v.unwrap().to_string(), "duration(\"5400s\")");
    assert_eq!(cost, 0);

    let mut b = B::default();
    let s = b.str("nope");
    let e = b.call("timestamp", vec![s]);
    assert!(
        env(true, 1).program(&b.ast(e)).is_err(),
        "invalid constant conversion is a compile error"
    );

    let mut b = B::default();
    let s = b.str("x");
    let p = b.str("(");
    let e = b.mcall(s, "matches", vec![p]);
    assert!(
        env(true, 1).program(&b.ast(e)).is_err(),
        "invalid constant regex is a compile error"
    );
}

#[test]
fn time_zones_through_the_interpreter() {
    let mut b = B::default();
    let s = b.str("2009-02-13T23:31:30Z");
    let t = b.call("timestamp", vec![s]);
    let tz = b.str("Australia/Sydney");
    let e = b.mcall(t, "getDate", vec![tz]);
    assert!(matches!(run(&b, e), Ok(Value::Int(14))));
}

#[test]
fn kubernetes_cost_examples() {
    let k8s = env(true, 0);
    // self.val1 == self.val6 → 5; type(self.val1) == int → 4.
    let act = json_act(
        "self",
        r#"{"val1": 1, "val6": 6, "s": "abcdefghijkl", "str": "a string"}"#,
    );
    let mut b = B::default();
    let (s1, s2) = (b.ident("self"), b.ident("self"));
    let (v1, v6) = (b.sel(s1, "val1"), b.sel(s2, "val6"));
    let e = b.ocall("_==_", "equals", vec![v1, v6]);
    assert_eq!(run_with(&k8s, &b, e, &act).1, 5);

    let mut b = B::default();
    let s = b.ident("self");
    let v1 = b.sel(s, "val1");
    let t = b.ocall("type", "type", vec![v1]);
    let int = b.ident("int");
    let e = b.ocall("_==_", "equals", vec![t, int]);
    assert_eq!(run_with(&k8s, &b, e, &act).1, 4);

    // self.s.matches('^[^0-9]*$') on 12 code points → 2 + ⌈1.3⌉·⌈2.25⌉ = 8.
    let mut b = B::default();
    let s = b.ident("self");
    let v = b.sel(s, "s");
    let p = b.str("^[^0-9]*$");
    let e = b.mcall(v, "matches", vec![p]);
    let e = b.bind(e, "matches_string");
    let (v, cost) = run_with(&k8s, &b, e, &act);
    assert!(matches!(v, Ok(Value::Bool(true))));
    assert_eq!(cost, 8);

    // "str1 " + self.str → 4.
    let mut b = B::default();
    let l = b.str("str1 ");
    let s = b.ident("self");
    let r = b.sel(s, "str");
    let e = b.ocall("_+_", "add_string", vec![l, r]);
    assert_eq!(run_with(&k8s, &b, e, &act).1, 4);

    // size(self.listMap.filter(m, m.k == 'a1')) == 1 → 27.
    let act = json_act(
        "self",
        r#"{"listMap": [{"k": "a1", "v2": "z"}, {"k": "a2"}, {"k": "a3"}]}"#,
    );
    let mut b = B::default();
    let s = b.ident("self");
    let lm = b.sel(s, "listMap");
    let f = b.filter(lm, "m", |b| {
        let m = b.ident("m");
        let k = b.sel(m, "k");
        let a1 = b.str("a1");
        b.ocall("_==_", "equals", vec![k, a1])
    });
    let size = b.ocall("size", "size_list", vec![f]);
    let one = b.int(1);
    let e = b.ocall("_==_", "equals", vec![size, one]);
    let (v, cost) = run_with(&k8s, &b, e, &act);
    assert!(matches!(v, Ok(Value::Bool(true))));
    assert_eq!(cost, 27);

    // self.listMap.exists_one(m, has(m.v2) && m.v2 == 'z') → 12.
    let mut b = B::default();
    let s = b.ident("self");
    let lm = b.sel(s, "listMap");
    let e = b.exists_one(lm, "m", |b| {
        let m = b.ident("m");
        let h = b.has(m, "v2");
        let m2 = b.ident("m");
        let v2 = b.sel(m2, "v2");
        let z = b.str("z");
        let eq = b.ocall("_==_", "equals", vec![v2, z]);
        b.call("_&&_", vec![h, eq])
    });
    let (v, cost) = run_with(&k8s, &b, e, &act);
    assert!(matches!(v, Ok(Value::Bool(true))));
    assert_eq!(cost, 12);

    // ['b1','b2','b3'].exists(v, v == 'b1'): constant list (0), cond 3 + step 3,
    // cond 3 (stops), result 1.
    let mut b = B::default();
    let items = vec![b.str("b1"), b.str("b2"), b.str("b3")];
    let l = b.list(items);
    let e = b.exists(l, "v", |b| {
        let v = b.ident("v");
        let b1 = b.str("b1");
        b.ocall("_==_", "equals", vec![v, b1])
    });
    let (v, cost) = run_with(&k8s, &b, e, &HashMap::new());
    assert!(matches!(v, Ok(Value::Bool(true))));
    assert_eq!(cost, 10);
}

#[test]
fn cost_limit_and_cancellation_stop_evaluation() {
    let mut b = B::default();
    let l = b.ident("l");
    let e = b.all(l, "x", |b| {
        let x = b.ident("x");
        let z = b.int(0);
        b.call("_>=_", vec![x, z])
    });
    let prog = env(true, 0).program(&b.ast(e)).unwrap();
    let act = HashMap::from([(
        "l".to_string(),
        Value::list((0..1000).map(Value::Int).collect()),
    )]);
    let out = prog.eval_with(
        &act,
        &EvalOptions {
            cost_limit: Some(100),
            ..Default::default()
        },
    );
    let err = out.value.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::CostLimitExceeded);
    assert_eq!(
        err.message(),
        "operation cancelled: actual cost limit exceeded"
    );

    let flag = AtomicBool::new(true);
    let out = prog.eval_with(
        &act,
        &EvalOptions {
            cancel: Some(&flag),
            ..Default::default()
        },
    );
    assert_eq!(out.value.unwrap_err().kind(), ErrorKind::Cancelled);
}

#[test]
fn block_slots_and_in_set() {
    let mut b = B::default();
    let one = b.int(1);
    let i0 = b.ident("@index0");
    let o = b.int(1);
    let s1 = b.call("_+_", vec![i0, o]);
    let slots = b.list(vec![one, s1]);
    let i1 = b.ident("@index1");
    let i1b = b.ident("@index1");
    let r = b.call("_*_", vec![i1, i1b]);
    let e = b.call("cel.block", vec![slots, r]);
    assert!(matches!(run(&b, e), Ok(Value::Int(4))));

    let mut b = B::default();
    let x = b.str("b");
    let items = vec![b.str("a"), b.str("b")];
    let l = b.list(items);
    let e = b.ocall("@in", "in_list", vec![x, l]);
    let (v, cost) = run_with(&env(true, 0), &b, e, &HashMap::new());
    assert!(matches!(v, Ok(Value::Bool(true))));
    assert_eq!(cost, 0, "x in [constants] is a set lookup");
}

#[test]
fn value_size_limit() {
    let e2 = Env::builder()
        .library(Std)
        .options(|o| o.max_value_size = Some(100))
        .build();
    let mut b = B::default();
    let l = b.ident("l");
    let m = b.map(l, "x", |b| b.ident("x"));
    let act = HashMap::from([(
        "l".to_string(),
        Value::list((0..1000).map(Value::Int).collect()),
    )]);
    let err = e2.program(&b.ast(m)).unwrap().eval(&act).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded);
}

/// Timing probe for benchmark E5 (`self.l.exists(x, x == 99999)` over
/// 100,000 ints); run with `--release --ignored --nocapture`.
#[test]
#[ignore]
fn perf_probe_e5() {
    let mut b = B::default();
    let s = b.ident("self");
    let l = b.sel(s, "l");
    let e = b.exists(l, "x", |b| {
        let x = b.ident("x");
        let n = b.int(99_999);
        b.ocall("_==_", "equals", vec![x, n])
    });
    let ast = b.ast(e);
    let checked = CheckedAst {
        ast: ast.clone(),
        types: Default::default(),
        references: b.refs.clone().into_iter().collect(),
    };
    let prog = env(true, 0).program_checked(&checked).unwrap();
    let mut m = indexmap::IndexMap::new();
    m.insert(
        crate::value::Key::from("l"),
        Value::list((0..100_000).map(Value::Int).collect()),
    );
    let act = HashMap::from([("self".to_string(), Value::Map(m.into()))]);
    // CPU time of this thread (the machine is shared: wall time is noisy).
    let cpu_ns = || -> u64 {
        std::fs::read_to_string("/proc/thread-self/schedstat")
            .ok()
            .and_then(|s| s.split_whitespace().next().and_then(|x| x.parse().ok()))
            .unwrap_or(0)
    };
    for track in [false, true] {
        let opts = EvalOptions {
            track_cost: track,
            ..Default::default()
        };
        let (start, cpu) = (std::time::Instant::now(), cpu_ns());
        let n = 200;
        for _ in 0..n {
            assert!(matches!(
                prog.eval_with(&act, &opts).value,
                Ok(Value::Bool(true))
            ));
        }
        println!(
            "E5 track_cost={track}: wall {:?}, cpu {} us per eval",
            start.elapsed() / n,
            (cpu_ns() - cpu) / 1000 / n as u64
        );
    }
}

/// Whole expressions through the parser (the benchmark probes of the
/// standard library), with and without `optimize`.
#[test]
fn expressions_through_the_parser() {
    let truths = [
        "1 + 2 * 3 - 4 / 2 == 5 && 7 % 3 == 1 && -7 / 2 == -3 && 2.0 * 1.5 == 3.0",
        "uint(1) + 2u == 3u && bytes('abc') == b'abc' && string(b'abc') == 'abc' && int('42') == 42 && double('1.5') == 1.5 && string(42) == '42'",
        "dyn(1) == 1.0 && dyn(1u) == 1 && dyn(1) < 1.5",
        "[1, 2.0] == [1.0, 2u]",
        "'hello'.startsWith('he') && 'hello'.endsWith('lo') && 'hello'.contains('ell')",
        "size('héllo') == 5",
        "[1,2,3].all(x, x > 0) && [1,2,3].exists(x, x == 2) && [1,2,3].exists_one(x, x == 2) && [1,2,3].filter(x, x > 1) == [2,3] && [1,2,3].map(x, x * 2) == [2,4,6]",
        "[1,2,3].map(x, x > 1, x * 10) == [20, 30]",
        "{'a': 1, 'b': 2}.all(k, k in ['a', 'b']) && {'a': 1}.exists(k, k == 'a')",
        "has({'a': 1}.a) && !has({'a': 1}.b)",
        "'b' in {'a': 1, 'b': 2} && 3 in [1, 2, 3] && [1, 2, 3][1] == 2 && {'k': [1, {'z': true}]}['k'][1].z",
        "(1 / 0 > 0) || true",
        "timestamp('2023-01-01T00:00:00Z') + duration('24h') == timestamp('2023-01-02T00:00:00Z') && duration('1h30m') == duration('90m') && timestamp('2023-01-01T10:00:00Z') - timestamp('2023-01-01T09:00:00Z') == duration('1h') && duration('3600s').getHours() == 1",
        "timestamp('2023-01-01T00:00:00Z').getHours('America/New_York') == 19 && timestamp('2023-06-01T00:00:00Z').getHours('Europe/Paris') == 2",
        "timestamp('2023-01-01T00:00:00Z').getDayOfWeek('+05:30') == 0 && timestamp('2023-01-01T00:00:00Z').getHours('-02:00') == 22",
        "timestamp('2023-01-01T00:00:00+02:00').getHours() == 22",
        "string(timestamp('2009-02-13T23:31:30Z')) == '2009-02-13T23:31:30Z' && string(duration('1000000s')) == '1000000s'",
        "'abc123'.matches('^[a-z]+[0-9]+$') && !'ABC'.matches('^[a-z]+$')",
        "matches('xyz', 'y')",
        "type(1) == int && type('a') == string && type([]) == list && type(1u) == uint && type(null) == null_type",
        "google.protobuf.Timestamp == type(timestamp('2009-02-13T23:31:30Z'))",
        "[[1, 2], [3]].map(l, l.map(x, x * 2)) == [[2, 4], [6]]",
        "1 in [1, 2] && !(3 in [1, 2]) && dyn(1.0) in [1, 2]",
        // Constant sets, small (searched in order) and large (hashed): numbers by value.
        "[1u, 2.0, 'a', true, 7, -1].all(x, x in [1, 2, 'a', true, 7u, -1.0])",
        "![3, 'b', false, 1.5, null, [1], 3u].exists(x, x in [1, 2.0, 'a', true])",
        "[1u, 2.0, 'a', true, 7, -1].all(x, x in [1, 2, 'a', true, 7u, -1.0, 'c', 'd', 'e', 10])",
        "![3, 'b', false, 1.5, null, [1]].exists(x, x in [1, 2.0, 'a', true, 'c', 'd', 'e', 10, 11])",
    ];
    let errors = [
        ("9223372036854775807 + 1", "integer overflow"),
        ("1 / 0", "division by zero"),
        ("{'a': 1, 'a': 2}", "Failed with repeated key"),
        ("[1, 2][5]", "index out of bounds: 5"),
        ("[1, 2][dyn(5u)]", "index out of bounds: 5"),
        ("{1u: 2}[dyn(5u)]", "no such key: 5"),
        ("dyn('a') < 1", "no such overload"),
    ];
    for optimize in [false, true] {
        let env = Env::builder()
            .library(Std)
            .options(|o| o.optimize = optimize)
            .build();
        for src in truths {
            let prog = env.compile(src).unwrap_or_else(|e| panic!("{src}: {e}"));
            match prog.eval(&()) {
                Ok(Value::Bool(true)) => {}
                other => panic!("{src} (optimize {optimize}): {other:?}"),
            }
        }
        for (src, msg) in errors {
            let prog = env.compile(src).unwrap_or_else(|e| panic!("{src}: {e}"));
            match prog.eval(&()) {
                Err(e) => assert_eq!(e.message(), msg, "{src}"),
                other => panic!("{src}: expected an error, got {other:?}"),
            }
        }
    }
}

/// What an environment of an older cel-go release declares and returns
/// (`crate::cel_go::adapt` and the planner's release-dependent nodes).
#[test]
fn older_cel_go_releases() {
    use crate::CelGoVersion;
    use crate::library::ext::{Optionals, Strings};
    let outcome = |v: CelGoVersion, src: &str| {
        let env = Env::builder()
            .library(Std)
            .library(Strings::default())
            .library(Optionals::default())
            .options(|o| o.cel_go = v)
            .build();
        match env.compile(src) {
            Err(e) => format!("compile: {}", e.to_string().lines().next().unwrap_or("")),
            Ok(p) => match p.eval(&()) {
                Ok(v) => v.to_string(),
                Err(e) => e.message().to_string(),
            },
        }
    };
    let rows = [
        (
            "duration([5][0])",
            "type conversion error from 'int' to 'google.protobuf.Duration'",
            "compile: ERROR: <input>:1:9: found no matching overload for 'duration' applied to '(int)'",
        ),
        ("'abc'.indexOf('', 10)", "10", "3"),
        ("'abc'.lastIndexOf('', -1)", "-1", "index out of range: -1"),
        (
            "timestamp(0).getMinutes('+00:75')",
            "15",
            "timezone offset minutes out of range [0, 59]: +00:75",
        ),
        ("dyn(1).orValue(2)", "1", "no such overload"),
    ];
    for (src, v0_26, v0_29) in rows {
        assert_eq!(outcome(CelGoVersion::V0_26, src), v0_26, "{src}");
        assert_eq!(outcome(CelGoVersion::V0_29, src), v0_29, "{src}");
    }
    assert_eq!(
        outcome(CelGoVersion::V0_20, "'abc'.indexOf('b', 3)"),
        "index out of range: 3"
    );
    assert_eq!(outcome(CelGoVersion::V0_22, "'abc'.indexOf('b', 3)"), "-1");
    assert_eq!(
        outcome(CelGoVersion::V0_22, "'\\uD800' == '\\uFFFD'"),
        "true"
    );
    assert_eq!(
        outcome(CelGoVersion::V0_23, "'\\uD800'"),
        "compile: ERROR: <input>:1:1: invalid unicode code point"
    );
}

/// A host list, which takes the general fold path.
#[derive(Debug)]
struct HostList(Vec<Value>);

impl crate::value::ListProvider for HostList {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn get(&self, index: usize) -> Option<Value> {
        self.0.get(index).cloned()
    }
}

/// The exists/all fast path gives the general fold's values and costs,
/// errors included.
#[test]
fn quantifier_fast_path_matches_general_fold() {
    let lists: Vec<Vec<Value>> = vec![
        vec![],
        vec![Value::Int(1), Value::Int(0), Value::Int(5)],
        vec![Value::Int(0), Value::Int(2)],
        vec![Value::Int(3), Value::from("x"), Value::Int(0)],
        vec![Value::Int(0), Value::Int(0)],
    ];
    for exists in [true, false] {
        for items in &lists {
            let mut b = B::default();
            let l = b.ident("l");
            // p(x) = 10 / x > 4 (errors on 0, no overload on strings)
            let pred = |b: &mut B| {
                let ten = b.int(10);
                let x = b.ident("x");
                let d = b.ocall("_/_", "divide_int64", vec![ten, x]);
                let four = b.int(4);
                b.ocall("_>_", "greater_int64", vec![d, four])
            };
            let e = if exists {
                b.exists(l, "x", pred)
            } else {
                b.all(l, "x", pred)
            };
            let plain = HashMap::from([("l".to_string(), Value::list(items.clone()))]);
            let host = HashMap::from([(
                "l".to_string(),
                Value::List(crate::value::List::Provided(Arc::new(HostList(
                    items.clone(),
                )))),
            )]);
            let (v1, c1) = run_with(&env(true, 0), &b, e.clone(), &plain);
            let (v2, c2) = run_with(&env(true, 0), &b, e, &host);
            assert_eq!(
                format!("{v1:?}"),
                format!("{v2:?}"),
                "exists={exists} {items:?}"
            );
            assert_eq!(c1, c2, "cost, exists={exists} {items:?}");
        }
    }
}

/// Runtime dispatch among overloads with list and map parameters looks at
/// the first element (entry), as cel-go's `IsAssignableRuntimeType`; an
/// overload without type guards bound alone takes any argument.
#[test]
fn dispatch_checks_the_first_element_of_lists_and_maps() {
    use crate::functions::{FnImpl, Function, Overload};
    use crate::types::Type;
    fn which(name: &'static str) -> FnImpl {
        FnImpl::Closure(Arc::new(move |_: &[Value]| Ok(Value::from(name))))
    }
    let f = Function::new("pick")
        .overload(Overload::member(
            "list_int_pick",
            vec![Type::list(Type::Int)],
            Type::String,
            Some(which("int")),
        ))
        .overload(Overload::member(
            "list_double_pick",
            vec![Type::list(Type::Double)],
            Type::String,
            Some(which("double")),
        ))
        .overload(Overload::member(
            "map_string_int_pick",
            vec![Type::map(Type::String, Type::Int)],
            Type::String,
            Some(which("map")),
        ));
    let g = Function::new("loose").overload(
        Overload::member(
            "list_list_loose",
            vec![Type::list(Type::list(Type::Dyn))],
            Type::String,
            Some(which("loose")),
        )
        .without_type_guards(),
    );
    let strict = Function::new("strict").overload(Overload::member(
        "list_list_strict",
        vec![Type::list(Type::list(Type::Dyn))],
        Type::String,
        Some(which("strict")),
    ));
    let mut b = Env::builder().library(Std);
    b.add_function(f);
    b.add_function(g);
    b.add_function(strict);
    let env = b.build();
    let run = |src: &str| match env.compile(src).map(|p| p.eval(&HashMap::new())) {
        Ok(Ok(Value::String(s))) => s.to_string(),
        Ok(Ok(other)) => panic!("{src}: {other:?}"),
        Ok(Err(e)) => format!("error: {}", e.message()),
        Err(e) => panic!("{src}: {e}"),
    };
    assert_eq!(run("dyn([1.0, 2.0]).pick()"), "double");
    assert_eq!(run("dyn([1, 2]).pick()"), "int");
    assert_eq!(run("dyn([]).pick()"), "int");
    assert_eq!(run("dyn({'a': 1}).pick()"), "map");
    assert!(run("dyn(['a']).pick()").starts_with("error: no such overload"));
    assert_eq!(run("dyn([1]).loose()"), "loose");
    assert!(run("dyn([1]).strict()").starts_with("error: no such overload"));
}

/// Under every cost limit, the exists/all fast path stops at the first
/// charge that passes the limit, as separate charges would (some charges are
/// combined for speed): the reported cost is the prefix sum of cel-go's
/// charge sequence that first exceeds the limit.
#[test]
fn quantifier_fast_path_stops_at_the_first_charge_past_any_limit() {
    let items = vec![Value::Int(3), Value::Int(7), Value::Int(0), Value::Int(2)];
    // The charges, in order: the range, then per tested element the loop
    // condition (exists: acc, !acc, not_strictly_false = 3; all: 2), the
    // step's accumulator read, `x` and `_==_`; the last condition, which
    // stops the loop; the result.
    let exists_charges = [1, 3, 1, 1, 1, 3, 1, 1, 1, 3, 1, 1, 1, 3, 1];
    let all_charges = [1, 2, 1, 1, 1, 2, 1];
    for (exists, charges) in [(true, &exists_charges[..]), (false, &all_charges[..])] {
        let mut b = B::default();
        let l = b.ident("l");
        let pred = |b: &mut B| {
            let x = b.ident("x");
            let zero = b.int(0);
            b.ocall("_==_", "equals", vec![x, zero])
        };
        let e = if exists {
            b.exists(l, "x", pred)
        } else {
            b.all(l, "x", pred)
        };
        let ast = b.ast(e);
        let checked = CheckedAst {
            ast,
            types: Default::default(),
            references: b.refs.clone().into_iter().collect(),
        };
        let prog = env(false, 1).program_checked(&checked).expect("plans");
        let plain = HashMap::from([("l".to_string(), Value::list(items.clone()))]);
        let host = HashMap::from([(
            "l".to_string(),
            Value::List(crate::value::List::Provided(Arc::new(HostList(
                items.clone(),
            )))),
        )]);
        let full: u64 = charges.iter().sum();
        let tracked = EvalOptions {
            track_cost: true,
            ..Default::default()
        };
        assert_eq!(prog.eval_with(&plain, &tracked).cost, Some(full));
        assert_eq!(prog.eval_with(&host, &tracked).cost, Some(full));
        for limit in 0..full {
            let options = EvalOptions {
                cost_limit: Some(limit),
                ..Default::default()
            };
            let stop = charges
                .iter()
                .scan(0, |sum, c| {
                    *sum += c;
                    Some(*sum)
                })
                .find(|sum| *sum > limit);
            let fast = prog.eval_with(&plain, &options);
            assert!(
                matches!(&fast.value, Err(e) if e.kind() == crate::error::ErrorKind::CostLimitExceeded),
                "exists={exists} limit={limit}: {:?}",
                fast.value
            );
            assert_eq!(fast.cost, stop, "exists={exists} limit={limit}");
        }
    }
}
