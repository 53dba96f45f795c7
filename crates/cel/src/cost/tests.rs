//! Unit tests on hand-built checked trees, shaped as cel-go's parser, macros
//! and checker shape them, against the worked figures of the reference
//! (k8s-cel.md §11) and Kubernetes' estimated-cost tables.

use std::collections::HashMap;
use std::sync::Arc;

use super::*;
use crate::checker::Reference;
use crate::syntax::{
    Ast, Call, Comprehension, Expr, ExprKind, List, Literal, MapEntry, Select, Source, SourceInfo,
};
use crate::types::Type;

/// Builds a checked tree node by node, recording types and overload ids.
#[derive(Default)]
struct Tree {
    next: i64,
    types: HashMap<i64, Type>,
    refs: HashMap<i64, Reference>,
}

impl Tree {
    fn node(&mut self, kind: ExprKind, ty: Type) -> Expr {
        self.next += 1;
        self.types.insert(self.next, ty);
        Expr::new(self.next, kind)
    }

    fn int(&mut self, i: i64) -> Expr {
        self.node(ExprKind::Literal(Literal::Int(i)), Type::Int)
    }

    fn boolean(&mut self, b: bool) -> Expr {
        self.node(ExprKind::Literal(Literal::Bool(b)), Type::Bool)
    }

    fn string(&mut self, s: &str) -> Expr {
        self.node(ExprKind::Literal(Literal::String(s.into())), Type::String)
    }

    fn ident(&mut self, name: &str, ty: Type) -> Expr {
        self.node(ExprKind::Ident(name.into()), ty)
    }

    fn select(&mut self, operand: Expr, field: &str, ty: Type) -> Expr {
        self.select_kind(operand, field, ty, false)
    }

    fn has(&mut self, operand: Expr, field: &str) -> Expr {
        self.select_kind(operand, field, Type::Bool, true)
    }

    fn select_kind(&mut self, operand: Expr, field: &str, ty: Type, test_only: bool) -> Expr {
        self.node(
            ExprKind::Select(Box::new(Select {
                operand,
                field: field.into(),
                test_only,
                optional: false,
            })),
            ty,
        )
    }

    fn call(
        &mut self,
        function: &str,
        target: Option<Expr>,
        args: Vec<Expr>,
        overloads: &[&str],
        ty: Type,
    ) -> Expr {
        let e = self.node(
            ExprKind::Call(Box::new(Call {
                target,
                function: function.into(),
                args: args.into(),
            })),
            ty,
        );
        self.refs.insert(
            e.id,
            Reference {
                name: Default::default(),
                overload_ids: overloads.iter().map(|s| (*s).into()).collect(),
                value: None,
            },
        );
        e
    }

    fn list(&mut self, elements: Vec<Expr>, ty: Type) -> Expr {
        self.node(
            ExprKind::List(Box::new(List {
                elements,
                optional_indices: Vec::new(),
            })),
            ty,
        )
    }

    fn map(&mut self, entries: Vec<(Expr, Expr)>, ty: Type) -> Expr {
        let entries = entries
            .into_iter()
            .map(|(key, value)| {
                self.next += 1;
                MapEntry {
                    id: self.next,
                    key,
                    value,
                    optional: false,
                }
            })
            .collect();
        self.node(ExprKind::Map(entries), ty)
    }

    #[allow(clippy::too_many_arguments)]
    fn comprehension(
        &mut self,
        iter_var: &str,
        iter_var2: Option<&str>,
        iter_range: Expr,
        accu_var: &str,
        accu_init: Expr,
        loop_condition: Expr,
        loop_step: Expr,
        result: Expr,
        ty: Type,
    ) -> Expr {
        self.node(
            ExprKind::Comprehension(Box::new(Comprehension {
                iter_var: iter_var.into(),
                iter_var2: iter_var2.map(Into::into),
                iter_range,
                accu_var: accu_var.into(),
                accu_init,
                loop_condition,
                loop_step,
                result,
            })),
            ty,
        )
    }

