//! The interpreter's specialised paths charge exactly what its general paths
//! charge.
//!
//! The planner gives common shapes dedicated nodes (`exists`/`all` over
//! `x <op> constant`, `map`/`filter` appending to a local vector, string
//! concatenation chains built in one buffer) that it uses only when no host cost hook can see the calls; a hook that gives
//! every call site a cost function declining every call (returns `None`) therefore switches an environment to the
//! general paths without changing a single cost. Each expression below is
//! evaluated in both environments, without a limit and under every limit
//! from 0 to its full cost: value, error and reported cost must agree, and
//! the full cost must be the first limit that lets the evaluation finish.

use std::collections::HashMap;
use std::sync::Arc;

use cel::{Env, EvalOptions, Evaluation, Program, Type, Value};

const EXPRESSIONS: &[&str] = &[
    "self.l.exists(x, x == 3)",
    "self.l.exists(x, x == 5)",
    "self.l.exists(x, x == 99)",
    "self.l.all(x, x < 100)",
    "self.l.all(x, x < 3)",
    "self.l.exists(x, x < 'a')",
    "self.mixed.exists(x, x > 1)",
    "self.mixed.all(x, x > 1)",
    "self.mixed.exists(x, x == 'b')",
    "self.strs.exists(s, s == 'cc')",
    "self.strs.exists(s, s.startsWith('c'))",
    "self.l.exists_one(x, x == 2)",
    "[1, 2, 3].exists(x, x == 2)",
    "self.items.map(i, i.value).filter(v, v % 2 == 0).size() > 1",
    "self.items.filter(i, i.value > 2)",
    "self.items.map(i, i.value > 2, i.name)",
    "self.items.map(i, i.name + '-' + string(i.value)).join(',')",
    "self.mixed.filter(x, x > 1)",
    "self.mixed.map(x, x + 1)",
    "self.mixed.map(x, x > 1, x)",
    "self.l.transformList(i, v, v * i)",
    "self.l.transformList(i, v, v > 2, v)",
    "self.items.exists(i, i.name == 'b')",
    "self.items.all(i, i.name.startsWith('a') && i.value < 100)",
    "self.name.matches('^[a-z]+$')",
    "self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas",
    "self.l.map(x, self.l.filter(y, y < x)).size()",
    "self.l.map(x, x * 2).exists(y, y == 8)",
    "self.mixed.map(x, 'a' + x + 'b')",
    "self.mixed.map(x, 'n' + string(x) + '!')",
    "self.strs.map(s, s + s + string(size(s)) + 'ü')",
    "'x' + self.name + string(self.replicas) + string(-7)",
];

fn data() -> Value {
    Value::from_json(&serde_json::json!({
        "l": [1, 2, 3, 4, 5],
        "mixed": [1, "a", 2, "b", 3],
        "strs": ["a", "bb", "cc", "ddd"],
        "items": [
            {"name": "a-one", "value": 1},
            {"name": "b-two", "value": 2},
            {"name": "a-three", "value": 3},
            {"name": "b-four", "value": 4}
        ],
        "name": "abc",
        "minReplicas": 1, "replicas": 3, "maxReplicas": 5
    }))
}

fn env(declining_hook: bool) -> Env {
    let mut b = cel::library::full().variable("self", Type::Dyn);
    if declining_hook {
        b = b.runtime_cost_hook(Arc::new(|_, _| Some(Arc::new(|_, _| None))));
    }
    b.build()
}

fn run(p: &Program, vars: &HashMap<String, Value>, limit: Option<u64>) -> (String, Option<u64>) {
    let Evaluation { value, cost } = p.eval_with(
        vars,
        &EvalOptions {
            track_cost: true,
            cost_limit: limit,
            ..Default::default()
        },
    );
    let shown = match value {
        Ok(v) => format!("{v:?}"),
        Err(e) => format!("error: {e}"),
    };
    (shown, cost)
}

#[test]
fn specialised_and_general_paths_charge_the_same() {
    let (fast, general) = (env(false), env(true));
    let vars = HashMap::from([("self".to_string(), data())]);
    let mut compared = 0;
    for expr in EXPRESSIONS {
        let pf = fast.compile(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
        let pg = general
            .compile(expr)
            .unwrap_or_else(|e| panic!("{expr}: {e}"));
        let full = run(&pf, &vars, None);
        assert_eq!(full, run(&pg, &vars, None), "{expr}: unlimited");
        let total = full.1.expect("tracked");
        for limit in 0..=total {
            let f = run(&pf, &vars, Some(limit));
            let g = run(&pg, &vars, Some(limit));
            assert_eq!(f, g, "{expr}: limit {limit}");
            if limit < total {
                assert!(
                    f.0.contains("actual cost limit exceeded"),
                    "{expr}: limit {limit} < cost {total} but finished: {f:?}"
                );
            } else {
                assert_eq!(f, full, "{expr}: limit = cost");
            }
            compared += 1;
        }
    }
    assert!(compared > EXPRESSIONS.len());
}
