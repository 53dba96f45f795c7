//! cel-go's `ext.Strings` library.
//!
//! Versions (cel-go `StringsVersion`): 0 the base functions (`charAt`,
//! `indexOf`, `lastIndexOf`, `lowerAscii`, `upperAscii`, `replace`, `split`,
//! `substring`, `trim`, `join`); 1 adds `format` (first formatter) and
//! `strings.quote`; 2 changes `join` to reject non-string elements itself;
//! 3 adds `reverse`; 4 switches `format` to the cel-spec formatter; 5 caps
//! format precision at 100 and attaches cost functions (see `strings_runtime_cost`).
//! Kubernetes enables version 2 (v0 before 1.29).
//!
//! Indexes count code points, as cel-go does.
//!
//! Costs: cel-go (≥ v5) charges `string_char_at_int`, `string_index_of_*`,
//! `string_last_index_of_*` and `list_join*` by traversal; in Kubernetes the
//! library's own estimator (by function name, k8s-cel.md §10.11) overrides
//! these, and `format`/`strings.quote` cost ⌈0.1·len(receiver)⌉ (§11.2).

use super::format::{self, FormatOptions, Formatter};
use super::{LATEST, arg, as_int, as_list, as_str, no_overload};
use std::sync::Arc;

use crate::cel_go::CelGoVersion;
use crate::env::{EnvBuilder, Library};
use crate::error::{EvalError, EvalResult};
use crate::functions::{FnImpl, Function, Overload};
use crate::types::Type;
use crate::value::Value;

/// cel-go's `ext.Strings(StringsVersion(version))`.
#[derive(Clone, Copy, Debug)]
pub struct Strings {
    /// The cel-go version of ext.Strings (`ext.StringsVersion`); [`super::LATEST`] by default.
    pub version: u32,
}

impl Default for Strings {
    fn default() -> Self {
        Strings { version: LATEST }
    }
}

impl Strings {
    /// ext.Strings at `version`.
    pub fn version(version: u32) -> Self {
        Strings { version }
    }
}

fn member(id: &str, params: Vec<Type>, result: Type, imp: FnImpl) -> Overload {
    Overload::member(id, params, result, Some(imp))
}

fn global(id: &str, params: Vec<Type>, result: Type, imp: FnImpl) -> Overload {
    Overload::global(id, params, result, Some(imp))
}

