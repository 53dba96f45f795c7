//! A built-in kind's OpenAPI definition as kcel's schema model: `$ref`s resolved (also when
//! wrapped as `allOf: [{$ref}]`), Kubernetes' special types given their CRD-style forms, and,
//! beside the schema, the Go type of every node ([`GoType`]), which decoding reports errors in.
//!
//! Mirrors kubectl-validate (`pkg/openapiclient`, `pkg/validator/structural.go`,
//! `schema_patcher.go`): `IntOrString` becomes `x-kubernetes-int-or-string`, and a definition
//! reached again inside its own expansion (apiextensions' `JSONSchemaProps`) is not expanded
//! again but accepts any value (`x-kubernetes-preserve-unknown-fields`).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::openapi::ref_name;

/// The named Go types of struct fields that the OpenAPI definitions do not name, by definition
/// and JSON field (`io.k8s.api.core.v1.ContainerPort` → `protocol` → `v1.Protocol`), read by
/// reflection from Kubernetes 1.35's Go types (`tests/gen/builtin_decode -types`).
static GO_TYPES: &str = include_str!("../../data/go_types.json");

fn named_types() -> &'static BTreeMap<String, BTreeMap<String, String>> {
    static TABLE: std::sync::OnceLock<BTreeMap<String, BTreeMap<String, String>>> =
        std::sync::OnceLock::new();
    TABLE.get_or_init(|| serde_json::from_str(GO_TYPES).unwrap_or_default())
}

/// Nesting beyond which a schema is not expanded further (no built-in kind comes near it).
const MAX_CONVERT_DEPTH: usize = 64;

/// The Go type a schema node decodes into (as `encoding/json` names it in its errors).
#[derive(Clone, Debug, PartialEq)]
pub enum GoType {
    /// A struct: its qualified name (`v1.ConfigMap`) and fields by JSON name.
    Struct {
        /// The qualified name (`v1.ConfigMap`).
        name: String,
        /// The fields by JSON name.
        fields: BTreeMap<String, GoType>,
    },
    /// `map[string]T`.
    Map(Box<GoType>),
    /// `[]T`.
    Slice(Box<GoType>),
    /// `string`.
    String,
    /// `[]byte`, base64 in JSON.
    Bytes,
    /// `int32`.
    Int32,
    /// `int64`.
    Int64,
    /// `float64`.
    Float64,
    /// `bool`.
    Bool,
    /// `intstr.IntOrString`.
    IntOrString,
    /// `resource.Quantity`.
    Quantity,
    /// `v1.Time`, `v1.MicroTime`: an RFC 3339 string.
    Time,
    /// Anything (`runtime.RawExtension`, `apiextensions JSON`, recursive definitions).
    Any,
    /// A named Go type the definitions do not name (`v1.Protocol`), over the type it is.
    Named {
        /// The type's qualified name (`v1.Protocol`).
        name: String,
        /// The type it is defined as.
        inner: Box<GoType>,
    },
}

impl GoType {
    /// The type's name in Go (`reflect.Type.String()`).
    pub fn go_name(&self) -> String {
        match self {
            GoType::Struct { name, .. } => name.clone(),
            GoType::Map(v) => format!("map[string]{}", v.go_name()),
            GoType::Slice(v) => format!("[]{}", v.go_name()),
            GoType::String => "string".into(),
            GoType::Bytes => "[]uint8".into(),
            GoType::Int32 => "int32".into(),
            GoType::Int64 => "int64".into(),
            GoType::Float64 => "float64".into(),
            GoType::Bool => "bool".into(),
            GoType::IntOrString => "intstr.IntOrString".into(),
            GoType::Quantity => "resource.Quantity".into(),
            GoType::Time => "v1.Time".into(),
            GoType::Any => "interface {}".into(),
            GoType::Named { name, .. } => name.clone(),
        }
    }
}

/// A converted kind: the CRD-style schema (JSON, as `openAPIV3Schema` holds it) and its Go
/// types.
pub struct Converted {
    /// The CRD-style schema (`openAPIV3Schema`'s JSON).
    pub schema: Value,
    /// The Go type of the kind's root.
    pub go_type: GoType,
}

/// `io.k8s.api.core.v1.ConfigMap` → `v1.ConfigMap` (package name and type name).
pub fn go_struct_name(definition: &str) -> String {
    let mut parts = definition.rsplit('.');
    let name = parts.next().unwrap_or(definition);
    match parts.next() {
        Some(package) => format!("{package}.{name}"),
        None => name.to_string(),
    }
}

struct Converter<'a> {
    definitions: &'a BTreeMap<String, Value>,
    /// The definitions being expanded (outermost first).
    stack: Vec<String>,
}

fn any() -> (Value, GoType) {
    (
        json!({"x-kubernetes-preserve-unknown-fields": true}),
        GoType::Any,
    )
}

/// The referenced definition of a node that is only a reference (`$ref`, or `allOf` with a
/// single `$ref`), and the node's other keys.
fn reference(node: &Map<String, Value>) -> Option<(&str, Map<String, Value>)> {
    if let Some(r) = node.get("$ref").and_then(Value::as_str) {
        let rest = node.iter().filter(|(k, _)| *k != "$ref");
        return Some((
            ref_name(r)?,
            rest.map(|(k, v)| (k.clone(), v.clone())).collect(),
        ));
    }
    let all_of = node.get("allOf")?.as_array()?;
    let [only] = all_of.as_slice() else {
        return None;
    };
    let only = only.as_object()?;
    if only.len() != 1 {
        return None;
    }
    let r = only.get("$ref")?.as_str()?;
    let rest = node.iter().filter(|(k, _)| *k != "allOf");
    Some((
        ref_name(r)?,
        rest.map(|(k, v)| (k.clone(), v.clone())).collect(),
    ))
}

