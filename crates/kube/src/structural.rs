//! Structural schemas (Kubernetes `apiextensions-apiserver/pkg/apiserver/schema`).
//!
//! A structural schema is the typed skeleton of a [`JsonSchemaProps`]: `type`, `properties`,
//! `items`, `additionalProperties`, the generic keywords (`description`, `title`, `default`,
//! `nullable`) and the `x-kubernetes-*` extensions. Everything that only constrains values
//! (`format`, bounds, `pattern`, `enum`, `required`, the junctors `allOf`/`anyOf`/`oneOf`/`not`)
//! is kept aside in [`ValueValidation`]. Children sit behind `Arc` so that typed views of a
//! document ([`crate::values`]) hand out sub-schemas without copying.
//!
//! Fields that structural schemas forbid (`$ref`, `patternProperties`, `dependencies`,
//! `additionalItems`, `definitions`, `id`, `$schema`) are dropped here; reporting them is CRD
//! validation's job. An `items` array cannot be represented and is an error.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;

use crate::schema_props::{
    JsonSchemaProps, SchemaMap, SchemaOrArray, SchemaOrBool, ValidationRule,
};

/// How deep schemas may nest (schema levels, not JSON levels).
///
/// Decoding and converting a schema recurses once per level; 100 levels stay well inside a 2 MiB
/// thread stack even in debug builds (real CRDs nest fewer than 40 JSON levels).
pub const MAX_SCHEMA_DEPTH: usize = 100;

/// `maxLength` Kubernetes (1.37) gives the injected `metadata.name` for cost estimation.
pub const METADATA_NAME_MAX_LENGTH: i64 = 253;
/// `maxLength` Kubernetes (1.37) gives the injected `metadata.generateName`.
pub const METADATA_GENERATE_NAME_MAX_LENGTH: i64 = 252;

/// A structural schema node.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Structural {
    /// Keywords every node has.
    pub generic: Generic,
    /// `properties`.
    /// `properties` (hashed with `foldhash`: looked up for every field a rule or a CEL value reads).
    pub properties: SchemaMap<Arc<Structural>>,
    /// `items`.
    pub items: Option<Arc<Structural>>,
    /// `additionalProperties`.
    pub additional_properties: Option<AdditionalProperties>,
    /// The `x-kubernetes-*` extensions.
    pub extensions: Extensions,
    /// The value validations (the keywords a structural schema keeps outside its shape).
    pub value_validation: Option<Box<ValueValidation>>,
    /// What `type` and `format` make of the node's values as CEL reads them, computed when
    /// the node is built (`values::to_value` reads it for every field it converts).
    cel_kind: CelKind,
}

/// How CEL reads the values of a schema node: its `type`, and for strings the `format`s
/// Kubernetes converts (apiserver `pkg/cel/common/values.go`, `UnstructuredToVal`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CelKind {
    /// No `type`.
    #[default]
    Untyped,
    /// `object`.
    Object,
    /// `array`.
    Array,
    /// `string` of no converted format.
    String,
    /// `string` of format `duration`.
    Duration,
    /// `string` of format `date`.
    Date,
    /// `string` of format `date-time`.
    DateTime,
    /// `string` of format `byte`.
    Byte,
    /// `number`.
    Number,
    /// `integer`.
    Integer,
    /// `boolean`.
    Boolean,
    /// Any other `type`.
    Other,
}

impl CelKind {
    /// The kind of a node of type `type_` and format `format`.
    fn of(type_: &str, format: &str) -> CelKind {
        match type_ {
            "" => CelKind::Untyped,
            "object" => CelKind::Object,
            "array" => CelKind::Array,
            "string" => match format {
                "duration" => CelKind::Duration,
                "date" => CelKind::Date,
                "date-time" => CelKind::DateTime,
                "byte" => CelKind::Byte,
                _ => CelKind::String,
            },
            "number" => CelKind::Number,
            "integer" => CelKind::Integer,
            "boolean" => CelKind::Boolean,
            _ => CelKind::Other,
        }
    }
}