impl Library for Strings {
    fn install(&self, env: &mut EnvBuilder) {
        use Type::{Int, String as Str};
        let list_str = Type::list(Str);
        env.add_function(Function::new("charAt").overload(member(
            "string_char_at_int",
            vec![Str, Int],
            Str,
            FnImpl::Binary(char_at),
        )));
        env.add_function(
            Function::new("indexOf")
                .overload(member(
                    "string_index_of_string",
                    vec![Str, Str],
                    Int,
                    FnImpl::Binary(index_of),
                ))
                .overload(member(
                    "string_index_of_string_int",
                    vec![Str, Str, Int],
                    Int,
                    FnImpl::Nary(index_of_offset),
                )),
        );
        env.add_function(
            Function::new("lastIndexOf")
                .overload(member(
                    "string_last_index_of_string",
                    vec![Str, Str],
                    Int,
                    FnImpl::Binary(last_index_of),
                ))
                .overload(member(
                    "string_last_index_of_string_int",
                    vec![Str, Str, Int],
                    Int,
                    FnImpl::Nary(last_index_of_offset),
                )),
        );
        env.add_function(Function::new("lowerAscii").overload(member(
            "string_lower_ascii",
            vec![Str],
            Str,
            FnImpl::Unary(lower_ascii),
        )));
        env.add_function(Function::new("upperAscii").overload(member(
            "string_upper_ascii",
            vec![Str],
            Str,
            FnImpl::Unary(upper_ascii),
        )));
        env.add_function(
            Function::new("replace")
                .overload(member(
                    "string_replace_string_string",
                    vec![Str, Str, Str],
                    Str,
                    FnImpl::Nary(replace),
                ))
                .overload(member(
                    "string_replace_string_string_int",
                    vec![Str, Str, Str, Int],
                    Str,
                    FnImpl::Nary(replace),
                )),
        );
        env.add_function(
            Function::new("split")
                .overload(member(
                    "string_split_string",
                    vec![Str, Str],
                    list_str.clone(),
                    FnImpl::Nary(split),
                ))
                .overload(member(
                    "string_split_string_int",
                    vec![Str, Str, Int],
                    list_str.clone(),
                    FnImpl::Nary(split),
                )),
        );
        env.add_function(
            Function::new("substring")
                .overload(member(
                    "string_substring_int",
                    vec![Str, Int],
                    Str,
                    FnImpl::Nary(substring),
                ))
                .overload(member(
                    "string_substring_int_int",
                    vec![Str, Int, Int],
                    Str,
                    FnImpl::Nary(substring),
                )),
        );
        env.add_function(Function::new("trim").overload(member(
            "string_trim",
            vec![Str],
            Str,
            FnImpl::Unary(trim),
        )));
        let join_imp = if self.version >= 2 {
            join_v2 as fn(&[Value]) -> EvalResult
        } else {
            join_v0
        };
        env.add_function(
            Function::new("join")
                .overload(member(
                    "list_join",
                    vec![list_str.clone()],
                    Str,
                    FnImpl::Nary(join_imp),
                ))
                .overload(member(
                    "list_join_string",
                    vec![list_str, Str],
                    Str,
                    FnImpl::Nary(join_imp),
                )),
        );
        if self.version >= 1 {
            let opts = FormatOptions {
                formatter: if self.version >= 4 {
                    Formatter::V2
                } else {
                    Formatter::V1
                },
                max_precision: if self.version >= 5 { Some(100) } else { None },
            };
            env.add_function(Function::new("format").overload(member(
                "string_format",
                vec![Str, Type::list(Type::Dyn)],
                Str,
                FnImpl::Closure(std::sync::Arc::new(move |args: &[Value]| {
                    let fmt = as_str(arg(args, 0)?)?;
                    let list = as_list(arg(args, 1)?)?;
                    format::format(fmt, list, opts)
                })),
            )));
            // cel-go's string format validator exempts the arguments of
            // `format` from the homogeneous aggregate literal check.
            let exempt = &mut env.options_mut().homogeneous_literal_exempt_functions;
            if !exempt.iter().any(|f| f == "format") {
                exempt.push("format".to_string());
            }
            env.add_function(Function::new("strings.quote").overload(global(
                "strings_quote",
                vec![Str],
                Str,
                FnImpl::Unary(quote),
            )));
        }
        if self.version >= 3 {
            env.add_function(Function::new("reverse").overload(member(
                "string_reverse",
                vec![Str],
                Str,
                FnImpl::Unary(reverse),
            )));
        }
    }
}

fn out_of_range(i: i64) -> EvalError {
    EvalError::msg(format!("index out of range: {i}"))
}

/// The byte offset of code point `n` in `s` (`s.len()` for `n == count`);
/// `None` past the end.
fn byte_offset(s: &str, n: usize) -> Option<usize> {
    if n == 0 {
        return Some(0);
    }
    let mut it = s.char_indices();
    match it.nth(n) {
        Some((b, _)) => Some(b),
        None => (s.chars().count() == n).then_some(s.len()),
    }
}

/// `'hello'.charAt(1)` → `'e'`; the length gives `''`; beyond is an error.
pub fn char_at(s: &Value, i: &Value) -> EvalResult {
    let s = as_str(s)?;
    let i = as_int(i)?;
    if i < 0 {
        return Err(out_of_range(i));
    }
    let mut chars = s.chars();
    match chars.nth(i as usize) {
        Some(c) => Ok(Value::string(c.to_string())),
        None if s.chars().count() == i as usize => Ok(Value::string("")),
        None => Err(out_of_range(i)),
    }
}

/// Code-point index of the first occurrence of `sub` at or after code point
/// `off`, or -1.
fn find_from(s: &str, sub: &str, off: usize) -> i64 {
    let Some(start) = byte_offset(s, off) else {
        return -1;
    };
    match s[start..].find(sub) {
        Some(b) => (off + s[start..start + b].chars().count()) as i64,
        None => -1,
    }
}