    /// `range.all(var, pred(tree))` as cel-go expands it.
    fn all(&mut self, range: Expr, var: &str, pred: impl FnOnce(&mut Tree) -> Expr) -> Expr {
        let init = self.boolean(true);
        let acc = self.ident("@result", Type::Bool);
        let cond = self.call(
            "@not_strictly_false",
            None,
            vec![acc],
            &["not_strictly_false"],
            Type::Bool,
        );
        let acc = self.ident("@result", Type::Bool);
        let p = pred(self);
        let step = self.call("_&&_", None, vec![acc, p], &["logical_and"], Type::Bool);
        let result = self.ident("@result", Type::Bool);
        self.comprehension(
            var,
            None,
            range,
            "@result",
            init,
            cond,
            step,
            result,
            Type::Bool,
        )
    }

    fn finish(self, expr: Expr) -> CheckedAst {
        CheckedAst {
            ast: Ast {
                expr,
                source_info: SourceInfo::default(),
                source: Arc::new(Source::new("")),
                next_id: self.next + 1,
            },
            types: self.types.into_iter().collect(),
            references: self.refs.into_iter().collect(),
        }
    }
}

/// A size estimator answering fixed sizes for paths.
struct Sizes(Vec<(Vec<&'static str>, SizeEstimate)>);

impl SizeEstimator for Sizes {
    fn estimate_size(&self, node: &AstNode<'_>) -> Option<SizeEstimate> {
        self.0
            .iter()
            .find(|(p, _)| p.iter().eq(node.path().iter()))
            .map(|(_, s)| *s)
    }
}

fn env() -> Env {
    Env::builder().build()
}

fn k8s_options() -> EstimateOptions {
    EstimateOptions {
        presence_test_cost: 0,
        ..EstimateOptions::default()
    }
}

fn run(checked: &CheckedAst, sizes: &dyn SizeEstimator) -> CostEstimate {
    run_with(checked, &env(), &k8s_options(), sizes)
}

fn run_with(
    checked: &CheckedAst,
    env: &Env,
    options: &EstimateOptions,
    sizes: &dyn SizeEstimator,
) -> CostEstimate {
    let hooks = Hooks {
        size: sizes,
        calls: &NoEstimates,
    };
    estimate(checked, env, options, hooks).unwrap()
}

/// Unbounded string fields in Kubernetes: 3 145 726 bytes.
const MAX_STRING: u64 = 3_145_726;
/// Unbounded list of numbers in Kubernetes: 1 572 863 items.
const MAX_NUMBER_LIST: u64 = 1_572_863;

fn obj() -> Type {
    Type::object("Object")
}

#[test]
fn all_true_on_number_list_costs_3n_plus_2() {
    for (n, expected) in [(MAX_NUMBER_LIST, 4_718_591), (10, 32)] {
        let mut t = Tree::default();
        let range = t.ident("self", Type::list(Type::Int));
        let e = t.all(range, "x", |t| t.boolean(true));
        let checked = t.finish(e);
        let sizes = Sizes(vec![(vec!["self"], SizeEstimate::new(0, n))]);
        assert_eq!(run(&checked, &sizes), CostEstimate::new(2, expected));
    }
}

#[test]
fn optional_equality_with_unknown_sizes_uses_f64_rounding() {
    // self.obj.?field == optional.of('a')
    let mut t = Tree::default();
    let this = t.ident("self", obj());
    let sel = t.select(this, "obj", obj());
    let field = t.string("field");
    let opt = Type::optional(Type::String);
    let lhs = t.call(
        "_?._",
        None,
        vec![sel, field],
        &["select_optional_field"],
        opt.clone(),
    );
    let a = t.string("a");
    let rhs = t.call("optional.of", None, vec![a], &["optional_of"], opt);
    let e = t.call("_==_", None, vec![lhs, rhs], &["equals"], Type::Bool);
    let checked = t.finish(e);
    assert_eq!(
        run(&checked, &NoEstimates),
        CostEstimate::new(5, 1_844_674_407_370_955_268)
    );
}

#[test]
fn string_concatenation_size() {
    // size(self + "hello") > size("hello"), self an unbounded string.
    let mut t = Tree::default();
    let this = t.ident("self", Type::String);
    let hello = t.string("hello");
    let concat = t.call(
        "_+_",
        None,
        vec![this, hello],
        &["add_string"],
        Type::String,
    );
    let lhs = t.call("size", None, vec![concat], &["size_string"], Type::Int);
    let hello = t.string("hello");
    let rhs = t.call("size", None, vec![hello], &["size_string"], Type::Int);
    let e = t.call("_>_", None, vec![lhs, rhs], &["greater_int64"], Type::Bool);
    let checked = t.finish(e);
    let sizes = Sizes(vec![(vec!["self"], SizeEstimate::new(0, MAX_STRING))]);
    assert_eq!(run(&checked, &sizes).max, 314_578);
}

#[test]
fn starts_with_is_priced_by_its_argument() {
    // self.val1.startsWith('Rook') = 3 (Kubernetes TestCelEstimatedCostStability).
    let mut t = Tree::default();
    let this = t.ident("self", obj());
    let val1 = t.select(this, "val1", Type::String);
    let rook = t.string("Rook");
    let e = t.call(
        "startsWith",
        Some(val1),
        vec![rook],
        &["starts_with_string"],
        Type::Bool,
    );
    let checked = t.finish(e);
    let sizes = Sizes(vec![(
        vec!["self", "val1"],
        SizeEstimate::new(0, MAX_STRING),
    )]);
    assert_eq!(run(&checked, &sizes).max, 3);
}

fn matches_tree(global: bool) -> CheckedAst {
    // self.val1.matches('^[^0-9]*$') / matches(self.val1, '^[^0-9]*$')
    let mut t = Tree::default();
    let this = t.ident("self", obj());
    let val1 = t.select(this, "val1", Type::String);
    let re = t.string("^[^0-9]*$");
    let e = if global {
        t.call("matches", None, vec![val1, re], &["matches"], Type::Bool)
    } else {
        t.call(
            "matches",
            Some(val1),
            vec![re],
            &["matches_string"],
            Type::Bool,
        )
    };
    t.finish(e)
}

#[test]
fn matches_receiver_and_global_by_version() {
    let sizes = Sizes(vec![(
        vec!["self", "val1"],
        SizeEstimate::new(0, MAX_STRING),
    )]);
    // 2 + ⌈0.1·3 145 727⌉ · ⌈0.25·9⌉ = 2 + 314 573 · 3.
    assert_eq!(run(&matches_tree(false), &sizes).max, 943_721);
    assert_eq!(run(&matches_tree(true), &sizes).max, 943_721);
    let v28 = EstimateOptions {
        version: CelGoVersion::V0_26,
        ..k8s_options()
    };
    assert_eq!(
        run_with(&matches_tree(true), &env(), &v28, &sizes),
        CostEstimate::fixed(3)
    );
    assert_eq!(
        run_with(&matches_tree(false), &env(), &v28, &sizes).max,
        943_721
    );
}

#[test]
fn select_costs_depend_on_the_operand_type() {
    // self.a.b: 1 (ident) + 1 (self is an object) + 0 (self.a is dyn).
    let mut t = Tree::default();
    let this = t.ident("self", obj());
    let a = t.select(this, "a", Type::Dyn);
    let b = t.select(a, "b", Type::Dyn);
    assert_eq!(run(&t.finish(b), &NoEstimates), CostEstimate::fixed(2));
    // m.k on a map, then has(m.k): presence cost configurable.
    let mut t = Tree::default();
    let m = t.ident("m", Type::map(Type::String, Type::Int));
    let e = t.has(m, "k");
    let checked = t.finish(e);
    assert_eq!(run(&checked, &NoEstimates), CostEstimate::fixed(1));
    assert_eq!(
        run_with(&checked, &env(), &EstimateOptions::default(), &NoEstimates),
        CostEstimate::fixed(2)
    );
}

#[test]
fn integer_equality_on_schema_fields() {
    // self.val1 == self.val6 on int fields: the Kubernetes estimator answers
    // max 0 for scalar fields, so `==` costs 0 (estimate 4).
    let mut t = Tree::default();
    let s1 = t.ident("self", obj());
    let v1 = t.select(s1, "val1", Type::Int);
    let s2 = t.ident("self", obj());
    let v6 = t.select(s2, "val6", Type::Int);
    let e = t.call("_==_", None, vec![v1, v6], &["equals"], Type::Bool);
    let checked = t.finish(e);
    let sizes = Sizes(vec![
        (vec!["self", "val1"], SizeEstimate::new(0, 0)),
        (vec!["self", "val6"], SizeEstimate::new(0, 0)),
    ]);
    assert_eq!(run(&checked, &sizes), CostEstimate::fixed(4));
    // Without the host's answer, scalars have size 1: `==` costs 1.
    assert_eq!(run(&checked, &NoEstimates), CostEstimate::fixed(5));
}

#[test]
fn map_key_iteration_variable_path_and_size() {
    // self.all(k, k.contains(self[k])) on a map of 10 strings of maxLength 10:
    // 72 = 1 + 10·(2 + 1 + 1 + 3 + 0) + 1 (reference §8.3).
    let mut t = Tree::default();
    let map_t = Type::map(Type::String, Type::String);
    let range = t.ident("self", map_t.clone());
    let e = t.all(range, "k", |t| {
        let k = t.ident("k", Type::String);
        let this = t.ident("self", map_t.clone());
        let k2 = t.ident("k", Type::String);
        let idx = t.call("_[_]", None, vec![this, k2], &["index_map"], Type::String);
        t.call(
            "contains",
            Some(k),
            vec![idx],
            &["contains_string"],
            Type::Bool,
        )
    });
    let checked = t.finish(e);
    let sizes = Sizes(vec![
        (vec!["self"], SizeEstimate::new(0, 10)),
        (vec!["self", "@keys"], SizeEstimate::new(0, 0)),
        (vec!["self", "@values"], SizeEstimate::new(0, 40)),
    ]);
    assert_eq!(run(&checked, &sizes).max, 72);
}

#[test]
fn list_all_starts_with_on_objects() {
    // self.listMap.all(m, m.k.startsWith('a')) = 6 291 453 (Kubernetes
    // TestCelEstimatedCostStability): 2 + N·(3 + 1 + 1 + 1) + 1 with the
    // unbounded list of objects with required string `k` (N = 1 048 575).
    let mut t = Tree::default();
    let this = t.ident("self", obj());
    let range = t.select(this, "listMap", Type::list(obj()));
    let e = t.all(range, "m", |t| {
        let m = t.ident("m", obj());
        let k = t.select(m, "k", Type::String);
        let a = t.string("a");
        t.call(
            "startsWith",
            Some(k),
            vec![a],
            &["starts_with_string"],
            Type::Bool,
        )
    });
    let checked = t.finish(e);
    let sizes = Sizes(vec![
        (vec!["self", "listMap"], SizeEstimate::new(0, 1_048_575)),
        (
            vec!["self", "listMap", "@items", "k"],
            SizeEstimate::new(0, MAX_STRING),
        ),
    ]);
    assert_eq!(run(&checked, &sizes).max, 6_291_453);
}

/// `[].sortBy(e, e) == []` with ext.Lists v3's estimators (as cel-go expands
/// `sortBy`: a bind of `@__sortBy_input__` whose result calls
/// `@sortByAssociatedKeys` with a `map` over the input).
#[test]
fn sort_by_on_empty_list() {
    let mut t = Tree::default();
    let int_list = Type::list(Type::Int);
    let input = "@__sortBy_input__";
    let range = t.list(vec![], int_list.clone());
    let init = t.list(vec![], int_list.clone());
    let cond = t.boolean(false);
    let step = t.ident(input, int_list.clone());
    // @__sortBy_input__.map(e, e)
    let map_range = t.ident(input, int_list.clone());
    let map_init = t.list(vec![], int_list.clone());
    let map_cond = t.boolean(true);
    let acc = t.ident("@result", int_list.clone());
    let e_ident = t.ident("e", Type::Int);
    let single = t.list(vec![e_ident], int_list.clone());
    let map_step = t.call(
        "_+_",
        None,
        vec![acc, single],
        &["add_list"],
        int_list.clone(),
    );
    let map_result = t.ident("@result", int_list.clone());
    let keys = t.comprehension(
        "e",
        None,
        map_range,
        "@result",
        map_init,
        map_cond,
        map_step,
        map_result,
        int_list.clone(),
    );
    let target = t.ident(input, int_list.clone());
    let sorted = t.call(
        "@sortByAssociatedKeys",
        Some(target),
        vec![keys],
        &["list_int_sortByAssociatedKeys"],
        int_list.clone(),
    );
    let bind = t.comprehension(
        "#unused",
        None,
        range,
        input,
        init,
        cond,
        step,
        sorted,
        int_list.clone(),
    );
    let empty = t.list(vec![], int_list);
    let e = t.call("_==_", None, vec![bind, empty], &["equals"], Type::Bool);
    let checked = t.finish(e);

    let mut builder = Env::builder();
    install_lists_estimators(&mut builder);
    let with_lists = builder.build();
    // bind: range 10 + init 10 + [target 1 + map (1 + 10 + 0·13 + 1) + sort 11]
    // = 44; `==` against `[]`: 10 + 0.
    assert_eq!(
        run_with(&checked, &with_lists, &k8s_options(), &NoEstimates),
        CostEstimate::fixed(54)
    );
    // Without the ext.Lists v3 estimators, `@sortByAssociatedKeys` costs 1.
    assert_eq!(
        run_with(&checked, &env(), &k8s_options(), &NoEstimates),
        CostEstimate::fixed(44)
    );
}

#[test]
fn two_variable_map_all() {
    // {'a': 1, 'b': 2}.all(k, v, v > 0) = {37, 41} (TestTwoVariableComprehensionCost).
    let mut t = Tree::default();
    let map_t = Type::map(Type::String, Type::Int);
    let (ka, va, kb, vb) = (t.string("a"), t.int(1), t.string("b"), t.int(2));
    let range = t.map(vec![(ka, va), (kb, vb)], map_t);
    let init = t.boolean(true);
    let acc = t.ident("@result", Type::Bool);
    let cond = t.call(
        "@not_strictly_false",
        None,
        vec![acc],
        &["not_strictly_false"],
        Type::Bool,
    );
    let acc = t.ident("@result", Type::Bool);
    let v = t.ident("v", Type::Int);
    let zero = t.int(0);
    let p = t.call("_>_", None, vec![v, zero], &["greater_int64"], Type::Bool);
    let step = t.call("_&&_", None, vec![acc, p], &["logical_and"], Type::Bool);
    let result = t.ident("@result", Type::Bool);
    let e = t.comprehension(
        "k",
        Some("v"),
        range,
        "@result",
        init,
        cond,
        step,
        result,
        Type::Bool,
    );
    assert_eq!(run(&t.finish(e), &NoEstimates), CostEstimate::new(37, 41));
}

#[test]
fn sets_and_quote_estimates() {
    // sets.contains([1, 2, 3, 4], [2, 3]) = 29 with ext.Sets' estimator.
    let mut t = Tree::default();
    let int_list = Type::list(Type::Int);
    let a: Vec<Expr> = (1..=4).map(|i| t.int(i)).collect();
    let a = t.list(a, int_list.clone());
    let b: Vec<Expr> = (2..=3).map(|i| t.int(i)).collect();
    let b = t.list(b, int_list);
    let e = t.call(
        "sets.contains",
        None,
        vec![a, b],
        &["list_sets_contains_list"],
        Type::Bool,
    );
    let checked = t.finish(e);
    let mut builder = Env::builder();
    install_sets_estimators(&mut builder);
    let with_sets = builder.build();
    assert_eq!(
        run_with(&checked, &with_sets, &k8s_options(), &NoEstimates),
        CostEstimate::fixed(29)
    );
    assert_eq!(run(&checked, &NoEstimates), CostEstimate::fixed(21));

    // strings.quote(s) == strings.quote(s), s of 21 code points: {7, 11}.
    let mut t = Tree::default();
    let s = "ABCDEFGHIJ abcdefghij";
    let (l, r) = (t.string(s), t.string(s));
    let lq = t.call(
        "strings.quote",
        None,
        vec![l],
        &["strings_quote"],
        Type::String,
    );
    let rq = t.call(
        "strings.quote",
        None,
        vec![r],
        &["strings_quote"],
        Type::String,
    );
    let e = t.call("_==_", None, vec![lq, rq], &["equals"], Type::Bool);
    assert_eq!(run(&t.finish(e), &NoEstimates), CostEstimate::new(7, 11));
}

#[test]
fn union_over_overloads_and_dyn() {
    // dyn(x) + y with both add_string and add_list candidates and unknown
    // sizes: the union of their estimates.
    let mut t = Tree::default();
    let x = t.ident("x", Type::Dyn);
    let dx = t.call("dyn", None, vec![x], &["to_dyn"], Type::Dyn);
    let y = t.ident("y", Type::Dyn);
    let e = t.call(
        "_+_",
        None,
        vec![dx, y],
        &["add_string", "add_list"],
        Type::Dyn,
    );
    let checked = t.finish(e);
    // args: dyn(x) = 2, y = 1; add_list {1, 1}, add_string ⌈0.1·{0, MAX}⌉.
    assert_eq!(
        run(&checked, &NoEstimates),
        CostEstimate::new(3, 3 + 1_844_674_407_370_955_264)
    );
}

#[test]
fn calls_without_overloads_cost_nothing() {
    let mut t = Tree::default();
    let x = t.ident("x", Type::Dyn);
    let e = t.call("f", None, vec![x], &[], Type::Dyn);
    assert_eq!(run(&t.finish(e), &NoEstimates), CostEstimate::fixed(0));
}

#[test]
fn host_call_hook_precedes_builtins() {
    struct Flat;
    impl CallCostEstimator for Flat {
        fn estimate_call_cost(
            &self,
            function: &str,
            _overload_id: &str,
            target: Option<&AstNode<'_>>,
            args: &[AstNode<'_>],
        ) -> Option<CallEstimate> {
            (function == "contains").then(|| {
                assert_eq!(target.map(|t| t.path().to_vec()), Some(vec!["s".into()]));
                assert_eq!(args.len(), 1);
                CallEstimate::cost(CostEstimate::fixed(100))
            })
        }
    }
    let mut t = Tree::default();
    let s = t.ident("s", Type::String);
    let sub = t.string("x");
    let e = t.call(
        "contains",
        Some(s),
        vec![sub],
        &["contains_string"],
        Type::Bool,
    );
    let checked = t.finish(e);
    let hooks = Hooks {
        size: &NoEstimates,
        calls: &Flat,
    };
    let c = estimate(&checked, &env(), &k8s_options(), hooks).unwrap();
    assert_eq!(c, CostEstimate::fixed(101));
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let mut t = Tree::default();
    let mut e = t.ident("x", Type::Bool);
    for _ in 0..(MAX_NESTING_DEPTH + 10) {
        e = t.call("!_", None, vec![e], &["logical_not"], Type::Bool);
    }
    let checked = t.finish(e);
    let r = estimate(&checked, &env(), &k8s_options(), Hooks::none());
    assert!(matches!(r, Err(EstimateError::NestingTooDeep { .. })));
    // Just under the limit works (on a 2 MiB test thread stack).
    let mut t = Tree::default();
    let mut e = t.ident("x", Type::Bool);
    for _ in 0..(MAX_NESTING_DEPTH - 1) {
        e = t.call("!_", None, vec![e], &["logical_not"], Type::Bool);
    }
    let checked = t.finish(e);
    let r = estimate(&checked, &env(), &k8s_options(), Hooks::none()).unwrap();
    assert_eq!(r, CostEstimate::fixed(MAX_NESTING_DEPTH as u64));
}

#[test]
fn nested_comprehensions_fit_the_stack() {
    // 180 nested `all` macros: 4 tree levels each (720 < the limit).
    let mut t = Tree::default();
    fn nest(t: &mut Tree, n: usize) -> Expr {
        let range = t.ident("self", Type::list(Type::Int));
        if n == 0 {
            return t.all(range, "x", |t| t.boolean(true));
        }
        t.all(range, "x", |t| nest(t, n - 1))
    }
    let e = nest(&mut t, 179);
    let checked = t.finish(e);
    let sizes = Sizes(vec![(vec!["self"], SizeEstimate::new(0, 1))]);
    // Each level: range 1 + result 1 + 1·(cond 2 + step (1 + inner)).
    let mut expected = 1 + 1 + 3; // innermost: 2 + 1·3
    for _ in 0..179 {
        expected = 1 + 1 + (2 + 1 + expected);
    }
    assert_eq!(run(&checked, &sizes).max, expected);
}
