//! The compile-and-evaluate pipeline the `eval` fuzz target drives, shared with
//! `tests/fuzz_regressions.rs` so that regressions replay exactly as fuzzed.
//!
//! Text is parsed; when it checks, the checked program runs, otherwise the
//! unchecked one does (as with `disable_check`). Evaluation has a cost limit
//! and a deadline, and sees a few variables of varied types.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use cel::value::{Duration as CelDuration, Key, Timestamp};
use cel::{Env, EnvBuilder, EvalOptions, Type, Value};
use indexmap::IndexMap;

/// Runtime cost allowed per evaluation (cel-go cost units).
pub const COST_LIMIT: u64 = 1_000_000;
/// Wall time allowed per evaluation.
pub const DEADLINE: Duration = Duration::from_secs(2);

/// An environment with the fuzzing variables, and their values.
pub struct Harness {
    env: Env,
    bindings: HashMap<String, Value>,
}

/// How far an input got.
#[derive(Debug)]
pub enum Outcome {
    ParseError,
    /// Evaluated (checked or, when checking failed, unchecked): value or error.
    Evaluated {
        checked: bool,
        ok: bool,
    },
    PlanError,
}

fn map(entries: Vec<(&str, Value)>) -> Value {
    let m: IndexMap<Key, Value> = entries
        .into_iter()
        .map(|(k, v)| (Key::from(k), v))
        .collect();
    Value::Map(m.into())
}

impl Harness {
    /// Declares and binds `x` (dyn: a nested map), `i` (int), `u` (uint),
    /// `d` (double), `s` (string), `b` (bytes), `l` (list(int)),
    /// `m` (map(string, int)), `t` (timestamp) and `dur` (duration).
    pub fn new(builder: EnvBuilder) -> Harness {
        let t = Value::Timestamp(Timestamp {
            seconds: 1_234_567_890,
            nanos: 5,
            offset_secs: 0,
        });
        let dur = Value::Duration(CelDuration {
            nanos: 1_500_000_000,
        });
        let l = Value::list((1..=10).map(Value::Int).collect());
        let m = map(vec![("k", Value::Int(1)), ("", Value::Int(-1))]);
        let x = map(vec![
            ("a", Value::Int(1)),
            (
                "b",
                Value::list(vec![
                    Value::Uint(2),
                    Value::Double(3.5),
                    Value::string("s"),
                    Value::bytes(vec![0u8, 255]),
                    Value::Null,
                    Value::Bool(true),
                ]),
            ),
            (
                "c",
                map(vec![
                    ("t", t.clone()),
                    ("dur", dur.clone()),
                    ("m", m.clone()),
                ]),
            ),
            ("o", Value::optional_of(Value::Int(3))),
        ]);
        let vars: Vec<(&str, Type, Value)> = vec![
            ("x", Type::Dyn, x),
            ("i", Type::Int, Value::Int(-7)),
            ("u", Type::Uint, Value::Uint(7)),
            ("d", Type::Double, Value::Double(-0.5)),
            ("s", Type::String, Value::string("héllo, wörld")),
            ("b", Type::Bytes, Value::bytes(b"\x00\xffabc".to_vec())),
            ("l", Type::list(Type::Int), l),
            ("m", Type::map(Type::String, Type::Int), m),
            ("t", Type::Timestamp, t),
            ("dur", Type::Duration, dur),
        ];
        let mut builder = builder;
        let mut bindings = HashMap::new();
        for (name, ty, value) in vars {
            builder.add_variable(name, ty);
            bindings.insert(name.to_string(), value);
        }
        Harness {
            env: builder.build(),
            bindings,
        }
    }

    pub fn env(&self) -> &Env {
        &self.env
    }

    /// Parses, checks, plans and evaluates `text`.
    pub fn run(&self, text: &str) -> Outcome {
        let ast = match self.env.parse(text) {
            Ok(ast) => ast,
            Err(issues) => {
                let _ = issues.to_string();
                return Outcome::ParseError;
            }
        };
        let (program, checked) = match self.env.check(&ast) {
            Ok(c) => (self.env.program_checked(&c), true),
            Err(issues) => {
                let _ = issues.to_string();
                (self.env.program(&ast), false)
            }
        };
        let Ok(program) = program else {
            return Outcome::PlanError;
        };
        let options = EvalOptions {
            cost_limit: Some(COST_LIMIT),
            deadline: Some(Instant::now() + DEADLINE),
            ..EvalOptions::default()
        };
        let evaluation = program.eval_with(&self.bindings, &options);
        let ok = match &evaluation.value {
            Ok(v) => {
                let _ = format!("{v:?}");
                true
            }
            Err(e) => {
                let _ = e.to_string();
                false
            }
        };
        Outcome::Evaluated { checked, ok }
    }
}