pub fn index_of(s: &Value, sub: &Value) -> EvalResult {
    let (s, sub) = (as_str(s)?, as_str(sub)?);
    if sub.is_empty() {
        return Ok(Value::Int(0));
    }
    Ok(Value::Int(find_from(s, sub, 0)))
}

pub fn index_of_offset(args: &[Value]) -> EvalResult {
    index_of_offset_by(OffsetRules::NEWEST, args)
}

pub fn last_index_of(s: &Value, sub: &Value) -> EvalResult {
    last_index_of_by(OffsetRules::NEWEST, s, sub)
}

pub fn last_index_of_offset(args: &[Value]) -> EvalResult {
    last_index_of_offset_by(OffsetRules::NEWEST, args)
}

/// How `indexOf` and `lastIndexOf` treat their offsets, which cel-go changed
/// over its releases (`ext/strings.go`, `indexOfOffset`, `lastIndexOfOffset`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct OffsetRules {
    /// An offset at or past the end fails (`index out of range: N`) rather
    /// than finding nothing (-1): before v0.22 (ba36ff84).
    past_end_fails: bool,
    /// `''.lastIndexOf(sub)` fails with `index out of range: -1` rather than
    /// finding nothing: before v0.25.1 (845f2a8e).
    empty_receiver_fails: bool,
    /// Searching for `''` checks the offset (negative fails, past the end
    /// clamps to the length) rather than returning it as is: from v0.29
    /// (14f6746a).
    empty_search_checked: bool,
}

impl OffsetRules {
    const NEWEST: OffsetRules = OffsetRules::of(CelGoVersion::V0_29);

    const fn of(v: CelGoVersion) -> OffsetRules {
        OffsetRules {
            past_end_fails: (v as u8) < (CelGoVersion::V0_22 as u8),
            empty_receiver_fails: (v as u8) < (CelGoVersion::V0_26 as u8),
            empty_search_checked: (v as u8) >= (CelGoVersion::V0_29 as u8),
        }
    }

    /// The answer for an empty `sub` at `off`, in a string of `len` code
    /// points.
    fn empty_search(self, off: i64, len: i64) -> EvalResult {
        if !self.empty_search_checked {
            return Ok(Value::Int(off));
        }
        if off < 0 {
            return Err(out_of_range(off));
        }
        Ok(Value::Int(off.min(len)))
    }
}

fn index_of_offset_by(rules: OffsetRules, args: &[Value]) -> EvalResult {
    let s = as_str(arg(args, 0)?)?;
    let sub = as_str(arg(args, 1)?)?;
    let off = as_int(arg(args, 2)?)?;
    let len = s.chars().count() as i64;
    if sub.is_empty() {
        return rules.empty_search(off, len);
    }
    if off < 0 || (rules.past_end_fails && off >= len) {
        return Err(out_of_range(off));
    }
    if off >= len {
        return Ok(Value::Int(-1));
    }
    Ok(Value::Int(find_from(s, sub, off as usize)))
}

fn last_index_of_by(rules: OffsetRules, s: &Value, sub: &Value) -> EvalResult {
    let (s, sub) = (as_str(s)?, as_str(sub)?);
    let len = s.chars().count() as i64;
    if sub.is_empty() {
        return Ok(Value::Int(len));
    }
    if s.is_empty() && rules.empty_receiver_fails {
        return Err(out_of_range(-1));
    }
    if s.len() < sub.len() {
        return Ok(Value::Int(-1));
    }
    last_from(rules, s, sub, len - 1)
}

fn last_index_of_offset_by(rules: OffsetRules, args: &[Value]) -> EvalResult {
    let s = as_str(arg(args, 0)?)?;
    let sub = as_str(arg(args, 1)?)?;
    let off = as_int(arg(args, 2)?)?;
    if sub.is_empty() {
        return rules.empty_search(off, s.chars().count() as i64);
    }
    last_from(rules, s, sub, off)
}

