//! The program API: compile once, evaluate many times from many threads, with
//! lazily resolved variables, cancellation and cost limits.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use cel::library::Std;
use cel::library::ext::Lists;
use cel::{Env, ErrorKind, EvalOptions, Program, Value};

fn env() -> Env {
    Env::builder()
        .library(Std)
        .library(Lists::default())
        .variable("n", cel::Type::Int)
        .build()
}

#[test]
fn programs_and_environments_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Program>();
    assert_send_sync::<Env>();
}

#[test]
fn one_program_evaluates_from_many_threads() {
    let program = Arc::new(
        env()
            .compile("[1, 2, 3].map(x, x * n).exists(y, y == 3 * n)")
            .unwrap(),
    );
    let handles: Vec<_> = (0..8)
        .map(|i| {
            let p = Arc::clone(&program);
            std::thread::spawn(move || {
                let vars: HashMap<String, Value> = [("n".to_string(), Value::Int(i))].into();
                (0..200).all(|_| matches!(p.eval(&vars), Ok(Value::Bool(true))))
            })
        })
        .collect();
    for h in handles {
        assert!(h.join().unwrap());
    }
}

#[test]
fn variables_are_resolved_lazily() {
    let program = env().compile("n > 0 || n < 0").unwrap();
    let asked = std::sync::Mutex::new(Vec::new());
    let resolve = |name: &str| {
        asked.lock().unwrap().push(name.to_string());
        (name == "n").then_some(Value::Int(5))
    };
    assert!(matches!(program.eval(&resolve), Ok(Value::Bool(true))));
    assert_eq!(asked.lock().unwrap().as_slice(), ["n"]);
}

#[test]
fn a_raised_cancel_flag_stops_a_long_comprehension() {
    let program = env()
        .compile("lists.range(1000000).map(x, x + 1).size() > 0")
        .unwrap();
    let cancel = AtomicBool::new(true);
    let out = program.eval_with(
        &(),
        &EvalOptions {
            cancel: Some(&cancel),
            ..EvalOptions::default()
        },
    );
    let err = out.value.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Cancelled, "{err}");
}

#[test]
fn a_cost_limit_stops_evaluation_with_cel_gos_message() {
    let program = env().compile("lists.range(1000).all(x, x >= 0)").unwrap();
    let out = program.eval_with(
        &(),
        &EvalOptions {
            cost_limit: Some(100),
            ..EvalOptions::default()
        },
    );
    let err = out.value.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::CostLimitExceeded);
    assert_eq!(
        err.message(),
        "operation cancelled: actual cost limit exceeded"
    );
}
