//! The standard library: every standard function and operator, declared with
//! cel-go's overload ids and signatures (the checker uses them) and
//! implemented with cel-go's semantics and error texts.
//!
//! The special forms `_&&_`, `_||_`, `_?_:_` and `@not_strictly_false` are
//! declared here without implementation: the planner evaluates them itself.
//! Operators are declared with implementations, but the planner calls the
//! functions of `ops` directly when an environment's operator has only the
//! standard overloads.

pub(crate) mod block;
pub(crate) mod convert;
pub(crate) mod ops;
pub(crate) mod strings;
pub(crate) mod time;

pub use block::Block;

use crate::env::{EnvBuilder, Library};
use crate::error::EvalResult;
use crate::functions::{FnImpl, Function, Overload};
use crate::types::Type;
use crate::value::Value;

use self::time::Field;

/// The standard library (cel-go's `StdLib`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Std;

/// cel-go's `duration.getMilliseconds()`: the whole duration in milliseconds
/// (Go's `time.Duration.Milliseconds()`, `duration('1h2m3s4ms')` gives
/// 3723004), where the cel-spec conformance suite (and [`Std`] alone) takes
/// the milliseconds within the second (4). Install after [`Std`] in
/// environments that reproduce cel-go, such as Kubernetes'.
#[derive(Clone, Copy, Debug, Default)]
pub struct GoDurationMilliseconds;

impl Library for GoDurationMilliseconds {
    fn install(&self, env: &mut EnvBuilder) {
        // Replaces the standard overload of the same id.
        env.add_function(Function::new("getMilliseconds").overload(Overload::member(
            "duration_to_milliseconds",
            vec![Type::Duration],
            Type::Int,
            u(time::duration_total_milliseconds),
        )));
    }
}

/// Names of the types the standard library makes available as identifiers
/// (`int`, `list`, `google.protobuf.Timestamp`, ...), with their types.
pub fn type_identifiers() -> Vec<(&'static str, Type)> {
    vec![
        ("bool", Type::Bool),
        ("bytes", Type::Bytes),
        ("double", Type::Double),
        ("int", Type::Int),
        ("uint", Type::Uint),
        ("string", Type::String),
        ("null_type", Type::Null),
        ("type", Type::Type(None)),
        ("list", Type::list(Type::Dyn)),
        ("map", Type::map(Type::Dyn, Type::Dyn)),
        ("google.protobuf.Timestamp", Type::Timestamp),
        ("google.protobuf.Duration", Type::Duration),
    ]
}

fn p(name: &str) -> Type {
    Type::param(name)
}

fn b(f: fn(&Value, &Value) -> EvalResult) -> Option<FnImpl> {
    Some(FnImpl::Binary(f))
}

fn u(f: fn(&Value) -> EvalResult) -> Option<FnImpl> {
    Some(FnImpl::Unary(f))
}

/// One function with overloads built from `(id, params, result)` rows that
/// share an implementation.
fn global(name: &str, imp: Option<FnImpl>, rows: Vec<(&str, Vec<Type>, Type)>) -> Function {
    rows.into_iter()
        .fold(Function::new(name), |f, (id, params, result)| {
            f.overload(Overload::global(id, params, result, imp.clone()))
        })
}

fn member(name: &str, imp: Option<FnImpl>, rows: Vec<(&str, Vec<Type>, Type)>) -> Function {
    rows.into_iter()
        .fold(Function::new(name), |f, (id, params, result)| {
            f.overload(Overload::member(id, params, result, imp.clone()))
        })
}

macro_rules! accessor {
    ($name:ident, $field:expr) => {
        fn $name(args: &[Value]) -> EvalResult {
            time::access($field, args)
        }
    };
}

accessor!(get_full_year, Field::FullYear);
accessor!(get_month, Field::Month);
accessor!(get_day_of_year, Field::DayOfYear);
accessor!(get_day_of_month, Field::DayOfMonth);
accessor!(get_date, Field::Date);
accessor!(get_day_of_week, Field::DayOfWeek);
accessor!(get_hours, Field::Hours);
accessor!(get_minutes, Field::Minutes);
accessor!(get_seconds, Field::Seconds);
accessor!(get_milliseconds, Field::Milliseconds);

type Accessor = fn(&[Value]) -> EvalResult;

