//! Kubernetes' regex library (`library/regex.go`, `kubernetes.regex`):
//! `find` and `findAll`, with Go's `regexp` (RE2) semantics.

use std::cell::RefCell;
use std::sync::Arc;

use cel::go::regexp::Regex;
use cel::syntax::{Expr, Literal};
use cel::{EnvBuilder, EvalError, EvalResult, FnImpl, Function, Library, Overload, Type, Value};

use super::common::{arg, int_arg, string_arg};

/// The regex library.
#[derive(Clone, Copy, Debug, Default)]
pub struct RegexLib;

impl Library for RegexLib {
    fn install(&self, env: &mut EnvBuilder) {
        env.add_function(Function::new("find").overload(Overload::member(
            "string_find_string",
            vec![Type::String, Type::String],
            Type::String,
            Some(FnImpl::Binary(find)),
        )));
        env.add_function(
            Function::new("findAll")
                .overload(Overload::member(
                    "string_find_all_string",
                    vec![Type::String, Type::String],
                    Type::list(Type::String),
                    Some(FnImpl::Binary(find_all)),
                ))
                .overload(Overload::member(
                    "string_find_all_string_int",
                    vec![Type::String, Type::String, Type::Int],
                    Type::list(Type::String),
                    Some(FnImpl::Nary(find_all_n)),
                )),
        );
    }
}

/// How many compiled patterns each thread keeps.
const CACHE_SIZE: usize = 16;

thread_local! {
    static CACHE: RefCell<Vec<(Arc<str>, Regex)>> = const { RefCell::new(Vec::new()) };
}

/// Compiles `pattern`, reusing a recent compilation on this thread, else the process-wide
/// one ([`Regex::cached`]).
/// Errors read `Illegal regex: <reason>` as in Kubernetes.
pub fn compile(pattern: &str) -> EvalResult<Regex> {
    if let Some(re) = CACHE.with(|c| {
        c.borrow()
            .iter()
            .find(|(p, _)| &**p == pattern)
            .map(|(_, re)| re.clone())
    }) {
        return Ok(re);
    }
    let re = Regex::cached(pattern).map_err(|e| EvalError::msg(format!("Illegal regex: {e}")))?;
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE_SIZE {
            c.remove(0);
        }
        c.push((pattern.into(), re.clone()));
    });
    Ok(re)
}

/// Kubernetes' `OptimizeRegex(FindRegexOptimization, FindAllRegexOptimization)`:
/// the constant pattern of every `find` / `findAll` call is compiled when the
/// program is created, so an invalid one fails program creation with Go's
/// error (`error parsing regexp: unexpected ): `)``), whether or not the call
/// is ever evaluated. The first such error in `e`, if any.
pub fn constant_pattern_error(e: &Expr) -> Option<cel::go::regexp::RegexError> {
    // Pre-order, receivers before arguments, left to right: the first invalid pattern written.
    e.preorder().find_map(|e| {
        let c = e.as_call()?;
        if !matches!(c.function.as_str(), "find" | "findAll") || c.target.is_none() {
            return None;
        }
        let Some(Literal::String(p)) = c.args.first().and_then(Expr::as_literal) else {
            return None;
        };
        Regex::cached(p).err()
    })
}

/// `s.find(re)`: the leftmost match, or `""`.
pub fn find(s: &Value, re: &Value) -> EvalResult {
    let s = string_arg(s)?;
    let re = compile(string_arg(re)?)?;
    Ok(Value::from(re.find(s).unwrap_or("")))
}

/// `s.findAll(re)`: every non-overlapping match.
pub fn find_all(s: &Value, re: &Value) -> EvalResult {
    find_all_limited(string_arg(s)?, string_arg(re)?, -1)
}

/// `s.findAll(re, n)`: at most `n` matches (`n < 0`: all; `0`: none).
pub fn find_all_n(args: &[Value]) -> EvalResult {
    let s = string_arg(arg(args, 0)?)?;
    let re = string_arg(arg(args, 1)?)?;
    let n = int_arg(arg(args, 2)?)?;
    find_all_limited(s, re, n)
}

fn find_all_limited(s: &str, pattern: &str, n: i64) -> EvalResult {
    let re = compile(pattern)?;
    let found = re.find_all(s, n).into_iter().map(Value::from).collect();
    Ok(Value::list(found))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &Value) -> Vec<String> {
        match v {
            Value::List(l) => l
                .iter()
                .map(|x| match x {
                    Value::String(s) => s.to_string(),
                    other => panic!("{other:?}"),
                })
                .collect(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn constant_patterns_are_compiled_up_front() {
        let env = cel::Env::builder()
            .library(cel::library::Std)
            .library(RegexLib)
            .build();
        let err = |src: &str| {
            constant_pattern_error(&env.parse(src).unwrap().expr).map(|e| e.to_string())
        };
        assert_eq!(
            err("'a'.find(')') == '' || true").as_deref(),
            Some("error parsing regexp: unexpected ): `)`")
        );
        assert_eq!(
            err("['x'].all(s, s.findAll('x++', 1).size() == 0)").as_deref(),
            Some("error parsing regexp: invalid nested repetition operator: `++`")
        );
        assert_eq!(err("'a'.find('[a-z]+') == 'a'"), None);
        // Only constant patterns are compiled up front.
        assert_eq!(err("'a'.find('(' + ')') == ''"), None);
        let e = find(&Value::from("a"), &Value::from(")")).unwrap_err();
        assert_eq!(
            e.message(),
            "Illegal regex: error parsing regexp: unexpected ): `)`"
        );
    }

    #[test]
    fn find_and_find_all() {
        let s = Value::from("abc 123 def 456");
        assert!(matches!(find(&s, &Value::from("[0-9]+")), Ok(Value::String(x)) if &*x == "123"));
        assert!(matches!(find(&s, &Value::from("xyz")), Ok(Value::String(x)) if x.is_empty()));
        assert_eq!(
            strings(&find_all(&s, &Value::from("[0-9]+")).unwrap()),
            ["123", "456"]
        );
        let one = find_all_n(&[s.clone(), Value::from("[0-9]+"), Value::Int(1)]).unwrap();
        assert_eq!(strings(&one), ["123"]);
        let none = find_all_n(&[s.clone(), Value::from("[0-9]+"), Value::Int(0)]).unwrap();
        assert!(strings(&none).is_empty());
        let err = find(&s, &Value::from("(")).unwrap_err();
        assert!(
            err.message().starts_with("Illegal regex: "),
            "{}",
            err.message()
        );
    }
}
