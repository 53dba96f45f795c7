//! The CEL types of mutation expressions (`k8s.io/apiserver/pkg/cel/mutation`): `JSONPatch`
//! (`jsonpatch.go`: fields `op`, `path`, `from` of type string and `value` of type dyn) and the
//! dynamic `Object` types (`dynamic/objects.go`: `Object`, `Object.spec`, `Object.spec.x`, ...,
//! any field name, every field `dyn`), resolved by name as `DynamicTypeResolver` resolves them.
//!
//! Values: [`JsonPatchVal`] and [`ObjectVal`], opaque values of the engine.

use std::any::Any;
use std::collections::BTreeMap;
use std::sync::Arc;

use cel::checker::TypeProvider;
use cel::go::fmt::quote;
use cel::value::Opaque;
use cel::{EvalError, EvalResult, Type, Value};

/// `JSONPatchTypeName`.
pub const JSON_PATCH_TYPE: &str = "JSONPatch";
/// `ObjectTypeName`.
pub const OBJECT_TYPE: &str = "Object";

const OP: &str = "op";
const PATH: &str = "path";
const FROM: &str = "from";
const VALUE: &str = "value";

/// The patch types of mutation expressions (`OptionalVariableDeclarations.HasPatchTypes`):
/// `JSONPatch` and `Object[.<field>...]`, as `DynamicTypeResolver` resolves them. The admission
/// environment ([`crate::admission::environment`]) asks it for these names when a mutation is
/// compiled.
#[derive(Clone, Copy, Debug, Default)]
pub struct PatchTypes;

/// Whether `name` is one of the dynamic object types.
pub fn is_object_type(name: &str) -> bool {
    name == OBJECT_TYPE
        || name
            .strip_prefix(OBJECT_TYPE)
            .is_some_and(|rest| rest.starts_with('.'))
}

impl PatchTypes {
    /// Whether `name` is a patch type.
    pub fn declares(name: &str) -> bool {
        name == JSON_PATCH_TYPE || is_object_type(name)
    }
}

impl TypeProvider for PatchTypes {
    fn find_type(&self, name: &str) -> Option<Type> {
        PatchTypes::declares(name).then(|| Type::Object(name.into()))
    }

    fn field_type(&self, type_name: &str, field: &str) -> Option<Type> {
        if type_name == JSON_PATCH_TYPE {
            return match field {
                OP | PATH | FROM => Some(Type::String),
                VALUE => Some(Type::Dyn),
                _ => None,
            };
        }
        is_object_type(type_name).then_some(Type::Dyn)
    }

    fn field_names(&self, type_name: &str) -> Vec<String> {
        if type_name == JSON_PATCH_TYPE {
            return [OP, FROM, PATH, VALUE].map(String::from).to_vec();
        }
        Vec::new()
    }

    fn new_object(&self, type_name: &str, fields: &[(&str, Value)]) -> Option<EvalResult> {
        if type_name == JSON_PATCH_TYPE {
            return Some(JsonPatchVal::new(fields).map(|p| Value::Opaque(Arc::new(p))));
        }
        if !is_object_type(type_name) {
            return None;
        }
        let fields = fields
            .iter()
            .map(|(k, v)| ((*k).to_string(), v.clone()))
            .collect();
        Some(Ok(Value::Opaque(Arc::new(ObjectVal {
            type_name: type_name.to_string(),
            fields,
        }))))
    }
}

/// A `JSONPatch{...}` value (`JSONPatchVal`): unset strings are empty, an unset value absent.
#[derive(Clone, Debug, Default)]
pub struct JsonPatchVal {
    /// `op` (`JSONPatchVal.Op`).
    pub op: String,
    /// `path` (`JSONPatchVal.Path`).
    pub path: String,
    /// `from` (`JSONPatchVal.From`).
    pub from: String,
    /// `value` (`JSONPatchVal.Val`), absent when unset.
    pub value: Option<Value>,
}