/// The calendar accessors: function, overload-id suffix, field, implementation,
/// and whether durations have it too.
#[rustfmt::skip]
const ACCESSORS: [(&str, &str, Field, Accessor, bool); 10] = [
    ("getFullYear", "year", Field::FullYear, get_full_year, false),
    ("getMonth", "month", Field::Month, get_month, false),
    ("getDayOfYear", "day_of_year", Field::DayOfYear, get_day_of_year, false),
    ("getDayOfMonth", "day_of_month", Field::DayOfMonth, get_day_of_month, false),
    ("getDate", "day_of_month_1_based", Field::Date, get_date, false),
    ("getDayOfWeek", "day_of_week", Field::DayOfWeek, get_day_of_week, false),
    ("getHours", "hours", Field::Hours, get_hours, true),
    ("getMinutes", "minutes", Field::Minutes, get_minutes, true),
    ("getSeconds", "seconds", Field::Seconds, get_seconds, true),
    ("getMilliseconds", "milliseconds", Field::Milliseconds, get_milliseconds, true),
];

/// Installs release `v`'s time-zone rules in the calendar accessors.
pub(crate) fn adapt_accessors(b: &mut EnvBuilder, v: crate::cel_go::CelGoVersion) {
    for (name, suffix, field, _, _) in ACCESSORS {
        time::adapt(b, v, name, &format!("timestamp_to_{suffix}_with_tz"), field);
    }
}

/// The comparison overloads of one operator (`less`, `less_equals`, ...).
fn comparison(name: &str, prefix: &str, f: fn(&Value, &Value) -> EvalResult) -> Function {
    use crate::types::Type::{Bool, Bytes, Double, Duration, Int, String, Timestamp, Uint};
    let pairs: [(&str, Type, Type); 14] = [
        ("bool", Bool, Bool),
        ("int64", Int, Int),
        ("int64_double", Int, Double),
        ("int64_uint64", Int, Uint),
        ("uint64", Uint, Uint),
        ("uint64_double", Uint, Double),
        ("uint64_int64", Uint, Int),
        ("double", Double, Double),
        ("double_int64", Double, Int),
        ("double_uint64", Double, Uint),
        ("string", String, String),
        ("bytes", Bytes, Bytes),
        ("timestamp", Timestamp, Timestamp),
        ("duration", Duration, Duration),
    ];
    let ids: Vec<std::string::String> = pairs
        .iter()
        .map(|(s, _, _)| format!("{prefix}_{s}"))
        .collect();
    let rows = pairs
        .iter()
        .zip(&ids)
        .map(|((_, a, b), id)| (id.as_str(), vec![a.clone(), b.clone()], Bool))
        .collect();
    global(name, Some(FnImpl::Binary(f)), rows)
}

impl Library for Std {
    /// Adds the standard functions and cel-go's standard macros (`has`,
    /// `all`, `exists`, `exists_one`, `map`, `filter`).
    fn install(&self, env: &mut EnvBuilder) {
        for f in functions() {
            env.add_function(f);
        }
        for m in crate::syntax::macros::standard() {
            env.add_macro(m);
        }
    }
}

/// The overload ids of every standard function, by function name (built
/// once per process).
pub(crate) fn overload_ids_by_function() -> &'static std::collections::HashMap<
    std::string::String,
    std::collections::HashSet<std::string::String>,
> {
    static IDS: std::sync::OnceLock<
        std::collections::HashMap<
            std::string::String,
            std::collections::HashSet<std::string::String>,
        >,
    > = std::sync::OnceLock::new();
    IDS.get_or_init(|| {
        let mut ids: std::collections::HashMap<_, std::collections::HashSet<_>> = functions()
            .into_iter()
            .map(|f| {
                (
                    f.name,
                    f.overloads.into_iter().map(|o| o.id.to_string()).collect(),
                )
            })
            .collect();
        // Standard overloads only older cel-go releases declare (`convert::adapt`).
        if let Some(set) = ids.get_mut("duration") {
            set.insert(convert::INT_TO_DURATION.to_string());
        }
        ids
    })
}