/// Installs the offset rules of release `v` in place of the newest ones.
pub(crate) fn adapt(b: &mut EnvBuilder, v: CelGoVersion) {
    let rules = OffsetRules::of(v);
    if rules == OffsetRules::NEWEST {
        return;
    }
    b.replace_implementation(
        "indexOf",
        "string_index_of_string_int",
        FnImpl::Closure(Arc::new(move |a| index_of_offset_by(rules, a))),
    );
    b.replace_implementation(
        "lastIndexOf",
        "string_last_index_of_string",
        FnImpl::Closure(Arc::new(move |a| match a {
            [s, sub] => last_index_of_by(rules, s, sub),
            _ => Err(no_overload()),
        })),
    );
    b.replace_implementation(
        "lastIndexOf",
        "string_last_index_of_string_int",
        FnImpl::Closure(Arc::new(move |a| last_index_of_offset_by(rules, a))),
    );
}

/// The last occurrence of `sub` starting at a code point `<= off`.
fn last_from(rules: OffsetRules, s: &str, sub: &str, off: i64) -> EvalResult {
    let len = s.chars().count() as i64;
    if off < 0 || (rules.past_end_fails && off >= len) {
        return Err(out_of_range(off));
    }
    if off >= len {
        return Ok(Value::Int(-1));
    }
    let sub_len = sub.chars().count() as i64;
    let off = off.min(len - sub_len);
    if off < 0 {
        return Ok(Value::Int(-1));
    }
    // Search the prefix that can hold a match starting at or before `off`.
    let end_cp = (off + sub_len) as usize;
    let end = byte_offset(s, end_cp).unwrap_or(s.len());
    Ok(Value::Int(match s[..end].rfind(sub) {
        Some(b) => s[..b].chars().count() as i64,
        None => -1,
    }))
}

pub fn lower_ascii(s: &Value) -> EvalResult {
    Ok(Value::string(as_str(s)?.to_ascii_lowercase()))
}

pub fn upper_ascii(s: &Value) -> EvalResult {
    Ok(Value::string(as_str(s)?.to_ascii_uppercase()))
}

/// `replace(old, new[, n])`: Go's `strings.Replace` (n < 0: all).
pub fn replace(args: &[Value]) -> EvalResult {
    let s = as_str(arg(args, 0)?)?;
    let old = as_str(arg(args, 1)?)?;
    let new = as_str(arg(args, 2)?)?;
    let n = match args.get(3) {
        Some(v) => as_int(v)?,
        None => -1,
    };
    if args.len() > 4 {
        return Err(no_overload());
    }
    Ok(Value::string(if n < 0 {
        s.replace(old, new)
    } else {
        // Rust's empty-pattern matching (before each char and at the end)
        // is Go's, so `replacen` agrees for every pattern.
        s.replacen(old, new, usize::try_from(n).unwrap_or(usize::MAX))
    }))
}

/// `split(sep[, n])`: Go's `strings.SplitN` (n < 0: all; 0: empty list).
pub fn split(args: &[Value]) -> EvalResult {
    let s = as_str(arg(args, 0)?)?;
    let sep = as_str(arg(args, 1)?)?;
    let n = match args.get(2) {
        Some(v) => as_int(v)?,
        None => -1,
    };
    if args.len() > 3 {
        return Err(no_overload());
    }
    if n == 0 {
        return Ok(Value::list(Vec::new()));
    }
    let limit = if n < 0 { usize::MAX } else { n as usize };
    let parts: Vec<Value> = if sep.is_empty() {
        // Go explodes into code points, the last part holding the rest.
        let mut out = Vec::new();
        let mut rest = s;
        while !rest.is_empty() {
            if out.len() + 1 == limit {
                out.push(Value::string(rest));
                break;
            }
            let c = rest.chars().next().map_or(1, char::len_utf8);
            out.push(Value::string(&rest[..c]));
            rest = &rest[c..];
        }
        out
    } else {
        s.splitn(limit, sep).map(Value::string).collect()
    };
    Ok(Value::list(parts))
}

