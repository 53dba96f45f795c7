//! Policy environments (`cel::policy`): one test per limit of the API
//! guideline on expressions, the deadline, `ipInRange`, the naming rules, the
//! standardized variables, the minimum language subset and verbatim storage.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use cel::library::ext::Lists;
use cel::policy::naming::NameProblem;
use cel::policy::{
    AbortReason, ConfigError, ExpressionError, PolicyEnv, PolicyEnvBuilder, PolicyVersions,
    RepeatedRule, StandardVariable, StoredExpression, VersionError,
};
use cel::value::Timestamp;
use cel::{FnImpl, Function, Overload};
use cel::{Type, Value};

type Vars = HashMap<String, Value>;

fn vars(pairs: &[(&str, Value)]) -> Vars {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

fn build(b: PolicyEnvBuilder) -> PolicyEnv {
    match b.build() {
        Ok(env) => env,
        Err(errors) => panic!("configuration rejected: {errors:?}"),
    }
}

fn config_errors(b: PolicyEnvBuilder) -> Vec<ConfigError> {
    match b.build() {
        Ok(_) => panic!("configuration accepted"),
        Err(errors) => errors,
    }
}

fn compile_err(env: &PolicyEnv, text: &str) -> ExpressionError {
    match env.compile(text) {
        Ok(_) => panic!("accepted: {text}"),
        Err(e) => e,
    }
}

/// Compiles and evaluates; the value, which must not be an abort.
fn eval(env: &PolicyEnv, text: &str, act: &Vars) -> Value {
    let policy = env
        .compile(text)
        .unwrap_or_else(|e| panic!("rejected: {text}: {e}"));
    let outcome = policy
        .evaluate(act)
        .unwrap_or_else(|e| panic!("error: {text}: {e}"));
    assert_eq!(outcome.aborted, None, "{text}");
    outcome.value
}

/// As [`eval`], for a boolean value.
fn eval_bool(env: &PolicyEnv, text: &str, act: &Vars) -> bool {
    match eval(env, text, act) {
        Value::Bool(b) => b,
        v => panic!("{text}: not a bool: {v:?}"),
    }
}

fn ip_env() -> PolicyEnv {
    build(PolicyEnv::builder().standard_variables(StandardVariable::ALL))
}

// --- length -------------------------------------------------------------

#[test]
fn length_limit_setting_must_be_100_to_1000() {
    for bad in [0, 99, 1001, 100_000] {
        assert_eq!(
            config_errors(PolicyEnv::builder().max_expression_length(bad)),
            vec![ConfigError::ExpressionLengthLimit(bad)]
        );
    }
    for ok in [100, 101, 999, 1000] {
        let env = build(PolicyEnv::builder().max_expression_length(ok));
        assert_eq!(env.max_expression_length(), ok);
    }
    assert_eq!(build(PolicyEnv::builder()).max_expression_length(), 1000);
}

/// `n` code points: `true`, a comment of non-ASCII letters (2 bytes each),
/// and leading spaces, so that bytes and code points differ.
fn padded_true(n: usize) -> String {
    let head = "  true // ";
    let text = format!("{head}{}", "é".repeat(n - head.len()));
    assert_eq!(text.chars().count(), n);
    text
}

fn check_length_boundary(limit: usize) {
    let env = build(PolicyEnv::builder().max_expression_length(limit));
    let at = padded_true(limit);
    assert!(at.len() > limit, "more bytes than code points");
    assert!(eval_bool(&env, &at, &Vars::new()));
    let over = padded_true(limit + 1);
    match compile_err(&env, &over) {
        ExpressionError::TooLong { length, limit: l } => {
            assert_eq!((length, l), (limit + 1, limit));
        }
        e => panic!("{e:?}"),
    }
    // Whitespace counts: the text is checked verbatim.
    let spaced = format!("true{}", " ".repeat(limit - 4));
    assert!(env.compile(&spaced).is_ok());
    assert!(matches!(
        compile_err(&env, &format!("{spaced} ")),
        ExpressionError::TooLong { .. }
    ));
}

#[test]
fn length_limit_at_100() {
    check_length_boundary(100);
}

#[test]
fn length_limit_at_1000() {
    check_length_boundary(1000);
}

// --- result type ----------------------------------------------------------

#[test]
fn result_type_is_checked_statically() {
    let env = build(PolicyEnv::builder());
    assert_eq!(env.result_type(), &Type::Bool);
    for (text, actual) in [
        ("'abc'", Type::String),
        ("1 + 2", Type::Int),
        ("[true]", Type::list(Type::Bool)),
    ] {
        match compile_err(&env, text) {
            ExpressionError::ResultType {
                expected,
                actual: a,
            } => {
                assert_eq!((expected, a), (Type::Bool, actual), "{text}");
            }
            e => panic!("{text}: {e:?}"),
        }
    }
    assert!(eval_bool(&env, "1 < 2", &Vars::new()));

    let strings = build(PolicyEnv::builder().result_type(Type::String));
    let ab = eval(&strings, "'a' + 'b'", &Vars::new());
    assert!(ab.equals(&Value::string("ab")), "{ab:?}");
    assert!(matches!(
        compile_err(&strings, "true"),
        ExpressionError::ResultType { .. }
    ));
}

#[test]
fn dyn_result_is_checked_at_evaluation() {
    let env = build(PolicyEnv::builder());
    assert!(eval_bool(&env, "dyn(true)", &Vars::new()));
    let policy = env.compile("dyn('yes')").expect("dyn passes statically");
    let err = policy
        .evaluate(&Vars::new())
        .expect_err("a string is not a bool");
    assert_eq!(
        err.message(),
        "expression must evaluate to bool, but evaluated to a value of type string"
    );
}

// --- cost -----------------------------------------------------------------

fn ids_env(max_size: u64, max_cost: u64) -> PolicyEnv {
    build(
        PolicyEnv::builder()
            .variable("ids", Type::list(Type::Int))
            .max_size("ids", max_size)
            .max_cost(max_cost),
    )
}

const QUADRATIC: &str = "ids.all(a, ids.all(b, a != b || a == b))";

#[test]
fn cost_limit_rejects_expensive_expressions() {
    assert_eq!(
        config_errors(PolicyEnv::builder().max_cost(0)),
        vec![ConfigError::CostLimit(0)]
    );
    let env = ids_env(1000, 100_000);
    match compile_err(&env, QUADRATIC) {
        ExpressionError::TooCostly { estimate, limit } => {
            assert_eq!(limit, 100_000);
            assert!(estimate.max > 1_000_000, "{estimate:?}");
        }
        e => panic!("{e:?}"),
    }
    // Linear in the same list: accepted.
    let linear = "ids.exists(n, n == 7)";
    assert!(env.compile(linear).is_ok());
    // Smaller declared sizes make the quadratic one affordable.
    assert!(ids_env(100, 100_000).compile(QUADRATIC).is_ok());
}

#[test]
fn cost_of_data_without_declared_size_is_unbounded() {
    let unbounded = build(PolicyEnv::builder().variable("note", Type::String));
    match compile_err(&unbounded, "note.contains('x')") {
        // cel-go's estimate: a tenth of an unbounded size.
        ExpressionError::TooCostly { estimate, .. } => assert!(estimate.max > u64::MAX / 11),
        e => panic!("{e:?}"),
    }
    let sized = build(
        PolicyEnv::builder()
            .variable("note", Type::String)
            .max_size("note", 500),
    );
    let act = vars(&[("note", Value::string("a box"))]);
    assert!(eval_bool(&sized, "note.contains('x')", &act));
    assert_eq!(
        config_errors(PolicyEnv::builder().max_size("nothing", 5)),
        vec![ConfigError::UnknownVariable("nothing".into())]
    );
}

#[test]
fn runtime_cost_limit_aborts_data_larger_than_declared() {
    // Declared at most 10 ids: the estimate passes; the host then passes
    // 1000, and the runtime cost limit stops the evaluation.
    let env = ids_env(10, 5_000);
    let policy = env.compile(QUADRATIC).expect("affordable for 10 ids");
    let ids: Vec<Value> = (0..1000).map(Value::Int).collect();
    let outcome = policy
        .evaluate(&vars(&[("ids", Value::list(ids))]))
        .expect("aborts are outcomes");
    assert!(matches!(outcome.value, Value::Bool(false)));
    let abort = outcome.aborted.expect("aborted");
    assert_eq!(abort.reason, AbortReason::CostLimit { limit: 5_000 });
}

// --- nesting --------------------------------------------------------------

fn parenthesized(levels: usize) -> String {
    format!("{}true{}", "(".repeat(levels), ")".repeat(levels))
}

#[test]
fn nesting_limit() {
    for bad in [0, 31, 251] {
        assert_eq!(
            config_errors(PolicyEnv::builder().max_nesting_depth(bad)),
            vec![ConfigError::NestingLimit(bad)]
        );
    }
    // 32 levels: the whole expression and 31 nested parenthesized ones.
    let env = build(PolicyEnv::builder());
    assert!(eval_bool(&env, &parenthesized(31), &Vars::new()));
    match compile_err(&env, &parenthesized(32)) {
        ExpressionError::Syntax(issues) => assert!(
            issues
                .to_string()
                .contains("expression recursion limit exceeded: 32"),
            "{issues}"
        ),
        e => panic!("{e:?}"),
    }
    let deeper = build(PolicyEnv::builder().max_nesting_depth(40));
    assert!(deeper.compile(&parenthesized(32)).is_ok());
    assert!(deeper.compile(&parenthesized(40)).is_err());
}

// --- repetition -----------------------------------------------------------

fn repetitions(env: &PolicyEnv, text: &str) -> (RepeatedRule, usize, usize) {
    match compile_err(env, text) {
        ExpressionError::TooManyRepetitions { exceeded, location } => {
            assert!(location.is_some(), "{text}");
            (exceeded.rule, exceeded.count, exceeded.limit)
        }
        e => panic!("{text}: {e:?}"),
    }
}

fn joined(n: usize, term: &str, op: &str) -> String {
    vec![term; n].join(op)
}

#[test]
fn repetition_limit() {
    assert_eq!(
        config_errors(PolicyEnv::builder().max_repetitions(31)),
        vec![ConfigError::RepetitionLimit(31)]
    );
    // Nesting raised so that only repetitions limit the chains below.
    let env = build(PolicyEnv::builder().max_nesting_depth(100));
    let none = Vars::new();

    // 32 list elements, map entries; one more is too many.
    let list = |n| format!("size([{}]) > 0", joined(n, "1", ", "));
    assert!(eval_bool(&env, &list(32), &none));
    assert_eq!(
        repetitions(&env, &list(33)),
        (RepeatedRule::ListElements, 33, 32)
    );
    let map = |n: usize| {
        let entries: Vec<String> = (0..n).map(|i| format!("{i}: 1")).collect();
        format!("size({{{}}}) > 0", entries.join(", "))
    };
    assert!(eval_bool(&env, &map(32), &none));
    assert_eq!(
        repetitions(&env, &map(33)),
        (RepeatedRule::MapEntries, 33, 32)
    );

    // 32 `||` operators (33 terms) pass; 33 do not, although the parser
    // balances the chain (its nesting stays small).
    assert!(!eval_bool(&env, &joined(33, "false", " || "), &none));
    assert_eq!(
        repetitions(&env, &joined(34, "false", " || ")),
        (RepeatedRule::LogicalOr, 33, 32)
    );
    assert_eq!(
        repetitions(&env, &joined(34, "true", " && ")),
        (RepeatedRule::LogicalAnd, 33, 32)
    );

    // Arithmetic operators of one precedence in a row.
    let sum = |n| format!("{} > 0", joined(n, "1", " + "));
    assert!(eval_bool(&env, &sum(33), &none));
    assert_eq!(
        repetitions(&env, &sum(34)),
        (RepeatedRule::Additive, 33, 32)
    );
    // Mixed precedences do not form one chain: 20 `+` then 20 `*`.
    let mixed = format!(
        "{} + {} > 0",
        joined(20, "1", " + "),
        joined(21, "1", " * ")
    );
    assert!(eval_bool(&env, &mixed, &none));

    // Chained macros are selections in a row.
    let chained = |n| format!("size([1]{}) == 1", ".map(x, x)".repeat(n));
    assert!(eval_bool(&env, &chained(32), &none));
    assert_eq!(
        repetitions(&env, &chained(33)),
        (RepeatedRule::Selection, 33, 32)
    );

    // Chained conditionals.
    let cond = |n| format!("{}true", "false ? false : ".repeat(n));
    assert!(eval_bool(&env, &cond(32), &none));
    assert_eq!(
        repetitions(&env, &cond(33)),
        (RepeatedRule::Conditional, 33, 32)
    );

    // The accumulator steps a macro generates are not counted: `exists` folds
    // with `||`, yet a predicate of 32 `||` operators passes.
    let pred = format!("[false].exists(x, {})", joined(33, "x", " || "));
    assert!(!eval_bool(&env, &pred, &none));
}

/// Repetitions are counted before type checking: these need not type-check.
#[test]
fn repetition_limit_other_rules() {
    let env = build(
        PolicyEnv::builder()
            .max_nesting_depth(100)
            .variable("m", Type::Dyn),
    );
    let args = |n| format!("f({})", joined(n, "1", ", "));
    assert!(matches!(
        compile_err(&env, &args(32)),
        ExpressionError::Check(_)
    ));
    assert_eq!(
        repetitions(&env, &args(33)),
        (RepeatedRule::CallArguments, 33, 32)
    );
    let index = |n| format!("m{}", "[0]".repeat(n));
    assert!(env.compile(&index(32)).is_ok());
    assert_eq!(
        repetitions(&env, &index(33)),
        (RepeatedRule::Indexing, 33, 32)
    );
    // Index and selection runs are counted separately.
    assert!(
        env.compile(&format!("m{}{}", "[0]".repeat(30), ".f".repeat(30)))
            .is_ok()
    );
    let select = |n| format!("m{}", ".f".repeat(n));
    assert_eq!(
        repetitions(&env, &select(33)),
        (RepeatedRule::Selection, 33, 32)
    );
    let relations = |n: usize| joined(n + 1, "m", " < ");
    assert_eq!(
        repetitions(&env, &relations(33)),
        (RepeatedRule::Relation, 33, 32)
    );
    let products = |n: usize| format!("{} > 0", joined(n + 1, "2", " * "));
    assert_eq!(
        repetitions(&env, &products(33)),
        (RepeatedRule::Multiplicative, 33, 32)
    );
}

#[test]
fn repetition_limit_can_be_raised() {
    let env = build(PolicyEnv::builder().max_repetitions(40));
    assert!(env.compile(&joined(41, "false", " || ")).is_ok());
    assert!(env.compile(&joined(42, "false", " || ")).is_err());
}

// --- deadline -------------------------------------------------------------

#[test]
fn deadline_setting_must_be_positive_and_at_most_500ms() {
    assert_eq!(
        build(PolicyEnv::builder()).deadline(),
        Duration::from_millis(500)
    );
    for bad in [Duration::ZERO, Duration::from_millis(501)] {
        assert_eq!(
            config_errors(PolicyEnv::builder().deadline(bad)),
            vec![ConfigError::Deadline(bad)]
        );
    }
}

/// A million comprehension iterations.
const LONG_RUNNING: &str =
    "lists.range(1000).map(i, lists.range(1000).map(j, i * j)).size() == 1000";

fn long_running_env(deadline: Duration) -> PolicyEnv {
    build(
        PolicyEnv::builder()
            .library(Lists::default())
            .max_cost(u64::MAX)
            .deadline(deadline),
    )
}

#[test]
fn evaluation_past_deadline_counts_as_false_and_is_reported() {
    let deadline = Duration::from_nanos(1);
    let env = long_running_env(deadline);
    let policy = env.compile(LONG_RUNNING).expect("accepted");
    let outcome = policy.evaluate(&Vars::new()).expect("aborts are outcomes");
    assert!(matches!(outcome.value, Value::Bool(false)));
    assert!(!outcome.is_true());
    let abort = outcome.aborted.expect("abort reported");
    assert_eq!(abort.reason, AbortReason::Deadline { limit: deadline });
    assert!(abort.elapsed >= deadline);
    assert!(abort.to_string().contains("treated as false"), "{abort}");
}

#[test]
fn cancelled_evaluation_counts_as_false() {
    let env = long_running_env(Duration::from_millis(500));
    let policy = env.compile(LONG_RUNNING).expect("accepted");
    let cancel = AtomicBool::new(true);
    let outcome = policy
        .evaluate_cancellable(&Vars::new(), &cancel)
        .expect("aborts are outcomes");
    assert!(matches!(outcome.value, Value::Bool(false)));
    assert_eq!(
        outcome.aborted.map(|a| a.reason),
        Some(AbortReason::Cancelled)
    );
}

// --- ipInRange ------------------------------------------------------------

#[test]
fn ip_in_range_cases() {
    let env = ip_env();
    let cases: [(&str, &str, bool); 16] = [
        ("10.1.2.3", "10.0.0.0/8", true),
        ("11.1.2.3", "10.0.0.0/8", false),
        ("192.168.1.255", "192.168.1.0/24", true),
        ("192.168.2.0", "192.168.1.0/24", false),
        ("1.2.3.4", "0.0.0.0/0", true),
        ("1.2.3.4", "1.2.3.4/32", true),
        ("1.2.3.5", "1.2.3.4/32", false),
        // Bits past the prefix are ignored.
        ("10.200.0.1", "10.1.2.3/8", true),
        ("2001:db8::1", "2001:db8::/32", true),
        ("2001:db9::1", "2001:db8::/32", false),
        ("::1", "::1/128", true),
        ("fe80::1", "::/0", true),
        // Families never match, IPv4-mapped addresses included.
        ("10.0.0.1", "::/0", false),
        ("::ffff:10.0.0.1", "10.0.0.0/8", false),
        ("2001:db8::1", "0.0.0.0/0", false),
        ("::ffff:10.0.0.1", "::ffff:0:0/96", true),
    ];
    for (ip, cidr, expected) in cases {
        let act = vars(&[("source.ip", Value::string(ip))]);
        let text = format!("ipInRange(source.ip, '{cidr}')");
        assert_eq!(eval_bool(&env, &text, &act), expected, "{ip} in {cidr}");
    }
}

#[test]
fn ip_in_range_invalid_arguments_are_errors() {
    let env = ip_env();
    let cases = [
        ("10.0.0.256", "10.0.0.0/8", "invalid IP address"),
        ("010.0.0.1", "10.0.0.0/8", "invalid IP address"),
        (" 10.0.0.1", "10.0.0.0/8", "invalid IP address"),
        ("fe80::1%eth0", "::/0", "invalid IP address"),
        ("", "10.0.0.0/8", "invalid IP address"),
        ("10.0.0.1", "10.0.0.0", "invalid CIDR"),
        ("10.0.0.1", "10.0.0.0/33", "invalid CIDR"),
        ("10.0.0.1", "10.0.0.0/08", "invalid CIDR"),
        ("10.0.0.1", "10.0.0.0/-1", "invalid CIDR"),
        ("::1", "::/129", "invalid CIDR"),
        ("10.0.0.1", "10.0.0/8", "invalid CIDR"),
    ];
    for (ip, cidr, message) in cases {
        let act = vars(&[("source.ip", Value::string(ip))]);
        let text = format!("ipInRange(source.ip, '{cidr}')");
        let policy = env.compile(&text).expect("well typed");
        let err = policy.evaluate(&act).expect_err(ip);
        assert!(err.message().contains(message), "{ip} {cidr}: {err}");
    }
    // Errors are CEL errors: absorbed when the other side decides.
    let act = vars(&[("source.ip", Value::string("not an ip"))]);
    assert!(eval_bool(
        &env,
        "ipInRange(source.ip, '10.0.0.0/8') || true",
        &act
    ));
    // The signature is (string, string) -> bool.
    assert!(matches!(
        compile_err(&env, "ipInRange(source.port, '10.0.0.0/8')"),
        ExpressionError::Check(_)
    ));
}

// --- naming ---------------------------------------------------------------

#[test]
fn variables_must_be_lower_snake_case() {
    let ok = build(
        PolicyEnv::builder()
            .variable("source_ip", Type::String)
            .variable("request.user_agent", Type::String)
            .max_size("source_ip", 45)
            .max_size("request.user_agent", 200),
    );
    let act = vars(&[
        ("source_ip", Value::string("a")),
        ("request.user_agent", Value::string("b")),
    ]);
    assert!(eval_bool(
        &ok,
        "source_ip + request.user_agent == 'ab'",
        &act
    ));
    for (name, segment) in [
        ("sourceIp", "sourceIp"),
        ("Source", "Source"),
        ("_x", "_x"),
        ("request.userAgent", "userAgent"),
        ("a__b", "a__b"),
    ] {
        assert_eq!(
            config_errors(PolicyEnv::builder().variable(name, Type::String)),
            vec![ConfigError::VariableName {
                name: name.into(),
                problem: NameProblem::Case {
                    segment: segment.into()
                }
            }]
        );
    }
    assert_eq!(
        config_errors(PolicyEnv::builder().variable("namespace", Type::String)),
        vec![ConfigError::VariableName {
            name: "namespace".into(),
            problem: NameProblem::Reserved {
                segment: "namespace".into()
            }
        }]
    );
    assert_eq!(
        config_errors(
            PolicyEnv::builder()
                .variable("x", Type::Int)
                .variable("x", Type::Int)
        ),
        vec![ConfigError::DuplicateVariable("x".into())]
    );
}

#[test]
fn reserved_property_names_are_surrounded_by_double_underscores() {
    let env = build(
        PolicyEnv::builder()
            .property("namespace", Type::String)
            .property("type", Type::String),
    );
    let mut names: Vec<(&str, &str)> = env.variables().map(|(n, b, _)| (n, b)).collect();
    names.sort();
    assert_eq!(names, [("__namespace__", "namespace"), ("type", "type")]);
    // Bound by property name; referenced by variable name.
    let act = vars(&[
        ("namespace", Value::string("prod")),
        ("type", Value::string("db")),
    ]);
    assert!(eval_bool(
        &env,
        "__namespace__ == 'prod' && type == 'db'",
        &act
    ));
    // The bare reserved word is not an identifier in CEL.
    assert!(matches!(
        compile_err(&env, "namespace == 'prod'"),
        ExpressionError::Syntax(_)
    ));
    assert!(matches!(
        config_errors(PolicyEnv::builder().property("Kind", Type::String)).as_slice(),
        [ConfigError::VariableName { .. }]
    ));
}

fn is_ascii(v: &Value) -> cel::EvalResult {
    match v {
        Value::String(s) => Ok(Value::Bool(s.is_ascii())),
        _ => Err(cel::EvalError::no_such_overload()),
    }
}

fn string_fn(name: &str, id: &str, result: Type) -> Function {
    Function::new(name).overload(Overload::member(
        id,
        vec![Type::String],
        result,
        Some(FnImpl::Unary(is_ascii)),
    ))
}

#[test]
fn host_functions_must_be_lower_camel_case_without_dynamic_results() {
    let env = build(
        PolicyEnv::builder()
            .function(string_fn("isAscii", "string_is_ascii", Type::Bool))
            .function(string_fn("text.isPlain", "string_is_plain", Type::Bool)),
    );
    assert!(eval_bool(&env, "'abc'.isAscii()", &Vars::new()));
    assert!(!eval_bool(&env, "'é'.isAscii()", &Vars::new()));

    for (name, segment) in [
        ("isASCII", "isASCII"),
        ("IsAscii", "IsAscii"),
        ("is_ascii", "is_ascii"),
    ] {
        assert_eq!(
            config_errors(PolicyEnv::builder().function(string_fn(name, "x_id", Type::Bool))),
            vec![ConfigError::FunctionName {
                name: name.into(),
                problem: NameProblem::Case {
                    segment: segment.into()
                }
            }]
        );
    }
    for result in [
        Type::Dyn,
        Type::list(Type::Dyn),
        Type::map(Type::String, Type::Dyn),
    ] {
        assert_eq!(
            config_errors(PolicyEnv::builder().function(string_fn("lookup", "lookup_id", result))),
            vec![ConfigError::DynamicResult {
                function: "lookup".into(),
                overload_id: "lookup_id".into()
            }]
        );
    }
    let declared_only = Function::new("isEmpty").overload(Overload::member(
        "is_empty_id",
        vec![Type::String],
        Type::Bool,
        None,
    ));
    assert_eq!(
        config_errors(PolicyEnv::builder().function(declared_only)),
        vec![ConfigError::MissingImplementation {
            function: "isEmpty".into(),
            overload_id: "is_empty_id".into()
        }]
    );
    // Standard overloads cannot be replaced.
    assert_eq!(
        config_errors(PolicyEnv::builder().function(string_fn(
            "contains",
            "contains_string",
            Type::Bool
        ))),
        vec![ConfigError::OverloadRedefined {
            function: "contains".into(),
            overload_id: "contains_string".into()
        }]
    );
}

// --- standardized variables -----------------------------------------------

#[test]
fn standard_variables_preset() {
    let env = ip_env();
    let mut declared: Vec<(String, Type)> = env
        .variables()
        .map(|(n, _, t)| (n.to_string(), t.clone()))
        .collect();
    declared.sort_by(|a, b| a.0.cmp(&b.0));
    let expected = [
        ("destination.ip", Type::String),
        ("destination.port", Type::Int),
        ("request.body", Type::Bytes),
        ("request.time", Type::Timestamp),
        ("response.body", Type::Bytes),
        ("response.time", Type::Timestamp),
        ("source.ip", Type::String),
        ("source.port", Type::Int),
    ];
    let expected: Vec<(String, Type)> = expected
        .iter()
        .map(|(n, t)| (n.to_string(), t.clone()))
        .collect();
    assert_eq!(declared, expected);

    let at = |s: &str| Value::Timestamp(Timestamp::parse(s).expect("timestamp"));
    let act = vars(&[
        ("destination.ip", Value::string("10.0.0.2")),
        ("destination.port", Value::Int(443)),
        ("request.body", Value::bytes(b"GET".to_vec())),
        ("request.time", at("2025-01-01T00:00:00Z")),
        ("response.body", Value::bytes(b"ok".to_vec())),
        ("response.time", at("2025-01-01T00:00:01Z")),
        ("source.ip", Value::string("192.168.0.7")),
        ("source.port", Value::Int(50000)),
    ]);
    let text = "response.time - request.time == duration('1s') \
        && destination.port == 443 && source.port > 1024 \
        && size(request.body) + size(response.body) == 5 \
        && ipInRange(destination.ip, '10.0.0.0/8') && source.ip.startsWith('192.')";
    assert!(eval_bool(&env, text, &act));
    // Typed as the guideline says: a port is a number, not a string.
    assert!(matches!(
        compile_err(&env, "destination.port == '443'"),
        ExpressionError::Check(_)
    ));
    // Undeclared variables are rejected, even when the host has a value.
    assert!(matches!(
        compile_err(&env, "secret == 1"),
        ExpressionError::Check(_)
    ));
}

// --- minimum support ------------------------------------------------------

#[test]
fn minimum_language_subset() {
    let env = build(
        PolicyEnv::builder()
            .variable("i", Type::Int)
            .variable("j", Type::Int)
            .variable("k", Type::Int)
            .variable("s", Type::String)
            .variable("t", Type::String)
            .variable("l", Type::list(Type::Int))
            .variable("t1", Type::Timestamp)
            .variable("t2", Type::Timestamp)
            .max_size("s", 100)
            .max_size("t", 100)
            .max_size("l", 100),
    );
    let at = |s: &str| Value::Timestamp(Timestamp::parse(s).expect("timestamp"));
    let act = vars(&[
        ("i", Value::Int(3)),
        ("j", Value::Int(5)),
        ("k", Value::Int(4)),
        ("s", Value::string("policy")),
        ("t", Value::string("lic")),
        (
            "l",
            Value::list(vec![Value::Int(7), Value::Int(3), Value::Int(7)]),
        ),
        ("t1", at("2025-01-01T00:00:00Z")),
        ("t2", at("2025-01-01T00:01:00Z")),
    ]);
    // One line per row of the guideline's table, then literals and casts.
    for text in [
        "i == i && i != j",
        "!(false && (true || true)) && (false && true || true)",
        "(i > j ? i : j) == j",
        "i < j || !(i < j)",
        "l[0] == l[size(l)-1] && {'a': 1}['a'] == 1",
        "i in [1, 2, 3] && 'a' in {'a': 1}",
        "i + j % k == 4 && i * j - 1 == 14 && j / 2 == 2 && 7.5 / 2.5 == 3.0",
        "-i == -3 && -(1.5) < 0.0",
        "i >= i && i <= j && s > t && b'a' < b'b' && t1 < t2 && 1.5 >= 1.0",
        "s.contains(t) && s.startsWith('po') && s.endsWith('cy')",
        "s + t == 'policylic' && b'a' + b'b' == b'ab' && l + [1] == [7, 3, 7, 1]",
        "size(s) < 100 && size(b'ab') == 2 && size(l) == 3 && size({'a': 1}) == 1",
        "t2 - t1 == duration('60s') && t1 + duration('60s') == t2 && t2 - duration('1m') == t1",
        "8.0 == 8e0 && 8.0 == .8e1 && 1u == uint(1) && 0x10 == 16 && r'\\d' == '\\\\d'",
        "string(1) == '1' && int('2') == 2 && double('1.5') == 1.5 && string(1.5) == '1.5'",
        "uint(3) == 3u && int(3u) == 3 && double(2) == 2.0 && int(2.7) == 2",
        "bytes('a') == b'a' && string(b'a') == 'a' && bool('true') && string(true) == 'true'",
        "int(timestamp('1970-01-01T00:00:10Z')) == 10 && string(duration('1s')) == '1s'",
    ] {
        assert!(eval_bool(&env, text, &act), "{text}");
    }
}

// --- verbatim storage and versions ---------------------------------------

fn versions() -> PolicyVersions {
    let v1 = build(PolicyEnv::builder().property("name", Type::String));
    let v2 = build(PolicyEnv::builder().property("display_name", Type::String));
    PolicyVersions::new().version("v1", v1).version("v2", v2)
}

#[test]
fn stored_expressions_keep_text_and_api_version() {
    let versions = versions();
    let text = "\n  // clients' comments and layout are kept\n  name ==   'db-1' // trailing\n";
    let (stored, policy) = versions.accept("v1", text).expect("accepted in v1");
    assert_eq!(
        stored,
        StoredExpression {
            text: text.to_string(),
            api_version: "v1".to_string()
        }
    );
    assert_eq!(policy.text(), text);

    // Later, possibly after a v2 was added: evaluated with v1's environment.
    let loaded = versions.load(&stored).expect("loads");
    assert_eq!(loaded.text(), text);
    let act = vars(&[
        ("name", Value::string("db-1")),
        ("display_name", Value::string("other")),
    ]);
    assert!(loaded.evaluate(&act).expect("evaluates").is_true());

    // The same text is not valid against v2, whose schema renamed the field.
    match versions.accept("v2", text) {
        Err(VersionError::Expression(ExpressionError::Check(issues))) => {
            assert!(
                issues
                    .to_string()
                    .contains("undeclared reference to 'name'"),
                "{issues}"
            );
        }
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("accepted in v2"),
    }
    let unknown = StoredExpression {
        text: "true".into(),
        api_version: "v9".into(),
    };
    assert!(matches!(
        versions.load(&unknown),
        Err(VersionError::UnknownVersion(v)) if v == "v9"
    ));
}

/// *Minimum support*: "if floating-point values are supported, then `8.0`,
/// `8.`, `8`, and `8e0` MUST all be recognized as `8.0`". CEL (as cel-go)
/// has `8.0`, `8e0` and `.8e1` as doubles; an `int` literal compares with a
/// double through the cross-type numeric comparisons the environment turns
/// on, and equals it at runtime (heterogeneous equality); the checker, as
/// cel-go's, rejects `==` between an `int` and a `double` expression, and
/// `8.` is not CEL syntax.
#[test]
fn numeric_literal_forms() {
    let env = build(PolicyEnv::builder().variable("d", Type::Double));
    let act = vars(&[("d", Value::Double(8.0))]);
    for text in [
        "d == 8.0 && d == 8e0 && d == .8e1 && d == 80e-1",
        "d >= 8 && d <= 8 && !(d < 8) && !(d > 8)",
        "dyn(d) == dyn(8) && [dyn(8)].exists(x, x == d)",
    ] {
        assert!(eval_bool(&env, text, &act), "{text}");
    }
    assert!(matches!(
        compile_err(&env, "d == 8"),
        ExpressionError::Check(_)
    ));
    assert!(matches!(
        compile_err(&env, "d == 8."),
        ExpressionError::Syntax(_)
    ));
}
