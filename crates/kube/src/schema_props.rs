//! `JSONSchemaProps` of `apiextensions.k8s.io/v1`: the OpenAPI v3 schema of a CRD version, with
//! every field Kubernetes has, including the `x-kubernetes-*` extensions.
//!
//! Decoding follows Kubernetes' JSON decoding (`sigs.k8s.io/json`): field names are
//! case-sensitive, unknown fields are ignored, and `null` for any field means "not set" (Go's zero
//! value), never an error. Property maps keep their order of appearance.

use indexmap::IndexMap;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A map of a schema keyword (`properties`, `patternProperties`, `dependencies`,
/// `definitions`), in order of appearance, hashed with `foldhash`: its keys come from the CRD,
/// and every walk over an object looks each field up in one.
pub type SchemaMap<V> = IndexMap<String, V, foldhash::fast::RandomState>;

/// Up to how many keys [`SchemaLookup`] searches a [`SchemaMap`] in order: comparing a few keys
/// costs less than hashing one (most schema nodes declare a handful of properties).
const LINEAR_LOOKUP_MAX: usize = 8;

/// Lookups in a [`SchemaMap`] for the walks that look up every field of an object: small maps
/// are searched in order, larger ones hashed.
pub trait SchemaLookup<V> {
    /// The value under `key`.
    fn lookup(&self, key: &str) -> Option<&V>;
    /// The position of `key`.
    fn lookup_index(&self, key: &str) -> Option<usize>;
}

impl<V> SchemaLookup<V> for SchemaMap<V> {
    fn lookup(&self, key: &str) -> Option<&V> {
        if self.len() <= LINEAR_LOOKUP_MAX {
            self.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
        } else {
            self.get(key)
        }
    }

    fn lookup_index(&self, key: &str) -> Option<usize> {
        if self.len() <= LINEAR_LOOKUP_MAX {
            self.keys().position(|k| k == key)
        } else {
            self.get_index_of(key)
        }
    }
}

/// One schema node.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct JsonSchemaProps {
    /// `id`.
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "nullable")]
    pub id: Option<String>,
    #[serde(
        rename = "$schema",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "nullable"
    )]
    /// `$schema`.
    pub schema: Option<String>,
    #[serde(
        rename = "$ref",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "nullable"
    )]
    /// `$ref` (forbidden in CRDs).
    pub ref_: Option<String>,
    /// `description`.
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "nullable")]
    pub description: Option<String>,
    /// `object`, `array`, `string`, `integer`, `number`, `boolean`, or empty.
    #[serde(
        rename = "type",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "nullable"
    )]
    pub type_: Option<String>,
    /// `format`.
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "nullable")]
    pub format: Option<String>,
    /// `title`.
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "nullable")]
    pub title: Option<String>,
    /// The default value; `Some(Value::Null)` is an explicit `default: null`.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "json_value"
    )]
    pub default: Option<Value>,
    /// `maximum`.
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "nullable")]
    pub maximum: Option<f64>,
    #[serde(
        rename = "exclusiveMaximum",
        skip_serializing_if = "is_false",
        deserialize_with = "nullable"
    )]
    /// `exclusiveMaximum`.
    pub exclusive_maximum: bool,
    /// `minimum`.
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "nullable")]
    pub minimum: Option<f64>,
    #[serde(
        rename = "exclusiveMinimum",
        skip_serializing_if = "is_false",
        deserialize_with = "nullable"
    )]
    /// `exclusiveMinimum`.
    pub exclusive_minimum: bool,
    #[serde(
        rename = "maxLength",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "nullable"
    )]
    /// `maxLength`.
    pub max_length: Option<i64>,
    #[serde(
        rename = "minLength",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "nullable"
    )]
    /// `minLength`.
    pub min_length: Option<i64>,
    /// `pattern` (a Go regular expression).
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "nullable")]
    pub pattern: Option<String>,
    #[serde(
        rename = "maxItems",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "nullable"
    )]
    /// `maxItems`.
    pub max_items: Option<i64>,
    #[serde(
        rename = "minItems",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "nullable"
    )]
    /// `minItems`.
    pub min_items: Option<i64>,
    #[serde(
        rename = "uniqueItems",
        skip_serializing_if = "is_false",
        deserialize_with = "nullable"
    )]
    /// `uniqueItems` (forbidden in CRDs).
    pub unique_items: bool,
    #[serde(
        rename = "multipleOf",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "nullable"
    )]
    /// `multipleOf`.
    pub multiple_of: Option<f64>,
    #[serde(
        rename = "enum",
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    /// `enum`.
    pub enum_: Vec<Value>,
    #[serde(
        rename = "maxProperties",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "nullable"
    )]
    /// `maxProperties`.
    pub max_properties: Option<i64>,
    #[serde(
        rename = "minProperties",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "nullable"
    )]
    /// `minProperties`.
    pub min_properties: Option<i64>,
    /// `required`.
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "nullable")]
    pub required: Vec<String>,
    /// `items`.
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "nullable")]
    pub items: Option<SchemaOrArray>,
    #[serde(
        rename = "allOf",
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    /// `allOf`.
    pub all_of: Vec<JsonSchemaProps>,
    #[serde(
        rename = "oneOf",
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    /// `oneOf`.
    pub one_of: Vec<JsonSchemaProps>,
    #[serde(
        rename = "anyOf",
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    /// `anyOf`.
    pub any_of: Vec<JsonSchemaProps>,
    /// `not`.
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "nullable")]
    pub not: Option<Box<JsonSchemaProps>>,
    #[serde(
        skip_serializing_if = "IndexMap::is_empty",
        deserialize_with = "nullable"
    )]
    /// `properties`.
    pub properties: SchemaMap<JsonSchemaProps>,
    #[serde(
        rename = "additionalProperties",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "nullable"
    )]
    /// `additionalProperties`.
    pub additional_properties: Option<SchemaOrBool>,
    #[serde(
        rename = "patternProperties",
        skip_serializing_if = "IndexMap::is_empty",
        deserialize_with = "nullable"
    )]
    /// `patternProperties` (forbidden in CRDs).
    pub pattern_properties: SchemaMap<JsonSchemaProps>,
    #[serde(
        skip_serializing_if = "IndexMap::is_empty",
        deserialize_with = "nullable"
    )]
    /// `dependencies`.
    pub dependencies: SchemaMap<SchemaOrStringArray>,
    #[serde(
        rename = "additionalItems",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "nullable"
    )]
    /// `additionalItems` (forbidden in CRDs).
    pub additional_items: Option<SchemaOrBool>,
    #[serde(
        skip_serializing_if = "IndexMap::is_empty",
        deserialize_with = "nullable"
    )]
    /// `definitions` (forbidden in CRDs).
    pub definitions: SchemaMap<JsonSchemaProps>,
    #[serde(
        rename = "externalDocs",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "nullable"
    )]
    /// `externalDocs`.
    pub external_docs: Option<ExternalDocumentation>,
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "json_value"
    )]
    /// `example`.
    pub example: Option<Value>,
    /// `nullable`.
    #[serde(skip_serializing_if = "is_false", deserialize_with = "nullable")]
    pub nullable: bool,
    /// `x-kubernetes-preserve-unknown-fields`; `Some(false)` is kept because Kubernetes rejects it.
    #[serde(
        rename = "x-kubernetes-preserve-unknown-fields",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "nullable"
    )]
    pub x_preserve_unknown_fields: Option<bool>,
    #[serde(
        rename = "x-kubernetes-embedded-resource",
        skip_serializing_if = "is_false",
        deserialize_with = "nullable"
    )]
    /// `x-kubernetes-embedded-resource`.
    pub x_embedded_resource: bool,
    #[serde(
        rename = "x-kubernetes-int-or-string",
        skip_serializing_if = "is_false",
        deserialize_with = "nullable"
    )]
    /// `x-kubernetes-int-or-string`.
    pub x_int_or_string: bool,
    #[serde(
        rename = "x-kubernetes-list-map-keys",
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    /// `x-kubernetes-list-map-keys`.
    pub x_list_map_keys: Vec<String>,
    /// `atomic`, `set` or `map`.
    #[serde(
        rename = "x-kubernetes-list-type",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "nullable"
    )]
    pub x_list_type: Option<String>,
    /// `atomic` or `granular`.
    #[serde(
        rename = "x-kubernetes-map-type",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "nullable"
    )]
    pub x_map_type: Option<String>,
    #[serde(
        rename = "x-kubernetes-validations",
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "nullable"
    )]
    /// `x-kubernetes-validations`.
    pub x_validations: Vec<ValidationRule>,
}