/// `substring(start[, end])` in code points.
pub fn substring(args: &[Value]) -> EvalResult {
    let s = as_str(arg(args, 0)?)?;
    let start = as_int(arg(args, 1)?)?;
    let len = s.chars().count() as i64;
    let end = match args.get(2) {
        Some(v) => {
            let end = as_int(v)?;
            if start > end {
                return Err(EvalError::msg(format!(
                    "invalid substring range. start: {start}, end: {end}"
                )));
            }
            Some(end)
        }
        None => None,
    };
    if args.len() > 3 {
        return Err(no_overload());
    }
    if start < 0 || start > len {
        return Err(out_of_range(start));
    }
    let b0 = byte_offset(s, start as usize).unwrap_or(s.len());
    match end {
        None => Ok(Value::string(&s[b0..])),
        Some(end) => {
            if end < 0 || end > len {
                return Err(out_of_range(end));
            }
            let b1 = byte_offset(s, end as usize).unwrap_or(s.len());
            Ok(Value::string(&s[b0..b1]))
        }
    }
}

/// Removes leading and trailing Unicode white space (Go's `unicode.IsSpace`,
/// the same set as Rust's `char::is_whitespace`).
pub fn trim(s: &Value) -> EvalResult {
    Ok(Value::string(as_str(s)?.trim()))
}

/// The code points in reverse order.
pub fn reverse(s: &Value) -> EvalResult {
    Ok(Value::string(as_str(s)?.chars().rev().collect::<String>()))
}

/// `strings.quote(s)`: double quotes with CEL escapes.
pub fn quote(s: &Value) -> EvalResult {
    let s = as_str(s)?;
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out.push('"');
    Ok(Value::string(out))
}

fn join_parts(args: &[Value], elem_err: fn(&Value) -> EvalError) -> EvalResult {
    let list = as_list(arg(args, 0)?)?;
    let sep = match args.get(1) {
        Some(v) => as_str(v)?,
        None => "",
    };
    let mut out = String::new();
    for (i, e) in list.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        match &e {
            Value::String(s) => out.push_str(s),
            other => return Err(elem_err(other)),
        }
    }
    Ok(Value::string(out))
}

/// `join` from version 2: elements must be strings (`join: invalid input: <v>`).
fn join_v2(args: &[Value]) -> EvalResult {
    join_parts(args, |v| {
        EvalError::msg(format!("join: invalid input: {}", go_value_text(v)))
    })
}

/// `join` before version 2: the list is converted to a Go `[]string` first.
fn join_v0(args: &[Value]) -> EvalResult {
    join_parts(args, |v| {
        EvalError::msg(format!(
            "type conversion error from '{}' to 'string'",
            v.type_name()
        ))
    })
}

/// How Go's `%v` prints a scalar CEL value in error texts.
fn go_value_text(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Double(d) => crate::go::fmt::general(*d),
        Value::String(s) => s.to_string(),
        other => other.type_name().to_string(),
    }
}

#[cfg(test)]
#[allow(clippy::approx_constant)]
mod tests {
    use super::*;

    fn s(v: &str) -> Value {
        Value::from(v)
    }

    fn ok_str(r: EvalResult) -> String {
        match r {
            Ok(Value::String(s)) => s.to_string(),
            other => panic!("expected a string, got {other:?}"),
        }
    }

    fn ok_int(r: EvalResult) -> i64 {
        match r {
            Ok(Value::Int(i)) => i,
            other => panic!("expected an int, got {other:?}"),
        }
    }

    fn err(r: EvalResult) -> String {
        match r {
            Err(e) => e.message().to_string(),
            Ok(v) => panic!("expected an error, got {v:?}"),
        }
    }

    fn strs(r: EvalResult) -> Vec<String> {
        match r {
            Ok(Value::List(l)) => l
                .iter()
                .map(|v| match v {
                    Value::String(s) => s.to_string(),
                    other => panic!("not a string: {other:?}"),
                })
                .collect(),
            other => panic!("expected a list, got {other:?}"),
        }
    }

    #[test]
    fn char_at_counts_code_points() {
        assert_eq!(ok_str(char_at(&s("tacocat"), &Value::Int(3))), "o");
        assert_eq!(ok_str(char_at(&s("ta©o"), &Value::Int(2))), "©");
        assert_eq!(ok_str(char_at(&s("tacocat"), &Value::Int(7))), "");
        assert_eq!(
            err(char_at(&s("tacocat"), &Value::Int(30))),
            "index out of range: 30"
        );
        assert_eq!(
            err(char_at(&s("x"), &Value::Int(-1))),
            "index out of range: -1"
        );
        assert_eq!(
            err(char_at(&Value::Int(42), &Value::Int(1))),
            "no such overload"
        );
    }

