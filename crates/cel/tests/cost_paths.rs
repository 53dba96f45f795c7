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
//!
//! The same data is also given as a host's (every list and map a provider,
//! read on demand, as `kcel-kube` exposes documents): the host's reads take
//! paths of their own (fields read out of the provider with the site's hint,
//! folds reading element by element), which must give the values and costs
//! of the plain data. A host's list with an element it cannot read checks
//! the folds' handling of read errors against the general fold.

use std::collections::HashMap;
use std::sync::Arc;

use cel::value::{Key, KeyRef, List, ListProvider, Map, MapProvider};
use cel::{Env, EvalError, EvalOptions, EvalResult, Evaluation, Program, Type, Value};

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
    "self.items.exists(i, !has(i.missing) && i.value > 3)",
    "self.items.all(i, has(i.name) ? i.value > 0 : false)",
    "self.items.filter(i, i.value > 2 ? has(i.name) : !(i.name == 'a-one'))",
    "self.items.map(i, i.value > 2 ? i.name : i)",
    "self.items.exists(i, i.value == 1 ? false : i.value == 2 ? i : i.name == 'a-three')",
    "self.items.all(p1, self.items.all(p2, p1.name == p2.name ? p1.value == p2.value : true))",
    "self.items.exists_one(i, has(i.name) && i.name.startsWith('a'))",
    "self.l.exists(x, x > 2 ? x : false)",
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

/// Expressions over a host's list whose element 1 cannot be read.
const UNREADABLE_EXPRESSIONS: &[&str] = &[
    "self.bad.filter(x, x > 1)",
    "self.bad.map(x, x + 1)",
    "self.bad.map(x, x > 1, x)",
    "self.bad.exists(x, x == 3)",
    "self.bad.all(x, x < 3)",
    "self.bad.filter(x, true).size()",
    "self.bad.transformList(i, v, v * i)",
];

/// A host's list: the elements of a plain one, or an error for the index
/// `unreadable`.
#[derive(Debug)]
struct HostList {
    items: Vec<Value>,
    unreadable: Option<usize>,
}

impl ListProvider for HostList {
    fn len(&self) -> usize {
        self.items.len()
    }
    fn get(&self, index: usize) -> Option<Value> {
        self.try_get(index).ok().flatten()
    }
    fn try_get(&self, index: usize) -> EvalResult<Option<Value>> {
        if self.unreadable == Some(index) {
            return Err(EvalError::msg("unreadable element"));
        }
        Ok(self.items.get(index).cloned())
    }
}

/// A host's map over the entries of a plain one.
#[derive(Debug)]
struct HostMap(indexmap::IndexMap<Key, Value>);

impl MapProvider for HostMap {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn get(&self, key: KeyRef<'_>) -> Option<Value> {
        self.0
            .iter()
            .find_map(|(k, v)| (k.as_ref() == key).then(|| v.clone()))
    }
    fn keys(&self) -> Box<dyn Iterator<Item = Key> + '_> {
        Box::new(self.0.keys().cloned())
    }
}

/// `v` with every list and map, at every depth, a host's.
fn hosted(v: &Value) -> Value {
    match v {
        Value::List(l) => Value::List(List::Provided(Arc::new(HostList {
            items: l.iter().map(|x| hosted(&x)).collect(),
            unreadable: None,
        }))),
        Value::Map(m) => Value::Map(Map::Provided(Arc::new(HostMap(
            m.entries().map(|(k, x)| (k, hosted(&x))).collect(),
        )))),
        other => other.clone(),
    }
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

/// Evaluates `expr` in the specialised (`fast`) and general environments on
/// each of `data` without a limit and under every limit up to its cost: all
/// outcomes must agree. Returns how many were compared.
fn compare(fast: &Env, general: &Env, expr: &str, data: &[Value]) -> usize {
    let pf = fast.compile(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
    let pg = general
        .compile(expr)
        .unwrap_or_else(|e| panic!("{expr}: {e}"));
    let all_vars: Vec<HashMap<String, Value>> = data
        .iter()
        .map(|d| HashMap::from([("self".to_string(), d.clone())]))
        .collect();
    let Some(first) = all_vars.first() else {
        return 0;
    };
    let full = run(&pf, first, None);
    let mut compared = 0;
    for (i, vars) in all_vars.iter().enumerate() {
        assert_eq!(full, run(&pf, vars, None), "{expr}: data {i} unlimited");
        assert_eq!(full, run(&pg, vars, None), "{expr}: data {i} unlimited");
        let total = full.1.expect("tracked");
        for limit in 0..=total {
            let f = run(&pf, vars, Some(limit));
            let g = run(&pg, vars, Some(limit));
            assert_eq!(f, g, "{expr}: data {i} limit {limit}");
            if limit < total {
                assert!(
                    f.0.contains("actual cost limit exceeded"),
                    "{expr}: limit {limit} < cost {total} but finished: {f:?}"
                );
            } else {
                assert_eq!(f, full, "{expr}: data {i} limit = cost");
            }
            compared += 1;
        }
    }
    compared
}

#[test]
fn specialised_and_general_paths_charge_the_same() {
    let (fast, general) = (env(false), env(true));
    let data = [data()];
    let compared: usize = EXPRESSIONS
        .iter()
        .map(|expr| compare(&fast, &general, expr, &data))
        .sum();
    assert!(compared > EXPRESSIONS.len());
}

#[test]
fn a_hosts_data_reads_as_plain_data() {
    let (fast, general) = (env(false), env(true));
    let plain = data();
    let data = [plain.clone(), hosted(&plain)];
    let compared: usize = EXPRESSIONS
        .iter()
        .map(|expr| compare(&fast, &general, expr, &data))
        .sum();
    assert!(compared > 2 * EXPRESSIONS.len());
}

#[test]
fn folds_bind_a_hosts_unreadable_element_as_the_general_fold() {
    let (fast, general) = (env(false), env(true));
    let bad = Value::List(List::Provided(Arc::new(HostList {
        items: vec![Value::Int(1), Value::Int(2), Value::Int(3)],
        unreadable: Some(1),
    })));
    let data = [Value::Map(Map::Provided(Arc::new(HostMap(
        [(Key::from("bad"), bad)].into_iter().collect(),
    ))))];
    let compared: usize = UNREADABLE_EXPRESSIONS
        .iter()
        .map(|expr| compare(&fast, &general, expr, &data))
        .sum();
    assert!(compared > UNREADABLE_EXPRESSIONS.len());
}
