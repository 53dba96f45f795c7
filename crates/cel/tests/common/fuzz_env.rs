//! The compile-and-evaluate pipeline the `eval` fuzz target drives, shared with
//! `tests/fuzz_regressions.rs` so that regressions replay exactly as fuzzed.
//!
//! Text is parsed; when it checks, the static cost estimator runs on the
//! checked AST (with and without host hooks) and the checked program runs,
//! otherwise the unchecked one does (as with `disable_check`). Evaluation has
//! a cost limit and a deadline, and sees a few variables of varied types.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use cel::checker::CheckedAst;
use cel::cost::{
    AstNode, CallCostEstimator, CallEstimate, CostEstimate, EstimateOptions, Hooks, SizeEstimate,
    SizeEstimator,
};
use cel::value::{Duration as CelDuration, Key, Timestamp};
use cel::{CelGoVersion, Env, EnvBuilder, EvalOptions, Type, Value};
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

/// Host hooks for the estimator, as a host such as Kubernetes supplies them:
/// sizes for data reached from the fuzzing variables (by the first element of
/// the field path, so nested paths, `@items`, `@keys` … are answered too), and
/// its own prices for a few string functions.
struct FuzzHooks;

impl SizeEstimator for FuzzHooks {
    fn estimate_size(&self, node: &AstNode<'_>) -> Option<SizeEstimate> {
        let (root, rest) = node.path().split_first()?;
        let max = match root.as_str() {
            "s" | "b" | "ls" => 64,
            "l" | "m" | "lm" => 10 + rest.len() as u64,
            "x" => 1 << 20,
            _ => return None,
        };
        Some(SizeEstimate { min: 0, max })
    }
}