impl JsonSchemaProps {
    /// The schemas directly below this one, under every keyword that holds schemas
    /// (`properties`, `patternProperties`, `definitions`, the junctors, `items`,
    /// `additionalProperties`, `additionalItems`, `dependencies`).
    pub fn subschemas(&self) -> impl Iterator<Item = &JsonSchemaProps> {
        let items: &[JsonSchemaProps] = match &self.items {
            Some(SchemaOrArray::Schema(i)) => std::slice::from_ref(i),
            Some(SchemaOrArray::Array(a)) => a,
            None => &[],
        };
        self.properties
            .values()
            .chain(self.pattern_properties.values())
            .chain(self.definitions.values())
            .chain(&self.all_of)
            .chain(&self.any_of)
            .chain(&self.one_of)
            .chain(self.not.as_deref())
            .chain(items)
            .chain(
                [&self.additional_properties, &self.additional_items]
                    .into_iter()
                    .filter_map(|b| b.as_ref().and_then(SchemaOrBool::schema)),
            )
            .chain(self.dependencies.values().filter_map(|d| match d {
                SchemaOrStringArray::Schema(d) => Some(&**d),
                SchemaOrStringArray::Properties(_) => None,
            }))
    }
}

/// One `x-kubernetes-validations` entry.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct ValidationRule {
    /// `rule`: the CEL expression.
    #[serde(deserialize_with = "nullable")]
    pub rule: String,
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    /// `message`.
    pub message: String,
    #[serde(
        rename = "messageExpression",
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    /// `messageExpression`.
    pub message_expression: String,
    /// `FieldValueInvalid` (the default), `FieldValueForbidden`, `FieldValueRequired`,
    /// `FieldValueDuplicate`; other values are rejected by CRD validation, so kept verbatim.
    #[serde(skip_serializing_if = "Option::is_none", deserialize_with = "nullable")]
    pub reason: Option<String>,
    #[serde(
        rename = "fieldPath",
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    /// `fieldPath`.
    pub field_path: String,
    /// Set (true or false) is distinguished from unset: CRD validation rejects a set value on a
    /// rule that does not use `oldSelf`.
    #[serde(
        rename = "optionalOldSelf",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "nullable"
    )]
    pub optional_old_self: Option<bool>,
}

