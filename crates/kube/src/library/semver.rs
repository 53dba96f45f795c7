//! Kubernetes' semver library (`library/semverlib.go`, `kubernetes.Semver`), over a
//! port of `github.com/blang/semver/v4`'s strict `Parse` and `Compare`.

use std::any::Any;
use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use cel::value::Opaque;
use cel::{EnvBuilder, EvalError, EvalResult, FnImpl, Function, Library, Overload, Type, Value};

use super::common::{SEMVER_TYPE_NAME, opaque_arg, semver_type, string_arg};
use crate::go::fmt::quote as go_quote;

/// A pre-release identifier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PreRelease {
    /// A numeric identifier.
    Num(u64),
    /// An alphanumeric identifier.
    Str(String),
}

/// A semantic version (build metadata is kept but ignored by comparisons).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    /// The major version.
    pub major: u64,
    /// The minor version.
    pub minor: u64,
    /// The patch version.
    pub patch: u64,
    /// The pre-release identifiers (after `-`).
    pub pre: Vec<PreRelease>,
    /// The build metadata identifiers (after `+`).
    pub build: Vec<String>,
}

fn only_digits(s: &str) -> bool {
    s.bytes().all(|c| c.is_ascii_digit())
}

fn only_alphanum(s: &str) -> bool {
    s.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-')
}

fn leading_zero(s: &str) -> bool {
    s.len() > 1 && s.starts_with('0')
}

/// Go's `strconv.ParseUint(s, 10, 64)` with its error text.
fn parse_uint(s: &str) -> Result<u64, String> {
    if s.is_empty() || !only_digits(s) {
        return Err(format!(
            "strconv.ParseUint: parsing {}: invalid syntax",
            go_quote(s)
        ));
    }
    s.parse::<u64>().map_err(|_| {
        format!(
            "strconv.ParseUint: parsing {}: value out of range",
            go_quote(s)
        )
    })
}

impl Version {
    /// blang/semver's strict `Parse`, with its error texts.
    pub(crate) fn parse(s: &str) -> Result<Version, String> {
        if s.is_empty() {
            return Err("Version string empty".into());
        }
        let parts: Vec<&str> = s.splitn(3, '.').collect();
        let [major, minor, rest] = parts[..] else {
            return Err("No Major.Minor.Patch elements found".into());
        };
        let number = |p: &str, what: &str| -> Result<u64, String> {
            if !only_digits(p) {
                return Err(format!(
                    "Invalid character(s) found in {what} number {}",
                    go_quote(p)
                ));
            }
            if leading_zero(p) {
                let cap = match what {
                    "major" => "Major",
                    "minor" => "Minor",
                    _ => "Patch",
                };
                return Err(format!(
                    "{cap} number must not contain leading zeroes {}",
                    go_quote(p)
                ));
            }
            parse_uint(p)
        };
        let major = number(major, "major")?;
        let minor = number(minor, "minor")?;
        let mut patch_str = rest;
        let mut build = Vec::new();
        if let Some(i) = patch_str.find('+') {
            build = patch_str[i + 1..].split('.').map(str::to_string).collect();
            patch_str = &patch_str[..i];
        }
        let mut pre_strs: Vec<&str> = Vec::new();
        if let Some(i) = patch_str.find('-') {
            pre_strs = patch_str[i + 1..].split('.').collect();
            patch_str = &patch_str[..i];
        }
        let patch = number(patch_str, "patch")?;
        let mut pre = Vec::with_capacity(pre_strs.len());
        for p in pre_strs {
            if p.is_empty() {
                return Err("Prerelease is empty".into());
            }
            if only_digits(p) {
                if leading_zero(p) {
                    return Err(format!(
                        "Numeric PreRelease version must not contain leading zeroes {}",
                        go_quote(p)
                    ));
                }
                pre.push(PreRelease::Num(parse_uint(p)?));
            } else if only_alphanum(p) {
                pre.push(PreRelease::Str(p.to_string()));
            } else {
                return Err(format!(
                    "Invalid character(s) found in prerelease {}",
                    go_quote(p)
                ));
            }
        }
        for b in &build {
            if b.is_empty() {
                return Err("Buildversion is empty".into());
            }
            if !only_alphanum(b) {
                return Err(format!(
                    "Invalid character(s) found in build meta data {}",
                    go_quote(b)
                ));
            }
        }
        Ok(Version {
            major,
            minor,
            patch,
            pre,
            build,
        })
    }

