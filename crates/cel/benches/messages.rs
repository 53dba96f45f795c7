//! Criterion benchmark of protobuf messages (feature `proto`): selecting and
//! comparing 10 fields of a `cel.expr.conformance.proto3.TestAllTypes` bound
//! as a variable (read from JSON once, outside timing), evaluation and
//! construction of the same message in CEL, and `true` (the fixed cost of
//! an evaluation, to set against a peer's per-call overhead).
//!
//! `cargo bench -p kcel-cel --features proto --bench messages`. Without the shared
//! data (`cel-spec/proto`) the run prints a notice and measures nothing.

#[path = "../tests/common/mod.rs"]
mod common;

use std::collections::HashMap;
use std::hint::black_box;
use std::time::Duration;

use cel::{Type, Value};
use criterion::Criterion;

const MESSAGE: &str = "cel.expr.conformance.proto3.TestAllTypes";

/// Ten fields of different kinds, each compared with its value.
const SELECT_10: &str = "msg.single_int32 == -1 && msg.single_int64 == -2 \
    && msg.single_uint32 == 3u && msg.single_uint64 == 4u && msg.single_double == 5.5 \
    && msg.single_bool && msg.single_string == 'six' && msg.single_bytes == b'seven' \
    && msg.standalone_enum == 2 && msg.single_nested_message.bb == 8";

/// The same ten fields in a construction, compared with the variable.
const CONSTRUCT_10: &str = "TestAllTypes{single_int32: -1, single_int64: -2, \
    single_uint32: 3u, single_uint64: 4u, single_double: 5.5, single_bool: true, \
    single_string: 'six', single_bytes: b'seven', standalone_enum: 2, \
    single_nested_message: TestAllTypes.NestedMessage{bb: 8}} == msg";

fn main() {
    match common::shared::require("cel-spec/proto", "the cel-spec .proto files") {
        Ok(Some(_)) => {}
        Ok(None) => return,
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(1);
        }
    }
    let types = match common::proto_types::conformance(common::proto_json::Enums::Legacy) {
        Ok(t) => t,
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(1);
        }
    };
    let json = serde_json::json!({
        "single_int32": -1, "single_int64": "-2", "single_uint32": 3, "single_uint64": "4",
        "single_double": 5.5, "single_bool": true, "single_string": "six",
        "single_bytes": "c2V2ZW4=", "standalone_enum": "BAZ",
        "single_nested_message": {"bb": 8}
    });
    let msg = match types.value_from_json(MESSAGE, &json) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let mut builder = common::full_env::builder()
        .type_provider(types)
        .variable("msg", Type::object(MESSAGE));
    builder.options_mut().container = "cel.expr.conformance.proto3".into();
    let env = builder.build();
    let bindings: HashMap<String, Value> = HashMap::from([("msg".to_string(), msg)]);

    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20)
        .configure_from_args();
    // `true`: the fixed cost of one evaluation, to set against a peer's
    // per-call overhead (the protocol's E0).
    for (id, expr) in [
        ("true", "true"),
        ("select_10", SELECT_10),
        ("construct_10", CONSTRUCT_10),
    ] {
        let program = match env.compile(expr) {
            Ok(p) => p,
            Err(issues) => {
                eprintln!("{id} does not compile:\n{issues}");
                std::process::exit(1);
            }
        };
        match program.eval(&bindings) {
            Ok(Value::Bool(true)) => {}
            other => {
                eprintln!("{id} does not evaluate to true: {other:?}");
                std::process::exit(1);
            }
        }
        c.bench_function(&format!("messages/eval/{id}"), |b| {
            b.iter(|| black_box(program.eval(black_box(&bindings))))
        });
    }
    c.final_summary();
}