/// The generic keywords.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Generic {
    /// `object`, `array`, `string`, `integer`, `number`, `boolean`, or empty.
    pub type_: String,
    /// `description`.
    pub description: String,
    /// `title`.
    pub title: String,
    /// `default`.
    pub default: Option<Value>,
    /// `nullable`.
    pub nullable: bool,
}

/// `additionalProperties` as structural schemas have it.
#[derive(Clone, Debug, PartialEq)]
pub enum AdditionalProperties {
    /// `true` or `false`.
    Bool(bool),
    /// A schema.
    Schema(Arc<Structural>),
}

/// The `x-kubernetes-*` extensions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Extensions {
    /// `x-kubernetes-preserve-unknown-fields`.
    pub preserve_unknown_fields: bool,
    /// `x-kubernetes-embedded-resource`.
    pub embedded_resource: bool,
    /// `x-kubernetes-int-or-string`.
    pub int_or_string: bool,
    /// `x-kubernetes-list-map-keys`.
    pub list_map_keys: Vec<String>,
    /// `x-kubernetes-list-type`.
    pub list_type: Option<String>,
    /// `x-kubernetes-map-type`.
    pub map_type: Option<String>,
    /// `x-kubernetes-validations`.
    pub validations: Vec<ValidationRule>,
}

/// The value-only keywords, kept aside.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ValueValidation {
    /// `format`.
    pub format: String,
    /// `maximum`.
    pub maximum: Option<f64>,
    /// `exclusiveMaximum`.
    pub exclusive_maximum: bool,
    /// `minimum`.
    pub minimum: Option<f64>,
    /// `exclusiveMinimum`.
    pub exclusive_minimum: bool,
    /// `maxLength`.
    pub max_length: Option<i64>,
    /// `minLength`.
    pub min_length: Option<i64>,
    /// `pattern`.
    pub pattern: String,
    /// `maxItems`.
    pub max_items: Option<i64>,
    /// `minItems`.
    pub min_items: Option<i64>,
    /// `uniqueItems`.
    pub unique_items: bool,
    /// `multipleOf`.
    pub multiple_of: Option<f64>,
    /// `enum`.
    pub enum_: Vec<Value>,
    /// `maxProperties`.
    pub max_properties: Option<i64>,
    /// `minProperties`.
    pub min_properties: Option<i64>,
    /// `required`.
    pub required: Vec<String>,
    /// `allOf`.
    pub all_of: Vec<JsonSchemaProps>,
    /// `oneOf`.
    pub one_of: Vec<JsonSchemaProps>,
    /// `anyOf`.
    pub any_of: Vec<JsonSchemaProps>,
    /// `not`.
    pub not: Option<Box<JsonSchemaProps>>,
}

/// Why a schema has no structural form. `path` uses the CRD-validation notation
/// (`properties[spec].items`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructuralError {
    /// The schema path (`properties[spec].type`).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for StructuralError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for StructuralError {}

impl Structural {
    /// Converts a schema to its structural form.
    pub fn from_props(props: &JsonSchemaProps) -> Result<Structural, StructuralError> {
        convert(props, "", 0)
    }

    /// The node's `type` (empty when it has none).
    pub fn type_(&self) -> &str {
        &self.generic.type_
    }

    /// How CEL reads the node's values (its `type` and `format`).
    pub fn cel_kind(&self) -> CelKind {
        self.cel_kind
    }

    /// `format` (empty if unset).
    pub fn format(&self) -> &str {
        self.value_validation
            .as_deref()
            .map_or("", |v| v.format.as_str())
    }

    /// `maxLength`, if set.
    pub fn max_length(&self) -> Option<i64> {
        self.value_validation.as_deref().and_then(|v| v.max_length)
    }

    /// `maxItems`, if set.
    pub fn max_items(&self) -> Option<i64> {
        self.value_validation.as_deref().and_then(|v| v.max_items)
    }

    /// `maxProperties`, if set.
    pub fn max_properties(&self) -> Option<i64> {
        self.value_validation
            .as_deref()
            .and_then(|v| v.max_properties)
    }