impl JsonPatchVal {
    /// `JSONPatchType.Val`: the string fields must hold strings.
    fn new(fields: &[(&str, Value)]) -> EvalResult<JsonPatchVal> {
        let mut p = JsonPatchVal::default();
        for (name, value) in fields {
            let slot = match *name {
                OP => &mut p.op,
                PATH => &mut p.path,
                FROM => &mut p.from,
                VALUE => {
                    p.value = Some(value.clone());
                    continue;
                }
                other => {
                    return Err(EvalError::msg(format!(
                        "unexpected JSONPatchType field: {other}"
                    )));
                }
            };
            match value {
                Value::String(s) => *slot = s.to_string(),
                other => {
                    return Err(EvalError::msg(format!(
                        "unexpected type {} for JSONPatchType '{name}' field",
                        go_native_type(other)
                    )));
                }
            }
        }
        Ok(p)
    }
}

/// The Go type of a CEL value's `Value()`, as `%T` prints it.
fn go_native_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "structpb.NullValue",
        Value::Bool(_) => "bool",
        Value::Int(_) => "int64",
        Value::Uint(_) => "uint64",
        Value::Double(_) => "float64",
        Value::String(_) => "string",
        Value::Bytes(_) => "[]uint8",
        Value::List(_) => "[]ref.Val",
        Value::Map(_) => "map[ref.Val]ref.Val",
        Value::Timestamp(_) => "time.Time",
        Value::Duration(_) => "time.Duration",
        _ => "ref.Val",
    }
}

impl Opaque for JsonPatchVal {
    fn type_name(&self) -> &str {
        JSON_PATCH_TYPE
    }

    fn runtime_type(&self) -> Type {
        Type::Object(JSON_PATCH_TYPE.into())
    }

    /// `JSONPatchVal.Equal`.
    fn equals(&self, other: &dyn Opaque) -> bool {
        let Some(o) = other.as_any().downcast_ref::<JsonPatchVal>() else {
            return false;
        };
        self.op == o.op
            && self.from == o.from
            && self.path == o.path
            && match (&self.value, &o.value) {
                (None, None) => true,
                (Some(a), Some(b)) => a.equals(b),
                _ => false,
            }
    }

    /// `JSONPatchVal.Get`.
    fn select(&self, name: &str) -> Option<EvalResult> {
        Some(match name {
            OP => Ok(Value::from(self.op.as_str())),
            PATH => Ok(Value::from(self.path.as_str())),
            FROM => Ok(Value::from(self.from.as_str())),
            VALUE => self
                .value
                .clone()
                .ok_or_else(|| EvalError::msg("no such key: value")),
            other => Err(EvalError::msg(format!("unsupported indexer: {other}"))),
        })
    }

