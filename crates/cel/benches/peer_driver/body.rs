
#[path = "../../tests/common/mod.rs"]
mod common;

use std::collections::HashMap;
use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

use cel::{Type, Value};
use serde_json::{Value as Json, json};

/// Calls `f` repeatedly: `warmup_s` of warm-up, then `rounds` rounds of the
/// iteration count that makes a round last about `target_s`. Returns the best
/// round's time per call (ns) and the iterations per round.
fn time_it(mut f: impl FnMut(), warmup_s: f64, rounds: usize, target_s: f64) -> (f64, u64) {
    let start = Instant::now();
    let mut warm: u64 = 0;
    loop {
        f();
        warm += 1;
        if start.elapsed().as_secs_f64() >= warmup_s {
            break;
        }
    }
    let per_call = start.elapsed().as_secs_f64() / warm as f64;
    let iters = ((target_s / per_call).ceil() as u64).max(1);
    let rounds = if per_call > 1.0 { 3 } else { rounds };
    let mut best = f64::INFINITY;
    for _ in 0..rounds {
        let t = Instant::now();
        for _ in 0..iters {
            f();
        }
        best = best.min(t.elapsed().as_nanos() as f64 / iters as f64);
    }
    (best, iters)
}

/// Uses an evaluation's outcome as a caller does (the JS drivers' check of the
/// result): whether the value is `true`, and the cost; the optimiser may not
/// drop either.
#[inline(always)]
fn consume(ev: cel::Evaluation) {
    black_box(matches!(ev.value, Ok(Value::Bool(true))));
    black_box(ev.cost);
}

fn read(path: &str) -> Result<Json, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("bad {path}: {e}"))
}

/// The environment every mode compiles in: all libraries, `self: dyn`.
fn bench_env() -> cel::Env {
    common::full_env::builder()
        .variable("self", Type::Dyn)
        .build()
}

/// The text of expression `id` of the protocol.
fn expression<'p>(protocol: &'p Json, id: &str) -> Result<&'p str, String> {
    protocol["expressions"]
        .as_array()
        .and_then(|es| es.iter().find(|e| e["id"] == id))
        .and_then(|e| e["expr"].as_str())
        .ok_or(format!("no expression {id}"))
}

fn bench(protocol_path: &str, data_path: &str) -> Result<(), String> {
    let protocol = read(protocol_path)?;
    let data = Value::from_json(&read(data_path)?);
    let timing = &protocol["timing"];
    let warmup = timing["warmup_s"].as_f64().unwrap_or(0.3);
    let rounds = timing["rounds"].as_u64().unwrap_or(5) as usize;
    let target = timing["round_target_s"].as_f64().unwrap_or(0.2);
    let env = bench_env();
    // Built once, outside timing.
    let bindings: HashMap<String, Value> = HashMap::from([("self".to_string(), data)]);
    let expressions = protocol["expressions"]
        .as_array()
        .ok_or("no `expressions`")?;
    for e in expressions {
        let id = e["id"].as_str().unwrap_or("?");
        let expr = e["expr"].as_str().unwrap_or_default();
        let t0 = Instant::now();
        let compiled = env.compile(expr);
        let first_compile_ns = t0.elapsed().as_nanos() as f64;
        let program = match compiled {
            Ok(p) => p,
            Err(issues) => {
                let error = format!("compile: {issues}");
                println!(
                    "{}",
                    json!({"peer": "kcel", "id": id, "ok": false, "error": error})
                );
                continue;
            }
        };
        let (compile_ns, _) = time_it(
            || {
                let _ = black_box(env.compile(black_box(expr)));
            },
            0.05,
            3,
            0.05,
        );
        // Evaluation is timed with cost tracking on (issue 14's measure: kcel
        // with cost tracking against the peers without it).
        let tracked = cel::EvalOptions {
            track_cost: true,
            ..Default::default()
        };
        match program.eval_with(&bindings, &tracked).value {
            Err(err) => println!(
                "{}",
                json!({"peer": "kcel", "id": id, "ok": false,
                       "first_compile_ns": first_compile_ns, "error": format!("eval: {err}")})
            ),
            Ok(v) => {
                let ok = matches!(v, Value::Bool(true));
                let (eval_ns, iters) = time_it(
                    || {
                        consume(program.eval_with(black_box(&bindings), &tracked));
                    },
                    warmup,
                    rounds,
                    target,
                );
                println!(
                    "{}",
                    json!({"peer": "kcel", "id": id, "ok": ok, "result": format!("{v:?}"),
                           "first_compile_ns": first_compile_ns, "compile_ns": compile_ns,
                           "eval_ns": eval_ns, "iters": iters})
                );
            }
        }
    }
    Ok(())
}