    /// `enum` values (empty if unset).
    pub fn enum_values(&self) -> &[Value] {
        self.value_validation
            .as_deref()
            .map_or(&[], |v| v.enum_.as_slice())
    }

    /// `required` property names (empty if unset).
    pub fn required(&self) -> &[String] {
        self.value_validation
            .as_deref()
            .map_or(&[], |v| v.required.as_slice())
    }

    /// The `additionalProperties` schema, if it is one.
    pub fn additional_properties_schema(&self) -> Option<&Arc<Structural>> {
        match &self.additional_properties {
            Some(AdditionalProperties::Schema(s)) => Some(s),
            _ => None,
        }
    }

    /// The list type (`atomic` when unset).
    pub fn list_type(&self) -> &str {
        self.extensions.list_type.as_deref().unwrap_or("atomic")
    }

    /// The schema as CEL sees it at a resource root (the custom resource itself, or an
    /// `x-kubernetes-embedded-resource`): `apiVersion` and `kind` (strings) and `metadata` with
    /// only `name` and `generateName` are always present (`WithTypeAndObjectMeta`).
    ///
    /// When the schema already declares all four as strings (and `metadata` as an object) it is
    /// used as is. Otherwise `apiVersion`, `kind` and `metadata` are replaced; since 1.37 the
    /// injected `name`/`generateName` carry `maxLength` 253/252, or the schema's own smaller
    /// `maxLength` (this only matters for cost estimation).
    pub fn with_type_and_object_meta(self: &Arc<Self>) -> Arc<Structural> {
        let is_string = |s: Option<&Arc<Structural>>| s.is_some_and(|s| s.type_() == "string");
        let meta = self.properties.get("metadata");
        let complete = is_string(self.properties.get("kind"))
            && is_string(self.properties.get("apiVersion"))
            && meta.is_some_and(|m| {
                m.type_() == "object"
                    && is_string(m.properties.get("name"))
                    && is_string(m.properties.get("generateName"))
            });
        if complete {
            return self.clone();
        }
        let string = |max: Option<i64>| {
            Arc::new(Structural {
                generic: Generic {
                    type_: "string".into(),
                    ..Generic::default()
                },
                value_validation: max.map(|m| {
                    Box::new(ValueValidation {
                        max_length: Some(m),
                        ..ValueValidation::default()
                    })
                }),
                cel_kind: CelKind::String,
                ..Structural::default()
            })
        };
        let declared_max = |field: &str, cap: i64| {
            let own = meta
                .and_then(|m| m.properties.get(field))
                .and_then(|s| s.max_length());
            Some(own.map_or(cap, |o| o.min(cap)))
        };
        let mut metadata = Structural {
            generic: Generic {
                type_: "object".into(),
                ..Generic::default()
            },
            cel_kind: CelKind::Object,
            ..Structural::default()
        };
        metadata.properties.insert(
            "name".into(),
            string(declared_max("name", METADATA_NAME_MAX_LENGTH)),
        );
        metadata.properties.insert(
            "generateName".into(),
            string(declared_max(
                "generateName",
                METADATA_GENERATE_NAME_MAX_LENGTH,
            )),
        );
        let mut out = (**self).clone();
        out.properties.insert("kind".into(), string(None));
        out.properties.insert("apiVersion".into(), string(None));
        out.properties.insert("metadata".into(), Arc::new(metadata));
        Arc::new(out)
    }
}