/// Every function of the standard library.
pub fn functions() -> Vec<Function> {
    use crate::types::Type::{Bool, Bytes, Double, Duration, Dyn, Int, String, Timestamp, Uint};
    let a = || p("A");
    let la = || Type::list(p("A"));
    let mkv = || Type::map(p("K"), p("V"));
    let ts = || Timestamp;
    let du = || Duration;
    let mut fs = vec![
        // Special forms, evaluated by the planner.
        global("_&&_", None, vec![("logical_and", vec![Bool, Bool], Bool)]),
        global("_||_", None, vec![("logical_or", vec![Bool, Bool], Bool)]),
        global(
            "_?_:_",
            None,
            vec![("conditional", vec![Bool, a(), a()], a())],
        ),
        global(
            "@not_strictly_false",
            None,
            vec![("not_strictly_false", vec![Bool], Bool)],
        ),
        global("!_", u(ops::not), vec![("logical_not", vec![Bool], Bool)]),
        global("_==_", b(ops::eq), vec![("equals", vec![a(), a()], Bool)]),
        global(
            "_!=_",
            b(ops::ne),
            vec![("not_equals", vec![a(), a()], Bool)],
        ),
        global(
            "_+_",
            b(ops::add),
            vec![
                ("add_bytes", vec![Bytes, Bytes], Bytes),
                ("add_double", vec![Double, Double], Double),
                ("add_duration_duration", vec![du(), du()], du()),
                ("add_duration_timestamp", vec![du(), ts()], ts()),
                ("add_int64", vec![Int, Int], Int),
                ("add_list", vec![la(), la()], la()),
                ("add_string", vec![String, String], String),
                ("add_timestamp_duration", vec![ts(), du()], ts()),
                ("add_uint64", vec![Uint, Uint], Uint),
            ],
        ),
        global(
            "_-_",
            b(ops::sub),
            vec![
                ("subtract_double", vec![Double, Double], Double),
                ("subtract_duration_duration", vec![du(), du()], du()),
                ("subtract_int64", vec![Int, Int], Int),
                ("subtract_timestamp_duration", vec![ts(), du()], ts()),
                ("subtract_timestamp_timestamp", vec![ts(), ts()], du()),
                ("subtract_uint64", vec![Uint, Uint], Uint),
            ],
        ),
        global(
            "_*_",
            b(ops::mul),
            vec![
                ("multiply_double", vec![Double, Double], Double),
                ("multiply_int64", vec![Int, Int], Int),
                ("multiply_uint64", vec![Uint, Uint], Uint),
            ],
        ),
        global(
            "_/_",
            b(ops::div),
            vec![
                ("divide_double", vec![Double, Double], Double),
                ("divide_int64", vec![Int, Int], Int),
                ("divide_uint64", vec![Uint, Uint], Uint),
            ],
        ),
        global(
            "_%_",
            b(ops::rem),
            vec![
                ("modulo_int64", vec![Int, Int], Int),
                ("modulo_uint64", vec![Uint, Uint], Uint),
            ],
        ),
        global(
            "-_",
            u(ops::neg),
            vec![
                ("negate_double", vec![Double], Double),
                ("negate_int64", vec![Int], Int),
            ],
        ),
        global(
            "_[_]",
            b(ops::index),
            vec![
                ("index_list", vec![la(), Int], a()),
                ("index_map", vec![mkv(), p("K")], p("V")),
            ],
        ),
        global(
            "@in",
            b(ops::in_),
            vec![
                ("in_list", vec![a(), la()], Bool),
                ("in_map", vec![a(), Type::map(a(), p("B"))], Bool),
            ],
        ),
        comparison("_<_", "less", ops::lt),
        comparison("_<=_", "less_equals", ops::le),
        comparison("_>_", "greater", ops::gt),
        comparison("_>=_", "greater_equals", ops::ge),
    ];
    let mut size = global(
        "size",
        u(ops::size),
        vec![
            ("size_bytes", vec![Bytes], Int),
            ("size_list", vec![la()], Int),
            ("size_map", vec![mkv()], Int),
            ("size_string", vec![String], Int),
        ],
    );
    for (id, t) in [
        ("bytes_size", Bytes),
        ("list_size", la()),
        ("map_size", mkv()),
        ("string_size", String),
    ] {
        size = size.overload(Overload::member(id, vec![t], Int, u(ops::size)));
    }
    fs.push(size);
    fs.extend([
        global(
            "int",
            u(convert::to_int),
            vec![
                ("int64_to_int64", vec![Int], Int),
                ("uint64_to_int64", vec![Uint], Int),
                ("double_to_int64", vec![Double], Int),
                ("string_to_int64", vec![String], Int),
                ("timestamp_to_int64", vec![ts()], Int),
                ("duration_to_int64", vec![du()], Int),
            ],
        ),
        global(
            "uint",
            u(convert::to_uint),
            vec![
                ("uint64_to_uint64", vec![Uint], Uint),
                ("int64_to_uint64", vec![Int], Uint),
                ("double_to_uint64", vec![Double], Uint),
                ("string_to_uint64", vec![String], Uint),
            ],
        ),
        global(
            "double",
            u(convert::to_double),
            vec![
                ("double_to_double", vec![Double], Double),
                ("int64_to_double", vec![Int], Double),
                ("uint64_to_double", vec![Uint], Double),
                ("string_to_double", vec![String], Double),
            ],
        ),
        global(
            "string",
            u(convert::to_string),
            vec![
                ("string_to_string", vec![String], String),
                ("int64_to_string", vec![Int], String),
                ("uint64_to_string", vec![Uint], String),
                ("double_to_string", vec![Double], String),
                ("bytes_to_string", vec![Bytes], String),
                ("bool_to_string", vec![Bool], String),
                ("timestamp_to_string", vec![ts()], String),
                ("duration_to_string", vec![du()], String),
            ],
        ),
        global(
            "bytes",
            u(convert::to_bytes),
            vec![
                ("bytes_to_bytes", vec![Bytes], Bytes),
                ("string_to_bytes", vec![String], Bytes),
            ],
        ),
        global(
            "bool",
            u(convert::to_bool),
            vec![
                ("bool_to_bool", vec![Bool], Bool),
                ("string_to_bool", vec![String], Bool),
            ],
        ),
        global(
            "timestamp",
            u(convert::to_timestamp),
            vec![
                ("timestamp_to_timestamp", vec![ts()], ts()),
                ("string_to_timestamp", vec![String], ts()),
                ("int64_to_timestamp", vec![Int], ts()),
            ],
        ),
        global(
            "duration",
            u(convert::to_duration),
            vec![
                ("duration_to_duration", vec![du()], du()),
                ("string_to_duration", vec![String], du()),
            ],
        ),
        global(
            "type",
            u(convert::type_of),
            vec![("type", vec![a()], Type::type_of(a()))],
        ),
        global("dyn", u(convert::to_dyn), vec![("to_dyn", vec![a()], Dyn)]),
        member(
            "contains",
            b(strings::contains),
            vec![("contains_string", vec![String, String], Bool)],
        ),
        member(
            "startsWith",
            b(strings::starts_with),
            vec![("starts_with_string", vec![String, String], Bool)],
        ),
        member(
            "endsWith",
            b(strings::ends_with),
            vec![("ends_with_string", vec![String, String], Bool)],
        ),
        global(
            "matches",
            b(strings::matches),
            vec![("matches", vec![String, String], Bool)],
        )
        .overload(Overload::member(
            "matches_string",
            vec![String, String],
            Bool,
            b(strings::matches),
        )),
    ]);
    for (name, suffix, _, f, on_duration) in ACCESSORS {
        let imp = Some(FnImpl::Nary(f));
        let mut func = Function::new(name)
            .overload(Overload::member(
                &format!("timestamp_to_{suffix}"),
                vec![ts()],
                Int,
                imp.clone(),
            ))
            .overload(Overload::member(
                &format!("timestamp_to_{suffix}_with_tz"),
                vec![ts(), String],
                Int,
                imp.clone(),
            ));
        if on_duration {
            func = func.overload(Overload::member(
                &format!("duration_to_{suffix}"),
                vec![du()],
                Int,
                imp,
            ));
        }
        fs.push(func);
    }
    fs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_carry_cel_go_ids() {
        let fs = functions();
        let ids: Vec<&str> = fs
            .iter()
            .flat_map(|f| f.overloads.iter().map(|o| &*o.id))
            .collect();
        for id in [
            "add_int64",
            "add_list",
            "less_int64_uint64",
            "greater_equals_duration",
            "size_string",
            "string_size",
            "string_to_timestamp",
            "timestamp_to_year_with_tz",
            "timestamp_to_day_of_month_1_based",
            "duration_to_milliseconds",
            "matches_string",
            "in_map",
            "to_dyn",
        ] {
            assert!(ids.contains(&id), "missing {id}");
        }
        let mut sorted = ids.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), ids.len(), "overload ids are unique");
        let add = fs.iter().find(|f| f.name == "add_list_never").map(|_| ());
        assert!(add.is_none());
        let in_list = fs.iter().find(|f| f.name == "@in").unwrap();
        assert_eq!(in_list.overloads[0].type_params, vec!["A".to_string()]);
    }
}