    #[test]
    fn index_of_and_last_index_of() {
        assert_eq!(ok_int(index_of(&s("hello mellow"), &s("ello"))), 1);
        assert_eq!(ok_int(index_of(&s("hello mellow"), &s(""))), 0);
        assert_eq!(ok_int(index_of(&s("ta©o©αT"), &s("©αT"))), 4);
        assert_eq!(
            ok_int(index_of_offset(&[
                s("hello mellow"),
                s("ello"),
                Value::Int(2)
            ])),
            7
        );
        assert_eq!(
            ok_int(index_of_offset(&[s("hello"), s(""), Value::Int(2)])),
            2
        );
        assert_eq!(
            ok_int(index_of_offset(&[s("tacocat"), s("a"), Value::Int(30)])),
            -1
        );
        assert_eq!(
            err(index_of_offset(&[s("tacocat"), s("a"), Value::Int(-1)])),
            "index out of range: -1"
        );
        assert_eq!(ok_int(last_index_of(&s("hello mellow"), &s(""))), 12);
        assert_eq!(ok_int(last_index_of(&s("hello mellow"), &s("ello"))), 7);
        assert_eq!(ok_int(last_index_of(&s("ta©o©αT"), &s("©"))), 4);
        assert_eq!(
            ok_int(last_index_of_offset(&[
                s("hello mellow"),
                s("ello"),
                Value::Int(6)
            ])),
            1
        );
        assert_eq!(
            ok_int(last_index_of_offset(&[
                s("hello mellow"),
                s("ello"),
                Value::Int(11)
            ])),
            7
        );
        assert_eq!(
            err(last_index_of_offset(&[
                s("tacocat"),
                s("a"),
                Value::Int(-1)
            ])),
            "index out of range: -1"
        );
        assert_eq!(ok_int(last_index_of(&s("ab"), &s("abc"))), -1);
    }

    #[test]
    fn offsets_follow_the_cel_go_release() {
        let at = |v: CelGoVersion, f: fn(OffsetRules, &[Value]) -> EvalResult, a: &[Value]| match f(
            OffsetRules::of(v),
            a,
        ) {
            Ok(Value::Int(i)) => i.to_string(),
            Ok(other) => panic!("{other:?}"),
            Err(e) => e.message().to_string(),
        };
        let past_end = [s("abc"), s("b"), Value::Int(3)];
        assert_eq!(
            at(CelGoVersion::V0_20, index_of_offset_by, &past_end),
            "index out of range: 3"
        );
        assert_eq!(at(CelGoVersion::V0_22, index_of_offset_by, &past_end), "-1");
        assert_eq!(
            at(CelGoVersion::V0_20, last_index_of_offset_by, &past_end),
            "index out of range: 3"
        );
        assert_eq!(
            at(CelGoVersion::V0_22, last_index_of_offset_by, &past_end),
            "-1"
        );
        let empty_far = [s("abc"), s(""), Value::Int(10)];
        let empty_negative = [s("abc"), s(""), Value::Int(-1)];
        for f in [index_of_offset_by, last_index_of_offset_by] {
            assert_eq!(at(CelGoVersion::V0_26, f, &empty_far), "10");
            assert_eq!(at(CelGoVersion::V0_29, f, &empty_far), "3");
            assert_eq!(at(CelGoVersion::V0_26, f, &empty_negative), "-1");
            assert_eq!(
                at(CelGoVersion::V0_29, f, &empty_negative),
                "index out of range: -1"
            );
        }
        let last = |v: CelGoVersion, a: &str, b: &str| match last_index_of_by(
            OffsetRules::of(v),
            &s(a),
            &s(b),
        ) {
            Ok(v) => format!("{v}"),
            Err(e) => e.message().to_string(),
        };
        assert_eq!(last(CelGoVersion::V0_23, "", "a"), "index out of range: -1");
        assert_eq!(last(CelGoVersion::V0_26, "", "a"), "-1");
        assert_eq!(last(CelGoVersion::V0_23, "", ""), "0");
    }