    /// Kubernetes' `normalizeAndParse`: drop one leading `v`, strip leading zeros
    /// of the three dot parts, pad a short version with `.0`, then parse strictly.
    pub(crate) fn parse_normalized(s: &str) -> Result<Version, String> {
        let s = s.strip_prefix('v').unwrap_or(s);
        let mut parts: Vec<String> = s
            .splitn(3, '.')
            .map(|p| {
                if p.len() > 1 {
                    let t = p.trim_start_matches('0');
                    if t.is_empty() || !t.as_bytes()[0].is_ascii_digit() {
                        return format!("0{t}");
                    }
                    return t.to_string();
                }
                p.to_string()
            })
            .collect();
        if parts.len() < 3 {
            if parts.last().is_some_and(|p| p.contains(['+', '-'])) {
                return Err("short version cannot contain PreRelease/Build meta data".into());
            }
            while parts.len() < 3 {
                parts.push("0".into());
            }
        }
        Version::parse(&parts.join("."))
    }

    /// Semver precedence (build metadata ignored).
    pub fn compare(&self, o: &Version) -> Ordering {
        let core = (self.major, self.minor, self.patch).cmp(&(o.major, o.minor, o.patch));
        if core != Ordering::Equal {
            return core;
        }
        match (self.pre.is_empty(), o.pre.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Greater,
            (false, true) => return Ordering::Less,
            _ => {}
        }
        for (a, b) in self.pre.iter().zip(&o.pre) {
            let c = match (a, b) {
                (PreRelease::Num(x), PreRelease::Num(y)) => x.cmp(y),
                (PreRelease::Num(_), PreRelease::Str(_)) => Ordering::Less,
                (PreRelease::Str(_), PreRelease::Num(_)) => Ordering::Greater,
                (PreRelease::Str(x), PreRelease::Str(y)) => x.as_bytes().cmp(y.as_bytes()),
            };
            if c != Ordering::Equal {
                return c;
            }
        }
        self.pre.len().cmp(&o.pre.len())
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        for (i, p) in self.pre.iter().enumerate() {
            f.write_str(if i == 0 { "-" } else { "." })?;
            match p {
                PreRelease::Num(n) => write!(f, "{n}")?,
                PreRelease::Str(s) => f.write_str(s)?,
            }
        }
        for (i, b) in self.build.iter().enumerate() {
            f.write_str(if i == 0 { "+" } else { "." })?;
            f.write_str(b)?;
        }
        Ok(())
    }
}

/// A `kubernetes.Semver` value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SemverValue(pub Version);

impl Opaque for SemverValue {
    fn type_name(&self) -> &str {
        SEMVER_TYPE_NAME
    }