fn convert(p: &JsonSchemaProps, path: &str, depth: usize) -> Result<Structural, StructuralError> {
    if depth > MAX_SCHEMA_DEPTH {
        return Err(StructuralError {
            path: path.to_string(),
            message: format!("schema nests deeper than {MAX_SCHEMA_DEPTH} levels"),
        });
    }
    let child = |seg: &str| {
        if path.is_empty() {
            seg.to_string()
        } else {
            format!("{path}.{seg}")
        }
    };
    let items = match &p.items {
        None => None,
        Some(SchemaOrArray::Schema(s)) => Some(Arc::new(convert(s, &child("items"), depth + 1)?)),
        Some(SchemaOrArray::Array(_)) => {
            return Err(StructuralError {
                path: child("items"),
                message: "items must be a schema object and not an array".into(),
            });
        }
    };
    let mut properties =
        SchemaMap::with_capacity_and_hasher(p.properties.len(), Default::default());
    for (name, prop) in &p.properties {
        let s = convert(prop, &child(&format!("properties[{name}]")), depth + 1)?;
        properties.insert(name.clone(), Arc::new(s));
    }
    let additional_properties = match &p.additional_properties {
        None => None,
        Some(SchemaOrBool::Bool(b)) => Some(AdditionalProperties::Bool(*b)),
        Some(SchemaOrBool::Schema(s)) => Some(AdditionalProperties::Schema(Arc::new(convert(
            s,
            &child("additionalProperties"),
            depth + 1,
        )?))),
    };
    let vv = ValueValidation {
        format: p.format.clone().unwrap_or_default(),
        maximum: p.maximum,
        exclusive_maximum: p.exclusive_maximum,
        minimum: p.minimum,
        exclusive_minimum: p.exclusive_minimum,
        max_length: p.max_length,
        min_length: p.min_length,
        pattern: p.pattern.clone().unwrap_or_default(),
        max_items: p.max_items,
        min_items: p.min_items,
        unique_items: p.unique_items,
        multiple_of: p.multiple_of,
        enum_: p.enum_.clone(),
        max_properties: p.max_properties,
        min_properties: p.min_properties,
        required: p.required.clone(),
        all_of: p.all_of.clone(),
        one_of: p.one_of.clone(),
        any_of: p.any_of.clone(),
        not: p.not.clone(),
    };
    let type_ = p.type_.clone().unwrap_or_default();
    let cel_kind = CelKind::of(&type_, &vv.format);
    Ok(Structural {
        cel_kind,
        generic: Generic {
            type_,
            description: p.description.clone().unwrap_or_default(),
            title: p.title.clone().unwrap_or_default(),
            default: p.default.clone(),
            nullable: p.nullable,
        },
        properties,
        items,
        additional_properties,
        extensions: Extensions {
            preserve_unknown_fields: p.x_preserve_unknown_fields.unwrap_or(false),
            embedded_resource: p.x_embedded_resource,
            int_or_string: p.x_int_or_string,
            list_map_keys: p.x_list_map_keys.clone(),
            list_type: p.x_list_type.clone(),
            map_type: p.x_map_type.clone(),
            validations: p.x_validations.clone(),
        },
        value_validation: if vv == ValueValidation::default() {
            None
        } else {
            Some(Box::new(vv))
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn structural(v: serde_json::Value) -> Arc<Structural> {
        let props: JsonSchemaProps = serde_json::from_value(v).expect("props");
        Arc::new(Structural::from_props(&props).expect("structural"))
    }

    /// Every node, however built, carries the kind its `type` and `format` give.
    #[test]
    fn cel_kind_follows_type_and_format() {
        let cases = [
            (json!({}), CelKind::Untyped),
            (json!({"type": "object"}), CelKind::Object),
            (
                json!({"type": "array", "items": {"type": "string"}}),
                CelKind::Array,
            ),
            (json!({"type": "string"}), CelKind::String),
            (
                json!({"type": "string", "format": "email"}),
                CelKind::String,
            ),
            (
                json!({"type": "string", "format": "duration"}),
                CelKind::Duration,
            ),
            (json!({"type": "string", "format": "date"}), CelKind::Date),
            (
                json!({"type": "string", "format": "date-time"}),
                CelKind::DateTime,
            ),
            (json!({"type": "string", "format": "byte"}), CelKind::Byte),
            (json!({"type": "number", "format": "byte"}), CelKind::Number),
            (json!({"type": "integer"}), CelKind::Integer),
            (json!({"type": "boolean"}), CelKind::Boolean),
            (json!({"type": "null"}), CelKind::Other),
        ];
        for (schema, kind) in cases {
            assert_eq!(structural(schema.clone()).cel_kind(), kind, "{schema}");
        }
        // The nodes `with_type_and_object_meta` makes.
        let rooted = structural(json!({"type": "object"})).with_type_and_object_meta();
        assert_eq!(rooted.cel_kind(), CelKind::Object);
        let meta = &rooted.properties["metadata"];
        assert_eq!(meta.cel_kind(), CelKind::Object);
        for s in [
            &rooted.properties["kind"],
            &rooted.properties["apiVersion"],
            &meta.properties["name"],
            &meta.properties["generateName"],
        ] {
            assert_eq!(s.cel_kind(), CelKind::of(s.type_(), s.format()));
            assert_eq!(s.cel_kind(), CelKind::String);
        }
        assert_eq!(Structural::default().cel_kind(), CelKind::Untyped);
    }

    #[test]
    fn converts_tree_and_keeps_validations_aside() {
        let s = structural(json!({
            "type": "object",
            "required": ["spec"],
            "properties": {
                "spec": {"type": "object", "additionalProperties": {"type": "string", "format": "byte", "maxLength": 8}},
                "list": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                         "items": {"type": "object", "properties": {"name": {"type": "string"}}}}
            },
            "x-kubernetes-validations": [{"rule": "true"}]
        }));
        assert_eq!(s.required(), ["spec"]);
        let ap = s.properties["spec"]
            .additional_properties_schema()
            .expect("map");
        assert_eq!((ap.format(), ap.max_length()), ("byte", Some(8)));
        assert_eq!(s.properties["list"].list_type(), "map");
        assert_eq!(s.extensions.validations.len(), 1);
        assert!(
            s.properties["list"]
                .items
                .as_ref()
                .is_some_and(|i| i.properties.contains_key("name"))
        );
    }

    #[test]
    fn items_array_is_an_error() {
        let props: JsonSchemaProps = serde_json::from_value(
            json!({"properties": {"a": {"type": "array", "items": [{"type": "string"}]}}}),
        )
        .expect("props");
        let err = Structural::from_props(&props).expect_err("array items");
        assert_eq!(err.path, "properties[a].items");
    }

    #[test]
    fn resource_root_injects_type_and_object_meta() {
        let s = structural(json!({"type": "object", "properties": {
            "metadata": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 10}}},
            "kind": {"type": "string", "enum": ["X"]}
        }}));
        let r = s.with_type_and_object_meta();
        let meta = &r.properties["metadata"];
        assert_eq!(
            meta.properties.keys().collect::<Vec<_>>(),
            ["name", "generateName"]
        );
        assert_eq!(meta.properties["name"].max_length(), Some(10));
        assert_eq!(meta.properties["generateName"].max_length(), Some(252));
        assert!(r.properties["kind"].enum_values().is_empty());
        assert_eq!(r.properties["apiVersion"].type_(), "string");

        let complete = structural(json!({"type": "object", "properties": {
            "metadata": {"type": "object", "properties": {"name": {"type": "string"}, "generateName": {"type": "string"}}},
            "kind": {"type": "string"}, "apiVersion": {"type": "string"}
        }}));
        let same = complete.with_type_and_object_meta();
        assert!(Arc::ptr_eq(&same, &complete));
        assert_eq!(
            same.properties["metadata"].properties["name"].max_length(),
            None
        );
    }

    #[test]
    fn depth_is_bounded() {
        let mut p = JsonSchemaProps {
            type_: Some("string".into()),
            ..JsonSchemaProps::default()
        };
        for _ in 0..(MAX_SCHEMA_DEPTH + 5) {
            p = JsonSchemaProps {
                type_: Some("array".into()),
                items: Some(SchemaOrArray::Schema(Box::new(p))),
                ..JsonSchemaProps::default()
            };
        }
        let err = Structural::from_props(&p).expect_err("too deep");
        assert!(err.message.contains("deeper"), "{err}");
    }
}