/// `profile <protocol.json> <bench_data.json> <id> <n> [tracked]`: compiles
/// expression `id` once and evaluates it `n` times (optionally with cost
/// tracking), for profilers (`perf`, `valgrind --tool=callgrind`).
fn profile(
    protocol_path: &str,
    data_path: &str,
    id: &str,
    n: &str,
    tracked: bool,
) -> Result<(), String> {
    let protocol = read(protocol_path)?;
    let data = Value::from_json(&read(data_path)?);
    let n: u64 = n.parse().map_err(|_| format!("bad count {n}"))?;
    let env = bench_env();
    let bindings: HashMap<String, Value> = HashMap::from([("self".to_string(), data)]);
    let expr = expression(&protocol, id)?;
    let program = env.compile(expr).map_err(|e| e.to_string())?;
    let options = cel::EvalOptions {
        track_cost: tracked,
        ..Default::default()
    };
    for _ in 0..n {
        consume(program.eval_with(black_box(&bindings), &options));
    }
    let out = program.eval_with(&bindings, &options);
    println!("{id}: {:?} cost {:?}", out.value, out.cost);
    Ok(())
}

/// `profile-compile <protocol.json> <id> <n>`: compiles expression `id` `n`
/// times, for profilers.
fn profile_compile(protocol_path: &str, id: &str, n: &str) -> Result<(), String> {
    let protocol = read(protocol_path)?;
    let n: u64 = n.parse().map_err(|_| format!("bad count {n}"))?;
    let env = bench_env();
    let expr = expression(&protocol, id)?;
    for _ in 0..n {
        let _ = black_box(env.compile(black_box(expr)));
    }
    Ok(())
}

/// `tracking <protocol.json> <bench_data.json>`: per expression, evaluation
/// time without and with cost tracking, timed in alternating rounds of one
/// process, and their ratio (the checker issue's 1.2× bound).
fn tracking(protocol_path: &str, data_path: &str) -> Result<(), String> {
    let protocol = read(protocol_path)?;
    let data = Value::from_json(&read(data_path)?);
    let env = bench_env();
    let bindings: HashMap<String, Value> = HashMap::from([("self".to_string(), data)]);
    let tracked = cel::EvalOptions {
        track_cost: true,
        ..Default::default()
    };
    let untracked = cel::EvalOptions::default();
    for e in protocol["expressions"]
        .as_array()
        .ok_or("no `expressions`")?
    {
        let id = e["id"].as_str().unwrap_or("?");
        let program = env
            .compile(e["expr"].as_str().unwrap_or_default())
            .map_err(|i| i.to_string())?;
        let (mut best_off, mut best_on) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..7 {
            let (off, _) = time_it(
                || {
                    consume(program.eval_with(black_box(&bindings), &untracked));
                },
                0.02,
                1,
                0.1,
            );
            let (on, _) = time_it(
                || {
                    consume(program.eval_with(black_box(&bindings), &tracked));
                },
                0.02,
                1,
                0.1,
            );
            best_off = best_off.min(off);
            best_on = best_on.min(on);
        }
        let cost = program.eval_with(&bindings, &tracked).cost;
        println!(
            "{}",
            json!({"id": id, "untracked_ns": best_off, "tracked_ns": best_on,
                   "ratio": best_on / best_off, "cost": cost})
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let result = match args.as_slice() {
        [mode, protocol, data] if mode == "bench" => bench(protocol, data),
        [mode, protocol, data] if mode == "tracking" => tracking(protocol, data),
        [mode, protocol, data, id, n] if mode == "profile" => profile(protocol, data, id, n, false),
        [mode, protocol, data, id, n, t] if mode == "profile" && t == "tracked" => {
            profile(protocol, data, id, n, true)
        }
        [mode, protocol, id, n] if mode == "profile-compile" => profile_compile(protocol, id, n),
        [] => {
            eprintln!(
                "peer_driver: nothing to do (usage: bench <protocol.json> <bench_data.json>)"
            );
            Ok(())
        }
        _ => Err("usage: peer_driver bench <protocol.json> <bench_data.json>".into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("peer_driver: {message}");
            ExitCode::FAILURE
        }
    }
}