    /// Semver equality: precedence equal (build metadata ignored).
    fn equals(&self, other: &dyn Opaque) -> bool {
        other
            .as_any()
            .downcast_ref::<SemverValue>()
            .is_some_and(|o| self.0.compare(&o.0) == Ordering::Equal)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn display(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The semver library at a version: 0, or 1 (adds the `normalize` argument).
#[derive(Clone, Copy, Debug)]
pub struct SemverLib {
    /// 0 or 1.
    pub version: u32,
}

impl Default for SemverLib {
    /// The newest version.
    fn default() -> Self {
        SemverLib { version: 1 }
    }
}

impl Library for SemverLib {
    fn install(&self, env: &mut EnvBuilder) {
        let sv = semver_type;
        let unary = |f: fn(&Value) -> EvalResult| Some(FnImpl::Unary(f));
        let binary = |f: fn(&Value, &Value) -> EvalResult| Some(FnImpl::Binary(f));
        let mut semver = Function::new("semver").overload(Overload::global(
            "string_to_semver",
            vec![Type::String],
            sv(),
            unary(string_to_semver),
        ));
        let mut is_semver = Function::new("isSemver").overload(Overload::global(
            "is_semver_string",
            vec![Type::String],
            Type::Bool,
            unary(is_semver),
        ));
        if self.version >= 1 {
            semver = semver.overload(Overload::global(
                "string_bool_to_semver",
                vec![Type::String, Type::Bool],
                sv(),
                binary(string_to_semver_normalize),
            ));
            is_semver = is_semver.overload(Overload::global(
                "is_semver_string_bool",
                vec![Type::String, Type::Bool],
                Type::Bool,
                binary(is_semver_normalize),
            ));
        }
        env.add_function(semver);
        env.add_function(is_semver);
        for (name, id, result, f) in [
            (
                "isGreaterThan",
                "semver_is_greater_than",
                Type::Bool,
                is_greater_than as fn(&Value, &Value) -> EvalResult,
            ),
            (
                "isLessThan",
                "semver_is_less_than",
                Type::Bool,
                is_less_than,
            ),
            ("compareTo", "semver_compare_to", Type::Int, compare_to),
        ] {
            env.add_function(Function::new(name).overload(Overload::member(
                id,
                vec![sv(), sv()],
                result,
                binary(f),
            )));
        }
        for (name, id, f) in [
            ("major", "semver_major", major as fn(&Value) -> EvalResult),
            ("minor", "semver_minor", minor),
            ("patch", "semver_patch", patch),
        ] {
            env.add_function(Function::new(name).overload(Overload::member(
                id,
                vec![sv()],
                Type::Int,
                unary(f),
            )));
        }
    }
}

fn bool_arg(v: &Value) -> EvalResult<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn parse(s: &str, normalize: bool) -> Result<Version, String> {
    if normalize {
        Version::parse_normalized(s)
    } else {
        Version::parse(s)
    }
}

/// `semver(string)`.
pub fn string_to_semver(v: &Value) -> EvalResult {
    let s = string_arg(v)?;
    parse(s, false)
        .map(|v| Value::Opaque(Arc::new(SemverValue(v))))
        .map_err(EvalError::msg)
}

/// `semver(string, normalize)`.
pub fn string_to_semver_normalize(v: &Value, n: &Value) -> EvalResult {
    let s = string_arg(v)?;
    let n = bool_arg(n)?;
    parse(s, n)
        .map(|v| Value::Opaque(Arc::new(SemverValue(v))))
        .map_err(EvalError::msg)
}

/// `isSemver(string)`.
pub fn is_semver(v: &Value) -> EvalResult {
    Ok(Value::Bool(parse(string_arg(v)?, false).is_ok()))
}

/// `isSemver(string, normalize)`.
pub fn is_semver_normalize(v: &Value, n: &Value) -> EvalResult {
    let s = string_arg(v)?;
    Ok(Value::Bool(parse(s, bool_arg(n)?).is_ok()))
}

fn pair<'a>(a: &'a Value, b: &'a Value) -> EvalResult<(&'a Version, &'a Version)> {
    Ok((
        &opaque_arg::<SemverValue>(a)?.0,
        &opaque_arg::<SemverValue>(b)?.0,
    ))
}

/// `v.isGreaterThan(other)`.
pub fn is_greater_than(a: &Value, b: &Value) -> EvalResult {
    let (x, y) = pair(a, b)?;
    Ok(Value::Bool(x.compare(y) == Ordering::Greater))
}

/// `v.isLessThan(other)`.
pub fn is_less_than(a: &Value, b: &Value) -> EvalResult {
    let (x, y) = pair(a, b)?;
    Ok(Value::Bool(x.compare(y) == Ordering::Less))
}

/// `v.compareTo(other)`.
pub fn compare_to(a: &Value, b: &Value) -> EvalResult {
    let (x, y) = pair(a, b)?;
    Ok(Value::Int(x.compare(y) as i64))
}

/// `v.major()` (Go converts the uint64 with wrap-around).
pub fn major(v: &Value) -> EvalResult {
    Ok(Value::Int(opaque_arg::<SemverValue>(v)?.0.major as i64))
}

/// `v.minor()`.
pub fn minor(v: &Value) -> EvalResult {
    Ok(Value::Int(opaque_arg::<SemverValue>(v)?.0.minor as i64))
}

/// `v.patch()`.
pub fn patch(v: &Value) -> EvalResult {
    Ok(Value::Int(opaque_arg::<SemverValue>(v)?.0.patch as i64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_and_normalized() {
        assert_eq!(
            Version::parse("v1.0").unwrap_err(),
            "No Major.Minor.Patch elements found"
        );
        assert!(Version::parse("1.2.3-beta.1+build.1").is_ok());
        assert_eq!(
            Version::parse("01.01.01").unwrap_err(),
            "Major number must not contain leading zeroes \"01\""
        );
        assert!(Version::parse(" 1.0.0").is_err());
        assert!(Version::parse("1.0.0 ").is_err());
        assert_eq!(
            Version::parse_normalized("v01.01").unwrap().to_string(),
            "1.1.0"
        );
        assert_eq!(
            Version::parse_normalized("01.01.01").unwrap().to_string(),
            "1.1.1"
        );
        assert_eq!(
            Version::parse_normalized("1.0-alpha").unwrap_err(),
            "short version cannot contain PreRelease/Build meta data"
        );
        assert!(Version::parse_normalized("").is_err());
    }

    #[test]
    fn precedence() {
        let v = |s: &str| Version::parse(s).unwrap();
        assert_eq!(v("1.0.0-alpha").compare(&v("1.0.0")), Ordering::Less);
        assert_eq!(
            v("1.0.0-alpha.1").compare(&v("1.0.0-alpha.beta")),
            Ordering::Less
        );
        assert_eq!(v("1.0.0-2").compare(&v("1.0.0-11")), Ordering::Less);
        assert_eq!(v("1.0.0+a").compare(&v("1.0.0+b")), Ordering::Equal);
        assert_eq!(v("1.2.3").compare(&v("1.0.0")), Ordering::Greater);
    }
}