impl Converter<'_> {
    fn definition(&mut self, name: &str, depth: usize) -> (Value, GoType) {
        match name {
            "io.k8s.apimachinery.pkg.util.intstr.IntOrString" => {
                return (
                    json!({"x-kubernetes-int-or-string": true}),
                    GoType::IntOrString,
                );
            }
            "io.k8s.apimachinery.pkg.api.resource.Quantity" => {
                return (json!({}), GoType::Quantity);
            }
            "io.k8s.apimachinery.pkg.apis.meta.v1.Time"
            | "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime" => {
                return (
                    json!({"type": "string", "format": "date-time"}),
                    GoType::Time,
                );
            }
            _ => {}
        }
        if self.stack.iter().any(|s| s == name) || depth > MAX_CONVERT_DEPTH {
            return any();
        }
        let Some(def) = self.definitions.get(name).and_then(Value::as_object) else {
            return any();
        };
        self.stack.push(name.to_string());
        let (schema, go_type) = self.node(def, depth + 1, Some(name));
        self.stack.pop();
        (schema, go_type)
    }

    /// Converts one schema node; `definition` names it when it is a definition's root.
    fn node(
        &mut self,
        node: &Map<String, Value>,
        depth: usize,
        definition: Option<&str>,
    ) -> (Value, GoType) {
        if depth > MAX_CONVERT_DEPTH {
            return any();
        }
        if let Some((name, rest)) = reference(node) {
            let (mut schema, go_type) = self.definition(name, depth);
            if let Value::Object(m) = &mut schema {
                for (k, v) in rest {
                    m.insert(k, v);
                }
            }
            return (schema, go_type);
        }
        let format = node.get("format").and_then(Value::as_str).unwrap_or("");
        if format == "int-or-string" {
            return (
                json!({"x-kubernetes-int-or-string": true}),
                GoType::IntOrString,
            );
        }
        let type_ = node.get("type").and_then(Value::as_str).unwrap_or("");
        let mut out = Map::new();
        let mut fields = BTreeMap::new();
        let mut go_type = None;
        for (k, v) in node {
            match (k.as_str(), v) {
                ("properties", Value::Object(props)) => {
                    let mut converted = Map::new();
                    let named = definition.and_then(|d| named_types().get(d));
                    for (field, schema) in props {
                        let Some(s) = schema.as_object() else {
                            continue;
                        };
                        let (s, t) = self.node(s, depth + 1, None);
                        let t = match named.and_then(|n| n.get(field)) {
                            Some(name) => GoType::Named {
                                name: name.clone(),
                                inner: Box::new(t),
                            },
                            None => t,
                        };
                        fields.insert(field.clone(), t);
                        converted.insert(field.clone(), s);
                    }
                    out.insert(k.clone(), Value::Object(converted));
                }
                ("items", Value::Object(items)) => {
                    let (s, t) = self.node(items, depth + 1, None);
                    go_type = Some(if format == "byte" {
                        GoType::Bytes
                    } else {
                        GoType::Slice(Box::new(t))
                    });
                    out.insert(k.clone(), s);
                }
                ("additionalProperties", Value::Object(values)) => {
                    let (s, t) = self.node(values, depth + 1, None);
                    go_type = Some(GoType::Map(Box::new(t)));
                    out.insert(k.clone(), s);
                }
                ("allOf" | "oneOf" | "anyOf" | "not", _) => {}
                // Base64 is Go's decoding's concern (`decode`), with its own texts.
                ("format", Value::String(f)) if f == "byte" => {}
                _ => {
                    out.insert(k.clone(), v.clone());
                }
            }
        }
        let go_type = match go_type {
            Some(t) => t,
            None if !fields.is_empty() || type_ == "object" && definition.is_some() => {
                let name = definition.map_or_else(String::new, go_struct_name);
                GoType::Struct { name, fields }
            }
            None => match (type_, format) {
                ("string", "byte") => GoType::Bytes,
                ("string", _) => GoType::String,
                ("integer", "int32") => GoType::Int32,
                ("integer", _) => GoType::Int64,
                ("number", _) => GoType::Float64,
                ("boolean", _) => GoType::Bool,
                _ => GoType::Any,
            },
        };
        // An object whose fields the schema does not list (`FieldsV1`, `JSON`, untyped nodes)
        // keeps them: Go decodes such values with their own unmarshallers.
        let open = !out.contains_key("properties") && !out.contains_key("additionalProperties");
        if open && (type_ == "object" || type_.is_empty()) && go_type == GoType::Any {
            out.insert(
                "x-kubernetes-preserve-unknown-fields".into(),
                Value::Bool(true),
            );
        }
        if open && type_ == "object" && matches!(go_type, GoType::Struct { .. }) {
            out.insert(
                "x-kubernetes-preserve-unknown-fields".into(),
                Value::Bool(true),
            );
        }
        (Value::Object(out), go_type)
    }
}

/// Converts the definition `root` of `definitions`.
pub fn convert(definitions: &BTreeMap<String, Value>, root: &str) -> Converted {
    let mut c = Converter {
        definitions,
        stack: Vec::new(),
    };
    let (schema, go_type) = c.definition(root, 0);
    Converted { schema, go_type }
}