    /// `JSONPatchVal.IsSet`: strings are set when non-empty.
    fn has(&self, name: &str) -> Option<EvalResult<bool>> {
        Some(match name {
            OP => Ok(!self.op.is_empty()),
            PATH => Ok(!self.path.is_empty()),
            FROM => Ok(!self.from.is_empty()),
            VALUE => Ok(self.value.is_some()),
            other => Err(EvalError::msg(format!("unsupported field: {other}"))),
        })
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// An `Object...{...}` value (`ObjectVal`): its type name and fields.
#[derive(Clone, Debug)]
pub struct ObjectVal {
    /// The type name (`Object.spec.containers`, …).
    pub type_name: String,
    /// The fields set, by name.
    pub fields: BTreeMap<String, Value>,
}

impl ObjectVal {
    /// `CheckTypeNamesMatchFieldPathNames`: every nested object's type name is its field path
    /// from this one (`Object.spec.template`), lists and maps being transparent. Errors in
    /// field order.
    pub fn check_type_names(&self) -> Vec<String> {
        let mut errors = Vec::new();
        let mut path = vec![self.type_name.clone()];
        type_check(
            &Value::Opaque(Arc::new(self.clone())),
            &mut path,
            &mut errors,
            0,
        );
        errors
    }

    /// `ObjectVal.ConvertToNative` to `map[string]any`, as JSON.
    pub fn to_json_object(&self) -> EvalResult<serde_json::Value> {
        let mut out = serde_json::Map::new();
        for (k, v) in &self.fields {
            let converted = v
                .to_json()
                .map_err(|e| EvalError::msg(format!("fail to convert field {}: {e}", quote(k))))?;
            out.insert(k.clone(), converted);
        }
        Ok(serde_json::Value::Object(out))
    }
}

/// The nesting limit of [`ObjectVal::check_type_names`] (values built by expressions are
/// bounded by the parser's nesting limit well below it).
const MAX_TYPE_CHECK_DEPTH: usize = 1000;

fn type_check(v: &Value, path: &mut Vec<String>, errors: &mut Vec<String>, depth: usize) {
    if depth > MAX_TYPE_CHECK_DEPTH {
        return;
    }
    match v {
        Value::Opaque(o) => {
            let Some(ov) = o.as_any().downcast_ref::<ObjectVal>() else {
                return;
            };
            let expected = path.join(".");
            if ov.type_name != expected {
                errors.push(format!(
                    "unexpected type name {}, expected {}, which matches field name path from root Object type",
                    quote(&ov.type_name),
                    quote(&expected)
                ));
            }
            for (k, f) in &ov.fields {
                path.push(k.clone());
                type_check(f, path, errors, depth + 1);
                path.pop();
            }
        }
        Value::List(l) => {
            for e in l.iter() {
                type_check(&e, path, errors, depth + 1);
            }
        }
        Value::Map(m) => {
            for (_, e) in m.entries() {
                type_check(&e, path, errors, depth + 1);
            }
        }
        _ => {}
    }
}

impl Opaque for ObjectVal {
    fn type_name(&self) -> &str {
        &self.type_name
    }

    fn runtime_type(&self) -> Type {
        Type::Object(self.type_name.as_str().into())
    }

    /// `ObjectVal.Equal`: same type name, same fields.
    fn equals(&self, other: &dyn Opaque) -> bool {
        let Some(o) = other.as_any().downcast_ref::<ObjectVal>() else {
            return false;
        };
        self.type_name == o.type_name
            && self.fields.len() == o.fields.len()
            && self
                .fields
                .iter()
                .zip(&o.fields)
                .all(|((ka, va), (kb, vb))| ka == kb && va.equals(vb))
    }

    fn select(&self, name: &str) -> Option<EvalResult> {
        Some(
            self.fields
                .get(name)
                .cloned()
                .ok_or_else(|| EvalError::msg(format!("no such key: {name}"))),
        )
    }

    fn has(&self, name: &str) -> Option<EvalResult<bool>> {
        Some(Ok(self.fields.contains_key(name)))
    }

    /// `IsZeroValue`: no fields.
    fn is_zero(&self) -> bool {
        self.fields.is_empty()
    }

    fn to_json(&self) -> Option<EvalResult<serde_json::Value>> {
        Some(self.to_json_object())
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_object_and_json_patch_names() {
        let t = PatchTypes;
        assert!(t.find_type("Object.spec.x").is_some());
        assert!(t.find_type("Objects").is_none());
        assert_eq!(t.field_type("JSONPatch", "op"), Some(Type::String));
        assert_eq!(t.field_type("Object.spec", "anything"), Some(Type::Dyn));
        let err = t
            .new_object("JSONPatch", &[("op", Value::Int(1))])
            .unwrap()
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "unexpected type int64 for JSONPatchType 'op' field"
        );
    }

    #[test]
    fn type_names_follow_field_paths() {
        let inner = ObjectVal {
            type_name: "Object.specx".into(),
            fields: BTreeMap::new(),
        };
        let root = ObjectVal {
            type_name: "Object".into(),
            fields: [("spec".to_string(), Value::Opaque(Arc::new(inner)))].into(),
        };
        assert_eq!(
            root.check_type_names(),
            vec![
                "unexpected type name \"Object.specx\", expected \"Object.spec\", which matches field name path from root Object type"
            ]
        );
    }
}