impl CallCostEstimator for FuzzHooks {
    fn estimate_call_cost(
        &self,
        function: &str,
        _overload_id: &str,
        target: Option<&AstNode<'_>>,
        args: &[AstNode<'_>],
    ) -> Option<CallEstimate> {
        match function {
            "startsWith" | "endsWith" | "contains" => {
                let size = cel::cost::size_of(self, target?);
                Some(CallEstimate::cost(CostEstimate::new(1, size.max / 10 + 1)))
            }
            // A valid estimate has min <= max whatever the receiver's size
            // (an empty literal receiver is 0..0).
            "upperAscii" | "lowerAscii" => {
                let size = cel::cost::size_of(self, target?);
                Some(CallEstimate {
                    cost: CostEstimate::new(1, size.max.max(1)),
                    result_size: Some(size),
                })
            }
            "split" => Some(CallEstimate {
                cost: CostEstimate::fixed(args.len() as u64),
                result_size: None,
            }),
            _ => None,
        }
    }
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
    /// `d` (double), `s` (string), `b` (bytes), `bo` (bool), `l` (list(int)),
    /// `ls` (list(string)), `m` (map(string, int)), `lm` (list(map(string,
    /// dyn))), `opt` (optional_type(int)), `t` (timestamp) and `dur`
    /// (duration); with the `proto` feature also `msg` (a `fuzz.M` message,
    /// see [`message`]) in container `fuzz`.
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
            ("bo", Type::Bool, Value::Bool(true)),
            (
                "ls",
                Type::list(Type::String),
                Value::list(vec![
                    Value::string("a"),
                    Value::string("ß"),
                    Value::string(""),
                ]),
            ),
            (
                "lm",
                Type::list(Type::map(Type::String, Type::Dyn)),
                Value::list(vec![
                    map(vec![("a", Value::Int(1)), ("b", Value::string("x"))]),
                    map(vec![]),
                ]),
            ),
            (
                "opt",
                Type::optional(Type::Int),
                Value::optional_of(Value::Int(3)),
            ),
        ];
        let mut builder = builder;
        let mut bindings = HashMap::new();
        for (name, ty, value) in vars {
            builder.add_variable(name, ty);
            bindings.insert(name.to_string(), value);
        }
        #[cfg(feature = "proto")]
        {
            builder = message::declare(builder, &mut bindings);
        }
        Harness {
            env: builder.build(),
            bindings,
        }
    }

    pub fn env(&self) -> &Env {
        &self.env
    }

    /// Runs the static cost estimator on `checked`: with cel-go's defaults and
    /// no host knowledge, and with Kubernetes' options and [`FuzzHooks`].
    fn estimate(&self, checked: &CheckedAst) {
        let _ = format!("{}", checked.result_type());
        let plain = cel::cost::estimate(
            checked,
            &self.env,
            &EstimateOptions::default(),
            Hooks::none(),
        );
        let kube_options = EstimateOptions {
            presence_test_cost: 0,
            version: CelGoVersion::V0_26,
        };
        let hooks = Hooks {
            size: &FuzzHooks,
            calls: &FuzzHooks,
        };
        let hooked = cel::cost::estimate(checked, &self.env, &kube_options, hooks);
        for estimate in [plain, hooked] {
            match estimate {
                Ok(e) => assert!(e.min <= e.max, "estimate {e:?} has min > max"),
                Err(e) => {
                    let _ = e.to_string();
                }
            }
        }
    }

    /// Compiles `text` (checked when it checks, unchecked otherwise) and
    /// evaluates it with cost tracking under `limit`, or without tracking:
    /// the value or error as text, and the cost. `None` when `text` does not
    /// parse or plan.
    pub fn evaluate(&self, text: &str, limit: Option<u64>) -> Option<(String, Option<u64>)> {
        let ast = self.env.parse(text).ok()?;
        let program = match self.env.check(&ast) {
            Ok(c) => self.env.program_checked(&c),
            Err(_) => self.env.program(&ast),
        }
        .ok()?;
        let options = EvalOptions {
            track_cost: limit.is_some(),
            cost_limit: limit,
            ..EvalOptions::default()
        };
        let evaluation = program.eval_with(&self.bindings, &options);
        let shown = match evaluation.value {
            Ok(v) => format!("{v:?}"),
            Err(e) => format!("error: {e}"),
        };
        Some((shown, evaluation.cost))
    }

    /// Parses, checks (and estimates the cost of), plans and evaluates `text`.
    pub fn run(&self, text: &str) -> Outcome {
        let ast = match self.env.parse(text) {
            Ok(ast) => ast,
            Err(issues) => {
                let _ = issues.to_string();
                return Outcome::ParseError;
            }
        };
        let (program, checked) = match self.env.check(&ast) {
            Ok(c) => {
                self.estimate(&c);
                (self.env.program_checked(&c), true)
            }
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

/// The message-typed fuzzing variable (feature `proto`).
#[cfg(feature = "proto")]
pub mod message {
    use std::collections::HashMap;
    use std::sync::Arc;

    use cel::proto::{EnumMode, ProtoTypes};
    use cel::{EnvBuilder, Type, Value};

    /// Scalars, a repeated field, a map, recursion, a wrapper, `Any`,
    /// `Struct`, a timestamp, an enum and a oneof.
    const SOURCE: &str = r#"
syntax = "proto3";
package fuzz;
import "google/protobuf/any.proto";
import "google/protobuf/struct.proto";
import "google/protobuf/timestamp.proto";
import "google/protobuf/wrappers.proto";
message M {
  int32 i = 1;
  uint64 u = 2;
  double d = 3;
  string s = 4;
  bytes b = 5;
  bool bo = 6;
  repeated int64 l = 7;
  map<string, M> m = 8;
  M child = 9;
  google.protobuf.StringValue w = 10;
  google.protobuf.Any any = 11;
  google.protobuf.Struct st = 12;
  google.protobuf.Timestamp t = 13;
  E e = 14;
  oneof kind { string name = 15; int32 id = 16; }
  optional float f = 17;
  enum E { ZERO = 0; ONE = 1; }
}
"#;

    /// Declares `msg` of type `fuzz.M`, sets the container to `fuzz` and
    /// binds a message with most fields set. Enums are strong (`M.E` is a
    /// type with its conversions `M.E(int)`, `M.E(string)`, `int(M.E)`):
    /// legacy enums are plain `int`s, which the rest of the harness covers.
    pub fn declare(mut builder: EnvBuilder, bindings: &mut HashMap<String, Value>) -> EnvBuilder {
        let Ok(types) = ProtoTypes::from_source("fuzz.proto", SOURCE) else {
            return builder;
        };
        let types = types.with_enum_mode(EnumMode::Strong);
        let json = serde_json::json!({
            "i": -3, "u": "7", "d": 0.5, "s": "x", "b": "AP8=", "bo": true,
            "l": [1, 2, 3], "m": {"k": {"i": 1}}, "child": {"child": {"s": "deep"}},
            "w": "w", "any": {"@type": "type.googleapis.com/fuzz.M", "i": 9},
            "st": {"a": [1, null, {"b": false}]}, "t": "2009-02-13T23:31:30Z",
            "e": "ONE", "name": "n", "f": 1.5
        });
        let Ok(msg) = types.value_from_json("fuzz.M", &json) else {
            return builder;
        };
        builder.options_mut().container = "fuzz".into();
        builder.add_variable("msg", Type::object("fuzz.M"));
        bindings.insert("msg".into(), msg);
        builder.library(Arc::new(types))
    }
}
