//! Criterion benchmarks of the shared benchmark protocol
//! (`../shared/bench/protocol.json`): for each expression, the evaluation time
//! with `self` bound to `bench_data.json` (converted once, outside timing) and
//! the compile time (parse + check + plan), in the conformance environment
//! (standard library and every extension) with `self` declared `dyn`.
//!
//! `cargo bench -p kcel-cel --bench protocol [-- <filter>]`. Without the shared data
//! the run prints a notice and measures nothing.

#[path = "../tests/common/mod.rs"]
mod common;

use std::collections::HashMap;
use std::hint::black_box;
use std::time::Duration;

use cel::{Type, Value};
use criterion::Criterion;
use serde_json::Value as Json;

/// One expression of the protocol.
struct Expression {
    id: String,
    expr: String,
}

fn load() -> Result<Option<(Vec<Expression>, Value)>, String> {
    let Some(protocol) = common::shared::require("bench/protocol.json", "the benchmark protocol")?
    else {
        return Ok(None);
    };
    let Some(data) = common::shared::require("bench/bench_data.json", "the benchmark data")? else {
        return Ok(None);
    };
    let read = |p: &std::path::Path| -> Result<Json, String> {
        let text =
            std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        serde_json::from_str(&text).map_err(|e| format!("bad {}: {e}", p.display()))
    };
    let protocol = read(&protocol)?;
    let expressions = protocol
        .get("expressions")
        .and_then(Json::as_array)
        .ok_or("protocol.json has no `expressions`")?
        .iter()
        .map(|e| {
            let field = |k: &str| e.get(k).and_then(Json::as_str).map(str::to_string);
            Ok(Expression {
                id: field("id").ok_or("an expression has no id")?,
                expr: field("expr").ok_or("an expression has no expr")?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(Some((expressions, Value::from_json(&read(&data)?))))
}

fn main() {
    let (expressions, data) = match load() {
        Ok(Some(x)) => x,
        Ok(None) => return,
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(1);
        }
    };
    let env = common::full_env::builder()
        .variable("self", Type::Dyn)
        .build();
    let bindings: HashMap<String, Value> = HashMap::from([("self".to_string(), data)]);

    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20)
        .configure_from_args();
    for e in &expressions {
        let program = match env.compile(&e.expr) {
            Ok(p) => p,
            Err(issues) => {
                eprintln!("NOTICE: {} does not compile, not timed:\n{issues}", e.id);
                continue;
            }
        };
        match program.eval(&bindings) {
            Ok(Value::Bool(true)) => {}
            other => {
                eprintln!(
                    "NOTICE: {} does not evaluate to true ({other:?}), not timed",
                    e.id
                );
                continue;
            }
        }
        c.bench_function(&format!("eval/{}", e.id), |b| {
            b.iter(|| black_box(program.eval(black_box(&bindings))))
        });
        let tracked = cel::EvalOptions {
            track_cost: true,
            ..Default::default()
        };
        c.bench_function(&format!("eval_tracked/{}", e.id), |b| {
            b.iter(|| black_box(program.eval_with(black_box(&bindings), &tracked)))
        });
        c.bench_function(&format!("compile/{}", e.id), |b| {
            b.iter(|| black_box(env.compile(black_box(&e.expr))))
        });
    }
    c.final_summary();
}
