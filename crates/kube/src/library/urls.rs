//! Kubernetes' URL library (`library/urls.go`, `kubernetes.urls`, type `kubernetes.URL`).

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use cel::value::{Key, Opaque};
use cel::{EnvBuilder, EvalError, EvalResult, FnImpl, Function, Library, Overload, Type, Value};
use indexmap::IndexMap;

use super::common::{URL_TYPE_NAME, opaque_arg, string_arg, url_type};
use crate::go::url::{self as gourl, Url};

/// A `kubernetes.URL` value.
#[derive(Clone, Debug)]
pub struct UrlValue(pub Url);

impl Opaque for UrlValue {
    fn type_name(&self) -> &str {
        URL_TYPE_NAME
    }

    /// Equality of the `String()` forms, as Kubernetes compares URLs.
    fn equals(&self, other: &dyn Opaque) -> bool {
        other
            .as_any()
            .downcast_ref::<UrlValue>()
            .is_some_and(|o| self.0.to_string() == o.0.to_string())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn display(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The URL library.
#[derive(Clone, Copy, Debug, Default)]
pub struct Urls;

impl Library for Urls {
    fn install(&self, env: &mut EnvBuilder) {
        let unary = |f: fn(&Value) -> EvalResult| Some(FnImpl::Unary(f));
        env.add_function(Function::new("url").overload(Overload::global(
            "string_to_url",
            vec![Type::String],
            url_type(),
            unary(string_to_url),
        )));
        for (name, id, f) in [
            (
                "getScheme",
                "url_get_scheme",
                get_scheme as fn(&Value) -> EvalResult,
            ),
            ("getHost", "url_get_host", get_host),
            ("getHostname", "url_get_hostname", get_hostname),
            ("getPort", "url_get_port", get_port),
            ("getEscapedPath", "url_get_escaped_path", get_escaped_path),
        ] {
            env.add_function(Function::new(name).overload(Overload::member(
                id,
                vec![url_type()],
                Type::String,
                unary(f),
            )));
        }
        env.add_function(Function::new("getQuery").overload(Overload::member(
            "url_get_query",
            vec![url_type()],
            Type::map(Type::String, Type::list(Type::String)),
            unary(get_query),
        )));
        env.add_function(Function::new("isURL").overload(Overload::global(
            "is_url_string",
            vec![Type::String],
            Type::Bool,
            unary(is_url),
        )));
    }
}

const PARSE_ERROR: &str = "URL parse error during conversion from string";

/// `url(string)`: must pass `ParseRequestURI`; the value is then parsed with `Parse`.
pub fn string_to_url(v: &Value) -> EvalResult {
    let s = string_arg(v)?;
    gourl::parse_request_uri(s).map_err(|e| EvalError::msg(format!("{PARSE_ERROR}: {e}")))?;
    let u = gourl::parse(s).map_err(|e| EvalError::msg(format!("{PARSE_ERROR}: {e}")))?;
    Ok(Value::Opaque(Arc::new(UrlValue(u))))
}

/// `isURL(string)`.
pub fn is_url(v: &Value) -> EvalResult {
    Ok(Value::Bool(
        gourl::parse_request_uri(string_arg(v)?).is_ok(),
    ))
}

fn url(v: &Value) -> EvalResult<&Url> {
    Ok(&opaque_arg::<UrlValue>(v)?.0)
}

/// `u.getScheme()`.
pub fn get_scheme(v: &Value) -> EvalResult {
    Ok(Value::from(url(v)?.scheme.as_str()))
}

/// `u.getHost()`: with port and IPv6 brackets.
pub fn get_host(v: &Value) -> EvalResult {
    Ok(Value::from(url(v)?.host.as_str()))
}

/// `u.getHostname()`: without port and brackets.
pub fn get_hostname(v: &Value) -> EvalResult {
    Ok(Value::from(url(v)?.hostname()))
}

/// `u.getPort()`.
pub fn get_port(v: &Value) -> EvalResult {
    Ok(Value::from(url(v)?.port()))
}

/// `u.getEscapedPath()`.
pub fn get_escaped_path(v: &Value) -> EvalResult {
    Ok(Value::from(url(v)?.escaped_path()))
}

/// `u.getQuery()`: `map(string, list(string))`.
pub fn get_query(v: &Value) -> EvalResult {
    let mut m = IndexMap::new();
    for (k, vals) in url(v)?.query() {
        m.insert(
            Key::String(k.into()),
            Value::list(vals.into_iter().map(Value::from).collect()),
        );
    }
    Ok(Value::Map(m.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_functions() {
        let u = string_to_url(&Value::from("https://example.com:80/a?k=v#f")).unwrap();
        assert!(matches!(get_host(&u), Ok(Value::String(s)) if &*s == "example.com:80"));
        assert!(matches!(get_port(&u), Ok(Value::String(s)) if &*s == "80"));
        assert!(matches!(get_escaped_path(&u), Ok(Value::String(s)) if &*s == "/a"));
        assert_eq!(
            string_to_url(&Value::from("../relative"))
                .unwrap_err()
                .message(),
            "URL parse error during conversion from string: parse \"../relative\": invalid URI for request"
        );
        assert!(matches!(
            is_url(&Value::from("/absolute-path")),
            Ok(Value::Bool(true))
        ));
        let a = string_to_url(&Value::from("https://x.b")).unwrap();
        let b = string_to_url(&Value::from("https://x.b")).unwrap();
        assert!(a.equals(&b));
    }
}