/// `externalDocs`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(default)]
pub struct ExternalDocumentation {
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    /// `description`.
    pub description: String,
    #[serde(
        skip_serializing_if = "String::is_empty",
        deserialize_with = "nullable"
    )]
    /// `url`.
    pub url: String,
}

/// `items`: one schema, or (rejected by Kubernetes, but decodable) an array of schemas.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SchemaOrArray {
    /// One schema for every item.
    Schema(Box<JsonSchemaProps>),
    /// A schema per position.
    Array(Vec<JsonSchemaProps>),
}

/// `additionalProperties` / `additionalItems`: `true`, `false`, or a schema (which also allows).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SchemaOrBool {
    /// `true` (anything) or `false` (nothing).
    Bool(bool),
    /// A schema.
    Schema(Box<JsonSchemaProps>),
}

impl SchemaOrBool {
    /// The schema, if one was given.
    pub fn schema(&self) -> Option<&JsonSchemaProps> {
        match self {
            SchemaOrBool::Schema(s) => Some(s),
            SchemaOrBool::Bool(_) => None,
        }
    }

    /// Whether additional entries are allowed (a schema allows them).
    pub fn allows(&self) -> bool {
        match self {
            SchemaOrBool::Schema(_) => true,
            SchemaOrBool::Bool(b) => *b,
        }
    }
}