    #[test]
    fn replace_split_substring() {
        assert_eq!(
            ok_str(replace(&[s("hello hello"), s("he"), s("we")])),
            "wello wello"
        );
        assert_eq!(
            ok_str(replace(&[
                s("hello hello"),
                s("he"),
                s("we"),
                Value::Int(1)
            ])),
            "wello hello"
        );
        assert_eq!(
            ok_str(replace(&[
                s("hello hello"),
                s("he"),
                s("we"),
                Value::Int(0)
            ])),
            "hello hello"
        );
        assert_eq!(ok_str(replace(&[s("ab"), s(""), s("-")])), "-a-b-");
        assert_eq!(strs(split(&[s("a b c"), s(" ")])), ["a", "b", "c"]);
        assert_eq!(
            strs(split(&[s("a b c"), s(" "), Value::Int(2)])),
            ["a", "b c"]
        );
        assert!(strs(split(&[s("a b c"), s(" "), Value::Int(0)])).is_empty());
        assert_eq!(strs(split(&[s("ab©"), s("")])), ["a", "b", "©"]);
        assert_eq!(strs(split(&[s("ab©"), s(""), Value::Int(2)])), ["a", "b©"]);
        assert!(strs(split(&[s(""), s("")])).is_empty());
        assert_eq!(strs(split(&[s(""), s(",")])), [""]);
        assert_eq!(ok_str(substring(&[s("tacocat"), Value::Int(4)])), "cat");
        assert_eq!(ok_str(substring(&[s("tacocat"), Value::Int(7)])), "");
        assert_eq!(
            ok_str(substring(&[s("ta©o©αT"), Value::Int(2), Value::Int(6)])),
            "©o©α"
        );
        assert_eq!(
            err(substring(&[s("tacocat"), Value::Int(40)])),
            "index out of range: 40"
        );
        assert_eq!(
            err(substring(&[s("tacocat"), Value::Int(4), Value::Int(3)])),
            "invalid substring range. start: 4, end: 3"
        );
        assert_eq!(
            err(substring(&[s("tacocat"), Value::Int(49), Value::Int(50)])),
            "index out of range: 49"
        );
        assert_eq!(
            err(substring(&[s("tacocat"), Value::Int(1), Value::Int(50)])),
            "index out of range: 50"
        );
    }

    #[test]
    fn trim_quote_reverse_join() {
        assert_eq!(ok_str(trim(&s(" \u{c}\n\r\t\u{b}text  "))), "text");
        assert_eq!(
            ok_str(trim(&s("\u{85}\u{a0}\u{1680}text\u{2028}\u{202f}\u{3000}"))),
            "text"
        );
        assert_eq!(
            ok_str(trim(&s("\u{180e}text\u{200b}"))),
            "\u{180e}text\u{200b}"
        );
        assert_eq!(ok_str(quote(&s("first\nsecond"))), "\"first\\nsecond\"");
        assert_eq!(ok_str(quote(&s("mid \" \\"))), "\"mid \\\" \\\\\"");
        assert_eq!(ok_str(reverse(&s("☺©a"))), "a©☺");
        let l = Value::list(vec![s("a"), s("b")]);
        assert_eq!(ok_str(join_v2(&[l.clone(), s(", ")])), "a, b");
        assert_eq!(ok_str(join_v2(std::slice::from_ref(&l))), "ab");
        assert_eq!(
            err(join_v2(&[Value::list(vec![s("a"), Value::Int(1)])])),
            "join: invalid input: 1"
        );
        assert_eq!(ok_str(lower_ascii(&s("TacoCÆt"))), "tacocÆt");
        assert_eq!(ok_str(upper_ascii(&s("TacoCæt"))), "TACOCæT");
    }

    #[test]
    fn versions_gate_functions() {
        let mut b = EnvBuilder::new();
        Strings::version(0).install(&mut b);
        let env = b.build();
        assert!(env.function("format").is_none());
        assert!(env.function("join").is_some());
        let mut b = EnvBuilder::new();
        Strings::version(3).install(&mut b);
        let env = b.build();
        assert!(env.function("strings.quote").is_some());
        assert!(env.function("reverse").is_some());
    }
}
