//! Kubernetes' JSONPatch library (`library/jsonpatch.go`,
//! `kubernetes.jsonpatch`): `jsonpatch.escapeKey(<string>) <string>` escapes
//! a key for a JSON Patch path (`~` → `~0`, `/` → `~1`). Kubernetes offers it
//! in MutatingAdmissionPolicy environments, not in CRD rules.

use cel::{EnvBuilder, EvalResult, FnImpl, Function, Library, Overload, Type, Value};

use super::common::string_arg;

/// The JSONPatch library.
#[derive(Clone, Copy, Debug, Default)]
pub struct JsonPatch;

impl Library for JsonPatch {
    fn install(&self, env: &mut EnvBuilder) {
        env.add_function(
            Function::new("jsonpatch.escapeKey").overload(Overload::global(
                "string_jsonpatch_escapeKey_string",
                vec![Type::String],
                Type::String,
                Some(FnImpl::Unary(escape_key)),
            )),
        );
    }
}

/// `jsonpatch.escapeKey(k)`: RFC 6901 escaping in one pass (Go's
/// `strings.NewReplacer("/", "~1", "~", "~0")`).
pub fn escape_key(k: &Value) -> EvalResult {
    let k = string_arg(k)?;
    let mut out = String::with_capacity(k.len());
    for c in k.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
    Ok(Value::from(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_tilde_and_slash_once() {
        let got = escape_key(&Value::from("a/b~c~1")).unwrap();
        assert!(matches!(got, Value::String(s) if &*s == "a~1b~0c~01"));
        assert!(escape_key(&Value::Int(1)).is_err());
    }
}