/// A `dependencies` entry: a schema or a list of property names.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SchemaOrStringArray {
    /// A schema the object must also satisfy.
    Schema(Box<JsonSchemaProps>),
    /// Properties the object must also have.
    Properties(Vec<String>),
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Decodes a field where `null` means the zero value, as Go's JSON decoding does.
fn nullable<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// Decodes an arbitrary JSON value where presence matters (`default: null` is a null default).
fn json_value<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl<'de> Deserialize<'de> for SchemaOrArray {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SchemaOrArray;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a schema object or an array of schemas")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                JsonSchemaProps::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|s| SchemaOrArray::Schema(Box::new(s)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                Vec::<JsonSchemaProps>::deserialize(de::value::SeqAccessDeserializer::new(seq))
                    .map(SchemaOrArray::Array)
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for SchemaOrBool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SchemaOrBool;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a boolean or a schema object")
            }
            fn visit_bool<E: de::Error>(self, b: bool) -> Result<Self::Value, E> {
                Ok(SchemaOrBool::Bool(b))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                JsonSchemaProps::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|s| SchemaOrBool::Schema(Box::new(s)))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for SchemaOrStringArray {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SchemaOrStringArray;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a schema object or an array of property names")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                JsonSchemaProps::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(|s| SchemaOrStringArray::Schema(Box::new(s)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                Vec::<String>::deserialize(de::value::SeqAccessDeserializer::new(seq))
                    .map(SchemaOrStringArray::Properties)
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn decodes_extensions_and_nulls() {
        let s: JsonSchemaProps = serde_json::from_value(json!({
            "type": "object",
            "required": null,
            "nullable": null,
            "default": null,
            "properties": {
                "b": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
                "a": {"x-kubernetes-int-or-string": true, "maxLength": 3}
            },
            "additionalProperties": false,
            "x-kubernetes-validations": [
                {"rule": "self.a == 1", "messageExpression": "'x'", "reason": "FieldValueForbidden",
                 "fieldPath": ".a", "optionalOldSelf": false}
            ],
            "unknownField": 1
        }))
        .expect("decodes");
        assert_eq!(s.type_.as_deref(), Some("object"));
        assert_eq!(s.default, Some(Value::Null));
        assert_eq!(s.properties.keys().collect::<Vec<_>>(), ["b", "a"]);
        assert!(matches!(
            s.additional_properties,
            Some(SchemaOrBool::Bool(false))
        ));
        assert!(s.properties["a"].x_int_or_string);
        let items = match &s.properties["b"].items {
            Some(SchemaOrArray::Schema(i)) => i,
            other => panic!("{other:?}"),
        };
        assert_eq!(items.type_.as_deref(), Some("string"));
        assert_eq!(s.x_validations[0].optional_old_self, Some(false));
        assert_eq!(
            s.x_validations[0].reason.as_deref(),
            Some("FieldValueForbidden")
        );
    }

    #[test]
    fn wrong_types_are_errors() {
        let r: Result<JsonSchemaProps, _> = serde_json::from_value(json!({"maxLength": "x"}));
        assert!(r.is_err());
        let r: Result<JsonSchemaProps, _> = serde_json::from_value(json!({"items": 5}));
        assert!(r.is_err());
    }
}
